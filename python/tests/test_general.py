"""The general engine through the numpy API (docs/contract-general.md): the public general
cases graded by the project's rules (grading.py), agreement with `planar-hold eval`, invariants
(scale, permutation, padding, masks, dtypes) and bad input."""

from __future__ import annotations


import numpy as np
import pytest

import planar_hold
import planar_hold.ray  # DEFAULT_NEED
from conftest import assert_other_threads_run, cli_path, data_dir, read_jsonl, run_cli
from grading import grade_general


def dim_of(line):
    g = line["generators"]
    return len(g[0]) if g else len(line.get("need", (0, 1, 0)))


def padded(lines, d):
    """Cases of dimension d as (generators (N, K, d) with NaN past each count, counts, need)."""
    k = max([len(line["generators"]) for line in lines] + [0])
    gens = np.full((len(lines), k, d), np.nan)
    counts = np.array([len(line["generators"]) for line in lines])
    need = np.array([line.get("need", planar_hold.ray.DEFAULT_NEED[d]) for line in lines], float)
    for i, line in enumerate(lines):
        if line["generators"]:
            gens[i, : counts[i]] = line["generators"]
    return gens, counts, need


def result_dicts(out, ids):
    """GeneralOutcomes as the grader's result dicts (eval's answer form)."""
    rows = []
    for i, id_ in enumerate(ids):
        n = int(out.witness_len[i])
        v = planar_hold.VERDICTS[out.verdict[i]]
        rows.append(
            {
                "id": id_,
                "verdict": v,
                "margin": float(out.margin[i]),
                "capped": bool(out.capped[i]),
                "witness": {
                    "generators": out.witness_index[i, :n].tolist(),
                    "weights": out.witness_weight[i, :n].tolist(),
                }
                if v == "supported"
                else None,
                "certificate": out.certificate[i].tolist() if v == "unsupported" else None,
                "facet": {
                    "normal": out.facet_normal[i].tolist(),
                    "generators": np.flatnonzero(out.facet_mask[i]).tolist(),
                }
                if out.has_facet[i]
                else None,
                "margin_checked": bool(out.margin_checked[i]),
                "margin_lower": float(out.margin_lower[i]),
            }
        )
    return rows


@pytest.fixture(scope="module")
def public():
    cases = read_jsonl(data_dir() / "general_public.jsonl")
    expected = {e["id"]: e for e in read_jsonl(data_dir() / "general_public.expected.jsonl")}
    return cases, expected


def by_dim(cases):
    return {d: [c for c in cases if dim_of(c) == d] for d in (3, 6)}


def test_public_cases_pass_the_grader(public):
    """Every public case (K = 0 to 256, R^3 and R^6, degenerate ones included) through
    cone_test and answers, graded by grading.grade_general: no failure."""
    cases, expected = public
    failures, graded = [], 0
    for d, lines in by_dim(cases).items():
        gens, counts, need = padded(lines, d)
        out = planar_hold.cone_test(gens, need=need, counts=counts)
        assert isinstance(out, planar_hold.GeneralOutcomes) and out.dim == d
        ids = [c["id"] for c in lines]
        via_answers = planar_hold.answers(gens, need=need, counts=counts, ids=ids)
        for kind, results in (("cone_test", result_dicts(out, ids)), ("answers", via_answers)):
            for c, r in zip(lines, results):
                graded += 1
                for why in grade_general(c, expected[c["id"]], r):
                    failures.append(f"{kind} {c['id']}: {why}")
    assert graded == 2 * len(cases)
    assert not failures, "\n".join(failures[:20])


