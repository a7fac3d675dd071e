//! Pictures of a scene and its hold report (SVG): where the contacts are, which forces hold
//! the box or how it slides or tips, and how far the need sits inside the wrench cone.
//!
//! Fed by a [`Scene`] and the [`HoldReport`] judged from it only: the physical layer knows
//! nothing of pictures. Left panel: the scene to scale (y up). Right panel: the wrench cone's
//! slice at f_z = 1 with the needs. Elements carry classes (`box`, `contact`, `friction-edge`,
//! `gravity`, `force`, `certificate`, `cone-slice`, `need`, `binding-facet`, …) for tests and
//! restyling; each panel's group carries `data-origin` (pixel position of the world origin)
//! and `data-scale` (pixels per unit, both axes) to read positions back.
//!
//! Spatial scenes are drawn by [`spatial`], grasp lines (their contacts and the weakest
//! wrench as a screw) by [`grasp`], a data set of grasp answers (the distribution of q1) by
//! [`dataset`].

pub(crate) mod cone;
pub(crate) mod dataset;
mod frame;
pub(crate) mod grasp;
mod page;
mod plane;
pub(crate) mod spatial;
pub(crate) mod story;
mod style;

use serde_json::Value;
use svg::Document;

use page::{page, Caption};

use crate::scene::{HoldReport, Scene};

pub(crate) use story::story;

const SCENE_PANEL: [f64; 4] = [60.0, 56.0, 430.0, 430.0];
const CONE_PANEL: [f64; 4] = [570.0, 56.0, 400.0, 430.0];
const CAPTION_TOP: f64 = 540.0;

/// The picture of `scene` and its report `report` (the report must be the scene's own).
pub(crate) fn picture(scene: &Scene, report: &HoldReport) -> Document {
    let story = story(scene, report);
    let title = title(report);
    let (cone_panel, notes) = cone::panel(CONE_PANEL, scene, report, story.need_index);
    let legend = "Left, to scale: blue: contacts (c<k>) and normals; light blue dashed, grey dotted: an \
                  edit's contacts before and after; green dashed: friction cone edges (μ's lower \
                  end); black: weight; orange: contact forces, same scale; red: what fails (binding \
                  contacts, pivot and turn, sliding). Right: shaded: the contacts' wrenches per unit \
                  of vertical force (f_z = 1); dots: the needs, one per centre of mass (masses \
                  coincide), inside the shaded polygon = held; red dashed: the binding facet.";
    let sliding = " Sliding contacts: green solid: their one friction ray n − μ·v̂ (no cone); pink \
                   arrow: the slip (the body's motion over the contact).";
    let legend = if scene.slides() {
        format!("{legend}{sliding}")
    } else {
        legend.to_string()
    };
    let caption = Caption::new(CAPTION_TOP, story.lines.iter().chain(&notes), &legend);
    let heads: &[&str] = if scene.slides() { &[style::SLIP] } else { &[] };
    page(
        caption.page_height(),
        &title,
        [SCENE_PANEL[0] - 40.0, 30.0],
        heads,
    )
    .add(plane::panel(SCENE_PANEL, scene, &story))
    .add(cone_panel)
    .add(caption.group())
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
        frame::short(report.margin_min)
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
