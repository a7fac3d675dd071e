//! Grasp quality on the true Coulomb cones (docs/contract-grasp.md §5, `"friction":
//! "circular"`): W is the convex hull of the contacts' friction discs at unit normal force,
//! `{(f, p × f/ℓ) : f = n + μt, t ⊥ n, |t| ≤ 1}` for every contact point, and no finite list
//! of generators spans it. Its support function has a closed form, so q1 is found by two
//! searches that ask it only for support points, each keeping two proven bounds
//! (docs/contract-general.md §9):
//!
//! - **outside or not yet known**: Wolfe's minimum-norm-point algorithm (1976) on W: a point
//!   `x` of W (a convex combination of support points) gives `q1 ≥ −|x|`, its direction
//!   `u = −x/|x|` gives `q1 ≤ h_W(u)`; it ends when they meet (0 ∉ W) or when `x` reaches 0
//!   with a simplex of support points around it (0 ∈ W);
//! - **inside**: the expanding polytope of the local search ([`super::hull`]) on the lifted
//!   points `(s, w)` around `e₀`, started from that simplex: its nearest face `(β, a)` bounds
//!   q1 from below by `sβ/|a|` (every point of the inner hull lies on a disc), the support
//!   function of its direction `u = −a/|a|` bounds it from above by `h_W(u)`, and the support
//!   point there is added until the two meet within the tolerance. The bound from below is
//!   checked by the proof checker ([`super::proof::check`]) on the points the hull used.
//!
//! A threshold T (`"q1_at_least"`) ends either search as soon as the bracket decides it. The
//! searches ask W only through [`Support`]: the same two answer a pyramid grasp's threshold
//! on its finite wrenches ([`Points`]), stopping where the engine would close q1.

use super::hull::{Face, Hull, COARSE};
use super::linalg::{dot, norm, Basis, Vector};
use super::min_norm;
use super::proof::{self, DiscPoint, InnerProof, Measure, NearestProof, Proof};
use super::tolerance::{EPS, RANK_TOL};
use super::MAX_DIM;

/// One contact point's friction disc: position relative to the reference point, inward unit
/// normal, μ (its lower end), and the contact it belongs to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Disc {
    /// Position, in the scene's length unit.
    pub p: [f64; 3],
    /// Inward unit normal.
    pub n: [f64; 3],
    /// Friction coefficient.
    pub mu: f64,
    /// Index of the line's contact.
    pub contact: usize,
    /// A unit tangent (the support point where the tangential part vanishes).
    pub t: [f64; 3],
}

/// A three-valued answer: a threshold's (or force closure's) decision from a bracket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Decided {
    /// Proven true.
    True,
    /// Proven false.
    False,
    /// The bracket straddles the question within tolerance.
    #[default]
    Uncertain,
}

impl Decided {
    /// `true`, `false` or `"uncertain"`, as the answers write it.
    pub(crate) fn as_json(&self) -> serde_json::Value {
        match self {
            Decided::True => serde_json::Value::Bool(true),
            Decided::False => serde_json::Value::Bool(false),
            Decided::Uncertain => serde_json::Value::String("uncertain".into()),
        }
    }

    /// "Is the value at least `t`?" from the bracket `[lower, upper]`: true when
    /// `lower ≥ t`, false when `upper < t`, else uncertain.
    pub(crate) fn at_least(lower: f64, upper: f64, t: f64) -> Decided {
        if lower >= t {
            Decided::True
        } else if upper < t {
            Decided::False
        } else {
            Decided::Uncertain
        }
    }
}

