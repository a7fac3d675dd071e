#!/usr/bin/env python3
"""planar-hold's general cone test against what users run today, on the same cases in one
run, every answer refereed by the exact one.

Ours: `Engine("cpu").cone_test` on ONE core (this process pins rayon to one thread; one
batched call over the workload) (a) without the inside margin (`inside_margin=False`: verdict,
witness, certificate, distance: the NNLS alone) and (b) the whole test with the inside margin;
and `planar-hold eval` end to end on BOTH cores (a JSON Lines file in, answers out, process
start included). The peers, one case at a time from Python on one core:

  (a) LP+NNLS     SciPy `linprog` (HiGHS) for membership (its basic solution a witness) and
                  `scipy.optimize.nnls` for the distance;
  (b) +ConvexHull the same plus the inside margin (the least n_f.need over the facets) from
                  `scipy.spatial.ConvexHull` (qhull): on the cross-section x.up = 1 where every
                  generator points up (a (d-1)-polytope whose facets are the cone's), else on
                  {0} and the unit generators (the facets through 0 are the cone's);
  (b) +pycddlib   the same with the facets from cddlib's float double description.

Workloads: random pointed cones (d = 3: K = 32, 64, 256; d = 6: K = 16 ... 256; half the
needs inside, half outside), contact cones in R^6 (friction pyramids of 4 edges at random
points of a box's floor and of one wall, so that no cone is all of R^6; needs about the
weight; K = 16 ... 256), and two structured ones: a cube on its 4 bottom corners (K = 16) and
two feet of 4 vertices (K = 32).

The referee: each case's facets found exactly (cddlib in rational arithmetic, `cdd.gmp`),
within --exact-seconds per workload (the first case up to 150 s, so that
K = 256 gets one; not in --quick), the cases where ours and a peer disagree first, then
the cases in order. Verdicts must be right beyond 1e-6 |need|, inside margins within 1e-6
max(|need|, |margin|) (docs/contract-general.md §6). The table gives wrong/refereed for ours
and each peer, and how often a peer raised; where the budget ran out, a disagreement with
ours is listed as unrefereed. Outside the cone the referee gives the verdict only (the
distance is a QP): there (a)'s NNLS distance is compared with ours instead.

The peers are slow, so each is timed on the first cases of a workload (as many as fit in
--peer-seconds, at least 3), ours on all of it (as many cases as one call does in about
--seconds, up to --cases).

    scripts/general_peers.py [--quick] [--cases N] [--seconds S] [--peer-seconds S]
                             [--exact-seconds S] [--json]

Needs numpy, scipy, pycddlib (pycddlib built on the system's GMP for the referee) and the
planar_hold package: see scripts/peerlib.py's INSTALL, or run it through scripts/peers.
"""

from __future__ import annotations

import peerlib  # first: one BLAS thread, one rayon thread for the API

import argparse
import json
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

scipy = peerlib.need("scipy", "the LP, NNLS and qhull peers")
import scipy.optimize  # noqa: E402
import scipy.spatial  # noqa: E402

cdd = peerlib.need("cdd", "the pycddlib peer")
planar_hold = peerlib.need("planar_hold", "planar-hold's Python API")

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


def contact_workload(rng, n: int, k: int):
    """Contact cones that are not all of R^6: 4-edge pyramids at random points of a box's
    floor (4 in 5, normal +z) and of one wall (normal +x), mu 0.1-0.9, until K generators;
    the need the weight, pushed. (`scene::sample::contact_cases` puts walls on both sides:
    from K = 64 up its cones are nearly all of R^6, capped, which times a shortcut instead
    of the inside margin.)"""
    gens = np.empty((n, k, 6))
    need = np.empty((n, 6))
    for i in range(n):
        rows = []
        while len(rows) < k:
            p = rng.uniform([-1, -1, -1], [1, 1, 0.2])
            nrm = [1.0, 0, 0] if rng.integers(5) == 0 else [0, 0, 1.0]
            for f in peerlib.pyramid_edges(nrm, rng.uniform(0.1, 0.9), 4):
                rows.append(np.concatenate([f, np.cross(p, f)]))
        gens[i] = np.array(rows[:k])
        dx, dy = rng.uniform(-0.6, 0.6, 2)
        push = rng.uniform(-0.3, 0.3, 3)
        need[i] = [push[0], push[1], 1 + push[2], dy, -dx, 0.0]
    return gens, need


