#!/usr/bin/env python3
"""From Python, `Engine("cpu").cone_test` against `planar-hold bench` on the same cases.

Writes the bench's own workload (examples/sample_cases.rs, mixed, 262,144 cases by default),
loads it as numpy arrays, then alternates timed rounds of the Python call and of the CLI's
bench in one run (both take their median after a warm-up) and prints the ratio. Uses
`bench --input FILE` where the CLI has it, else `bench --cases N` (the same cases: the bench's
seed). Run with the venv's python after `scripts/test` (or `pip install ./python`). Both sides
run with the instruction set `PLANAR_HOLD_SIMD` names (default: the best this CPU has), and
the report names it: `PLANAR_HOLD_SIMD=avx2` measures the AVX2 path on an AVX-512 machine.

    .venv/bin/python scripts/python_rate.py [N] [ROUNDS]
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import planar_hold

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "target" / "release" / "planar-hold"


def load(path, n):
    gens = np.zeros((n, 16, 3), dtype=np.float32)
    active = np.zeros((n, 16), dtype=bool)
    need = np.zeros((n, 3), dtype=np.float32)
    with open(path) as f:
        for i, line in enumerate(f):
            case = json.loads(line)
            g = case["generators"]
            if g:
                gens[i, : len(g)] = g
                active[i, : len(g)] = True
            need[i] = case["need"]
    return gens, active, need


def python_rate(engine, gens, active, need, runs=5):
    engine.cone_test(gens, active, need)  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        engine.cone_test(gens, active, need)
        times.append(time.perf_counter() - start)
    return len(gens) / float(np.median(times))


def bench_rate(n, cases_file, with_input):
    args = [str(CLI), "bench", "--backend", "cpu", "--cases", str(n), "--json"]
    if with_input:
        args += ["--input", str(cases_file)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    report = json.loads(out.strip().splitlines()[-1])
    rate = next(r["cases_per_s"] for r in report["results"] if r["batch"] == n)
    return rate, report.get("simd", "?")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 262_144
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as tmp:
        cases_file = Path(tmp) / "cases.jsonl"
        with open(cases_file, "w") as f:
            subprocess.run(
                ["cargo", "run", "--release", "--quiet", "--example", "sample_cases", "--", str(n)],
                cwd=REPO, stdout=f, check=True,
            )
        gens, active, need = load(cases_file, n)
        help_text = subprocess.run([str(CLI), "bench", "--help"], capture_output=True,
                                   text=True).stdout
        with_input = "--input" in help_text
        engine = planar_hold.Engine("cpu")
        py, cli = [], []
        for _ in range(rounds):
            py.append(python_rate(engine, gens, active, need))
            rate, simd = bench_rate(n, cases_file, with_input)
            cli.append(rate)
    p, c = float(np.median(py)), float(np.median(cli))
    how = "bench --input" if with_input else "bench --cases (same seed, same cases)"
    print(f"cases: {n}, mixed workload, {rounds} alternating rounds, {engine.describe()}, "
          f"instruction set {simd}")
    print(f"python Engine('cpu').cone_test: {p:,.0f} cases/s  (rounds: {[round(x) for x in py]})")
    print(f"planar-hold {how}: {c:,.0f} cases/s  (rounds: {[round(x) for x in cli]})")
    print(f"ratio: {p / c:.1%}")


if __name__ == "__main__":
    main()
