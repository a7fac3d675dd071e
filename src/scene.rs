//! Physical layer (SPEC §2, §3, §8, §9): contacts, bodies, needs, robust margin, the gate over an edit.
//!
//! One JSON Lines input line is a [`Scene`] (contacts) or an edit (contacts `before` and
//! `after`, resolved into the kept contacts of SPEC §9). A scene turns into one cone test per
//! corner of its mass × centre-of-mass box ([`Scene::cases`]); [`hold_reports`] runs the cone
//! tests of many scenes in one call of [`Engine::evaluate`] and [`judge`]s each scene.
//!
//! Conventions (all computed in f64, cast to f32 only for the cone test):
//! - the normal is normalised; the tangent is `t = (n_z, −n_x)`; the rays at each endpoint are
//!   `n + μt` then `n − μt`, with `μ` the lower end of its interval, at most [`MU_MAX`];
//! - each contact gives 4 generators in the order (p0, +), (p0, −), (p1, +), (p1, −), also a
//!   point contact (`p0 = p1`); contacts keep their input order (for an edit: the order of
//!   `before`);
//! - the needs are the corners of mass × centre-of-mass offset, mass outer, offset inner, each
//!   interval lower end first; an interval whose ends are equal (or that is absent) gives one value;
//!   `need = (0, m/m0, −(m/m0)·x/ℓ)`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tables::Candidate;
use crate::{Case, Engine, Error, Outcome, Verdict, MARGIN_CAP, MAX_GENERATORS};

/// The largest friction coefficient the generators use: a larger μ (up to "no slip", 1e6 or
/// more) is taken as this one. The edge rays `n ± μt` of a larger μ lie within `1/μ` of the
/// tangent, and SPEC §7's tolerance ε = 1e-5 cannot tell them from it: from μ ≈ 1e5 on, the
/// apex `−need` supports such a cone within ε and the answer would turn to "unsupported" as μ
/// grows; well before, every witness needs forces ~μ times the need, beyond float32's
/// resolution at SPEC §7's ε·|need|. A smaller μ only shrinks the cone (SPEC §8), so a scene
/// held at this μ is held at any larger one, and its margin is a lower bound of the true one.
pub const MU_MAX: f64 = 100.0;

/// Relative tolerance (times the half-size ℓ) for "on the old contact's line" and for a
/// segment that is a point, in the edit resolution of SPEC §9.
pub const LINE_TOLERANCE: f64 = 1e-6;

// ------------------------------------------------------------------ types

/// Friction coefficient: a number, or an interval `[lo, hi]` whose worst case is `lo` (SPEC §8).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Friction {
    Value(f64),
    Interval([f64; 2]),
}

impl Friction {
    /// The μ the generators use: the value, or the interval's lower end.
    pub fn lower(&self) -> f64 {
        match *self {
            Friction::Value(v) => v,
            Friction::Interval([lo, _]) => lo,
        }
    }
}

/// One contact of a body pair (SPEC §2): the segment `[p0, p1]` (a point when equal), relative
/// to the reference point, with its inward unit normal and friction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Contact {
    /// Body pair id.
    pub pair: u64,
    /// Position in the input list (`contacts`, or `before` for an edit).
    pub source: usize,
    pub p0: [f64; 2],
    pub p1: [f64; 2],
    /// Inward unit normal (normalised from the input).
    pub normal: [f64; 2],
    pub mu: Friction,
}

impl Contact {
    /// Tangent `t = (n_z, −n_x)` (SPEC §2).
    pub fn tangent(&self) -> [f64; 2] {
        [self.normal[1], -self.normal[0]]
    }

    /// Whether the contact is a point (endpoints equal within `tol`).
    pub fn is_point(&self, tol: f64) -> bool {
        dist(self.p0, self.p1) <= tol
    }

    /// "contact 2 (pair 1)".
    pub fn label(&self) -> String {
        format!("contact {} (pair {})", self.source, self.pair)
    }
}

