"""Ray Data on a local cluster of 2 CPUs over 4 Parquet shards: the same answers as eval."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

if not os.environ.get("PLANAR_HOLD_REQUIRE_RAY"):
    # The Ray extra is optional (`pip install "./python[ray]"`); scripts/test installs it and
    # sets PLANAR_HOLD_REQUIRE_RAY, so that a missing Ray fails there instead of skipping.
    pytest.importorskip("ray")
    pytest.importorskip("pyarrow")
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import ray  # noqa: E402

import planar_hold.ray  # noqa: E402
from conftest import REPO, read_jsonl, run_cli  # noqa: E402


#: Every answer column: a row holds the keys of its JSON answer, the others null.
COLUMNS = ["id"] + planar_hold.ray.ANSWER_SCHEMA.names


def as_rows(answers):
    """eval's JSON answers by id, as rows with every column (null where the answer's kind
    has no such key, as in eval's Parquet answers)."""
    return {a["id"]: {**dict.fromkeys(COLUMNS), **a} for a in answers}


def write_shards(lines, folder, shards=4):
    """The cases as Parquet in eval's input columns: id, generators (list of lists), need
    (null where the line has none)."""
    folder.mkdir()
    size = -(-len(lines) // shards)
    for s in range(shards):
        part = lines[s * size : (s + 1) * size]
        table = pa.table(
            {
                "id": [line.get("id") for line in part],
                "generators": pa.array(
                    [line["generators"] for line in part], pa.list_(pa.list_(pa.float64()))
                ),
                "need": pa.array([line.get("need") for line in part], pa.list_(pa.float64())),
            }
        )
        pq.write_table(table, folder / f"part-{s}.parquet")


@pytest.fixture(scope="module")
def local_cluster():
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False)
    yield
    ray.shutdown()


def test_ray_evaluate_equals_eval(local_cluster, data, tmp_path):
    path = data / "public_sample.jsonl"
    lines = read_jsonl(path)
    # Some lines without a need, to check the null default.
    for line in lines[::7]:
        if line.get("need") == [0.0, 1.0, 0.0]:
            del line["need"]
    expected = run_cli("eval", str(path), "--backend", "cpu")
    write_shards(lines, tmp_path / "in")
    ds = ray.data.read_parquet(str(tmp_path / "in"))
    rows = planar_hold.ray.evaluate(ds, batch_size=37, concurrency=1).take_all()
    assert len(rows) == len(lines)
    assert {r["id"]: r for r in rows} == as_rows(expected)


def test_ray_gpu_backend_equals_eval(local_cluster, data, tmp_path):
    """The GPU backend's actors (each its own Engine("gpu")), here on the software adapter:
    num_gpus=0, as the local cluster has no GPU to hand out; asking for one warns."""
    from conftest import gpu_engine

    gpu_engine()  # skips, or fails under PLANAR_HOLD_REQUIRE_GPU, without an adapter
    path = data / "public_sample.jsonl"
    write_shards(read_jsonl(path), tmp_path / "in")
    ds = ray.data.read_parquet(str(tmp_path / "in"))
    with pytest.warns(UserWarning, match="has none"):
        planar_hold.ray.evaluate(ds, backend="gpu")  # lazy: nothing runs
    rows = planar_hold.ray.evaluate(ds, backend="gpu", num_gpus=0, concurrency=1).take_all()
    expected = run_cli("eval", str(path), "--backend", "gpu")
    assert {r["id"]: r for r in rows} == as_rows(expected)


