"""Type stubs of the compiled half of planar_hold (planar_hold._native)."""

from typing import Any, Iterable, List, Literal, Optional

import numpy as np
import numpy.typing as npt

#: Verdict codes of ``Outcomes.verdict``.
SUPPORTED: int  # 0: a witness holds (non-negative weights reproduce the need)
UNSUPPORTED: int  # 1: a certificate holds (a plane with every generator on one side)
UNCERTAIN: int  # 2: within tolerance of the boundary; counts as not held
#: Most generators one case can have (4 body pairs x 2 endpoints x 2 edge rays).
MAX_GENERATORS: int
#: The margin reported when the contacts push in every direction (``capped``).
MARGIN_CAP: float

class GpuError(RuntimeError):
    """The GPU engine failed: no adapter (the message says how to install a software one),
    device creation, device lost, out of memory or limits."""

class Outcomes:
    """The answers of one ``cone_test`` call, one row per case, named like the Rust
    ``Outcome`` fields. The witness is given only where the verdict is SUPPORTED and the
    certificate only where it is UNSUPPORTED (zeros elsewhere)."""

    verdict: npt.NDArray[np.uint8]
    """(N,) 0 SUPPORTED, 1 UNSUPPORTED, 2 UNCERTAIN."""
    witness_len: npt.NDArray[np.uint8]
    """(N,) generators in the witness, 0..3 (0 with a supported verdict: need = 0)."""
    witness_index: npt.NDArray[np.uint8]
    """(N, 3) generator slots of the witness (ascending); the first ``witness_len`` count."""
    witness_weight: npt.NDArray[np.float64]
    """(N, 3) non-negative witness weights in the caller's units (the kernel's float32
    mantissa times its power-of-two exponent): need = sum_k weight[k] * generators[index[k]]."""
    certificate: npt.NDArray[np.float32]
    """(N, 3) unit normal y with y.w_i >= 0 for every generator and y.need < 0."""
    margin: npt.NDArray[np.float32]
    """(N,) signed distance from the need to the cone's boundary (positive inside), at most
    MARGIN_CAP."""
    capped: npt.NDArray[np.bool_]
    """(N,) True when no plane bounds the cone (it fills R^3) and the margin is MARGIN_CAP."""
    binding: npt.NDArray[np.int32]
    """(N,) index of the nearest supporting candidate plane (SPEC order), -1 for none."""
    def __len__(self) -> int: ...

class Engine:
    """A cone-test engine, made once and reused for every batch.

    ``Engine("gpu")`` finds the adapter (``WGPU_BACKEND``, ``WGPU_ADAPTER_NAME``,
    ``WGPU_POWER_PREF`` choose it), creates the device and compiles the pipeline; without an
    adapter it raises ``GpuError`` saying how to install a software one. ``Engine("cpu")``
    runs the SIMD fast path on all cores. Calls release the GIL while the engine runs; one
    engine serves one call at a time (other threads wait).
    """

    def __init__(self, backend: Literal["cpu", "gpu"] = "cpu") -> None: ...
    @property
    def backend(self) -> str:
        """"cpu" or "gpu"."""
    def describe(self) -> str:
        """What runs: "cpu (N threads)" or the adapter's name and backend."""
    def cone_test(
        self,
        generators: npt.ArrayLike,
        active: Optional[npt.ArrayLike] = None,
        need: Optional[npt.ArrayLike] = None,
    ) -> Outcomes:
        """The cone test of N cases.

        generators: (N, K, 3) float32 or float64 (read in place, any strides; other types
            are converted to float64 first), K <= 16: the wrench generators (fx, fz, moment).
        active: (N, K) bool, or None for all K active; inactive slots are ignored (they may
            hold anything, NaN included).
        need: (N, 3) per case, (3,) for all, or None for (0, 1, 0), the nominal weight.

        Raises ValueError naming the first bad case and the reason: a shape mismatch, more
        than 16 generators, a number not finite in float32.
        """
    def answers(
        self,
        generators: npt.ArrayLike,
        active: Optional[npt.ArrayLike] = None,
        need: Optional[npt.ArrayLike] = None,
        ids: Optional[Iterable[Any]] = None,
    ) -> List[dict]:
        """The same test, answered as ``planar-hold eval`` writes each case's JSON line,
        parsed: ``verdict`` as a string, ``margin``, ``capped``, ``witness`` ({"generators",
        "weights"} with float64 weights re-solved on the subset found) or None,
        ``certificate`` or None, ``binding``, ``binding_candidate``; ``id`` first where
        ``ids`` gives one that is not None."""
    def gate(self, scenes: Iterable[Any]) -> List[dict]:
        """The gate over scenes and edits: each a dict (or its JSON text) of the form
        ``planar-hold gate`` reads, each report the dict it writes for that line. All needs
        of all scenes run in one batch. Raises ValueError naming the scene index and the
        problem for a bad scene."""