def test_answers_and_arrays_equal_eval(public, tmp_path):
    """On the lines eval sends to the general engine: answers() gives eval's dicts exactly,
    and the arrays hold the same numbers."""
    if not cli_path().is_file():
        pytest.skip(f"{cli_path()} not built (scripts/test builds it first)")
    cases, _ = public
    general = [c for c in cases if dim_of(c) == 6 or len(c["generators"]) > 16]
    path = tmp_path / "general.jsonl"
    path.write_text("".join(__import__("json").dumps(c) + "\n" for c in general))
    want = {a["id"]: a for a in run_cli("eval", str(path), "--backend", "cpu")}
    assert len(want) == len(general)
    compared = set()
    for d, lines in by_dim(general).items():
        gens, counts, need = padded(lines, d)
        ids = [c["id"] for c in lines]
        got = planar_hold.answers(gens, need=need, counts=counts, ids=ids)
        assert got == [want[i] for i in ids]
        arrays = result_dicts(planar_hold.cone_test(gens, need=need, counts=counts), ids)
        assert arrays == [want[i] for i in ids]
        compared |= set(ids)
    assert compared == set(want)
    verdicts = {a["verdict"] for a in want.values()}
    assert {"supported", "unsupported"} <= verdicts


def random_cases(rng, n, k, d, inside=True):
    """Random pointed cones around +z (d = 3: the second axis), needs in and out."""
    gens = rng.normal(size=(n, k, d))
    up = 2 if d == 6 else 1
    gens[:, :, up] = np.abs(gens[:, :, up]) + 0.5
    need = rng.normal(size=(n, d)) * 0.5
    need[:, up] = 1.0 if inside else 0.0
    need[1::2, up] = -1.0  # every other one outside
    return gens, need


def assert_same_answers(a, b, scale=1.0, perm=None):
    """b is a's case scaled by `scale` (margins scale) or with rows permuted (perm[j] = the
    row of a that b's row j holds)."""
    np.testing.assert_array_equal(a.verdict, b.verdict)
    np.testing.assert_array_equal(a.capped, b.capped)
    # A margin above the cap is reported as the cap (not capped: the cone is not R^d).
    want = np.minimum(a.margin * scale, planar_hold.MARGIN_CAP)
    tol = 1e-8 * np.maximum(1, np.abs(a.margin)) * scale
    assert (np.abs(want - b.margin) <= tol).all(), np.abs(want - b.margin).max()
    np.testing.assert_array_equal(a.has_facet, b.has_facet)
    np.testing.assert_allclose(a.facet_normal, b.facet_normal, atol=1e-7)
    k = a.facet_mask.shape[1]  # b may have more rows (padding): none of them on a facet
    assert not b.facet_mask[:, k:].any()
    mask_b = b.facet_mask[:, :k] if perm is None else b.facet_mask[:, np.argsort(perm)]
    np.testing.assert_array_equal(a.facet_mask, mask_b)


@pytest.mark.parametrize("d, k", [(3, 32), (6, 12), (6, 40)])
def test_scaling_and_permuting_change_nothing_but_units_and_indices(d, k):
    rng = np.random.default_rng(d * 100 + k)
    gens, need = random_cases(rng, 64, k, d)
    ref = planar_hold.cone_test(gens, need=need, general=True)
    assert {planar_hold.SUPPORTED, planar_hold.UNSUPPORTED} <= set(ref.verdict.tolist())
    for s in (1e-30, 1e-7, 3.0, 1e30):
        assert_same_answers(ref, planar_hold.cone_test(gens * s, need=need * s, general=True), s)
    perm = rng.permutation(k)
    out = planar_hold.cone_test(gens[:, perm], need=need, general=True)
    assert_same_answers(ref, out, perm=perm)
    # Each generator scaled on its own: the same cone (only the weights change).
    per = planar_hold.cone_test(gens * rng.uniform(1e-3, 1e3, size=(64, k, 1)), need=need, general=True)
    np.testing.assert_array_equal(ref.verdict, per.verdict)
    np.testing.assert_allclose(per.margin, ref.margin, rtol=1e-7, atol=1e-9)
    # The witness reproduces the need in every supported case.
    for i in np.flatnonzero(ref.verdict == planar_hold.SUPPORTED):
        n = ref.witness_len[i]
        rebuilt = ref.witness_weight[i, :n] @ gens[i, ref.witness_index[i, :n]]
        np.testing.assert_allclose(rebuilt, need[i], atol=1e-9)
    for i in np.flatnonzero(ref.verdict == planar_hold.UNSUPPORTED):
        y = ref.certificate[i]
        assert abs(np.linalg.norm(y) - 1) < 1e-12 and y @ need[i] < 0
        assert (gens[i] @ y >= -1e-9 * np.linalg.norm(gens[i], axis=1)).all()
        assert y @ need[i] == pytest.approx(ref.margin[i], rel=1e-7)


