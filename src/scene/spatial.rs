//! Spatial scenes (docs/contract-spatial.md, docs/contract-scenes.md): a 3-D body on point, edge and face contacts, its
//! friction pyramids, the wrenches they give in R⁶ and the needs of its mass × centre-of-mass
//! box. The one place of the pyramid's edges ([`pyramid_edges`]) and of the wrench of a force
//! ([`wrench`]): the generators, the general engine's sample cases and the pictures use them.

use serde::Serialize;
use serde_json::Value;

use super::slip::{sliding_ray, slip_direction};
use super::types::Friction;

/// Most pyramid edges a contact point may have (docs/contract-spatial.md §2), and how far `"coulomb"`
/// refines.
pub const MAX_PYRAMID: usize = 64;

/// Fewest pyramid edges.
pub(crate) const MIN_PYRAMID: usize = 3;

/// Default pyramid edges.
pub(crate) const DEFAULT_PYRAMID: usize = 4;

/// How the Coulomb cone `|f_t| ≤ μ f_n` becomes a pyramid (docs/contract-spatial.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FrictionModel {
    /// The pyramid inside the cone (`μ' = μ`): a witness proves the true cone holds.
    Inner,
    /// The pyramid around the cone (`μ' = μ / cos(π/k)`): a certificate proves it cannot.
    Outer,
    /// Both: held when the inner holds, not held when the outer is certified, else
    /// uncertain (after refining k up to [`MAX_PYRAMID`]).
    Coulomb,
    /// The true cones, no pyramid (grasp lines only, docs/contract-grasp.md §5): q1
    /// bracketed by the support function's search (`crate::general::circular`); the
    /// inner pyramids at the line's k answer alongside.
    Circular,
}

impl FrictionModel {
    /// The name the input and the answers use.
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            FrictionModel::Inner => "inner",
            FrictionModel::Outer => "outer",
            FrictionModel::Coulomb => "coulomb",
            FrictionModel::Circular => "circular",
        }
    }
}

/// Which pyramid the generators are built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pyramid {
    /// Edges on the Coulomb cone: `μ' = μ`.
    Inner,
    /// Edges around it: `μ' = μ / cos(π/k)`.
    Outer,
}

/// One contact (docs/contract-spatial.md §2): 1 point, 2 (an edge) or 3+ (a convex face), relative to
/// the reference point, in the scene's length unit; the inward unit normal; friction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpatialContact {
    /// Body pair id.
    pub pair: u64,
    /// Position in the input list.
    pub source: usize,
    /// Application points: the point, the edge's endpoints or the face's vertices.
    pub points: Vec<[f64; 3]>,
    /// Inward unit normal (normalised from the input).
    pub normal: [f64; 3],
    /// Friction coefficient; the generators use its lower end.
    pub mu: Friction,
    /// The body's velocity relative to the other body at the contact, as given, when the
    /// contact slides (docs/contract-scenes.md): then one ray per point, `sliding_ray`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slip: Option<[f64; 3]>,
}

