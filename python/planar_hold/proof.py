"""Check an answer's proof (docs/proof.md) with determinants and dot products alone.

An independent reading of the same rules the Rust checker (``planar-hold check-proof``)
applies: no hull, no solver, nothing the engine computed is trusted but the indices, weights
and planes the proof names. Determinants are taken in float64 by numpy, and again exactly
(rational arithmetic on the floats as given) wherever float64 could not be sure of a sign or
of a thin face's distance.

``check(generators, x, proof)`` gives the two bounds a proof proves; ``check_proof(case,
answer)`` checks an answer line (a cone test's, a spatial scene's every need, a grasp's)
against its case and returns the bounds it checked (a spatial scene's support region's proof
too, by ``check_region``), or raises ``ProofError`` saying what failed.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

__all__ = ["ProofError", "check", "check_answer", "check_proof", "check_region"]

EPS = 1e-9  # the contract's tolerance: planes support within it, witnesses reproduce within it
SIGN = 1e-24  # a determinant smaller than this (relative) has no trusted sign
CAP = 1000.0  # a cone test's margin beyond it is reported as it


class ProofError(ValueError):
    """A proof that does not prove what its answer says; the message says why."""


def _norm(v, axis=None):
    """Euclidean length at any scale (of the rows along ``axis`` where given). The tolerances
    and bounds are relative to it, and squared a vector of 1e-200 would have length 0 (every
    rounding refused) and one of 1e200 an infinite one (anything accepted): outside the range
    where squares are safe it is scaled by the largest entry first (inside, numpy's own, to
    the bit)."""
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        plain = np.linalg.norm(v, axis=axis)
    big = np.abs(v).max(axis=axis, initial=0.0)
    if np.all((big == 0) | ((big > 1e-150) & (big < 1e150)) | ~np.isfinite(big)):
        return plain
    fine = (big > 0) & np.isfinite(big)
    unit = np.where(fine, big, 1.0)
    unit_k = unit if axis is None else np.expand_dims(unit, axis)
    scaled = np.sqrt(((v / unit_k) ** 2).sum(axis=axis)) * unit
    return np.where(fine, scaled, plain)[()]


def _exact_det(rows: Sequence[Sequence[float]]) -> Fraction:
    """The determinant of the square matrix ``rows`` exactly (Bareiss on the floats as given)."""
    a = [[Fraction(v) for v in r] for r in rows]
    n = len(a)
    sign, prev = 1, Fraction(1)
    for k in range(n - 1):
        if a[k][k] == 0:
            p = next((i for i in range(k + 1, n) if a[i][k] != 0), None)
            if p is None:
                return Fraction(0)
            a[k], a[p] = a[p], a[k]
            sign = -sign
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) / prev
        prev = a[k][k]
    return sign * a[n - 1][n - 1]


def _cross(rows: np.ndarray, exact: bool = False) -> np.ndarray:
    """``n`` with ``n . y = det[rows; y]`` for the d - 1 rows of R^d."""
    d = rows.shape[1]
    if exact:
        return np.array(
            [float(_exact_det([list(r) for r in rows] + [[1.0 if j == k else 0.0 for j in range(d)]]))
             for k in range(d)]
        )
    m = np.zeros((d, d, d))
    m[:, : d - 1, :] = rows
    m[np.arange(d), d - 1, np.arange(d)] = 1.0
    return np.linalg.det(m)


def _face(rows: np.ndarray, x: np.ndarray) -> Tuple[np.ndarray, float]:
    """A face's cross vector and ``det[rows; x]``, exactly where float64 is not sure."""
    n = _cross(rows)
    scale = float(np.prod(_norm(rows, axis=1)))
    o = float(n @ x)
    if not (_norm(n) > 1e-6 * scale and abs(o) > 1e-6 * scale * _norm(x)):
        n = _cross(rows, exact=True)
        o = float(_exact_det([list(r) for r in rows] + [list(x)]))
    return n, o


