"""The numpy API against `planar-hold eval` on the public sample, on both backends."""

from __future__ import annotations


import numpy as np
import pytest

import planar_hold
from conftest import assert_other_threads_run, read_jsonl, run_cli


def padded(lines):
    """JSON Lines cases as (generators (N, 16, 3) float64, active (N, 16), need (N, 3))."""
    n = len(lines)
    gens = np.zeros((n, 16, 3))
    active = np.zeros((n, 16), dtype=bool)
    need = np.tile([0.0, 1.0, 0.0], (n, 1))
    for i, line in enumerate(lines):
        g = line["generators"]
        gens[i, : len(g)] = np.reshape(g, (-1, 3))
        active[i, : len(g)] = True
        if "need" in line:
            need[i] = line["need"]
    return gens, active, need


@pytest.fixture(scope="module")
def sample(data):
    path = data / "public_sample.jsonl"
    return path, read_jsonl(path)


def test_cone_test_agrees_with_eval(engine, sample):
    """Verdicts, witness subsets and margins equal the CLI's on the same backend, case by case."""
    path, lines = sample
    expected = run_cli("eval", str(path), "--backend", engine.backend)
    gens, active, need = padded(lines)
    out = engine.cone_test(gens, active, need)
    assert len(out) == len(lines) == len(expected)
    for i, want in enumerate(expected):
        assert planar_hold.VERDICTS[out.verdict[i]] == want["verdict"], i
        # eval prints the float32 margin in its shortest form: the same float32.
        assert out.margin[i] == np.float32(want["margin"]), i
        assert bool(out.capped[i]) == want["capped"], i
        assert (-1 if want["binding"] is None else want["binding"]) == out.binding[i], i
        if want["witness"] is None:
            assert out.witness_len[i] == 0, i
        else:
            n = out.witness_len[i]
            assert out.witness_index[i, :n].tolist() == want["witness"]["generators"], i
            # eval re-solves the weights in float64 on the subset; the kernel's are float32.
            np.testing.assert_allclose(
                out.witness_weight[i, :n], want["witness"]["weights"], rtol=1e-5, atol=1e-6
            )
            assert (out.witness_weight[i, :n] >= 0).all()
        if want["certificate"] is None:
            assert not out.certificate[i].any(), i
        else:
            assert out.certificate[i].tolist() == [np.float32(v) for v in want["certificate"]]
    # Both proofs occur in the sample, so the comparison above means something.
    assert {planar_hold.SUPPORTED, planar_hold.UNSUPPORTED} <= set(out.verdict.tolist())


def test_answers_equal_eval_output(engine, sample):
    """`answers` gives exactly the dicts eval writes (ids, polished weights, candidates)."""
    path, lines = sample
    expected = run_cli("eval", str(path), "--backend", engine.backend)
    gens, active, need = padded(lines)
    got = engine.answers(gens, active, need, ids=[line.get("id") for line in lines])
    assert got == expected


def test_gpu_agrees_with_cpu_within_tolerance(sample):
    """The GPU's answers against the CPU's: docs/contract-planar.md §7's tolerance (Outcome::disagreement)."""
    from conftest import gpu_engine

    gens, active, need = padded(sample[1])
    a = planar_hold.Engine("cpu").cone_test(gens, active, need)
    b = gpu_engine().cone_test(gens, active, need)
    differ = (a.verdict != b.verdict) & (a.verdict != 2) & (b.verdict != 2)
    assert not differ.any()
    scale = np.maximum(1, np.maximum(abs(a.margin), abs(b.margin)))
    assert (abs(a.margin - b.margin) <= 2e-5 * scale).all()


def test_float32_float64_ragged_and_strided_inputs_agree(sample):
    """float32 and float64 give the float32 cases eval reads; unused slots may hold anything;
    a strided view is read in place."""
    gens, active, need = padded(sample[1])
    ref = planar_hold.cone_test(gens, active, need)
    f32 = planar_hold.cone_test(gens.astype(np.float32), active, need.astype(np.float32))
    junk = np.where(active[..., None], gens, np.nan)  # inactive slots NaN
    strided = np.zeros((len(gens), 16, 6))
    strided[..., ::2] = gens
    strided = strided[..., ::2]  # (N, 16, 3), not contiguous
    assert not strided.flags.c_contiguous
    for other in (
        f32,
        planar_hold.cone_test(junk, active, need),
        planar_hold.cone_test(strided, active, need),
    ):
        for name in ("verdict", "witness_len", "witness_index", "witness_weight", "margin"):
            np.testing.assert_array_equal(getattr(other, name), getattr(ref, name), name)
    # Fewer than 16 rows, and `counts` for `active`: the same cases, read another way.
    counts = active.sum(axis=1)
    short = np.flatnonzero(counts <= 10)
    assert 0 < len(short) < len(gens)
    for other, rows in (
        (planar_hold.cone_test(gens[short, :10], active[short, :10], need[short]), short),
        (planar_hold.cone_test(junk, need=need, counts=counts), slice(None)),
    ):
        for name in ("verdict", "witness_len", "witness_index", "witness_weight", "certificate"):
            np.testing.assert_array_equal(getattr(other, name), getattr(ref, name)[rows], name)


