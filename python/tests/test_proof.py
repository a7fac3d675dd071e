"""planar_hold.check_proof: the proofs of the two bounds (docs/proof.md) checked in Python with
determinants and dot products alone, on the CLI's and the Python engine's answers, and proofs
with a planted bug refused."""

from __future__ import annotations

import copy
import json

import pytest

import planar_hold
from planar_hold import ProofError, check_proof

from conftest import data_dir, run_cli


def lines(name: str, every: int = 1) -> list:
    with open(data_dir() / name) as f:
        return [json.loads(line) for i, line in enumerate(f) if line.strip() and i % every == 0]


def write(tmp_path, name: str, rows: list) -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def general_cases(every: int) -> list:
    """Every ``every``-th general case of the public sets (6 numbers or more than 16 generators)."""
    out = []
    for name in ("general_public.jsonl", "general_dup_public.jsonl"):
        for c in lines(name, every):
            g = c.get("generators", [])
            if g and (len(g[0]) == 6 or len(g) > 16):
                out.append(c)
    return out


def checked_all(cases: list, answers: list) -> int:
    """Every answer checked against its case; the number of proofs checked. Every answer with
    something to prove carries its proof on the public sets (docs/proof.md)."""
    assert len(cases) == len(answers)
    n, missing = 0, 0
    for case, answer in zip(cases, answers):
        try:
            n += len(check_proof(case, answer))
        except ProofError as e:
            if str(e) != "no proof":
                raise
            # Every grasp carries a proof (docs/proof.md), even within rounding of W's boundary.
            assert not case.get("grasp"), f"grasp {case.get('id')} without a proof"
            missing += 1
    assert missing == 0, f"{missing} answers of {len(cases)} without a proof"
    return n


def test_the_cli_cone_test_proofs_pass(tmp_path):
    cases = general_cases(every=4)
    answers = run_cli("eval", write(tmp_path, "cases.jsonl", cases), "--proof", "--backend", "cpu")
    assert checked_all(cases, answers) > len(cases) // 2


def test_the_python_engine_gives_the_cli_proofs(tmp_path):
    cases = general_cases(every=16)
    from_cli = run_cli("eval", write(tmp_path, "cases.jsonl", cases), "--proof", "--backend", "cpu")
    for case, cli in zip(cases, from_cli):
        need = [case["need"]] if "need" in case else None
        got = planar_hold.answers(
            [case["generators"]], need=need, ids=[case.get("id")], general=True, proof=True
        )[0]
        assert json.dumps(got.get("proof"), sort_keys=True) == json.dumps(cli.get("proof"), sort_keys=True)
        assert got["margin_lower"] == cli["margin_lower"]
        check_proof(case, got)


def test_the_gate_proofs_of_grasps_and_scenes_pass():
    for name, every in (("grasp_public.jsonl", 3), ("scenes3d_public.jsonl", 2), ("sliding_public.jsonl", 3)):
        cases = [c for c in lines(name, every) if c.get("dim") == 3]
        reports = planar_hold.gate(cases, proof=True)
        n = checked_all(cases, reports)
        assert n > 0, name


def test_needs_of_1e_minus_200_and_1e200_are_held_to_their_own_scale():
    """Masses of 1e-200 and 1e200 (needs whose squares underflow and overflow): every honest
    proof passes, and a margin 1e-6 off at 1e200 is caught."""
    cases = []
    for c in lines("scenes3d_public.jsonl", 2):
        c = dict(c, mass={"nominal": c.get("mass", {}).get("nominal", 1.0), "range": [1e-200, 1e200]})
        cases.append(c)
    reports = planar_hold.gate(cases, proof=True)
    assert checked_all(cases, reports) > 0
    for case, report in zip(cases, reports):
        heavy = [n for n in report["needs"] if n["mass"] == 1e200 and n["verdict"] == "unsupported"]
        if heavy:
            heavy[0]["margin"] *= 1 + 1e-6
            with pytest.raises(ProofError):
                check_proof(case, report)
            return
    pytest.fail("no unsupported need at 1e200")


