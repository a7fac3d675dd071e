#!/usr/bin/env python3
"""What the true cone's proven q1 costs at each tolerance, and what the qhull loop's pyramids
miss, on the same grasps in one run.

N random 4-fingertip sphere grasps (μ = 0.5, ℓ = 0.05, scripts/grasp_peers.py's) go through

    planar-hold gate FILE --backend cpu          (all cores, process start included)

with ``"friction": "circular"`` and each ``"tolerance"`` in turn (the bracket [q1_lower, q1]
closes to it, relative to the grasp's scale; 1e-9 is the contract's default). The peer is the
qhull loop users run today (scripts/grasp_peers.py's: numpy wrenches, ``ConvexHull``, one
grasp at a time on one core) on the first grasps as k-edge inner pyramids, k = 8 … 64 (at most
M, as many as fit in S seconds, at least 3); its
error against the true cone is ``q1_circular − q1_k`` (never negative: the inner pyramid lies in
the cone) over the grasp's scale, on the grasps in force closure both ways. Prints one table:
our rate at each tolerance and the loop's at each k, each over the 8-edge loop's (what users run
today), and ours at 1e-9 over each.

    scripts/circular_tolerance.py [N] [M] [S]     (default 2000 300 10)

Needs numpy, scipy and the planar_hold package (a venv as for scripts/peers).
"""

from __future__ import annotations

import peerlib  # first: one BLAS thread

import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from grasp_peers import qhull_q1, sphere_grasps

TOLERANCES = (1e-9, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)
EDGES = (8, 16, 32, 64)


def scale(g: dict) -> float:
    """The grasp's scale as the contract has it: √(1+μ²)·√(1+(|p|/ℓ)²), the largest over its
    points (docs/contract-grasp.md §5)."""
    ell = g["half_size"]
    return max(
        math.sqrt(1 + c["mu"] ** 2) * math.sqrt(1 + (np.linalg.norm(p) / ell) ** 2)
        for c in g["contacts"]
        for p in c["points"]
    )


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    budget = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    grasps, _ = sphere_grasps(np.random.default_rng(2026), n, 4, 8)
    for g in grasps:
        g["friction"] = "circular"
        g.pop("pyramid", None)
    print(f"machine: {peerlib.machine()}; SciPy {__import__('scipy').__version__} (qhull)")
    print(f"{n} circular 4-fingertip grasps; the qhull loop on at most the first {m} ({budget:g} s a k)\n")
    rows = []
    q1_default = None
    with tempfile.TemporaryDirectory() as d:
        for tol in TOLERANCES:
            path = Path(d) / "grasps.jsonl"
            path.write_text("".join(json.dumps({**g, "tolerance": tol}) + "\n" for g in grasps))
            dt, out = peerlib.run_cli(peerlib.CLI, ["gate", path, "--backend", "cpu"])
            answers = [json.loads(x) for x in out.splitlines() if x.strip()]
            opened = sum(1 for a in answers if not a.get("margin_checked"))
            wide = max((a["q1"] - a["q1_lower"]) / scale(g) for a, g in zip(answers, grasps))
            if q1_default is None:
                q1_default = [a["q1"] for a in answers]
            rows.append((f"ours, tolerance {tol:g}", n / dt, f"bracket ≤ {wide:.1e} (open {opened})"))
    ours = rows[0][1]
    for k in EDGES:
        lines = [{**g, "pyramid": k, "friction": "inner"} for g in grasps[:m]]
        start = time.perf_counter()
        answers = []
        for line in lines:
            try:
                answers.append(qhull_q1(peerlib.generators(line)))
            except Exception:  # qhull's QhullError: the loop goes on
                answers.append((False, None))
            if len(answers) >= 3 and time.perf_counter() - start > budget:
                break
        rate = len(answers) / (time.perf_counter() - start)
        errors = [
            (q1_default[i] - q) / scale(g)
            for i, ((fc, q), g) in enumerate(zip(answers, grasps))
            if fc and q1_default[i] > 0
        ]
        worst = max(errors) if errors else float("nan")
        rows.append((f"qhull loop, {k}-edge pyramids ({len(answers)} grasps)", rate,
                     f"error up to {worst:.1e} of the scale"))
    loop8 = next(rate for name, rate, _ in rows if name.startswith(f"qhull loop, {EDGES[0]}-"))
    times = lambda x: f"{x:,.{0 if x >= 10 else 2}f}×"  # noqa: E731
    print(f"| run | grasps/s | over the {EDGES[0]}-edge loop | ours at 1e-9 over it | accuracy |")
    print("|---|---:|---:|---:|---|")
    for name, rate, note in rows:
        shown = f"{rate:,.{0 if rate >= 100 else 2}f}"
        print(f"| {name} | {shown} | {times(rate / loop8)} | {times(ours / rate)} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
