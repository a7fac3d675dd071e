#!/usr/bin/env python3
"""Grasps per second from Python and Ray against `planar-hold gate`, on the same grasps.

Writes N random fingertip grasps of a sphere (examples/grasp_dataset.rs: C contacts, k
pyramid edges, Parquet), then alternates timed rounds, in one run, of:

- ``planar-hold gate FILE.parquet -o OUT.parquet --backend cpu`` (end to end: read, answer,
  write);
- ``planar_hold.grasp_quality(points=..., normals=..., mu=...)`` on the same grasps as numpy
  arrays (loaded beforehand, not timed);
- ``planar_hold.ray.grasp_quality`` over ``ray.data.read_parquet(FILE)``, materialized (a
  local Ray cluster on every core, started beforehand; the time from the read to the last
  row).

Each side's median over the rounds, and its rate as a share of the CLI's. Run with the venv's
python after `scripts/test` (or `pip install "./python[ray]"`):

    .venv/bin/python scripts/grasp_rate.py [N] [ROUNDS] [CONTACTS] [K]
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
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    contacts = sys.argv[3] if len(sys.argv) > 3 else "4"
    k = sys.argv[4] if len(sys.argv) > 4 else "8"
    import ray

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grasps.parquet"
        subprocess.run(
            ["cargo", "run", "--release", "--quiet", "--example", "grasp_dataset", "--",
             str(n), str(path), contacts, k],
            cwd=REPO, check=True,
        )  # fmt: skip
        points, normals, mu = arrays(path)
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False

        def cli():
            subprocess.run(
                [str(CLI), "gate", str(path), "--backend", "cpu", "-o", str(Path(tmp) / "o.parquet")],
                check=True,
            )  # fmt: skip

        def arrays_call():
            out = planar_hold.grasp_quality(
                points=points, normals=normals, mu=mu, half_size=1.0, pyramid=int(k)
            )
            assert len(out) == n

        def ray_call():
            ds = ray.data.read_parquet(str(path))
            rows = planar_hold.ray.grasp_quality(ds, batch_size=1024).materialize()
            assert rows.count() == n

        times = {"cli": [], "arrays": [], "ray": []}
        ray_call()  # warm-up: the actors' first start
        for _ in range(rounds):
            times["cli"].append(timed(cli))
            times["arrays"].append(timed(arrays_call))
            times["ray"].append(timed(ray_call))
        ray.shutdown()
    rate = {side: n / float(np.median(t)) for side, t in times.items()}
    simd = subprocess.run([str(CLI), "info"], capture_output=True, text=True).stdout
    isa = next((w for w in ("avx512", "avx2") if w in simd), "see `planar-hold info`")
    print(f"{n} grasps of {contacts} fingertips x {k} edges, {rounds} alternating rounds, "
          f"{os.cpu_count()} cores, instruction set {isa}")
    for side, label in (("cli", "planar-hold gate (Parquet -> Parquet)"),
                        ("arrays", "planar_hold.grasp_quality(points=...)"),
                        ("ray", "planar_hold.ray.grasp_quality (read_parquet)")):
        print(f"{label}: {rate[side]:,.0f} grasps/s ({rate[side] / rate['cli']:.2f}x the CLI; "
              f"rounds {[round(t, 2) for t in times[side]]} s)")


if __name__ == "__main__":
    main()