impl SpatialContact {
    /// "point", "edge" or "face".
    pub fn kind(&self) -> &'static str {
        match self.points.len() {
            1 => "point",
            2 => "edge",
            _ => "face",
        }
    }

    /// "contact 2 (pair 1)".
    pub(crate) fn label(&self) -> String {
        format!("contact {} (pair {})", self.source, self.pair)
    }

    /// The unit tangential direction of the slip ([`slip_direction`]), when the contact
    /// slides (the parser refuses a slip without one).
    pub(crate) fn slip_direction(&self) -> Option<[f64; 3]> {
        slip_direction(self.normal, self.slip?)
    }

    /// The force directions at each point, in generator order: the pyramid's `k` edges
    /// ([`SpatialContact::edges`]) of a contact that sticks, the one [`sliding_ray`] of one
    /// that slides (the same for every pyramid and `friction`: it lies on the true cone).
    pub(crate) fn rays(&self, k: usize, pyramid: Pyramid) -> Vec<[f64; 3]> {
        match self.sliding_ray() {
            Some(r) => vec![r],
            None => self.edges(k, pyramid),
        }
    }

    /// The one [`sliding_ray`] of a contact that slides.
    pub(crate) fn sliding_ray(&self) -> Option<[f64; 3]> {
        Some(sliding_ray(
            self.normal,
            self.mu.lower(),
            self.slip_direction()?,
        ))
    }

    /// Rays a point: 1 when the contact slides, else `k`.
    pub(crate) fn rays_per_point(&self, k: usize) -> usize {
        if self.slip.is_some() {
            1
        } else {
            k
        }
    }

    /// The pyramid's edge directions at this contact for `k` edges (docs/contract-spatial.md §2).
    pub fn edges(&self, k: usize, pyramid: Pyramid) -> Vec<[f64; 3]> {
        let mu = self.mu.lower();
        let mu = match pyramid {
            Pyramid::Inner => mu,
            Pyramid::Outer => mu / (std::f64::consts::PI / k as f64).cos(),
        };
        pyramid_edges(self.normal, mu, k)
    }
}

/// docs/contract-spatial.md §2's tangent basis of a unit normal: `t₁ = normalize(a × n)`, `a` the
/// coordinate axis of the smallest `|nᵢ|` (the first on ties), `t₂ = n × t₁`.
pub(crate) fn tangent_basis(n: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let mut a = [0.0; 3];
    let mut i = 0;
    for j in 1..3 {
        if n[j].abs() < n[i].abs() {
            i = j;
        }
    }
    a[i] = 1.0;
    let t1 = cross(a, n);
    let l = norm3(t1);
    let t1 = t1.map(|v| v / l);
    (t1, cross(n, t1))
}

/// The `k` edges `r_j = n + μ(cos θ_j t₁ + sin θ_j t₂)`, `θ_j = 2πj/k`, of the friction
/// pyramid at a unit normal `n` (docs/contract-spatial.md §2).
pub fn pyramid_edges(n: [f64; 3], mu: f64, k: usize) -> Vec<[f64; 3]> {
    let (t1, t2) = tangent_basis(n);
    let edge = |(s, c): (f64, f64)| std::array::from_fn(|a| n[a] + mu * (c * t1[a] + s * t2[a]));
    match circle(k) {
        Some(angles) => angles.iter().map(|&sc| edge(sc)).collect(),
        None => (0..k).map(|j| edge(angle(j, k))).collect(),
    }
}

/// `(sin θ_j, cos θ_j)` of `θ_j = 2πj/k`.
fn angle(j: usize, k: usize) -> (f64, f64) {
    (std::f64::consts::TAU * j as f64 / k as f64).sin_cos()
}

/// Every [`angle`] of `k` edges, for each `k` a pyramid may have (up to [`MAX_PYRAMID`]),
/// computed once: the same numbers, without a sine and a cosine per edge of every contact.
fn circle(k: usize) -> Option<&'static [(f64, f64)]> {
    static CIRCLES: std::sync::OnceLock<Vec<Vec<(f64, f64)>>> = std::sync::OnceLock::new();
    let circles = CIRCLES.get_or_init(|| {
        (0..=MAX_PYRAMID)
            .map(|k| (0..k).map(|j| angle(j, k)).collect())
            .collect()
    });
    circles.get(k).map(Vec::as_slice)
}

/// The pyramids a scene's cone tests use, in the order their cases are pushed.
pub(crate) fn pyramids(friction: FrictionModel) -> &'static [Pyramid] {
    match friction {
        FrictionModel::Inner | FrictionModel::Circular => &[Pyramid::Inner],
        FrictionModel::Outer => &[Pyramid::Outer],
        FrictionModel::Coulomb => &[Pyramid::Inner, Pyramid::Outer],
    }
}