/// The circular q1 of a grasp, its bracket and what decided it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CircularOutcome {
    /// Upper bound, attained by `weakest`: `h_W(weakest)` by the closed form.
    pub q1: f64,
    /// Proven lower bound.
    pub q1_lower: f64,
    /// The unit direction of least support found.
    pub weakest: [f64; 6],
    /// Force closure from the bracket: true only when `q1_lower > tol`, false only when
    /// `q1 < −tol`.
    pub force_closure: Decided,
    /// The bracket met within the tolerance.
    pub closed: bool,
    /// The threshold's answer, when one was asked.
    pub at_least: Option<Decided>,
    /// The contacts that reach the plane `weakest·x = q1` (within tolerance).
    pub contacts: Vec<usize>,
    /// Of finite wrenches, those on that plane (within tolerance), ascending.
    pub generators: Vec<u32>,
    /// Support queries made.
    pub queries: usize,
    /// The proof of the bracket, when asked and found (docs/proof.md, circular grasps).
    pub proof: Option<Proof>,
}

/// What a search is asked: the tolerance the bracket closes to and an optional threshold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ask {
    /// Absolute tolerance of the bracket (ε·max|w| unless the line asks for less).
    pub tol: f64,
    /// Stop as soon as `q1 ≥ T` is decided.
    pub at_least: Option<f64>,
    /// A bound from below already proven (an inner pyramid's q1_lower; −∞ for none).
    pub lower: f64,
    /// Write the proof of the bracket (discs only: its points are disc points,
    /// docs/proof.md); the bound from below is then only what the proof proves.
    pub proof: bool,
}

/// Support queries at most, each search: a grasp that has not closed by then answers its
/// bracket as it stands (`closed` false).
const MAX_QUERIES: usize = 4000;

/// Faces at most in a search's inner hull (about 60 MiB with its check): the faces grow as
/// the cube of the points, and a bracket that will not close (friction discs a hundred times
/// wider than their normal force: 200 points, half a million faces, 1e-5 apart) would
/// otherwise run to gigabytes before [`MAX_QUERIES`]. The public circular grasps need at
/// most 75,275 (64 contacts).
const MAX_FACES: usize = 1 << 18;

/// A grasp wrench space W as the searches see it: by its support function alone. The true
/// cones' discs ([`Discs`]) and a pyramid's finite wrenches ([`Points`]) are the two.
pub(crate) trait Support {
    /// An upper bound of max |w| over W: the tolerance's scale and the lift's `s`.
    fn scale(&self) -> f64;

    /// Whether W is empty (no contact point, no wrench).
    fn is_empty(&self) -> bool;

    /// `h_W(u)`, a point of W attaining it, and where the point comes from (the disc or
    /// the wrench: its index).
    fn support_point(&self, u: &[f64; 6]) -> (f64, [f64; 6], u32);

    /// `h_W(u)` alone.
    fn support(&self, u: &[f64; 6]) -> f64 {
        self.support_point(u).0
    }

    /// A direction to start Wolfe's search from.
    fn first(&self) -> [f64; 6];

    /// Whether the inner hull's bound from below is checked by the proof checker before it
    /// is taken. Support points computed on discs: yes (their hull's own bound was measured
    /// 2.4× faster but 6 hulls of 20,000 random fingertip grasps failed the exact check:
    /// faces that do not close, a face through e₀ — crowded support points fold it). Given wrenches: the hull's own
    /// float64 bound with its faces' cone pointed, as the engine's local search takes it
    /// (docs/contract-general.md §9; `--proof` asks for the portable check).
    const CHECK_HULL: bool;

    /// What reaches the plane `u·x = h` within `tol`: the contacts (ascending, each once) and,
    /// for finite wrenches, their indices.
    fn touching(&self, u: &[f64; 6], h: f64, tol: f64) -> (Vec<usize>, Vec<u32>);
}

/// The grasp wrench space of the discs, by its support function.
pub(crate) struct Discs<'a> {
    discs: &'a [Disc],
    ell: f64,
    /// An upper bound of max |w| over W: `√(1+μ²)·√(1+(|p|/ℓ)²)`, the tolerance's scale.
    pub scale: f64,
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