def _value(measure: str, n: np.ndarray, x: np.ndarray) -> float:
    if measure == "grasp":
        return float(n[0] / _norm(n[1:]))
    return float(n @ x / _norm(n))


def _indices(set_: Any, length: int, k: int, what: str) -> List[int]:
    if not isinstance(set_, list) or len(set_) != length:
        raise ProofError(f"{what}: not {length} indices")
    out = []
    for i in set_:
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < k:
            raise ProofError(f"{what}: index {i!r} out of range")
        if i in out:
            raise ProofError(f"{what}: index {i} twice")
        out.append(i)
    return out


def _combine(g: np.ndarray, comb: Dict[str, Any], what: str) -> Tuple[np.ndarray, float]:
    idx, w = comb.get("generators"), comb.get("weights")
    if not isinstance(idx, list) or not isinstance(w, list) or len(idx) != len(w):
        raise ProofError(f"{what}: indices and weights do not pair")
    p = np.zeros(g.shape[1])
    total = 0.0
    for i, wi in zip(idx, w):
        if not isinstance(i, int) or not 0 <= i < len(g) or not (isinstance(wi, (int, float)) and math.isfinite(wi) and wi >= 0):
            raise ProofError(f"{what}: generator {i!r} or weight {wi!r} out of place")
        p += wi * g[i]
        total += wi * float(_norm(g[i]))
    return p, total


