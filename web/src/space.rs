//! The 3-D page's exports: a spatial scene or a grasp judged through the same engine and gate
//! as the CLI's, with what the page draws of it (the contacts and their friction pyramids as
//! the cone test sees them). The page's JavaScript only projects and paints.

use planar_hold::details::scene::main_pyramid;
use planar_hold::{parse_line, Report, SceneLine, SpatialScene};
use serde::Serialize;
use serde_json::json;
use wasm_bindgen::prelude::*;

use super::{engine, js_err, options};

/// A contact as the page draws it.
#[derive(Serialize)]
struct Drawn<'a> {
    /// "point", "edge" or "face".
    kind: &'static str,
    points: &'a [[f64; 3]],
    /// Inward unit normal.
    normal: [f64; 3],
    /// The edges of its friction pyramid (unit normal + μ·tangent), as the cone test uses
    /// them at the line's k: one fan drawn at each of its points.
    edges: Vec<[f64; 3]>,
}

fn drawn(s: &SpatialScene) -> Vec<Drawn<'_>> {
    let pyramid = main_pyramid(s.friction);
    s.contacts
        .iter()
        .map(|c| Drawn {
            kind: c.kind(),
            points: &c.points,
            normal: c.normal,
            edges: c.edges(s.pyramid, pyramid),
        })
        .collect()
}

/// One 3-D line (a spatial scene, or a grasp) judged for the page, on the GPU (or the CPU
/// when `cpu`): `{kind, report, scene, contacts}` as JSON: "scene" or "grasp", the gate's
/// report (the support region, or q1 and the weakest wrench), the scene as parsed, and its
/// contacts as drawn. A planar line is refused: the planar page takes it.
#[wasm_bindgen]
pub async fn judge_space(line: String, cpu: bool) -> Result<String, JsValue> {
    let parsed = parse_line(&line).map_err(js_err)?;
    let (kind, s) = match &parsed {
        SceneLine::Spatial(s) => ("scene", s),
        SceneLine::Grasp(s) => ("grasp", s),
        SceneLine::Planar(_) => {
            return Err(JsValue::from_str(
                "a planar scene (no \"dim\": 3): the planar page takes it",
            ))
        }
    };
    let reports = planar_hold::hold_reports_async(&*engine(cpu)?, [&parsed], options())
        .await
        .map_err(js_err)?;
    let report = match reports.into_iter().next() {
        Some(r @ (Report::Spatial(_) | Report::Grasp(_))) => r,
        _ => return Err(JsValue::from_str("a 3-D line answered as another kind")),
    };
    Ok(json!({
        "kind": kind,
        "report": report,
        "scene": s,
        "contacts": drawn(s),
    })
    .to_string())
}
