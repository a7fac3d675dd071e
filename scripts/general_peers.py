#!/usr/bin/env python3
"""planar-hold's general cone test against what users run today, per case from Python, on
the same cases in one run:

(a) verdict, witness, certificate and distance: SciPy ``linprog`` (HiGHS) for membership
    (its basic solution is a witness of at most d generators) plus ``scipy.optimize.nnls``
    for the distance (and the nearest certificate, its residual over its length), per case,
    against planar-hold's CPU engine through ``Engine("cpu").cone_test(...,
    inside_margin=False)`` (one batched call: the same answers, the NNLS alone);
(b) the same plus the inside margin (the least n_f.need over the cone's facets), the facets
    from ``scipy.spatial.ConvexHull`` (qhull, on the cross-section of the pointed cone at
    x.up = 1, a (d-1)-dimensional polytope whose facets are the cone's) and from pycddlib
    (cddlib's double description in floating point, the cone's rays to its inequalities),
    per case, against planar-hold's whole test (the facets, the binding facet and the
    margin included) through ``Engine("cpu").cone_test`` and through ``planar-hold eval``
    end to end (JSON Lines file in, answers file out, process start included).

Workloads: random pointed cones (generators with a positive "up" component: y in R^3, z in
R^6), half the needs inside (positive combinations of generators), half outside (the same
with the up component made negative); d = 3 with K = 32, 64, 256 and d = 6 with K = 16, 32,
64, 128, 256; and two structured R^6 cases built by docs/contract-spatial.md §1's wrench: a cube
on its four bottom corners and a humanoid's two feet (2 faces x 4 vertices), 4-edge friction
pyramids (K = 16, 32), the centre of mass jittered.

The peers are slow, so each is timed on a subsample of each workload (as many cases as fit
in --peer-seconds, at least 3) and its time per case extrapolated; planar-hold is timed on
the whole workload (as many cases as one call runs in about --seconds, up to --cases). Every peer answer is compared with planar-hold's (verdict,
and margin within 1e-6 relative): the "agree" columns. Prints the machine, then one table.

    pip install "./python[bench]"     # the package, SciPy and pycddlib-standalone
    python scripts/general_peers.py [--cases N] [--seconds S] [--peer-seconds S] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy
import scipy.optimize
import scipy.spatial

import planar_hold

REPO = Path(__file__).resolve().parents[1]

try:
    import cdd  # pycddlib (or pycddlib-standalone)
except ImportError:  # pragma: no cover - reported in the table
    cdd = None


# ----------------------------------------------------------------------------- workloads


def up_axis(d: int) -> int:
    return 2 if d == 6 else 1


def random_workload(rng, n: int, k: int, d: int):
    """Pointed cones around the up axis; needs inside (even rows) and outside (odd rows)."""
    gens = rng.normal(size=(n, k, d))
    up = up_axis(d)
    gens[:, :, up] = np.abs(gens[:, :, up]) + 0.3
    need = np.empty((n, d))
    for i in range(n):
        pick = rng.choice(k, size=min(k, d + 2), replace=False)
        need[i] = rng.uniform(0.1, 1.0, size=len(pick)) @ gens[i, pick]
    need /= np.linalg.norm(need, axis=1, keepdims=True)
    need[1::2, up] = -0.3  # below every generator's half-space: outside
    return gens, need


def wrench(points, normal, mu, centre, half):
    """docs/contract-spatial.md §1–§2: the 4-edge inner friction pyramid at each point, as wrenches."""
    n = np.asarray(normal, float)
    n /= np.linalg.norm(n)
    a = np.eye(3)[int(np.argmin(np.abs(n)))]
    t1 = np.cross(a, n)
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(n, t1)
    rows = []
    for p in points:
        for j in range(4):
            th = 2 * np.pi * j / 4
            f = n + mu * (np.cos(th) * t1 + np.sin(th) * t2)
            tau = np.cross(np.asarray(p, float) - centre, f)
            rows.append(np.concatenate([f, tau / half]))
    return rows


def structured_workload(rng, n: int, kind: str):
    """A cube on its 4 bottom corners (K = 16) or two feet of 4 vertices each (K = 32)."""
    gens, need = [], []
    for i in range(n):
        mu = rng.uniform(0.3, 0.8)
        if kind == "cube":
            h = 0.5
            pts = [[-h, -h, -h], [h, -h, -h], [h, h, -h], [-h, h, -h]]
            g = wrench(pts, [0, 0, 1], mu, np.zeros(3), h)
            reach = 0.6 * h
        else:  # feet: two 0.2 x 0.1 soles 0.2 apart, the body's half-size 0.5
            h = 0.5
            g = []
            for y0 in (-0.1, 0.1):
                pts = [[x, y0 + dy, -1.0] for x in (-0.1, 0.1) for dy in (-0.05, 0.05)]
                g += wrench(pts, [0, 0, 1], mu, np.zeros(3), h)
            reach = 0.15
        dx, dy = rng.uniform(-reach, reach, size=2)  # inside or outside the support
        a = rng.uniform(0.8, 1.2)
        gens.append(g)
        need.append([0, 0, a, a * dy / h, -a * dx / h, 0])
    return np.array(gens), np.array(need, float)


# ----------------------------------------------------------------------------- peers


def peer_a(W, x):
    """linprog (HiGHS) membership and witness, nnls distance and nearest certificate."""
    k, d = W.shape
    lp = scipy.optimize.linprog(
        np.zeros(k), A_eq=W.T, b_eq=x, bounds=(0, None), method="highs"
    )
    lam, dist = scipy.optimize.nnls(W.T, x)
    held = lp.status == 0
    if held:
        witness = np.flatnonzero(lp.x > 1e-12)
        margin = 0.0
    else:
        y = (W.T @ lam - x) / dist if dist > 0 else None
        witness, margin = y, -dist
    return held, margin, witness


def section_facets(W, d):
    """The cone's facet normals by qhull: the cross-section at x.up = 1 of the pointed cone
    is the convex hull of the generators scaled onto it; its facets are the cone's."""
    up = up_axis(d)
    pts = W / W[:, up : up + 1]
    basis = np.delete(np.eye(d), up, axis=0)  # coordinates of the section (orthonormal)
    z = pts @ basis.T
    hull = scipy.spatial.ConvexHull(z)
    a = np.eye(d)[up]
    normals = -hull.equations[:, -1:] * a[None, :] - hull.equations[:, :-1] @ basis
    return normals / np.linalg.norm(normals, axis=1, keepdims=True)


