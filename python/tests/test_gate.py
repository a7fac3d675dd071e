"""`planar_hold.gate` against `planar-hold gate` on the public scenes."""

from __future__ import annotations

import json

import pytest

import planar_hold
from conftest import read_jsonl, run_cli


def test_gate_equals_cli(engine, data):
    """Scene and edit dicts in, exactly the report dicts the CLI writes out."""
    path = data / "scenes_public.jsonl"
    expected = run_cli("gate", str(path), "--backend", engine.backend)
    scenes = read_jsonl(path)
    assert engine.gate(scenes) == expected
    # The JSON text of each line works the same.
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    assert engine.gate(lines) == expected
    assert any(r["held"] for r in expected) and not all(r["held"] for r in expected)


def _same_types(a, b, at="report"):
    """Whether two JSON-like values are equal and of the same Python types throughout."""
    assert type(a) is type(b), f"{at}: {type(a).__name__} against {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), f"{at}: keys {list(a)} against {list(b)}"
        for k in a:
            _same_types(a[k], b[k], f"{at}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), f"{at}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            _same_types(x, y, f"{at}[{i}]")
    else:
        assert a == b or (a != a and b != b), f"{at}: {a!r} against {b!r}"


@pytest.mark.parametrize(
    "name", ["scenes_public", "scenes3d_public", "grasp_public", "grasp_circular_public",
             "sliding_public"],
)  # fmt: skip
def test_reports_are_what_json_reads_of_the_cli_lines(data, name):
    """The reports are built as Python objects without JSON text: each is what json.loads
    makes of the CLI's line, key order and type for type (lists, not tuples; a float32 as
    its shortest decimal; ints as ints), proofs included."""
    path = data / f"{name}.jsonl"
    expected = run_cli("gate", str(path), "--backend", "cpu", "--proof")
    got = planar_hold.gate(read_jsonl(path), proof=True)
    assert len(got) == len(expected)
    for i, (a, b) in enumerate(zip(got, expected)):
        _same_types(a, b, f"{name} line {i + 1}")


def test_the_collector_rests_while_reports_are_made_and_is_left_as_it_was(data):
    """Reports are thousands of fresh lists and dicts: Python's cyclic collector would walk
    them every 700 (a seventh of the call's time on 500 stances). It is paused while they
    are made, and left on or off as the caller had it."""
    import gc

    lines = (data / "scenes3d_public.jsonl").read_text().splitlines() * 3
    runs = []
    gc.callbacks.append(lambda phase, info: runs.append(phase))
    try:
        assert gc.isenabled()
        gc.collect()  # the count of new objects from 0: none is due before the reports
        runs.clear()
        reports = planar_hold.gate(lines, proof=True)
        during = len(runs)  # before any new list or dict: the next one may start a collection
        assert gc.isenabled()
        assert during == 0, f"{during // 2} collections while reports were made"
        gc.disable()
        try:
            assert planar_hold.gate(lines[:3], proof=True) == reports[:3]
            assert not gc.isenabled()
        finally:
            gc.enable()
        with pytest.raises(ValueError):
            planar_hold.gate(['{"dim": 3}'])
        assert gc.isenabled()
    finally:
        gc.callbacks.pop()
    # Enough objects that the collector would have run: every list and dict in the reports.
    def containers(v):
        if isinstance(v, dict):
            return 1 + sum(containers(x) for x in v.values())
        if isinstance(v, list):
            return 1 + sum(containers(x) for x in v)
        return 0

    assert sum(map(containers, reports)) > 10 * gc.get_threshold()[0]


def test_a_dict_is_read_as_its_json_text(data):
    """Dicts are written as JSON text by the package itself, not by json.dumps: every dict
    must answer (or be refused) exactly as its json.dumps text does — tuples as lists, 4.0 a
    float still (refused where an int is asked), ints beyond 64 bits, numpy floats,
    non-string keys, unicode, NaN (named by its path), a list holding itself."""
    import copy
    import re

    import numpy as np

    scene = read_jsonl(data / "scenes3d_public.jsonl")[0]
    grasp = read_jsonl(data / "grasp_public.jsonl")[0]
    variants = []
    for base in (scene, grasp):
        for key in list(base):
            for value in (None, "x", 1e300, -1, 0, True, [], {}, 2**70, 4.0, np.float64(0.05),
                          [1, 2], (1, 2), "é\u2603\"\\"):
                d = copy.deepcopy(base)
                d[key] = value
                variants.append(d)
        d = copy.deepcopy(base)
        d["contacts"] = tuple(
            {**c, "points": [tuple(p) for p in c["points"]]} for c in d["contacts"])
        variants.append(d)
        d = copy.deepcopy(base)
        d["contacts"][0]["mu"] = np.float64(d["contacts"][0]["mu"])
        variants.append(d)
        d = copy.deepcopy(base)
        d[1] = 2
        variants.append(d)
    def answer(x):
        try:
            return planar_hold.gate([x], proof=True)
        except ValueError as e:
            return re.sub(r" at column \d+", "", str(e))

    answered = 0
    for d in variants:
        got = answer(d)
        assert got == answer(json.dumps(d)), d
        answered += not isinstance(got, str)
    assert answered >= 20
    # What json.dumps refuses is refused as before: NaN by its path, a list holding itself.
    d = copy.deepcopy(scene)
    d["contacts"][1]["points"][0][2] = float("nan")
    with pytest.raises(ValueError, match=r"contacts\[1\]\.points\[0\]\[2\] = NaN"):
        planar_hold.gate([d])
    d = copy.deepcopy(scene)
    d["extra"] = []
    d["extra"].append(d["extra"])
    with pytest.raises(ValueError, match="scene 0: not a JSON object: ValueError: Circular reference"):
        planar_hold.gate([d])


def test_numpy_numbers_in_a_dict_are_read_as_their_values(data):
    """A dict built from numpy arrays (a row for a point, np.float32 and np.int64 scalars) is
    read as the same dict of Python numbers (numpy's `tolist()`): json.dumps refused them
    ("Object of type float32 is not JSON serializable"). A numpy NaN is named by its path."""
    import copy

    import numpy as np

    lines = read_jsonl(data / "grasp_public.jsonl")[:20]
    lines += read_jsonl(data / "scenes3d_public.jsonl")[:20]
    for line in lines:
        line = copy.deepcopy(line)
        d = copy.deepcopy(line)
        d["half_size"] = np.float64(d["half_size"])
        if "pyramid" in d:
            d["pyramid"] = np.int64(d["pyramid"])
        for c, plain in zip(d["contacts"], line["contacts"]):
            c["points"] = np.array(c["points"], dtype=np.float64)
            c["normal"] = np.array(c["normal"], dtype=np.float64)
            if isinstance(c["mu"], list):
                c["mu"] = np.array(c["mu"])
            else:
                # A float32 μ is its float32 value.
                c["mu"] = np.float32(c["mu"])
                plain["mu"] = float(c["mu"])
        assert planar_hold.gate([d]) == planar_hold.gate([line]), line["id"]
    d["contacts"][0]["normal"][1] = np.nan
    with pytest.raises(ValueError, match=r"contacts\[0\]\.normal\[1\] = NaN"):
        planar_hold.gate([d])


@pytest.mark.parametrize("name", ["scenes_public", "scenes3d_public", "sliding_public"])
def test_gate_columns_are_the_reports_and_their_cli_text(data, name):
    """``Engine.gate_columns`` (planar_hold.ray's scene rows): each column the report's
    field, and each ``report`` the CLI's own line for it, less its ``id``, byte for byte."""
    import subprocess

    from conftest import cli_path

    path = data / f"{name}.jsonl"
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    engine = planar_hold.Engine("cpu")
    cols = engine.gate_columns(lines)
    reports = engine.gate(lines)
    out = subprocess.run([str(cli_path()), "gate", str(path), "--backend", "cpu"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(cols["report"]) == len(reports) == len(out) == len(lines)
    for i, (r, text, line) in enumerate(zip(reports, cols["report"], out)):
        prefix = '{"id":' + json.dumps(r["id"], separators=(",", ":")) + ","
        assert line.startswith(prefix), line[:80]
        assert text == "{" + line[len(prefix):], f"{name} line {i + 1}"
        assert cols["held"][i] is r["held"] and cols["uncertain"][i] is r["uncertain"]
        assert cols["robust_margin"][i] == r["robust_margin"]
        assert cols["n_generators"][i] == r["n_generators"]
        assert cols["sliding"][i] == [s["contact"] for s in r.get("sliding", [])]
        assert cols["reason"][i] == r.get("reason")
    bare = engine.gate_columns(lines[:3], support_region=False)["report"]
    assert [json.loads(t) for t in bare] == [
        {k: v for k, v in r.items() if k != "id"}
        for r in engine.gate(lines[:3], support_region=False)
    ]


def test_gate_module_function_and_generator_input(data):
    scenes = read_jsonl(data / "scenes_public.jsonl")
    assert planar_hold.gate(iter(scenes[:5])) == planar_hold.Engine("cpu").gate(scenes[:5])
    assert planar_hold.gate([]) == []
    with pytest.raises(TypeError, match="not one scene"):
        planar_hold.gate(scenes[0])


def test_bad_scene_is_named_with_the_cli_reason(data):
    """Each invalid public scene raises ValueError naming its index and the CLI's reason."""
    path = data / "scenes_public_invalid.jsonl"
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    answers = run_cli_allowing_errors(path)
    good = read_jsonl(data / "scenes_public.jsonl")[0]
    checked = 0
    for text, answer in zip(lines, answers):
        if "error" not in answer:
            continue
        with pytest.raises(ValueError) as e:
            planar_hold.gate([good, text])
        reason = answer["error"].removeprefix("invalid input: ")
        assert f"scene 1: {reason}" in str(e.value)
        checked += 1
    assert checked >= 1
    with pytest.raises(ValueError, match="scene 0: not a JSON object"):
        planar_hold.gate([{"id": "x", "half_size": float("nan")}])


def run_cli_allowing_errors(path):
    """`planar-hold gate` on a file with bad lines: it answers them with "error" and fails."""
    import subprocess

    from conftest import cli_path

    done = subprocess.run([str(cli_path()), "gate", str(path), "--backend", "cpu"],
                          capture_output=True, text=True)
    assert done.returncode != 0
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