def check(generators: Any, x: Any, proof: Dict[str, Any]) -> Tuple[float, float]:
    """The bounds ``(lower, upper)`` a proof proves for the cone of ``generators`` (K x d)
    about ``x``; a grasp's proof (``"measure": "grasp"``) on the generators ``(1, w_i)``
    about ``e_0``. Raises ProofError."""
    g = np.asarray(generators, dtype=np.float64).reshape(-1, len(x))
    x = np.asarray(x, dtype=np.float64)
    k, d = g.shape
    measure = proof.get("measure")
    if measure not in ("cone", "grasp"):
        raise ProofError(f"measure {measure!r}")
    if measure == "grasp" and not (np.all(g[:, 0] == 1.0) and x[0] == 1.0 and not np.any(x[1:])):
        raise ProofError("a grasp's proof is checked on the generators (1, w) about e0")
    kind = proof.get("kind")
    if kind == "nearest":
        p, _ = _combine(g, proof, "the point")
        y = np.asarray(proof.get("plane"), dtype=np.float64)
        if y.shape != (d,) or not np.all(np.isfinite(y)) or not _norm(y) > 0:
            raise ProofError("plane: not a direction")
        vals = g @ y
        if measure == "cone":
            bad = np.nonzero(vals < -EPS * _norm(y) * _norm(g, axis=1))[0]
            if len(bad):
                raise ProofError(f"plane: generator {int(bad[0])} lies beyond it")
            return -float(_norm(x - p)), float(y @ x / _norm(y))
        if y[0] != 0.0 or not p[0] > 0:
            raise ProofError("a grasp's plane is (0, u) and its point has weight")
        return -float(_norm(p[1:]) / p[0]), float(vals.max() / _norm(y[1:]))
    if kind != "inner":
        raise ProofError(f"kind {kind!r}")
    # The plane from above: d - 1 independent generators, every generator on one side.
    up = _indices(proof.get("upper"), d - 1, k, "upper")
    n = _cross(g[up])
    if not _norm(n) > 1e-6 * np.prod(_norm(g[up], axis=1)):
        n = _cross(g[up], exact=True)
    nn = float(_norm(n))
    if not nn > SIGN * float(np.prod(_norm(g[up], axis=1))):
        raise ProofError("upper: its generators do not span a plane")
    tol = EPS * nn * _norm(g, axis=1)
    if np.any(g @ n < -tol):
        n = -n
        if np.any(g @ n < -tol):
            raise ProofError("upper: generators on both sides of its plane")
    upper = _value(measure, n, x)
    lines = proof.get("lines", [])
    faces = proof.get("faces")
    if not isinstance(faces, list):
        raise ProofError("faces: not a list")
    if not faces:
        if proof.get("lower", 0) > 0:
            raise ProofError("a bound from below without a face")
        holds = proof.get("holds")
        if not isinstance(holds, dict):
            raise ProofError("no face and no witness that x is held")
        p, total = _combine(g, holds, "holds")
        if _norm(p - x) > EPS * max(total, float(_norm(x))):
            raise ProofError("the witness misses x")
        return 0.0, upper
    # The lines: each generator's opposite in the cone, so their span L lies in it.
    if len(lines) + 1 > d or (len(lines) + 1 == d and len(faces) != 1):
        raise ProofError(f"{len(lines)} lines in R^{d}")
    basis: List[np.ndarray] = []
    line_rows = []
    for t, line in enumerate(lines):
        (i,) = _indices([line.get("generator")], 1, k, f"line {t}")
        p, total = _combine(g, line, f"line {t}")
        if _norm(p + g[i]) > EPS * (total + _norm(g[i])):
            raise ProofError(f"line {t}: the witness misses the opposite of generator {i}")
        q = g[i].copy()
        for _ in range(2):
            for b in basis:
                q -= (q @ b) * b
        if not _norm(q) > 1e-8 * _norm(g[i]):
            raise ProofError(f"line {t}: not independent of the lines before it")
        basis.append(q / _norm(q))
        line_rows.append(g[i])
    c = np.asarray(proof.get("interior"), dtype=np.float64)
    if c.shape != (d,):
        raise ProofError("interior: not d numbers")
    for b in basis:
        c = c - (c @ b) * b
    nc = float(_norm(c))
    if not c @ x > 1e-24 * nc * _norm(x):
        raise ProofError("interior: not positive on x")
    ridges: Dict[Tuple[int, ...], int] = {}
    lower = math.inf
    for t, face in enumerate(faces):
        idx = _indices(face, d - 1 - len(lines), k, f"face {t}")
        if np.any(g[idx] @ c <= 1e-24 * nc * _norm(g[idx], axis=1)):
            raise ProofError(f"interior: not positive on face {t}")
        rows = np.vstack([g[idx]] + ([np.array(line_rows)] if line_rows else []))
        nf, o = _face(rows, x)
        bound = float(np.prod(_norm(rows, axis=1)) * _norm(x))
        if not abs(o) > SIGN * bound:
            raise ProofError(f"face {t}: x lies on its plane")
        sigma = 1 if o > 0 else -1
        lower = min(lower, _value(measure, sigma * nf, x))
        for j in range(len(idx)):
            ridge = idx[:j] + idx[j + 1 :]
            sign = sigma * (1 if j % 2 == 0 else -1)
            # Sorting the ridge: each swap flips its orientation.
            order = sorted(range(len(ridge)), key=lambda a: ridge[a])
            inversions = sum(1 for a in range(len(order)) for b in range(a + 1, len(order)) if order[a] > order[b])
            key = tuple(sorted(ridge))
            ridges[key] = ridges.get(key, 0) + sign * (-1 if inversions % 2 else 1)
    open_ = [r for r, s in ridges.items() if s != 0]
    if open_:
        raise ProofError(f"the faces are not closed: ridge {list(open_[0])} is met unevenly")
    scale = float(_norm(x)) if measure == "cone" else float(_norm(g[:, 1:], axis=1).max())
    claimed = proof.get("lower")
    if not isinstance(claimed, (int, float)) or not claimed <= lower + 1e-12 * max(abs(lower), scale):
        raise ProofError(f"lower {claimed} is more than the faces prove, {lower}")
    return lower, upper


