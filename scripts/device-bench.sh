#!/usr/bin/env bash
# The one prepared check for a lent GPU machine (see the device tool's README): run from the
# repository root there, with `target/release/planar-hold` built here and `.gl` (the Vulkan
# and EGL loaders, downloaded as the README shows) named in `carry`. Prints the adapter, the
# bench table on Vulkan with the GPU/CPU ratios, then the JAX peer at the same batch sizes.
# Not yet run: no device was lent to the task that wrote it.
set -uo pipefail
for f in .gl/*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done
ldconfig
if ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
export WGPU_BACKEND=vulkan
bin=target/release/planar-hold
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
"$bin" info
"$bin" bench --cases "${CASES:-10000000}" --backend gpu,cpu,cpu1 --json
# The JAX peer: copy ../shared/tools/jax_cone_test.py (and ../shared/cases/public_sample.jsonl)
# beside this script before the run; untracked files travel with the working tree.
peer=$(ls scripts/jax_cone_test.py ../shared/tools/jax_cone_test.py 2>/dev/null | head -1)
if [ -n "$peer" ]; then
  sample=$(ls scripts/public_sample.jsonl ../shared/cases/public_sample.jsonl 2>/dev/null | head -1)
  python3 "$peer" bench --cases 65536 --file "$sample"
  python3 "$peer" bench --cases 1000000 --repeats 6 --file "$sample"
fi
