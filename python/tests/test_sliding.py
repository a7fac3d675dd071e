"""Sliding contacts (``"slip"``, docs/contract-scenes.md) from Python: the public sliding set
through ``gate`` on scene dicts on every backend, the CLI's answers exactly, every answer
graded with the slips (``grading.py``), the invalid lines refused with the contract's reasons,
and the pushed box of the worked reference."""

from __future__ import annotations

import json
import math

import pytest

import planar_hold
from conftest import read_jsonl, run_cli
from grading import grade_planar_sliding, grade_scene3


def test_public_sliding_set_is_graded_with_the_slips(engine, data):
    lines = read_jsonl(data / "sliding_public.jsonl")
    expected = read_jsonl(data / "sliding_public.expected.jsonl")
    reports = engine.gate(lines)
    assert reports == run_cli("gate", str(data / "sliding_public.jsonl"), "--backend", engine.backend)
    failures = []
    for line, exp, got in zip(lines, expected, reports):
        grade = grade_scene3 if exp["kind"] == "spatial" else grade_planar_sliding
        failures += [f"{line['id']}: {why}" for why in grade(line, exp, got)]
        sliding = [k for k, c in enumerate(line["contacts"]) if c.get("slip") is not None]
        assert [s["contact"] for s in got.get("sliding", [])] == sliding
    assert not failures, "\n".join(failures[:20])


def test_invalid_sliding_lines_are_refused_with_their_reason(data):
    good = read_jsonl(data / "sliding_public.jsonl")[0]
    path = data / "sliding_public_invalid.jsonl"
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    expected = read_jsonl(data / "sliding_public_invalid.expected.jsonl")
    for text, exp in zip(lines, expected):
        with pytest.raises(ValueError) as e:
            planar_hold.gate([good, text])
        message = str(e.value)
        assert "scene 1: " in message, message
        assert any(k in message.lower() for k in exp["keywords"]), (exp["sub"], message)
        assert "unknown field" not in message


def pushed_box(h: float) -> dict:
    return {"id": f"push {h}", "half_size": 1.0, "contacts": [
        {"pair": 0, "p0": [-1.0, -1.0], "p1": [1.0, -1.0], "normal": [0.0, 1.0], "mu": 0.3,
         "slip": [1.0, 0.0]},
        {"pair": 1, "p0": [-1.0, h], "p1": [-1.0, h], "normal": [1.0, 0.0], "mu": 0.5}]}


def test_the_pushed_box_holds_between_minus_29_6_and_17_6():
    lo, hi = -29 / 6, 17 / 6
    heights = [lo - 1e-3, lo + 1e-3, 0.0, hi - 1e-3, hi + 1e-3]
    reports = planar_hold.gate([pushed_box(h) for h in heights])
    assert [r["held"] for r in reports] == [False, True, True, True, False]
    assert not any(r["uncertain"] for r in reports)
    assert math.isclose(reports[2]["robust_margin"], 0.3 / math.sqrt(1.09), rel_tol=1e-6)
    assert reports[2]["sliding"] == [{"contact": 0, "pair": 0, "slip": [1.0, 0.0],
                                      "direction": [1.0, 0.0], "ray": [-0.3, 1.0]}]
    assert "contact 0 (pair 0) slides along" in reports[-1]["reason"]


def test_a_grasp_row_with_a_slip_is_refused_from_parquet(data, tmp_path):
    """`planar-hold gate` reads grasps from Parquet rows: a row whose contact carries a slip is
    refused by its row number as the contract says (a grasp's contacts stick), the rest
    answered."""
    import subprocess

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from conftest import cli_path

    grasps = [g for g in read_jsonl(data / "grasp_public.jsonl")
              if not any(isinstance(c["mu"], list) for c in g["contacts"])][:3]
    grasps[1]["contacts"][0]["slip"] = [1.0, 0.0, 0.0]
    pq.write_table(pa.Table.from_struct_array(pa.array(grasps)), tmp_path / "g.parquet")
    done = subprocess.run([str(cli_path()), "gate", str(tmp_path / "g.parquet"), "--backend", "cpu"],
                          capture_output=True, text=True)
    assert done.returncode == 5, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert [a.get("line") for a in answers] == [None, 2, None]
    assert "slip on a grasp line" in answers[1]["error"], answers[1]
    assert "q1" in answers[0] and "q1" in answers[2]
