//! A support region by iterative projection (Bretl and Lall, IEEE T-RO 2008), with proofs
//! on both sides (docs/contract-support-region.md): the points `u` of a plane whose need
//! `o + u_x a_x + u_y a_y` lies in the cone of the generators, inside the box `|u| ≤ r`
//! ([`RegionMap`], in its units).
//!
//! One linear program ([`super::simplex`]), `max d·u` over `Σ λᵢŵᵢ = need(u)`, `λ ≥ 0`,
//! `u` in the box, answers a direction `d` twice: its optimum is a point of the region with a
//! **witness** (the basic λ) — a vertex of the inner polygon — and its duals a plane `z` of
//! R⁶ with every generator on its side whose half-plane `z·need(u) ≥ 0` holds the region —
//! a line of the outer one. Starting from four directions, each edge of the inner polygon
//! (the hull of the points found) is asked along its outward normal: a point beyond it by
//! more than [`BEYOND`] splits it, else the line confirms it; a vertex where the polygon
//! turns by more than [`CAP_TURN`] (a segment's ends, a single point, a sharp corner) is
//! asked in directions between its edges' normals, so that no two outer lines around it turn
//! by much more than a quarter turn. When every edge and vertex is confirmed, the outer
//! polygon is the box cut by the confirming lines; its distance to the inner one is the gap.
//!
//! Every witness and plane is checked ([`crate::general::check`]) before it is used, and the
//! whole proof by [`check_region`] before the region is called closed. An empty region is
//! proven by one plane whose half-plane misses the box (the first phase's duals).

use std::collections::HashMap;

use super::simplex::{Ended, Simplex, Warm, ROWS};
use super::Solver;
use crate::general::check;
use crate::general::linalg::{dot, norm};
use crate::general::proof::{
    check_region, distance_to_polygon, Bound, BoxSide, OuterEdge, RegionMap, RegionProof,
    WitnessedPoint,
};
use crate::general::tolerance::REGION_TOL;
use crate::general::GeneralCase;

/// An optimum farther than this (in units) beyond an edge or vertex of the inner polygon is
/// a new point of it; nearer, the edge or vertex is confirmed, by a line through its ends
/// within twice this. A vertex this near the chord of its neighbours is no vertex.
const BEYOND: f64 = 1e-11;

/// Half-planes are loosened by this (in units) when the box is cut: the inner polygon,
/// whose vertices a confirming line passes within `2·BEYOND` of, stays inside, and a region
/// of no area (a segment, a point) does not vanish between two lines that cross.
const SLACK: f64 = 4.0 * BEYOND;

/// Consecutive outer vertices this close (in units) are reported as one.
const MERGE: f64 = 2e-10;

/// Points this close (in units) are one point.
const SAME: f64 = 1e-13;

/// A vertex of the inner polygon turning by more than this is asked between its edges.
const CAP_TURN: f64 = 0.6 * std::f64::consts::PI;

/// Linear programs one region may ask before it gives up (it then says it did not close).
const MOST_ASKS: usize = 600;

/// A support region found by iterative projection, in the map's length unit.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Projection {
    /// The outer polygon (the bound from above), counter-clockwise: the box cut by planes
    /// that hold the region, consecutive vertices within 1e-10 units merged; empty when the
    /// region is proven empty.
    pub outer: Vec<[f64; 2]>,
    /// The inner polygon (the bound from below), counter-clockwise: points each with a
    /// witness.
    pub inner: Vec<[f64; 2]>,
    /// Both sides' proof, as [`check_region`] checks it; `None` where no proof passed.
    pub proof: Option<RegionProof>,
    /// The proof passes and the two polygons meet within [`REGION_TOL`] units.
    pub closed: bool,
    /// The outer polygon reaches the box; or, empty, the region lies beyond it.
    pub clipped: bool,
}

/// What a linear program was asked about: an edge of the inner polygon (its ends, counter-
/// clockwise), or a vertex (with its neighbours) in the `j`-th direction between its edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Ask {
    Edge(u32, u32),
    Vertex(u32, u32, u32, u8),
}

/// A line `n·u + c ≥ 0` (`|n| = 1`, so the value is a signed distance in units).
#[derive(Clone, Copy, Debug)]
struct Line {
    n: [f64; 2],
    c: f64,
    z: [f64; ROWS],
}