def test_counts_active_float32_and_strides_give_the_rows_answers():
    """Rows past a count or inactive are ignored (NaN there too) and indices stay rows of the
    caller's array; float32 input is its float64 values; a strided view is read in place."""
    rng = np.random.default_rng(7)
    gens, need = random_cases(rng, 40, 30, 6)
    ref = planar_hold.cone_test(gens, need=need)
    padded_ = np.concatenate([gens, np.full((40, 9, 6), np.nan)], axis=1)
    by_count = planar_hold.cone_test(padded_, need=need, counts=np.full(40, 30, np.uint16))
    assert_same_answers(ref, by_count)
    np.testing.assert_array_equal(ref.witness_index, by_count.witness_index)
    assert by_count.facet_mask.shape == (40, 39) and not by_count.facet_mask[:, 30:].any()
    # Interleave NaN rows and mask them out: the answers name the original rows' new places.
    spread = np.full((40, 60, 6), np.nan)
    spread[:, 1::2] = gens
    active = np.zeros((40, 60), bool)
    active[:, 1::2] = True
    masked = planar_hold.cone_test(spread, active=active, need=need)
    np.testing.assert_array_equal(masked.verdict, ref.verdict)
    np.testing.assert_array_equal(masked.margin, ref.margin)
    np.testing.assert_array_equal(masked.witness_index, np.where(
        np.arange(6) < ref.witness_len[:, None], 2 * ref.witness_index + 1, 0))
    np.testing.assert_array_equal(masked.facet_mask[:, 1::2], ref.facet_mask)
    assert not masked.facet_mask[:, ::2].any()
    g32 = gens.astype(np.float32)
    a = planar_hold.cone_test(g32, need=need)
    b = planar_hold.cone_test(g32.astype(np.float64), need=need)
    np.testing.assert_array_equal(a.margin, b.margin)
    wide = np.zeros((40, 30, 12))
    wide[..., ::2] = gens
    view = wide[..., ::2]
    assert not view.flags.c_contiguous
    np.testing.assert_array_equal(planar_hold.cone_test(view, need=need).margin, ref.margin)


def planar_sample(data):
    """The public planar sample as (generators (N, 16, 3), counts, need (N, 3))."""
    lines = read_jsonl(data / "public_sample.jsonl")
    gens = np.zeros((len(lines), 16, 3))
    counts = np.array([len(line["generators"]) for line in lines])
    for i, line in enumerate(lines):
        gens[i, : counts[i]] = np.reshape(line["generators"], (-1, 3))
    need = np.array([line.get("need", [0, 1, 0]) for line in lines], float)
    return gens, counts, need


