//! Contacts, bodies and scenes; the generators (docs/contract-planar.md §2) and needs (docs/contract-planar.md §3, §8) they give.

use serde::Serialize;
use serde_json::Value;

use super::slip::{sliding_ray, slip_direction};
use super::LINE_TOLERANCE;
use crate::{Case, CaseKind, Error};

/// Friction coefficient: a number, or an interval `[lo, hi]` whose worst case is `lo` (docs/contract-planar.md §8).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Friction {
    /// One coefficient μ ≥ 0.
    Value(f64),
    /// `[lo, hi]` with `0 ≤ lo ≤ hi`: uncertain friction, held only if held at `lo`.
    Interval([f64; 2]),
}

impl Friction {
    /// The `mu` of a contact from its JSON value, in the words of every scene (planar and
    /// spatial alike); `who` names the contact ("contact 2 (pair 1)", "contacts[2]").
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when it is neither a number nor `[lo, hi]` of finite numbers, is
    /// negative, or is an interval upside down.
    pub(crate) fn parse(who: impl std::fmt::Display, v: &Value) -> Result<Friction, Error> {
        let input = |m: String| Err(Error::Input(format!("{who}: mu {m}")));
        let num = |x: &Value| x.as_f64().filter(|f| f.is_finite());
        let f = match v {
            Value::Number(_) => num(v).map(Friction::Value),
            Value::Array(a) if a.len() == 2 => num(&a[0])
                .zip(num(&a[1]))
                .map(|(lo, hi)| Friction::Interval([lo, hi])),
            _ => None,
        };
        match f {
            None => input(format!("must be a number or an interval [lo, hi], got {v}")),
            Some(Friction::Value(m)) if m < 0.0 => input(format!(
                "= {m} is negative: a friction coefficient is at least 0"
            )),
            Some(Friction::Interval([lo, hi])) if lo > hi => input(format!(
                "interval [{lo}, {hi}] is upside down (lower end above upper end)"
            )),
            Some(Friction::Interval([lo, hi])) if lo < 0.0 => input(format!(
                "interval [{lo}, {hi}] is negative: a friction coefficient is at least 0"
            )),
            Some(f) => Ok(f),
        }
    }

    /// The μ the generators use: the value, or the interval's lower end.
    pub fn lower(&self) -> f64 {
        match *self {
            Friction::Value(v) => v,
            Friction::Interval([lo, _]) => lo,
        }
    }
}

/// One contact of a body pair (docs/contract-planar.md §2): the segment `[p0, p1]` (a point when equal), relative
/// to the reference point, with its inward unit normal and friction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Contact {
    /// Body pair id.
    pub pair: u64,
    /// Position in the input list (`contacts`, or `before` for an edit).
    pub source: usize,
    /// First endpoint `(x, z)` relative to the reference point, in the units of `half_size`.
    pub p0: [f64; 2],
    /// Second endpoint; equal to `p0` for a point contact.
    pub p1: [f64; 2],
    /// Inward unit normal (normalised from the input).
    pub normal: [f64; 2],
    /// Friction coefficient (the generators use [`Friction::lower`], at most `MU_MAX` (100)).
    pub mu: Friction,
    /// The body's velocity `[vx, vz]` relative to the other body at the contact, as given,
    /// when the contact slides (docs/contract-scenes.md): then one ray per endpoint,
    /// `sliding_ray`, in place of the two edge rays.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slip: Option<[f64; 2]>,
}

impl Contact {
    /// Tangent `t = (n_z, −n_x)` (docs/contract-planar.md §2).
    pub(crate) fn tangent(&self) -> [f64; 2] {
        [self.normal[1], -self.normal[0]]
    }

    /// The μ the generators use: the interval's lower end (docs/contract-planar.md §8), at most
    /// [`MU_MAX`](super::MU_MAX).
    pub(crate) fn friction(&self) -> f64 {
        self.mu.lower().min(super::MU_MAX)
    }

    /// The friction cone's edge-ray directions `n + μt` then `n − μt` (docs/contract-planar.md §2), with
    /// [`Contact::friction`]: the forces the generators and the pictures both use.
    pub(crate) fn edge_directions(&self) -> [[f64; 2]; 2] {
        edge_directions(self.normal, self.friction())
    }