impl Line {
    fn value(&self, u: [f64; 2]) -> f64 {
        self.n[0] * u[0] + self.n[1] * u[1] + self.c
    }
}

/// A linear program's answer: the optimum (a point id, when its witness passed) and the
/// plane (a line id, when it passed and depends on u).
#[derive(Clone, Copy, Debug, Default)]
struct Answer {
    point: Option<u32>,
    line: Option<u32>,
    optimum: [f64; 2],
    solved: bool,
}

/// A point found, with its witness (original generators' scale).
struct Point {
    u: [f64; 2],
    generators: Vec<u32>,
    weights: Vec<f64>,
    /// The optimal basis that found it: the asks about its edges start there (their
    /// directions border its normal cone, a step or two away).
    warm: Warm,
}

/// The search's state for one region.
struct Search<'a> {
    generators: &'a [f64],
    map: &'a RegionMap,
    norms: Vec<f64>,
    points: Vec<Point>,
    lines: Vec<Line>,
    answers: HashMap<Ask, Answer>,
    basic: Vec<(u32, f64)>,
    asked: usize,
}

impl Solver {
    /// The region `{u ∈ box : need(u) ∈ C}` of the cone of `generators` (K vectors of R⁶)
    /// under `map`, by iterative projection, with its proof (docs/contract-support-region.md).
    pub(crate) fn project(&mut self, generators: &[f64], map: &RegionMap) -> Projection {
        let k = generators.len() / 6;
        let r = map.half_width;
        let mut norms = Vec::with_capacity(k);
        let mut units = Vec::with_capacity(k);
        for w in generators.chunks_exact(6) {
            let n = norm(w);
            norms.push(n);
            units.push(std::array::from_fn(
                |a| if n > 0.0 { w[a] / n } else { 0.0 },
            ));
        }
        let lp = &mut self.simplex;
        lp.load(&units, &map.axes, &map.origin, r, self.simd);
        let search = Search {
            generators,
            map,
            norms,
            points: Vec::new(),
            lines: Vec::new(),
            answers: HashMap::new(),
            basic: Vec::new(),
            asked: 0,
        };
        match lp.feasible() {
            Ended::Optimal => {}
            Ended::Infeasible(y) => return search.empty(lp, &units, y.map(|v| -v)),
            Ended::Stuck => return search.unknown(),
        }
        search.grow(lp)
    }
}