/// The box: half-size ℓ (moment unit), nominal mass and the box of masses and centre-of-mass
/// x-offsets to hold over (SPEC §3, §8).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Body {
    pub half_size: f64,
    pub mass_nominal: f64,
    /// `[lo, hi]`, same units as the nominal mass.
    pub mass_range: [f64; 2],
    /// `[lo, hi]`, offset of the centre of mass from the reference point along x.
    pub com_offset_x: [f64; 2],
}

impl Body {
    /// The corners of the mass × centre-of-mass box as `(mass, com_offset_x)`, in need order:
    /// mass outer, offset inner, lower ends first; equal ends give one value.
    pub fn corners(&self) -> Vec<(f64, f64)> {
        let masses = interval_values(self.mass_range);
        let offsets = interval_values(self.com_offset_x);
        masses
            .iter()
            .flat_map(|&m| offsets.iter().map(move |&x| (m, x)))
            .collect()
    }

    /// The need of a box of mass `m` with its centre of mass at `x` (SPEC §3), in f64.
    pub fn need(&self, mass: f64, com_offset_x: f64) -> [f64; 3] {
        let r = mass / self.mass_nominal;
        [0.0, r, -r * com_offset_x / self.half_size]
    }
}

/// What an edit did to each body pair (SPEC §9).
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
    pub body: Body,
    pub contacts: Vec<Contact>,
    pub margin_min: f64,
    /// Present for an edit line.
    pub edit: Option<EditSummary>,
}

/// Where a generator comes from: contact, endpoint, ray.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GeneratorSource {
    /// Index into `Scene::contacts`.
    pub contact: usize,
    pub pair: u64,
    /// 0: `p0`, 1: `p1`.
    pub endpoint: u8,
    /// `+1`: ray `n + μt`, `−1`: ray `n − μt`.
    pub ray: i8,
}

impl GeneratorSource {
    pub fn describe(&self, scene: &Scene) -> String {
        let c = &scene.contacts[self.contact];
        let end = if c.is_point(LINE_TOLERANCE * scene.body.half_size) {
            "point".to_string()
        } else {
            format!("p{}", self.endpoint)
        };
        format!(
            "{} {end} ray n{}μt",
            c.label(),
            if self.ray > 0 { '+' } else { '−' }
        )
    }
}

impl Scene {
    /// The generators of SPEC §2 in f64, in order: contact, endpoint (p0, p1), ray (+, −).
    pub fn generators_f64(&self) -> Vec<[f64; 3]> {
        let ell = self.body.half_size;
        self.contacts
            .iter()
            .flat_map(|c| {
                let mu = c.mu.lower().min(MU_MAX);
                [c.p0, c.p1].map(|p| edge_rays(p, c.normal, mu, ell))
            })
            .flatten()
            .collect()
    }

    /// The generators as the cone test takes them.
    pub fn generators(&self) -> Vec<[f32; 3]> {
        self.generators_f64()
            .iter()
            .map(|g| g.map(|v| v as f32))
            .collect()
    }

