//! Pictures of a spatial scene and its report (SVG): an axonometric view of the body and its
//! contacts with the witness forces or the certificate's screw, and a top view with the
//! support region and the centre-of-mass box.

use crate::scene::{SpatialReport, SpatialScene};

/// The picture of `scene` and its report, as SVG text.
pub fn svg_text(scene: &SpatialScene, report: &SpatialReport) -> String {
    // Placeholder until the 3-D view lands: the answer in words.
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"40\"><text x=\"10\" y=\"24\">{} held {} ({} contacts)</text></svg>\n",
        report.id, report.held, scene.contacts.len()
    )
}