    /// The unit tangential direction of the slip, `±t` ([`slip_direction`]), when the
    /// contact slides (the parser refuses a slip without one).
    pub(crate) fn slip_direction(&self) -> Option<[f64; 2]> {
        slip_direction(self.normal, self.slip?)
    }

    /// The force directions at each endpoint, in generator order: the edge rays
    /// ([`Contact::edge_directions`]) of a contact that sticks, the one [`sliding_ray`]
    /// `n − μ·sign(v·t)·t` of one that slides.
    pub(crate) fn rays(&self) -> Vec<[f64; 2]> {
        match self.sliding_ray() {
            Some(r) => vec![r],
            None => self.edge_directions().to_vec(),
        }
    }

    /// The one [`sliding_ray`] of a contact that slides.
    pub(crate) fn sliding_ray(&self) -> Option<[f64; 2]> {
        Some(sliding_ray(
            self.normal,
            self.friction(),
            self.slip_direction()?,
        ))
    }

    /// The direction of ray `ray` of [`GeneratorSource::ray`]: `+1` `n + μt`, `−1` `n − μt`,
    /// `0` the sliding ray.
    pub(crate) fn ray(&self, ray: i8) -> [f64; 2] {
        match (ray, self.sliding_ray()) {
            (0, Some(r)) => r,
            _ => self.edge_directions()[usize::from(ray < 0)],
        }
    }

    /// Generators of the contact: 2 endpoints × (1 ray sliding, else 2).
    pub(crate) fn generator_count(&self) -> usize {
        if self.slip.is_some() {
            2
        } else {
            4
        }
    }

    /// Whether the contact is a point (endpoints equal within `tol`).
    pub(crate) fn is_point(&self, tol: f64) -> bool {
        dist(self.p0, self.p1) <= tol
    }

    /// "contact 2 (pair 1)".
    pub(crate) fn label(&self) -> String {
        format!("contact {} (pair {})", self.source, self.pair)
    }
}

/// The box: half-size ℓ (moment unit), nominal mass and the box of masses and centre-of-mass
/// x-offsets to hold over (docs/contract-planar.md §3, §8).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Body {
    /// Half-size ℓ of the box (> 0): the length unit of moments (docs/contract-planar.md §2).
    pub half_size: f64,
    /// Nominal mass `m0` (> 0): forces are in units of `m0·g` (docs/contract-planar.md §2).
    pub mass_nominal: f64,
    /// `[lo, hi]`, same units as the nominal mass.
    pub mass_range: [f64; 2],
    /// `[lo, hi]`, offset of the centre of mass from the reference point along x.
    pub com_offset_x: [f64; 2],
}

impl Body {
    /// The corners of the mass × centre-of-mass box as `(mass, com_offset_x)`, in need order:
    /// mass outer, offset inner, lower ends first; equal ends give one value.
    pub(crate) fn corners(&self) -> Vec<(f64, f64)> {
        let masses = interval_values(self.mass_range);
        let offsets = interval_values(self.com_offset_x);
        masses
            .iter()
            .flat_map(|&m| offsets.iter().map(move |&x| (m, x)))
            .collect()
    }

    /// The need of a box of mass `m` with its centre of mass at `x` (docs/contract-planar.md §3), in f64.
    pub fn need(&self, mass: f64, com_offset_x: f64) -> [f64; 3] {
        let r = mass / self.mass_nominal;
        [0.0, r, -r * com_offset_x / self.half_size]
    }
}

/// What an edit did to each body pair (docs/contract-planar.md §9).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EditSummary {
    /// Pairs touching before and after with a non-empty overlap: these contribute.
    pub kept: Vec<u64>,
    /// Pairs touching before and after whose contact sets do not overlap (moved off the old
    /// line, or slid off): they contribute nothing.
    pub no_overlap: Vec<u64>,
    /// Pairs touching only after.
    pub made: Vec<u64>,
    /// Pairs touching only before.
    pub broken: Vec<u64>,
}