def check_answer(generators: Any, x: Any, proof: Dict[str, Any], value: float, lower: float,
                 checked: bool, tol: float, cap: float = math.inf) -> Tuple[float, float]:
    """``check``, then the answer's numbers against it: ``value`` (the margin or q1) the
    plane's within ``tol`` (outside: between the bounds), ``lower`` no more than the proof's,
    and ``checked`` only where the two meet within ``tol``."""
    lo, up = check(generators, x, proof)
    lo, up = min(lo, cap), min(up, cap)
    if proof.get("kind") == "inner":
        if abs(value - up) > tol:
            raise ProofError(f"the value {value} is not the plane's, {up}")
    elif not lo - tol <= value <= up + tol:
        raise ProofError(f"the value {value} is not within [{lo}, {up}]")
    if lower > lo + tol:
        raise ProofError(f"the bound from below {lower} is more than the proof's, {lo}")
    if lower > value + tol:
        raise ProofError(f"the bound from below {lower} is above the value {value}")
    if checked and value - lo > tol:
        raise ProofError(f"checked, but the proof leaves [{lo}, {value}] open")
    return lo, up


def check_disc_answer(discs: Dict[str, Any], answer: Dict[str, Any]) -> Tuple[float, float]:
    """A ``"circular"`` grasp's answer against its proof (docs/proof.md, circular grasps):
    each of the proof's ``points`` ``[disc, fx, fy, fz]`` on its disc ``{n + mu t : t ⊥ n,
    |t| <= 1}`` (to rounding, which lowers the bound from below by as much), its generator
    ``(1, f, p x f / l)``; the faces or the nearest point checked on those as ``check``
    checks a pyramid grasp's; the bound from above the support function's closed form
    ``h_W(u) = max_i v.n + mu |v - (v.n) n|``, ``v = u_f + (u_tau x p) / l``, at the answer's
    ``weakest`` (inside) or the plane's u (outside). ``discs`` as ``grasp_discs`` gives them."""
    proof = answer.get("proof")
    if not isinstance(proof, dict):
        raise ProofError("no proof")
    P = np.asarray(discs["points"], dtype=np.float64).reshape(-1, 3)
    N = np.asarray(discs["normals"], dtype=np.float64).reshape(-1, 3)
    mu = np.asarray(discs["mu"], dtype=np.float64).reshape(-1)
    ell = float(discs["half_size"])
    points = proof.get("points")
    if not isinstance(points, list) or not points:
        raise ProofError("a circular grasp's proof names its points")
    eps = np.finfo(np.float64).eps
    rows, slack = [], 0.0
    for j, q in enumerate(points):
        if not (isinstance(q, list) and len(q) == 4 and isinstance(q[0], int)):
            raise ProofError(f"point {j}: not [disc, fx, fy, fz]")
        i = q[0]
        if not 0 <= i < len(P):
            raise ProofError(f"point {j}: disc {i} beyond the line's {len(P)}")
        f = np.asarray(q[1:], dtype=np.float64)
        fn = float(f @ N[i])
        over = max(float(_norm(f - fn * N[i])) - mu[i], 0.0)
        off = math.hypot(fn - 1.0, over) + 8 * eps * float(_norm(f))
        if not off <= 1e-9 * (1.0 + mu[i]):
            raise ProofError(f"point {j}: {off} off disc {i}")
        w = np.concatenate([f, np.cross(P[i], f) / ell])
        arm = math.sqrt(1.0 + (float(_norm(P[i])) / ell) ** 2)
        slack = max(slack, off * arm + 8 * eps * float(_norm(w)))
        rows.append(np.concatenate([[1.0], w]))
    lo, up = check(np.array(rows), np.eye(7)[0], proof)
    lo -= slack
    u = np.asarray(answer.get("weakest") if proof.get("kind") == "inner" else proof["plane"][1:], dtype=np.float64)
    if u.shape != (6,) or not _norm(u) > 0:
        raise ProofError("the direction from above is not a direction")
    v = u[:3] + np.cross(u[3:], P) / ell
    vn = np.einsum("ij,ij->i", v, N)
    up = float(np.max(vn + mu * _norm(v - vn[:, None] * N, axis=1)) / _norm(u))
    r = _norm(P, axis=1) / ell
    scale = float(np.max(np.sqrt(1 + mu * mu) * np.sqrt(1 + r * r))) if len(P) else 1.0
    tol = EPS * scale
    value, lower = answer["q1"], answer["q1_lower"]
    if proof.get("kind") == "inner":
        if abs(value - up) > tol:
            raise ProofError(f"the value {value} is not h_W(weakest), {up}")
    elif not lo - tol <= value <= up + tol:
        raise ProofError(f"the value {value} is not within [{lo}, {up}]")
    if lower > lo + tol:
        raise ProofError(f"the bound from below {lower} is more than the proof's, {lo}")
    if lower > value + tol:
        raise ProofError(f"the bound from below {lower} is above the value {value}")
    if answer.get("margin_checked") is True and value - lo > max(tol, float(discs["tolerance"]) * scale):
        raise ProofError(f"checked, but the proof leaves [{lo}, {value}] open")
    return lo, up