    /// Which contact, endpoint and ray generator `index` comes from, for every generator.
    pub fn generator_sources(&self) -> Vec<GeneratorSource> {
        let mut out = Vec::with_capacity(4 * self.contacts.len());
        for (k, c) in self.contacts.iter().enumerate() {
            for endpoint in 0..2u8 {
                for ray in [1i8, -1] {
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
    pub fn need_points(&self) -> Vec<(f64, f64)> {
        self.body.corners()
    }

    /// The needs of SPEC §3 at the corners of the mass × centre-of-mass box, as f32.
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

/// The two generators of SPEC §2 at an application point `p` (relative to the reference
/// point) with inward unit normal `n` and friction `mu`: the edge rays `n + μt` then
/// `n − μt`, `t = (n_z, −n_x)`, as wrenches `(r_x, r_z, (p × r)/ℓ)`.
pub fn edge_rays(p: [f64; 2], n: [f64; 2], mu: f64, half_size: f64) -> [[f64; 3]; 2] {
    let t = [n[1], -n[0]];
    [1.0, -1.0].map(|s| {
        let r = [n[0] + s * mu * t[0], n[1] + s * mu * t[1]];
        [r[0], r[1], (p[1] * r[0] - p[0] * r[1]) / half_size]
    })
}

// ------------------------------------------------------------------ input

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLine {
    id: Option<Value>,
    half_size: Option<Value>,
    mass: Option<RawMass>,
    com_offset_x: Option<[f64; 2]>,
    contacts: Option<Vec<RawContact>>,
    before: Option<Vec<RawContact>>,
    after: Option<Vec<RawContact>>,
    margin_min: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMass {
    nominal: Option<f64>,
    range: Option<[f64; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContact {
    pair: Option<Value>,
    p0: Option<[f64; 2]>,
    p1: Option<[f64; 2]>,
    normal: Option<[f64; 2]>,
    mu: Option<Value>,
}

fn input(msg: impl Into<String>) -> Error {
    Error::Input(msg.into())
}

fn finite2(what: &str, v: [f64; 2]) -> Result<[f64; 2], Error> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(v)
    } else {
        Err(input(format!("{what} {v:?} is not finite")))
    }
}

/// Validates one input contact; `list` names the list ("contact", "before contact", …).
fn contact(list: &str, index: usize, raw: RawContact) -> Result<Contact, Error> {
    let pair = match raw.pair {
        None => return Err(input(format!("{list} {index}: missing field `pair`"))),
        Some(v) => v.as_u64().ok_or_else(|| {
            input(format!(
                "{list} {index}: pair must be a non-negative integer (body pair id), got {v}"
            ))
        })?,
    };
    let who = format!("{list} {index} (pair {pair})");
    let missing = |f: &str| input(format!("{who}: missing field `{f}`"));
    let p0 = finite2(&format!("{who}: p0"), raw.p0.ok_or_else(|| missing("p0"))?)?;
    let p1 = finite2(&format!("{who}: p1"), raw.p1.ok_or_else(|| missing("p1"))?)?;
    let n = finite2(
        &format!("{who}: normal"),
        raw.normal.ok_or_else(|| missing("normal"))?,
    )?;
    let len = n[0].hypot(n[1]);
    if len <= 1e-12 {
        return Err(input(format!("{who}: normal {n:?} has zero length")));
    }
    let normal = [n[0] / len, n[1] / len];
    let mu = friction(&who, raw.mu.ok_or_else(|| missing("mu"))?)?;
    Ok(Contact {
        pair,
        source: index,
        p0,
        p1,
        normal,
        mu,
    })
}

fn friction(who: &str, v: Value) -> Result<Friction, Error> {
    let bad = || {
        input(format!(
            "{who}: mu must be a number or an interval [lo, hi], got {v}"
        ))
    };
    let num = |x: &Value| x.as_f64().filter(|f| f.is_finite());
    let f = match &v {
        Value::Number(_) => Friction::Value(num(&v).ok_or_else(bad)?),
        Value::Array(a) if a.len() == 2 => {
            Friction::Interval([num(&a[0]).ok_or_else(bad)?, num(&a[1]).ok_or_else(bad)?])
        }
        _ => return Err(bad()),
    };
    match f {
        Friction::Value(m) if m < 0.0 => Err(input(format!(
            "{who}: friction coefficient mu = {m} is negative"
        ))),
        Friction::Interval([lo, hi]) if lo > hi => Err(input(format!(
            "{who}: mu interval [{lo}, {hi}] is upside down (lower end above upper end)"
        ))),
        Friction::Interval([lo, hi]) if lo < 0.0 => Err(input(format!(
            "{who}: friction coefficient mu interval [{lo}, {hi}] is negative"
        ))),
        f => Ok(f),
    }
}

fn contact_list(list: &str, raw: Vec<RawContact>) -> Result<Vec<Contact>, Error> {
    let contacts = raw
        .into_iter()
        .enumerate()
        .map(|(i, c)| contact(list, i, c))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, a) in contacts.iter().enumerate() {
        if let Some(b) = contacts[..i].iter().find(|b| b.pair == a.pair) {
            return Err(input(format!(
                "pair {} has two contacts ({list} {} and {}): at most one contact per body pair",
                a.pair, b.source, a.source
            )));
        }
    }
    Ok(contacts)
}

/// Parses and validates one JSON line: a scene (`contacts`) or an edit (`before`, `after`,
/// resolved into the kept contacts of SPEC §9). The caller adds the line number to errors.
pub fn parse_line(text: &str) -> Result<Scene, Error> {
    let raw: RawLine = serde_json::from_str(text).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => {
            input(format!("invalid field in the JSON object: {e}"))
        }
        _ => input(format!("malformed JSON (parse error): {e}")),
    })?;
    let id = match raw.id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v,
        Some(v) => return Err(input(format!("id must be a string or a number, got {v}"))),
        None => return Err(input("missing field `id`")),
    };
    let half_size = match raw.half_size {
        None => return Err(input("missing field `half_size`")),
        Some(v) => v
            .as_f64()
            .ok_or_else(|| input(format!("half_size must be a number, got {v}")))?,
    };
    if !half_size.is_finite() || half_size <= 0.0 {
        return Err(input(format!(
            "half_size must be positive and finite, got {half_size}"
        )));
    }
    let (mass_nominal, mass_range) = match raw.mass {
        None => (1.0, [1.0, 1.0]),
        Some(m) => {
            let nominal = m
                .nominal
                .ok_or_else(|| input("mass: missing field `nominal`"))?;
            if !nominal.is_finite() || nominal <= 0.0 {
                return Err(input(format!(
                    "nominal mass must be positive and finite, got {nominal}"
                )));
            }
            let range = finite2("mass range", m.range.unwrap_or([nominal, nominal]))?;
            if range[0] > range[1] {
                return Err(input(format!(
                    "mass range [{}, {}] is upside down (lower end above upper end)",
                    range[0], range[1]
                )));
            }
            if range[0] <= 0.0 {
                return Err(input(format!(
                    "mass range [{}, {}] must be positive",
                    range[0], range[1]
                )));
            }
            (nominal, range)
        }
    };
    let com_offset_x = finite2("com_offset_x", raw.com_offset_x.unwrap_or([0.0, 0.0]))?;
    if com_offset_x[0] > com_offset_x[1] {
        return Err(input(format!(
            "com_offset_x interval [{}, {}] is upside down (lower end above upper end)",
            com_offset_x[0], com_offset_x[1]
        )));
    }
    let margin_min = raw.margin_min.unwrap_or(0.0);
    if !margin_min.is_finite() {
        return Err(input(format!("margin_min {margin_min} is not finite")));
    }
    let body = Body {
        half_size,
        mass_nominal,
        mass_range,
        com_offset_x,
    };
    let tol = LINE_TOLERANCE * half_size;
    let (contacts, edit) = match (raw.contacts, raw.before, raw.after) {
        (Some(c), None, None) => (contact_list("contact", c)?, None),
        (None, Some(b), Some(a)) => {
            let before = contact_list("before contact", b)?;
            let after = contact_list("after contact", a)?;
            let (kept, summary) = resolve_edit(&before, &after, tol);
            (kept, Some(summary))
        }
        (Some(_), _, _) => return Err(input(
            "a line has either `contacts` (a scene) or `before` and `after` (an edit), not both",
        )),
        (None, None, None) => {
            return Err(input(
                "missing field `contacts` (or `before` and `after` for an edit)",
            ))
        }
        (None, Some(_), None) => return Err(input("edit: missing field `after`")),
        (None, None, Some(_)) => return Err(input("edit: missing field `before`")),
    };
    let n = 4 * contacts.len();
    if n > MAX_GENERATORS {
        return Err(input(format!(
            "more than {MAX_GENERATORS} generators ({n}): {} contacts give 4 generators each, \
             at most 4 body pairs may touch",
            contacts.len()
        )));
    }
    let scene = Scene {
        id,
        body,
        contacts,
        margin_min,
        edit,
    };
    // The cone test runs in float32: every number it gets must be finite there.
    let sources = scene.generator_sources();
    for (k, g) in scene.generators().iter().enumerate() {
        if !g.iter().all(|v| v.is_finite()) {
            return Err(input(format!(
                "generator {k} ({}) = {g:?} is not finite in float32 (positions too large for half_size?)",
                sources[k].describe(&scene)
            )));
        }
    }
    for ((m, x), n) in scene.need_points().into_iter().zip(scene.needs()) {
        if !n.iter().all(|v| v.is_finite()) {
            return Err(input(format!(
                "the need at mass {m}, com_offset_x {x} is {n:?}, not finite in float32 \
                 (mass range too large for the nominal mass, or com offset for half_size?)"
            )));
        }
    }
    Ok(scene)
}

// ------------------------------------------------------------------ edits (SPEC §9)

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (b[0] - a[0]).hypot(b[1] - a[1])
}

/// The overlap of `new`'s contact set with `old`'s, along `old`'s line (a point contact's line
/// runs along its tangent), as a contact with `old`'s normal and μ; `None` when empty.
///
/// A point of `new` counts as on the line within `tol`. A `new` segment crossing the line
/// overlaps it in one point. The overlap's endpoints lie on the old line, in the old
/// orientation; an overlap shorter than `tol` is a point.
pub fn overlap(old: &Contact, new: &Contact, tol: f64) -> Option<Contact> {
    let len = dist(old.p0, old.p1);
    let (u, hi_old) = if len <= tol {
        (old.tangent(), 0.0)
    } else {
        (
            [(old.p1[0] - old.p0[0]) / len, (old.p1[1] - old.p0[1]) / len],
            len,
        )
    };
    let v = [-u[1], u[0]];
    // (position along the line, signed distance from it)
    let coords = |q: [f64; 2]| {
        let d = [q[0] - old.p0[0], q[1] - old.p0[1]];
        (d[0] * u[0] + d[1] * u[1], d[0] * v[0] + d[1] * v[1])
    };
    let (s0, d0) = coords(new.p0);
    let (s1, d1) = coords(new.p1);
    let (lo, hi) = match (d0.abs() <= tol, d1.abs() <= tol) {
        (true, true) => (s0.min(s1), s0.max(s1)),
        (true, false) => (s0, s0),
        (false, true) => (s1, s1),
        (false, false) if (d0 > 0.0) != (d1 > 0.0) => {
            let s = s0 + (s1 - s0) * d0 / (d0 - d1);
            (s, s)
        }
        _ => return None,
    };
    let (mut lo, mut hi) = (lo.max(0.0), hi.min(hi_old));
    if hi < lo - tol {
        return None;
    }
    if hi - lo <= tol {
        let mid = 0.5 * (lo + hi);
        lo = mid;
        hi = mid;
    }
    let at = |s: f64| [old.p0[0] + s * u[0], old.p0[1] + s * u[1]];
    Some(Contact {
        p0: at(lo),
        p1: at(hi),
        ..old.clone()
    })
}

/// The kept contacts of an edit σ → σ′ (SPEC §9), in the order of `before`, and what happened
/// to every pair.
pub fn resolve_edit(
    before: &[Contact],
    after: &[Contact],
    tol: f64,
) -> (Vec<Contact>, EditSummary) {
    let mut kept = Vec::new();
    let mut summary = EditSummary::default();
    for old in before {
        match after.iter().find(|a| a.pair == old.pair) {
            None => summary.broken.push(old.pair),
            Some(new) => match overlap(old, new, tol) {
                Some(c) => {
                    summary.kept.push(old.pair);
                    kept.push(c);
                }
                None => summary.no_overlap.push(old.pair),
            },
        }
    }
    summary.made = after
        .iter()
        .filter(|a| !before.iter().any(|b| b.pair == a.pair))
        .map(|a| a.pair)
        .collect();
    (kept, summary)
}

// ------------------------------------------------------------------ verdicts

/// A witness in physical terms: generator indices, weights (in nominal weights `m0·g`) and
/// where each generator comes from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WitnessReport {
    pub generators: Vec<u32>,
    pub weights: Vec<f64>,
    pub sources: Vec<String>,
}