/// A scene ready for the cone test: the body, the effective contacts (after edit resolution)
/// and the margin the gate asks for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scene {
    /// The input's `id`, echoed as given (a string or a number).
    pub id: Value,
    /// Size, mass and centre-of-mass ranges of the box.
    pub body: Body,
    /// The contacts that enter the cone test, in input order (for an edit: the kept overlaps).
    pub contacts: Vec<Contact>,
    /// Least robust margin the gate accepts (docs/contract-planar.md §9; default 0).
    pub margin_min: f64,
    /// Present for an edit line.
    pub edit: Option<EditSummary>,
    /// For an edit: the contacts as given before (empty for a scene). They do not
    /// enter the cone test (the kept overlaps in `contacts` do); pictures draw them as ghosts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<Contact>,
    /// For an edit: the contacts as given after (empty for a scene); see `before`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<Contact>,
}

/// Where a generator comes from: contact, endpoint, ray.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct GeneratorSource {
    /// Index into `Scene::contacts`.
    pub contact: usize,
    /// Body pair id of that contact.
    pub pair: u64,
    /// 0: `p0`, 1: `p1`.
    pub endpoint: u8,
    /// `+1`: ray `n + μt`, `−1`: ray `n − μt`, `0`: the sliding ray `n − μ·sign(v·t)·t` of
    /// a contact that slides.
    pub ray: i8,
}

impl GeneratorSource {
    /// "contact 2 (pair 1) p0 ray n+μt" ("point" instead of `p0`/`p1` for a point contact;
    /// "sliding ray" for a sliding contact's), for reports and pictures.
    pub(crate) fn describe(&self, scene: &Scene) -> String {
        let c = &scene.contacts[self.contact];
        let end = if c.is_point(LINE_TOLERANCE * scene.body.half_size) {
            "point".to_string()
        } else {
            format!("p{}", self.endpoint)
        };
        match self.ray {
            0 => format!("{} {end} sliding ray", c.label()),
            r => format!(
                "{} {end} ray n{}μt",
                c.label(),
                if r > 0 { '+' } else { '−' }
            ),
        }
    }
}

impl Scene {
    /// The generators of docs/contract-planar.md §2 in f64, in order: contact, endpoint (p0,
    /// p1), ray (+, −; a sliding contact's one ray instead: docs/contract-scenes.md).
    pub fn generators_f64(&self) -> Vec<[f64; 3]> {
        let ell = self.body.half_size;
        let mut out = Vec::with_capacity(self.generator_count());
        for c in &self.contacts {
            let rays = c.rays();
            for p in [c.p0, c.p1] {
                out.extend(rays.iter().map(|&r| planar_wrench(p, r, ell)));
            }
        }
        out
    }

    /// Generators of the cone test: 4 a contact, 2 a sliding one.
    pub fn generator_count(&self) -> usize {
        self.contacts.iter().map(Contact::generator_count).sum()
    }

    /// Whether some contact slides.
    pub(crate) fn slides(&self) -> bool {
        self.contacts.iter().any(|c| c.slip.is_some())
    }

    /// Whether the general engine decides the scene ([`CaseKind::of`] its generators: more
    /// than 16, e.g. five sticking body pairs; docs/contract-scenes.md).
    pub fn is_general(&self) -> bool {
        CaseKind::of(3, self.generator_count()) == CaseKind::General
    }

    /// The generators as the cone test takes them.
    pub fn generators(&self) -> Vec<[f32; 3]> {
        self.generators_f64()
            .iter()
            .map(|g| g.map(|v| v as f32))
            .collect()
    }

    /// Which contact, endpoint and ray generator `index` comes from, for every generator.
    pub(crate) fn generator_sources(&self) -> Vec<GeneratorSource> {
        let mut out = Vec::with_capacity(self.generator_count());
        for (k, c) in self.contacts.iter().enumerate() {
            let rays: &[i8] = if c.slip.is_some() { &[0] } else { &[1, -1] };
            for endpoint in 0..2u8 {
                for &ray in rays {
                    out.push(GeneratorSource {
                        contact: k,
                        pair: c.pair,
                        endpoint,
                        ray,
                    });
                }
            }
        }
        out
    }

    /// `(mass, com_offset_x)` of every need, in need order (see [`Body::corners`]).
    pub(crate) fn need_points(&self) -> Vec<(f64, f64)> {
        self.body.corners()
    }