REGION_TOL = 1e-9  # a support region's tolerance, relative to the scene's length unit


def _witnessed(g: np.ndarray, need: np.ndarray, idx: Any, w: Any) -> bool:
    """``sum w_k g[idx_k] = need`` within the contract's tolerance, ``w >= 0``, at most d."""
    if not isinstance(idx, list) or not isinstance(w, list) or len(idx) != len(w) or len(idx) > len(need):
        return False
    if not idx:
        return not np.any(need)
    if len(set(idx)) != len(idx) or any(not isinstance(i, int) or not 0 <= i < len(g) for i in idx):
        return False
    lam = np.asarray(w, dtype=np.float64)
    norms = _norm(g[idx], axis=1)
    s = float(_norm(need))
    if not np.all(np.isfinite(lam)) or np.any(lam * norms < -EPS * s):
        return False
    residual = need - lam @ g[idx]
    return float(_norm(residual)) <= EPS * max(s, float(np.abs(lam) @ norms))


def _distance_to_polygon(p: np.ndarray, poly: List[np.ndarray]) -> float:
    """The distance from ``p`` to the convex hull of ``poly`` (counter-clockwise), 0 inside."""
    if not poly:
        return math.inf
    best, area, inside = math.inf, 0.0, True
    for a, b in zip(poly, poly[1:] + poly[:1]):
        ab, ap = b - a, p - a
        len2 = float(ab @ ab)
        t = min(max(float(ab @ ap) / len2, 0.0), 1.0) if len2 > 0 else 0.0
        best = min(best, float(np.hypot(*(ap - t * ab))))
        area += a[0] * b[1] - a[1] * b[0]
        inside &= ab[0] * ap[1] - ab[1] * ap[0] >= 0
    return 0.0 if len(poly) >= 3 and inside and area > 0 else best


_BOX = {"+x": ((-1.0, 0.0), 1.0), "-x": ((1.0, 0.0), 1.0), "+y": ((0.0, -1.0), 1.0), "-y": ((0.0, 1.0), 1.0)}


