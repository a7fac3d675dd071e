"""Type stubs of the compiled half of planar_hold (planar_hold._native)."""

from typing import Any, Iterable, List, Literal, Optional, Union

import numpy as np
import numpy.typing as npt

#: Verdict codes of ``Outcomes.verdict``.
SUPPORTED: int  # 0: a witness holds (non-negative weights reproduce the need)
UNSUPPORTED: int  # 1: a certificate holds (a plane with every generator on one side)
UNCERTAIN: int  # 2: within tolerance of the boundary; counts as not held
#: Most generators a case of the planar enumeration has (4 body pairs x 2 endpoints x 2 edge
#: rays): (N, K, 3) arrays with K <= MAX_GENERATORS go to it.
MAX_GENERATORS: int
#: Most generators in use in one case of the general engine (docs/contract-general.md): 256.
MAX_GENERAL_GENERATORS: int
#: The margin reported when the contacts push in every direction (``capped``).
MARGIN_CAP: float
#: The package version (python/Cargo.toml's, which the wheel's metadata also carries).
__version__: str

class GraspColumns:
    """The answers of N grasps as the engine made them (``planar_hold.GraspQualities`` wraps
    it): columns, and each report rebuilt from them on request."""

    def __len__(self) -> int: ...
    def arrays(self) -> dict:
        """The columns as numpy arrays: ``force_closure_code`` (0 false, 1 true, 2
        uncertain), ``q1``, ``q1_lower``, ``q1_upper`` (NaN but for "coulomb"), ``weakest``
        (N, 6), ``facet`` (bool), ``facet_generators`` / ``facet_contacts`` (uint32, back to
        back) and their ``*_offsets`` (N + 1, int64), ``margin_checked``, ``friction_code``
        and ``friction_names``, ``pyramid``, ``n_generators``, ``reason_bytes`` (UTF-8, back
        to back), ``reason_offsets`` (N + 1) and ``has_reason``."""
    def ids(self) -> List[Any]:
        """Each grasp's id as read (a line's or row's own; the index for arrays)."""
    def reports(self) -> List[dict]:
        """Each grasp's report, as ``planar-hold gate`` writes it."""

def grasp_arrays(
    engine: "Engine",
    points: npt.NDArray[np.float64],
    normals: npt.NDArray[np.float64],
    mu: npt.NDArray[np.float64],
    counts: npt.NDArray[np.int64],
    half_size: npt.NDArray[np.float64],
    pyramid: int,
    friction: str,
    q1_at_least: Optional[float] = None,
    tolerance: Optional[float] = None,
) -> GraspColumns:
    """Fingertip grasps from C-contiguous arrays ((N, C, 3), (N, C, 3), (N, C), (N,), (N,)),
    as ``planar_hold.grasp_quality`` checks and passes them, each with the threshold
    ``q1_at_least`` and the ``tolerance`` when given (ValueError for a tolerance not in
    (0, 0.1]). ValueError "grasp i: ..." for the first bad grasp."""

def grasp_lines(
    engine: "Engine",
    lines: Iterable[Any],
    q1_at_least: Optional[float] = None,
    tolerance: Optional[float] = None,
) -> GraspColumns:
    """Grasps from their dicts or JSON lines (``q1_at_least``, ``tolerance``: those of the
    grasps that name none of their own). ValueError "grasp i: ..." for the first bad
    one (or one that is not a grasp)."""

def grasp_arrow(engine: "Engine", batch: Any) -> GraspColumns:
    """Grasps from a pyarrow RecordBatch of grasp rows (the Arrow PyCapsule interface), read
    column by column as ``planar-hold gate`` reads Parquet rows (null meaning absent; an
    ``id`` column needed). ValueError "grasp i: ..." for the first bad row."""

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
    """(N,) index of the nearest supporting candidate plane (the table order of docs/contract-planar.md §5), -1 for none."""
    def __len__(self) -> int: ...

