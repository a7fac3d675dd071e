#!/usr/bin/env python3
"""How many of a circular grasp's inner-hull points its bound from below needs.

Answers N random 4-fingertip sphere grasps on the true Coulomb cones (``"friction":
"circular"``, μ = 0.5) with their proofs (``planar_hold.gate(..., proof=True)``). Each proof
names the disc points of the inner hull that proves ``q1_lower``. For each grasp in force
closure, a greedy pass drops every point whose removal keeps the hull of the rest within
1e-9 · max|w| of the closed ``q1`` (the points farthest beyond the weakest plane tried first;
each hull by scipy's qhull on the points' wrenches ``(f, p × f/ℓ)``), then prints the points
and faces before and after. A measurement for the search's design (docs/performance.md, "The
circular grasps' cost, examined"), not a test: qhull's float facets are fine at this
tolerance, and nothing here is reported as an answer.

    python scripts/circular_points.py [N] [SEED]

Needs numpy, scipy and the planar_hold package (a venv as for scripts/peers).
"""

import sys

import numpy as np
from scipy.spatial import ConvexHull

import planar_hold


def grasps(n: int, seed: int):
    rng = np.random.default_rng(seed)
    out = []
    for g in range(n):
        s = rng.normal(size=(4, 3))
        s /= np.linalg.norm(s, axis=1, keepdims=True)
        out.append({"id": g, "dim": 3, "grasp": True, "half_size": 0.05, "friction": "circular",
                    "contacts": [{"points": [list(0.05 * s[i])], "normal": list(-s[i]), "mu": 0.5}
                                 for i in range(4)]})
    return out


def hull_q1(w: np.ndarray):
    """The least offset of the facets of conv(w) (unit normals) and their number."""
    eq = ConvexHull(w).equations
    return float(np.min(-eq[:, -1])), len(eq)


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    lines = grasps(n, seed)
    rows = []
    for line, r in zip(lines, planar_hold.gate(lines, proof=True)):
        proof = r.get("proof") or {}
        if r.get("force_closure") is not True or proof.get("kind") != "inner":
            continue
        ell = line["half_size"]
        at = [np.array(c["points"][0]) for c in line["contacts"]]
        w = np.array([[fx, fy, fz, *(np.cross(at[int(d)], [fx, fy, fz]) / ell)]
                      for d, fx, fy, fz in proof["points"]])
        tol = 1e-9 * max(np.linalg.norm(w, axis=1))
        weakest = np.array(r["weakest"])
        keep = list(range(len(w)))
        for i in sorted(keep, key=lambda i: -(w[i] @ weakest)):
            trial = [j for j in keep if j != i]
            try:
                q, _ = hull_q1(w[trial])
            except Exception:  # fewer points than a full-dimensional hull needs
                continue
            if q >= r["q1"] - tol:
                keep = trial
        faces_kept = hull_q1(w[keep])[1]
        rows.append((len(w), len(keep), len(proof["faces"]), faces_kept))
        print(f"grasp {line['id']}: points {len(w)} -> {len(keep)}, "
              f"faces {len(proof['faces'])} (the proof's) -> {faces_kept}", flush=True)
    if not rows:
        print("no grasp in force closure")
        return 1
    a = np.median(np.array(rows), axis=0)
    print(f"{len(rows)} grasps, medians: points {a[0]:.0f} -> {a[1]:.0f}, "
          f"faces {a[2]:.0f} -> {a[3]:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
