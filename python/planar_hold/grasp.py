"""Grasp quality from Python: the Ferrari–Canny metric q1 of many grasps at once.

A grasp holds an object by its contacts alone (docs/contract-grasp.md): ``grasp_quality``
answers whether it is in force closure, its q1 (the largest ball about the origin inside
the grasp wrench space W, or minus the distance from the origin to W), the weakest wrench
and the binding facet, each proven in float64 by the engine (``margin_checked``), exactly
as ``planar-hold gate`` answers a grasp line. The grasps come as dicts or JSON lines of
that form, or as numpy arrays of fingertip contacts (one point per contact)::

    import numpy as np
    import planar_hold

    points = np.array([[[0.5, 0, 0], [-0.5, 0, 0], [0, 0.5, 0], [0, -0.5, 0]]])  # (N, C, 3)
    normals = -points / 0.5                                  # inward, unit
    out = planar_hold.grasp_quality(points=points, normals=normals, mu=0.5, half_size=0.5)
    out.force_closure[0], out.q1[0]                          # (True, 0.28867...)
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable, List, Optional, Tuple

import numpy as np

__all__ = ["GraspQualities", "grasp_quality", "grasp_lines"]

#: ``friction`` values a grasp takes (docs/contract-grasp.md §5).
FRICTIONS = ("inner", "outer", "coulomb", "circular")


def _coded(column: str, code: int, doc: str) -> Any:
    """A column made when first read: where the coded column ``column`` is ``code``."""

    def made(self: "GraspQualities") -> np.ndarray:
        return self._columns[column] == code

    made.__doc__ = doc
    return functools.cached_property(made)


class GraspQualities:
    """The answers of N grasps as columns; ``reports[i]`` is grasp i's report (the dict
    ``planar-hold gate`` writes for its line), made from the columns when first asked for.

    ``force_closure`` is True only where proven, ``uncertain`` where q1 is within the
    tolerance of 0 (the report's ``"uncertain"``); ``q1_upper`` is NaN but for "coulomb";
    ``facet_normal`` NaN where W has no facet (a flat W); ``facet_contacts[i]`` the contacts
    on the binding facet (or supporting face, outside). The engine answers every grasp into
    numpy columns without the GIL; the lists (``ids``, ``facet_contacts``, ``reasons``,
    ``reports``) are made only when read."""

    q1: np.ndarray  # (N,) float64
    q1_lower: np.ndarray  # (N,) float64: q1's bound from below (docs/contract-grasp.md)
    q1_upper: np.ndarray  # (N,) float64, NaN but for "coulomb"
    weakest: np.ndarray  # (N, 6) float64: the unit weakest wrench (force, moment / l)
    margin_checked: np.ndarray  # (N,) bool: the facet set proven complete
    pyramid: np.ndarray  # (N,) int64: the pyramid edges k used
    n_generators: np.ndarray  # (N,) int64
    has_facet: np.ndarray  # (N,) bool

    def __init__(self, native: Any, ids: Optional[List[Any]] = None) -> None:
        a = native.arrays()
        self._native = native
        self._ids = ids
        self._columns = a
        self.q1 = a["q1"]
        self.q1_lower = a["q1_lower"]
        self.q1_upper = a["q1_upper"]
        self.weakest = a["weakest"]
        self.margin_checked = a["margin_checked"]
        self.pyramid = a["pyramid"]
        self.n_generators = a["n_generators"]
        self.has_facet = a["facet"]

    # The columns derived from others are made when first read (a call of one grasp is
    # mostly the making of its columns).

    force_closure = _coded("force_closure_code", 1, "(N,) bool: in force closure, proven.")
    uncertain = _coded("force_closure_code", 2, "(N,) bool: q1 within its tolerance of 0.")
    q1_at_least = _coded("q1_at_least_code", 1, "(N,) bool: q1 >= the threshold, proven.")
    q1_at_least_uncertain = _coded(
        "q1_at_least_code", 2, "(N,) bool: the bracket could not decide the threshold."
    )

    @functools.cached_property
    def facet_normal(self) -> np.ndarray:
        """(N, 6) float64: ``weakest`` where W has a facet there, NaN where it has none."""
        return np.where(self.has_facet[:, None], self.weakest, np.nan)

    def __len__(self) -> int:
        return len(self.q1)

    def __repr__(self) -> str:
        return (
            f"GraspQualities({len(self)} grasps: {int(self.force_closure.sum())} in force "
            f"closure, {int(self.uncertain.sum())} uncertain)"
        )

    @functools.cached_property
    def ids(self) -> List[Any]:
        """Each grasp's id: the ids given, else the dicts' own (the index for arrays)."""
        return list(self._ids) if self._ids is not None else self._native.ids()

    @functools.cached_property
    def facet_contacts(self) -> List[np.ndarray]:
        """The contacts on each grasp's binding facet (empty without one), int64."""
        a = self._columns
        values = a["facet_contacts"].astype(np.int64)
        return np.split(values, a["facet_contact_offsets"][1:-1])

    @functools.cached_property
    def reasons(self) -> List[Optional[str]]:
        """Why each grasp is not in force closure, in words; None where it is."""
        a = self._columns
        text, ends, has = a["reason_bytes"], a["reason_offsets"], a["has_reason"]
        return [
            text[ends[i] : ends[i + 1]].decode() if has[i] else None for i in range(len(self))
        ]

    @functools.cached_property
    def friction(self) -> np.ndarray:
        """Each grasp's friction model's name, (N,) str."""
        a = self._columns
        return np.array(a["friction_names"], dtype=object)[a["friction_code"]]

    @functools.cached_property
    def reports(self) -> List[dict]:
        """Each grasp's report, as ``planar-hold gate`` writes it for its line."""
        reports = self._native.reports()
        if self._ids is not None:
            for r, i in zip(reports, self._ids):
                r["id"] = i
        return reports


def _float(x: Any) -> Optional[float]:
    """An optional number as a float (None stays None)."""
    return None if x is None else float(x)


def _per_grasp(name: str, value: Any, n: int, c: int) -> np.ndarray:
    """A scalar, (N,) or (N, C) argument as an (N, C) float64 array."""
    a = np.asarray(value, dtype=np.float64)
    if a.ndim == 0:
        return np.full((n, c), float(a))
    if a.shape == (n,):
        return np.repeat(a[:, None], c, axis=1)
    if a.shape == (n, c):
        return a
    raise ValueError(f"{name} must be a number, ({n},) or ({n}, {c}); got shape {a.shape}")


def _fingertips(
    points: Any, normals: Any, mu: Any, counts: Any, half_size: Any, friction: str
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fingertip arrays checked: points and normals (N, C, 3), mu (N, C) and half_size (N,)
    C-contiguous float64, the contacts in use (N,) int64, each in use finite. The first bad
    contact (by grasp, then points, normals, mu, then contact) is named with its numbers."""
    p = np.ascontiguousarray(points, dtype=np.float64)
    nrm = np.ascontiguousarray(normals, dtype=np.float64)
    if p.ndim != 3 or p.shape[2] != 3:
        raise ValueError(f"points must be (N, C, 3); got shape {p.shape}")
    if nrm.shape != p.shape:
        raise ValueError(f"normals must have the shape of points {p.shape}; got {nrm.shape}")
    n, c, _ = p.shape
    mus = np.ascontiguousarray(_per_grasp("mu", mu, n, c))
    ls = np.asarray(half_size, dtype=np.float64)
    ls = np.full(n, float(ls)) if ls.ndim == 0 else np.ascontiguousarray(ls)
    if ls.shape != (n,):
        raise ValueError(f"half_size must be a number or ({n},); got shape {ls.shape}")
    if counts is None:
        used = np.full(n, c, dtype=np.int64)
    else:
        used = np.asarray(counts)
        if used.shape != (n,) or not np.issubdtype(used.dtype, np.integer):
            raise ValueError(f"counts must be ({n},) integers; got {used.dtype} {used.shape}")
        if ((used < 0) | (used > c)).any():
            g = int(np.flatnonzero((used < 0) | (used > c))[0])
            raise ValueError(f"grasp {g}: counts {int(used[g])} is not in 0..{c}")
        used = np.ascontiguousarray(used, dtype=np.int64)
    if friction not in FRICTIONS:
        raise ValueError(f"friction must be one of {FRICTIONS}, got {friction!r}")
    # Whole arrays first (one reduction each: a call of one grasp is mostly these checks);
    # contact by contact only where a number is not finite, to name it.
    if not (np.isfinite(p).all() and np.isfinite(nrm).all() and np.isfinite(mus).all()):
        in_use = np.arange(c)[None, :] < used[:, None]
        named = (("points", p), ("normals", nrm), ("mu", mus))
        bad = [~np.isfinite(a.reshape(n, c, -1)).all(axis=2) & in_use for _, a in named]
        grasps = np.flatnonzero(np.any(bad, axis=(0, 2)))
        if len(grasps):
            g = int(grasps[0])
            for (name, a), b in zip(named, bad):
                if b[g].any():
                    j = int(np.flatnonzero(b[g])[0])
                    raise ValueError(
                        f"grasp {g}: contact {j}: {name} holds a number that is NaN or "
                        f"infinite ({a[g, j].tolist()})"
                    )
    return p, nrm, mus, ls, used


def grasp_lines(
    points: Any,
    normals: Any,
    mu: Any,
    counts: Any = None,
    *,
    half_size: Any = 1.0,
    pyramid: int = 4,
    friction: str = "inner",
    ids: Optional[Iterable[Any]] = None,
) -> List[dict]:
    """The grasp dicts (docs/contract-grasp.md §1) of fingertip grasps given as arrays:
    ``points`` and ``normals`` (N, C, 3) (one point per contact, relative to the object's
    centre; inward normals, any length but zero), ``mu`` a number, (N,) or (N, C),
    ``counts`` (N,) the contacts in use per grasp (default C), ``half_size`` (the moment
    unit l) a number or (N,). Non-finite numbers are refused here, with the grasp's and the
    contact's index."""
    p, nrm, mus, ls, used = _fingertips(points, normals, mu, counts, half_size, friction)
    n = len(p)
    ids = list(range(n)) if ids is None else list(ids)
    if len(ids) != n:
        raise ValueError(f"{len(ids)} ids for {n} grasps")
    lines = []
    for g in range(n):
        k = int(used[g])
        pg, ng, mg = p[g, :k].tolist(), nrm[g, :k].tolist(), mus[g, :k].tolist()
        lines.append(
            {
                "id": ids[g],
                "dim": 3,
                "grasp": True,
                "half_size": float(ls[g]),
                "pyramid": int(pyramid),
                "friction": friction,
                "contacts": [
                    {"points": [pg[j]], "normal": ng[j], "mu": mg[j]} for j in range(k)
                ],
            }
        )
    return lines


def grasp_quality(
    grasps: Optional[Iterable[Any]] = None,
    *,
    points: Any = None,
    normals: Any = None,
    mu: Any = None,
    counts: Any = None,
    half_size: Any = 1.0,
    pyramid: int = 4,
    friction: str = "inner",
    ids: Optional[Iterable[Any]] = None,
    engine: Any = None,
    q1_at_least: Optional[float] = None,
    tolerance: Optional[float] = None,
) -> GraspQualities:
    """The Ferrari–Canny quality of N grasps in one batch: ``GraspQualities``.

    Either ``grasps``, an iterable of grasp dicts or JSON lines (``"dim": 3, "grasp":
    true``, docs/contract-grasp.md §1: point, edge and face contacts, any ``pyramid`` and
    ``friction`` per grasp), or the arrays of :func:`grasp_lines` (fingertip contacts; then
    ``half_size``, ``pyramid``, ``friction``, ``ids`` apply to all). ``engine``: the
    ``planar_hold.Engine`` to run on (default: the shared CPU one); a GPU engine runs the
    float32 search on the device and every proof on the host, with the same answers.
    ``q1_at_least``: a threshold T for every grasp that names none of its own (``"q1_at_least"``
    in a dict): ``GraspQualities.q1_at_least`` says where q1 >= T is proven, and the search
    stops as soon as the bracket [q1_lower, q1] decides it (docs/contract-grasp.md).
    ``tolerance``: how far apart, relative to the grasp's scale, q1's bounds may stay (above 0,
    at most 0.1; default 1e-9), for every grasp that names none of its own (``"tolerance"``):
    a ``"circular"`` search stops once its bracket is that narrow; pyramid grasps are answered
    by their exact facets whatever it is.

    Raises ValueError naming the grasp's index and the problem for a bad grasp (no contacts,
    a zero normal, mu < 0, more than 256 generators, a mass, a line that is not a grasp)."""
    from . import _default
    from . import _native

    engine = engine if engine is not None else _default()
    if q1_at_least is not None:
        q1_at_least = float(q1_at_least)
        if not np.isfinite(q1_at_least):
            raise ValueError(f"q1_at_least must be a finite number, got {q1_at_least}")
    if grasps is None:
        if points is None or normals is None or mu is None:
            raise TypeError("grasp_quality takes grasps, or points, normals and mu")
        return _arrays(
            engine, points, normals, mu, counts, half_size, pyramid, friction, ids, q1_at_least,
            tolerance,
        )  # fmt: skip
    if points is not None or normals is not None or mu is not None:
        raise TypeError("grasp_quality takes grasps or arrays, not both")
    if isinstance(grasps, (dict, str)):
        raise TypeError("grasp_quality takes an iterable of grasps, not one grasp")
    grasps = list(grasps)
    for i, g in enumerate(grasps):
        marked = g.get("grasp") if isinstance(g, dict) else ('"grasp"' in g)
        if not marked:
            raise ValueError(f'grasp {i}: not a grasp (a grasp has "dim": 3, "grasp": true)')
    try:
        return GraspQualities(_native.grasp_lines(engine, grasps, q1_at_least, _float(tolerance)))
    except ValueError as e:
        # A dict that is no JSON line ("invalid input: scene i: ...") reads "grasp i: ...".
        text = re.sub(r"^(invalid input: )?scene (\d+): ", r"grasp \2: ", str(e))
        raise ValueError(text) from None


def _arrays(
    engine: Any,
    points: Any,
    normals: Any,
    mu: Any,
    counts: Any,
    half_size: Any,
    pyramid: int,
    friction: str,
    ids: Optional[Iterable[Any]],
    q1_at_least: Optional[float] = None,
    tolerance: Optional[float] = None,
) -> GraspQualities:
    """``grasp_quality`` on fingertip arrays: checked here for shape and finiteness (whole
    arrays at once), then read and answered by the engine without a Python object a grasp."""
    from . import _native

    p, nrm, mus, ls, used = _fingertips(points, normals, mu, counts, half_size, friction)
    if ids is not None:
        ids = list(ids)
        if len(ids) != len(p):
            raise ValueError(f"{len(ids)} ids for {len(p)} grasps")
    native = _native.grasp_arrays(
        engine, p, nrm, mus, used, ls, int(pyramid), friction, q1_at_least,
        _float(tolerance),
    )  # fmt: skip
    return GraspQualities(native, ids)