def test_ray_general_and_mixed_rows_equal_eval(local_cluster, data, tmp_path):
    """The general public cases (3 and 6 numbers, up to 256 generators) mixed with the
    planar sample in the same shards and batches: each row answered as eval answers it."""
    lines = read_jsonl(data / "general_public.jsonl")
    lines += read_jsonl(data / "public_sample.jsonl")[:200]
    lines = [lines[i] for i in np.random.default_rng(5).permutation(len(lines))]
    for line in lines[::5]:  # the default need of each dimension
        if line.get("need") in ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]):
            del line["need"]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    expected = run_cli("eval", str(path), "--backend", "cpu")
    assert {"facet", "binding"} <= {k for a in expected for k in a}  # both kinds present
    write_shards(lines, tmp_path / "in")
    ds = ray.data.read_parquet(str(tmp_path / "in"))
    rows = planar_hold.ray.evaluate(ds, batch_size=53, concurrency=1).take_all()
    assert len(rows) == len(lines)
    assert {r["id"]: r for r in rows} == as_rows(expected)


def test_ray_bad_general_row_is_named(tmp_path):
    """Without a cluster: a batch's bad row is named by its place in the batch."""
    engine = planar_hold.Engine("cpu")
    good = [[0.0, 0.0, 1.0, 0.0, 0.0, 0.0]] * 20
    for gens, message in (
        ([[1.0] * 6] * 257, "row 2: 257 generators, more than 256"),
        ([[1.0] * 6, [1.0] * 3], "row 2: generator 1 has 3 numbers, generator 0 has 6"),
        ([[1.0] * 6] * 3 + [[1.0, float("nan")] + [1.0] * 4], "row 2: generator 3 = [1.0, NaN"),
        ([[1.0] * 5], "row 2: a generator must be 3 or 6 numbers, got 5"),
    ):
        batch = pa.table({"generators": pa.array([good, good[:3], gens, good],
                                                  pa.list_(pa.list_(pa.float64())))})
        with pytest.raises(ValueError) as e:
            planar_hold.ray.answer_rows(engine, batch)
        assert message in str(e.value)
    batch = pa.table({"generators": pa.array([good], pa.list_(pa.list_(pa.float64()))),
                      "need": pa.array([[0.0, 1.0, 0.0]], pa.list_(pa.float64()))})
    with pytest.raises(ValueError, match="row 0: need must be 6 numbers, got 3"):
        planar_hold.ray.answer_rows(engine, batch)


def test_example_script_writes_parquet_answers(data, tmp_path):
    """examples/ray_eval.py: a folder of shards in, a folder of answer shards out."""
    path = data / "public_sample.jsonl"
    lines = read_jsonl(path)
    write_shards(lines, tmp_path / "in")
    script = REPO / "examples" / "ray_eval.py"
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "in"), str(tmp_path / "out"),
         "--num-cpus", "2", "--batch-size", "64", "--concurrency", "1"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = pq.read_table(tmp_path / "out").to_pylist()
    expected = run_cli("eval", str(path), "--backend", "cpu")
    assert {r["id"]: r for r in rows} == as_rows(expected)


def grasp_table(grasps):
    """Grasp rows in Parquet: a grasp line's fields as columns (contacts a list of structs)."""
    fields = ["id", "half_size", "pyramid", "friction", "contacts"]
    return pa.Table.from_pylist([{f: g.get(f) for f in fields} for g in grasps])


def test_ray_grasp_quality_equals_gate(local_cluster, data, tmp_path):
    """The public grasps as Parquet shards through planar_hold.ray.grasp_quality: every
    row the report of `planar-hold gate` on the same line, in the grasp columns."""
    grasps = read_jsonl(data / "grasp_public.jsonl")
    (tmp_path / "in").mkdir()
    for s in range(4):
        pq.write_table(grasp_table(grasps[s::4]), tmp_path / "in" / f"part-{s}.parquet")
    ds = ray.data.read_parquet(str(tmp_path / "in"))
    rows = planar_hold.ray.grasp_quality(ds, batch_size=17, concurrency=1).take_all()
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(g) + "\n" for g in grasps))
    expected = {r["id"]: r for r in run_cli("gate", str(path), "--backend", "cpu")}
    assert len(rows) == len(grasps) == len(expected)
    names = planar_hold.ray.GRASP_SCHEMA.names
    for r in rows:
        want = expected[r["id"]]
        fc = want["force_closure"]
        want = {**dict.fromkeys(names), **{k: v for k, v in want.items() if k in names}}
        want["force_closure"] = fc if isinstance(fc, str) else str(fc).lower()
        assert {k: r[k] for k in names} == want, r["id"]