def test_engine_choice_by_shape_and_the_enumeration_agrees(data):
    """(N, K <= 16, 3) stays planar; general=True sends it to the general engine, whose
    verdicts agree with the enumeration beyond tolerance (either may say uncertain) and
    whose margins agree within the enumeration's float32 tolerance."""
    gens, counts, need = planar_sample(data)
    planar = planar_hold.cone_test(gens, need=need, counts=counts)
    general = planar_hold.cone_test(gens, need=need, counts=counts, general=True)
    assert isinstance(planar, planar_hold.Outcomes)
    assert isinstance(general, planar_hold.GeneralOutcomes)
    u = planar_hold.UNCERTAIN
    decided = (planar.verdict != u) & (general.verdict != u)
    np.testing.assert_array_equal(planar.verdict[decided], general.verdict[decided])
    assert decided.mean() > 0.9
    s = np.maximum(1, np.linalg.norm(need, axis=1))
    close = np.abs(planar.margin - general.margin) <= 2e-5 * np.maximum(s, np.abs(general.margin))
    assert close[decided & ~general.capped].all()
    # Past 16 rows a (N, K, 3) array is general whatever its counts.
    assert isinstance(planar_hold.cone_test(np.ones((2, 17, 3))), planar_hold.GeneralOutcomes)


def test_numbers_float32_cannot_hold_go_to_the_general_engine(data):
    """A cone's answer does not change when a generator is scaled (docs/contract-general.md
    §1). The enumeration's float32 reads 1e-50 as 0 and refuses 1e40, so (N, K <= 16, 3)
    arrays holding such numbers go to the general engine, as `eval` sends such lines: the
    public sample scaled by 1e-30 (each generator by up to 1e±20 more) and by 1e30 (1e±10
    more) answers as the unscaled sample does, the margins in the new units."""
    gens, counts, need = planar_sample(data)
    ref = planar_hold.cone_test(gens, need=need, counts=counts, general=True)
    rng = np.random.default_rng(7)
    for scale, spread in ((1e-30, 20.0), (1e30, 10.0)):
        each = scale * 10.0 ** rng.uniform(-spread, spread, size=gens.shape[:2] + (1,))
        out = planar_hold.cone_test(gens * each, need=need * scale, counts=counts)
        assert isinstance(out, planar_hold.GeneralOutcomes)
        np.testing.assert_array_equal(out.verdict, ref.verdict)
        want = np.minimum(ref.margin * scale, planar_hold.MARGIN_CAP)
        shown = ~ref.capped & (ref.margin * scale < planar_hold.MARGIN_CAP)
        np.testing.assert_allclose(out.margin[shown], want[shown], rtol=1e-6, atol=1e-9 * scale)
    # Numbers float32 holds stay with the enumeration.
    assert isinstance(planar_hold.cone_test(gens * 1e-20, counts=counts), planar_hold.Outcomes)


def test_ragged_rows_are_answered_in_one_call_as_each_shape_alone():
    """`Engine.answer_rows` (Ray's one call a batch) routes each row as `answers` routes an
    array of its shape (the planar enumeration for 3 numbers and at most 16 generators, the
    general engine for the rest) and answers it as that call does, in row order."""
    rng = np.random.default_rng(5)
    shapes = [(d, k) for d in (3, 6) for k in (0, 1, 15, 16, 17, 40)] * 2
    rng.shuffle(shapes)
    rows = [rng.normal(size=(k, d)) + np.eye(d)[1 if d == 3 else 2] for d, k in shapes]
    needs = [rng.normal(size=d) * 0.1 + np.eye(d)[1 if d == 3 else 2] for d, _ in shapes]
    values = np.concatenate([r.ravel() for r in rows])
    dims, counts = np.array(shapes).T
    engine = planar_hold.Engine("cpu")
    got = engine.answer_rows(values, dims, counts, np.concatenate(needs))
    assert len(got) == len(shapes)
    for (d, k), r, need, answer in zip(shapes, rows, needs, got):
        alone = engine.answers(r[None], need=need[None])[0]
        assert answer == alone, (d, k)
        assert ("binding" in answer) == (d == 3 and k <= 16)
    # Without needs: each row's dimension's nominal weight.
    got = engine.answer_rows(values, dims, counts)
    assert got[0] == engine.answers(rows[0][None])[0]
    bad = values.copy()
    bad[int(dims[0] * counts[0]) + 1] = np.nan  # row 1's first generator
    with pytest.raises(ValueError, match="case 1: generator 0 = "):
        engine.answer_rows(bad, dims, counts)
    with pytest.raises(ValueError, match="2 dims for 1 counts"):
        engine.answer_rows(values, [3, 3], [1])


