"""Grasp quality from Python (docs/contract-grasp.md): the public grasps graded on every
backend, the arrays path against the dicts path, the invariants of the metric over random
grasps, and bad grasps refused with their index."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import planar_hold
from conftest import assert_other_threads_run, read_jsonl, run_cli

TQ = 1e-7  # the q1 tolerance of the public answers: 1e-7 max(1, |q1|)


# ------------------------------------------------------------------ the generators, rebuilt


def pyramid_edges(normal, mu, k):
    """docs/contract-spatial.md §2: r_j = n + mu (cos t_j t1 + sin t_j t2), t1 = a x n over the
    axis a of the least |n_i|, t2 = n x t1."""
    n = np.asarray(normal, float)
    n = n / np.linalg.norm(n)
    a = np.zeros(3)
    a[int(np.argmin(np.abs(n)))] = 1.0
    t1 = np.cross(a, n)
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(n, t1)
    th = 2 * math.pi * np.arange(k) / k
    return n + mu * (np.cos(th)[:, None] * t1 + np.sin(th)[:, None] * t2)


def wrenches(grasp):
    """W's generators of a grasp line, in the engine's order (contacts, points, edges): the
    outer pyramids for "outer", else the inner ones (q1 of "coulomb" is the inner one's)."""
    k = grasp.get("pyramid", 4)
    pyramid = "outer" if grasp.get("friction") == "outer" else "inner"
    ell = float(grasp["half_size"])
    rows = []
    for c in grasp["contacts"]:
        mu = c["mu"][0] if isinstance(c["mu"], list) else float(c["mu"])
        mu = mu if pyramid == "inner" else mu / math.cos(math.pi / k)
        for p in c["points"]:
            for r in pyramid_edges(c["normal"], mu, k):
                rows.append(np.concatenate([r, np.cross(p, r) / ell]))
    return np.array(rows).reshape(-1, 6)


def tq(q):
    return TQ * max(1.0, abs(q))


# ------------------------------------------------------------------ random fingertip grasps


def random_grasps(rng, n, contacts=(2, 6), k=4):
    """Fingertips on a sphere of radius l (inward normals), mu in [0.2, 1]."""
    out = []
    for i in range(n):
        c = int(rng.integers(contacts[0], contacts[1] + 1))
        s = rng.normal(size=(c, 3))
        s /= np.linalg.norm(s, axis=1, keepdims=True)
        ell = 0.05
        out.append(
            {
                "id": i,
                "dim": 3,
                "grasp": True,
                "half_size": ell,
                "pyramid": k,
                "contacts": [
                    {"points": [(ell * s[j]).tolist()], "normal": (-s[j]).tolist(),
                     "mu": float(rng.uniform(0.2, 1.0))}
                    for j in range(c)
                ],
            }
        )  # fmt: skip
    return out


@pytest.fixture(scope="module")
def grasps():
    return random_grasps(np.random.default_rng(26), 150)


# ------------------------------------------------------------------ the public grasps


def grade(case, want, got):
    """The severe and medium failures of one answer (the public answers' rules): the verdict
    where it is decisive, q1, the weakest direction recomputed, q1_upper, a unique facet."""
    fails = []
    v, q = got["force_closure"], got["q1"]
    coulomb = "q1_outer" in want
    if v is True and want["force_closure"] is False:
        fails.append("true where false")
    if v is False and want["force_closure"] is True and want["q1"] > TQ:
        fails.append("false where true")
    if want["force_closure"] == "uncertain" and coulomb:
        refined = want.get("fc_refined")
        if (v is True and refined is not True) or (v is False and refined is True):
            fails.append(f"coulomb gap: {v} where refined {refined}")
    if not math.isfinite(q) or abs(q - want["q1"]) > tq(want["q1"]):
        fails.append(f"q1 {q!r} vs {want['q1']!r}")
    u = np.array(got["weakest"], float)
    if abs(np.linalg.norm(u) - 1) > 1e-6:
        fails.append("weakest not unit")
    w = wrenches(case)
    if len(w) and abs(float(np.max(w @ u)) - q) > tq(q):
        fails.append("h_W(weakest) != q1")
    if coulomb and abs(got["q1_upper"] - want["q1_outer"]) > tq(want["q1_outer"]):
        fails.append("q1_upper off")
    if want.get("binding_unique") and not want.get("amb"):
        gens = sorted((got.get("facet") or {}).get("generators") or [])
        if gens != sorted(want.get("binding") or []):
            fails.append("facet generators differ")
    return fails


def test_the_public_grasps_grade_without_a_severe_or_medium_failure(engine, data):
    cases = read_jsonl(data / "grasp_public.jsonl")
    want = {e["id"]: e for e in read_jsonl(data / "grasp_public.expected.jsonl")}
    out = planar_hold.grasp_quality(cases, engine=engine)
    assert len(out) == len(cases) == 200
    failures = {}
    for case, report in zip(cases, out.reports):
        assert report["id"] == case["id"]
        f = grade(case, want[case["id"]], report)
        if f:
            failures[case["id"]] = f
    assert not failures, failures
    # The columns are the reports'.
    closure = np.array([r["force_closure"] is True for r in out.reports])
    assert (out.force_closure == closure).all() and closure.sum() > 50
    assert np.array_equal(out.q1, [r["q1"] for r in out.reports])


def test_grasp_quality_answers_as_the_cli_gate(data, tmp_path):
    cases = read_jsonl(data / "grasp_public.jsonl")[:40]
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    cli = run_cli("gate", str(path), "--backend", "cpu")
    assert planar_hold.grasp_quality(cases).reports == cli


# ------------------------------------------------------------------ arrays


def as_arrays(grasps):
    c = max(len(g["contacts"]) for g in grasps)
    n = len(grasps)
    points, normals, mu = np.zeros((n, c, 3)), np.zeros((n, c, 3)), np.zeros((n, c))
    counts = np.zeros(n, dtype=np.int64)
    for i, g in enumerate(grasps):
        counts[i] = len(g["contacts"])
        for j, ct in enumerate(g["contacts"]):
            points[i, j], normals[i, j], mu[i, j] = ct["points"][0], ct["normal"], ct["mu"]
    return points, normals, mu, counts


def test_arrays_answer_as_the_same_grasps_as_dicts(grasps):
    points, normals, mu, counts = as_arrays(grasps)
    by_arrays = planar_hold.grasp_quality(
        points=points, normals=normals, mu=mu, counts=counts, half_size=0.05, pyramid=4
    )
    by_dicts = planar_hold.grasp_quality(grasps)
    assert by_arrays.reports == by_dicts.reports
    assert by_arrays.q1.shape == (len(grasps),) and by_arrays.weakest.shape == (len(grasps), 6)
    assert by_arrays.force_closure.any() and (~by_arrays.force_closure).any()


def test_the_docstring_example_answers_as_it_says():
    points = np.array([[[0.5, 0, 0], [-0.5, 0, 0], [0, 0.5, 0], [0, -0.5, 0]]])
    out = planar_hold.grasp_quality(points=points, normals=-points / 0.5, mu=0.5, half_size=0.5)
    assert out.force_closure[0] and not out.uncertain[0] and out.margin_checked[0]
    assert out.q1[0] == pytest.approx(1 / (2 * math.sqrt(3)), rel=1e-12)  # qhull agrees


def test_the_gpu_engine_answers_as_the_cpu_one(grasps):
    from conftest import gpu_engine

    cpu = planar_hold.grasp_quality(grasps)
    gpu = planar_hold.grasp_quality(grasps, engine=gpu_engine())
    assert np.array_equal(cpu.force_closure, gpu.force_closure)
    assert np.allclose(cpu.q1, gpu.q1, rtol=0, atol=1e-9)


# ------------------------------------------------------------------ invariants


def test_h_w_of_the_weakest_direction_is_q1(grasps):
    out = planar_hold.grasp_quality(grasps)
    for g, q, u in zip(grasps, out.q1, out.weakest):
        assert abs(float(np.max(wrenches(g) @ u)) - q) <= tq(q)


@pytest.mark.parametrize("scale", [1e-3, 1e3])
def test_scaling_positions_and_l_together_leaves_q1(grasps, scale):
    scaled = json.loads(json.dumps(grasps))
    for g in scaled:
        g["half_size"] *= scale
        for c in g["contacts"]:
            c["points"] = [[scale * x for x in p] for p in c["points"]]
    a, b = planar_hold.grasp_quality(grasps), planar_hold.grasp_quality(scaled)
    assert np.array_equal(a.force_closure, b.force_closure)
    assert np.allclose(a.q1, b.q1, rtol=1e-9, atol=1e-12)


def test_permuting_contacts_changes_only_indices(grasps):
    rng = np.random.default_rng(7)
    a = planar_hold.grasp_quality(grasps)
    perms = [rng.permutation(len(g["contacts"])) for g in grasps]
    permuted = [{**g, "contacts": [g["contacts"][j] for j in p]} for g, p in zip(grasps, perms)]
    b = planar_hold.grasp_quality(permuted)
    assert np.array_equal(a.force_closure, b.force_closure)
    assert np.allclose(a.q1, b.q1, rtol=1e-9, atol=1e-12)
    for g, q, u in zip(grasps, a.q1, b.weakest):
        # W is the same set: the permuted grasp's weakest direction is one of the original's.
        assert abs(float(np.max(wrenches(g) @ u)) - q) <= tq(q)
    for i, p in enumerate(perms):
        if b.reports[i]["facet"]:
            # The binding contacts are the permuted grasp's indices: named back, they are
            # contacts of the original grasp on the plane of that direction.
            w = wrenches(grasps[i])
            h = float(np.max(w @ b.weakest[i]))
            k = grasps[i]["pyramid"]
            for j in p[b.facet_contacts[i]]:
                assert np.max(w[j * k : (j + 1) * k] @ b.weakest[i]) >= h - 1e-7


def test_a_duplicated_contact_changes_nothing_and_adding_one_never_lowers_q1(grasps):
    rng = np.random.default_rng(8)
    a = planar_hold.grasp_quality(grasps)
    dup = [{**g, "contacts": g["contacts"] + [g["contacts"][0]]} for g in grasps]
    b = planar_hold.grasp_quality(dup)
    assert np.array_equal(a.force_closure, b.force_closure)
    assert np.allclose(a.q1, b.q1, rtol=1e-9, atol=1e-12)
    more = [
        {**g, "contacts": g["contacts"] + random_grasps(rng, 1, (1, 1))[0]["contacts"]}
        for g in grasps
    ]
    c = planar_hold.grasp_quality(more)
    assert (c.q1 >= a.q1 - 1e-12).all()
    assert not (a.force_closure & ~c.force_closure).any()


def test_raising_mu_never_lowers_q1(grasps):
    a = planar_hold.grasp_quality(grasps)
    raised = json.loads(json.dumps(grasps))
    for g in raised:
        for c in g["contacts"]:
            c["mu"] *= 1.5
    b = planar_hold.grasp_quality(raised)
    assert (b.q1 >= a.q1 - 1e-12).all()


def test_two_point_contacts_never_give_force_closure():
    two = random_grasps(np.random.default_rng(9), 60, (2, 2))
    out = planar_hold.grasp_quality(two)
    assert not out.force_closure.any()
    assert (out.q1 <= 1e-9).all()


def test_inner_coulomb_outer_are_ordered(grasps):
    q = {f: planar_hold.grasp_quality([{**g, "friction": f} for g in grasps[:60]]) for f in
         ("inner", "outer", "coulomb")}  # fmt: skip
    c = q["coulomb"]
    assert (q["inner"].q1 <= c.q1 + 1e-12).all()
    assert np.allclose(c.q1_upper, q["outer"].q1, rtol=1e-9, atol=1e-12)
    assert (c.q1 <= c.q1_upper + 1e-12).all()
    assert np.isnan(q["inner"].q1_upper).all()


# ------------------------------------------------------------------ bad grasps


def cube_grasp():
    return json.loads(json.dumps(random_grasps(np.random.default_rng(1), 1, (4, 4))[0]))


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda g: g["contacts"][1].update(normal=[0, 0, 0]), "zero"),
        (lambda g: g["contacts"][1].update(mu=-0.1), "mu"),
        (lambda g: g.update(contacts=[]), "contact"),
        (lambda g: g.update(mass={"nominal": 1.0}), "mass"),
        (lambda g: g.update(pyramid=64, contacts=g["contacts"] * 2), "256"),
    ],
)
def test_a_bad_grasp_is_refused_with_its_index(edit, words):
    bad = cube_grasp()
    edit(bad)
    with pytest.raises(ValueError, match=r"^grasp 1: ") as e:
        planar_hold.grasp_quality([cube_grasp(), bad, cube_grasp()])
    assert words in str(e.value)


