"""The project's grading rules for the public sets in ``tests/data/``, for the Python tests.

The same rules as the Rust tests' ``tests/common/grade.rs`` (the contract is in ``docs/``):
every proof an answer carries is re-checked here in float64 from the input alone, and the
answer is compared with the independently computed expected answer. Each ``grade_*`` function
returns a list of failures, ``"rule: what was wrong"``; an empty list is a pass.
"""

from __future__ import annotations

import math
from typing import List, Optional

import numpy as np

VERDICTS = ("supported", "unsupported", "uncertain")


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _witness_parts(wit, k):
    if not isinstance(wit, dict):
        raise ValueError("no witness")
    idx, wts = wit.get("generators"), wit.get("weights")
    if not isinstance(idx, list) or not isinstance(wts, list) or len(idx) != len(wts):
        raise ValueError("a witness needs lists generators and weights of one length")
    if any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < k for i in idx):
        raise ValueError(f"an index out of 0..{k}: {idx}")
    if not all(_finite(w) for w in wts):
        raise ValueError("a weight that is not a finite number")
    return idx, np.array(wts, float)


# ---------------------------------------------------------------- the general test

def general_witness(W: np.ndarray, x: np.ndarray, wit) -> Optional[str]:
    """At most d distinct indices; lambda_i |w_i| >= -1e-9 scale; residual <= 1e-7 scale,
    scale = max(|need|, sum |lambda||w|). A zero need is held by the empty witness."""
    s = float(np.linalg.norm(x))
    if wit is None:
        return None if s == 0 else "no witness"
    try:
        idx, lam = _witness_parts(wit, len(W))
    except ValueError as e:
        return str(e)
    if len(idx) > len(x):
        return f"{len(idx)} generators in R^{len(x)}"
    if len(set(idx)) != len(idx):
        return f"a generator repeated in {idx}"
    if not idx:
        return None if s == 0 else "an empty witness for a non-zero need"
    nw = np.linalg.norm(W[idx], axis=1)
    scale = max(s, float(np.sum(np.abs(lam) * nw)))
    if np.any(lam * nw < -1e-9 * scale):
        return f"a negative weight in {lam.tolist()}"
    res = float(np.linalg.norm(W[idx].T @ lam - x))
    return None if res <= 1e-7 * scale else f"residual {res:.3e} > 1e-7 x {scale:.3e}"


def general_certificate(W: np.ndarray, x: np.ndarray, cert) -> Optional[str]:
    """d finite numbers, y != 0, y.w_i >= -1e-7 |y||w_i| for every i, y.need < 0."""
    if not isinstance(cert, list) or len(cert) != len(x) or not all(_finite(t) for t in cert):
        return f"not {len(x)} finite numbers"
    y = np.array(cert, float)
    ny = float(np.linalg.norm(y))
    if ny == 0:
        return "the zero vector"
    if len(W):
        bad = W @ y < -1e-7 * ny * np.linalg.norm(W, axis=1)
        if np.any(bad):
            return f"does not support C at generator {int(np.argmax(bad))}"
    return None if float(y @ x) < 0 else f"y.need = {float(y @ x):.3e} is not < 0"