impl<'a> Discs<'a> {
    /// The discs of one grasp, `ell` its moment unit ℓ.
    pub(crate) fn new(discs: &'a [Disc], ell: f64) -> Discs<'a> {
        let scale = discs
            .iter()
            .map(|d| {
                // Lengths that cannot overflow (positions of 1e154 and beyond over a like ℓ).
                let r = norm(&d.p) / ell;
                1f64.hypot(d.mu) * 1f64.hypot(r)
            })
            .fold(0.0, f64::max);
        Discs {
            discs,
            ell,
            scale: if scale > 0.0 { scale } else { 1.0 },
        }
    }

    /// The direction seen at disc `d` by the wrench direction `u`: `v = u_f + (u_τ × p)/ℓ`,
    /// so that `u·(f, p × f/ℓ) = v·f`.
    fn seen(&self, d: &Disc, u: &[f64; 6]) -> [f64; 3] {
        let c = cross([u[3], u[4], u[5]], d.p);
        [
            u[0] + c[0] / self.ell,
            u[1] + c[1] / self.ell,
            u[2] + c[2] / self.ell,
        ]
    }

    /// `h_i(u) = v·n + μ|v − (v·n)n|` at disc `d`, and its tangential part `v_t`.
    fn disc_support(&self, d: &Disc, u: &[f64; 6]) -> (f64, [f64; 3]) {
        let v = self.seen(d, u);
        let vn = dot(&v, &d.n);
        let vt = [v[0] - vn * d.n[0], v[1] - vn * d.n[1], v[2] - vn * d.n[2]];
        (vn + d.mu * dot(&vt, &vt).sqrt(), vt)
    }
}

impl Support for Discs<'_> {
    const CHECK_HULL: bool = true;

    fn scale(&self) -> f64 {
        self.scale
    }

    fn is_empty(&self) -> bool {
        self.discs.is_empty()
    }

    /// The first disc's normal force.
    fn first(&self) -> [f64; 6] {
        let n = self.discs[0].n;
        [n[0], n[1], n[2], 0.0, 0.0, 0.0]
    }

    /// `h_W(u) = maxᵢ hᵢ(u)` (−∞ for no disc).
    fn support(&self, u: &[f64; 6]) -> f64 {
        self.discs
            .iter()
            .map(|d| self.disc_support(d, u).0)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// `h_W(u)` and a point of W attaining it: `f = n + μt̂` on the best disc (`t̂` the
    /// tangential part of `v` made unit; the disc's own tangent where it vanishes),
    /// `w = (f, p × f/ℓ)`.
    fn support_point(&self, u: &[f64; 6]) -> (f64, [f64; 6], u32) {
        let mut best = (f64::NEG_INFINITY, 0, [0.0; 3]);
        for (i, d) in self.discs.iter().enumerate() {
            let (h, vt) = self.disc_support(d, u);
            if h > best.0 || i == 0 {
                best = (h, i, vt);
            }
        }
        let (h, i, vt) = best;
        let d = &self.discs[i];
        // The tangent made exactly tangent again (a vanishing v_t is rounding, pointing
        // anywhere): a support point off the disc would break the bound from below.
        let c = dot(&vt, &d.n);
        let vt = [vt[0] - c * d.n[0], vt[1] - c * d.n[1], vt[2] - c * d.n[2]];
        let l = dot(&vt, &vt).sqrt();
        let v = self.seen(d, u);
        let t = if l > 1e-12 * dot(&v, &v).sqrt() {
            vt.map(|v| v / l)
        } else {
            d.t
        };
        let f = [
            d.n[0] + d.mu * t[0],
            d.n[1] + d.mu * t[1],
            d.n[2] + d.mu * t[2],
        ];
        let m = cross(d.p, f);
        (
            h,
            [
                f[0],
                f[1],
                f[2],
                m[0] / self.ell,
                m[1] / self.ell,
                m[2] / self.ell,
            ],
            i as u32,
        )
    }

    /// The contacts whose discs reach the plane `u·x = h` within `tol`.
    fn touching(&self, u: &[f64; 6], h: f64, tol: f64) -> (Vec<usize>, Vec<u32>) {
        let mut c: Vec<usize> = self
            .discs
            .iter()
            .filter(|d| self.disc_support(d, u).0 >= h - tol)
            .map(|d| d.contact)
            .collect();
        c.dedup();
        (c, Vec::new())
    }
}

/// The grasp wrench space of a pyramid's wrenches (`conv{wᵢ}`), by its support function:
/// what a threshold asks of a pyramid grasp is decided here, stopping as soon as the bracket
/// does, where the engine would close it.
pub(crate) struct Points<'a> {
    wrenches: &'a [[f64; 6]],
    /// The contact each wrench comes from (ascending, as the wrenches are ordered).
    contacts: &'a [usize],
    scale: f64,
}