/// The pyramid the margins, witnesses and the support region come from.
pub fn main_pyramid(friction: FrictionModel) -> Pyramid {
    pyramids(friction)[0]
}

/// The dimensionless wrench of force `f` at point `p` (docs/contract-spatial.md §1):
/// `(f, ((p − c) × f)/ℓ)`, with `p` already relative to the reference point `c`.
pub fn wrench(p: [f64; 3], f: [f64; 3], half_size: f64) -> [f64; 6] {
    let t = cross(p, f);
    [
        f[0],
        f[1],
        f[2],
        t[0] / half_size,
        t[1] / half_size,
        t[2] / half_size,
    ]
}

/// The body: half-size ℓ (the moment unit), nominal mass and the box of masses and
/// horizontal centre-of-mass offsets `(δ_x, δ_y)` to hold over (docs/contract-scenes.md).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpatialBody {
    /// ℓ > 0.
    pub half_size: f64,
    /// `m0` > 0: forces are in units of `m0·g`.
    pub mass_nominal: f64,
    /// `[lo, hi]` in the nominal mass's units.
    pub mass_range: [f64; 2],
    /// `[[δx_lo, δx_hi], [δy_lo, δy_hi]]` in the scene's length unit.
    pub com_offset: [[f64; 2]; 2],
}

impl SpatialBody {
    /// The corners of the mass × δ_x × δ_y box as `(mass, [δ_x, δ_y])`, in need order: mass
    /// outer, then δ_x, then δ_y, lower ends first; equal ends give one value.
    pub(crate) fn corners(&self) -> Vec<(f64, [f64; 2])> {
        let mut out = Vec::with_capacity(8);
        for m in values(self.mass_range) {
            for dx in values(self.com_offset[0]) {
                for dy in values(self.com_offset[1]) {
                    out.push((m, [dx, dy]));
                }
            }
        }
        out
    }

    /// What the contacts must supply for mass `m` with its centre of mass at `c + δ`
    /// (docs/contract-spatial.md §1): `(0, 0, a, a·δ_y/ℓ, −a·δ_x/ℓ, 0)`, `a = m/m0`.
    pub(crate) fn need(&self, mass: f64, offset: [f64; 2]) -> [f64; 6] {
        let a = mass / self.mass_nominal;
        let l = self.half_size;
        [0.0, 0.0, a, a * offset[1] / l, -(a * offset[0]) / l, 0.0]
    }
}

fn values(iv: [f64; 2]) -> Vec<f64> {
    if iv[0] == iv[1] {
        vec![iv[0]]
    } else {
        iv.to_vec()
    }
}

/// A spatial scene (`"dim": 3`), validated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpatialScene {
    /// The input's `id`, echoed as given.
    pub id: Value,
    /// Size, mass and centre-of-mass box.
    pub body: SpatialBody,
    /// Edges of each contact point's pyramid as given (refined by `"coulomb"`).
    pub pyramid: usize,
    /// How friction is linearised.
    pub friction: FrictionModel,
    /// Contacts in input order.
    pub contacts: Vec<SpatialContact>,
    /// Least robust margin the gate accepts.
    pub margin_min: f64,
    /// A grasp line's threshold (`"q1_at_least"`): answer whether q1 ≥ it, stopping as soon
    /// as the bracket decides it.
    pub q1_at_least: Option<f64>,
    /// A grasp line's `"tolerance"`: how far apart, relative to the grasp's scale, the
    /// bracket `[q1_lower, q1]` may stay (default [`crate::general::EPS`], 1e-9).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
}

/// Where a spatial generator comes from: contact, application point, pyramid edge (or the
/// sliding ray).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct SpatialSource {
    /// Index into `SpatialScene::contacts`.
    pub contact: usize,
    /// Index into that contact's points.
    pub point: usize,
    /// Pyramid edge `j` (θ_j = 2πj/k); 0 for the sliding ray.
    pub edge: usize,
    /// The generator is the contact's sliding ray ([`sliding_ray`]), not a pyramid edge.
    pub sliding: bool,
}

