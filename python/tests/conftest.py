"""Shared by the Python tests: the repository's public data, the CLI, engines on every backend."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, List

import pytest

import planar_hold

REPO = Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    """The public cases and their expected answers, in the repository: ``tests/data/``."""
    d = REPO / "tests" / "data"
    assert d.is_dir(), f"{d} is missing from the repository"
    return d


def cli_path() -> Path:
    """The release CLI (``cargo test --release`` builds it first in ``scripts/test``)."""
    if "PLANAR_HOLD_CLI" in os.environ:
        return Path(os.environ["PLANAR_HOLD_CLI"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    exe = target / "release" / "planar-hold"
    assert exe.is_file(), f"{exe} not built: run `cargo build --release` (or set PLANAR_HOLD_CLI)"
    return exe


def run_cli(*args: str) -> List[dict]:
    """The JSON Lines the CLI writes for ``args``, parsed."""
    done = subprocess.run([str(cli_path()), *args], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def assert_other_threads_run(batch: Callable[[int], Callable[[], object]], n: int) -> None:
    """A batch runs on a worker thread while this one keeps ticking: the engine let go of the
    GIL. ``batch(n)`` prepares ``n`` cases and returns the call that evaluates them. The batch
    grows until one call takes a tenth of a second on its own, so that a faster machine or
    engine still leaves enough time to tell.
    """
    least, most = 0.1, 1 << 24
    while True:
        call = batch(n)
        start = time.perf_counter()
        call()
        took = time.perf_counter() - start
        if took >= least or n >= most:
            break
        n = min(most, int(n * max(2.0, 1.5 * least / max(took, 1e-4))))
    done = threading.Event()
    ticks = []
    worker = threading.Thread(target=lambda: (call(), done.set()))
    worker.start()
    start = time.perf_counter()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    elapsed = time.perf_counter() - start
    assert elapsed > 0.02, f"{n} cases took {elapsed:.3f} s: too few to tell"
    # Released, this thread ticks about once a millisecond; held, once a switch interval
    # (5 ms) at most.
    assert len(ticks) > 0.3e3 * elapsed, (n, len(ticks), elapsed)


def read_jsonl(path: Path) -> List[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def data() -> Path:
    """``tests/data/``: the public cases and their expected answers."""
    return data_dir()


def gpu_engine() -> planar_hold.Engine:
    """The GPU engine; without an adapter the test skips, unless ``PLANAR_HOLD_REQUIRE_GPU``
    is set (as in CI), where it fails."""
    try:
        return planar_hold.Engine("gpu")
    except planar_hold.GpuError as e:
        if os.environ.get("PLANAR_HOLD_REQUIRE_GPU"):
            pytest.fail(f"PLANAR_HOLD_REQUIRE_GPU is set but the GPU engine failed: {e}")
        pytest.skip(f"no GPU adapter ({e}); set PLANAR_HOLD_REQUIRE_GPU to fail instead")


@pytest.fixture(scope="session", params=["cpu", "gpu"])
def engine(request) -> planar_hold.Engine:
    """An engine of each backend, made once per session."""
    return planar_hold.Engine("cpu") if request.param == "cpu" else gpu_engine()