def check_region(generators: Any, region_map: Dict[str, Any], region: Any, checked: bool,
                 proof: Dict[str, Any]) -> float:
    """A support region's proof (docs/contract-support-region.md §4) for the cone of
    ``generators`` (K x 6) under ``region_map`` (``planar_hold.region_map(scene)``): each inner
    point witnessed, each plane supporting every generator, the outer lines turning left once
    around the reported ``region`` with its vertices on them, every vertex inside every line,
    the gap recomputed no more than the proof's (within the tolerance when ``checked``).
    Returns the gap found (length unit); raises ProofError."""
    g = np.asarray(generators, dtype=np.float64).reshape(-1, 6)
    o = np.asarray(region_map["origin"], dtype=np.float64)
    ax = np.asarray(region_map["axes"], dtype=np.float64)
    unit, r = float(region_map["unit"]), float(region_map["half_width"])
    tol = REGION_TOL
    need = lambda u: o + u[0] * ax[0] + u[1] * ax[1]  # noqa: E731
    inner = []
    for t, p in enumerate(proof.get("inner", [])):
        u = np.asarray(p.get("at"), dtype=np.float64) / unit
        if u.shape != (2,) or not np.all(np.isfinite(u)) or np.any(np.abs(u) > r + tol):
            raise ProofError(f"inner {t}: {p.get('at')} is not in the box")
        if not _witnessed(g, need(u), p.get("generators"), p.get("weights")):
            raise ProofError(f"inner {t}: its generators and weights do not make need({p.get('at')})")
        inner.append(u)
    lines = []
    for t, e in enumerate(proof.get("outer", [])):
        if "box" in e:
            if e["box"] not in _BOX:
                raise ProofError(f"outer {t}: box side {e['box']!r}")
            n, c = _BOX[e["box"]]
            n, c = np.asarray(n), c * r
        else:
            z = np.asarray(e.get("plane"), dtype=np.float64)
            nz = float(_norm(z)) if z.shape == (6,) else 0.0
            if not (nz > 0 and math.isfinite(nz)):
                raise ProofError(f"outer {t}: the plane is not a direction")
            bad = np.nonzero(g @ z < -EPS * nz * _norm(g, axis=1))[0]
            if len(bad):
                raise ProofError(f"outer {t}: generator {int(bad[0])} lies beyond its plane")
            a, b = ax @ z, float(z @ o)
            if not region:
                most = b + r * float(np.abs(a).sum())
                scale = nz * (_norm(o) + r * (_norm(ax[0]) + _norm(ax[1])))
                if most < -EPS * scale and not proof.get("inner"):
                    return 0.0
                raise ProofError(f"outer {t}: its half-plane meets the box")
            na = float(np.hypot(*a))
            if not na > 1e-12 * nz * (_norm(ax[0]) + _norm(ax[1])):
                raise ProofError(f"outer {t}: the plane does not depend on the point")
            n, c = a / na, b / na
        lines.append((n, c, e.get("from")))
    if not region:
        raise ProofError("an empty region without a plane that misses the box")
    verts = [np.asarray(v, dtype=np.float64) / unit for v in region]
    m, nv = len(lines), len(verts)
    frm = [l[2] for l in lines]
    if any(not isinstance(f, int) for f in frm):
        raise ProofError("an outer line without its `from` vertex")
    if m < 2 or frm[0] != 0 or frm[-1] != nv - 1:
        raise ProofError(f"the outer lines do not run once around the {nv} reported vertices")
    if any(frm[t] not in (frm[t - 1], frm[t - 1] + 1) for t in range(1, m)):
        raise ProofError("`from` skips a vertex")
    value = lambda l, u: float(l[0] @ u) + l[1]  # noqa: E731
    around = 0.0
    for t in range(m):
        a, b = lines[t], lines[(t + 1) % m]
        cross, cos = a[0][0] * b[0][1] - a[0][1] * b[0][0], float(a[0] @ b[0])
        turn = math.atan2(cross, cos)
        if not -1e-12 < turn < math.pi:
            raise ProofError(f"outer {t} to {(t + 1) % m}: not a left turn")
        around += turn
        v = verts[frm[(t + 1) % m]]
        on = tol * math.sqrt(max((1 + cos) / 2, 0.0))
        if not (abs(value(a, v)) <= on and abs(value(b, v)) <= on):
            raise ProofError(f"vertex {frm[(t + 1) % m]} is not where outer {t} and {(t + 1) % m} meet")
    if abs(around - 2 * math.pi) > 1e-6:
        raise ProofError(f"the outer lines turn {around} radians, not once around")
    for what, pts in (("vertex", verts), ("inner", inner)):
        for i, u in enumerate(pts):
            if any(value(l, u) < -tol for l in lines):
                raise ProofError(f"{what} {i} lies beyond an outer line")
    gap = max(_distance_to_polygon(u, inner) for u in verts) * unit
    if not proof.get("gap", -math.inf) >= gap - 1e-12 * unit:
        raise ProofError(f"the gap {proof.get('gap')} is less than the proof's, {gap}")
    if checked and not gap <= tol * unit:
        raise ProofError(f"checked, but the polygons are {gap} apart")
    return gap