def test_ray_bad_grasp_row_is_named():
    engine = planar_hold.Engine("cpu")
    grasps = read_jsonl(REPO / "tests" / "data" / "grasp_public.jsonl")[:3]
    grasps[2]["contacts"][0]["normal"] = [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="grasp 2: .*zero"):
        planar_hold.ray.grasp_rows(engine, grasp_table(grasps))


def test_grasp_rows_are_read_column_by_column(data, tmp_path):
    """Grasp rows of other column types (fixed-size normals, float32 mu, an integer
    half_size) answer as the same grasps' lines; a null field is an absent one, named with
    its row and place."""
    grasps = [g for g in read_jsonl(data / "grasp_public.jsonl") if g["category"] != "large"][:30]
    fingertips = [g for g in grasps if all(len(c["points"]) == 1 and not isinstance(c["mu"], list)
                                          for c in g["contacts"])]  # fmt: skip
    assert len(fingertips) >= 10
    contact = pa.struct([
        ("points", pa.list_(pa.list_(pa.float64(), 3))),
        ("normal", pa.list_(pa.float64(), 3)),
        ("mu", pa.float32()),
    ])  # fmt: skip
    for g in fingertips:
        for c in g["contacts"]:
            c["mu"] = float(np.float32(c["mu"]))  # the float32 column's exact value
    table = pa.table({
        "id": [g["id"] for g in fingertips],
        "half_size": pa.array([g["half_size"] for g in fingertips], pa.float32()),
        "pyramid": pa.array([g.get("pyramid") for g in fingertips], pa.int16()),
        "friction": [g.get("friction") for g in fingertips],
        "contacts": pa.array([g["contacts"] for g in fingertips], pa.list_(contact)),
    })  # fmt: skip
    for g in fingertips:
        g["half_size"] = float(np.float32(g["half_size"]))
    engine = planar_hold.Engine("cpu")
    got = planar_hold.ray.grasp_rows(engine, table).to_pylist()
    want = planar_hold.grasp_quality(fingertips, engine=engine).reports
    names = planar_hold.ray.GRASP_SCHEMA.names
    for g, r, w in zip(fingertips, got, want):
        assert r["id"] == g["id"]
        fc = w["force_closure"]
        w = {**dict.fromkeys(names), **{k: v for k, v in w.items() if k in names}}
        w["force_closure"] = fc if isinstance(fc, str) else str(fc).lower()
        assert {k: r[k] for k in names} == w, g["id"]
    # A null normal: the contact has none.
    rows = table.to_pylist()
    rows[1]["contacts"][2]["normal"] = None
    bad = pa.Table.from_pylist(rows, schema=table.schema)
    with pytest.raises(ValueError, match=r"grasp 1: .*contacts\[2\]: missing field `normal`"):
        planar_hold.ray.grasp_rows(engine, bad)


def test_grasp_rows_read_thresholds_and_tolerances(data):
    """Grasp rows with a q1_at_least column (null: none asked) and a tolerance column answer
    as the same grasps' dicts, the threshold's answer in two boolean columns."""
    pyramids = [g for g in read_jsonl(data / "grasp_public.jsonl") if g["category"] != "large"]
    grasps = pyramids[:12] + read_jsonl(data / "grasp_circular_public.jsonl")[:6]
    for i, g in enumerate(grasps):
        if i % 3:
            g["q1_at_least"] = 0.05 if i % 3 == 1 else -1.0
        if g["friction"] == "circular" and i % 2:
            g["tolerance"] = 1e-3
    fields = ["id", "half_size", "pyramid", "friction", "contacts", "q1_at_least", "tolerance"]
    table = pa.Table.from_pylist([{f: g.get(f) for f in fields} for g in grasps])
    engine = planar_hold.Engine("cpu")
    got = planar_hold.ray.grasp_rows(engine, table).to_pylist()
    want = planar_hold.grasp_quality(grasps, engine=engine).reports
    seen = set()
    for g, r, w in zip(grasps, got, want):
        assert (r["q1"], r["q1_lower"]) == (w["q1"], w["q1_lower"]), g["id"]
        v = w.get("q1_at_least")
        seen.add(v)
        expected = (None, None) if v is None else (v if isinstance(v, bool) else None,
                                                   v == "uncertain")  # fmt: skip
        assert (r["q1_at_least"], r["q1_at_least_uncertain"]) == expected, g["id"]
    assert {None, True, False} <= seen