impl<'a> Points<'a> {
    /// The wrenches of one grasp and the contact of each.
    pub(crate) fn new(wrenches: &'a [[f64; 6]], contacts: &'a [usize]) -> Points<'a> {
        let scale = wrenches
            .iter()
            .map(|w| dot(w, w).sqrt())
            .fold(0.0, f64::max);
        Points {
            wrenches,
            contacts,
            scale: if scale > 0.0 { scale } else { 1.0 },
        }
    }
}

impl Support for Points<'_> {
    const CHECK_HULL: bool = false;

    fn scale(&self) -> f64 {
        self.scale
    }

    fn is_empty(&self) -> bool {
        self.wrenches.is_empty()
    }

    /// The first wrench's direction.
    fn first(&self) -> [f64; 6] {
        self.wrenches[0]
    }

    /// The first wrench of largest `u·wᵢ`.
    fn support_point(&self, u: &[f64; 6]) -> (f64, [f64; 6], u32) {
        let mut best = (f64::NEG_INFINITY, 0);
        for (i, w) in self.wrenches.iter().enumerate() {
            let h = dot(w, u);
            if h > best.0 || i == 0 {
                best = (h, i);
            }
        }
        (best.0, self.wrenches[best.1], best.1 as u32)
    }

    fn touching(&self, u: &[f64; 6], h: f64, tol: f64) -> (Vec<usize>, Vec<u32>) {
        let on: Vec<u32> = (0..self.wrenches.len() as u32)
            .filter(|&i| dot(&self.wrenches[i as usize], u) >= h - tol)
            .collect();
        let mut c: Vec<usize> = on.iter().map(|&i| self.contacts[i as usize]).collect();
        c.dedup();
        (c, on)
    }
}

/// The bracket as a search keeps it: the least `h_W(u)` seen (and its u), the best bound
/// from below.
struct Bracket {
    upper: f64,
    weakest: [f64; 6],
    lower: f64,
    queries: usize,
}

impl Bracket {
    fn offer(&mut self, u: &[f64; 6], h: f64) {
        if h < self.upper {
            self.upper = h;
            self.weakest = *u;
        }
    }

    /// The search may stop: closed, or the threshold decided.
    fn done(&self, ask: &Ask) -> bool {
        decided(self.lower, self.upper, ask)
    }
}

fn unit6(x: &[f64; 6]) -> Option<[f64; 6]> {
    let n = dot(x, x).sqrt();
    (n > 0.0 && n.is_finite()).then(|| x.map(|v| v / n))
}

/// Whether the bracket `[lower, upper]` answers what was asked: closed within the
/// tolerance, or the threshold decided and force closure with it (q1 above the tolerance
/// or below its opposite: a threshold's answer still says whether the grasp holds).
fn decided(lower: f64, upper: f64, ask: &Ask) -> bool {
    upper - lower <= ask.tol
        || ask.at_least.is_some_and(|t| {
            Decided::at_least(lower, upper, t) != Decided::Uncertain
                && (lower > ask.tol || upper < -ask.tol)
        })
}