def test_the_first_bad_grasp_is_named_whatever_thread_reads_it():
    """Grasps are read on all cores; where several are bad, the error names the first."""
    rng = np.random.default_rng(4)
    s = rng.normal(size=(20_000, 3, 3))
    s /= np.linalg.norm(s, axis=2, keepdims=True)
    normals = -s
    mu = np.full((20_000, 3), 0.5)
    # Bad at the end of one half of a chunk and at the start of the other (and in a later
    # chunk): a thread reading the second half meets its bad grasp long before the first.
    for i in (17_003, 12_289, 12_280):
        mu[i, 1] = -0.1  # refused by the reader, not by the wrapper's checks
    with pytest.raises(ValueError, match=r"^grasp 12280: .*mu"):
        planar_hold.grasp_quality(points=s, normals=normals, mu=mu)


def test_bad_arrays_are_refused():
    p = np.zeros((2, 3, 3))
    with pytest.raises(ValueError, match="normals"):
        planar_hold.grasp_quality(points=p, normals=np.zeros((2, 3)), mu=0.5)
    q = np.array(p)
    q[1, 2, 0] = np.nan
    with pytest.raises(ValueError, match=r"grasp 1: contact 2: points .*\[nan, 0\.0, 0\.0\]"):
        planar_hold.grasp_quality(points=q, normals=np.ones_like(p), mu=0.5)
    # A NaN in a grasp dict is named by its path, its contact included.
    bad = cube_grasp()
    bad["contacts"][1]["points"][0][2] = float("nan")
    with pytest.raises(ValueError, match=r"grasp 1: .*contacts\[1\]\.points\[0\]\[2\] = NaN"):
        planar_hold.grasp_quality([cube_grasp(), bad])
    with pytest.raises(ValueError, match="mu"):
        planar_hold.grasp_quality(points=p, normals=np.ones_like(p), mu=np.ones(5))
    with pytest.raises(ValueError, match="not a grasp"):
        planar_hold.grasp_quality([{"id": 0, "dim": 3, "contacts": []}])
    with pytest.raises(TypeError):
        planar_hold.grasp_quality(cube_grasp())


