//! The fixed palette and sizes: one place to restyle every picture.

use svg::node::element::{Definitions, Marker, Path};

pub(super) const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
pub(super) const FONT_SIZE: f64 = 12.0;

pub(super) const TEXT: &str = "#222222";
pub(super) const AXIS: &str = "#666666";
pub(super) const BOX: &str = "#444444";
pub(super) const CONTACT: &str = "#1f77b4";
pub(super) const GHOST_BEFORE: &str = "#9ecae1";
pub(super) const GHOST_AFTER: &str = "#bbbbbb";
pub(super) const FRICTION: &str = "#2ca02c";
pub(super) const GRAVITY: &str = "#000000";
pub(super) const FORCE: &str = "#ff7f0e";
pub(super) const FAILURE: &str = "#d62728";
pub(super) const NEED: &str = "#9467bd";
pub(super) const SLICE_FILL: &str = "#c6dbef";
/// A sliding contact's slip arrow (its friction ray is [`FRICTION`], drawn solid).
pub(super) const SLIP: &str = "#e377c2";

/// Every colour an arrow can have: one arrowhead marker each.
const ARROW_COLOURS: [&str; 6] = [CONTACT, FRICTION, GRAVITY, FORCE, FAILURE, NEED];

/// The id of the arrowhead marker of `colour`.
pub(super) fn marker_id(colour: &str) -> String {
    format!("head-{}", colour.trim_start_matches('#'))
}

/// The arrowhead marker of `colour`.
pub(super) fn marker(colour: &str) -> Marker {
    Marker::new()
        .set("id", marker_id(colour))
        .set("viewBox", "0 0 10 10")
        .set("refX", 9)
        .set("refY", 5)
        .set("markerWidth", 5)
        .set("markerHeight", 5)
        .set("orient", "auto")
        .add(
            Path::new()
                .set("d", "M 0 0 L 10 5 L 0 10 z")
                .set("fill", colour),
        )
}

/// The arrowhead markers, one per arrow colour.
pub(super) fn markers() -> Definitions {
    ARROW_COLOURS
        .iter()
        .fold(Definitions::new(), |defs, &colour| defs.add(marker(colour)))
}