def check_proof(case: Any, answer: Dict[str, Any]) -> List[Tuple[float, float]]:
    """An answer (a dict as ``answers``/``gate`` give it with ``proof=True``, or its JSON
    line) checked against its case (dict or line): a cone test's proof, every need's of a
    spatial scene, a grasp's (its generators rebuilt by the physical layer at the answer's
    ``pyramid``). Returns the ``(lower, upper)`` each proof proves (none for an answer with
    nothing to prove: a planar enumeration's, a flat or capped cone's, need 0). Raises
    ProofError naming what failed, including a missing proof where one is due."""
    from ._native import scene_generators

    if isinstance(case, str):
        case = json.loads(case)
    if isinstance(answer, str):
        answer = json.loads(answer)
    if "error" in answer:
        return []
    if case.get("id") != answer.get("id"):
        raise ProofError(f"the answer's id {answer.get('id')!r} is not the case's")

    def due(a: Dict[str, Any], facet_key: str) -> bool:
        decided = a.get("verdict") in ("supported", "unsupported")
        nothing = a.get("capped") is True or (a.get("verdict") == "supported" and a.get(facet_key) is None)
        return decided and not nothing

    if "dim" in case and case.get("grasp") and case.get("friction") == "circular":
        from ._native import grasp_discs

        return [check_disc_answer(grasp_discs(case), answer)]
    if "dim" in case:
        k = answer.get("pyramid")
        g = np.asarray(scene_generators(case, k))
        if case.get("grasp"):
            lifted = np.hstack([np.ones((len(g), 1)), g])
            scale = float(_norm(g, axis=1).max()) if len(g) else 1.0
            if "proof" not in answer:
                raise ProofError("no proof")
            e = np.eye(7)[0]
            return [check_answer(lifted, e, answer["proof"], answer["q1"], answer["q1_lower"],
                                 answer.get("margin_checked") is True, EPS * scale)]
        out = []
        for t, need in enumerate(answer.get("needs", [])):
            x = np.asarray(need["need"], dtype=np.float64)
            if "proof" not in need:
                if due(need, "binding"):
                    raise ProofError(f"need {t}: no proof")
                continue
            try:
                out.append(check_answer(g, x, need["proof"], need["margin"], need["margin_lower"],
                                        need.get("margin_checked") is True,
                                        EPS * float(_norm(x)), CAP))
            except ProofError as e:
                raise ProofError(f"need {t}: {e}") from None
        if "support_region_proof" in answer:
            from ._native import region_map

            try:
                # The region is the cone's at the line's own k (a "coulomb" answer's pyramid
                # may be a refined one).
                gr = np.asarray(scene_generators(case, case.get("pyramid", 4)))
                check_region(gr, region_map(case), answer.get("support_region", []),
                             answer.get("support_region_checked") is True, answer["support_region_proof"])
            except ProofError as e:
                raise ProofError(f"support region: {e}") from None
        return out
    if "generators" not in case or "binding" in answer:
        return []  # a planar scene, or the planar enumeration's answer
    rows = case["generators"]
    need = case.get("need")
    d = len(rows[0]) if rows else len(need or [0, 1, 0])
    x = np.asarray(need if need is not None else ([0, 0, 1, 0, 0, 0] if d == 6 else [0, 1, 0]), dtype=np.float64)
    if not np.any(x):
        return []
    g = np.asarray(rows, dtype=np.float64).reshape(-1, d)
    if "proof" not in answer:
        if due(answer, "facet"):
            raise ProofError("no proof")
        return []
    return [check_answer(g, x, answer["proof"], answer["margin"], answer["margin_lower"],
                         answer.get("margin_checked") is True, EPS * float(_norm(x)), CAP)]
