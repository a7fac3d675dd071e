"""planar-hold from Python: can frictional contacts hold a rigid body?

The exact cone test of planar-hold (witness, certificate, margin) on numpy arrays, on the CPU
or a GPU, in batches of any size: planar wrenches ``(N, K <= 16, 3)`` by the enumeration,
and any number of generators (up to 256 in use per case, ``(N, K, 3)`` or spatial
``(N, K, 6)``, with a per-case ``counts``) by the general engine, which also gives the
binding facet::

    import numpy as np
    import planar_hold

    gens = np.array([[[0.2, 1, 0.8], [-0.2, 1, 1.2], [0.2, 1, -1.2], [-0.2, 1, -0.8]]])
    out = planar_hold.cone_test(gens)            # need (0, 1, 0): the box's weight
    out.verdict[0] == planar_hold.SUPPORTED       # True, margin 0.19611615
    six = np.zeros((1, 24, 6)); six[0, :, 2] = 1  # 24 spatial wrenches, all pushing up
    planar_hold.cone_test(six).margin             # GeneralOutcomes: [0.] (a flat cone)

``Engine("gpu")`` makes the adapter, device and pipeline once; reuse it for every batch.
``gate`` judges scenes and edits as ``planar-hold gate`` does; ``planar_hold.ray`` runs the
test over a Ray Data dataset (``pip install "./python[ray]"``).
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Union

from ._native import (
    MARGIN_CAP,
    MAX_GENERATORS,
    SUPPORTED,
    UNCERTAIN,
    UNSUPPORTED,
    Engine,
    MAX_GENERAL_GENERATORS,
    GeneralOutcomes,
    GpuError,
    Outcomes,
)

__all__ = [
    "Engine",
    "Outcomes",
    "GeneralOutcomes",
    "GpuError",
    "SUPPORTED",
    "UNSUPPORTED",
    "UNCERTAIN",
    "MAX_GENERATORS",
    "MAX_GENERAL_GENERATORS",
    "MARGIN_CAP",
    "VERDICTS",
    "cone_test",
    "answers",
    "gate",
]

#: Verdict names by code, as ``planar-hold eval`` writes them: ``VERDICTS[out.verdict]``.
VERDICTS = ("supported", "unsupported", "uncertain")

_cpu: Optional[Engine] = None


def _default() -> Engine:
    """The CPU engine behind the module-level functions, made on first use."""
    global _cpu
    if _cpu is None:
        _cpu = Engine("cpu")
    return _cpu


def cone_test(
    generators: Any,
    active: Any = None,
    need: Any = None,
    counts: Any = None,
    *,
    general: bool = False,
) -> Union[Outcomes, GeneralOutcomes]:
    """``Engine("cpu").cone_test`` on a shared CPU engine.

    The drop-in for the JAX ``cone_test(corners, mask, need)`` with a leading batch axis:
    ``generators`` (N, K, 3) float32 or float64 with K <= 16, ``active`` bool (N, K) or None
    (all active), ``need`` (N, 3), (3,) or None for (0, 1, 0): ``Outcomes``. Arrays
    (N, K > 16, 3) and (N, K, 6) (K <= 256 in use, ``counts`` (N,) rows per case), or
    ``general=True``, go to the general engine: ``GeneralOutcomes``, with the facet.
    """
    return _default().cone_test(generators, active, need, counts, general=general)


def answers(
    generators: Any,
    active: Any = None,
    need: Any = None,
    ids: Optional[Iterable[Any]] = None,
    counts: Any = None,
    *,
    general: bool = False,
) -> List[dict]:
    """``Engine("cpu").answers``: one dict per case, as ``planar-hold eval`` writes it."""
    return _default().answers(generators, active, need, ids, counts, general=general)


def gate(scenes: Iterable[Any]) -> List[dict]:
    """``Engine("cpu").gate``: scene and edit dicts in, report dicts out, as ``planar-hold gate``."""
    return _default().gate(scenes)
