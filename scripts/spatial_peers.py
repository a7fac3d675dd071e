#!/usr/bin/env python3
"""planar-hold's spatial gate against SciPy, in one run, on the same scenes.

The scenes are `planar-hold bench --spatial`'s (a cube on its four corners, two feet of
four-vertex soles, a four-finger grasp; jittered; 8 needs each: mass x dx x dy), written by
that bench (`--spatial-out`), which also reports its own stage times (`--json`). Then:

  scipy       per need, from Python: the generators built in numpy from docs/contract-spatial.md's
              formulas (tangent basis, pyramid edges, wrenches, the needs of the box's
              corners); membership by scipy.optimize.linprog (HiGHS: G^T lam = need,
              lam >= 0) and the distance to the cone by scipy.optimize.nnls
              (min |G^T lam - need|, lam >= 0). One core. Verdict and outside distance only:
              no inside margin, no support region, no reasons.
  gate (py)   planar_hold.gate on all scenes in one call (JSON dicts in, report dicts out).
  gate (cli)  `planar-hold gate FILE` end to end (process start, read, write JSON Lines).
  NNLS only   the Rust bench's like-for-like time: parse + build + the cone tests without
              the inside margin (verdict, witness, certificate, outside distance), i.e.
              what SciPy computes.

planar-hold's gate computes more than SciPy here: every need's inside margin (the least
distance to a facet, by exact facet enumeration), the support region (a polygon from the
cone's facets), witnesses, certificates and reasons. Its rows say so.

    python3 scripts/spatial_peers.py [--per-family N] [--cli target/release/planar-hold]

Needs numpy, scipy and the planar_hold package (pip install "./python[bench]").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy
from scipy.optimize import linprog, nnls

import planar_hold

REPO = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ docs/contract-spatial.md in numpy


def lower(mu):
    return float(mu[0]) if isinstance(mu, list) else float(mu)


def tangent_basis(n):
    a = np.zeros(3)
    a[int(np.argmin(np.abs(n)))] = 1.0  # argmin: the first on ties
    t1 = np.cross(a, n)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def generators(scene, outer=False):
    """(K, 6): contacts in order, then points, then edges j (docs/contract-spatial.md §2)."""
    k = int(scene.get("pyramid", 4))
    ell = float(scene["half_size"])
    theta = 2 * np.pi * np.arange(k) / k
    rows = []
    for c in scene["contacts"]:
        n = np.asarray(c["normal"], dtype=float)
        n /= np.linalg.norm(n)
        t1, t2 = tangent_basis(n)
        mu = lower(c["mu"]) / (np.cos(np.pi / k) if outer else 1.0)
        edges = n + mu * (np.cos(theta)[:, None] * t1 + np.sin(theta)[:, None] * t2)  # (k, 3)
        for p in c["points"]:
            p = np.asarray(p, dtype=float)
            rows.append(np.hstack([edges, np.cross(p, edges) / ell]))
    return np.vstack(rows)


def values(iv):
    return [iv[0]] if iv[0] == iv[1] else list(iv)


def needs(scene):
    """The corners of mass x dx x dy, mass outer, lower ends first (docs/contract-scenes.md)."""
    mass = scene.get("mass", {})
    m0 = float(mass.get("nominal", 1.0))
    rng = mass.get("range", [m0, m0])
    (dx, dy) = scene.get("com_offset", [[0.0, 0.0], [0.0, 0.0]])
    ell = float(scene["half_size"])
    out = []
    for m in values(rng):
        for x in values(dx):
            for y in values(dy):
                a = m / m0
                out.append([0.0, 0.0, a, a * y / ell, -a * x / ell, 0.0])
    return np.asarray(out)


def scipy_need(g, need):
    """Membership by HiGHS and the distance to the cone by NNLS: (member, distance)."""
    k = g.shape[0]
    lp = linprog(np.zeros(k), A_eq=g.T, b_eq=need, bounds=(0, None), method="highs")
    _, residual = nnls(g.T, need)
    return lp.status == 0, residual


# ------------------------------------------------------------------ the machine


def machine():
    model, flags = platform.processor() or platform.machine(), ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and model in ("", platform.machine()):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                flags = line
    except OSError:
        pass
    isa = "AVX-512" if " avx512f" in flags else "AVX2" if " avx2" in flags else platform.machine()
    return f"{model} ({isa}), {os.cpu_count()} logical cores, {platform.system()}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-family", type=int, default=200, help="scenes per family (default 200)")
    ap.add_argument("--cli", default=str(REPO / "target" / "release" / "planar-hold"))
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "spatial.jsonl"
        bench = subprocess.run(
            [args.cli, "bench", "--spatial", "--backend", "cpu", "--json",
             "--cases", str(args.per_family * 1000), "--spatial-out", str(path)],
            capture_output=True, text=True, check=True)
        print(bench.stdout.rstrip().rsplit("\n", 1)[0])  # the bench's table
        stages = json.loads(bench.stdout.strip().splitlines()[-1])
        lines = [l for l in path.read_text().splitlines() if l.strip()]
        scenes = [json.loads(l) for l in lines]

        # planar_hold.gate: one call over every scene.
        planar_hold.gate(scenes[:3])
        t = time.perf_counter()
        reports = planar_hold.gate(scenes)
        t_py = time.perf_counter() - t

        # The CLI end to end.
        out = Path(tmp) / "reports.jsonl"
        t = time.perf_counter()
        with open(out, "w") as f:
            subprocess.run([args.cli, "gate", str(path), "--backend", "cpu"], stdout=f, check=True)
        t_cli = time.perf_counter() - t

        # SciPy per need, one core, the generators built here.
        t = time.perf_counter()
        verdicts = []
        for s in scenes:
            g = generators(s)
            verdicts.append([scipy_need(g, need) for need in needs(s)])
        t_scipy = time.perf_counter() - t

    # The same answers? (SciPy's membership against the gate's verdicts, far from the boundary.)
    agree = checked = 0
    for r, v in zip(reports, verdicts):
        for n, (member, dist) in zip(r["needs"], v):
            if abs(n["margin"]) > 1e-6 and n["verdict"] != "uncertain":
                checked += 1
                agree += (n["verdict"] == "supported") == member
                if n["verdict"] == "unsupported":
                    agree -= abs(dist + n["margin"]) > 1e-6 * max(1.0, dist)
    n = len(scenes)
    fam = stages["spatial"]
    nnls_s = sum(r["seconds"]["parse"] + r["seconds"]["build"] +
                 r["seconds"]["cone_tests_without_facets"] for r in fam)
    e2e_s = sum(r["seconds"]["end_to_end"] for r in fam)
    scipy_rate = n / t_scipy
    rows = [
        ("scipy linprog(HiGHS) + nnls, per need", n / t_scipy,
         "verdict + outside distance; one core"),
        ("planar-hold NNLS only (bench stages)", n / nnls_s,
         "the same: verdict, witness, certificate, outside distance"),
        ("planar-hold gate, Rust (bench e2e)", n / e2e_s,
         "+ inside margin (facets), support region, reasons"),
        ("planar_hold.gate (Python, batched)", n / t_py, "the same, dicts in and out"),
        ("planar-hold gate (CLI, end to end)", n / t_cli, "the same, file in and out, process start"),
    ]
    print()
    print(f"machine: {machine()}; Python {platform.python_version()}, numpy {np.__version__}, "
          f"scipy {scipy.__version__}, planar_hold threads: {stages['threads']}")
    print(f"{n} scenes ({args.per_family} a family), {sum(len(v) for v in verdicts)} needs; "
          f"SciPy agrees with the gate on {agree}/{checked} needs away from the boundary")
    print(f"{'':40} {'scenes/s':>10} {'vs scipy':>9}  computes")
    for name, rate, what in rows:
        print(f"{name:40} {rate:>10.1f} {rate / scipy_rate:>8.1f}x  {what}")
    print("goal: >= 1000x SciPy per need")
    print(json.dumps({"machine": machine(), "scenes": n, "scipy_per_s": scipy_rate,
                      "nnls_only_per_s": n / nnls_s, "rust_gate_per_s": n / e2e_s,
                      "python_gate_per_s": n / t_py, "cli_gate_per_s": n / t_cli,
                      "agree": agree, "checked": checked}))


if __name__ == "__main__":
    sys.exit(main())