/// q1 of W, bracketed (the module's text). `seeds` are extra points of W (the inner
/// pyramid's generators serve), each with its source (as [`Support::support_point`] names
/// one), that a simplex around 0 may be completed from.
pub(crate) fn quality<W: Support>(w: &W, seeds: &[([f64; 6], u32)], ask: Ask) -> CircularOutcome {
    if w.is_empty() {
        return CircularOutcome {
            q1: f64::NEG_INFINITY,
            q1_lower: f64::NEG_INFINITY,
            force_closure: Decided::False,
            closed: true,
            at_least: ask.at_least.map(|_| Decided::False),
            ..CircularOutcome::default()
        };
    }
    let mut b = Bracket {
        upper: f64::INFINITY,
        weakest: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        lower: ask.lower,
        queries: 0,
    };
    let corral = min_norm(w, &mut b, &ask);
    let mut proof = None;
    if corral.end == min_norm::End::Inside && !b.done(&ask) {
        proof = expand(w, &mut b, &ask, &corral, seeds, W::CHECK_HULL, false);
        // Left open by a hull of float64 normals (faces the checker would not take, a fold,
        // or the face limit reached among crowded points): once more with every thin face's
        // normal in double-double; then with a coarser hull ([`Hull::coarse`]). Each proof
        // is taken where it proves more.
        if W::CHECK_HULL {
            for (float_normals, coarse) in [(false, false), (true, true)] {
                if b.done(&ask) {
                    break;
                }
                let before = b.lower;
                let again = expand(w, &mut b, &ask, &corral, seeds, float_normals, coarse);
                if b.lower > before {
                    proof = again;
                }
            }
        }
    }
    // Outside, at 0 to rounding (the bracket decided at Wolfe's end, or W flat), or where the
    // inner hull's proof did not pass: Wolfe's point and the least support found.
    if ask.proof && proof.is_none() {
        proof = Some(nearest_proof(&corral, &b.weakest));
    }
    let tol = ask.tol;
    let (lower, upper) = (b.lower.min(b.upper), b.upper);
    let (contacts, generators) = w.touching(&b.weakest, upper, tol);
    CircularOutcome {
        q1: upper,
        q1_lower: lower,
        weakest: b.weakest,
        force_closure: if lower > tol {
            Decided::True
        } else if upper < -tol {
            Decided::False
        } else {
            Decided::Uncertain
        },
        closed: upper - lower <= tol,
        at_least: ask.at_least.map(|t| Decided::at_least(lower, upper, t)),
        contacts,
        generators,
        queries: b.queries,
        proof,
    }
}

/// A disc point of the proof: the point's source and its force (a disc point's first three
/// coordinates are its force).
fn disc_point(source: u32, q: &[f64; 6]) -> DiscPoint {
    DiscPoint(source, q[0], q[1], q[2])
}

/// The proof of a bracket from Wolfe's point, a convex combination of disc points, from
/// below (`−|x|`); the plane `(0, u)` of the least support found, from above.
fn nearest_proof(c: &min_norm::Corral, weakest: &[f64; 6]) -> Proof {
    let mut plane = vec![0.0];
    plane.extend_from_slice(weakest);
    Proof::Nearest(NearestProof {
        measure: Measure::Grasp,
        generators: (0..c.points.len() as u32).collect(),
        weights: c.weights.clone(),
        plane,
        points: c
            .points
            .iter()
            .zip(&c.ids)
            .map(|(q, &i)| disc_point(i, q))
            .collect(),
    })
}

/// Wolfe's minimum-norm point of W from its support points ([`super::min_norm`]). Returns
/// the corral: points of W whose convex hull holds 0 where it ends `Inside`, else the
/// nearest point found (the bracket closed or was decided outside, or the search stopped).
fn min_norm(w: &impl Support, b: &mut Bracket, ask: &Ask) -> min_norm::Corral {
    let f0 = w.first();
    let support = |u: &[f64; 6]| w.support_point(u);
    let mut queries = b.queries;
    let c = min_norm::wolfe(
        support(&f0),
        support,
        |u, h, lower| {
            b.lower = b.lower.max(lower);
            b.offer(u, h);
            b.done(ask)
        },
        w.scale(),
        &mut queries,
        MAX_QUERIES,
    );
    b.queries = queries;
    if c.end == min_norm::End::Inside {
        b.lower = b.lower.max(-dot(&c.x, &c.x).sqrt());
    }
    c
}