impl Search<'_> {
    fn case<'b>(&'b self, need: &'b [f64]) -> GeneralCase<'b> {
        GeneralCase {
            dim: 6,
            generators: self.generators,
            need,
        }
    }

    /// Maximises `d·u`: the optimum as a point (witness checked) and the duals as a line
    /// (every generator on its side).
    fn solve(&mut self, lp: &mut Simplex, d: [f64; 2]) -> Answer {
        self.asked += 1;
        if lp.maximize(d) != Ended::Optimal {
            return Answer::default();
        }
        let u = lp.point(&mut self.basic);
        let need = self.map.need(u);
        let generators: Vec<u32> = self.basic.iter().map(|b| b.0).collect();
        let weights: Vec<f64> = self
            .basic
            .iter()
            .map(|&(j, x)| x / self.norms[j as usize])
            .collect();
        let mut answer = Answer {
            optimum: u,
            solved: true,
            ..Answer::default()
        };
        let norms = &self.norms;
        if check::witness_normed(&self.case(&need), |i| norms[i], &generators, &weights) {
            let same = self
                .points
                .iter()
                .position(|p| (p.u[0] - u[0]).powi(2) + (p.u[1] - u[1]).powi(2) <= SAME * SAME);
            answer.point = Some(same.unwrap_or_else(|| {
                self.points.push(Point {
                    u,
                    generators,
                    weights,
                    warm: lp.warm(),
                });
                self.points.len() - 1
            }) as u32);
        }
        let z = lp.duals().map(|v| -v);
        let nz = norm(&z);
        let norms = &self.norms;
        if nz > 0.0 && check::supports_normed(&self.case(&need), |i| norms[i], &z, nz) {
            let (a, b) = self.map.half_plane(&z);
            let na = a[0].hypot(a[1]);
            if na > 1e-12 * nz * (norm(&self.map.axes[0]) + norm(&self.map.axes[1])) {
                self.lines.push(Line {
                    n: [a[0] / na, a[1] / na],
                    c: b / na,
                    z,
                });
                answer.line = Some(self.lines.len() as u32 - 1);
            }
        }
        answer
    }

    /// The inner polygon grown until every edge and sharp vertex is confirmed (or the asks
    /// run out), then the outer polygon and the proof.
    fn grow(mut self, lp: &mut Simplex) -> Projection {
        let quarter = std::f64::consts::FRAC_PI_2;
        for j in 0..4 {
            let a = quarter * (j as f64 + 0.5);
            self.solve(lp, [a.cos(), a.sin()]);
        }
        let mut hull = Vec::new();
        let mut asks: Vec<(Ask, [f64; 2], Vec<u32>)> = Vec::new();
        loop {
            hull = convex_hull(&self.points, hull);
            asks.clear();
            wanted(&self.points, &hull, &mut asks);
            let mut new = false;
            for (ask, d, through) in &asks {
                if !self.answers.contains_key(ask) && self.asked < MOST_ASKS {
                    lp.restart(&self.points[through[0] as usize].warm);
                    let answer = self.solve(lp, *d);
                    self.answers.insert(*ask, answer);
                    new = true;
                }
            }
            if !new {
                break;
            }
        }
        // Every ask of the final polygon confirmed: its lines are the outer polygon's.
        let r = self.map.half_width;
        let mut confirming = Vec::new();
        let mut all = true;
        for (ask, d, through) in &asks {
            let Some(a) = self.answers.get(ask) else {
                all = false;
                continue;
            };
            let at: Vec<[f64; 2]> = through.iter().map(|&p| self.points[p as usize].u).collect();
            let beyond = at
                .iter()
                .map(|p| d[0] * (a.optimum[0] - p[0]) + d[1] * (a.optimum[1] - p[1]))
                .fold(f64::NEG_INFINITY, f64::max);
            let on_line = a
                .line
                .filter(|&l| {
                    let l = &self.lines[l as usize];
                    at.iter().all(|&p| l.value(p).abs() <= 2.0 * BEYOND)
                })
                .inspect(|&l| confirming.push(l));
            let on_box = BoxSide::ALL.iter().any(|s| {
                let (n, c) = s.line(r);
                at.iter()
                    .all(|p| (n[0] * p[0] + n[1] * p[1] + c).abs() <= 1e-12 * (1.0 + r))
            });
            all &= a.solved && beyond <= BEYOND && (on_line.is_some() || on_box);
        }
        let lines: Vec<u32> = if all {
            confirming.sort_unstable();
            confirming.dedup();
            confirming
        } else {
            (0..self.lines.len() as u32).collect()
        };
        self.finish(&hull, &lines)
    }

    /// The outer polygon (the box cut by `lines`), merged, with its proof; the inner one
    /// (`hull`); checked.
    fn finish(&self, hull: &[u32], lines: &[u32]) -> Projection {
        let map = self.map;
        let r = map.half_width;
        let unit = map.unit;
        // Lines within BEYOND of one kept over the whole box are one (the same facet found
        // twice): a second copy would meet it anywhere along the edge.
        let corners = [[-r, -r], [r, -r], [r, r], [-r, r]];
        let mut kept: Vec<u32> = Vec::with_capacity(lines.len());
        for &l in lines {
            let a = &self.lines[l as usize];
            let twin = kept.iter().any(|&k| {
                let b = &self.lines[k as usize];
                corners
                    .iter()
                    .all(|&c| (a.value(c) - b.value(c)).abs() <= BEYOND)
            });
            if !twin {
                kept.push(l);
            }
        }
        // The box's sides are labels 0..4, the lines 4 + their index.
        let mut poly: Vec<([f64; 2], usize)> = corners.iter().copied().zip(0..4).collect();
        for &l in &kept {
            poly = clip(&poly, &self.lines[l as usize], 4 + l as usize);
        }
        let inner: Vec<[f64; 2]> = hull.iter().map(|&p| self.points[p as usize].u).collect();
        if poly.is_empty() || inner.is_empty() {
            return Projection {
                inner: scaled(&inner, unit),
                ..self.unknown()
            };
        }
        // Each vertex where its two lines meet, where they meet at an angle (the cut's is on
        // the lines loosened by the slack).
        let line_of = |label: usize| {
            if label < 4 {
                BoxSide::ALL[label].line(r)
            } else {
                let l = &self.lines[label - 4];
                (l.n, l.c)
            }
        };
        let m = poly.len();
        let snapped: Vec<[f64; 2]> = (0..m)
            .map(|t| {
                let (v, label) = poly[t];
                let (a, ca) = line_of(poly[(t + m - 1) % m].1);
                let (b, cb) = line_of(label);
                let det = a[0] * b[1] - a[1] * b[0];
                if det.abs() < 1e-3 {
                    return v;
                }
                // a·x = −ca, b·x = −cb.
                let x = [(cb * a[1] - ca * b[1]) / det, (ca * b[0] - cb * a[0]) / det];
                if (x[0] - v[0]).hypot(x[1] - v[1]) <= 1e3 * SLACK {
                    x
                } else {
                    v
                }
            })
            .collect();
        for (p, x) in poly.iter_mut().zip(snapped) {
            p.0 = x;
        }
        let (vertices, from) = shape(&mut poly);
        let outer: Vec<OuterEdge> = poly
            .iter()
            .zip(from)
            .map(|(&(_, label), from)| OuterEdge {
                from: Some(from),
                bound: if label < 4 {
                    Bound::Box(BoxSide::ALL[label])
                } else {
                    Bound::Plane(self.lines[label - 4].z)
                },
            })
            .collect();
        let gap = vertices
            .iter()
            .map(|&u| distance_to_polygon(u, &inner))
            .fold(0.0, f64::max);
        let clipped = vertices
            .iter()
            .any(|v| v[0].abs() >= r * (1.0 - 1e-12) || v[1].abs() >= r * (1.0 - 1e-12));
        let outer_poly = scaled(&vertices, unit);
        let proof = RegionProof {
            inner: hull
                .iter()
                .map(|&p| {
                    let p = &self.points[p as usize];
                    WitnessedPoint {
                        at: [p.u[0] * unit, p.u[1] * unit],
                        generators: p.generators.clone(),
                        weights: p.weights.clone(),
                    }
                })
                .collect(),
            outer,
            gap: gap * unit,
        };
        let closed = gap <= REGION_TOL;
        let checked = check_region(self.generators, map, &outer_poly, closed, &proof);
        Projection {
            outer: outer_poly,
            inner: scaled(&inner, unit),
            closed: closed && checked.is_ok(),
            proof: checked.is_ok().then_some(proof),
            clipped,
        }
    }

    /// An infeasible first phase: proven empty when `z` supports every generator and its
    /// half-plane misses the box; then whether the region lies beyond the box.
    fn empty(self, lp: &mut Simplex, units: &[[f64; ROWS]], z: [f64; ROWS]) -> Projection {
        let map = self.map;
        let proof = RegionProof {
            inner: Vec::new(),
            outer: vec![OuterEdge {
                from: None,
                bound: Bound::Plane(z),
            }],
            gap: 0.0,
        };
        if check_region(self.generators, map, &[], true, &proof).is_err() {
            return self.unknown();
        }
        let simd = lp.simd();
        lp.load(units, &map.axes, &map.origin, 1e6 * map.half_width, simd);
        Projection {
            outer: Vec::new(),
            inner: Vec::new(),
            proof: Some(proof),
            closed: true,
            clipped: lp.feasible() == Ended::Optimal,
        }
    }

    /// Nothing proven: the outer polygon is the box, the inner one empty.
    fn unknown(&self) -> Projection {
        let r = self.map.half_width;
        Projection {
            outer: scaled(&[[-r, -r], [r, -r], [r, r], [-r, r]], self.map.unit),
            inner: Vec::new(),
            proof: None,
            closed: false,
            clipped: true,
        }
    }
}