# ------------------------------------------------------------------ the columns


def test_the_lists_read_from_the_columns_are_the_reports(grasps):
    points, normals, mu, counts = as_arrays(grasps)
    ids = [f"g{i}" for i in range(len(grasps))]
    out = planar_hold.grasp_quality(
        points=points, normals=normals, mu=mu, counts=counts, half_size=0.05, ids=ids,
        friction="coulomb",
    )  # fmt: skip
    reports = out.reports
    assert [r["id"] for r in reports] == ids == out.ids
    assert out.reasons == [r.get("reason") for r in reports]
    assert any(out.reasons) and not all(out.reasons)
    for r, contacts, normal in zip(reports, out.facet_contacts, out.facet_normal):
        facet = r["facet"]
        assert contacts.tolist() == (facet["contacts"] if facet else [])
        assert np.isnan(normal).all() if facet is None else normal.tolist() == facet["normal"]
    assert list(out.friction) == ["coulomb"] * len(grasps)
    assert np.array_equal(out.q1_upper, [r["q1_upper"] for r in reports])
    # "inner" has no q1_upper: NaN in the column, absent from the report.
    inner = planar_hold.grasp_quality(points=points, normals=normals, mu=mu, counts=counts)
    assert np.isnan(inner.q1_upper).all()
    assert all("q1_upper" not in r for r in inner.reports)


