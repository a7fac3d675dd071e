#!/usr/bin/env python3
"""Grasps per second from Python and Ray against `planar-hold gate`, on the same grasps.

Writes N random fingertip grasps of a sphere (examples/grasp_dataset.rs: C contacts, k
pyramid edges, Parquet) and the first N/2 of them, then alternates timed rounds, in one run,
of:

- ``planar-hold gate FILE.parquet -o OUT.parquet --backend cpu`` (end to end: read, answer,
  write);
- ``planar_hold.grasp_quality(points=..., normals=..., mu=...)`` on the same grasps as numpy
  arrays (loaded beforehand, not timed);
- ``planar_hold.ray.grasp_quality`` over ``ray.data.read_parquet(FILE)``, materialized (a
  local Ray cluster on every core, started beforehand; the time from the read to the last
  row).

Each side on both files: its rate on N (the median round), and its marginal rate, N/2 over
the difference of the two times, which leaves out what a run costs whatever its size (a
process's start, Ray's actors). Run with the venv's python after `scripts/test` (or
`pip install "./python[ray]"`):

    .venv/bin/python scripts/grasp_rate.py [N] [ROUNDS] [CONTACTS] [K]

(default: 262,144 grasps, 3 rounds, 4 fingertips, 8 edges: enough grasps that Ray's start,
seconds on a small machine, is not most of its time).
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

import planar_hold
import planar_hold.ray

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "target" / "release" / "planar-hold"


def arrays(path):
    """The grasps of a grasp_dataset file as (points, normals, mu) arrays (N, C, ...)."""
    contacts = pq.read_table(path).column("contacts").combine_chunks()
    n, c = len(contacts), len(contacts[0])
    tips = contacts.flatten()
    points = np.asarray(tips.field("points").flatten().flatten()).reshape(n, c, 3)
    normals = np.asarray(tips.field("normal").flatten()).reshape(n, c, 3)
    mu = np.asarray(tips.field("mu")).reshape(n, c)
    return points, normals, mu


def timed(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 262_144
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    contacts = sys.argv[3] if len(sys.argv) > 3 else "4"
    k = sys.argv[4] if len(sys.argv) > 4 else "8"
    import ray

    with tempfile.TemporaryDirectory() as tmp:
        files = {n: Path(tmp) / "grasps.parquet", n // 2: Path(tmp) / "half.parquet"}
        for size, path in files.items():
            subprocess.run(
                ["cargo", "run", "--release", "--quiet", "--example", "grasp_dataset", "--",
                 str(size), str(path), contacts, k],
                cwd=REPO, check=True,
            )  # fmt: skip
        loaded = {size: arrays(path) for size, path in files.items()}
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False,
                 logging_level="ERROR")  # fmt: skip
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False

        def cli(size):
            out = Path(tmp) / "o.parquet"
            subprocess.run(
                [str(CLI), "gate", str(files[size]), "--backend", "cpu", "-o", str(out)], check=True
            )

        def arrays_call(size):
            points, normals, mu = loaded[size]
            out = planar_hold.grasp_quality(
                points=points, normals=normals, mu=mu, half_size=1.0, pyramid=int(k)
            )
            assert len(out) == size

        def ray_call(size):
            ds = ray.data.read_parquet(str(files[size]))
            rows = planar_hold.ray.grasp_quality(ds).materialize()  # its batches: 4,096 grasps
            assert rows.count() == size

        sides = {"cli": cli, "arrays": arrays_call, "ray": ray_call}
        times = {(side, size): [] for side in sides for size in files}
        ray_call(n // 2)  # warm-up: the actors' first start
        for _ in range(rounds):
            for side, call in sides.items():
                for size in files:
                    times[side, size].append(timed(lambda: call(size)))
        ray.shutdown()
    med = {key: float(np.median(t)) for key, t in times.items()}
    rate = {side: n / med[side, n] for side in sides}
    marginal = {side: (n - n // 2) / max(med[side, n] - med[side, n // 2], 1e-9) for side in sides}
    isa = "avx512f" if "avx512f" in Path("/proc/cpuinfo").read_text() else "avx2 or less"
    print(f"{n} grasps (and the first {n // 2}) of {contacts} fingertips x {k} edges, {rounds} "
          f"alternating rounds, {os.cpu_count()} cores, instruction set {isa}")
    for side, label in (("cli", "planar-hold gate (Parquet -> Parquet)"),
                        ("arrays", "planar_hold.grasp_quality(points=...)"),
                        ("ray", "planar_hold.ray.grasp_quality (read_parquet)")):
        print(f"{label}: {rate[side]:,.0f} grasps/s ({rate[side] / rate['cli']:.2f}x the CLI); "
              f"marginal {marginal[side]:,.0f} grasps/s ({marginal[side] / marginal['cli']:.2f}x); "
              f"rounds on {n}: {[round(t, 2) for t in times[side, n]]} s")


if __name__ == "__main__":
    main()