/// The nearest supporting candidate of a need (SPEC §5–6).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BindingReport {
    /// Index in the candidate table.
    pub candidate: u32,
    /// The candidate, e.g. "+(w1 x w6)".
    pub kind: String,
    pub generators: Vec<u32>,
    pub sources: Vec<String>,
}

/// One need's cone test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NeedReport {
    pub mass: f64,
    pub com_offset_x: f64,
    pub need: [f32; 3],
    /// "supported", "unsupported" or "uncertain".
    pub verdict: &'static str,
    pub margin: f32,
    pub capped: bool,
    pub witness: Option<WitnessReport>,
    pub certificate: Option<[f32; 3]>,
    pub binding: Option<BindingReport>,
}

/// The need that attains the robust margin.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BindingNeed {
    /// Index into `needs`.
    pub index: usize,
    pub mass: f64,
    pub com_offset_x: f64,
}

/// The robust hold test of a scene, and the gate's answer (SPEC §8–9).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HoldReport {
    pub id: Value,
    /// Every need has a witness and the robust margin is at least `margin_min`.
    pub held: bool,
    /// Minimum of the needs' margins.
    pub robust_margin: f32,
    /// Not held only because some need lies within tolerance of its boundary: no need is
    /// certified unsupported. Never true when held.
    pub uncertain: bool,
    pub binding_need: BindingNeed,
    pub margin_min: f64,
    pub n_generators: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit: Option<EditSummary>,
    pub needs: Vec<NeedReport>,
}