fn scaled(v: &[[f64; 2]], unit: f64) -> Vec<[f64; 2]> {
    v.iter().map(|p| [p[0] * unit, p[1] * unit]).collect()
}

/// The asks the inner polygon `hull` (point ids, counter-clockwise) wants: each edge along
/// its outward normal, each vertex turning by more than [`CAP_TURN`] in directions that
/// split its turn into parts of at most a quarter turn (a single point: four); with the
/// points each ask must pass through to be confirmed.
fn wanted(points: &[Point], hull: &[u32], out: &mut Vec<(Ask, [f64; 2], Vec<u32>)>) {
    let quarter = std::f64::consts::FRAC_PI_2;
    let h = hull.len();
    if h == 0 {
        return;
    }
    if h == 1 {
        let p = hull[0];
        for j in 0..4u8 {
            let a = quarter * (f64::from(j) + 0.5);
            out.push((Ask::Vertex(p, p, p, j), [a.cos(), a.sin()], vec![p]));
        }
        return;
    }
    let normal = |a: u32, b: u32| {
        let (p, q) = (points[a as usize].u, points[b as usize].u);
        let (dx, dy) = (q[0] - p[0], q[1] - p[1]);
        let len = dx.hypot(dy);
        [dy / len, -dx / len]
    };
    for i in 0..h {
        let (a, b) = (hull[i], hull[(i + 1) % h]);
        out.push((Ask::Edge(a, b), normal(a, b), vec![a, b]));
    }
    for i in 0..h {
        let (prev, v, next) = (hull[(i + h - 1) % h], hull[i], hull[(i + 1) % h]);
        let (n_in, n_out) = (normal(prev, v), normal(v, next));
        let turn = if h == 2 {
            std::f64::consts::PI
        } else {
            (n_in[0] * n_out[1] - n_in[1] * n_out[0])
                .atan2(dot(&n_in, &n_out))
                .max(0.0)
        };
        if turn > CAP_TURN {
            let m = (turn / quarter).ceil() as u8;
            for j in 1..m {
                let a = turn * f64::from(j) / f64::from(m);
                let (s, c) = a.sin_cos();
                let d = [c * n_in[0] - s * n_in[1], s * n_in[0] + c * n_in[1]];
                out.push((Ask::Vertex(v, prev, next, j), d, vec![v]));
            }
        }
    }
}

