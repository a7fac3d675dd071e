"""What the peer benchmarks share (scripts/general_peers.py, spatial_peers.py, grasp_peers.py,
and their driver scripts/peers): the machine line, one core for the peers, the CLI on one or
both cores, docs/contract-spatial.md's wrenches in numpy, convex polygons, and the exact
referee (cddlib's double description in rational arithmetic, `cdd.gmp`, in a worker process
with a time budget).

Importing this module pins BLAS to one thread (the peers run on one core, as users run them)
and planar-hold's Python API to one rayon thread (one core against one core); the CLI is run
on both cores (or one) by `run_cli`. Import it before numpy and planar_hold.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import platform
import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
_CLI_THREADS = os.environ.pop("RAYON_NUM_THREADS", None)  # "both cores" means the CLI's default
os.environ["RAYON_NUM_THREADS"] = "1"  # the Python API in this process: one core

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CLI = REPO / "target" / "release" / "planar-hold"
sys.path.insert(0, str(REPO / "python" / "tests"))  # grading.py: the project's grading rules

INSTALL = """\
The peers live in a scratch venv outside the repository (never committed), e.g.:
  python3 -m venv /work/peers-venv && . /work/peers-venv/bin/activate
  pip install numpy scipy cvxopt matplotlib pyarrow hpp-centroidal-dynamics ./python
  pip install --no-deps pypoman
  pip install pycddlib-standalone   # float cddlib: enough for the peers, no exact referee
  # or, for the exact referee (cdd.gmp), pycddlib built on the system's cddlib and GMP:
  #   apt-get install libcdd-dev libgmp-dev && pip install pycddlib
hpp-centroidal-dynamics' libraries load from <site-packages>/cmeel.prefix/lib (the scripts
set LD_LIBRARY_PATH there themselves). Then: scripts/peers --python /work/peers-venv/bin/python"""


def need(module: str, what: str):
    """Import `module` or stop with what it is for and how to install the peers."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        sys.exit(f"error: {what} needs the Python module {module!r} ({e}).\n{INSTALL}")


# ----------------------------------------------------------------------------- the machine


def isa() -> str:
    """The instruction set the engine's kernels can use here (as docs/performance.md names it)."""
    flags = ""
    try:
        flags = next(l for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("flags"))
    except (OSError, StopIteration):
        return platform.machine()
    return "AVX-512" if " avx512f" in flags else "AVX2" if " avx2" in flags else "no AVX2"


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        m = re.search(r"model name\s*:\s*(.*)", Path("/proc/cpuinfo").read_text())
        model = m[1] if m else model
    except OSError:
        pass
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"{model}, {os.cpu_count()} logical cores, {isa()}; load average {load} at start; "
            f"Python {platform.python_version()}, numpy {np.__version__}")


def dist_version(*names: str) -> str:
    """The first installed distribution of `names`, with its version."""
    from importlib import metadata

    for n in names:
        try:
            return f"{n} {metadata.version(n)}"
        except metadata.PackageNotFoundError:
            continue
    return f"{names[0]} (version unknown)"


def cli_describe(cli: Path) -> str:
    if not cli.is_file():
        return f"{cli}: not built (cargo build --release)"
    age = time.strftime("%Y-%m-%d %H:%M", time.localtime(cli.stat().st_mtime))
    return f"{cli} (built {age})"


