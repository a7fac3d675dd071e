#!/usr/bin/env python3
"""Grasp quality against what users run today, in one run on the same grasps.

  scripts/grasp_peers.py [--cli target/release/planar-hold] [--seconds 3]

The peer: numpy wrenches + ``scipy.spatial.ConvexHull`` (qhull) + the least facet offset,
one grasp at a time on one core, as grasp data sets and planners compute Ferrari–Canny q1.
Ours: ``planar_hold.grasp_quality`` (one batch from Python) and ``planar-hold gate`` (the CLI
end to end: read, answer, write), both on the CPU engine. Part 1 runs the public grasps
(tests/data/grasp_public.jsonl): grasps per second, and how often qhull raises or disagrees
with the exact answers (|q1 - expected| > 1e-7 max(1, |q1|)); ours must agree on every one
(the script fails otherwise). Part 2: how the cost grows with contacts x pyramid edges
(fingertips on a sphere, contacts 2..16, k = 4, 8, 16). Needs numpy, scipy and the package
(``pip install ./python``). Name the machine's instruction set beside any figure you quote.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.spatial import ConvexHull

import planar_hold

REPO = Path(__file__).resolve().parents[1]


def pyramid_edges(normal, mu, k):
    n = np.asarray(normal, float)
    n = n / np.linalg.norm(n)
    a = np.zeros(3)
    a[int(np.argmin(np.abs(n)))] = 1.0
    t1 = np.cross(a, n)
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(n, t1)
    th = 2 * math.pi * np.arange(k) / k
    return n + mu * (np.cos(th)[:, None] * t1 + np.sin(th)[:, None] * t2)


def wrenches(g):
    """The user's numpy: every pyramid edge of every point as a wrench (f, p x f / l)."""
    k, ell = g.get("pyramid", 4), float(g["half_size"])
    fr = g.get("friction", "inner")
    rows = []
    for c in g["contacts"]:
        mu = c["mu"][0] if isinstance(c["mu"], list) else float(c["mu"])
        mu = mu / math.cos(math.pi / k) if fr == "outer" else mu
        for p in c["points"]:
            r = pyramid_edges(c["normal"], mu, k)
            rows.append(np.hstack([r, np.cross(p, r) / ell]))
    return np.vstack(rows)


def qhull_q1(g):
    """q1 as users compute it: the hull's least facet offset (negative outside)."""
    hull = ConvexHull(wrenches(g))
    return float(np.min(-hull.equations[:, -1]))


def time_qhull(grasps):
    q, raised = [], 0
    t = time.perf_counter()
    for g in grasps:
        try:
            q.append(qhull_q1(g))
        except Exception:  # qhull's QhullError and ValueError on flat or tiny sets
            q.append(None)
            raised += 1
    return time.perf_counter() - t, q, raised


def time_ours(grasps):
    t = time.perf_counter()
    out = planar_hold.grasp_quality(grasps)
    return time.perf_counter() - t, out


def time_cli(cli, grasps):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "grasps.jsonl"
        path.write_text("".join(json.dumps(g) + "\n" for g in grasps))
        t = time.perf_counter()
        done = subprocess.run([cli, "gate", str(path), "--backend", "cpu"], capture_output=True,
                              text=True, check=True)  # fmt: skip
        return time.perf_counter() - t, [json.loads(x) for x in done.stdout.splitlines()]


def off(q, want):
    return q is None or not math.isfinite(q) or abs(q - want) > 1e-7 * max(1.0, abs(want))


def public(cli):
    cases = [json.loads(x) for x in (REPO / "tests/data/grasp_public.jsonl").open() if x.strip()]
    want = {e["id"]: e for e in map(json.loads, (REPO / "tests/data/grasp_public.expected.jsonl").open())}
    # qhull answers the inner pyramid of a "coulomb" line (the q1 its answer reports).
    inner = [{**g, "friction": "inner"} if g.get("friction") == "coulomb" else g for g in cases]
    tq, qq, raised = time_qhull(inner)
    disagree = sum(1 for g, q in zip(cases, qq) if q is not None and off(q, want[g["id"]]["q1"]))
    to, ours = time_ours(cases)
    tc, cli_out = time_cli(cli, cases)
    wrong = [g["id"] for g, q in zip(cases, ours.q1) if off(float(q), want[g["id"]]["q1"])]
    assert not wrong, f"planar-hold disagrees with the exact q1 on {wrong[:5]}"
    assert [r["q1"] for r in cli_out] == list(ours.q1), "the CLI and Python differ"
    n = len(cases)
    print(f"## public grasps ({n}; {sum(ours.force_closure)} in force closure)\n")
    print("| | grasps/s | vs qhull | raises | wrong q1 |")
    print("|---|---:|---:|---:|---:|")
    print(f"| numpy + scipy ConvexHull (1 grasp at a time) | {n / tq:,.1f} | 1× | {raised} | {disagree} |")
    print(f"| planar_hold.grasp_quality (one batch) | {n / to:,.1f} | {tq / to:.2f}× | 0 | 0 |")
    print(f"| planar-hold gate (CLI end to end) | {n / tc:,.1f} | {tq / tc:.2f}× | 0 | 0 |")
    print()


def sphere_grasps(rng, n, c, k):
    out = []
    for i in range(n):
        s = rng.normal(size=(c, 3))
        s /= np.linalg.norm(s, axis=1, keepdims=True)
        out.append({"id": i, "dim": 3, "grasp": True, "half_size": 0.05, "pyramid": k,
                    "contacts": [{"points": [(0.05 * s[j]).tolist()], "normal": (-s[j]).tolist(),
                                  "mu": 0.5} for j in range(c)]})  # fmt: skip
    return out


def growth(seconds):
    rng = np.random.default_rng(2026)
    print("## cost by contacts × pyramid edges (fingertips on a sphere, mu 0.5)\n")
    print("| contacts × k | generators | qhull grasps/s | grasp_quality grasps/s | ratio |")
    print("|---|---:|---:|---:|---:|")
    for k in (4, 8, 16):
        for c in (2, 3, 4, 8, 16):
            if c * k > 256:
                continue
            n, rates = 4, None
            while True:  # double the sample until either side takes `seconds`
                grasps = sphere_grasps(rng, n, c, k)
                tq, _, raised = time_qhull(grasps)
                to, _ = time_ours(grasps)
                rates = (n / tq, n / to, raised)
                if max(tq, to) > seconds or n >= 4096:
                    break
                n *= 2
            rq, ro, raised = rates
            note = f" ({raised}/{n} raise)" if raised else ""
            print(f"| {c} × {k} | {c * k} | {rq:,.1f}{note} | {ro:,.1f} | {ro / rq:.2f}× |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default=str(REPO / "target/release/planar-hold"))
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--public-only", action="store_true")
    a = ap.parse_args()
    threads = os.environ.get("RAYON_NUM_THREADS", str(os.cpu_count()))
    print(f"# grasp quality vs qhull (planar-hold on {threads} thread(s); qhull on 1)\n")
    public(a.cli)
    if not a.public_only:
        growth(a.seconds)


if __name__ == "__main__":
    sys.exit(main())