fn sources_of(scene: &Scene, sources: &[GeneratorSource], gens: &[u32]) -> Vec<String> {
    gens.iter()
        .map(|&g| match sources.get(g as usize) {
            Some(s) => s.describe(scene),
            None => format!("generator {g} (not in this scene)"),
        })
        .collect()
}

fn binding_of(scene: &Scene, sources: &[GeneratorSource], o: &Outcome) -> Option<BindingReport> {
    let index = o.binding()?;
    let c = Candidate::at(index)?;
    let generators = c.generators();
    Some(BindingReport {
        candidate: index,
        kind: c.to_string(),
        sources: sources_of(scene, sources, &generators),
        generators,
    })
}

fn contacts_text(b: &Option<BindingReport>) -> String {
    match b {
        None => "no plane bounds the contacts' wrenches".to_string(),
        Some(b) if b.generators.is_empty() => format!(
            "binding {}: no contact pushes along the need (against gravity)",
            b.kind
        ),
        Some(b) => format!(
            "binding {}, contacts that bind: {}",
            b.kind,
            b.sources.join(", ")
        ),
    }
}

fn fmt3(v: [f32; 3]) -> String {
    let v = v.map(|x| x + 0.0); // no "-0.00000"
    format!("({:.5}, {:.5}, {:.5})", v[0], v[1], v[2])
}