def test_need_shapes_and_defaults():
    """need (3,), (N, 3) and None (0, 1, 0); active None is all K active; lists accepted."""
    box = [[0.2, 1, 0.8], [-0.2, 1, 1.2], [0.2, 1, -1.2], [-0.2, 1, -0.8]]
    gens = np.array([box, box])
    for need in (None, [0, 1, 0], np.array([[0, 1, 0], [0, 1, 0]], dtype=np.float32)):
        out = planar_hold.cone_test(gens, need=need)
        assert out.verdict.tolist() == [planar_hold.SUPPORTED] * 2
        np.testing.assert_allclose(out.margin, 0.2 / np.sqrt(1.04), rtol=1e-6)
        assert out.witness_index[:, :2].tolist() == [[0, 3], [0, 3]]
        np.testing.assert_allclose(out.witness_weight[:, :2], 0.5, rtol=1e-6)
    # Pulled down instead of held up: unsupported, with a certificate y, y·need < 0.
    out = planar_hold.cone_test([box], need=[0, -1, 0])
    assert out.verdict[0] == planar_hold.UNSUPPORTED
    assert out.certificate[0] @ np.array([0, -1, 0]) < 0
    # No case at all, and no generator at all.
    assert len(planar_hold.cone_test(np.zeros((0, 4, 3)))) == 0
    assert planar_hold.cone_test(np.zeros((1, 0, 3))).verdict[0] == planar_hold.UNSUPPORTED


@pytest.mark.parametrize(
    "kwargs, message",
    [
        # (3, 17, 3) is a general case now (test_general.py); past 256 it is refused there.
        (dict(generators=np.ones((3, 257, 3))), "case 0: 257 generators, more than 256"),
        (dict(generators=np.ones((3, 4, 2))), "shape (N, K, 3)"),
        (dict(generators=np.ones((3, 4))), "shape (N, K, 3)"),
        (dict(generators=np.ones((3, 4, 3)), active=np.ones((3, 5), bool)), "active must"),
        (dict(generators=np.ones((3, 4, 3)), need=np.ones((2, 3))), "need must"),
        (dict(generators=np.ones((3, 4, 3)), need=[0, np.inf, 0]), "need = [0.0, inf, 0.0]"),
        # A need of 1e39 is no error: float32 does not hold it, so the general engine answers
        # (test_general.py).
    ],
)
def test_bad_input_raises_value_error(kwargs, message):
    with pytest.raises(ValueError) as e:
        planar_hold.cone_test(**kwargs)
    assert message in str(e.value)


def test_bad_case_is_named_by_index():
    gens = np.ones((1000, 4, 3))
    gens[700, 2, 1] = np.nan
    gens[900, 0, 0] = np.inf
    with pytest.raises(ValueError, match=r"case 700: generator 2 = \[1.0, NaN, 1.0\]"):
        planar_hold.cone_test(gens)
    need = np.tile([0.0, 1.0, 0.0], (1000, 1))
    need[5, 2] = np.nan
    with pytest.raises(ValueError, match=r"case 5: need = \[0.0, 1.0, NaN\]"):
        planar_hold.cone_test(np.ones((1000, 4, 3)), need=need)
    with pytest.raises(ValueError, match="2 ids for 1000 cases"):
        planar_hold.answers(np.ones((1000, 4, 3)), ids=["a", "b"])
    with pytest.raises(ValueError, match='backend must be "cpu" or "gpu"'):
        planar_hold.Engine("tpu")


def test_first_bad_case_is_named_past_the_first_block(engine):
    # The CPU converts and evaluates in blocks of 1,024 cases on every core: the error is
    # still the first bad case's, whichever thread met which.
    big = np.ones((8192, 4, 3), dtype=np.float32)
    big[7000, 1, 2] = np.inf
    big[5000, 3, 0] = np.nan
    with pytest.raises(ValueError, match=r"case 5000: generator 3 = \[NaN, 1.0, 1.0\]"):
        engine.cone_test(big)


def test_no_adapter_says_how_to_get_one(tmp_path):
    """Without any GPU adapter (no backend allowed but one this machine lacks): GpuError
    with the CLI's advice on a software adapter."""
    import subprocess
    import sys

    code = (
        "import planar_hold\n"
        "try:\n    planar_hold.Engine('gpu')\n"
        "except planar_hold.GpuError as e:\n    print('GpuError:', e)\n"
    )
    env = dict(__import__("os").environ, WGPU_BACKEND="metal")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "GpuError: no GPU adapter found" in done.stdout
    assert "mesa-vulkan-drivers" in done.stdout


def test_gil_released_while_the_engine_runs():
    """Another Python thread runs while a large batch is evaluated."""
    rng = np.random.default_rng(1)

    def batch(n):
        gens = rng.normal(size=(n, 8, 3))
        return lambda: planar_hold.cone_test(gens)

    assert_other_threads_run(batch, 200_000)


def test_version_is_the_wheels():
    """``planar_hold.__version__`` is the installed distribution's version (one source:
    python/Cargo.toml, which maturin writes into the wheel's metadata)."""
    from importlib.metadata import version

    assert planar_hold.__version__ == version("planar-hold")
    assert planar_hold.__version__.count(".") == 2