/// The expanding polytope around `e₀` in the lift `(s, w)`, from `simplex` (points of W
/// around 0) completed to 7 independent lifted points from `seeds` and the support points
/// of the coordinate directions; `float_normals` and `coarse` as the hull's fields of those
/// names.
fn expand<W: Support>(
    w: &W,
    b: &mut Bracket,
    ask: &Ask,
    simplex: &min_norm::Corral,
    seeds: &[([f64; 6], u32)],
    float_normals: bool,
    coarse: bool,
) -> Option<Proof> {
    let d = MAX_DIM;
    let s = w.scale();
    let lift = |p: &[f64; 6]| -> (Vector, Vector) {
        let mut raw = [0.0; MAX_DIM];
        raw[0] = s;
        raw[1..].copy_from_slice(p);
        let n = dot(&raw, &raw).sqrt();
        (raw.map(|v| v / n), raw)
    };
    // The points taken, and the source of each (its disc, for the proof).
    let mut points: Vec<[f64; 6]> = Vec::new();
    let mut sources: Vec<u32> = Vec::new();
    let mut basis = Basis::new(d);
    let mut take = |p: &[f64; 6], source: u32, points: &mut Vec<[f64; 6]>, basis: &mut Basis| {
        if points.len() < d && basis.push(&lift(p).0, RANK_TOL) {
            points.push(*p);
            sources.push(source);
        }
    };
    for (p, &i) in simplex.points.iter().zip(&simplex.ids) {
        take(p, i, &mut points, &mut basis);
    }
    if points.len() < d {
        let mut more: Vec<([f64; 6], u32)> = seeds.to_vec();
        for k in 0..12 {
            let mut u = [0.0; 6];
            u[k / 2] = if k % 2 == 0 { 1.0 } else { -1.0 };
            let (_, q, i) = w.support_point(&u);
            more.push((q, i));
        }
        for (p, i) in &more {
            take(p, *i, &mut points, &mut basis);
        }
    }
    if points.len() < d {
        // W has no interior (its lifted points span less than R⁷) and holds 0: it lies in a
        // hyperplane through 0, whose normal's h_W (either sign) is q1's upper bound.
        let n = basis.complement();
        let a: [f64; 6] = std::array::from_fn(|k| n[k + 1]);
        if let Some(u) = unit6(&a) {
            for u in [u, u.map(|v| -v)] {
                let h = w.support(&u);
                b.queries += 1;
                b.offer(&u, h);
            }
        }
        return None;
    }
    let mut e0 = [0.0; MAX_DIM];
    e0[0] = 1.0;
    let (units, raws): (Vec<Vector>, Vec<Vector>) = points.iter().map(lift).unzip();
    let ids: Vec<u32> = (0..d as u32).collect();
    let mut hull = Hull::default();
    hull.float_normals = float_normals;
    hull.coarse = if coarse { COARSE } else { 0.0 };
    if hull.start(d, &e0, &units, &raws, &ids).is_err() {
        return None;
    }
    let offset = |n: &Vector| -> Option<([f64; 6], f64)> {
        let a: [f64; 6] = std::array::from_fn(|k| n[k + 1]);
        let na = dot(&a, &a).sqrt();
        (na > 0.0).then(|| (a.map(|v| -v / na), s * n[0] / na))
    };
    let mut lower = f64::NEG_INFINITY;
    while b.queries < MAX_QUERIES && hull.faces.len() < MAX_FACES {
        let f = hull.nearest()?;
        let face = hull.faces[f as usize];
        let (u, off) = offset(&face.normal)?;
        // The nearest face is the least: its offset bounds q1 from below (checked below).
        lower = off;
        let (h, q, source) = w.support_point(&u);
        b.queries += 1;
        b.offer(&u, h);
        if decided(lower.max(b.lower), b.upper, ask) {
            break;
        }
        let (unit, raw) = lift(&q);
        if hull.add(&unit, &raw, points.len() as u32, f).is_err() {
            break;
        }
        points.push(q);
        sources.push(source);
    }
    // The bound from below: the hull's faces a closed cycle around e₀, each face's plane at
    // least `lower` from 0; proven by the checker on the points the hull used where
    // `W::CHECK_HULL`, else by the hull's faces' cone being pointed.
    // With a proof asked, the checked proof is the answer's.
    if lower > b.lower || ask.proof {
        let (proven, proof) = if W::CHECK_HULL {
            // The hull as it ends; where the checker finds a fold in it, as it was before each
            // add that folded, latest first (a bound from below all the same, if a lesser one).
            let least = |faces: &mut dyn Iterator<Item = &Face>| {
                faces
                    .filter_map(|f| offset(&f.normal).map(|(_, v)| v))
                    .fold(f64::INFINITY, f64::min)
            };
            let checked = check_lower(&hull, hull.live(), &points, lower).or_else(|| {
                (0..hull.unfolded.len()).rev().find_map(|k| {
                    let before = least(&mut hull.before_fold(k));
                    check_lower(&hull, hull.before_fold(k), &points, before)
                        .map(|(c, p)| (c.min(before), p))
                })
            });
            match checked {
                Some((c, mut p)) => {
                    p.points = points
                        .iter()
                        .zip(&sources)
                        .map(|(q, &i)| disc_point(i, q))
                        .collect();
                    (Some(c.min(lower)), Some(Proof::Inner(p)))
                }
                None => (None, None),
            }
        } else {
            (hull.interior().map(|_| lower), None)
        };
        if let Some(proven) = proven {
            b.lower = b.lower.max(proven);
        }
        return proof.filter(|_| ask.proof);
    }
    None
}