/// Judges one scene from the outcomes of its cases (in the order of [`Scene::cases`]).
///
/// Panics if `outcomes` is empty or longer than the scene's needs: [`hold_reports`] pairs them.
pub fn judge(scene: &Scene, outcomes: &[Outcome]) -> HoldReport {
    let points = scene.need_points();
    let needs = scene.needs();
    let sources = scene.generator_sources();
    assert!(
        !outcomes.is_empty() && outcomes.len() <= points.len(),
        "judge: {} outcomes for {} needs",
        outcomes.len(),
        points.len()
    );
    let reports: Vec<NeedReport> = outcomes
        .iter()
        .zip(points.iter().zip(&needs))
        .map(|(o, (&(mass, com), &need))| NeedReport {
            mass,
            com_offset_x: com,
            need,
            verdict: o.verdict().as_str(),
            margin: o.margin.min(MARGIN_CAP),
            capped: o.is_capped(),
            witness: o.witness().map(|w| WitnessReport {
                sources: sources_of(scene, &sources, &w.indices),
                generators: w.indices,
                weights: w.weights,
            }),
            certificate: o.certificate(),
            binding: binding_of(scene, &sources, o),
        })
        .collect();
    // The need attaining the robust margin (first one on ties; NaN never wins).
    let mut bi = 0;
    for (i, r) in reports.iter().enumerate() {
        if r.margin < reports[bi].margin || reports[bi].margin.is_nan() {
            bi = i;
        }
    }
    let robust = reports[bi].margin;
    let verdicts: Vec<Verdict> = outcomes.iter().map(|o| o.verdict()).collect();
    let all_supported = verdicts.iter().all(|&v| v == Verdict::Supported);
    let margin_ok = (robust as f64) >= scene.margin_min;
    let held = all_supported && margin_ok;
    let any_unsupported = verdicts.contains(&Verdict::Unsupported);
    let any_uncertain = verdicts.contains(&Verdict::Uncertain);
    let uncertain = !held && any_uncertain && !any_unsupported;

    let need_name = |i: usize| {
        let r = &reports[i];
        format!(
            "need {i} (mass {}, com_offset_x {})",
            r.mass, r.com_offset_x
        )
    };
    let reason = (!held).then(|| {
        // The worst need of the worst kind: certified unsupported, else uncertain, else the
        // need whose margin falls short of margin_min.
        let worst = |kind: Verdict| {
            (0..reports.len())
                .filter(|&i| verdicts[i] == kind)
                .min_by(|&a, &b| reports[a].margin.total_cmp(&reports[b].margin))
        };
        let count = |kind: Verdict| verdicts.iter().filter(|&&v| v == kind).count();
        let total = reports.len();
        let mut why = if let Some(i) = worst(Verdict::Unsupported) {
            let r = &reports[i];
            format!(
                "{}: certified unsupported ({} of {total} needs), certificate y = {} \
                 (y·need = {:.5} < 0); {}",
                need_name(i),
                count(Verdict::Unsupported),
                fmt3(r.certificate.unwrap_or_default()),
                r.margin,
                contacts_text(&r.binding)
            )
        } else if let Some(i) = worst(Verdict::Uncertain) {
            let r = &reports[i];
            format!(
                "{}: uncertain ({} of {total} needs): within tolerance of the boundary of the \
                 contacts' cone, neither a witness nor a certificate passes (margin {:.3e}); {}",
                need_name(i),
                count(Verdict::Uncertain),
                r.margin,
                contacts_text(&r.binding)
            )
        } else {
            let r = &reports[bi];
            format!(
                "robust margin {:.5} < margin_min {} at {} (every need supported, but not by \
                 enough); {}",
                robust,
                scene.margin_min,
                need_name(bi),
                contacts_text(&r.binding)
            )
        };
        if scene.contacts.is_empty() {
            why.push_str("; no contacts");
        }
        if let Some(e) = &scene.edit {
            why.push_str(&format!(
                "; edit: kept pairs {:?}, no overlap {:?}, made {:?} and broken {:?} contribute nothing",
                e.kept, e.no_overlap, e.made, e.broken
            ));
        }
        why
    });
    HoldReport {
        id: scene.id.clone(),
        held,
        robust_margin: robust,
        uncertain,
        binding_need: BindingNeed {
            index: bi,
            mass: reports[bi].mass,
            com_offset_x: reports[bi].com_offset_x,
        },
        margin_min: scene.margin_min,
        n_generators: 4 * scene.contacts.len(),
        reason,
        edit: scene.edit.clone(),
        needs: reports,
    }
}

/// The hold reports of many scenes: all their needs go through ONE `engine.evaluate` call.
pub fn hold_reports(engine: &mut Engine, scenes: &[Scene]) -> Result<Vec<HoldReport>, Error> {
    let mut cases = Vec::new();
    let mut counts = Vec::with_capacity(scenes.len());
    for s in scenes {
        let c = s.cases()?;
        counts.push(c.len());
        cases.extend(c);
    }
    let outcomes = engine.evaluate(&cases)?;
    if outcomes.len() != cases.len() {
        return Err(Error::Gpu(format!(
            "{} outcomes for {} cases",
            outcomes.len(),
            cases.len()
        )));
    }
    let mut at = 0;
    Ok(scenes
        .iter()
        .zip(counts)
        .map(|(s, n)| {
            let r = judge(s, &outcomes[at..at + n]);
            at += n;
            r
        })
        .collect())
}

fn interval_values(iv: [f64; 2]) -> Vec<f64> {
    if iv[0] == iv[1] {
        vec![iv[0]]
    } else {
        vec![iv[0], iv[1]]
    }
}
