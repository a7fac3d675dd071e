//! Pictures of a scene and its hold report (SVG): where the contacts are, which forces hold
//! the box or how it slides or tips, and how far the need sits inside the wrench cone.
//!
//! Fed by a [`Scene`] and the [`HoldReport`] judged from it only: the physical layer knows
//! nothing of pictures. Left panel: the scene to scale (y up). Right panel: the wrench cone's
//! slice at f_z = 1 with the needs. Elements carry classes (`box`, `contact`, `friction-edge`,
//! `gravity`, `force`, `certificate`, `cone-slice`, `need`, `binding-facet`, …) for tests and
//! restyling; each panel's group carries `data-origin` (pixel position of the world origin)
//! and `data-scale` (pixels per unit, both axes) to read positions back.

mod cone;
mod frame;
mod plane;
pub mod spatial;
mod style;

use serde_json::Value;
use svg::node::element::{Group, Rectangle, Title};
use svg::Document;

use crate::planar::tables::Candidate;
use crate::scene::{HoldReport, Scene, LINE_TOLERANCE};

pub use cone::{half_spaces, slice};

const WIDTH: f64 = 1000.0;
const SCENE_PANEL: [f64; 4] = [60.0, 56.0, 430.0, 430.0];
const CONE_PANEL: [f64; 4] = [570.0, 56.0, 400.0, 430.0];
const CAPTION_TOP: f64 = 540.0;
const LINE_HEIGHT: f64 = 17.0;
/// Characters per caption line before it wraps (at 12 px, about 6.6 px a character).
const WRAP: usize = 140;

/// How the box fails, read from the certificate (a virtual motion along which gravity does
/// work and no contact resists: velocity `(y_x, y_z)` of the reference point, turning rate
/// `y_τ/ℓ`, positive clockwise in the picture).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Failure {
    /// Turning about `pivot` (the motion's fixed point), a contact's end when the binding
    /// candidate names one.
    Tip {
        /// The fixed point `(x, z)`, relative to the reference point, in the scene's length units.
        pivot: [f64; 2],
        /// The sense of the turn in the picture.
        clockwise: bool,
    },
    /// Translating along `direction` (unit), the fixed point far away or at infinity.
    Slide {
        /// Unit direction `(x, z)` of the centre of mass's motion (along the contact line
        /// when friction edges of contacts on one line bind).
        direction: [f64; 2],
    },
}

/// What a picture explains: one need (the binding one), its forces or its failure.
pub struct Story {
    /// Index into [`HoldReport::needs`]: the binding need, or when not held the worst
    /// certified one.
    pub need_index: usize,
    /// That need's mass, in the nominal mass's units.
    pub mass: f64,
    /// That need's centre-of-mass x-offset, in the scene's length units.
    pub com_offset_x: f64,
    /// Contact forces of the witness, merged per application point: `(point, force)`, the
    /// force in nominal weights `m0·g` (float64-polished weights).
    pub forces: Vec<([f64; 2], [f64; 2])>,
    /// How the box fails, when the need has a certificate.
    pub failure: Option<Failure>,
    /// Indices into `Scene::contacts` of the contacts the binding candidate is built from.
    pub binding_contacts: Vec<usize>,
    /// Caption lines after the title.
    pub lines: Vec<String>,
}