impl SpatialScene {
    /// Application points of all contacts, in generator order.
    pub(crate) fn point_count(&self) -> usize {
        self.contacts.iter().map(|c| c.points.len()).sum()
    }

    /// Generators with `k` edges a point: Σ points × k, a sliding contact's points one each.
    pub fn generator_count(&self, k: usize) -> usize {
        self.contacts
            .iter()
            .map(|c| c.points.len() * c.rays_per_point(k))
            .sum()
    }

    /// Whether some contact slides.
    pub(crate) fn slides(&self) -> bool {
        self.contacts.iter().any(|c| c.slip.is_some())
    }

    /// The generators in R⁶ for `k` edges a point, in docs/contract-spatial.md §2's order:
    /// contacts in input order, then points, then edges j (a sliding contact's one ray
    /// where its edges would stand).
    pub fn generators(&self, k: usize, pyramid: Pyramid) -> Vec<[f64; 6]> {
        let mut out = Vec::with_capacity(self.generator_count(k));
        for c in &self.contacts {
            let rays = c.rays(k, pyramid);
            for &p in &c.points {
                out.extend(rays.iter().map(|&r| wrench(p, r, self.body.half_size)));
            }
        }
        out
    }

    /// Which contact, point and edge generator `index` comes from, for `k` edges a point.
    pub(crate) fn source(&self, index: usize, k: usize) -> Option<SpatialSource> {
        let mut at = index;
        for (ci, c) in self.contacts.iter().enumerate() {
            let per = c.rays_per_point(k);
            if at < c.points.len() * per {
                return Some(SpatialSource {
                    contact: ci,
                    point: at / per,
                    edge: at % per,
                    sliding: c.slip.is_some(),
                });
            }
            at -= c.points.len() * per;
        }
        None
    }

    /// "contact 1 (pair 3) point 2 edge 0" ("… sliding ray" for a sliding contact's) for
    /// generator `index`: every witness's sources are named, so written piece by piece (the
    /// formatting machinery took a twentieth of a spatial scene's time).
    pub(crate) fn describe(&self, index: usize, k: usize) -> String {
        let Some(s) = self.source(index, k) else {
            return format!("generator {index} (not in this scene)");
        };
        let c = &self.contacts[s.contact];
        let mut out = String::with_capacity(48);
        let mut digits = itoa::Buffer::new();
        out.push_str("contact ");
        out.push_str(digits.format(c.source));
        out.push_str(" (pair ");
        out.push_str(digits.format(c.pair));
        out.push(')');
        if c.points.len() != 1 {
            out.push_str(" point ");
            out.push_str(digits.format(s.point));
        }
        if s.sliding {
            out.push_str(" sliding ray");
        } else {
            out.push_str(" edge ");
            out.push_str(digits.format(s.edge));
        }
        out
    }

    /// `(mass, δ)` of every need, in need order ([`SpatialBody::corners`]).
    pub(crate) fn need_points(&self) -> Vec<(f64, [f64; 2])> {
        self.body.corners()
    }

    /// The needs at the corners of the mass × centre-of-mass box.
    pub fn needs(&self) -> Vec<[f64; 6]> {
        self.need_points()
            .into_iter()
            .map(|(m, d)| self.body.need(m, d))
            .collect()
    }

    /// The needs the engine is asked, and for every need (in need order) which of them
    /// answers it and at what scale. A need is `a·u(δ)` (`a = m/m0`) and a cone's answers
    /// scale with the need ([`crate::general::GeneralOutcome::scaled`]), so a mass range
    /// asks only the lightest mass's needs, one a centre-of-mass offset: the heavier one's
    /// are theirs scaled by `a/a_lightest` ≥ 1.
    pub(crate) fn asked_needs(&self) -> (Vec<[f64; 6]>, Vec<(usize, f64)>) {
        let needs = self.needs();
        let masses = values(self.body.mass_range).len();
        let offsets = needs.len() / masses;
        // Each need's `a` is its third entry, exactly.
        let scales: Vec<(usize, f64)> = (0..needs.len())
            .map(|j| (j % offsets, needs[j][2] / needs[j % offsets][2]))
            .collect();
        if masses == 1 || !scales.iter().all(|&(_, r)| r.is_finite() && r >= 1.0) {
            let every = (0..needs.len()).map(|j| (j, 1.0)).collect();
            return (needs, every);
        }
        (needs[..offsets].to_vec(), scales)
    }
}