def scene_table(scenes):
    """Scene lines as one Arrow table of their fields, every field of every line a column (a
    line's or a contact's absent fields null: a planar line's ``dim``, a planar contact's
    ``points``, a sticking contact's ``slip``)."""
    return pa.Table.from_struct_array(pa.array(scenes))


def test_ray_gate_of_sliding_scenes_equals_gate(local_cluster, data, tmp_path):
    """The public sliding scenes (planar and spatial, ``slip`` a field of their contacts) as
    Parquet shards through planar_hold.ray.gate: every row the report of `planar-hold gate`
    on the same line. (The lines of an interval μ are left out: a Parquet column has one
    type, a number or a list.)"""
    scenes = [s for s in read_jsonl(data / "sliding_public.jsonl")
              if not any(isinstance(c["mu"], list) for c in s["contacts"])]
    (tmp_path / "in").mkdir()
    for s in range(4):
        pq.write_table(scene_table(scenes[s::4]), tmp_path / "in" / f"part-{s}.parquet")
    ds = ray.data.read_parquet(str(tmp_path / "in"))
    rows = planar_hold.ray.gate(ds, batch_size=19, concurrency=1).take_all()
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in scenes))
    expected = {r["id"]: r for r in run_cli("gate", str(path), "--backend", "cpu")}
    assert len(rows) == len(scenes) == len(expected) > 150
    for r in rows:
        want = expected[r["id"]]
        assert json.loads(r["report"]) == {k: v for k, v in want.items() if k != "id"}, r["id"]
        assert r["held"] == want["held"] and r["robust_margin"] == want["robust_margin"]
        assert r["sliding"] == [s["contact"] for s in want.get("sliding", [])]


def test_ray_gate_without_the_region_equals_gate_no_region(local_cluster, data, tmp_path):
    """``support_region=False`` through Ray: each spatial row's report as
    ``gate --no-region`` writes it, with no ``support_region`` field."""
    scenes = [s for s in read_jsonl(data / "sliding_public.jsonl")
              if s.get("dim") == 3 and not any(isinstance(c["mu"], list) for c in s["contacts"])]
    pq.write_table(scene_table(scenes), tmp_path / "s.parquet")
    ds = ray.data.read_parquet(str(tmp_path / "s.parquet"))
    rows = planar_hold.ray.gate(ds, batch_size=16, concurrency=1, support_region=False).take_all()
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in scenes))
    expected = {r["id"]: r for r in run_cli("gate", str(path), "--backend", "cpu", "--no-region")}
    assert len(rows) == len(scenes) == len(expected) > 10
    for r in rows:
        report = json.loads(r["report"])
        assert not any(k.startswith("support_region") for k in report), r["id"]
        assert report == {k: v for k, v in expected[r["id"]].items() if k != "id"}, r["id"]


def test_ray_bad_scene_row_is_named():
    engine = planar_hold.Engine("cpu")
    scenes = read_jsonl(REPO / "tests" / "data" / "sliding_public.jsonl")[:3]
    scenes[2]["contacts"][0]["slip"] = [0.0, 1.0]
    with pytest.raises(ValueError, match="scene 2: .*tangential"):
        planar_hold.ray.gate_rows(engine, scene_table(scenes))