/// The picture of `scene` and its report `report` (the report must be the scene's own).
pub fn picture(scene: &Scene, report: &HoldReport) -> Document {
    let story = story(scene, report);
    let title = title(report);
    let (cone_panel, notes) = cone::panel(CONE_PANEL, scene, report, story.need_index);
    let mut caption: Vec<String> = Vec::new();
    for l in story.lines.iter().chain(&notes) {
        caption.extend(wrap(l, WRAP));
    }
    let legend = "Left, to scale: blue: contacts (c<k>) and normals; light blue dashed, grey dotted: an \
                  edit's contacts before and after; green dashed: friction cone edges (μ's lower \
                  end); black: weight; orange: contact forces, same scale; red: what fails (binding \
                  contacts, pivot and turn, sliding). Right: shaded: the contacts' wrenches per unit \
                  of vertical force (f_z = 1); dots: the needs, one per centre of mass (masses \
                  coincide), inside the shaded polygon = held; red dashed: the binding facet.";
    let legend_lines = wrap(legend, WRAP);
    let height = CAPTION_TOP + LINE_HEIGHT * (caption.len() + legend_lines.len()) as f64 + 16.0;

    let mut doc = Document::new()
        .set("width", WIDTH)
        .set("height", height)
        .set("viewBox", (0, 0, WIDTH, frame::r(height)))
        .set("font-family", style::FONT)
        .add(Title::new(title.as_str()))
        .add(style::markers())
        .add(
            Rectangle::new()
                .set("class", "background")
                .set("width", "100%")
                .set("height", "100%")
                .set("fill", "#ffffff"),
        )
        .add(
            frame::label(&title, [SCENE_PANEL[0] - 40.0, 30.0], "start", style::TEXT)
                .set("class", "caption title")
                .set("font-size", 16)
                .set("font-weight", "bold"),
        );
    doc = doc
        .add(plane::panel(SCENE_PANEL, scene, &story))
        .add(cone_panel);
    let mut text = Group::new().set("class", "caption");
    let mut y = CAPTION_TOP;
    for l in &caption {
        text = text.add(frame::label(l, [20.0, y], "start", style::TEXT));
        y += LINE_HEIGHT;
    }
    for l in &legend_lines {
        text = text.add(frame::label(l, [20.0, y], "start", style::AXIS).set("font-size", 11));
        y += LINE_HEIGHT;
    }
    doc.add(text)
}

/// The picture as SVG text.
pub fn svg_text(scene: &Scene, report: &HoldReport) -> String {
    picture(scene, report).to_string()
}

/// A file name for a line's picture: the id with every character outside `[A-Za-z0-9._-]`
/// replaced by `_` (no leading dot, at most 100 characters), or `line-<N>` when that leaves
/// nothing (or the id is absent), plus `.svg`.
pub fn file_name(id: Option<&Value>, line: usize) -> String {
    let raw = match id {
        Some(Value::String(s)) => s.clone(),
        Some(v @ Value::Number(_)) => v.to_string(),
        _ => String::new(),
    };
    let safe: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    let safe = safe.trim_start_matches('.');
    if safe.is_empty() || safe.chars().all(|c| c == '_') {
        format!("line-{line}.svg")
    } else {
        format!("{safe}.svg")
    }
}