def a_proof_of_many_faces(tmp_path):
    """A public R^6 answer whose proof is an inner hull of several faces, and its case."""
    cases = [c for c in general_cases(every=1) if len(c["generators"][0]) == 6][:60]
    answers = run_cli("eval", write(tmp_path, "cases.jsonl", cases), "--proof", "--backend", "cpu")
    for case, answer in zip(cases, answers):
        p = answer.get("proof")
        if p and p.get("kind") == "inner" and len(p["faces"]) >= 8 and not p.get("lines"):
            return case, answer
    pytest.fail("no public R^6 answer has an inner proof of 8 faces or more")


def test_planted_bugs_are_caught(tmp_path):
    case, answer = a_proof_of_many_faces(tmp_path)
    assert check_proof(case, answer)
    k = len(case["generators"])

    def planted(change):
        a = copy.deepcopy(answer)
        change(a)
        return a

    def swap_two_faces(a):
        faces = a["proof"]["faces"]
        for i in range(len(faces)):
            for j in range(i + 1, len(faces)):
                if len(set(faces[i]) & set(faces[j])) <= len(faces[i]) // 2:
                    faces[i][0], faces[j][0] = faces[j][0], faces[i][0]
                    return
        pytest.fail("no two faces share half their indices or fewer")

    def change_index(a):
        face = a["proof"]["faces"][0]
        face[0] = next(i for i in range(k) if i not in face and i not in a["proof"]["faces"][1])

    bugs = {
        "a face dropped": lambda a: a["proof"]["faces"].pop(),
        "a face repeated": lambda a: a["proof"]["faces"].append(list(a["proof"]["faces"][0])),
        "an index changed": change_index,
        "two faces' indices swapped": swap_two_faces,
        "the bound from below nudged up by 1e-6": lambda a: a.update(
            margin_lower=a["margin_lower"] + 1e-6,
            proof={**a["proof"], "lower": a["proof"]["lower"] + 1e-6},
        ),
        "the value nudged by 1e-6": lambda a: a.update(margin=a["margin"] + 1e-6),
        "an index out of range": lambda a: a["proof"]["faces"][0].__setitem__(0, k + 3),
        "the proof gone": lambda a: a.pop("proof"),
    }
    for what, change in bugs.items():
        with pytest.raises(ProofError):
            check_proof(case, planted(change))
            pytest.fail(f"{what}: not caught")


def test_a_nearest_point_proof_with_a_changed_weight_is_caught(tmp_path):
    cases = [c for c in general_cases(every=1) if len(c["generators"][0]) == 6][:80]
    answers = run_cli("eval", write(tmp_path, "cases.jsonl", cases), "--proof", "--backend", "cpu")
    for case, answer in zip(cases, answers):
        p = answer.get("proof")
        if p and p.get("kind") == "nearest" and answer["margin"] < -1e-3:
            assert check_proof(case, answer)
            bad = copy.deepcopy(answer)
            bad["proof"]["weights"][0] *= 1.5
            bad["proof"]["weights"][0] += 1e-3
            with pytest.raises(ProofError):
                check_proof(case, bad)
            return
    pytest.fail("no public R^6 answer outside the cone with a nearest-point proof")


def test_check_gives_bounds_around_the_answer(tmp_path):
    cases = general_cases(every=8)
    answers = run_cli("eval", write(tmp_path, "cases.jsonl", cases), "--proof", "--backend", "cpu")
    seen = 0
    for case, answer in zip(cases, answers):
        for lo, up in check_proof(case, answer):
            tol = 1e-9 * max(1.0, abs(up), abs(lo))
            assert lo <= up + tol
            assert lo - tol <= answer["margin"] <= up + tol
            seen += 1
    assert seen > 0