def test_ragged_rows_float32_cannot_hold_go_to_the_general_engine(data):
    """Ray's ragged rows (`Engine.answer_rows`) route as `eval` and the arrays do: a row of
    R³ with a number float32 does not hold goes to the general engine. The public planar
    sample scaled by 1e-45 (float32 would read it as subnormals, the generators rounded off
    their directions, or as 0) and by 1e39 (beyond float32) answers as the sample does, in
    the new units; before, 1e39 was refused and 1e-45 answered another cone."""
    gens, counts, need = planar_sample(data)
    engine = planar_hold.Engine("cpu")
    rows = [gens[i, : counts[i]] for i in range(len(counts))]
    dims = np.full(len(rows), 3)
    values = np.concatenate([r.ravel() for r in rows])
    ref = engine.answer_rows(values, dims, counts, need.ravel())
    for scale in (1e-45, 1e39):
        got = engine.answer_rows(values * scale, dims, counts, need.ravel() * scale)
        for i, (a, b) in enumerate(zip(ref, got)):
            if "error" in a:
                continue
            assert b["verdict"] == a["verdict"] or "uncertain" in (a["verdict"], b["verdict"]), i
            want = min(a["margin"] * scale, planar_hold.MARGIN_CAP)
            if a["verdict"] == b["verdict"] and not a["capped"]:
                assert b["margin"] == pytest.approx(want, rel=1e-5, abs=1e-6 * scale), i


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(generators=np.ones((3, 257, 6))), "case 0: 257 generators, more than 256"),
        (dict(generators=np.ones((3, 300, 3)), counts=[10, 256, 257]),
         "case 2: 257 generators, more than 256"),
        (dict(generators=np.ones((3, 8, 6)), counts=[1, 2, 9]), "case 2: count 9 is not in 0..=8"),
        (dict(generators=np.ones((3, 8, 6)), counts=[1, -1, 2]), "case 1: count -1"),
        (dict(generators=np.ones((3, 8, 6)), counts=[1.0, 2.0, 3.0]), "counts must be integers"),
        (dict(generators=np.ones((3, 8, 6)), counts=[1, 2]), "counts must have shape (N,) = (3,)"),
        (dict(generators=np.ones((3, 8, 4))), "shape (N, K, 3) or (N, K, 6), got [3, 8, 4]"),
        (dict(generators=np.ones((3, 8, 6)), need=np.ones(3)), "need must have shape (6,) or (N, 6)"),
        (dict(generators=np.ones((3, 8, 6)), need=[0, 0, np.nan, 0, 0, 0]), "need = [0.0, 0.0, NaN"),
        (dict(generators=np.ones((3, 8, 6)), active=np.ones((3, 7), bool)), "active must have shape"),
    ],
)
def test_bad_general_input_raises_value_error(kwargs, message):
    with pytest.raises(ValueError) as e:
        planar_hold.cone_test(**kwargs)
    assert message in str(e.value)


