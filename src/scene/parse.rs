//! One JSON line into a validated [`Scene`]: fields, ranges, float32 finiteness.

use serde::Deserialize;
use serde_json::Value;

use super::edit::resolve_edit;
use super::spatial_parse::slip;
use super::types::{Body, Contact, Friction, Scene};
use super::LINE_TOLERANCE;
use crate::error::line_error;
use crate::general::MAX_GENERAL_GENERATORS;
use crate::Error;

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
    slip: Option<Value>,
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
    let mu = Friction::parse(&who, &raw.mu.ok_or_else(|| missing("mu"))?)?;
    let slip = match raw.slip {
        Some(v) => Some(slip(&who, &v, normal, &mu)?),
        None => None,
    };
    Ok(Contact {
        pair,
        source: index,
        p0,
        p1,
        normal,
        mu,
        slip,
    })
}

fn contact_list(list: &str, raw: Vec<RawContact>) -> Result<Vec<Contact>, Error> {
    if list != "contact" && raw.iter().any(|c| c.slip.is_some()) {
        return Err(input(
            "slip on an edit line (before/after): sliding contacts belong to scene lines only \
             (an edit keeps the contacts that stick)",
        ));
    }
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

/// Parses and validates one planar JSON line: a scene (`contacts`) or an edit (`before`, `after`,
/// resolved into the kept contacts of docs/contract-planar.md §9). The caller adds the line number to errors.
pub fn parse_planar(text: &str) -> Result<Scene, Error> {
    let raw: RawLine =
        serde_json::from_str(text).map_err(|e| line_error("the JSON object", text, &e))?;
    let (id, half_size) = super::spatial_parse::id_and_half_size(raw.id, raw.half_size)?;
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
    let (contacts, edit, before, after) = match (raw.contacts, raw.before, raw.after) {
        (Some(c), None, None) => (contact_list("contact", c)?, None, vec![], vec![]),
        (None, Some(b), Some(a)) => {
            let before = contact_list("before contact", b)?;
            let after = contact_list("after contact", a)?;
            let (kept, summary) = resolve_edit(&before, &after, tol);
            (kept, Some(summary), before, after)
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
    let scene = Scene {
        id,
        body,
        contacts,
        margin_min,
        edit,
        before,
        after,
    };
    let n = scene.generator_count();
    if n > MAX_GENERAL_GENERATORS {
        return Err(input(format!(
            "more than {MAX_GENERAL_GENERATORS} generators ({n}): {} contacts give 4 generators \
             each (2 when sliding), at most 64 sticking body pairs may touch",
            scene.contacts.len()
        )));
    }
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