def cdd_facets(W, d):
    """The cone's facet normals by cddlib (float): rays in, inequalities b + A x >= 0 out."""
    rows = [[0.0] + list(map(float, w)) for w in W]
    mat = cdd.matrix_from_array(rows, rep_type=cdd.RepType.GENERATOR)
    poly = cdd.polyhedron_from_matrix(mat)
    ineq = cdd.copy_inequalities(poly)
    A = np.array(ineq.array, float)[:, 1:]
    lin = set(ineq.lin_set)
    keep = [i for i in range(len(A)) if i not in lin]
    A = A[keep]
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def peer_b(W, x, facets):
    """(a) plus the inside margin over the facets from `facets`."""
    held, margin, witness = peer_a(W, x)
    if held:
        normals = facets(W, len(x))
        margin = float(np.min(normals @ x))
    return held, margin, witness


# ----------------------------------------------------------------------------- timing


def time_peer(fn, gens, need, ours, seconds, inside_margin=True):
    """Per-case time of `fn` on a prefix of the workload (as many cases as fit in
    `seconds`, at least 3), and how many of those agree with planar-hold's answers: the
    verdict, and the margin (outside always; inside with `inside_margin`)."""
    agree = done = 0
    start = time.perf_counter()
    for i in range(len(gens)):
        held, margin, _ = fn(gens[i], need[i])
        v = ours.verdict[i]
        same = (held and v == planar_hold.SUPPORTED) or (not held and v == planar_hold.UNSUPPORTED)
        m = min(ours.margin[i], planar_hold.MARGIN_CAP)
        if inside_margin or not held:
            same = same and abs(min(margin, planar_hold.MARGIN_CAP) - m) <= 1e-6 * max(1, abs(m))
        agree += bool(same)
        done += 1
        if done >= 3 and time.perf_counter() - start > seconds:
            break
    return (time.perf_counter() - start) / done, done, agree