/// A certificate read as the motion gravity would make (docs/contract-spatial.md §1): `y` with
/// `y·w ≥ 0` for every contact wrench is a twist whose point `p` moves at
/// `v(p) = y_f + (y_τ × p)/ℓ`, so that `y·w = v(p)·f` is the power of a force `f` at `p`:
/// no contact resists it, and gravity does work along it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum Twist {
    /// A turn about the screw axis through `point` (the axis's point nearest the reference
    /// point) along the unit `axis`, advancing `pitch` (length per radian) along it.
    Turn {
        /// Nearest point of the axis to the reference point, in the scene's length unit.
        point: [f64; 3],
        /// Unit direction of the angular velocity.
        axis: [f64; 3],
        /// Advance along the axis per radian of turn (0 for a pure tip).
        pitch: f64,
    },
    /// A translation along the unit `direction` (no turn).
    Slide {
        /// Unit direction of the velocity.
        direction: [f64; 3],
    },
}

impl Twist {
    /// The motion of certificate `y` of a body of half-size `half_size`: a slide when the
    /// turning part is below 1e-9 of the whole.
    pub(crate) fn of_certificate(y: &[f64; 6], half_size: f64) -> Twist {
        let v = [y[0], y[1], y[2]];
        let w = [y[3] / half_size, y[4] / half_size, y[5] / half_size];
        let (nv, nw) = (norm3(v), norm3([y[3], y[4], y[5]]));
        if nw <= 1e-9 * (nv + nw) || nw == 0.0 {
            let l = nv.max(f64::MIN_POSITIVE);
            return Twist::Slide {
                direction: v.map(|c| c / l),
            };
        }
        let w2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
        let point = cross(w, v).map(|c| c / w2);
        let pitch = (w[0] * v[0] + w[1] * v[1] + w[2] * v[2]) / w2;
        let l = w2.sqrt();
        Twist::Turn {
            point,
            axis: w.map(|c| c / l),
            pitch,
        }
    }

    /// "a turn about the axis through (0.1, 0, -0.5) along (0, -1, 0)", "a slide along (…)".
    pub(crate) fn describe(&self) -> String {
        let f = |v: [f64; 3]| {
            let v = v.map(|c| if c.abs() < 5e-6 { 0.0 } else { c });
            format!("({:.4}, {:.4}, {:.4})", v[0], v[1], v[2])
        };
        match *self {
            Twist::Turn { point, axis, pitch } if pitch.abs() < 1e-9 => {
                format!(
                    "a turn about the axis through {} along {}",
                    f(point),
                    f(axis)
                )
            }
            Twist::Turn { point, axis, pitch } => format!(
                "a screw about the axis through {} along {}, pitch {:.4}",
                f(point),
                f(axis),
                pitch
            ),
            Twist::Slide { direction } => format!("a slide along {}", f(direction)),
        }
    }
}