def test_a_support_region_proof_with_a_planted_bug_is_caught():
    scenes = [c for c in lines("scenes3d_public.jsonl") if c.get("dim") == 3 and not c.get("grasp")]
    reports = planar_hold.gate(scenes, proof=True)
    proven = [(c, r) for c, r in zip(scenes, reports)
              if r.get("support_region_proof") and len(r["support_region_proof"]["outer"]) >= 3
              and any("plane" in e for e in r["support_region_proof"]["outer"])]
    assert len(proven) >= 10
    case, report = proven[0]
    check_proof(case, report)

    def nudge_plane(a):
        e = next(e for e in a["support_region_proof"]["outer"] if "plane" in e)
        e["plane"] = [z + 1e-6 * (i + 1) for i, z in enumerate(e["plane"])]

    def move_vertex(a):
        a["support_region"][0] = [v * (1 + 1e-6) + 1e-6 for v in a["support_region"][0]]

    bugs = {
        "a plane nudged": nudge_plane,
        "a witness's weight nudged": lambda a: a["support_region_proof"]["inner"][0]["weights"].__setitem__(
            0, a["support_region_proof"]["inner"][0]["weights"][0] * (1 + 1e-6) + 1e-6),
        "a line dropped": lambda a: a["support_region_proof"]["outer"].pop(1),
        "a vertex moved out": move_vertex,
        "an inner point dropped, still checked": lambda a: a["support_region_proof"]["inner"].pop(0),
        "the gap understated": lambda a: a["support_region_proof"].update(gap=-1.0),
    }
    for what, change in bugs.items():
        bad = copy.deepcopy(report)
        change(bad)
        with pytest.raises(ProofError):
            check_proof(case, bad)
            pytest.fail(f"{what}: not caught")


def test_circular_grasp_proofs_pass_and_planted_bugs_are_caught():
    """The true cones' proofs name their own disc points; the Python checker (written apart
    from the Rust one, exact where float64 cannot be sure) passes public circular answers and
    catches a point moved off its disc, a disc index beyond the line's, a face dropped and the
    bound from below nudged. (The Rust tests check every public circular proof; here the
    inner ones of at most 600 faces, which exact arithmetic checks in well under a second.)"""
    from planar_hold._native import grasp_discs

    cases = lines("grasp_circular_public.jsonl")
    reports = planar_hold.gate(cases, proof=True)
    picked = {"inner": [], "nearest": []}
    for case, answer in zip(cases, reports):
        p = answer["proof"]
        if p["kind"] == "nearest" or 0 < len(p["faces"]) <= 600:
            if len(picked[p["kind"]]) < 8:
                picked[p["kind"]].append((case, answer))
    assert all(len(v) == 8 for v in picked.values()), {k: len(v) for k, v in picked.items()}
    for case, answer in picked["inner"] + picked["nearest"]:
        assert len(check_proof(case, answer)) == 1
        bugs = []
        b = copy.deepcopy(answer)
        q = b["proof"]["points"][0]
        n = grasp_discs(case)["normals"][q[0]]
        for a in range(3):
            q[1 + a] += 1e-6 * float(n[a])  # its normal force no longer 1
        bugs.append(("a point off its disc", b))
        b = copy.deepcopy(answer)
        b["proof"]["points"][0][0] = 10_000
        bugs.append(("a disc beyond the line's", b))
        b = copy.deepcopy(answer)
        b["q1_lower"] += 1e-6 * max(1.0, abs(b["q1_lower"]))
        bugs.append(("the bound nudged", b))
        if answer["proof"]["kind"] == "inner":
            b = copy.deepcopy(answer)
            b["proof"]["faces"].pop(len(b["proof"]["faces"]) // 2)
            bugs.append(("a face dropped", b))
        for what, b in bugs:
            with pytest.raises(ProofError):
                check_proof(case, b)
                print(answer["id"], what, "not caught")