def structured_workload(rng, n: int, kind: str):
    """A cube on its 4 bottom corners (K = 16) or two feet of 4 vertices each (K = 32)."""
    gens, need = [], []
    h = 0.5
    for _ in range(n):
        mu = rng.uniform(0.3, 0.8)
        if kind == "cube":
            pts = [[-h, -h, -h], [h, -h, -h], [h, h, -h], [-h, h, -h]]
            reach = 0.6 * h
        else:  # two 0.2 x 0.1 soles 0.2 apart
            pts = [[x, y0 + dy, -1.0] for y0 in (-0.1, 0.1) for x in (-0.1, 0.1) for dy in (-0.05, 0.05)]
            reach = 0.15
        r = peerlib.pyramid_edges([0, 0, 1], mu, 4)
        gens.append(np.vstack([np.hstack([r, np.cross(p, r) / h]) for p in pts]))
        dx, dy = rng.uniform(-reach, reach, size=2)  # inside or outside the support
        a = rng.uniform(0.8, 1.2)
        need.append([0, 0, a, a * dy / h, -a * dx / h, 0])
    return np.array(gens), np.array(need, float)


def workloads(quick: bool):
    """(name, maker(rng, n)) for every workload of the mode."""
    out = []
    if not quick:
        out += [(f"random d=3 K={k}", lambda r, n, k=k: random_workload(r, n, k, 3)) for k in (32, 64, 256)]
    ks = (16, 32) if quick else (16, 32, 64, 128, 256)
    out += [(f"random d=6 K={k}", lambda r, n, k=k: random_workload(r, n, k, 6)) for k in ks]
    out += [(f"contact d=6 K={k}", lambda r, n, k=k: contact_workload(r, n, k)) for k in ks]
    if not quick:
        out += [("cube d=6 K=16", lambda r, n: structured_workload(r, n, "cube")),
                ("feet d=6 K=32", lambda r, n: structured_workload(r, n, "feet"))]
    return out


# ----------------------------------------------------------------------------- peers


def peer_a(W, x):
    """linprog (HiGHS) membership and witness, nnls distance: (held, margin or None, distance)."""
    k = W.shape[0]
    lp = scipy.optimize.linprog(np.zeros(k), A_eq=W.T, b_eq=x, bounds=(0, None), method="highs")
    _, dist = scipy.optimize.nnls(W.T, x)
    held = lp.status == 0
    return held, (None if held else -dist), dist


def hull_facets(W):
    """The cone's unit inward facet normals by qhull (see the module's doc)."""
    d = W.shape[1]
    up = up_axis(d)
    if np.all(W[:, up] > 0):
        z = np.delete(W / W[:, up : up + 1], up, axis=1)  # the section x.up = 1
        hull = scipy.spatial.ConvexHull(z)
        a = np.eye(d)[up]
        normals = -hull.equations[:, -1:] * a[None, :] - np.insert(hull.equations[:, :-1], up, 0, axis=1)
    else:
        pts = np.vstack([np.zeros(d), W / np.linalg.norm(W, axis=1, keepdims=True)])
        hull = scipy.spatial.ConvexHull(pts)
        through0 = np.abs(hull.equations[:, -1]) <= 1e-12
        if not np.any(through0):  # 0 inside: the cone is all of R^d
            return np.zeros((0, d))
        normals = -hull.equations[through0, :-1]
    return normals / np.linalg.norm(normals, axis=1, keepdims=True)


def cdd_facets(W):
    """The cone's unit inward facet normals by cddlib (float): rays in, b + A x >= 0 out."""
    mat = cdd.matrix_from_array([[0.0] + list(map(float, w)) for w in W], rep_type=cdd.RepType.GENERATOR)
    ineq = cdd.copy_inequalities(cdd.polyhedron_from_matrix(mat))
    A = np.array(ineq.array, float).reshape(-1, W.shape[1] + 1)[:, 1:]
    A = A[[i for i in range(len(A)) if i not in set(ineq.lin_set)]]
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def peer_b(W, x, facets):
    """(a) plus the inside margin over `facets`: (held, margin)."""
    held, margin, _ = peer_a(W, x)
    if held:
        normals = facets(W)
        margin = float(np.min(normals @ x)) if len(normals) else planar_hold.MARGIN_CAP
    return held, margin


