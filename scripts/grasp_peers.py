#!/usr/bin/env python3
"""Grasp quality against what users run today, on the same grasps in one run, every answer
refereed by the exact one.

The peer, as grasp data sets and planners compute Ferrari-Canny q1, one grasp at a time on
one core: the wrenches in numpy (every pyramid edge of every point, (r, p x r / l)),
`hull = scipy.spatial.ConvexHull(W)` (qhull), and, when the origin is inside (every facet
offset `-hull.equations[:, -1]` positive), q1 = the least offset; otherwise "no force
closure". Ours: `planar_hold.grasp_quality` on ONE core (the best of 3 batches; fingertip grasps as numpy
arrays, the public mix as grasp dicts) and `planar-hold gate` end to end on ALL cores (a JSON
Lines file in, an answers file out with `-o`, process start included).

Grasps: the public mix (tests/data/grasp_public.jsonl: fingertips, pinches, degenerate and
large grasps, inner/outer/coulomb; a "coulomb" line's q1 is its inner pyramid's, which qhull
is given), and fingertips on a sphere (radius l = 0.05, normals inward, mu 0.5) at contacts x
pyramid edges 3x4, 4x8, 8x8, 8x16, 16x16.

The referee: the public grasps against their expected answers (exact-rational facets);
the sphere grasps against W's facets found in rational arithmetic (cddlib, cdd.gmp) within
--exact-seconds per size (the first grasp up to 60 s, not in --quick), the grasps where ours
and qhull disagree first. A q1 is wrong beyond 1e-7 max(1, |q1|) (tests/common/grade_grasp.rs);
"no force closure" is wrong where the exact q1 is above 1e-7; force closure where it is not
positive. qhull is timed on the first grasps of a set (as many as fit in --peer-seconds, at
least 3; the whole public mix without --quick), ours on all of them.

    scripts/grasp_peers.py [--quick] [--grasps N] [--seconds S] [--peer-seconds S]
                           [--exact-seconds S] [--json]

Needs numpy, scipy, the planar_hold package, and pycddlib on GMP for the referee: see
scripts/peerlib.py's INSTALL, or run it through scripts/peers.
"""

from __future__ import annotations

import peerlib  # first: one BLAS thread, one rayon thread for the API

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ConvexHull = peerlib.need("scipy.spatial", "the qhull peer").ConvexHull
planar_hold = peerlib.need("planar_hold", "planar-hold's Python API")

BAND = 1e-7


def tq(q: float) -> float:
    return BAND * max(1.0, abs(q))


# ----------------------------------------------------------------------------- the peer


def qhull_q1(W):
    """The user's loop body: (True, q1) in force closure, (False, None) otherwise."""
    hull = ConvexHull(W)
    offsets = -hull.equations[:, -1]
    return (True, float(np.min(offsets))) if np.all(offsets > 0) else (False, None)


def time_qhull(walls, seconds, everything=False):
    """Per-grasp time on the first grasps (as many as fit in `seconds`, at least 3; all with
    `everything`), and the answers there (None where qhull raised). The wrenches are built
    inside the clock, as the user's loop builds them."""
    answers = []
    start = time.perf_counter()
    for g in walls:
        try:
            answers.append(qhull_q1(peerlib.generators(g)))
        except Exception:  # qhull's QhullError, ValueError on flat or tiny sets
            answers.append(None)
        if not everything and len(answers) >= 3 and time.perf_counter() - start > seconds:
            break
    return (time.perf_counter() - start) / len(answers), answers


# ----------------------------------------------------------------------------- ours


def time_api(grasps, arrays=None, rounds=3):
    """Per-grasp time of a grasp_quality batch on one core, the best of `rounds` batches (the
    first pays the call's warm-up, as the peer's loop does not: it runs for seconds), and its
    answers."""
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        out = planar_hold.grasp_quality(**arrays) if arrays else planar_hold.grasp_quality(grasps)
        best = min(best, time.perf_counter() - t)
    return best / len(grasps), out