    /// The needs of docs/contract-planar.md §3 at the corners of the mass × centre-of-mass box, as f32.
    pub fn needs(&self) -> Vec<[f32; 3]> {
        self.need_points()
            .into_iter()
            .map(|(m, x)| self.body.need(m, x).map(|v| v as f32))
            .collect()
    }

    /// One cone test per need, all with the same generators.
    pub fn cases(&self) -> Result<Vec<Case>, Error> {
        let g = self.generators();
        self.needs().into_iter().map(|n| Case::new(&g, n)).collect()
    }
}

/// The two generators of docs/contract-planar.md §2 at an application point `p` (relative to the reference
/// point) with inward unit normal `n` and friction `mu`: the edge rays `n + μt` then
/// `n − μt`, `t = (n_z, −n_x)`, as wrenches `(r_x, r_z, (p × r)/ℓ)`.
pub(crate) fn edge_rays(p: [f64; 2], n: [f64; 2], mu: f64, half_size: f64) -> [[f64; 3]; 2] {
    edge_directions(n, mu).map(|r| planar_wrench(p, r, half_size))
}

/// The wrench `(r_x, r_z, (p × r)/ℓ)` of a force `r` at `p` (relative to the reference point),
/// docs/contract-planar.md §2.
pub(crate) fn planar_wrench(p: [f64; 2], r: [f64; 2], half_size: f64) -> [f64; 3] {
    [r[0], r[1], (p[1] * r[0] - p[0] * r[1]) / half_size]
}

/// The edge-ray directions `n + μt` then `n − μt`, `t = (n_z, −n_x)` (docs/contract-planar.md §2).
pub(crate) fn edge_directions(n: [f64; 2], mu: f64) -> [[f64; 2]; 2] {
    let t = [n[1], -n[0]];
    [1.0, -1.0].map(|s| [n[0] + s * mu * t[0], n[1] + s * mu * t[1]])
}

/// The values an interval takes at its corners: both ends, or one when they are equal.
fn interval_values(iv: [f64; 2]) -> Vec<f64> {
    if iv[0] == iv[1] {
        vec![iv[0]]
    } else {
        vec![iv[0], iv[1]]
    }
}

/// Euclidean distance of two points.
pub(super) fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (b[0] - a[0]).hypot(b[1] - a[1])
}

#[cfg(test)]
mod tests {
    use crate::scene::parse::parse_planar;
    use crate::scene::spatial_parse::parse_spatial;

    /// A bad μ reads the same in a planar and in a spatial line: one wording, the contact
    /// named as each scene names it.
    #[test]
    fn a_bad_mu_reads_the_same_in_every_scene() {
        let planar = |mu: &str| {
            let line = format!(
                r#"{{"id": 1, "half_size": 1, "contacts": [{{"pair": 0, "p0": [-1, -1],
                "p1": [1, -1], "normal": [0, 1], "mu": {mu}}}]}}"#
            );
            parse_planar(&line).unwrap_err().to_string()
        };
        let spatial = |mu: &str| {
            let line = format!(
                r#"{{"id": 1, "dim": 3, "half_size": 1, "contacts": [{{"pair": 0,
                "points": [[0, 0, -1]], "normal": [0, 0, 1], "mu": {mu}}}]}}"#
            );
            parse_spatial(&line).unwrap_err().to_string()
        };
        for (mu, words) in [
            (
                "-0.5",
                "mu = -0.5 is negative: a friction coefficient is at least 0",
            ),
            (
                "[0.6, 0.2]",
                "mu interval [0.6, 0.2] is upside down (lower end above upper end)",
            ),
            (
                "[-0.1, 0.2]",
                "mu interval [-0.1, 0.2] is negative: a friction coefficient is at least 0",
            ),
            (
                r#""x""#,
                r#"mu must be a number or an interval [lo, hi], got "x""#,
            ),
            (
                "[1, 2, 3]",
                "mu must be a number or an interval [lo, hi], got [1,2,3]",
            ),
        ] {
            let (p, s) = (planar(mu), spatial(mu));
            assert_eq!(
                p,
                format!("invalid input: contact 0 (pair 0): {words}"),
                "{mu}"
            );
            assert_eq!(s, format!("invalid input: contacts[0]: {words}"), "{mu}");
        }
    }
}