/// The reported polygon of the cut box `poly` (vertices, each with the label of the edge it
/// starts; rotated here so that the first starts the first reported vertex), and for each
/// edge the reported vertex it starts at: a polygon no wider than [`MERGE`] is a segment
/// (its farthest pair), one no longer than that a point; else consecutive vertices within
/// [`MERGE`] are one. The lines of a thin polygon's sides lie along its segment, so either
/// end is on them.
fn shape(poly: &mut [([f64; 2], usize)]) -> (Vec<[f64; 2]>, Vec<usize>) {
    let n = poly.len();
    let dist = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).hypot(a[1] - b[1]);
    // The farthest pair by squared distance (no square root in the n² pairs; the box keeps
    // the squares far from overflow).
    let (mut i, mut j, mut far2) = (0, 0, 0.0);
    for a in 0..n {
        for b in a + 1..n {
            let (p, q) = (poly[a].0, poly[b].0);
            let d2 = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2);
            if d2 > far2 {
                (i, j, far2) = (a, b, d2);
            }
        }
    }
    let far = dist(poly[i].0, poly[j].0);
    if far <= MERGE {
        return (vec![poly[0].0], vec![0; n]);
    }
    let (pa, pb) = (poly[i].0, poly[j].0);
    let width = poly
        .iter()
        .map(|&(p, _)| ((pb[0] - pa[0]) * (p[1] - pa[1]) - (pb[1] - pa[1]) * (p[0] - pa[0])).abs())
        .fold(0.0, f64::max)
        / far;
    if width <= MERGE {
        // Each edge starts at the end it is nearer; the run of edges at `pa` that follows
        // the run at `pb` goes first, so the lines run pa, …, pb, … once around.
        let end: Vec<usize> = poly
            .iter()
            .map(|&(p, _)| usize::from(dist(p, pb) < dist(p, pa)))
            .collect();
        let start = (0..n)
            .find(|&t| end[t] == 0 && end[(t + n - 1) % n] == 1)
            .unwrap_or(0);
        poly.rotate_left(start);
        let mut from = end;
        from.rotate_left(start);
        return (vec![pa, pb], from);
    }
    // Start at a vertex not near the one before it.
    let start = (0..n)
        .find(|&t| dist(poly[t].0, poly[(t + n - 1) % n].0) > MERGE)
        .unwrap_or(0);
    poly.rotate_left(start);
    let mut vertices: Vec<[f64; 2]> = Vec::new();
    let mut from = Vec::with_capacity(n);
    for &(v, _) in poly.iter() {
        if vertices.last().is_none_or(|&w| dist(w, v) > MERGE) {
            vertices.push(v);
        }
        from.push(vertices.len() - 1);
    }
    (vertices, from)
}

