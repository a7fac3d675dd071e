#!/usr/bin/env python3
"""A grasp data set through `planar-hold gate`, measured as a user would run it.

Writes N random fingertip grasps of a sphere (examples/grasp_dataset.rs: C contacts, k pyramid
edges, "inner"; Parquet, or JSON Lines for a .jsonl name), runs

    planar-hold gate IN --backend cpu -o OUT

once, and prints: rows answered a second (wall), the CPU it used (user + system over the
wall: 100 % a core), its peak resident size, and the cores it asked for: every thread's time
on a core plus its time waiting for one (Linux /proc/PID/task/*/schedstat, sampled), over the
wall. A pipeline that always has work ready for every core asks for at least as many cores as
it has workers, whatever else runs on the machine; the CPU it gets is then the machine's to
give. Last, `bench --grasps IN`: the stages around the engine per core and the pipeline's own
ceiling. Only the standard library (pyarrow, where installed, counts the answers' rows).

With `--q1-at-least T` the run asks every grasp whether q1 >= T (the search stops once its
bracket decides). With `--qhull M` (numpy, SciPy and pyarrow needed), the same run then times
the qhull loop users run today on the file's first M grasps, one at a time on one core
(numpy wrenches, `scipy.spatial.ConvexHull`, q1 the least facet offset where the origin is
inside: scripts/grasp_peers.py's peer), and prints `gate`'s rate over the loop's.

    scripts/gate_dataset.py [N] [IN] [OUT] [CONTACTS] [K] [FRICTION] [--q1-at-least T] [--qhull M]
    (default: 1000000 /tmp/planar-hold-grasps/grasps.parquet .../answers.parquet 4 8 inner;
    FRICTION "circular" answers on the true cones, the qhull loop still on k-edge pyramids)
"""

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "target" / "release" / "planar-hold"


def threads(pid):
    """{tid: (name, seconds on a core, seconds waiting for one)} of a running process."""
    out = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            name = (task / "comm").read_text().strip()
            on, waiting, _ = (task / "schedstat").read_text().split()
        except (OSError, ValueError):
            continue  # the thread ended meanwhile
        out[task.name] = (name, int(on) * 1e-9, int(waiting) * 1e-9)
    return out


def qhull_rate(src, m):
    """Grasps a second of the qhull loop on the first `m` grasps of `src`, one core, the
    wrenches built inside the clock as the user's loop builds them."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.path.insert(0, str(REPO / "scripts"))
    import peerlib  # noqa: F401 (one BLAS thread)
    import pyarrow.parquet as pq
    from grasp_peers import qhull_q1

    table = pq.read_table(src).slice(0, m)
    ell = table.column("half_size").to_pylist() if "half_size" in table.column_names else None
    lines = []
    for i, contacts in enumerate(table.column("contacts").to_pylist()):
        line = {"half_size": ell[i] if ell else 1.0, "pyramid": 8, "contacts": contacts}
        if "pyramid" in table.column_names:
            line["pyramid"] = table.column("pyramid")[i].as_py()
        lines.append(line)
    start = time.perf_counter()
    for line in lines:
        try:
            qhull_q1(peerlib.generators(line))
        except Exception:  # qhull's QhullError, ValueError on flat sets: the loop goes on
            pass
    return len(lines) / (time.perf_counter() - start)


def main():
    args = sys.argv[1:]
    options = {}
    for flag in ("--q1-at-least", "--qhull"):
        if flag in args:
            at = args.index(flag)
            options[flag] = args[at + 1]
            del args[at : at + 2]
    n = int(args[0]) if args else 1_000_000
    default = Path("/tmp/planar-hold-grasps")
    src = Path(args[1]) if len(args) > 1 else default / "grasps.parquet"
    out = Path(args[2]) if len(args) > 2 else default / "answers.parquet"
    contacts = args[3] if len(args) > 3 else "4"
    k = args[4] if len(args) > 4 else "8"
    friction = args[5] if len(args) > 5 else "inner"
    src.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "grasp_dataset"],
                   cwd=REPO, check=True)  # fmt: skip
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO, check=True)
    subprocess.run(
        [str(REPO / "target/release/examples/grasp_dataset"), str(n), str(src), contacts, k,
         friction],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip

    seen = {}
    start = time.perf_counter()
    threshold = ["--q1-at-least", options["--q1-at-least"]] if "--q1-at-least" in options else []
    gate = subprocess.Popen(
        [str(CLI), "gate", str(src), "--backend", "cpu", "-o", str(out), *threshold]
    )
    while True:
        seen.update(threads(gate.pid))
        pid, status, usage = os.wait4(gate.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.2)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"gate ended with status {code}")

    cores = os.cpu_count()
    cpu = usage.ru_utime + usage.ru_stime
    peak = usage.ru_maxrss * 1024 / 2**20  # KiB on Linux
    on = sum(t[1] for t in seen.values())
    asked = sum(t[1] + t[2] for t in seen.values())
    rows = n
    try:
        import pyarrow.parquet as pq

        if out.suffix == ".parquet":
            rows = pq.read_metadata(out).num_rows
    except ImportError:
        pass
    isa = "avx512f" if "avx512f" in Path("/proc/cpuinfo").read_text() else "avx2 or less"
    load = os.getloadavg()[0]
    asked_t = f", q1 >= {options['--q1-at-least']} asked" if threshold else ""
    print(f"gate {src.name} -> {out.name}: {n:,} grasps of {contacts} fingertips x {k} edges, {friction}"
          f"{asked_t}, {cores} cores, instruction set {isa}, load average {load:.1f} at the end")  # fmt: skip
    print(f"  {rows:,} rows answered in {wall:.1f} s: {n / wall:,.0f} grasps/s; "
          f"CPU {100 * cpu / wall:.0f} % of {100 * cores} % ({cpu:.1f} s, "
          f"{1e6 * cpu / n:.1f} µs a grasp); peak resident {peak:.0f} MiB")  # fmt: skip
    print(f"  cores asked for (on one or waiting for one): {asked / wall:.2f}; "
          f"on one: {on / wall:.2f}; threads seen: "
          + ", ".join(sorted({t[0] for t in seen.values()})))  # fmt: skip
    subprocess.run([str(CLI), "bench", "--grasps", str(src)], check=True)
    if "--qhull" in options:
        m = int(options["--qhull"])
        loop = qhull_rate(src, m)
        print(f"  the qhull loop on the first {m:,} grasps, one core: {loop:,.0f} grasps/s "
              f"({1e3 / loop:.2f} ms a grasp); gate's rate over it: {n / wall / loop:,.0f}x, "
              f"per core {n / wall / loop / cores:,.0f}x")  # fmt: skip


if __name__ == "__main__":
    main()