def time_ours(engine, gens, need, min_seconds=0.5, inside_margin=True):
    """Per-case time of one batched cone_test over the whole workload (best of repeats
    filling min_seconds; the first call, which also gives the answers, counts), and its
    answers; without the inside margin (the NNLS alone) when not `inside_margin`."""
    t = time.perf_counter()
    out = engine.cone_test(gens, need=need, general=True, inside_margin=inside_margin)
    best = spent = time.perf_counter() - t
    while spent < min_seconds:
        t = time.perf_counter()
        engine.cone_test(gens, need=need, general=True, inside_margin=inside_margin)
        dt = time.perf_counter() - t
        best, spent = min(best, dt), spent + dt
    return best / len(gens), out


def time_eval(cli, gens, need, folder):
    """`planar-hold eval` end to end, per case: the workload as JSON Lines, answers to a file."""
    path = Path(folder) / "cases.jsonl"
    with open(path, "w") as f:
        for i in range(len(gens)):
            f.write(json.dumps({"id": i, "generators": gens[i].tolist(), "need": need[i].tolist()}))
            f.write("\n")
    best = float("inf")
    for _ in range(1 if len(gens) * 1e-3 > 1 else 2):
        t = time.perf_counter()
        subprocess.run(
            [str(cli), "eval", str(path), "--backend", "cpu", "-o", str(Path(folder) / "out.jsonl")],
            check=True,
        )
        best = min(best, time.perf_counter() - t)
    return best / len(gens)


