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
``gate`` judges scenes and edits as ``planar-hold gate`` does, planar ones (docs/contract-planar.md) and
spatial ones (``"dim": 3``, docs/contract-spatial.md: a 3-D body on point, edge and face contacts)
mixed in one call; ``support_region`` gives a spatial scene's support region (where the
centre of mass may go) as an array::

    corners = [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.5, 0.5, -0.5], [-0.5, 0.5, -0.5]]
    cube = {"id": "cube", "dim": 3, "half_size": 0.5,       # a cube on its 4 bottom corners
            "mass": {"nominal": 1.0, "range": [0.9, 1.1]},
            "com_offset": [[-0.01, 0.01], [-0.01, 0.01]],   # 8 needs: the box's corners
            "contacts": [{"pair": i, "points": [p], "normal": [0, 0, 1], "mu": 0.5}
                         for i, p in enumerate(corners)]}
    report = planar_hold.gate([cube])[0]    # held True, robust_margin 0.3 (in m0*g units)
    planar_hold.support_region(cube)        # (4, 2): the base square, whatever mu

``grasp_quality`` ranks grasps by the Ferrari–Canny metric (docs/contract-grasp.md): force
closure, q1, the weakest wrench and the binding facet, proven, for N grasps at once, from grasp
dicts or from numpy arrays of fingertip contacts (``planar_hold.grasp``).

``planar_hold.ray`` runs the cone test over a Ray Data dataset (``pip install
"./python[ray]"``).
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Union

import numpy as np

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
    __version__,
)
from .grasp import GraspQualities, grasp_lines, grasp_quality
from .proof import ProofError, check_proof

__all__ = [
    "__version__",
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
    "support_region",
    "grasp_quality",
    "grasp_lines",
    "GraspQualities",
    "ProofError",
    "check_proof",
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
    inside_margin: bool = True,
) -> Union[Outcomes, GeneralOutcomes]:
    """``Engine("cpu").cone_test`` on a shared CPU engine.

    The drop-in for the JAX ``cone_test(corners, mask, need)`` with a leading batch axis:
    ``generators`` (N, K, 3) float32 or float64 with K <= 16, ``active`` bool (N, K) or None
    (all active), ``need`` (N, 3), (3,) or None for (0, 1, 0): ``Outcomes``. Arrays
    (N, K > 16, 3) and (N, K, 6) (K <= 256 in use, ``counts`` (N,) rows per case), or
    ``general=True``, go to the general engine: ``GeneralOutcomes``, with the facet
    (``inside_margin=False``: without the facet search, a supported case's margin 0).
    """
    return _default().cone_test(
        generators, active, need, counts, general=general, inside_margin=inside_margin
    )


def answers(
    generators: Any,
    active: Any = None,
    need: Any = None,
    ids: Optional[Iterable[Any]] = None,
    counts: Any = None,
    *,
    general: bool = False,
    proof: bool = False,
) -> List[dict]:
    """``Engine("cpu").answers``: one dict per case, as ``planar-hold eval`` writes it (with
    ``proof=True``, as ``eval --proof``: each general answer's ``"proof"``, which
    ``check_proof`` checks; docs/proof.md)."""
    return _default().answers(generators, active, need, ids, counts, general=general, proof=proof)


def gate(scenes: Iterable[Any], *, proof: bool = False, support_region: bool = True) -> List[dict]:
    """``Engine("cpu").gate``: scene and edit dicts (or their JSON lines) in, report dicts out,
    as ``planar-hold gate``; planar and spatial (``"dim": 3``) scenes mixed. See
    ``Engine.gate`` for the fields. ``proof=True``: as ``gate --proof``, each spatial need's and
    grasp's ``"proof"`` (docs/proof.md), which ``check_proof`` checks. ``support_region=False``:
    as ``gate --no-region``, spatial reports without their ``support_region`` fields (about a
    third of a small scene's time)."""
    return _default().gate(scenes, proof=proof, support_region=support_region)


def support_region(scene: Any, engine: Optional[Engine] = None) -> np.ndarray:
    """The support region of one spatial scene (docs/contract-support-region.md): the horizontal
    centre-of-mass offsets ``[dx, dy]`` (from the scene's reference point, in its length
    unit) at which the contacts hold the body at the nominal mass.

    ``scene`` is a spatial scene (``"dim": 3``) as a dict or its JSON line. Returns the
    polygon's vertices as an (N, 2) float64 array, counter-clockwise, clipped to
    ``|dx|, |dy| <= 4 * half_size``: exactly the ``"support_region"`` of its ``gate`` report
    (that report also says ``"support_region_shape"``: "polygon", "segment" (N = 2), "point"
    (N = 1) or "empty" (N = 0), and ``"support_region_clipped"``: whether it reaches the clip
    box, i.e. is unbounded or larger). It comes from the facets of the contacts' cone (the
    main pyramid: the inner one for "inner" and "coulomb"), so it does not depend on the
    mass interval, ``com_offset`` or ``margin_min``; for a cube on its four bottom corners it
    is the base square whatever mu. For many scenes, call ``gate`` once and read each
    report's ``"support_region"``. ``engine``: the engine to run on (default: the shared CPU
    one).

    Raises ValueError for a bad scene (as ``gate``) or a planar one (no ``"dim": 3``).
    """
    if isinstance(scene, (list, tuple)):
        raise TypeError("support_region takes one scene (a dict or a JSON line), not a list")
    report = (engine if engine is not None else _default()).gate([scene])[0]
    if report.get("dim") != 3:
        raise ValueError(
            'scene 0: support_region takes a spatial scene ("dim": 3); this one is planar'
        )
    return np.asarray(report["support_region"], dtype=np.float64).reshape(-1, 2)