def time_gate(cli, grasps):
    """`gate` end to end on all cores, per grasp, a file in and a file out (`-o`, as the cone
    tests' `eval` is timed: a pipe into this process timed Python's reading of it too, 3 × 4
    grasps' 2.8 MB of answers about 1.3× slower): the median of 7 runs (3 of a file of more
    than 1,000 grasps; one run of the public mix's 200, some 10 ms with the process start,
    varied by 1.5× from run to run); and its answers."""
    runs = 7 if len(grasps) <= 1000 else 3
    with tempfile.TemporaryDirectory() as d:
        path, answers = Path(d) / "grasps.jsonl", Path(d) / "answers.jsonl"
        path.write_text("".join(json.dumps(g) + "\n" for g in grasps))
        times = []
        for _ in range(runs):
            answers.unlink(missing_ok=True)
            times.append(peerlib.run_cli(cli, ["gate", path, "--backend", "cpu", "-o", answers])[0])
        out = answers.read_text()
    return sorted(times)[runs // 2] / len(grasps), [json.loads(x) for x in out.splitlines() if x.strip()]


# ----------------------------------------------------------------------------- refereeing


def judge(claim, exact):
    """A (force closure True/False/None (uncertain), q1 or None) claim against the exact
    (sign +1/0/-1 or None (undecided there: a "coulomb" gap or a near tie), q1 or None):
    "wrong", "undecided" (uncertain where the exact answer is decisive) or None (right)."""
    fc, q = claim
    sign, qe = exact
    if q is not None and qe is not None and abs(q - qe) > tq(qe):
        return "wrong"
    if sign == 1 and qe is not None and qe > BAND and fc is not True:
        return "wrong" if fc is False else "undecided"
    if sign == -1 and fc is True:
        return "wrong"
    if sign == -1 and fc is None:
        return "undecided"
    return None


def ours_claim(out, i):
    """(force closure: True, False or None where uncertain; q1)."""
    return None if out.uncertain[i] else bool(out.force_closure[i]), float(out.q1[i])


def tally(answers, exact):
    """(wrong, undecided, refereed, raised)."""
    w = u = refereed = 0
    for i, a in enumerate(answers):
        if a is not None and exact.get(i) is not None:
            refereed += 1
            j = judge(a, exact[i])
            w += j == "wrong"
            u += j == "undecided"
    return w, u, refereed, sum(a is None for a in answers)


# ----------------------------------------------------------------------------- sets


def sphere_grasps(rng, n, c, k):
    """Fingertips on a sphere: the grasp dicts and the numpy arrays of the same grasps."""
    s = rng.normal(size=(n, c, 3))
    s /= np.linalg.norm(s, axis=2, keepdims=True)
    pts, nrm = 0.05 * s, -s
    arrays = dict(points=pts, normals=nrm, mu=0.5, half_size=0.05, pyramid=k)
    return planar_hold.grasp_lines(pts, nrm, 0.5, half_size=0.05, pyramid=k), arrays


def run_set(name, grasps, arrays, exact_of, cli, peer_s, everything, budget, first):
    """One row: times, answers, refereed tallies. `exact_of`: {i: (sign, q1)} given (public)
    or None (the referee computes them)."""
    api, ours = time_api(grasps, arrays)
    e2e, gate_out = time_gate(cli, grasps)
    differs = sum(1 for i, r in enumerate(gate_out) if r.get("q1") != float(ours.q1[i]))
    inner = [{**g, "friction": "inner"} if g.get("friction") == "coulomb" else g for g in grasps]
    tq_s, qh = time_qhull(inner, peer_s, everything)
    spent = 0.0
    if exact_of is None:
        disputed = [i for i, a in enumerate(qh) if a is not None and (
            a[0] != ours_claim(ours, i)[0] and abs(float(ours.q1[i])) > BAND
            or a[0] and ours_claim(ours, i)[0] and abs(a[1] - float(ours.q1[i])) > tq(float(ours.q1[i])))]
        ref = peerlib.Referee(budget, first)
        exact_of = {}
        if ref.available:
            for i in disputed + [i for i in range(len(grasps)) if i not in set(disputed)]:
                got = ref.q1(peerlib.generators(grasps[i]))
                if got[0] is None:
                    break
                exact_of[i] = got
        ref.close()
        spent = ref.spent
        unrefereed = len([i for i in disputed if i not in exact_of])
    else:
        unrefereed = 0
    compared = sum(1 for i, a in enumerate(qh) if a is not None and i not in exact_of)
    ours_answers = [ours_claim(ours, i) for i in range(len(grasps))]
    ours_wrong = [grasps[i]["id"] for i, a in enumerate(ours_answers)
                  if i in exact_of and judge(a, exact_of[i]) == "wrong"]
    return dict(set=name, grasps=len(grasps), fc=int(np.sum(ours.force_closure)), api_us=api * 1e6,
                gate_us=e2e * 1e6, qhull_us=tq_s * 1e6, qhull_n=len(qh), gate_differs=differs,
                ours=tally(ours_answers, exact_of),
                ours_wrong=ours_wrong[:10], qhull=tally(qh, exact_of), unrefereed=unrefereed, compared=compared,
                exact_s=spent)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="3x4 and 4x8 and the public grasps of K <= 32 only, short times")
    ap.add_argument("--grasps", type=int, default=4096, help="most sphere grasps a size for ours")
    ap.add_argument("--seconds", type=float, default=None,
                    help="ours: about this long a size (default 2; --quick 0.3)")
    ap.add_argument("--peer-seconds", type=float, default=None,
                    help="qhull's time a size (default 3; --quick 0.5)")
    ap.add_argument("--exact-seconds", type=float, default=None,
                    help="the referee's time a size (default 20; --quick 1)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cli", default=str(peerlib.CLI))
    a = ap.parse_args()
    q = a.quick
    seconds = a.seconds or (0.3 if q else 2.0)
    peer_s = a.peer_seconds or (0.5 if q else 3.0)
    exact_s = a.exact_seconds if a.exact_seconds is not None else (1.0 if q else 20.0)
    first = 0.0 if q else 60.0
    cli = Path(a.cli)
    if not cli.is_file():
        sys.exit(f"error: {cli} is not built (cargo build --release)")
    print(f"machine: {peerlib.machine()}; SciPy {__import__('scipy').__version__} (qhull)")
    print(f"planar-hold: grasp_quality on one core; gate {peerlib.cli_describe(cli)} on all cores")
    if not peerlib.Referee(0).available:
        print("WARNING: no exact referee (cdd.gmp): the sphere grasps are compared with qhull only")

    rows = []
    t0 = time.perf_counter()
    cases = [json.loads(x) for x in (peerlib.REPO / "tests/data/grasp_public.jsonl").open() if x.strip()]
    want = {e["id"]: e for e in map(json.loads, (peerlib.REPO / "tests/data/grasp_public.expected.jsonl").open())}
    exact = {}
    for i, g in enumerate(cases):
        e = want[g["id"]]
        fc = e["force_closure"]
        exact[i] = (None if fc == "uncertain" or e.get("amb") else 1 if fc else -1, float(e["q1"]))
    name = "the public mix"
    if q:  # seconds: the grasps of at most 32 generators
        keep = [i for i, g in enumerate(cases) if len(peerlib.generators(g)) <= 32]
        cases, exact = [cases[i] for i in keep], {j: exact[i] for j, i in enumerate(keep)}
        name += " (K <= 32)"
    rows.append(run_set(name, cases, None, exact, cli, peer_s, not q, 0, 0))
    print(f"  public: done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    rng = np.random.default_rng(2026)
    for c, k in ((3, 4), (4, 8)) if q else ((3, 4), (4, 8), (8, 8), (8, 16), (16, 16)):
        probe, parr = sphere_grasps(np.random.default_rng(c * 100 + k), 4, c, k)
        per, _ = time_api(probe, parr)
        n = int(min(a.grasps, max(8, seconds / per)))
        grasps, arrays = sphere_grasps(rng, n, c, k)
        rows.append(run_set(f"{c} × {k}", grasps, arrays, None, cli, peer_s, False, exact_s, first))
        print(f"  {c} x {k}: {n} grasps ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)

    print(f"\nµs per grasp. Ours: grasp_quality on one core (the best of 3 batches); `gate` end to end (file to file, the median of 7 runs, 3 past 1,000 grasps) on "
          f"all cores. qhull: one grasp at a time on one core, on the first grasps that fit in "
          f"{peer_s} s{' (the whole public mix)' if not q else ''}. ratio = qhull ÷ ours. "
          f"wrong = answers off the exact one / refereed (u: uncertain where the exact answer "
          f"decides: ours when its proof did not close). Unrefereed (past the exact budget): the "
          f"grasps qhull answered where its verdict or q1 differs from ours / those compared.\n")
    head = ("| grasps | n | force closure | grasp_quality, 1 core | gate, all cores | qhull, 1 core | "
            "ratio 1 core vs 1 core | ratio gate | ours wrong | qhull wrong | qhull raised | "
            "unrefereed: unlike qhull |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    f, rt = peerlib.fmt, peerlib.ratio
    for r in rows:
        w, _, refd, raised = r["qhull"]
        ow, ou, orefd, _ = r["ours"]
        print(f"| {r['set']} | {r['grasps']} | {r['fc']} | {f(r['api_us'])} | {f(r['gate_us'])} | "
              f"{f(r['qhull_us'])} | **{rt(r['qhull_us'] / r['api_us'])}** | {rt(r['qhull_us'] / r['gate_us'])} | "
              f"{ow}/{orefd}{f' ({ou} u)' if ou else ''} | {w}/{refd} | {raised}/{r['qhull_n']} | "
              f"{r['unrefereed']}/{r['compared']} |")
    notes = []
    for r in rows:
        if r["ours"][0]:
            notes.append(f"{r['set']}: OURS WRONG on {r['ours_wrong']}")
        if r["ours"][1]:
            notes.append(f"{r['set']}: ours uncertain (unproven) where the exact answer decides, {r['ours'][1]} grasps")
        if r["gate_differs"]:
            notes.append(f"{r['set']}: gate and grasp_quality differ on {r['gate_differs']} grasps")
    print("\n" + ("\n".join(notes) if notes else "gate agrees with grasp_quality on every grasp"))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    if a.json:
        for r in rows:
            print(json.dumps(r))
    return 1 if any(r["ours"][0] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