class GeneralOutcomes:
    """The answers of one ``cone_test`` call on the general engine (docs/contract-general.md,
    float64), one row per case, in the form of ``Outcomes`` where it fits; d is ``dim``.
    Every generator index is a row of the caller's ``generators`` array (rows left out by
    ``active`` or ``counts`` keep their numbers). The witness is given only where the verdict
    is SUPPORTED and the certificate only where it is UNSUPPORTED (zeros elsewhere)."""

    dim: int
    """3 or 6: the generators' length."""
    verdict: npt.NDArray[np.uint8]
    """(N,) 0 SUPPORTED, 1 UNSUPPORTED, 2 UNCERTAIN (within 1e-9 relative of the boundary)."""
    witness_len: npt.NDArray[np.uint8]
    """(N,) generators in the witness, 0..d (0 with a supported verdict: need = 0)."""
    witness_index: npt.NDArray[np.int32]
    """(N, d) rows of the witness's linearly independent generators, ascending; the first
    ``witness_len`` count, the rest are 0."""
    witness_weight: npt.NDArray[np.float64]
    """(N, d) their non-negative weights: need = sum_k weight[k] * generators[index[k]]."""
    certificate: npt.NDArray[np.float64]
    """(N, d) the nearest certificate where UNSUPPORTED: the unit y = (P(need) - need)/dist,
    P the projection onto the cone, with y.w_i >= 0 for every generator and
    y.need = -dist = margin."""
    margin: npt.NDArray[np.float64]
    """(N,) signed distance from the need to the cone's boundary: inside, the least n_f.need
    over the facets; outside, minus the distance to the cone; 0 on a cone that is not
    full-dimensional; at most MARGIN_CAP."""
    capped: npt.NDArray[np.bool_]
    """(N,) True when the cone is all of R^d (the margin is MARGIN_CAP)."""
    margin_checked: npt.NDArray[np.bool_]
    """(N,) True when the margin is proven: inside, the bound from below (``margin_lower``)
    meets it within tolerance; True on every other answer. False: the margin is the least
    over the checked facets found, an upper bound of the true one."""
    margin_lower: npt.NDArray[np.float64]
    """(N,) the proven bound from below (docs/contract-general.md §9): inside, the inner
    hull's least face distance (0 within rounding of the boundary); outside, minus the
    distance to the nearest point found; equal to ``margin`` within tolerance where
    ``margin_checked``."""
    has_facet: npt.NDArray[np.bool_]
    """(N,) whether the case has a binding facet (False when capped or flat, or uncertain
    without one)."""
    facet_normal: npt.NDArray[np.float64]
    """(N, d) what binds: inside, the unit inward normal of the facet attaining the margin
    (ties: the lexicographically smallest generator list); outside, the certificate's
    plane. Zeros where ``has_facet`` is False."""
    facet_mask: npt.NDArray[np.bool_]
    """(N, K) True for the rows of ``generators`` that lie on that facet (zero generators
    left out): ``np.flatnonzero(out.facet_mask[i])`` is the ``facet.generators`` list that
    ``planar-hold eval`` writes."""
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
        counts: Optional[npt.ArrayLike] = None,
        *,
        general: bool = False,
        inside_margin: bool = True,
    ) -> Union[Outcomes, GeneralOutcomes]:
        """The cone test of N cases, on the engine their shape asks for.

        generators: (N, K, d) float32 or float64 (read in place, any strides; other types
            are converted to float64 first), d = 3 or 6.
            - (N, K <= 16, 3): the planar enumeration (docs/contract-planar.md, float32): ``Outcomes``.
              The generators are planar wrenches (fx, fz, moment).
            - (N, K > 16, 3) and (N, K, 6), or any (N, K, 3) with ``general=True``: the
              general engine (docs/contract-general.md, float64): ``GeneralOutcomes``, with
              the facet. Six numbers are spatial wrenches (fx, fy, fz, tx, ty, tz).
        active: (N, K) bool, or None for all K active; inactive rows are ignored (they may
            hold anything, NaN included).
        need: (N, d) per case, (d,) for all, or None for the nominal weight: (0, 1, 0), or
            (0, 0, 1, 0, 0, 0) in R^6.
        counts: (N,) integers, or None: case i uses rows 0..counts[i] of its generators (and
            of those, the active ones); rows beyond are ignored, whatever they hold. The
            ragged form: pad every case to the longest and give each its count.
        general: send (N, K <= 16, 3) arrays to the general engine too (float64 answers
            with the facet; its verdicts agree with the enumeration's beyond tolerance).
        inside_margin: False leaves out the general engine's facet search: a supported
            case's margin is then 0 and it has no facet (``has_facet`` False, ``capped``
            False); verdicts, witnesses, certificates and the distance outside are the
            same. For callers who ask only whether it holds (the NNLS alone: several times
            to a hundred times faster on held R^6 cases). The planar enumeration computes
            everything either way.

        Both engines take the call the way every front end does (``planar-hold eval``
        included): its cases converted into one batch (a float64 copy of the general
        engine's numbers in use), evaluated, then written into the arrays. On the GPU the
        general engine's search runs on the device, in chunks its limits allow, and every
        case is finished and checked in float64 on the CPU's cores.

        The GIL is released while the cases are converted and evaluated. Raises ValueError
        naming the first bad case and the reason: a shape mismatch, d not 3 or 6, a count
        outside 0..K, more than 256 generators in use in a general case, a number not finite
        (in float32 for the planar engine).
        """
    def answers(
        self,
        generators: npt.ArrayLike,
        active: Optional[npt.ArrayLike] = None,
        need: Optional[npt.ArrayLike] = None,
        ids: Optional[Iterable[Any]] = None,
        counts: Optional[npt.ArrayLike] = None,
        *,
        general: bool = False,
        proof: bool = False,
    ) -> List[dict]:
        """The same test (same arguments and engines as ``cone_test``), answered as
        ``planar-hold eval`` writes each case's JSON line, parsed. Planar: ``verdict`` as a
        string, ``margin``, ``capped``, ``witness`` ({"generators", "weights"} with float64
        weights re-solved on the subset found) or None, ``certificate`` or None,
        ``binding``, ``binding_candidate``. General: ``verdict``, ``margin``, ``capped``,
        ``witness``, ``certificate``, ``facet`` ({"normal", "generators"} or None),
        ``margin_lower`` (the bound from below), ``margin_checked``, and with ``proof=True``
        the ``proof`` of both bounds (docs/proof.md; ``planar_hold.check_proof``). ``id``
        first where ``ids`` gives one that is not None; indices are rows of ``generators``."""
    def answer_rows(
        self,
        values: npt.ArrayLike,
        dims: npt.ArrayLike,
        counts: npt.ArrayLike,
        needs: Optional[npt.ArrayLike] = None,
    ) -> List[dict]:
        """Ragged rows answered as ``planar-hold eval`` answers their lines, in one call: row
        i is ``counts[i]`` generators of ``dims[i]`` numbers (3 or 6), back to back in the 1-d
        ``values`` (float32 or float64), its need the next ``dims[i]`` numbers of the 1-d
        ``needs`` (default: the nominal weight of its dimension). Each row goes to the engine
        its shape picks: up to 16 generators of 3 numbers to the planar enumeration (unless
        a number is one float32 does not hold: beyond its range, or nonzero below its normal
        range), the others to the general engine; the answers as ``answers`` gives them. Raises
        ValueError naming the first bad row ("case i: ...")."""
    def gate(
        self, scenes: Iterable[Any], *, proof: bool = False, support_region: bool = True
    ) -> List[dict]:
        """The gate over scenes and edits: each a dict (or its JSON text) of the form
        ``planar-hold gate`` reads, each report the dict it writes for that line, in order
        (``proof=True``: as ``gate --proof``, each spatial need's and grasp's ``proof``;
        ``support_region=False``: as ``gate --no-region``, without the ``support_region``
        fields).
        Planar and spatial scenes may be mixed; all needs of all scenes run in one batch
        per engine (planar needs of at most 16 generators through the enumeration, every
        other need through the general engine).

        - Planar (docs/contract-planar.md §8–§9, no ``dim``): a box on edge contacts, or an edit
          (``before``/``after``). Report: ``held``, ``robust_margin``, ``uncertain``,
          ``needs``, ``binding_need``, ``reason`` (when not held), ...
        - Spatial (docs/contract-spatial.md and docs/contract-scenes.md, ``"dim": 3``): a 3-D body of ``half_size`` l
          on point, edge and face ``contacts`` (``points``: 1, 2 or 3+ coplanar, relative to
          the nominal centre of mass; inward ``normal``; ``mu`` a number or [lo, hi]; at
          most one contact per ``pair``), ``pyramid`` edges per point (3..64, default 4),
          ``friction`` "inner" (default), "outer" or "coulomb", ``mass`` ({"nominal",
          "range"}), ``com_offset`` ([[dx_lo, dx_hi], [dy_lo, dy_hi]]: with the mass range
          up to 8 needs), ``margin_min``. Report: ``id``, ``dim`` (3), ``held``,
          ``robust_margin`` (the least need's margin: force in m0*g and moment in m0*g*l in
          one Euclidean norm), ``uncertain``, ``capped``, ``friction``, ``pyramid`` (the k
          used), ``margin_min``, ``n_generators``, ``margin_upper`` and
          ``coulomb_uncertain`` ("coulomb" only), ``binding_need`` ({"index", "mass",
          "com_offset"}), ``binding`` ({"normal", "generators", "contacts", "points"} or
          None), ``reason`` (when not held: which need, certified or uncertain, the
          certificate, the contacts on the binding plane), ``support_region`` ([[dx, dy],
          ...] counter-clockwise, clipped to 4 l; see ``planar_hold.support_region``),
          ``support_region_shape``, ``support_region_clipped``, and ``needs`` (per need:
          ``mass``, ``com_offset``, ``need`` (6 numbers), ``verdict``, ``margin``,
          ``capped``, ``witness`` ({"generators", "weights", "sources"}) or None,
          ``certificate`` (6 numbers) or None, ``binding``).

        Raises ValueError naming the scene index and the problem for a bad scene ("scene 3:
        contacts[1].normal is the zero vector ..."): docs/contract-scenes.md's list (zero
        normal, mu < 0, an upside-down interval, half_size or mass <= 0, a face not coplanar,
        more than 256 generators, unknown fields, dim not 3) and malformed JSON; a dict
        holding NaN or infinity is refused as not JSON. TypeError for one scene given alone
        (not in a list)."""
    def gate_columns(self, scenes: Iterable[Any], *, support_region: bool = True) -> dict:
        """``gate``'s reports as the columns of ``planar_hold.ray``'s scene rows
        (``SCENE_SCHEMA`` less ``id``), a dict of lists: ``held``, ``robust_margin``,
        ``uncertain``, ``n_generators``, ``sliding`` (the sliding contacts' indices),
        ``reason``, and ``report``, each report's JSON text as ``planar-hold gate`` writes it,
        less its ``id``. Raises as ``gate``."""

def scene_generators(scene: Any, pyramid: int) -> np.ndarray:
    """The generators of a spatial scene or grasp line (its dict or JSON text) at ``pyramid``
    edges a point, of its main pyramid (inner for "inner" and "coulomb"): a (K, 6) float64
    array in docs/contract-spatial.md §3's order, as the engine receives them; what
    ``planar_hold.check_proof`` rebuilds a scene's cone from. Raises ValueError for a planar
    scene, a bad line, or ``pyramid`` outside 3..64."""

def region_map(scene: Any) -> dict:
    """The support region's map of a spatial scene (its dict or JSON text; not a grasp):
    ``{"origin", "axes", "unit", "half_width"}`` with the need at a centre-of-mass offset δ
    ``origin + (δx/unit)·axes[0] + (δy/unit)·axes[1]`` and the clip box ``|δ| <= half_width·unit``
    (docs/contract-support-region.md §4); what ``check_proof`` checks a
    ``support_region_proof`` against. Raises ValueError for another kind of line."""