def grade_general(case: dict, expected: dict, answer: Optional[dict]) -> List[str]:
    """A general answer against its expected line (docs/contract-general.md): proofs valid,
    decisive verdicts right beyond 1e-6|need|, margin within 1e-6 max(|need|, |d|) of
    min(d, 1000) (amb cases: 1e-4, or an alternative of ``alt``), capped iff C = R^d, the
    unique binding facet's generators when held. Amb cases may differ in verdict and capped."""
    x = np.asarray(case["need"], float)
    d = len(x)
    W = np.asarray(case["generators"], float).reshape(-1, d) if case["generators"] else np.zeros((0, d))
    s = float(np.linalg.norm(x))
    dexp, full, amb = float(expected["d"]), bool(expected["full"]), bool(expected.get("amb"))
    if answer is None:
        return ["answered: no answer"]
    if "error" in answer:
        return [f"answered: refused: {answer['error']}"]
    v = answer.get("verdict")
    if v not in VERDICTS:
        return [f"answered: verdict {v!r}"]
    out = []
    m = answer.get("margin")
    if not _finite(m):
        out.append(f"answered: margin {m!r}")
        m = None
    if v == "supported":
        why = general_witness(W, x, answer.get("witness"))
        if why:
            out.append("witness: " + why)
    if v == "unsupported":
        why = general_certificate(W, x, answer.get("certificate"))
        if why:
            out.append("certificate: " + why)
    must_hold = full or s == 0 or dexp > 1e-6 * s
    must_not = not full and s > 0 and dexp < -1e-6 * s
    if not amb and ((v == "unsupported" and must_hold) or (v == "supported" and must_not)):
        out.append(f"verdict: {v}, expected d = {dexp:.6e}")
    want = 1000.0 if full else min(dexp, 1000.0)
    tol = (1e-4 if amb else 1e-6) * max(s, abs(dexp))
    if m is not None:
        ok = abs(m - want) <= tol
        for alt in (expected.get("alt") or []) if amb else []:
            aw = 1000.0 if alt["full"] else min(float(alt["d"]), 1000.0)
            ok = ok or abs(m - aw) <= 1e-4 * max(s, abs(float(alt["d"])))
        if not ok:
            how = "too large" if m > want else "too small"
            out.append(f"margin {how}: {m:.12e}, expected {want:.12e}")
    if answer.get("capped") is not full and not amb:
        out.append(f"capped: {answer.get('capped')!r}, C = R^{d}: {full}")
    b = expected.get("binding")
    if v == "supported" and b and b.get("unique") and not amb and not full:
        nz = {i for i in range(len(W)) if np.linalg.norm(W[i]) > 0}
        fac = answer.get("facet")
        if not isinstance(fac, dict) or not isinstance(fac.get("generators"), list):
            out.append(f"binding facet: none, expected {b['generators']}")
        else:
            got = sorted(i for i in fac["generators"] if i in nz)
            exp = sorted(i for i in b["generators"] if i in nz)
            if got != exp:
                out.append(f"binding facet: {got[:12]}, expected {exp[:12]}")
    return out


# ---------------------------------------------------------------- spatial scenes

def slip_direction(slip, n: np.ndarray) -> np.ndarray:
    """The unit direction of a slip's tangential part at the unit normal ``n``:
    ``v - (v.n) n``, normalised (docs/contract-scenes.md, sliding contacts)."""
    v = np.asarray(slip, float)
    vt = v - (v @ n) * n
    return vt / np.linalg.norm(vt)


class Scene3:
    """A spatial scene rebuilt from its line, independently of the library; a sliding
    contact (``"slip"``) gives its one ray ``n - mu u`` a point, whatever the pyramid."""

    def __init__(self, line: dict):
        self.ell = float(line["half_size"])
        self.k = int(line.get("pyramid", 4))
        self.friction = line.get("friction", "inner")
        self.contacts = []
        for c in line["contacts"]:
            n = np.asarray(c["normal"], float)
            n = n / np.linalg.norm(n)
            mu = c["mu"][0] if isinstance(c["mu"], list) else c["mu"]
            u = slip_direction(c["slip"], n) if c.get("slip") is not None else None
            self.contacts.append((np.asarray(c["points"], float), n, float(mu), u))

    def generators(self, outer: bool, k: int) -> np.ndarray:
        rows = []
        for points, n, mu, u in self.contacts:
            if u is not None:
                r = n - mu * u
                rows.extend(np.concatenate([r, np.cross(p, r) / self.ell]) for p in points)
                continue
            a = np.zeros(3)
            a[int(np.argmin(np.abs(n)))] = 1.0
            t1 = np.cross(a, n)
            t1 /= np.linalg.norm(t1)
            t2 = np.cross(n, t1)
            m = mu / math.cos(math.pi / k) if outer else mu
            for p in points:
                for j in range(k):
                    th = 2 * math.pi * j / k
                    r = n + m * (math.cos(th) * t1 + math.sin(th) * t2)
                    rows.append(np.concatenate([r, np.cross(p, r) / self.ell]))
        return np.array(rows).reshape(-1, 6)

    def supports_coulomb(self, y: np.ndarray) -> bool:
        ny = float(np.linalg.norm(y))
        for points, n, mu, u in self.contacts:
            for p in points:
                g = y[:3] + np.cross(y[3:], p) / self.ell
                gn = float(g @ n)
                gt = float(np.linalg.norm(g - gn * n)) if u is None else float(g @ u)
                scale = ny * math.sqrt(1 + mu * mu) * max(1.0, float(np.linalg.norm(p)) / self.ell)
                if gn - mu * gt < -1e-7 * scale:
                    return False
        return True


