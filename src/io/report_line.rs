//! A gate's answer as its JSON line, written directly (`io::write_report`): what
//! `json::write_line` (serde_json) writes, byte for byte, without serde's machinery for the
//! answers a large file holds by the thousand (a spatial scene's and a grasp's): each key
//! with its punctuation a constant, floats by zmij and integers by itoa as serde_json writes
//! them, a string copied between quotes where it has nothing to escape; the rare parts
//! (proofs, refinements, sliding contacts) and every other answer by serde_json. A serde
//! serializer of our own for every answer wrote the same bytes with more instructions than
//! serde_json: the gain is in the constant keys (docs/performance.md, stop 65). A test
//! writes every public answer both ways.

use super::json::{
    write_array, write_f64, write_line, write_serde, write_str, write_usize, write_value,
};
use crate::scene::gate::Report;
use crate::scene::spatial_report::{SpatialBinding, SpatialNeedReport};
use crate::scene::{GraspReport, SpatialReport};

/// Appends the report's JSON line, as [`write_line`] writes it.
pub fn write_report(out: &mut Vec<u8>, report: &Report) {
    match report {
        Report::Spatial(s) => write_spatial(out, s),
        Report::Grasp(g) => write_grasp(out, g),
        report => write_line(out, report),
    }
}

/// A grasp's line (a third of a small grasp's time through `gate` was serde's writing).
fn write_grasp(out: &mut Vec<u8>, g: &GraspReport) {
    out.extend_from_slice(b"{\"id\":");
    write_value(out, &g.id);
    out.extend_from_slice(b",\"force_closure\":");
    write_value(out, &g.force_closure);
    out.extend_from_slice(b",\"q1\":");
    write_f64(out, g.q1);
    out.extend_from_slice(b",\"q1_lower\":");
    write_f64(out, g.q1_lower);
    if let Some(upper) = g.q1_upper {
        out.extend_from_slice(b",\"q1_upper\":");
        write_f64(out, upper);
    }
    out.extend_from_slice(b",\"weakest\":");
    write_array(out, &g.weakest, write_f64);
    out.extend_from_slice(b",\"facet\":");
    match &g.facet {
        Some(f) => {
            out.extend_from_slice(b"{\"normal\":");
            write_array(out, &f.normal, write_f64);
            out.extend_from_slice(b",\"generators\":");
            write_array(out, &f.generators, |out, g| write_usize(out, g as usize));
            out.extend_from_slice(b",\"contacts\":");
            write_array(out, &f.contacts, write_usize);
            out.push(b'}');
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(if g.margin_checked {
        b",\"margin_checked\":true,\"friction\":"
    } else {
        b",\"margin_checked\":false,\"friction\":"
    });
    write_str(out, g.friction);
    out.extend_from_slice(b",\"pyramid\":");
    write_usize(out, g.pyramid);
    out.extend_from_slice(b",\"n_generators\":");
    write_usize(out, g.n_generators);
    if let Some(v) = &g.q1_at_least {
        out.extend_from_slice(b",\"q1_at_least\":");
        write_value(out, v);
    }
    if let Some(r) = &g.refined {
        out.extend_from_slice(b",\"refined\":");
        write_serde(out, r);
    }
    if let Some(reason) = &g.reason {
        out.extend_from_slice(b",\"reason\":");
        write_str(out, reason);
    }
    if let Some(proof) = &g.proof {
        out.extend_from_slice(b",\"proof\":");
        write_serde(out, proof);
    }
    out.extend_from_slice(b"}\n");
}

fn write_spatial(out: &mut Vec<u8>, r: &SpatialReport) {
    out.extend_from_slice(b"{\"id\":");
    write_value(out, &r.id);
    out.extend_from_slice(b",\"dim\":");
    write_usize(out, r.dim.into());
    write_bool(out, b",\"held\":", r.held);
    out.extend_from_slice(b",\"robust_margin\":");
    write_f64(out, r.robust_margin);
    out.extend_from_slice(b",\"robust_margin_lower\":");
    write_f64(out, r.robust_margin_lower);
    write_bool(out, b",\"margin_checked\":", r.margin_checked);
    write_bool(out, b",\"uncertain\":", r.uncertain);
    write_bool(out, b",\"capped\":", r.capped);
    out.extend_from_slice(b",\"friction\":");
    write_str(out, r.friction);
    out.extend_from_slice(b",\"pyramid\":");
    write_usize(out, r.pyramid);
    out.extend_from_slice(b",\"margin_min\":");
    write_f64(out, r.margin_min);
    out.extend_from_slice(b",\"n_generators\":");
    write_usize(out, r.n_generators);
    if !r.sliding.is_empty() {
        out.extend_from_slice(b",\"sliding\":");
        write_serde(out, &r.sliding);
    }
    if let Some(upper) = r.margin_upper {
        out.extend_from_slice(b",\"margin_upper\":");
        write_f64(out, upper);
    }
    if let Some(undecided) = r.coulomb_uncertain {
        write_bool(out, b",\"coulomb_uncertain\":", undecided);
    }
    let need = &r.binding_need;
    out.extend_from_slice(b",\"binding_need\":{\"index\":");
    write_usize(out, need.index);
    out.extend_from_slice(b",\"mass\":");
    write_f64(out, need.mass);
    out.extend_from_slice(b",\"com_offset\":");
    write_array(out, &need.com_offset, write_f64);
    out.extend_from_slice(b"},\"binding\":");
    write_binding(out, r.binding.as_ref());
    if let Some(reason) = &r.reason {
        out.extend_from_slice(b",\"reason\":");
        write_str(out, reason);
    }
    if let Some(vertices) = &r.support_region {
        out.extend_from_slice(b",\"support_region\":");
        write_points(out, vertices);
    }
    if let Some(shape) = r.support_region_shape {
        out.extend_from_slice(b",\"support_region_shape\":");
        write_str(out, shape);
    }
    if let Some(clipped) = r.support_region_clipped {
        write_bool(out, b",\"support_region_clipped\":", clipped);
    }
    if let Some(checked) = r.support_region_checked {
        write_bool(out, b",\"support_region_checked\":", checked);
    }
    if let Some(inner) = &r.support_region_inner {
        out.extend_from_slice(b",\"support_region_inner\":");
        write_points(out, inner);
    }
    if let Some(proof) = &r.support_region_proof {
        out.extend_from_slice(b",\"support_region_proof\":");
        write_serde(out, proof);
    }
    out.extend_from_slice(b",\"needs\":[");
    for (i, n) in r.needs.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_need(out, n);
    }
    out.extend_from_slice(b"]}\n");
}

/// `key` (with its comma and colon) and `true` or `false`.
fn write_bool(out: &mut Vec<u8>, key: &[u8], v: bool) {
    out.extend_from_slice(key);
    out.extend_from_slice(if v { b"true" } else { b"false" });
}

/// `[[x, y], ...]`.
fn write_points(out: &mut Vec<u8>, points: &[[f64; 2]]) {
    write_array(out, points, |out, p| write_array(out, &p, write_f64));
}

/// A [`SpatialBinding`] as serde_json writes it, or `null`.
fn write_binding(out: &mut Vec<u8>, binding: Option<&SpatialBinding>) {
    let Some(b) = binding else {
        out.extend_from_slice(b"null");
        return;
    };
    out.extend_from_slice(b"{\"normal\":");
    write_array(out, &b.normal, write_f64);
    out.extend_from_slice(b",\"generators\":");
    write_array(out, &b.generators, |out, g| write_usize(out, g as usize));
    out.extend_from_slice(b",\"contacts\":");
    write_array(out, &b.contacts, write_usize);
    out.extend_from_slice(b",\"points\":");
    write_array(out, &b.points, |out, p| write_array(out, &p, write_usize));
    out.push(b'}');
}

/// A [`SpatialNeedReport`] as serde_json writes it.
fn write_need(out: &mut Vec<u8>, n: &SpatialNeedReport) {
    out.extend_from_slice(b"{\"mass\":");
    write_f64(out, n.mass);
    out.extend_from_slice(b",\"com_offset\":");
    write_array(out, &n.com_offset, write_f64);
    out.extend_from_slice(b",\"need\":");
    write_array(out, &n.need, write_f64);
    out.extend_from_slice(b",\"verdict\":");
    write_str(out, n.verdict);
    out.extend_from_slice(b",\"margin\":");
    write_f64(out, n.margin);
    out.extend_from_slice(b",\"margin_lower\":");
    write_f64(out, n.margin_lower);
    write_bool(out, b",\"capped\":", n.capped);
    if let Some(upper) = n.margin_upper {
        out.extend_from_slice(b",\"margin_upper\":");
        write_f64(out, upper);
    }
    out.extend_from_slice(b",\"witness\":");
    match &n.witness {
        Some(w) => {
            out.extend_from_slice(b"{\"generators\":");
            write_array(out, &w.generators, |out, g| write_usize(out, g as usize));
            out.extend_from_slice(b",\"weights\":");
            write_array(out, &w.weights, write_f64);
            out.extend_from_slice(b",\"sources\":[");
            for (i, source) in w.sources.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, source);
            }
            out.extend_from_slice(b"]}");
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"certificate\":");
    match &n.certificate {
        Some(y) => write_array(out, y, write_f64),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"binding\":");
    write_binding(out, n.binding.as_ref());
    write_bool(out, b",\"margin_checked\":", n.margin_checked);
    if let Some(proof) = &n.proof {
        out.extend_from_slice(b",\"proof\":");
        write_serde(out, proof);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    /// Every answer line is written as serde_json writes it, byte for byte
    /// ([`super::write_report`]): every public scene (planar, spatial, sliding)
    /// and grasp (pyramids, circular cones), some spatial scenes and grasps as `"coulomb"`
    /// (refined ones among them) or `"outer"`, some grasps with a threshold, a spatial scene
    /// with a sliding contact, ids of every form a line may give (escapes, negative, float,
    /// past i64, beyond ASCII), with and without proofs and support regions.
    #[test]
    fn every_answer_line_is_serdes_line() {
        use serde_json::{json, Value};

        use super::write_report;
        use crate::io::json::write_line;
        use crate::scene::gate::{hold_reports, parse_line, Report};
        use crate::{Engine, Options};

        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
        let sliding = r#"{"id": "s", "dim": 3, "half_size": 0.5, "pyramid": 4, "contacts": [
            {"pair": 3, "points": [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.5, 0.5, -0.5],
             [-0.5, 0.5, -0.5]], "normal": [0, 0, 1], "mu": 0.5, "slip": [1, 0, 0]},
            {"pair": 7, "points": [[-0.5, 0, 0]], "normal": [1, 0, 0], "mu": 0.3}]}"#;
        let mut lines = vec![sliding.to_string()];
        for file in [
            "scenes_public.jsonl",
            "scenes3d_public.jsonl",
            "sliding_public.jsonl",
            "grasp_public.jsonl",
            "grasp_circular_public.jsonl",
        ] {
            let text = std::fs::read_to_string(format!("{dir}{file}")).unwrap();
            for (n, line) in text.lines().enumerate() {
                let mut v: Value = serde_json::from_str(line).unwrap();
                if v["dim"] == json!(3) {
                    match n % 5 {
                        1 => v["friction"] = json!("coulomb"),
                        2 if v["friction"] != json!("circular") => v["friction"] = json!("outer"),
                        _ => {}
                    }
                }
                if v["grasp"] == json!(true) && n % 3 == 0 {
                    v["q1_at_least"] = json!(0.01);
                }
                v["id"] = match n % 8 {
                    0 => json!("a \"quoted\" \\ id\u{1}\u{7f} é"),
                    1 => json!(-3),
                    2 => json!(1.5e300),
                    3 => json!(i64::MIN),
                    4 => json!("line ✓ \\ 4"),
                    5 => json!(u64::MAX),
                    6 => json!(-0.0),
                    _ => v["id"].clone(),
                };
                lines.push(v.to_string());
            }
        }
        let scenes: Vec<_> = lines.iter().map(|l| parse_line(l).unwrap()).collect();
        // Planar, spatial, spatial sliding, spatial coulomb, grasp refined, grasp proof,
        // spatial proof: each written at least once.
        let mut kinds = [0usize; 7];
        for (proof, support_region) in [(false, true), (true, true), (false, false)] {
            let options = Options {
                proof,
                support_region,
                ..Options::default()
            };
            let reports = hold_reports(&Engine::cpu(), &scenes, options).unwrap();
            assert_eq!(reports.len(), lines.len());
            for report in &reports {
                match report {
                    Report::Planar(_) => kinds[0] += 1,
                    Report::Spatial(s) => {
                        kinds[1] += 1;
                        kinds[2] += usize::from(!s.sliding.is_empty());
                        kinds[3] += usize::from(s.coulomb_uncertain.is_some());
                        kinds[6] += usize::from(s.support_region_proof.is_some());
                    }
                    Report::Grasp(g) => {
                        kinds[4] += usize::from(g.refined.is_some());
                        kinds[5] += usize::from(g.proof.is_some());
                    }
                }
                let (mut ours, mut serdes) = (Vec::new(), Vec::new());
                write_report(&mut ours, report);
                write_line(&mut serdes, report);
                assert_eq!(
                    String::from_utf8_lossy(&ours),
                    String::from_utf8_lossy(&serdes)
                );
            }
        }
        assert!(kinds.iter().all(|&n| n > 0), "{kinds:?}");
    }
}
