#!/usr/bin/env bash
# The one prepared check for a lent GPU machine (see the device tool's README): run from the
# repository root there, with `target/release/planar-hold` built here and `.gl` (the Vulkan
# and EGL loaders, downloaded as the device notes show) named in `carry`. Prints the adapter,
# GPU against CPU on the public sample (`eval --backend both`: exit 3 on any disagreement), the
# bench table on Vulkan at 256, 65,536 and 16,777,216 cases with the kernel-only rates from
# timestamps and the GPU/CPU ratios, the general kernel (search at 16M cases per shape, then end
# to end against the CPU), GPU against CPU on every public set of scenes, grasps and sliding
# lines (`gate --backend both`), the spatial gate's rates, then the JAX peer.
# Runs: an NVIDIA H200 (2026-12-04), an H100 (2026-12-06): docs/performance.md "On a real GPU".
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
sample=tests/data/public_sample.jsonl
if [ -n "$sample" ]; then
  "$bin" eval "$sample" --backend both -o /dev/null
  echo "eval --backend both over $sample: exit $? (0: GPU and CPU agree on every case)"
fi
"$bin" bench --cases "${CASES:-16777216}" --backend gpu,cpu,cpu1 --json
# The general kernel (shaders/search.wgsl, docs/contract-general.md). GPU against CPU on the public
# general cases (exit 3 on any disagreement; stderr says how many the host re-solved); the
# search alone (pack, upload, kernel, readback, and kernel-only from timestamps) at 16M cases
# per shape (up to 1M distinct contact cones, repeated); then the general table: the CPU on
# all cores and one, and the GPU end to end (float32 search on the device, the float64 finish
# and facets on the host's cores, which dominate), with the cases the host re-solved.
general=tests/data/general_public.jsonl
if [ -n "$general" ]; then
  "$bin" eval "$general" --backend both -o /dev/null
  echo "eval --backend both over $general: exit $? (0: GPU and CPU agree on every case)"
fi
"$bin" bench --general --general-search-only --cases "${GENERAL_CASES:-16777216}" --json
"$bin" bench --general --backend cpu,gpu --json
# Scenes, grasps and sliding contacts: GPU against CPU on every public set of lines (exit 3 on any
# disagreement), then the spatial gate's rates on the CPU and through the GPU.
for set in scenes_public scenes3d_public grasp_public grasp_circular_public sliding_public; do
  "$bin" gate "tests/data/$set.jsonl" --backend both -o /dev/null
  echo "gate --backend both over $set: exit $? (0: GPU and CPU agree on every line)"
done
"$bin" bench --spatial --backend cpu,gpu --json
# The JAX peer, an optional program from outside the repository (the same planar test in
# JAX): copy it to scripts/jax_cone_test.py before the run; untracked files travel with the
# working tree. Without it this part is skipped.
peer=$(ls scripts/jax_cone_test.py 2>/dev/null | head -1)
if [ -n "$peer" ] && [ -n "$sample" ]; then
  python3 "$peer" bench --cases 65536 --file "$sample"
  python3 "$peer" bench --cases 1000000 --repeats 6 --file "$sample"
fi