def spatial_witness(W: np.ndarray, x: np.ndarray, wit) -> Optional[str]:
    """At most 6 indices, weights >= -1e-9 |need|/|w_i| (then 0), residual <= 1e-7
    max(|need|, sum lambda|w|), the generators of positive weight independent."""
    try:
        idx, lam = _witness_parts(wit, len(W))
    except ValueError as e:
        return str(e)
    if len(idx) > 6:
        return f"{len(idx)} generators (at most 6)"
    s = float(np.linalg.norm(x))
    nw = np.linalg.norm(W[idx], axis=1) if idx else np.zeros(0)
    if np.any(lam < -1e-9 * s / np.maximum(nw, 1e-300)):
        return f"a negative weight in {lam.tolist()}"
    lam = np.maximum(lam, 0.0)
    res = float(np.linalg.norm((W[idx].T @ lam if idx else np.zeros(6)) - x))
    scale = max(s, float(np.sum(lam * nw)))
    if res > 1e-7 * scale:
        return f"residual {res:.3e} > 1e-7 x {scale:.3e}"
    used = W[[i for i, w in zip(idx, lam) if w > 0]]
    if len(used) and np.linalg.matrix_rank(used / np.linalg.norm(used, axis=1)[:, None], tol=1e-12) < len(used):
        return "generators not linearly independent"
    return None


def _spatial_proof(sc: Scene3, x: np.ndarray, need: dict) -> Optional[str]:
    v = need["verdict"]
    if v == "supported":
        first = spatial_witness(sc.generators(sc.friction == "outer", sc.k), x, need.get("witness"))
        k = sc.k * 2
        while first and sc.friction == "coulomb" and k <= 64:
            if spatial_witness(sc.generators(False, k), x, need.get("witness")) is None:
                return None
            k *= 2
        return first and "witness: " + first
    if v == "unsupported":
        cert = need.get("certificate")
        if not isinstance(cert, list) or len(cert) != 6 or not all(_finite(t) for t in cert):
            return "certificate: not 6 finite numbers"
        y = np.array(cert, float)
        ny = float(np.linalg.norm(y))
        if ny == 0 or not float(y @ x) < -1e-9 * ny * float(np.linalg.norm(x)):
            return "certificate: y.need is not < 0"
        if sc.friction == "coulomb" and sc.supports_coulomb(y):
            return None
        W = sc.generators(sc.friction != "inner", sc.k)
        if np.any(W @ y < -1e-7 * ny * np.linalg.norm(W, axis=1)):
            return "certificate: does not support the cone"
    return None


def _hull(points) -> np.ndarray:
    pts = sorted({(float(a), float(b)) for a, b in points})
    if len(pts) <= 2:
        return np.array(pts).reshape(-1, 2)

    def chain(seq):
        h = []
        for q in seq:
            while len(h) >= 2 and (h[-1][0] - h[-2][0]) * (q[1] - h[-2][1]) - (h[-1][1] - h[-2][1]) * (q[0] - h[-2][0]) <= 0:
                h.pop()
            h.append(q)
        return h[:-1]
    return np.array(chain(pts) + chain(reversed(pts)))


def _to_segment(q, a, b) -> float:
    ab = b - a
    L = float(ab @ ab)
    t = 0.0 if L == 0 else min(1.0, max(0.0, float((q - a) @ ab) / L))
    return float(np.linalg.norm(q - a - t * ab))


def _to_polygon(q, h) -> float:
    n = len(h)
    if n == 1:
        return float(np.linalg.norm(q - h[0]))
    if n == 2:
        return _to_segment(q, h[0], h[1])
    edges = [(h[i], h[(i + 1) % n]) for i in range(n)]
    if all((b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]) >= 0 for a, b in edges):
        return 0.0
    return min(_to_segment(q, a, b) for a, b in edges)


def hausdorff(p, q) -> float:
    """Between two filled convex polygons given by their vertices."""
    hp, hq = _hull(p), _hull(q)
    return max(max(_to_polygon(a, hq) for a in hp), max(_to_polygon(b, hp) for b in hq))