def test_the_gil_is_released_while_grasps_are_answered():
    rng = np.random.default_rng(5)

    def batch(n):
        s = rng.normal(size=(n, 4, 3))
        s /= np.linalg.norm(s, axis=2, keepdims=True)
        return lambda: planar_hold.grasp_quality(points=s, normals=-s, mu=0.5)

    assert_other_threads_run(batch, 3000)


def test_thresholds_and_the_circular_cone_from_arrays():
    """q1_at_least= on fingertip arrays (and on dicts) agrees with the full q1's bracket, and
    friction="circular" lies between the inner and outer pyramids' q1."""
    rng = np.random.default_rng(7)
    n, c = 40, 4
    p = rng.normal(size=(n, c, 3))
    p /= np.linalg.norm(p, axis=2, keepdims=True)
    normals = -p
    full = planar_hold.grasp_quality(points=p, normals=normals, mu=0.5, pyramid=8)
    t = float(np.median(full.q1))
    asked = planar_hold.grasp_quality(points=p, normals=normals, mu=0.5, pyramid=8, q1_at_least=t)
    decided = ~asked.q1_at_least_uncertain
    assert decided.sum() >= n - 2
    assert np.array_equal(asked.q1_at_least[decided], (full.q1_lower >= t)[decided])
    assert not (asked.q1_at_least & (full.q1 < t)).any()
    for r in asked.reports:
        assert r["q1_at_least"] in (True, False, "uncertain")
    # The same threshold on the grasps' dicts: as asked of the arrays; a dict's own wins.
    grasps = planar_hold.grasp_lines(p[:5], normals[:5], 0.5, pyramid=8)
    by_lines = planar_hold.grasp_quality(grasps, q1_at_least=t)
    assert np.array_equal(by_lines.q1_at_least, asked.q1_at_least[:5])
    own = planar_hold.grasp_quality([dict(g, q1_at_least=-1.0) for g in grasps], q1_at_least=t)
    assert own.q1_at_least[(full.q1_lower[:5] >= -1.0)].all()
    inner = planar_hold.grasp_quality(points=p[:8], normals=normals[:8], mu=0.5, pyramid=8)
    outer = planar_hold.grasp_quality(points=p[:8], normals=normals[:8], mu=0.5, pyramid=8, friction="outer")
    circ = planar_hold.grasp_quality(points=p[:8], normals=normals[:8], mu=0.5, friction="circular")
    tol = 1e-7 * 4
    assert (circ.q1 >= inner.q1 - tol).all() and (circ.q1 <= outer.q1 + tol).all()
    assert (circ.q1_lower <= circ.q1 + 1e-9).all()
    with pytest.raises(ValueError):
        planar_hold.grasp_quality(points=p, normals=normals, mu=0.5, q1_at_least=float("nan"))