def time_peer(fn, gens, need, seconds):
    """Per-case time of `fn` on the first cases (as many as fit in `seconds`, at least 3) and
    its answers there (None where it raised)."""
    answers = []
    start = time.perf_counter()
    for i in range(len(gens)):
        try:
            answers.append(fn(gens[i], need[i]))
        except Exception:  # qhull's QhullError, cdd's RuntimeError on degenerate input
            answers.append(None)
        if len(answers) >= 3 and time.perf_counter() - start > seconds:
            break
    return (time.perf_counter() - start) / len(answers), answers


# ----------------------------------------------------------------------------- ours


def time_ours(engine, gens, need, min_seconds=0.5, inside_margin=True):
    """Per-case time of one batched cone_test over the workload (best of repeats filling
    min_seconds; the first call gives the answers)."""
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
    """`planar-hold eval` end to end on both cores, per case; and its answers."""
    path = Path(folder) / "cases.jsonl"
    with open(path, "w") as f:
        for i in range(len(gens)):
            f.write(json.dumps({"id": i, "generators": gens[i].tolist(), "need": need[i].tolist()}) + "\n")
    out = Path(folder) / "out.jsonl"
    dt, _ = peerlib.run_cli(cli, ["eval", path, "--backend", "cpu", "-o", out])
    return dt / len(gens), [json.loads(l) for l in out.read_text().splitlines() if l.strip()]


def time_eval_parquet(cli, gens, need, folder):
    """`planar-hold eval` end to end on both cores from Parquet to Parquet (the numbers read as
    they are stored, no text to parse), per case; and its (verdict, margin) rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = Path(folder) / "cases.parquet"
    k, d = gens.shape[1], gens.shape[2]
    rows = pa.array(gens.reshape(-1, d).ravel(), pa.float64())
    generators = pa.ListArray.from_arrays(np.arange(0, len(gens) * k + 1, k, dtype=np.int32),
                                          pa.FixedSizeListArray.from_arrays(rows, d))
    table = pa.table({"id": np.arange(len(gens)), "generators": generators,
                      "need": pa.FixedSizeListArray.from_arrays(pa.array(need.ravel(), pa.float64()), d)})
    pq.write_table(table, path)
    out = Path(folder) / "out.parquet"
    dt, _ = peerlib.run_cli(cli, ["eval", path, "--backend", "cpu", "-o", out])
    answers = pq.read_table(out, columns=["verdict", "margin"]).to_pylist()
    return dt / len(gens), answers


# ----------------------------------------------------------------------------- refereeing


def verdict_ok(held, margin, member, exact_margin, scale):
    """A (held, margin) answer against the exact (member, margin): the verdict right beyond
    1e-6 |need|, the inside margin within 1e-6 max(|need|, |margin|); margin None: not checked."""
    tol = 1e-6 * scale
    if member and exact_margin > tol and not held:
        return False
    if not member and held and (margin is None or margin > tol):
        return False
    if member and held and margin is not None:
        want = min(exact_margin, planar_hold.MARGIN_CAP)
        return abs(min(margin, planar_hold.MARGIN_CAP) - want) <= 1e-6 * max(scale, abs(want))
    return True


def ours_answer(ours, i):
    v = int(ours.verdict[i])
    return v == planar_hold.SUPPORTED, float(ours.margin[i])


def close(a, b, scale):
    return abs(min(a, planar_hold.MARGIN_CAP) - min(b, planar_hold.MARGIN_CAP)) <= 1e-6 * max(scale, abs(b))


def referee(gens, need, ours, peers, budget, first):
    """Exact answers for the disputed cases first, then the rest in order, within `budget`
    seconds: {case: (member, margin)}; and the disputed cases."""
    n_peer = max(len(a) for a in peers.values())
    disputed = []
    for i in range(n_peer):
        held, m = ours_answer(ours, i)
        s = float(np.linalg.norm(need[i]))
        for name, answers in peers.items():
            if i >= len(answers) or answers[i] is None:
                continue
            ph, pm = answers[i][0], answers[i][1]
            if ph != held and abs(m) > 1e-6 * s or (pm is not None and ph and held and not close(pm, m, s)):
                disputed.append(i)
                break
    ref = peerlib.Referee(budget, first)
    exact = {}
    if ref.available:
        for i in disputed + [i for i in range(len(gens)) if i not in set(disputed)]:
            got = ref.cone(gens[i], [need[i]])[0]
            if got[0] is None:
                break
            exact[i] = got
    ref.close()
    return exact, disputed, ref


def tally(answers, exact, need, with_margin=True):
    """(wrong, refereed, raised) of one peer's answers."""
    wrong = refereed = 0
    for i, a in enumerate(answers):
        if a is None or i not in exact:
            continue
        refereed += 1
        member, m = exact[i]
        wrong += not verdict_ok(a[0], a[1] if with_margin else None, member, m, float(np.linalg.norm(need[i])))
    return wrong, refereed, sum(a is None for a in answers)