def grade_scene3(line: dict, expected: dict, report: dict) -> List[str]:
    """A spatial gate report against the expected one (docs/contract-spatial.md): held, the
    robust margin and each need's margin (1e-6 max(1, |m|); 1e-3 near the boundary; within
    the inner..outer bracket where the reference is uncertain by linearisation), each far
    need's verdict, every witness and certificate re-checked, the report consistent, the
    support region within 1e-6 half_size (Hausdorff)."""
    sc = Scene3(line)
    if report.get("error"):
        return [f"format: a valid scene refused: {report['error']}"]
    held, unc, m = report.get("held"), report.get("uncertain"), report.get("robust_margin")
    if not isinstance(held, bool) or not isinstance(unc, bool) or not isinstance(m, (int, float)):
        return ["format: held/uncertain/robust_margin"]
    want, near, mm = float(expected["robust_margin"]), bool(expected["near"]), float(expected["margin_min"])
    coulomb = sc.friction == "coulomb"
    is_open = bool(expected.get("coulomb_uncertain"))
    upper = float(expected.get("margin_upper", want))

    def tol(v):
        return (1e-3 if near else 1e-6) * max(1.0, abs(v))

    def margin_ok(got, lo, hi=None):
        if lo >= 999:
            return got >= 999
        if hi is not None:
            return got >= lo - tol(lo) and (hi >= 999 or got <= hi + tol(hi))
        return abs(got - lo) <= tol(lo)

    out = []
    refs = expected["needs"]
    got = report.get("needs") or []
    pairs = []
    for n in got:
        key = (n.get("mass"), *(n.get("com_offset") or [None, None]))
        hit = [i for i, r in enumerate(refs) if all(
            a is not None and abs(a - b) <= 1e-12 * max(1.0, abs(b))
            for a, b in zip(key, (r["mass"], *r["com_offset"])))]
        if hit:
            pairs.append((hit[0], n))
    if len(pairs) != len(got) or sorted({i for i, _ in pairs}) != list(range(len(refs))):
        return [f"format: needs do not match the reference's {len(refs)} corners"]
    d_key = "d_outer" if coulomb else "d"
    beyond = any(float(r[d_key]) < -1e-6 * max(1.0, float(np.linalg.norm(r["need"]))) for r in refs) or \
        (upper if coulomb else want) < mm - 1e-6 * max(1.0, abs(mm))
    if not near and not is_open:
        if held != bool(expected["held"]):
            out.append(f"held: {held}, reference {expected['held']}")
    elif held and beyond:
        out.append("held: held, but the reference is not held beyond 1e-6")
    if not margin_ok(m, want, upper if is_open else None):
        out.append(f"robust margin: {m!r}, reference {want!r}")
    margins = []
    for ri, n in pairs:
        r = refs[ri]
        x = np.asarray(r["need"], float)
        s = max(1.0, float(np.linalg.norm(x)))
        v, nm = n.get("verdict"), n.get("margin")
        if v not in VERDICTS or not isinstance(nm, (int, float)):
            out.append(f"format: need {ri}")
            continue
        margins.append(nm)
        rv, rd = r["verdict"], float(r["d"])
        lin = coulomb and rv == "uncertain" and rd < -1e-6 * s and float(r["d_outer"]) > 1e-6 * s
        far = rv != "uncertain" and abs(rd if rv == "supported" else float(r[d_key])) > 1e-6 * s
        if far and not lin and v != rv:
            out.append(f"need verdict: need {ri}: {v}, reference {rv}")
        if not margin_ok(nm, rd, float(r["d_outer"]) if (is_open and coulomb) else None):
            out.append(f"need margin: need {ri}: {nm!r}, reference {rd!r}")
        why = _spatial_proof(sc, x, n)
        if why:
            out.append(f"need {ri}: {why}")
    if held and (unc or any(n["verdict"] != "supported" for _, n in pairs) or m < mm):
        out.append("consistent: held, yet uncertain, a need not supported or the margin short")
    if margins and not (min(margins) >= 999 and m >= 999) and abs(min(margins) - m) > 1e-9 * max(1.0, abs(m)):
        out.append(f"consistent: robust margin {m!r} is not the least need margin {min(margins)!r}")
    region = report.get("support_region")
    if region is not None:
        ref = expected.get("support_region") or []
        t = 1e-6 * sc.ell
        if not region or not ref:
            other = np.asarray(region or ref, float).reshape(-1, 2)
            if len(other) and max(float(np.linalg.norm(a - b)) for a in other for b in other) > t:
                out.append(f"support region: {len(region)} vertices, reference {len(ref)}")
        else:
            h = hausdorff(np.asarray(region, float), np.asarray(ref, float))
            if h > t:
                out.append(f"support region: Hausdorff distance {h:.3e} > 1e-6 half_size")
    return out