/// The convex hull of the points (ids), counter-clockwise, no three on a line (Andrew's
/// monotone chain); `out`'s buffer reused.
fn convex_hull(points: &[Point], mut out: Vec<u32>) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..points.len() as u32).collect();
    let at = |i: u32| points[i as usize].u;
    ids.sort_by(|&a, &b| {
        let (p, q) = (at(a), at(b));
        p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1]))
    });
    out.clear();
    if ids.len() <= 1 {
        out.extend(ids);
        return out;
    }
    let cross = |o: u32, a: u32, b: u32| {
        let (o, a, b) = (at(o), at(a), at(b));
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    for pass in 0..2 {
        let floor = out.len();
        let order: Box<dyn Iterator<Item = &u32>> = if pass == 0 {
            Box::new(ids.iter())
        } else {
            Box::new(ids.iter().rev())
        };
        for &p in order {
            while out.len() >= floor + 2 && cross(out[out.len() - 2], out[out.len() - 1], p) <= 0.0
            {
                out.pop();
            }
            out.push(p);
        }
        out.pop();
    }
    // A vertex within BEYOND of its neighbours' chord is on an edge (an optimum inside an
    // edge, rounded a hair outward): dropped, so that one line confirms the edge.
    while out.len() >= 3 {
        let n = out.len();
        let flat = (0..n).find(|&i| {
            let (a, v, b) = (at(out[(i + n - 1) % n]), at(out[i]), at(out[(i + 1) % n]));
            let chord = (b[0] - a[0]).hypot(b[1] - a[1]);
            let cross = (b[0] - a[0]) * (v[1] - a[1]) - (b[1] - a[1]) * (v[0] - a[0]);
            // Between its neighbours, not beyond them: a thin polygon's end is no edge's.
            let along = (b[0] - a[0]) * (v[0] - a[0]) + (b[1] - a[1]) * (v[1] - a[1]);
            cross.abs() <= BEYOND * chord && along > 0.0 && along < chord * chord
        });
        match flat {
            Some(i) => {
                out.remove(i);
            }
            None => break,
        }
    }
    out
}

/// Sutherland–Hodgman: the part of the convex polygon `poly` (vertices, each with the label
/// of the edge it starts) where `line ≥ −SLACK`; the new edge labelled `label`.
fn clip(poly: &[([f64; 2], usize)], line: &Line, label: usize) -> Vec<([f64; 2], usize)> {
    let n = poly.len();
    let mut out = Vec::with_capacity(n + 1);
    for i in 0..n {
        let (p, lp) = poly[i];
        let (q, _) = poly[(i + 1) % n];
        let (vp, vq) = (line.value(p) + SLACK, line.value(q) + SLACK);
        if vp >= 0.0 {
            out.push((p, lp));
        }
        if (vp >= 0.0) != (vq >= 0.0) {
            let t = vp / (vp - vq);
            let x = [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])];
            // Leaving: the new edge runs along the line; entering: along p's edge.
            out.push((x, if vp >= 0.0 { label } else { lp }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(at: &[[f64; 2]]) -> Vec<Point> {
        at.iter()
            .map(|&u| Point {
                u,
                generators: Vec::new(),
                weights: Vec::new(),
                warm: Warm::default(),
            })
            .collect()
    }

    /// Points along a segment, a hair off it either way: the inner polygon is the segment's
    /// two ends, whatever the order found. An end whose neighbours both lie on one side of
    /// it (the thin hull A, D, C, B) is not a vertex on an edge.
    #[test]
    fn a_thin_hull_keeps_its_ends() {
        let (a, b, c, d) = ([0.0, 0.0], [1.0, 1e-15], [2.0, 0.0], [1.5, -1e-15]);
        for order in [[a, b, c, d], [d, c, b, a], [b, d, a, c], [c, a, d, b]] {
            let found = points(&order);
            let hull = convex_hull(&found, Vec::new());
            let mut ends: Vec<[f64; 2]> = hull.iter().map(|&i| found[i as usize].u).collect();
            ends.sort_by(|p, q| p[0].total_cmp(&q[0]));
            assert_eq!(ends, vec![a, c], "{order:?}");
        }
        // A true corner stays, a point on an edge goes.
        let found = points(&[[0.0, 0.0], [2.0, 0.0], [1.0, 1e-15], [1.0, 1.0]]);
        let hull = convex_hull(&found, Vec::new());
        assert_eq!(hull.len(), 3);
        assert!(!hull.contains(&2));
    }
}
