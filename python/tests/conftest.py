"""Shared by the Python tests: the repository's public data, the CLI, engines on every backend."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List

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