# ---------------------------------------------------------------- planar sliding scenes

def planar_generators(line: dict) -> np.ndarray:
    """A planar scene's generators rebuilt from its line (docs/contract-planar.md §2 with
    docs/contract-scenes.md's sliding contacts): contacts in order, endpoints p0, p1; at each
    the rays n + mu t, n - mu t, or a sliding contact's one ray n - mu sign(v.t) t."""
    ell = float(line["half_size"])
    rows = []
    for c in line["contacts"]:
        n = np.asarray(c["normal"], float)
        n = n / np.linalg.norm(n)
        t = np.array([n[1], -n[0]])
        mu = float(c["mu"][0] if isinstance(c["mu"], list) else c["mu"])
        if c.get("slip") is not None:
            rays = [n - mu * slip_direction(c["slip"], n)]
        else:
            rays = [n + mu * t, n - mu * t]
        for end in ("p0", "p1"):
            p = np.asarray(c[end], float)
            rows.extend([r[0], r[1], (p[1] * r[0] - p[0] * r[1]) / ell] for r in rays)
    return np.array(rows, float).reshape(-1, 3)


def planar_needs(line: dict) -> list:
    """The needs at the corners of the mass x centre-of-mass box, in need order."""
    ell = float(line["half_size"])
    m0 = float((line.get("mass") or {}).get("nominal", 1.0))
    mr = (line.get("mass") or {}).get("range", [m0, m0])
    xr = line.get("com_offset_x", [0.0, 0.0])
    ends = lambda iv: [iv[0]] if iv[0] == iv[1] else list(iv)  # noqa: E731
    return [np.array([0.0, m / m0, -(m / m0) * x / ell]) for m in ends(mr) for x in ends(xr)]


def grade_planar_sliding(line: dict, expected: dict, report: dict) -> List[str]:
    """A planar gate report on a sliding line against the expected one (the planar engine's
    float32 rules): held beyond 1e-3 (not on near lines), the robust margin to 1e-4 relative
    (1e-3 near), every witness (at most 3 independent generators, residual <= 1e-4 scale) and
    certificate (y.w_i >= -1e-4 |y||w_i|, y.need < 0) re-checked against the generators rebuilt
    with the slips, and each far need's verdict."""
    if report.get("error"):
        return [f"format: a valid scene refused: {report['error']}"]
    out = []
    want, near = float(expected["robust_margin"]), bool(expected["near"])
    m = report["robust_margin"]
    if abs(m - want) > (1e-3 if near else 1e-4 * max(1.0, abs(want))):
        out.append(f"robust margin: {m!r}, expected {want!r}")
    if not near and (report["held"] != expected["held"] or report["uncertain"]):
        out.append(f"held: {report['held']} (uncertain {report['uncertain']}), expected {expected['held']}")
    W = planar_generators(line)
    for i, (x, n) in enumerate(zip(planar_needs(line), report["needs"])):
        d = float(expected["d_needs"][i])
        v = n["verdict"]
        if not near and abs(d) > 1e-3 * max(1.0, float(np.linalg.norm(x))):
            if v != ("supported" if d > 0 else "unsupported"):
                out.append(f"need {i}: {v}, expected d = {d}")
        if v == "supported":
            try:
                idx, lam = _witness_parts(n.get("witness"), len(W))
            except ValueError as e:
                out.append(f"need {i}: witness: {e}")
                continue
            s = float(np.linalg.norm(x))
            nw = np.linalg.norm(W[idx], axis=1) if idx else np.zeros(0)
            lam = np.where(lam < 0, np.where(lam >= -1e-5 * s / np.maximum(nw, 1e-300), 0.0, lam), lam)
            res = float(np.linalg.norm((W[idx].T @ lam if idx else np.zeros(3)) - x))
            if len(idx) > 3 or np.any(lam < 0) or res > 1e-4 * max(s, float(np.sum(lam * nw))):
                out.append(f"need {i}: witness {idx} {lam.tolist()} (residual {res:.3e})")
        elif v == "unsupported":
            y = np.asarray(n.get("certificate") or [0, 0, 0], float)
            ny = float(np.linalg.norm(y))
            if ny == 0 or not y @ x < 0 or np.any(W @ y < -1e-4 * ny * np.linalg.norm(W, axis=1)):
                out.append(f"need {i}: certificate {y.tolist()} does not prove it")
    return out