def test_a_tolerance_closes_the_circular_bracket_to_it():
    """tolerance= (and a dict's own "tolerance") closes a circular bracket no tighter than
    asked, around the default's; pyramid grasps keep their exact facets' answer; a tolerance
    not in (0, 0.1] is refused."""
    rng = np.random.default_rng(11)
    n, c = 12, 4
    p = rng.normal(size=(n, c, 3))
    p /= np.linalg.norm(p, axis=2, keepdims=True)
    normals = -p + 0.3 * rng.normal(size=(n, c, 3))
    args = dict(points=p, normals=normals, mu=0.5, friction="circular")
    tight = planar_hold.grasp_quality(**args)
    loose = planar_hold.grasp_quality(**args, tolerance=1e-3)
    scale = math.sqrt(1 + 0.5**2) * math.sqrt(2)  # the support function's bound of max |w|
    gap = loose.q1 - loose.q1_lower
    assert (gap[loose.margin_checked] <= 1e-3 * scale).all()
    assert (loose.q1_lower <= tight.q1 + 1e-7).all() and (tight.q1_lower <= loose.q1 + 1e-7).all()
    assert (gap[tight.margin_checked] > 1e-9 * scale).any()  # the search stopped earlier
    grasps = planar_hold.grasp_lines(p, normals, 0.5, friction="circular")
    by_dicts = planar_hold.grasp_quality([dict(g, tolerance=1e-3) for g in grasps])
    assert np.array_equal(by_dicts.q1, loose.q1) and np.array_equal(by_dicts.q1_lower, loose.q1_lower)
    own = planar_hold.grasp_quality([dict(g, tolerance=1e-3) for g in grasps], tolerance=1e-9)
    assert np.array_equal(own.q1, loose.q1)  # a dict's own wins
    inner = dict(args, friction="inner", pyramid=8)
    a, b = planar_hold.grasp_quality(**inner), planar_hold.grasp_quality(**inner, tolerance=1e-3)
    assert np.array_equal(a.q1, b.q1) and np.array_equal(a.q1_lower, b.q1_lower)
    for bad in (0.0, -1e-6, 0.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="tolerance must be a number above 0"):
            planar_hold.grasp_quality(**args, tolerance=bad)
        with pytest.raises(ValueError, match="tolerance must be a number above 0"):
            planar_hold.grasp_quality(grasps, tolerance=bad)