def machine() -> str:
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.*)", text)
    avx512 = sorted(set(re.findall(r"\bavx512[a-z0-9_]*", text)))
    return (
        f"{model[1] if model else platform.processor()}, {os.cpu_count()} cores; "
        f"{' '.join(avx512) or ('AVX2, no AVX-512' if ' avx2' in text else 'no AVX2')}; Python {platform.python_version()}, "
        f"SciPy {scipy.__version__}, numpy {np.__version__}"
        + (f", pycddlib {getattr(cdd, '__version__', 'standalone')}" if cdd else ", no pycddlib")
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=16384,
                    help="most cases per workload for planar-hold (fewer where slow)")
    ap.add_argument("--seconds", type=float, default=1.5,
                    help="planar-hold's cases per workload: about this long one call")
    ap.add_argument("--peer-seconds", type=float, default=1.0, help="time per peer per workload")
    ap.add_argument("--json", action="store_true", help="also print the rows as JSON lines")
    ap.add_argument("--cli", default=str(REPO / "target" / "release" / "planar-hold"))
    args = ap.parse_args()
    cli = Path(args.cli)
    engine = planar_hold.Engine("cpu")
    rng = np.random.default_rng(15)
    makers = [(f"random d=3 K={k}", lambda n, k=k: random_workload(rng, n, k, 3)) for k in (32, 64, 256)]
    makers += [(f"random d=6 K={k}", lambda n, k=k: random_workload(rng, n, k, 6))
               for k in (16, 32, 64, 128, 256)]
    makers += [(f"{kind} d=6 K={16 if kind == 'cube' else 32}",
                lambda n, kind=kind: structured_workload(rng, n, kind)) for kind in ("cube", "feet")]

    def workloads():
        """Each workload with as many cases as one planar-hold call does in about
        --seconds (from a 64-case probe), 128 to --cases."""
        for name, make in makers:
            gens, need = make(64)
            t = time.perf_counter()
            engine.cone_test(gens, need=need, general=True)
            per = (time.perf_counter() - t) / 64
            n = int(min(args.cases, max(128, args.seconds / per)))
            yield (name, *make(n))

    print(f"machine: {machine()}")
    print(f"planar-hold: {engine.describe()}; eval: {cli if cli.is_file() else 'not built'}")
    rows = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        for name, gens, need in workloads():
            # A need that is exactly on a rounding-level boundary is rare here; the
            # peers' answers are compared with planar-hold's below.
            api, ours = time_ours(engine, gens, need)
            bare, ours_bare = time_ours(engine, gens, need, inside_margin=False)
            e2e = time_eval(cli, gens, need, folder) if cli.is_file() else float("nan")
            a, na, agree_a = time_peer(peer_a, gens, need, ours_bare, args.peer_seconds, False)
            # Where planar-hold's time goes: inside (the facets) and outside (NNLS alone).
            held_rows = ours.verdict == planar_hold.SUPPORTED
            split = [time_ours(engine, gens[rows], need[rows], 0.1)[0] if rows.any() else float("nan")
                     for rows in (held_rows, ~held_rows)]
            b, nb, agree_b = time_peer(lambda W, x: peer_b(W, x, section_facets), gens, need, ours,
                                       args.peer_seconds)
            if cdd is not None:
                c, nc, agree_c = time_peer(lambda W, x: peer_b(W, x, cdd_facets), gens, need, ours,
                                           args.peer_seconds)
            else:
                c, nc, agree_c = float("nan"), 0, 0
            held = float(np.mean(ours.verdict == planar_hold.SUPPORTED))
            rows.append(dict(workload=name, cases=len(gens), held=held, api_us=api * 1e6,
                             nnls_us=bare * 1e6,
                             inside_us=split[0] * 1e6, outside_us=split[1] * 1e6,
                             eval_us=e2e * 1e6, lp_nnls_us=a * 1e6, lp_n=na, lp_agree=agree_a,
                             hull_us=b * 1e6, hull_n=nb, hull_agree=agree_b,
                             cdd_us=c * 1e6, cdd_n=nc, cdd_agree=agree_c))
            print(f"  {name}: done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)

    print("\nTimes in µs per case. planar-hold: one batched call on all cores over the "
          "workload's cases: (a) `cone_test(..., inside_margin=False)` (verdict, witness, "
          "certificate, distance: the NNLS alone), (b) the whole test (held / not held: its "
          "held and not held cases alone), and `eval` end to end (the whole test, JSON Lines "
          "file to file, process start included). Peers: one case at a time "
          f"in Python on one core, on the first cases that fit in {args.peer_seconds} s, "
          "extrapolated. ratio (a) = linprog+nnls / (a); ratio (b) = peer / whole test (API "
          "| eval). agree = peer answers equal to planar-hold's (verdict; margin to 1e-6 "
          "relative: outside only for (a), which has no inside margin) / peer cases timed.\n")
    head = ("| workload | cases | held | (a) API | linprog+nnls | ratio (a) | agree | "
            "(b) API (held / not held) | eval | + ConvexHull | ratio (b) | agree | "
            "+ pycddlib | ratio (b) | agree |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))

    def fmt(x):
        return "–" if x != x else f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"

    for r in rows:
        def ratio(x):
            def one(v):
                return f"{v:,.0f}×" if v >= 10 else f"{v:.1f}×"
            return f"{one(x / r['api_us'])} \\| {one(x / r['eval_us'])}"
        a = r["lp_nnls_us"] / r["nnls_us"]
        print(f"| {r['workload']} | {r['cases']} | {r['held']:.0%} | {fmt(r['nnls_us'])} | "
              f"{fmt(r['lp_nnls_us'])} | {a:,.0f}× | {r['lp_agree']}/{r['lp_n']} | "
              f"{fmt(r['api_us'])} ({fmt(r['inside_us'])} / {fmt(r['outside_us'])}) | "
              f"{fmt(r['eval_us'])} | "
              f"{fmt(r['hull_us'])} | {ratio(r['hull_us'])} | {r['hull_agree']}/{r['hull_n']} | "
              f"{fmt(r['cdd_us'])} | {ratio(r['cdd_us'])} | {r['cdd_agree']}/{r['cdd_n']} |")
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    if args.json:
        for r in rows:
            print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