# ----------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="R^6, K = 16 and 32 only, short times")
    ap.add_argument("--cases", type=int, default=16384, help="most cases per workload for ours")
    ap.add_argument("--seconds", type=float, default=None,
                    help="ours: about this long one call (default 1.5; --quick 0.2)")
    ap.add_argument("--peer-seconds", type=float, default=None,
                    help="time per peer per workload (default 2; --quick 0.3)")
    ap.add_argument("--exact-seconds", type=float, default=None,
                    help="the exact referee's time per workload (default 10; --quick 1)")
    ap.add_argument("--json", action="store_true", help="also print the rows as JSON lines")
    ap.add_argument("--cli", default=str(peerlib.CLI))
    args = ap.parse_args()
    q = args.quick
    seconds = args.seconds or (0.2 if q else 1.5)
    peer_s = args.peer_seconds or (0.3 if q else 2.0)
    exact_s = args.exact_seconds if args.exact_seconds is not None else (1.0 if q else 10.0)
    cli = Path(args.cli)
    if not cli.is_file():
        sys.exit(f"error: {cli} is not built (cargo build --release)")
    engine = planar_hold.Engine("cpu")

    print(f"machine: {peerlib.machine()}; SciPy {scipy.__version__}, "
          f"{peerlib.dist_version('pycddlib', 'pycddlib-standalone')}")
    print(f"planar-hold: API {engine.describe()} (one core), eval {peerlib.cli_describe(cli)} (all cores)")
    if not peerlib.Referee(0).available:
        print("WARNING: no exact referee (cdd.gmp missing: pycddlib built on GMP, see "
              "scripts/peerlib.py): ours and the peers are checked against each other only")
    rows = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        for name, make in workloads(q):
            rng = np.random.default_rng(zlib.crc32(name.encode()))
            g64, n64 = make(rng, 64)
            t = time.perf_counter()
            engine.cone_test(g64, need=n64, general=True)
            per = (time.perf_counter() - t) / 64
            n = int(min(args.cases, max(128, seconds / per)))
            gens, need = make(np.random.default_rng(zlib.crc32(name.encode())), n)
            api, ours = time_ours(engine, gens, need, min(0.5, seconds))
            bare, _ = time_ours(engine, gens, need, min(0.5, seconds), inside_margin=False)
            e2e, ev = time_eval(cli, gens, need, folder)
            pq_e2e, pq_ev = time_eval_parquet(cli, gens, need, folder)
            cli_off = sum(1 for i, r in enumerate(ev) if r.get("verdict") != planar_hold.VERDICTS[int(ours.verdict[i])]
                          or not close(float(r["margin"]), float(ours.margin[i]), 1.0))
            cli_off += sum(1 for r, e in zip(pq_ev, ev) if r != {"verdict": e.get("verdict"), "margin": e.get("margin")})
            cli_off += abs(len(pq_ev) - len(ev))
            a, ans_a = time_peer(peer_a, gens, need, peer_s)
            b, ans_b = time_peer(lambda W, x: peer_b(W, x, hull_facets), gens, need, peer_s)
            c, ans_c = time_peer(lambda W, x: peer_b(W, x, cdd_facets), gens, need, peer_s)
            exact, disputed, ref = referee(gens, need, ours, {"hull": ans_b, "cdd": ans_c}, exact_s,
                                           0.0 if q else 150.0)
            ours_wrong = [i for i in exact if not verdict_ok(
                *ours_answer(ours, i), *exact[i], float(np.linalg.norm(need[i])))]
            unrefereed = [i for i in disputed if i not in exact]
            # (a)'s outside distance against ours (the referee gives no distance).
            dist_off = sum(1 for i, r in enumerate(ans_a) if r is not None and not r[0]
                           and int(ours.verdict[i]) == planar_hold.UNSUPPORTED
                           and not close(r[1], float(ours.margin[i]), float(np.linalg.norm(need[i]))))
            rows.append(dict(
                workload=name, cases=n, held=float(np.mean(ours.verdict == planar_hold.SUPPORTED)),
                nnls_us=bare * 1e6, api_us=api * 1e6, eval_us=e2e * 1e6, eval_pq_us=pq_e2e * 1e6,
                cli_differs=cli_off,
                lp_us=a * 1e6, hull_us=b * 1e6, cdd_us=c * 1e6,
                ours=(len(ours_wrong), len(exact)), ours_wrong_cases=ours_wrong[:10],
                lp=tally(ans_a, exact, need, with_margin=False), lp_dist_off=dist_off,
                hull=tally(ans_b, exact, need), cdd=tally(ans_c, exact, need),
                unrefereed=len(unrefereed), exact_s=ref.spent))
            print(f"  {name}: {n} cases, {len(ans_b)}/{len(ans_c)} peer cases, {len(exact)} refereed "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)

    print(f"\nµs per case. Ours: the Python API on one core, one batched call (a) without the "
          f"inside margin (the NNLS alone), (b) the whole test; `eval` end to end on all cores "
          f"(file to file, process start included; JSON Lines, and Parquet to Parquet). Peers: one "
          f"case at a time on one core, on the first cases that fit in {peer_s} s. ratio = peer "
          f"÷ ours (b: ÷ API | ÷ eval | ÷ eval from Parquet). "
          f"wrong = answers off the exact one / refereed (exact facets, {exact_s} s a workload, "
          f"disputed cases first); (a) verdicts only; r = raised.\n")
    head = ("| workload | cases | held | (a) API | LP+NNLS | ratio (a) | (b) API | eval | eval pq | "
            "+ConvexHull | ratio (b) | +pycddlib | ratio (b) | ours wrong | LP+NNLS wrong | "
            "ConvexHull wrong | pycddlib wrong |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    f, rt = peerlib.fmt, peerlib.ratio
    for r in rows:
        def both(x):
            return (f"{rt(x / r['api_us'])} \\| {rt(x / r['eval_us'])} "
                    f"\\| {rt(x / r['eval_pq_us'])}")

        def w(t):
            return f"{t[0]}/{t[1]}" + (f", {t[2]} r" if t[2] else "")
        print(f"| {r['workload']} | {r['cases']} | {r['held']:.0%} | {f(r['nnls_us'])} | {f(r['lp_us'])} | "
              f"{rt(r['lp_us'] / r['nnls_us'])} | {f(r['api_us'])} | {f(r['eval_us'])} | {f(r['eval_pq_us'])} | "
              f"{f(r['hull_us'])} | {both(r['hull_us'])} | {f(r['cdd_us'])} | {both(r['cdd_us'])} | "
              f"{r['ours'][0]}/{r['ours'][1]} | {w(r['lp'])} | {w(r['hull'])} | {w(r['cdd'])} |")
    notes = []
    for r in rows:
        if r["ours"][0]:
            notes.append(f"{r['workload']}: OURS WRONG on cases {r['ours_wrong_cases']}")
        if r["unrefereed"]:
            notes.append(f"{r['workload']}: {r['unrefereed']} disagreements with a peer left unrefereed (budget)")
        if r["lp_dist_off"]:
            notes.append(f"{r['workload']}: nnls's outside distance off ours by > 1e-6 on {r['lp_dist_off']} cases")
        if r["cli_differs"]:
            notes.append(f"{r['workload']}: eval (JSON or Parquet) and the API differ on {r['cli_differs']} cases")
    print("\n" + ("\n".join(notes) if notes else "every outside distance of nnls agrees with ours; "
                  "eval agrees with the API on every case"))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    if args.json:
        for r in rows:
            print(json.dumps(r))
    return 1 if any(r["ours"][0] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