def test_bad_general_case_is_named_by_index():
    gens = np.ones((500, 20, 6))
    gens[321, 17, 4] = np.inf
    gens[400, 0, 0] = np.nan
    with pytest.raises(ValueError, match=r"case 321: generator 17 = \[1.0, 1.0, 1.0, 1.0, inf"):
        planar_hold.cone_test(gens)
    # Past a count the same number is ignored.
    counts = np.full(500, 20)
    counts[321], counts[400] = 17, 0
    assert len(planar_hold.cone_test(gens, counts=counts)) == 500
    need = np.tile([0.0, 0.0, 1.0, 0.0, 0.0, 0.0], (500, 1))
    need[77, 5] = -np.inf
    with pytest.raises(ValueError, match=r"case 77: need = .* is not finite"):
        planar_hold.cone_test(np.ones((500, 20, 6)), need=need)
    # Cases are converted in parts on all cores: the first bad one is named, whichever part
    # holds it, read in place (float64) or copied (float32, or with a mask).
    gens = np.ones((3000, 20, 6))
    gens[2900, 3, 1] = np.nan
    gens[1200, 5, 0] = np.inf
    for kwargs in ({}, {"active": np.ones((3000, 20), bool)}):
        for g in (gens, gens.astype(np.float32)):
            with pytest.raises(ValueError, match=r"case 1200: generator 5 = \[inf, 1.0"):
                planar_hold.cone_test(g, **kwargs)
    # Row 1 holds a NaN in every case; only case 3's count reaches it.
    gens = np.ones((4, 30, 3))
    gens[:, 1] = [np.nan, 0, 1]
    with pytest.raises(ValueError, match=r"case 3: generator 1 = \[NaN, 0.0, 1.0\] is not finite$"):
        planar_hold.cone_test(gens, counts=[0, 1, 1, 2])


def test_empty_and_degenerate_general_cases():
    """No case, no generator, need = 0, all of R^6, a flat cone."""
    assert len(planar_hold.cone_test(np.zeros((0, 20, 6)))) == 0
    out = planar_hold.cone_test(np.zeros((2, 0, 6)), need=[[0, 0, 1, 0, 0, 0], [0] * 6])
    assert out.verdict.tolist() == [planar_hold.UNSUPPORTED, planar_hold.SUPPORTED]
    assert out.margin[0] == -1 and out.witness_len[1] == 0
    whole = np.concatenate([np.eye(6), -np.ones((1, 6))])[None]
    out = planar_hold.cone_test(whole)
    assert out.capped[0] and out.margin[0] == planar_hold.MARGIN_CAP and not out.has_facet[0]
    flat = np.zeros((1, 24, 6))
    flat[0, :, 2] = 1
    out = planar_hold.cone_test(flat)
    assert out.verdict[0] == planar_hold.SUPPORTED and out.margin[0] == 0


@pytest.mark.parametrize("d, k", [(3, 40), (6, 16), (6, 100)])
def test_without_the_inside_margin_only_the_inside_margin_changes(engine, d, k):
    """inside_margin=False, on each backend: the same verdicts, witnesses, certificates and
    outside distances as the whole test; a supported case's margin 0 and no facet."""
    rng = np.random.default_rng(100 + d * k)
    up = 1 if d == 3 else 2
    gens = rng.normal(size=(300, k, d))
    gens[..., up] = np.abs(gens[..., up]) + 0.2
    weights = rng.exponential(size=(300, k)) * (rng.random((300, k)) < 0.3)
    need = np.einsum("nk,nkd->nd", weights, gens)
    need[1::2, up] = -np.abs(need[1::2, up]) - 0.5
    whole = engine.cone_test(gens, need=need, general=True)
    bare = engine.cone_test(gens, need=need, general=True, inside_margin=False)
    held = whole.verdict == planar_hold.SUPPORTED
    assert 50 < held.sum() < 250
    for name in ("verdict", "witness_len", "witness_index", "witness_weight", "certificate"):
        np.testing.assert_array_equal(getattr(bare, name), getattr(whole, name), err_msg=name)
    np.testing.assert_array_equal(bare.margin[~held], whole.margin[~held])
    np.testing.assert_array_equal(bare.facet_normal[~held], whole.facet_normal[~held])
    assert (bare.margin[held] == 0).all() and (whole.margin[held] > -1e-9).all()
    assert not bare.has_facet[held].any() and whole.has_facet[held].all()
    assert not bare.capped.any()


def test_gil_released_during_a_general_batch():
    rng = np.random.default_rng(3)

    def batch(n):
        gens, need = random_cases(rng, n, 64, 6)
        return lambda: planar_hold.cone_test(gens, need=need)

    assert_other_threads_run(batch, 4000)