/// The checker's bound from below for the hull over `points` (generators `(1, w)`) and the
/// proof it checked (its generators the points, in order), or `None` when it does not pass.
fn check_lower<'h>(
    hull: &Hull,
    faces: impl Iterator<Item = &'h Face>,
    points: &[[f64; 6]],
    lower: f64,
) -> Option<(f64, InnerProof)> {
    let d = MAX_DIM;
    let lifted: Vec<f64> = points
        .iter()
        .flat_map(|p| std::iter::once(1.0).chain(p.iter().copied()))
        .collect();
    // Each face as its points' generator indices (the checker turns each face itself).
    let faces: Vec<Vec<u32>> = faces
        .map(|f| {
            f.points[..d - 1]
                .iter()
                .map(|&p| hull.ids[p as usize])
                .collect()
        })
        .collect();
    let upper = faces.first()?.clone();
    let mut e0 = vec![0.0; d];
    e0[0] = 1.0;
    let p = InnerProof {
        measure: Measure::Grasp,
        interior: e0.clone(),
        lines: Vec::new(),
        faces,
        lower: lower - EPS * lower.abs(),
        upper,
        holds: None,
        points: Vec::new(),
    };
    let p = Proof::Inner(p);
    let c = proof::check(&lifted, d, &e0, &p).ok()?.lower;
    match p {
        Proof::Inner(p) => Some((c, p)),
        Proof::Nearest(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two contacts with one normal: every force has unit normal part, so W keeps at least
    /// 1 from 0 along −n and q1 ≤ −1 (a support point off its disc once broke this).
    #[test]
    fn two_contacts_with_one_normal_stay_out() {
        let n = [-0.1268373188957942, -0.6628934873041465, 0.7378919426481588];
        let t = crate::scene::tangent_basis(n).0;
        let discs = [
            Disc {
                p: [
                    -0.004073856168643691,
                    0.08230960933008166,
                    -0.013760194014265712,
                ],
                n,
                mu: 0.3006123776547481,
                contact: 0,
                t,
            },
            Disc {
                p: [
                    0.05447740521054323,
                    -0.0023103625298148862,
                    -0.07971503159634277,
                ],
                n,
                mu: 0.3006123776547481,
                contact: 1,
                t,
            },
        ];
        let o = quality(
            &Discs::new(&discs, 0.12935364268032037),
            &[],
            Ask {
                tol: 1e-9,
                at_least: None,
                lower: f64::NEG_INFINITY,
                proof: false,
            },
        );
        assert!(o.closed && o.q1 <= -1.0 && o.q1_lower <= o.q1, "{o:?}");
        assert_eq!(o.force_closure, Decided::False);
    }
}
