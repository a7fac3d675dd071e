//! One `"dim": 3` JSON line into a validated [`SpatialScene`] (docs/contract-spatial.md §2–§4): fields,
//! ranges, coplanar faces, one contact per body pair, at most 256 generators.

use serde::Deserialize;
use serde_json::Value;

use super::spatial::{
    norm3, FrictionModel, SpatialBody, SpatialContact, SpatialScene, DEFAULT_PYRAMID, MAX_PYRAMID,
    MIN_PYRAMID,
};
use super::types::Friction;
use crate::error::line_error;
use crate::general::MAX_GENERAL_GENERATORS;
use crate::Error;

/// How far off their plane (relative to the face's size) a face's points may lie.
pub(crate) const COPLANAR_TOLERANCE: f64 = 1e-9;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpatial {
    id: Option<Value>,
    dim: Value,
    half_size: Option<Value>,
    pyramid: Option<Value>,
    friction: Option<Value>,
    mass: Option<RawMass>,
    com_offset: Option<Vec<Value>>,
    contacts: Option<Vec<RawContact>>,
    margin_min: Option<f64>,
}

/// A grasp line (docs/contract-grasp.md): a spatial scene's fields but the body's, and
/// `"grasp": true`; `category`, `sub` and `scale_of` are labels (of the public cases), read
/// and ignored; `mass`, `com_offset` and `margin_min` are read to be refused by name.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawGrasp {
    id: Option<Value>,
    dim: Value,
    grasp: Value,
    half_size: Option<Value>,
    pyramid: Option<Value>,
    friction: Option<Value>,
    contacts: Option<Vec<RawContact>>,
    q1_at_least: Option<Value>,
    tolerance: Option<Value>,
    mass: Option<serde::de::IgnoredAny>,
    com_offset: Option<serde::de::IgnoredAny>,
    margin_min: Option<serde::de::IgnoredAny>,
    #[serde(rename = "category")]
    _category: Option<serde::de::IgnoredAny>,
    #[serde(rename = "sub")]
    _sub: Option<serde::de::IgnoredAny>,
    #[serde(rename = "scale_of")]
    _scale_of: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMass {
    nominal: Option<f64>,
    range: Option<[f64; 2]>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawContact {
    pair: Option<Value>,
    points: Option<Vec<[f64; 3]>>,
    normal: Option<[f64; 3]>,
    mu: Option<Value>,
    slip: Option<Value>,
}

fn input(msg: impl Into<String>) -> Error {
    Error::Input(msg.into())
}

/// Parses and validates one grasp line (docs/contract-grasp.md) into the spatial scene
/// of its contacts (the body nominal: no needs are asked of it). Contacts need no `pair`
/// (each is its own), and several may share one. The caller adds the line number.
pub(crate) fn parse_grasp(text: &str) -> Result<SpatialScene, Error> {
    if let Some(scene) = parse_plain_grasp(text) {
        return scene;
    }
    let raw: RawGrasp =
        serde_json::from_str(text).map_err(|e| line_error("the grasp line", text, &e))?;
    grasp_of(raw)
}

/// [`parse_grasp`] of a grasp line in the plain form ([`plain`]), read in one pass; `None`
/// for any other line (a grasp line or not).
pub(crate) fn parse_plain_grasp(text: &str) -> Option<Result<SpatialScene, Error>> {
    plain::grasp(text.as_bytes()).map(grasp_of)
}

/// [`parse_spatial`] of a spatial scene's line in the plain form ([`plain`]), read in one
/// pass; `None` for any other line (a spatial scene's or not).
pub(crate) fn parse_plain_spatial(text: &str) -> Option<Result<SpatialScene, Error>> {
    plain::spatial(text.as_bytes()).map(|raw| scene_of(raw, false))
}

/// The plain form of a grasp line, or of a spatial scene's, read in one pass (the hot path
/// of grasp files: serde's reading was a fifth of `gate`'s time on small grasps, and a
/// twenty-fifth of a spatial scene's). It gives up (`None`) on anything
/// else, valid or not, and serde then reads the line, with its error messages; where it
/// reads a line, it reads the fields serde would (a test compares the two).
mod plain {
    use serde_json::Value;

    use super::{RawContact, RawGrasp, RawMass, RawSpatial};
    use crate::scan::Scanner;

    /// A value of the forms the plain lines use: a number (as serde types it), a string
    /// without escapes, `true`, `false`, `null`.
    fn value(s: &mut Scanner<'_>) -> Option<Value> {
        s.skip_ws();
        match s.text.get(s.at)? {
            b'"' => {
                let raw = s.plain_string()?;
                Some(Value::String(raw[1..raw.len() - 1].to_owned()))
            }
            b't' if s.eat(b"true") => Some(Value::Bool(true)),
            b'f' if s.eat(b"false") => Some(Value::Bool(false)),
            b'n' if s.eat(b"null") => Some(Value::Null),
            _ => number(s),
        }
    }

    /// A number as serde's `Value` holds it: an integer token within u64 (or i64, below 0)
    /// as an integer, any other as float64 (`-0` too); integers beyond are left to serde.
    fn number(s: &mut Scanner<'_>) -> Option<Value> {
        let (token, x) = s.number_text()?;
        if !x.is_finite() {
            return None;
        }
        if token.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
            return serde_json::Number::from_f64(x).map(Value::Number);
        }
        let (negative, digits) = match token.strip_prefix(b"-") {
            Some(d) => (true, d),
            None => (false, token),
        };
        // JSON's digits (checked by `number_text`), past u64 left to serde.
        let m = digits.iter().try_fold(0u64, |m, &b| {
            m.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        })?;
        match (negative, m) {
            (false, m) => Some(Value::from(m)),
            (true, 0) => Some(Value::from(-0.0)),
            (true, m) => Some(Value::from(0i64.checked_sub_unsigned(m)?)),
        }
    }

    /// `null` as serde reads it into an optional field: absent.
    fn optional(s: &mut Scanner<'_>) -> Option<Option<Value>> {
        Some(Some(value(s)?).filter(|v| !v.is_null()))
    }

    /// `[x, y, z]` of finite numbers.
    fn triple(s: &mut Scanner<'_>) -> Option<[f64; 3]> {
        let mut v = [0.0; 3];
        (s.numbers_into(&mut v)? == 3).then_some(v)
    }

    /// `[a, b, …]`, each element read by `item`, in a vector of `capacity` to start with
    /// (the usual count: grown by pushes, a grasp's contacts cost 1 % more); `None` where
    /// one is not.
    fn list<T>(
        s: &mut Scanner<'_>,
        capacity: usize,
        mut item: impl FnMut(&mut Scanner<'_>) -> Option<T>,
    ) -> Option<Vec<T>> {
        s.expect(b'[')?;
        let mut items = Vec::with_capacity(capacity);
        if s.peek()? == b']' {
            s.at += 1;
            return Some(items);
        }
        loop {
            items.push(item(s)?);
            if !s.more_elements()? {
                return Some(items);
            }
        }
    }

    /// `{"key": value, …}`: each member's key (plain, [`Scanner::plain_key`]) given to
    /// `member` with the scanner at its value; `None` where `member` gives up (an empty
    /// object too: serde words what it lacks).
    fn members(
        s: &mut Scanner<'_>,
        mut member: impl FnMut(&mut Scanner<'_>, &[u8]) -> Option<()>,
    ) -> Option<()> {
        s.expect(b'{')?;
        loop {
            let key = s.plain_key()?;
            s.expect(b':')?;
            member(s, key)?;
            if !s.more_members()? {
                return Some(());
            }
        }
    }

    /// A whole line, one object ([`members`]) and blanks after it.
    fn line(text: &[u8], member: impl FnMut(&mut Scanner<'_>, &[u8]) -> Option<()>) -> Option<()> {
        let mut s = Scanner { text, at: 0 };
        members(&mut s, member)?;
        s.at_end().then_some(())
    }

    /// `[a, b, …]` of numbers, as serde's `Value` holds it; `None` for anything else.
    fn number_list(s: &mut Scanner<'_>) -> Option<Value> {
        list(s, 3, number).map(Value::Array)
    }

    /// A value of [`value`]'s forms or a list of numbers ([`number_list`]).
    fn flat_value(s: &mut Scanner<'_>) -> Option<Value> {
        if s.peek()? == b'[' {
            number_list(s)
        } else {
            value(s)
        }
    }

    /// `{"points": [...], "normal": [...], "mu": μ or [lo, hi]}`, each at most once; with
    /// `spatial`, a spatial scene's contact: `"pair"` and `"slip"` too.
    fn contact(s: &mut Scanner<'_>, spatial: bool) -> Option<RawContact> {
        let mut c = RawContact::default();
        members(s, |s, key| {
            match key {
                b"points" if c.points.is_none() => c.points = Some(list(s, 1, triple)?),
                b"normal" if c.normal.is_none() => c.normal = Some(triple(s)?),
                b"mu" if c.mu.is_none() => {
                    c.mu = if s.peek()? == b'[' {
                        s.at += 1;
                        let lo = number(s)?;
                        s.expect(b',')?;
                        let hi = number(s)?;
                        s.expect(b']')?;
                        Some(Value::Array(vec![lo, hi]))
                    } else {
                        optional(s)?
                    };
                    c.mu.as_ref()?; // `null`: left to serde
                }
                b"pair" if spatial && c.pair.is_none() => {
                    c.pair = optional(s)?;
                    c.pair.as_ref()?; // `null`: left to serde
                }
                b"slip" if spatial && c.slip.is_none() => {
                    c.slip = Some(flat_value(s)?).filter(|v| !v.is_null());
                    c.slip.as_ref()?;
                }
                _ => return None,
            }
            Some(())
        })?;
        Some(c)
    }

    pub(super) fn grasp(text: &[u8]) -> Option<RawGrasp> {
        let mut g = RawGrasp::default();
        let (mut dim, mut grasp) = (None, None);
        let mut seen = [false; 12];
        let mut once = |k: usize| !std::mem::replace(&mut seen[k], true);
        line(text, |s, key| {
            match key {
                b"id" if once(0) => g.id = optional(s)?,
                b"dim" if once(1) => dim = Some(value(s)?),
                b"grasp" if once(2) => grasp = Some(value(s)?),
                b"half_size" if once(3) => g.half_size = optional(s)?,
                b"pyramid" if once(4) => g.pyramid = optional(s)?,
                b"friction" if once(5) => g.friction = optional(s)?,
                b"q1_at_least" if once(6) => g.q1_at_least = optional(s)?,
                b"tolerance" if once(7) => g.tolerance = optional(s)?,
                // Labels of the public cases, read and ignored: plain values only here.
                b"category" if once(8) => drop(value(s)?),
                b"sub" if once(9) => drop(value(s)?),
                b"scale_of" if once(10) => drop(value(s)?),
                b"contacts" if once(11) => g.contacts = Some(list(s, 4, |s| contact(s, false))?),
                _ => return None,
            }
            Some(())
        })?;
        // Required by serde (a missing one is its error to word).
        g.dim = dim?;
        g.grasp = grasp?;
        Some(g)
    }

    /// `{"nominal": m, "range": [lo, hi]}`, each at most once, either `null`.
    fn mass(s: &mut Scanner<'_>) -> Option<RawMass> {
        let mut m = RawMass {
            nominal: None,
            range: None,
        };
        let (mut nominal, mut range) = (false, false);
        members(s, |s, key| {
            s.skip_ws();
            let null = s.eat(b"null");
            match key {
                b"nominal" if !std::mem::replace(&mut nominal, true) => {
                    if !null {
                        m.nominal = Some(s.number_text()?.1).filter(|x| x.is_finite());
                        m.nominal?;
                    }
                }
                b"range" if !std::mem::replace(&mut range, true) => {
                    if !null {
                        let mut r = [0.0; 2];
                        (s.numbers_into(&mut r)? == 2).then_some(())?;
                        m.range = Some(r);
                    }
                }
                _ => return None,
            }
            Some(())
        })?;
        Some(m)
    }

    /// A spatial scene's line in the plain form (the fields [`RawSpatial`] reads, each at
    /// most once; `com_offset` of numbers or lists of numbers), read in one pass as
    /// [`grasp`] reads a grasp's: `None` for anything else, which serde reads.
    pub(super) fn spatial(text: &[u8]) -> Option<RawSpatial> {
        let mut g = RawSpatial {
            id: None,
            dim: Value::Null,
            half_size: None,
            pyramid: None,
            friction: None,
            mass: None,
            com_offset: None,
            contacts: None,
            margin_min: None,
        };
        let mut dim = None;
        let mut seen = [false; 9];
        let mut once = |k: usize| !std::mem::replace(&mut seen[k], true);
        line(text, |s, key| {
            s.skip_ws();
            match key {
                b"id" if once(0) => g.id = optional(s)?,
                b"dim" if once(1) => dim = Some(value(s)?),
                b"half_size" if once(2) => g.half_size = optional(s)?,
                b"pyramid" if once(3) => g.pyramid = optional(s)?,
                b"friction" if once(4) => g.friction = optional(s)?,
                b"mass" if once(5) => g.mass = if s.eat(b"null") { None } else { Some(mass(s)?) },
                b"com_offset" if once(6) => {
                    if !s.eat(b"null") {
                        g.com_offset = Some(list(s, 2, flat_value)?);
                    }
                }
                b"margin_min" if once(7) => {
                    if !s.eat(b"null") {
                        g.margin_min = Some(s.number_text()?.1).filter(|x| x.is_finite());
                        g.margin_min?;
                    }
                }
                // `null`: left to serde.
                b"contacts" if once(8) => g.contacts = Some(list(s, 4, |s| contact(s, true))?),
                _ => return None,
            }
            Some(())
        })?;
        // Required by serde (a missing one is its error to word).
        g.dim = dim?;
        Some(g)
    }
}

/// A grasp from the fields of any serde source (a Parquet row read column by column:
/// `io::parquet::grasps`), read and checked as [`parse_grasp`] reads and checks a line, so
/// that a row and its line give the same scene or the same refusal. The caller adds the
/// row number.
#[cfg(feature = "arrow")]
pub(crate) fn grasp_from_fields<'de, D: serde::Deserializer<'de>>(
    fields: D,
) -> Result<SpatialScene, Error> {
    let raw = RawGrasp::deserialize(fields)
        .map_err(|e| input(format!("invalid field in the grasp row: {e}")))?;
    grasp_of(raw)
}

/// One fingertip of [`fingertip_grasp`]: its point (relative to the object's centre), its
/// inward normal (any length but zero) and μ.
pub(crate) type Fingertip = ([f64; 3], [f64; 3], f64);

/// The grasp of fingertip contacts (one point each: the arrays of the Python package),
/// checked as the grasp line of the same fields is (`id`, `half_size`, `pyramid`,
/// `friction`, and a contact `{"points": [p], "normal": n, "mu": μ}` per fingertip), so that
/// it gets the same scene or the same refusal. The caller adds the grasp's index.
pub fn fingertip_grasp(
    id: Value,
    half_size: f64,
    pyramid: usize,
    friction: &str,
    tips: impl IntoIterator<Item = Fingertip>,
) -> Result<SpatialScene, Error> {
    let number = |x: f64| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number);
    let contacts = tips
        .into_iter()
        .map(|(p, normal, mu)| RawContact {
            points: Some(vec![p]),
            normal: Some(normal),
            mu: Some(number(mu)),
            ..RawContact::default()
        })
        .collect();
    grasp_of(RawGrasp {
        id: Some(id),
        dim: Value::from(3),
        grasp: Value::Bool(true),
        half_size: Some(number(half_size)),
        pyramid: Some(Value::from(pyramid)),
        friction: Some(Value::from(friction)),
        contacts: Some(contacts),
        ..RawGrasp::default()
    })
}

/// A grasp line's fields, checked, into its scene.
fn grasp_of(raw: RawGrasp) -> Result<SpatialScene, Error> {
    if raw.grasp != Value::Bool(true) {
        return Err(input(format!(
            "grasp must be true on a grasp line (a spatial scene has no grasp field), got {}",
            raw.grasp
        )));
    }
    let given = [
        ("mass", raw.mass.is_some()),
        ("com_offset", raw.com_offset.is_some()),
        ("margin_min", raw.margin_min.is_some()),
    ];
    if let Some((field, _)) = given.iter().find(|(_, present)| *present) {
        return Err(input(format!(
            "a grasp line has no `{field}`: a grasp holds the object against any disturbance, \
             its quality asks for no mass, centre of mass or margin"
        )));
    }
    if raw.contacts.as_ref().is_some_and(|c| c.is_empty()) {
        return Err(input(
            "a grasp needs at least one contact (contacts is empty)",
        ));
    }
    let spatial = RawSpatial {
        id: raw.id,
        dim: raw.dim,
        half_size: raw.half_size,
        pyramid: raw.pyramid,
        friction: raw.friction,
        mass: None,
        com_offset: None,
        contacts: raw.contacts,
        margin_min: None,
    };
    let mut scene = scene_of(spatial, true)?;
    scene.q1_at_least = match raw.q1_at_least {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_f64() {
            Some(t) if t.is_finite() => Some(t),
            _ => {
                return Err(input(format!(
                    "q1_at_least must be a finite number (the threshold q1 is tested \
                     against), got {v}"
                )))
            }
        },
    };
    scene.tolerance = match raw.tolerance {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .map_or_else(|| Err(tolerance_refused(&v)), grasp_tolerance)?,
        ),
    };
    Ok(scene)
}

/// The loosest `"tolerance"` a grasp line may ask for: beyond it a bracket says little.
pub(crate) const MAX_TOLERANCE: f64 = 0.1;

/// A grasp's `"tolerance"` (a line's, or one for all: Python's `tolerance=`), checked: above
/// 0 and at most 0.1 (`MAX_TOLERANCE`).
pub fn grasp_tolerance(t: f64) -> Result<f64, Error> {
    if t > 0.0 && t <= MAX_TOLERANCE {
        Ok(t)
    } else {
        Err(tolerance_refused(t))
    }
}

fn tolerance_refused(got: impl std::fmt::Display) -> Error {
    input(format!(
        "tolerance must be a number above 0 and at most {MAX_TOLERANCE} (how far apart q1's \
         bounds may stay, relative to the grasp's scale; default 1e-9), got {got}"
    ))
}

/// A scene line's `id` (a string or a number) and `half_size` (positive, finite), checked:
/// planar and spatial lines alike.
pub(crate) fn id_and_half_size(
    id: Option<Value>,
    half_size: Option<Value>,
) -> Result<(Value, f64), Error> {
    let id = match id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v,
        Some(v) => return Err(input(format!("id must be a string or a number, got {v}"))),
        None => return Err(input("missing field `id`")),
    };
    let half_size = match half_size {
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
    Ok((id, half_size))
}

/// Parses and validates one spatial scene line (in the plain form by [`plain::spatial`],
/// else by serde). The caller adds the line number to errors.
pub(crate) fn parse_spatial(text: &str) -> Result<SpatialScene, Error> {
    if let Some(scene) = parse_plain_spatial(text) {
        return scene;
    }
    let raw: RawSpatial =
        serde_json::from_str(text).map_err(|e| line_error("the spatial scene", text, &e))?;
    scene_of(raw, false)
}

/// The scene of a line's fields, validated; a grasp's contacts need no pair.
fn scene_of(raw: RawSpatial, grasp: bool) -> Result<SpatialScene, Error> {
    if raw.dim.as_u64() != Some(3) {
        return Err(input(format!(
            "dim must be 3 for a spatial scene (a planar scene has no dim), got {}",
            raw.dim
        )));
    }
    let (id, half_size) = id_and_half_size(raw.id, raw.half_size)?;
    let pyramid = match raw.pyramid {
        None => DEFAULT_PYRAMID,
        Some(v) => match v.as_u64() {
            Some(k) if (MIN_PYRAMID as u64..=MAX_PYRAMID as u64).contains(&k) => k as usize,
            _ => {
                return Err(input(format!(
                    "pyramid must be an integer from {MIN_PYRAMID} to {MAX_PYRAMID} (edges of \
                     each friction pyramid), got {v}"
                )))
            }
        },
    };
    let friction =
        match raw.friction.as_ref().map(|v| (v, v.as_str())) {
            None => FrictionModel::Inner,
            Some((_, Some("inner"))) => FrictionModel::Inner,
            Some((_, Some("outer"))) => FrictionModel::Outer,
            Some((_, Some("coulomb"))) => FrictionModel::Coulomb,
            Some((_, Some("circular"))) if grasp => FrictionModel::Circular,
            Some((_, Some("circular"))) => return Err(input(
                "friction \"circular\" is for grasp lines (\"grasp\": true); a spatial scene's \
                 friction is \"inner\", \"outer\" or \"coulomb\"",
            )),
            Some((v, _)) => {
                return Err(input(format!(
                    "friction must be \"inner\", \"outer\", \"coulomb\" or (grasp lines) \
                 \"circular\", got {v}"
                )))
            }
        };
    let (mass_nominal, mass_range) = match raw.mass {
        None => (1.0, [1.0, 1.0]),
        Some(m) => {
            let nominal = m
                .nominal
                .ok_or_else(|| input("mass: missing field `nominal`"))?;
            if !nominal.is_finite() || nominal <= 0.0 {
                return Err(input(format!(
                    "mass.nominal must be positive and finite, got {nominal}"
                )));
            }
            let range = m.range.unwrap_or([nominal, nominal]);
            interval("mass.range", range)?;
            if range[0] <= 0.0 {
                return Err(input(format!(
                    "mass.range [{}, {}] must be positive",
                    range[0], range[1]
                )));
            }
            (nominal, range)
        }
    };
    let com_offset = match raw.com_offset {
        None => [[0.0, 0.0], [0.0, 0.0]],
        Some(v) => com_intervals(&v)?,
    };
    interval("com_offset[0] (δx)", com_offset[0])?;
    interval("com_offset[1] (δy)", com_offset[1])?;
    let margin_min = raw.margin_min.unwrap_or(0.0);
    if !margin_min.is_finite() {
        return Err(input(format!("margin_min {margin_min} is not finite")));
    }
    let raw_contacts = raw
        .contacts
        .ok_or_else(|| input("missing field `contacts`"))?;
    let mut contacts = Vec::with_capacity(raw_contacts.len());
    for (i, c) in raw_contacts.into_iter().enumerate() {
        contacts.push(contact(i, c, grasp)?);
    }
    for (i, a) in contacts.iter().enumerate().filter(|_| !grasp) {
        if let Some(b) = contacts[..i].iter().find(|b| b.pair == a.pair) {
            return Err(input(format!(
                "contacts[{}] and contacts[{}] are both for body pair {} (at most one contact \
                 per pair)",
                b.source, a.source, a.pair
            )));
        }
    }
    let mut scene = SpatialScene {
        id,
        body: SpatialBody {
            half_size,
            mass_nominal,
            mass_range,
            com_offset,
        },
        pyramid,
        friction,
        contacts,
        margin_min,
        q1_at_least: None,
        tolerance: None,
    };
    // A circular grasp has no pyramid of its own: its k sizes only the inner pyramids that
    // seed and bound its search (docs/contract-grasp.md). Where they would pass 256
    // generators they take fewer edges, down to 3, rather than the line being refused.
    if friction == FrictionModel::Circular
        && scene.generator_count(pyramid) > MAX_GENERAL_GENERATORS
    {
        let points = scene.point_count().max(1);
        scene.pyramid = (MAX_GENERAL_GENERATORS / points).clamp(3, pyramid);
    }
    let pyramid = scene.pyramid;
    let k = scene.generator_count(pyramid);
    if k > MAX_GENERAL_GENERATORS {
        let sliding: usize = scene
            .contacts
            .iter()
            .filter(|c| c.slip.is_some())
            .map(|c| c.points.len())
            .sum();
        let sticking = scene.point_count() - sliding;
        let rays = if sliding > 0 {
            format!(" + {sliding} sliding points x 1 ray")
        } else {
            String::new()
        };
        return Err(input(format!(
            "{sticking} points x {pyramid} pyramid edges{rays} = {k} generators, more than \
             {MAX_GENERAL_GENERATORS} (too many)"
        )));
    }
    // Every wrench and need must be finite in float64 (huge positions over a tiny half_size);
    // the wrenches are made only where a bound cannot vouch for them.
    let wrenches = || scene.generators(pyramid, super::spatial::Pyramid::Outer);
    let not_finite = |g: &[f64; 6]| !g.iter().all(|v| v.is_finite());
    if let Some(i) = (!wrenches_surely_finite(&scene))
        .then(|| wrenches().iter().position(not_finite))
        .flatten()
    {
        return Err(input(format!(
            "generator {i} ({}) is not finite (positions too large for half_size?)",
            scene.describe(i, pyramid)
        )));
    }
    if !scene.needs().iter().flatten().all(|v| v.is_finite()) {
        return Err(input(
            "a need is not finite (mass range too large for the nominal mass, or com_offset \
             for half_size?)",
        ));
    }
    if scene.friction == FrictionModel::Circular {
        circular_in_range(&scene)?;
    }
    Ok(scene)
}

/// The largest wrench a `"circular"` line's search may meet: its support points' squares and
/// dot products must stay finite (a pyramid's wrenches are made unit before the engine
/// takes them; the discs' searches take W as it is).
const CIRCULAR_MAX_WRENCH: f64 = 1e150;

/// A `"circular"` line's wrenches within [`CIRCULAR_MAX_WRENCH`]: every point within that
/// many half sizes of the reference point, every μ below it.
fn circular_in_range(scene: &SpatialScene) -> Result<(), Error> {
    let ell = scene.body.half_size;
    for (i, c) in scene.contacts.iter().enumerate() {
        let mu = c.mu.lower();
        for p in &c.points {
            let r = unit3(*p).0 / ell;
            let largest = (1.0 + mu * mu).sqrt() * 1f64.hypot(r);
            if !largest.is_finite() || largest > CIRCULAR_MAX_WRENCH {
                return Err(input(format!(
                    "contacts[{i}]: a point {r:.3e} half sizes from the reference point, μ \
                     {mu:.3e}: its wrenches reach {largest:.3e}, beyond the {CIRCULAR_MAX_WRENCH:e} \
                     that friction \"circular\" takes"
                )));
            }
        }
    }
    Ok(())
}

/// Whether every contact wrench of `scene` (points, normals and μ finite, half_size
/// positive) is surely finite, every pyramid included, without making one: an edge
/// `n + μ'(c·t₁ + s·t₂)` (unit n, t₁, t₂; |c|, |s| ≤ 1; μ' = μ / cos(π/k) ≤ 2μ) has no
/// number, nor any step of one, above R = 1 + 4μ, and a moment `(p × r) / ℓ` none above
/// 2·P·R / ℓ (P the largest coordinate of a point): far below f64::MAX, then.
fn wrenches_surely_finite(scene: &SpatialScene) -> bool {
    const FAR_BELOW_MAX: f64 = 1e300;
    let mut bound: f64 = 0.0;
    for c in &scene.contacts {
        let r = 1.0 + 4.0 * c.mu.lower().max(0.0);
        for p in &c.points {
            let largest = p.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            bound = bound.max(2.0 * largest * r);
        }
    }
    bound < FAR_BELOW_MAX && bound / scene.body.half_size < FAR_BELOW_MAX
}

/// The length of `v` (finite entries) and `v` over it (0 and zeros for the zero vector). Where the squares overflow or
/// underflow (entries near 1e±154 and beyond) both are taken over its largest entry first.
pub(crate) fn unit3(v: [f64; 3]) -> (f64, [f64; 3]) {
    let len = norm3(v);
    if len.is_finite() && len > 1e-150 {
        return (len, v.map(|a| a / len));
    }
    let big = v.iter().fold(0.0f64, |m, a| m.max(a.abs()));
    if big == 0.0 {
        return (0.0, [0.0; 3]);
    }
    let scaled = v.map(|a| a / big);
    let inner = norm3(scaled);
    (big * inner, scaled.map(|a| a / inner))
}

/// `com_offset`: two intervals `[[δx_lo, δx_hi], [δy_lo, δy_hi]]`.
fn com_intervals(v: &[Value]) -> Result<[[f64; 2]; 2], Error> {
    let bad = || {
        input(format!(
            "com_offset must be two intervals [[dx_lo, dx_hi], [dy_lo, dy_hi]] (δx, δy), got {}",
            Value::Array(v.to_vec())
        ))
    };
    if v.len() != 2 {
        return Err(bad());
    }
    let mut out = [[0.0; 2]; 2];
    for (o, iv) in out.iter_mut().zip(v) {
        match iv.as_array().map(|a| a.as_slice()) {
            Some([lo, hi]) => *o = [lo.as_f64().ok_or_else(bad)?, hi.as_f64().ok_or_else(bad)?],
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

fn interval(what: &str, v: [f64; 2]) -> Result<(), Error> {
    if !v.iter().all(|x| x.is_finite()) {
        return Err(input(format!("{what} {v:?} is not finite")));
    }
    if v[0] > v[1] {
        return Err(input(format!(
            "{what} interval [{}, {}] is upside down (lo > hi)",
            v[0], v[1]
        )));
    }
    Ok(())
}

/// `contacts[i]`, as the messages name a contact: written out only for a message.
struct ContactAt(usize);

impl std::fmt::Display for ContactAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "contacts[{}]", self.0)
    }
}

fn contact(index: usize, raw: RawContact, grasp: bool) -> Result<SpatialContact, Error> {
    let who = ContactAt(index);
    let pair = match raw.pair {
        None if grasp => index as u64,
        None => return Err(input(format!("{who}: missing field `pair`"))),
        Some(v) => v.as_u64().ok_or_else(|| {
            input(format!(
                "{who}: pair must be a non-negative integer (body pair id), got {v}"
            ))
        })?,
    };
    let points = match raw.points {
        None => {
            return Err(input(format!(
                "{who}: missing \"points\" (1 point, 2 for an edge, 3+ for a face)"
            )))
        }
        Some(p) if p.is_empty() => {
            return Err(input(format!(
                "{who}: \"points\" is empty (1 point, 2 for an edge, 3+ for a face)"
            )))
        }
        Some(p) => p,
    };
    if let Some(p) = points.iter().find(|p| !p.iter().all(|v| v.is_finite())) {
        return Err(input(format!("{who}: point {p:?} is not finite")));
    }
    let n = raw
        .normal
        .ok_or_else(|| input(format!("{who}: missing field `normal`")))?;
    if !n.iter().all(|v| v.is_finite()) {
        return Err(input(format!("{who}.normal {n:?} is not finite")));
    }
    let (len, normal) = unit3(n);
    if len <= 1e-12 {
        return Err(input(format!(
            "{who}.normal is the zero vector (a contact needs a non-zero inward normal)"
        )));
    }
    let mu = Friction::parse(
        &who,
        &raw.mu
            .ok_or_else(|| input(format!("{who}: missing field `mu`")))?,
    )?;
    if points.len() >= 4 {
        coplanar(&who, &points)?;
    }
    let slip = match raw.slip {
        None => None,
        Some(_) if grasp => {
            return Err(input(
                "slip on a grasp line (\"grasp\": true): a grasp's contacts stick; sliding \
                 contacts belong to hold-gate scenes",
            ))
        }
        Some(v) => Some(slip(&who, &v, normal, &mu)?),
    };
    Ok(SpatialContact {
        pair,
        source: index,
        points,
        normal,
        mu,
        slip,
    })
}

/// A contact's `slip` (docs/contract-scenes.md, sliding contacts), planar (`D = 2`,
/// `[vx, vz]`) or spatial (`D = 3`): `D` finite numbers with a tangential part, on a
/// contact of one μ. `who` names the contact as its scene does.
pub(super) fn slip<const D: usize>(
    who: impl std::fmt::Display,
    v: &Value,
    normal: [f64; D],
    mu: &Friction,
) -> Result<[f64; D], Error> {
    let names = if D == 2 { "[vx, vz]" } else { "[vx, vy, vz]" };
    let numbers: Option<Vec<f64>> = v.as_array().filter(|a| a.len() == D).and_then(|a| {
        a.iter()
            .map(|x| x.as_f64().filter(|f| f.is_finite()))
            .collect()
    });
    let Some(numbers) = numbers else {
        return Err(input(format!(
            "{who}: slip must be {D} finite numbers {names} (the body's velocity relative to \
             the other body at the contact), got {v}"
        )));
    };
    let v: [f64; D] = std::array::from_fn(|a| numbers[a]);
    if let Friction::Interval([lo, hi]) = mu {
        return Err(input(format!(
            "{who}: slip on a contact whose mu is an interval [{lo}, {hi}] (the sliding ray \
             n − μ·v_t/|v_t| depends on μ, so no end is the worst: give one mu)"
        )));
    }
    if super::slip::slip_direction(normal, v).is_none() {
        return Err(input(format!(
            "{who}: slip {v:?} has no tangential part; omit slip for a contact that sticks"
        )));
    }
    Ok(v)
}

/// A face's points lie on one plane within [`COPLANAR_TOLERANCE`] of the face's size: the
/// plane through the centroid with Newell's normal (robust for any convex polygon).
fn coplanar(who: &ContactAt, points: &[[f64; 3]]) -> Result<(), Error> {
    let n = points.len();
    let c = points.iter().fold([0.0; 3], |s, p| {
        [
            s[0] + p[0] / n as f64,
            s[1] + p[1] / n as f64,
            s[2] + p[2] / n as f64,
        ]
    });
    let mut size: f64 = 0.0;
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            size = size.max(norm3([a[0] - b[0], a[1] - b[1], a[2] - b[2]]));
        }
    }
    if size == 0.0 {
        return Ok(());
    }
    // Newell's normal, then the largest distance from the plane; with a degenerate
    // (collinear) polygon, any plane through the line will do: the points are on it.
    let mut nn = [0.0; 3];
    for i in 0..n {
        let (p, q) = (points[i], points[(i + 1) % n]);
        nn[0] += (p[1] - q[1]) * (p[2] + q[2]);
        nn[1] += (p[2] - q[2]) * (p[0] + q[0]);
        nn[2] += (p[0] - q[0]) * (p[1] + q[1]);
    }
    let l = norm3(nn);
    if l <= 1e-12 * size * size {
        return Ok(());
    }
    let nn = nn.map(|v| v / l);
    let off = points
        .iter()
        .map(|p| ((p[0] - c[0]) * nn[0] + (p[1] - c[1]) * nn[1] + (p[2] - c[2]) * nn[2]).abs())
        .fold(0.0, f64::max);
    if off > COPLANAR_TOLERANCE * size {
        return Err(input(format!(
            "{who}: the {n} points of the face are not coplanar (off their plane by {:.3e} of \
             the face's size, more than {COPLANAR_TOLERANCE:e})",
            off / size
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::scene::spatial::Pyramid;

    /// The bound never vouches for a wrench that is not finite: over scales from 1e-300 to
    /// 1e300 of the points, half_size and μ, every answered grasp line's wrenches (inner and
    /// outer pyramids) are finite, the bound vouches for every line of ordinary scales, and
    /// the lines beyond it are still refused by the wrenches themselves.
    #[test]
    fn the_finite_wrench_bound_never_lets_a_non_finite_wrench_through() {
        let mut rng = Rng::new(34);
        let scale = |rng: &mut Rng| 10f64.powi(rng.below(601) as i32 - 300);
        let (mut refused, mut vouched, mut made) = (0, 0, 0);
        for _ in 0..20_000 {
            let (p, h, mu) = (scale(&mut rng), scale(&mut rng), scale(&mut rng));
            let k = 3 + rng.below(62);
            let contacts: Vec<String> = (0..1 + rng.below(4))
                .map(|_| {
                    let [x, y, z] = rng.vector().map(|v| f64::from(v) * p);
                    let [a, b, c] = rng.vector().map(f64::from);
                    format!(
                        r#"{{"points": [[{x:e}, {y:e}, {z:e}]], "normal": [{a:e}, {b:e}, {c:e}], "mu": {mu:e}}}"#
                    )
                })
                .collect();
            let line = format!(
                r#"{{"id": 1, "dim": 3, "grasp": true, "half_size": {h:e}, "pyramid": {k}, "contacts": [{}]}}"#,
                contacts.join(", ")
            );
            let ordinary = [p, h, mu].iter().all(|v| (1e-100..=1e100).contains(v));
            match parse_grasp(&line) {
                Ok(scene) => {
                    for pyramid in [Pyramid::Inner, Pyramid::Outer] {
                        let wrenches = scene.generators(k, pyramid);
                        assert!(wrenches.iter().flatten().all(|v| v.is_finite()), "{line}");
                    }
                    if wrenches_surely_finite(&scene) {
                        vouched += 1;
                    } else {
                        assert!(!ordinary, "{line}: not vouched for");
                        made += 1;
                    }
                }
                Err(e) if e.to_string().contains("is not finite (positions") => refused += 1,
                Err(e) => assert!(e.to_string().contains("zero vector"), "{line}: {e}"),
            }
        }
        assert!(
            refused > 500 && vouched > 5000 && made > 100,
            "{refused} {vouched} {made}"
        );
    }

    /// A direction keeps its length's meaning at every scale: [`unit3`] of `s·v` is `v`'s
    /// unit vector (to rounding) for s from 1e-300 to 1e300, where the squares overflow or
    /// underflow, and bit for bit `v / |v|` where they do not; a slip likewise.
    #[test]
    fn directions_are_found_at_every_scale() {
        let v = [0.05411290790794694, -0.0769530477884554, 0.9955651769893389];
        let (len, u) = unit3(v);
        assert_eq!(u, v.map(|a| a / norm3(v)));
        assert_eq!(len, norm3(v));
        let n = [0.0, 0.0, 1.0];
        let slide = crate::scene::slip::slip_direction(n, [3.0, -4.0, 7.0]).unwrap();
        for e in -300..=300 {
            let s = 10f64.powi(e);
            let (len, w) = unit3(v.map(|a| a * s));
            assert!((len / s - 1.0).abs() < 1e-12, "{e}: {len}");
            assert!((0..3).all(|k| (w[k] - u[k]).abs() < 1e-15), "{e}: {w:?}");
            let t = crate::scene::slip::slip_direction(n, [3.0 * s, -4.0 * s, 7.0 * s]);
            let t = t.unwrap_or_else(|| panic!("{e}: no slip direction"));
            assert!(
                (0..3).all(|k| (t[k] - slide[k]).abs() < 1e-15),
                "{e}: {t:?}"
            );
        }
        assert_eq!(unit3([0.0; 3]).0, 0.0);
    }

    /// The plain reader reads the plain spatial scene lines (every public one, valid or not,
    /// and each rewritten: spaces, integers, intervals, ids of every kind, nulls, a sliding
    /// contact) into the scene serde's reading gives, or the same refusal; and leaves the
    /// rest to serde.
    #[test]
    fn the_plain_spatial_reader_agrees_with_serde() {
        use serde_json::json;
        let by_serde = |line: &str| {
            serde_json::from_str::<RawSpatial>(line)
                .map_err(|e| e.to_string())
                .and_then(|g| scene_of(g, false).map_err(|e| e.to_string()))
        };
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
        let mut lines: Vec<String> = Vec::new();
        for name in ["scenes3d_public.jsonl", "scenes3d_public_invalid.jsonl"] {
            let text = std::fs::read_to_string(format!("{dir}{name}")).unwrap();
            lines.extend(text.lines().map(String::from));
        }
        let public = lines.len();
        let mut rng = crate::rng::Rng::new(11);
        for i in 0..public {
            let Ok(mut v) = serde_json::from_str::<Value>(&lines[i]) else {
                continue;
            };
            let Some(o) = v.as_object_mut() else {
                continue;
            };
            match rng.below(10) {
                0 => drop(o.insert("id".into(), Value::from(-(i as i64)))),
                1 => drop(o.insert("id".into(), json!(-0.0))),
                2 => drop(o.insert("margin_min".into(), json!(0))),
                3 => drop(o.insert("mass".into(), json!({"range": [1, 2], "nominal": 1.5}))),
                4 => drop(o.insert("mass".into(), Value::Null)),
                5 => drop(o.insert("com_offset".into(), json!([0.1, [-0.2, 0]]))),
                6 => drop(o.insert("half_size".into(), json!(1))),
                7 => drop(o.insert("pyramid".into(), json!(5.0))),
                8 => drop(o.insert("margin_min".into(), Value::Null)),
                _ => drop(o.insert("friction".into(), json!("coulomb"))),
            }
            if let Some(c) = o.get_mut("contacts").and_then(|c| c.get_mut(0)) {
                match rng.below(3) {
                    0 => c["mu"] = json!([0.25, 1]),
                    1 => c["slip"] = json!([1, 0, 0]),
                    _ => {}
                }
            }
            let mut text = v.to_string();
            if i % 3 == 0 {
                text = text.replace(':', " : ").replace(',', " ,\t");
            }
            lines.push(text);
        }
        let mut read = 0;
        for line in &lines {
            let Some(plain) = plain::spatial(line.as_bytes()) else {
                continue;
            };
            read += 1;
            let plain = scene_of(plain, false).map_err(|e| e.to_string());
            assert_eq!(plain, by_serde(line), "{line}");
        }
        // Every valid public scene and its rewriting is read by the plain reader.
        assert!(read >= 2 * 69, "{read} of {} lines", lines.len());
        // Left to serde: escapes, repeats, unknown keys, nulls where serde words its own
        // error, numbers beyond float64 or u64, nested lists, trailing bytes.
        let c = r#"{"pair": 0, "points": [[0, 0, -1]], "normal": [0, 0, 1], "mu": 0.5}"#;
        for line in [
            format!(r#"{{"dim": 3, "contacts": [{c}], "i\u0064": 1}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}], "dim": 3}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}], "grasp": true}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}], "extra": 1}}"#),
            format!(r#"{{"contacts": [{c}]}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}], "id": 1e400}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}], "margin_min": 1e400}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}], "mass": {{"nominal": 1, "extra": 2}}}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}], "mass": {{"range": [1, 2, 3]}}}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}], "com_offset": [[[0]]]}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}], "id": 18446744073709551616}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}]}} x"#),
            r#"{"dim": 3, "contacts": null}"#.into(),
            r#"{"dim": 3, "contacts": [{"pair": null, "points": [[0, 0, 1]], "normal": [0, 0, 1], "mu": 1}]}"#.into(),
            r#"{"dim": 3, "contacts": [{"pair": 0, "points": [[0, 0, 1]], "normal": [0, 0, 1], "mu": 1, "slip": null}]}"#.into(),
            r#"{"dim": 3, "contacts": [{"pair": 0, "points": [[0, 0, 1]], "normal": [0, 0, 1], "mu": 1, "slip": [[1]]}]}"#.into(),
        ] {
            assert!(plain::spatial(line.as_bytes()).is_none(), "the plain reader took {line}");
        }
    }

    /// The plain reader reads the plain grasp lines (every public one, and each rewritten:
    /// keys reordered, spaces, integers, intervals, ids and labels of every kind) into the
    /// scene serde's reading gives, or the same refusal; and leaves the rest to serde.
    #[test]
    fn the_plain_grasp_reader_agrees_with_serde() {
        let by_serde = |line: &str| {
            serde_json::from_str::<RawGrasp>(line)
                .map_err(|e| e.to_string())
                .and_then(|g| grasp_of(g).map_err(|e| e.to_string()))
        };
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
        let mut lines: Vec<String> = Vec::new();
        for name in ["grasp_public.jsonl", "grasp_circular_public.jsonl"] {
            let text = std::fs::read_to_string(format!("{dir}{name}")).unwrap();
            lines.extend(text.lines().map(String::from));
        }
        let public = lines.len();
        let mut rng = crate::rng::Rng::new(9);
        for i in 0..public {
            let mut v: Value = serde_json::from_str(&lines[i]).unwrap();
            let o = v.as_object_mut().unwrap();
            match rng.below(8) {
                0 => drop(o.insert("id".into(), Value::from(-(i as i64)))),
                1 => drop(o.insert("id".into(), serde_json::json!(-0.0))),
                2 => drop(o.insert("tolerance".into(), serde_json::json!(1e-6))),
                3 => drop(o.insert("q1_at_least".into(), serde_json::json!(0))),
                4 => drop(o.insert("id".into(), Value::Null)),
                5 => drop(o.insert("half_size".into(), serde_json::json!(1))),
                6 => drop(o.insert("pyramid".into(), serde_json::json!(5.0))),
                _ => drop(o.insert("scale_of".into(), serde_json::json!("x"))),
            }
            if let Some(c) = o.get_mut("contacts").and_then(|c| c.get_mut(0)) {
                if rng.below(2) == 0 {
                    c["mu"] = serde_json::json!([0.25, 1]);
                }
            }
            let mut text = v.to_string();
            if i % 3 == 0 {
                text = text.replace(':', " : ").replace(',', " ,\t");
            }
            lines.push(text);
        }
        for line in &lines {
            let plain = plain::grasp(line.as_bytes());
            assert!(plain.is_some(), "the plain reader gave up on {line}");
            let plain = grasp_of(plain.unwrap()).map_err(|e| e.to_string());
            assert_eq!(plain, by_serde(line), "{line}");
        }
        // Left to serde: escapes, repeats, unknown keys, nulls where serde words its own
        // error, numbers beyond float64 or u64, non-JSON numbers, trailing bytes.
        let c = r#"{"points": [[0, 0, 1]], "normal": [0, 0, -1], "mu": 0.5}"#;
        for line in [
            format!(r#"{{"dim": 3, "grasp": true, "contacts": [{c}], "i\u0064": 1}}"#),
            format!(r#"{{"dim": 3, "grasp": true, "contacts": [{c}], "dim": 3}}"#),
            format!(r#"{{"dim": 3, "grasp": true, "contacts": [{c}], "mass": 1}}"#),
            format!(r#"{{"dim": 3, "grasp": true, "contacts": [{c}], "extra": 1}}"#),
            format!(r#"{{"dim": 3, "contacts": [{c}]}}"#),
            format!(r#"{{"dim": 3, "grasp": true, "contacts": [{c}], "id": 1e400}}"#),
            format!(r#"{{"dim": 3, "grasp": true, "contacts": [{c}], "id": 18446744073709551616}}"#),
            format!(r#"{{"dim": 3, "grasp": true, "contacts": [{c}], "id": +1}}"#),
            format!(r#"{{"dim": 3, "grasp": true, "contacts": [{c}], "sub": [1]}}"#),
            format!(r#"{{"dim": 3, "grasp": true, "contacts": [{c}]}} x"#),
            r#"{"dim": 3, "grasp": true, "contacts": [{"points": [[0, 0]], "normal": [0, 0, 1], "mu": 1}]}"#.into(),
            r#"{"dim": 3, "grasp": true, "contacts": [{"points": [[0, 0, 1]], "normal": [0, 0, 1], "mu": null}]}"#.into(),
            r#"{"dim": 3, "grasp": true, "contacts": [{"points": [[0, 0, 1]], "normal": [0, 0, 1], "mu": [1]}]}"#.into(),
            r#"{"dim": 3, "grasp": true, "contacts": [{"points": [[0, 0, 1]], "normal": [0, 0, 1], "mu": 1, "pair": 0}]}"#.into(),
            r#"{"dim": 3, "grasp": true, "contacts": [{"points": [[0, 0, 1]], "normal": [0, 0, 1e999], "mu": 1}]}"#.into(),
        ] {
            assert!(plain::grasp(line.as_bytes()).is_none(), "the plain reader took {line}");
        }
    }
}