pub(crate) fn cross(u: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

pub(crate) fn norm3(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a + s·b`.
pub(crate) fn add(a: [f64; 3], b: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each generator's source is named as `format!` named it: a one-point contact's edges,
    /// a two-point contact's points and edges, a sliding contact's rays, and an index past
    /// the scene.
    #[test]
    fn every_generator_is_named_by_its_contact_point_and_edge() {
        let line = r#"{"id": "t", "dim": 3, "half_size": 0.5, "pyramid": 4, "contacts": [
            {"pair": 3, "points": [[0, 0, -0.5]], "normal": [0, 0, 1], "mu": 0.5},
            {"pair": 7, "points": [[0.1, 0, -0.5], [0.2, 0, -0.5]], "normal": [0, 0, 1], "mu": 0.5},
            {"pair": 12, "points": [[0.5, 0, 0], [0.5, 0.1, 0]], "normal": [-1, 0, 0], "mu": 0.3,
             "slip": [0, 1, 0]}]}"#;
        let scene = crate::scene::spatial_parse::parse_spatial(line).unwrap();
        let k = scene.pyramid;
        let mut expected = Vec::new();
        for e in 0..4 {
            expected.push(format!("contact 0 (pair 3) edge {e}"));
        }
        for p in 0..2 {
            for e in 0..4 {
                expected.push(format!("contact 1 (pair 7) point {p} edge {e}"));
            }
        }
        for p in 0..2 {
            expected.push(format!("contact 2 (pair 12) point {p} sliding ray"));
        }
        expected.push(format!("generator {} (not in this scene)", expected.len()));
        let named: Vec<String> = (0..expected.len()).map(|i| scene.describe(i, k)).collect();
        assert_eq!(named, expected);
    }

    #[test]
    fn tangent_basis_is_orthonormal_and_follows_the_spec() {
        for n in [
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
            [0.6, 0.0, 0.8],
            [0.0, -1.0, 0.0],
        ] {
            let (t1, t2) = tangent_basis(n);
            let d = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            assert!(d(t1, n).abs() < 1e-15 && d(t2, n).abs() < 1e-15 && d(t1, t2).abs() < 1e-15);
            assert!((norm3(t1) - 1.0).abs() < 1e-15 && (norm3(t2) - 1.0).abs() < 1e-15);
        }
        // n = z: a = x (first of the ties), t1 = x × z = (0, −1, 0), t2 = z × t1 = (1, 0, 0)
        let (t1, t2) = tangent_basis([0.0, 0.0, 1.0]);
        assert_eq!(t1, [0.0, -1.0, 0.0]);
        assert_eq!(t2, [1.0, 0.0, 0.0]);
    }

    #[test]
    fn a_tipping_certificate_turns_about_the_edge_and_a_sliding_one_slides() {
        // The face x in [0.1, 0.5] under a body whose centre of mass is at x = 0: it tips
        // about the face's edge x = 0.1, z = −0.5 (ℓ = 0.5).
        let y = [
            -0.7001400420140048,
            0.0,
            -0.14002800840280097,
            0.0,
            -0.7001400420140053,
            0.0,
        ];
        match Twist::of_certificate(&y, 0.5) {
            Twist::Turn { point, axis, pitch } => {
                assert!((point[0] - 0.1).abs() < 1e-12 && (point[2] + 0.5).abs() < 1e-12);
                assert!((axis[1].abs() - 1.0).abs() < 1e-12 && pitch.abs() < 1e-12);
            }
            m => panic!("{m:?}"),
        }
        let y = [0.9993887756197336, 0.0, -0.0349581916764813, 0.0, 0.0, 0.0];
        assert!(matches!(
            Twist::of_certificate(&y, 0.5),
            Twist::Slide { .. }
        ));
    }

    #[test]
    fn the_outer_pyramid_circumscribes_the_cone() {
        let c = SpatialContact {
            pair: 0,
            source: 0,
            points: vec![[0.0; 3]],
            normal: [0.0, 0.0, 1.0],
            mu: Friction::Value(0.5),
            slip: None,
        };
        for k in [3, 4, 8] {
            let e = c.edges(k, Pyramid::Outer);
            // the midpoint of two neighbouring edges lies on the Coulomb cone
            let m: [f64; 3] = std::array::from_fn(|a| (e[0][a] + e[1][a]) / 2.0);
            assert!((m[0].hypot(m[1]) - 0.5 * m[2]).abs() < 1e-12);
        }
    }
}