fn title(report: &HoldReport) -> String {
    let id = match &report.id {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let verdict = if report.held {
        "held"
    } else if report.uncertain {
        "not held (uncertain: within tolerance of the boundary)"
    } else if report.needs.iter().any(|n| n.verdict == "unsupported") {
        "not held (certified)"
    } else {
        "not held (margin below margin_min)"
    };
    format!(
        "{id}: {verdict}, robust margin {} (margin_min {})",
        fmt_margin(report.robust_margin),
        plane::short(report.margin_min)
    )
}

fn fmt_margin(m: f32) -> String {
    if m >= crate::MARGIN_CAP {
        format!(
            "{} (the cap: no plane bounds the contacts)",
            crate::MARGIN_CAP
        )
    } else if m.abs() >= 1e-3 || m == 0.0 {
        format!("{:.4}", m + 0.0)
    } else {
        format!("{m:.2e}")
    }
}

fn v2(p: [f64; 2]) -> String {
    format!("({}, {})", plane::short(p[0]), plane::short(p[1]))
}

/// Derives the story of the picture from the scene and its report.
pub fn story(scene: &Scene, report: &HoldReport) -> Story {
    let ell = scene.body.half_size;
    let tol = LINE_TOLERANCE * ell;
    // The binding need; when not held and some need is certified, the worst certified one.
    let mut need_index = report
        .binding_need
        .index
        .min(report.needs.len().saturating_sub(1));
    if !report.held
        && report
            .needs
            .get(need_index)
            .is_some_and(|n| n.certificate.is_none())
    {
        if let Some(k) = (0..report.needs.len())
            .filter(|&k| report.needs[k].certificate.is_some())
            .min_by(|&a, &b| report.needs[a].margin.total_cmp(&report.needs[b].margin))
        {
            need_index = k;
        }
    }
    let need = &report.needs[need_index];
    let sources = scene.generator_sources();
    let at = |g: u32| {
        sources.get(g as usize).map(|s| {
            let c = &scene.contacts[s.contact];
            (s, if s.endpoint == 0 { c.p0 } else { c.p1 })
        })
    };

    // Witness forces, merged per application point.
    let mut forces: Vec<([f64; 2], [f64; 2])> = Vec::new();
    if let Some(w) = &need.witness {
        for (&g, &lambda) in w.generators.iter().zip(&w.weights) {
            let Some((s, p)) = at(g) else { continue };
            let ray = scene.contacts[s.contact].edge_directions()[usize::from(s.ray < 0)];
            let f = [lambda * ray[0], lambda * ray[1]];
            match forces
                .iter_mut()
                .find(|(q, _)| (q[0] - p[0]).hypot(q[1] - p[1]) <= tol)
            {
                Some((_, sum)) => *sum = [sum[0] + f[0], sum[1] + f[1]],
                None => forces.push((p, f)),
            }
        }
    }

    // What binds, in words, and the contacts it is built from.
    let binding_gens: Vec<u32> = need
        .binding
        .as_ref()
        .map(|b| b.generators.clone())
        .unwrap_or_default();
    let mut binding_contacts: Vec<usize> = binding_gens
        .iter()
        .filter_map(|&g| sources.get(g as usize).map(|s| s.contact))
        .collect();
    binding_contacts.dedup();
    let binding_contacts_all = binding_contacts.clone();
    if report.held {
        // Highlighted only to show what fails.
        binding_contacts.clear();
    }
    let one_point = match binding_gens.as_slice() {
        [a, b] => match (at(*a), at(*b)) {
            (Some((sa, pa)), Some((_, pb))) if (pa[0] - pb[0]).hypot(pa[1] - pb[1]) <= tol => {
                let c = &scene.contacts[sa.contact];
                let end = if c.is_point(tol) {
                    String::new()
                } else {
                    format!(" p{}", sa.endpoint)
                };
                Some((pa, format!("{}{end}", c.label())))
            }
            _ => None,
        },
        _ => None,
    };
    let gens = scene.generators_f64();
    let mut sliding = false;
    let binds = match &need.binding {
        None => "nothing: the contacts' wrenches fill every direction".to_string(),
        Some(b) if b.generators.is_empty() => "no contact pushes against gravity".to_string(),
        Some(b) => {
            let kind = Candidate::at(b.candidate);
            let parallel = match b.generators.as_slice() {
                [i, j] => match (gens.get(*i as usize), gens.get(*j as usize)) {
                    (Some(a), Some(c)) => {
                        let cr = a[0] * c[1] - a[1] * c[0];
                        cr.abs() <= 1e-9 * a[0].hypot(a[1]) * c[0].hypot(c[1])
                            && a[0] * c[0] + a[1] * c[1] > 0.0
                    }
                    _ => false,
                },
                _ => false,
            };
            match (kind, &one_point) {
                (Some(Candidate::PairPlane { .. }), Some((p, name))) => {
                    format!("tipping about {name} at {} ({})", v2(*p), b.kind)
                }
                (Some(Candidate::PairPlane { .. }), None) if parallel => {
                    sliding = true;
                    format!(
                        "sliding: the friction edges {} ({})",
                        b.sources.join(" and "),
                        b.kind
                    )
                }
                (Some(Candidate::GeneratorPlane { axis: 2, .. }), _) => {
                    sliding = true;
                    format!(
                        "sliding: the friction edge {} ({})",
                        b.sources.join(", "),
                        b.kind
                    )
                }
                _ => format!("the plane {} through {}", b.kind, b.sources.join(", ")),
            }
        }
    };

    // The failure, from the certificate: a turn about its fixed point when that point is a
    // contact's (the box pivots on it), else a slide along the centre of mass's velocity.
    let failure = need.certificate.and_then(|y| {
        let y = y.map(f64::from);
        let omega = y[2] / ell;
        let on_contact = |p: [f64; 2]| {
            scene
                .contacts
                .iter()
                .any(|c| segment_distance(p, c.p0, c.p1) <= 1e-3 * ell)
        };
        let centre = (omega.abs() > 1e-12).then(|| [y[1] / omega, -y[0] / omega]);
        // Turning about a contact (a pivot), or about a point of the box or near it (the
        // box spins in place, e.g. pressed between contacts that let it turn); a fixed point
        // farther away reads as a slide.
        let near = |p: [f64; 2]| p[0].abs().max(p[1].abs()) <= 1.5 * ell;
        if let Some(mut pivot) = centre.filter(|&p| !sliding && (on_contact(p) || near(p))) {
            if let Some((p, _)) = &one_point {
                if (p[0] - pivot[0]).hypot(p[1] - pivot[1]) <= 1e-3 * ell {
                    pivot = *p;
                }
            }
            return Some(Failure::Tip {
                pivot,
                clockwise: omega > 0.0,
            });
        }
        // Velocity at the centre of mass (x, 0): v + ω·(r_z, −r_x).
        let mut v = [y[0], y[1] - omega * need.com_offset_x];
        // Coulomb friction is not associated: the certificate's motion also lifts off at
        // atan(μ). When it binds on the friction edges of contacts along one line, the box
        // slides along that line: draw the motion's part along it.
        let tangents: Vec<[f64; 2]> = binding_contacts_all
            .iter()
            .map(|&k| scene.contacts[k].tangent())
            .collect();
        if let Some(&t) = tangents.first().filter(|_| sliding) {
            let along = v[0] * t[0] + v[1] * t[1];
            if tangents
                .iter()
                .all(|u| (u[0] * t[1] - u[1] * t[0]).abs() <= 1e-9)
                && along.abs() > 1e-9
            {
                v = [along * t[0], along * t[1]];
            }
        }
        let speed = v[0].hypot(v[1]);
        if speed > 1e-12 {
            Some(Failure::Slide {
                direction: [v[0] / speed, v[1] / speed],
            })
        } else {
            None
        }
    });

    let mut lines = vec![format!(
        "Need {} of {} (binding): mass {}, centre of mass at x = {}; binds: {binds}.",
        need_index,
        report.needs.len(),
        plane::short(need.mass),
        plane::short(need.com_offset_x)
    )];
    if !forces.is_empty() {
        let list: Vec<String> = forces
            .iter()
            .map(|(p, f)| format!("{} at {}", v2(*f), v2(*p)))
            .collect();
        lines.push(format!(
            "Contact forces that hold it (witness, in nominal weights m0·g): {}.",
            list.join(", ")
        ));
    }
    if let Some(y) = need.certificate {
        let how = match failure {
            Some(Failure::Tip { pivot, clockwise }) => {
                let name = one_point
                    .as_ref()
                    .filter(|(p, _)| *p == pivot)
                    .map(|(_, n)| format!("{n} "))
                    .unwrap_or_default();
                format!(
                    "the box tips {} about {name}{}",
                    if clockwise {
                        "clockwise"
                    } else {
                        "counterclockwise"
                    },
                    v2(pivot)
                )
            }
            Some(Failure::Slide { direction }) if direction[1] < -0.99 => {
                format!("the box falls (toward {})", v2(direction))
            }
            Some(Failure::Slide { direction }) => {
                format!("the box slides toward {}", v2(direction))
            }
            None => "no motion to draw".to_string(),
        };
        lines.push(format!(
            "Certificate y = ({:.4}, {:.4}, {:.4}), y·need = {:.4} < 0: {how}.",
            y[0] + 0.0,
            y[1] + 0.0,
            y[2] + 0.0,
            need.margin
        ));
    } else if !report.held && need.verdict == "uncertain" {
        lines.push("Uncertain: within tolerance of the boundary neither a witness nor a certificate passes; the gate treats it as not held.".to_string());
    }
    if let Some(e) = &scene.edit {
        lines.push(format!(
            "Edit: kept pairs {:?} (their overlaps are the contacts drawn), no overlap {:?}, made {:?}, broken {:?}.",
            e.kept, e.no_overlap, e.made, e.broken
        ));
    }
    Story {
        need_index,
        mass: need.mass,
        com_offset_x: need.com_offset_x,
        forces,
        failure,
        binding_contacts,
        lines,
    }
}

/// Distance from `p` to the segment `[a, b]`.
fn segment_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    let t = if len2 > 0.0 {
        (((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p[0] - a[0] - t * d[0]).hypot(p[1] - a[1] - t * d[1])
}

/// Splits `text` into lines of at most `width` characters at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}