def run_cli(cli: Path, args, threads: int | None = None, stdin=None):
    """`planar-hold ARGS` end to end (process start included): (seconds, stdout). `threads`
    None: the CLI's default, every core; 1: one core (RAYON_NUM_THREADS=1)."""
    env = dict(os.environ)
    env.pop("RAYON_NUM_THREADS", None)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = str(threads)
    elif _CLI_THREADS:
        env["RAYON_NUM_THREADS"] = _CLI_THREADS
    t = time.perf_counter()
    done = subprocess.run([str(cli), *map(str, args)], env=env, stdin=stdin, capture_output=True,
                          text=True)
    dt = time.perf_counter() - t
    if done.returncode not in (0, 5):
        sys.exit(f"error: {cli} {' '.join(map(str, args))} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return dt, done.stdout


# ----------------------------------------------------------------------------- docs/contract-spatial.md


def tangent_basis(n):
    """t1 = normalize(a x n), a the axis of the least |n_i| (the first on ties); t2 = n x t1."""
    a = np.zeros(3)
    a[int(np.argmin(np.abs(n)))] = 1.0
    t1 = np.cross(a, n)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def pyramid_edges(normal, mu: float, k: int) -> np.ndarray:
    """The k edges r_j = n + mu (cos th_j t1 + sin th_j t2), th_j = 2 pi j / k: (k, 3)."""
    n = np.asarray(normal, float)
    n = n / np.linalg.norm(n)
    t1, t2 = tangent_basis(n)
    th = 2 * math.pi * np.arange(k) / k
    return n + mu * (np.cos(th)[:, None] * t1 + np.sin(th)[:, None] * t2)


def lower(mu) -> float:
    return float(mu[0]) if isinstance(mu, list) else float(mu)


def generators(line: dict, outer: bool | None = None) -> np.ndarray:
    """A scene's or grasp's wrenches (K, 6): contacts, then points, then edges; the main
    pyramids (inner for "coulomb", as the support region and q1 are reported) unless `outer`."""
    k = int(line.get("pyramid", 4))
    ell = float(line["half_size"])
    if outer is None:
        outer = line.get("friction", "inner") == "outer"
    rows = []
    for c in line["contacts"]:
        mu = lower(c["mu"]) / (math.cos(math.pi / k) if outer else 1.0)
        r = pyramid_edges(c["normal"], mu, k)
        for p in c["points"]:
            rows.append(np.hstack([r, np.cross(np.asarray(p, float), r) / ell]))
    return np.vstack(rows) if rows else np.zeros((0, 6))


def _corners(iv):
    return [iv[0]] if iv[0] == iv[1] else list(iv)


def needs(scene: dict):
    """The scene's needs (docs/contract-scenes.md §3): [(mass, dx, dy, need (6,))], mass
    outer, lower ends first."""
    mass = scene.get("mass", {})
    m0 = float(mass.get("nominal", 1.0))
    ell = float(scene["half_size"])
    (dx, dy) = scene.get("com_offset", [[0.0, 0.0], [0.0, 0.0]])
    out = []
    for m in _corners(mass.get("range", [m0, m0])):
        for x in _corners(dx):
            for y in _corners(dy):
                a = m / m0
                out.append((m, x, y, np.array([0.0, 0.0, a, a * y / ell, -a * x / ell, 0.0])))
    return out


# ----------------------------------------------------------------------------- convex polygons


def hull(points) -> np.ndarray:
    """Convex hull, counter-clockwise, collinear points dropped (Andrew's monotone chain)."""
    pts = sorted({(float(a), float(b)) for a, b in points})
    if len(pts) <= 2:
        return np.array(pts, float).reshape(-1, 2)

    def chain(seq):
        h = []
        for q in seq:
            while len(h) >= 2 and (h[-1][0] - h[-2][0]) * (q[1] - h[-2][1]) - \
                    (h[-1][1] - h[-2][1]) * (q[0] - h[-2][0]) <= 0:
                h.pop()
            h.append(q)
        return h[:-1]
    return np.array(chain(pts) + chain(list(reversed(pts))), float)


def clip(poly: np.ndarray, a, b: float) -> np.ndarray:
    """The part of a convex polygon where a.p <= b (Sutherland-Hodgman, one edge)."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = float(a @ p) - b, float(a @ q) - b
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            out.append(p + (q - p) * (fp / (fp - fq)))
    return np.array(out, float).reshape(-1, 2)


def box(half: float) -> np.ndarray:
    return np.array([[-half, -half], [half, -half], [half, half], [-half, half]], float)


def halfplanes(A, b, half: float) -> np.ndarray:
    """{p : A p <= b} within the box |p_x|, |p_y| <= half, counter-clockwise."""
    poly = box(half)
    for a, c in zip(np.asarray(A, float), np.asarray(b, float)):
        if len(poly) == 0:
            break
        if np.linalg.norm(a) == 0:
            if c < 0:
                poly = poly[:0]
            continue
        poly = clip(poly, a, float(c))
    return poly


def area(poly) -> float:
    p = np.asarray(poly, float).reshape(-1, 2)
    if len(p) < 3:
        return 0.0
    x, y = p[:, 0], p[:, 1]
    return 0.5 * abs(float(x @ np.roll(y, -1) - y @ np.roll(x, -1)))


def intersect(p, q) -> np.ndarray:
    """Two convex polygons' intersection (q counter-clockwise, at least 3 vertices)."""
    out = hull(p)
    q = hull(q)
    for i in range(len(q)):
        if len(out) == 0:
            break
        e = q[(i + 1) % len(q)] - q[i]
        a = np.array([e[1], -e[0]])  # outward normal of a counter-clockwise edge
        out = clip(out, a, float(a @ q[i]))
    return out


def compare_regions(got, ref, ell: float):
    """(symmetric-difference area / ell^2, Hausdorff distance / ell) between two filled convex
    polygons (a segment or a point has no area; its Hausdorff distance still counts)."""
    from grading import hausdorff

    got = np.asarray(got, float).reshape(-1, 2)
    ref = np.asarray(ref, float).reshape(-1, 2)
    if len(got) == 0 or len(ref) == 0:
        if len(got) == len(ref):
            return 0.0, 0.0
        other = got if len(got) else ref
        return area(hull(other)) / ell**2, math.inf
    both = area(intersect(got, ref)) if len(hull(got)) >= 3 and len(hull(ref)) >= 3 else 0.0
    return (area(hull(got)) + area(hull(ref)) - 2 * both) / ell**2, hausdorff(got, ref) / ell


# ----------------------------------------------------------------------------- the exact referee


def _exact_inequalities(rows, generators_kind: bool):
    """Worker: cddlib's double description in rational arithmetic. `rows` are [t, x...] of
    Fractions (t = 0 a ray, 1 a point); returns (rows of b + A x >= 0, the equality rows)."""
    import cdd.gmp as gmp

    mat = gmp.matrix_from_array(rows, rep_type=gmp.RepType.GENERATOR)
    ineq = gmp.copy_inequalities(gmp.polyhedron_from_matrix(mat))
    return [list(r) for r in ineq.array], sorted(ineq.lin_set)


class Referee:
    """The exact answers of cones and polytopes given by float generators: their facets found
    in rational arithmetic by cddlib (cdd.gmp, in a worker process) within a time budget
    (seconds, per workload; the first case may take up to `first` seconds, so that even a slow
    workload gets one); None where the budget ran out or cdd.gmp is missing."""

    def __init__(self, budget: float, first: float = 0.0):
        try:
            import cdd.gmp  # noqa: F401

            self.available = True
        except ImportError:
            self.available = False
        self.left = budget
        self.first = first
        self.done = 0
        self.spent = 0.0
        self.pool = None

    def facets(self, W, polytope: bool = False):
        """(rows b + A x >= 0 as Fractions, the indices of the equality rows) of the cone over
        W's rows (or, `polytope`, of their convex hull), or None."""
        if not self.available:
            return None
        timeout = max(self.left, self.first) if self.done == 0 else self.left
        if timeout <= 0:
            return None
        if self.pool is None:
            self.pool = multiprocessing.get_context("fork").Pool(1)
        t0 = Fraction(1 if polytope else 0)
        rows = [[t0] + [Fraction(float(v)) for v in w] for w in np.asarray(W, float)]
        t = time.perf_counter()
        try:
            out = self.pool.apply_async(_exact_inequalities, (rows, True)).get(timeout=timeout)
            self.done += 1
        except multiprocessing.TimeoutError:
            self.pool.terminate()
            self.pool = None
            out = None
            self.left = 0.0
        dt = time.perf_counter() - t
        self.left -= dt
        self.spent += dt
        return out

    def close(self):
        if self.pool is not None:
            self.pool.terminate()
            self.pool = None

    @staticmethod
    def value(row, x) -> tuple[Fraction, float]:
        """(b + A.x exactly, the same over |A| in float64)."""
        num = row[0] + sum(a * Fraction(float(v)) for a, v in zip(row[1:], x))
        den = math.sqrt(float(sum(a * a for a in row[1:])))
        return num, (float(num) / den if den > 0 else 0.0)

    @staticmethod
    def member(facets, x):
        """A need against exact facets: (member, margin): margin the least n_f.x / |n_f| when x
        is inside (0 on the boundary, or where the cone is flat and x in its span; 1000 where
        the cone is all of R^d); None outside (the distance is a QP: not computed here)."""
        rows, lin = facets
        vals = [Referee.value(r, x) for r in rows]
        if any(v[0] != 0 for i, v in enumerate(vals) if i in lin) or any(v[0] < 0 for v in vals):
            return False, None
        if lin:
            return True, 0.0
        return True, min((v[1] for v in vals), default=1000.0)

    def cone(self, W, xs):
        """[(member, margin)] for the needs xs (see `member`); (None, None) without facets."""
        got = self.facets(W)
        return [(None, None) if got is None else self.member(got, x) for x in xs]

    def q1(self, W):
        """A grasp's exact q1 sign and, inside, value: (+1, q1) in force closure, (0, 0.0) on
        the boundary, (-1, None) outside; (None, None) without an answer in the budget."""
        got = self.facets(W, polytope=True)
        if got is None:
            return None, None
        member, m = self.member(got, np.zeros(np.asarray(W).shape[1]))
        return (-1, None) if not member else (0, 0.0) if m <= 0 else (1, m)


# ----------------------------------------------------------------------------- tables


def fmt(x: float) -> str:
    if x != x:
        return "–"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.1f}" if abs(x) >= 10 else f"{x:,.2f}"


def ratio(x: float) -> str:
    if x != x or x == math.inf:
        return "–"
    return f"{x:,.0f}×" if x >= 10 else f"{x:.1f}×" if x >= 1 else f"{x:.2f}×"
