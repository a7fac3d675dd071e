//! Pictures of a spatial scene and its report (SVG): an axonometric view of the body and its
//! contacts with the witness forces or the certificate's screw, and a top view with the
//! support region and the centre-of-mass box.
//!
//! Left panel (`axo-panel`): the box `[−ℓ, ℓ]³` around the reference point, z up, seen from
//! the front right and above; its contacts (faces shaded, edges thick, points dots), each
//! application point's friction pyramid (`pyramid-edge`), the weight (`gravity`) at the
//! centre of mass of the need the picture explains, and either the witness forces (`force`,
//! summed per application point, to the weight's scale) or the motion the certificate says
//! gravity makes: a turn about its screw axis (`screw-axis`, `turn`) or a slide (`slide`).
//! The panel's group carries `data-projection` (the 2×3 matrix from scene coordinates to
//! pixels) and `data-origin` (the reference point's pixel); arrows carry `data-from` and
//! `data-to` (scene coordinates). Right panel (`top-panel`, x right, y up, `data-origin` and
//! `data-scale` as the planar panels): the contacts seen from above, the support region
//! (`support-region`) and the centre-of-mass box (`com-box`), coloured held or not.

pub(super) mod axo;
pub(crate) mod story;
mod top;

use serde_json::Value;
use svg::Document;

use super::frame::short;
use super::page::{page, Caption};
use super::style;
use crate::scene::{SpatialReport, SpatialScene};
use story::fmt_margin;

pub(crate) use story::story;

const AXO_PANEL: [f64; 4] = [20.0, 50.0, 540.0, 470.0];
const TOP_PANEL: [f64; 4] = [640.0, 70.0, 340.0, 340.0];
const CAPTION_TOP: f64 = 548.0;

/// The picture of `scene` and its report (the report must be the scene's own).
pub(crate) fn picture(scene: &SpatialScene, report: &SpatialReport) -> Document {
    let story = story(scene, report);
    let title = title(report);
    let legend = "Left, z up, seen from the front right: grey: the box [−ℓ, ℓ]³ around the \
                  reference point (the scene has no other geometry); blue: contacts (faces \
                  shaded, edges thick, points dots; c<k>); green: friction pyramid edges (μ's \
                  lower end); black: the weight at the centre of mass; orange: contact forces, \
                  summed per point, same scale; red: what fails (binding contacts, the screw axis \
                  and its turn, or the slide). Right, seen from above (x right, y up): {region}; \
                  green or red box: the centre-of-mass box, held or not; cross: the nominal \
                  centre of mass. Margins are in R⁶: force in m0·g and moment in m0·g·ℓ in one \
                  Euclidean norm.";
    let region = if report.support_region.is_some() {
        "blue shaded: the support region (centres of mass that are held at the nominal mass)"
    } else {
        "no support region (not asked for: gate --no-region)"
    };
    let legend = legend.replace("{region}", region);
    let sliding = " Sliding contacts: green solid: their one friction ray n − μ·v̂ at each \
                   point (no pyramid); pink arrow: the slip (the body's motion over the contact), \
                   seen from above with its friction's pull against it in green.";
    let (legend, heads): (String, &[&str]) = if scene.slides() {
        (format!("{legend}{sliding}"), &[style::AXIS, style::SLIP])
    } else {
        (legend.to_string(), &[style::AXIS])
    };
    let caption = Caption::new(CAPTION_TOP, &story.lines, &legend);
    page(caption.page_height(), &title, [20.0, 30.0], heads)
        .add(axo::panel(AXO_PANEL, scene, report, &story))
        .add(top::panel(TOP_PANEL, scene, report, &story))
        .add(caption.group())
}

/// The picture of `scene` and its report, as SVG text.
pub fn svg_text(scene: &SpatialScene, report: &SpatialReport) -> String {
    picture(scene, report).to_string()
}

fn verdict_words(report: &SpatialReport) -> &'static str {
    if report.held {
        "held"
    } else if report.uncertain {
        if report.coulomb_uncertain == Some(true) {
            "not held (uncertain: linearisation)"
        } else {
            "not held (uncertain: within tolerance of the boundary)"
        }
    } else if report.needs.iter().any(|n| n.verdict == "unsupported") {
        "not held (certified)"
    } else {
        "not held (margin below margin_min)"
    }
}

fn title(report: &SpatialReport) -> String {
    let id = match &report.id {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    format!(
        "{id}: {}, robust margin {} (margin_min {})",
        verdict_words(report),
        fmt_margin(report.robust_margin, report.capped),
        short(report.margin_min)
    )
}
