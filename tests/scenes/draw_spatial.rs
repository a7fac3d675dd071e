//! Pictures of spatial scenes (`planar_hold::details::draw::spatial`, `planar-hold draw`): well-formed
//! SVG with the classed elements, and geometry read back from the drawing — the support
//! region in the top view, the witness forces against the weight, the screw axis through the
//! contact the body tips about, the slide down an incline.

use std::path::PathBuf;

use planar_hold::details::draw::spatial;
use planar_hold::{hold_reports, parse_line, Report, SceneLine, SpatialReport, SpatialScene};
use planar_hold::{Backend, Engine};
use serde_json::{json, Value};

/// Pixels: how far geometry read back may be off (coordinates are rounded to 0.01 px).
const PX: f64 = 1.0;

fn judge_all(lines: &[String]) -> Vec<(SpatialScene, SpatialReport)> {
    let scenes: Vec<SceneLine> = lines
        .iter()
        .map(|l| parse_line(l).expect("valid line"))
        .collect();
    let reports = hold_reports(
        &Engine::new(Backend::Cpu).unwrap(),
        &scenes,
        planar_hold::Options::default(),
    )
    .unwrap();
    scenes
        .into_iter()
        .zip(reports)
        .map(|(s, r)| match (s, r) {
            (SceneLine::Spatial(s), Report::Spatial(r)) => (s, r),
            _ => panic!("not a spatial line"),
        })
        .collect()
}

fn judge(line: &Value) -> (SpatialScene, SpatialReport) {
    judge_all(&[line.to_string()]).remove(0)
}

fn has_class(n: &roxmltree::Node, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|w| w == class))
}

fn all_with<'a>(doc: &'a roxmltree::Document, class: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants().filter(|n| has_class(n, class)).collect()
}

fn num(n: &roxmltree::Node, attr: &str) -> f64 {
    n.attribute(attr)
        .unwrap_or_else(|| panic!("{attr} missing on <{}>", n.tag_name().name()))
        .parse()
        .unwrap()
}

fn nums(n: &roxmltree::Node, attr: &str) -> Vec<f64> {
    n.attribute(attr)
        .unwrap_or_else(|| panic!("{attr} missing on <{}>", n.tag_name().name()))
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

fn v3(v: &[f64]) -> [f64; 3] {
    [v[0], v[1], v[2]]
}

/// The axonometric panel's map: `pixel = origin + M·p`.
struct Axo {
    m: [[f64; 3]; 2],
    origin: [f64; 2],
}

impl Axo {
    fn of(doc: &roxmltree::Document) -> Axo {
        let g = all_with(doc, "axo-panel")
            .into_iter()
            .next()
            .expect("axo panel");
        let m = nums(&g, "data-projection");
        let o = nums(&g, "data-origin");
        assert_eq!(m.len(), 6);
        Axo {
            m: [[m[0], m[1], m[2]], [m[3], m[4], m[5]]],
            origin: [o[0], o[1]],
        }
    }

    fn at(&self, p: [f64; 3]) -> [f64; 2] {
        let d = |r: [f64; 3]| r[0] * p[0] + r[1] * p[1] + r[2] * p[2];
        [self.origin[0] + d(self.m[0]), self.origin[1] + d(self.m[1])]
    }

    /// An arrow's scene ends, checked against its pixel ends.
    fn arrow(&self, l: &roxmltree::Node) -> ([f64; 3], [f64; 3]) {
        let (a, b) = (v3(&nums(l, "data-from")), v3(&nums(l, "data-to")));
        for (p, x, y) in [(a, "x1", "y1"), (b, "x2", "y2")] {
            let q = self.at(p);
            let px = [num(l, x), num(l, y)];
            assert!(
                dist2(q, px) <= PX,
                "arrow end {p:?} projects to {q:?}, drawn at {px:?}"
            );
        }
        (a, b)
    }
}

/// The top view's map, from `data-origin` and `data-scale` (y up).
struct Top {
    origin: [f64; 2],
    scale: f64,
}

impl Top {
    fn of(doc: &roxmltree::Document) -> Top {
        let g = all_with(doc, "top-panel")
            .into_iter()
            .next()
            .expect("top panel");
        let o = nums(&g, "data-origin");
        Top {
            origin: [o[0], o[1]],
            scale: num(&g, "data-scale"),
        }
    }

    fn world(&self, px: [f64; 2]) -> [f64; 2] {
        [
            (px[0] - self.origin[0]) / self.scale,
            (self.origin[1] - px[1]) / self.scale,
        ]
    }
}

fn dist2(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// Distance from the pixel `p` to the line through `a` and `b`.
fn line_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let d = [b[0] - a[0], b[1] - a[1]];
    ((p[0] - a[0]) * d[1] - (p[1] - a[1]) * d[0]).abs() / d[0].hypot(d[1])
}

fn polygon(n: &roxmltree::Node) -> Vec<[f64; 2]> {
    n.attribute("points")
        .unwrap()
        .split_whitespace()
        .map(|p| {
            let xy: Vec<f64> = p.split(',').map(|v| v.parse().unwrap()).collect();
            [xy[0], xy[1]]
        })
        .collect()
}

/// Rasterises with resvg and checks something was painted.
fn rasterise(svg: &str, what: &str) {
    let opt = resvg::usvg::Options::default();
    let tree = resvg::usvg::Tree::from_str(svg, &opt)
        .unwrap_or_else(|e| panic!("{what}: usvg cannot read the picture: {e}"));
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("pixmap");
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    let painted = pixmap
        .pixels()
        .iter()
        .filter(|p| p.alpha() > 0 && (p.red() < 250 || p.green() < 250 || p.blue() < 250))
        .count();
    assert!(painted > 1000, "{what}: only {painted} pixels painted");
}

fn corner(x: f64, y: f64, z: f64, pair: u32, mu: f64) -> Value {
    json!({"pair": pair, "points": [[x, y, z]], "normal": [0, 0, 1], "mu": mu})
}

/// A cube of half-size ℓ on the point contacts at its bottom corners `(±ℓ, ±ℓ)` listed.
fn cube_on(id: &str, ell: f64, corners: &[[f64; 2]], com: [f64; 2]) -> Value {
    let contacts: Vec<Value> = corners
        .iter()
        .enumerate()
        .map(|(i, c)| corner(c[0] * ell, c[1] * ell, -ell, i as u32, 0.5))
        .collect();
    json!({"id": id, "dim": 3, "half_size": ell, "contacts": contacts,
           "com_offset": [[com[0], com[0]], [com[1], com[1]]]})
}

const FOUR: [[f64; 2]; 4] = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]];

/// The witness forces' vertical parts add up to the weight, their horizontal parts to
/// nothing; each starts at a contact point.
fn check_forces(doc: &roxmltree::Document, scene: &SpatialScene, what: &str) {
    let axo = Axo::of(doc);
    let gravity = all_with(doc, "gravity");
    assert_eq!(gravity.len(), 1, "{what}");
    let (top, bottom) = axo.arrow(&gravity[0]);
    assert!(
        (top[0] - bottom[0]).abs() < 1e-9 && (top[1] - bottom[1]).abs() < 1e-9,
        "{what}: the weight points down"
    );
    let weight = top[2] - bottom[2];
    assert!(weight > 0.0);
    let forces = all_with(doc, "force");
    assert!(!forces.is_empty(), "{what}: no force arrows");
    let mut sum = [0.0; 3];
    let points: Vec<[f64; 3]> = scene
        .contacts
        .iter()
        .flat_map(|c| c.points.clone())
        .collect();
    for f in &forces {
        let (a, b) = axo.arrow(f);
        for k in 0..3 {
            sum[k] += b[k] - a[k];
        }
        assert!(
            points
                .iter()
                .any(|p| (0..3).all(|k| (p[k] - a[k]).abs() < 1e-5)),
            "{what}: a force starts at {a:?}, no contact point"
        );
    }
    let tol = 1e-4 * weight.max(sum[2].abs()) + 1e-5;
    assert!(
        (sum[2] - weight).abs() <= tol,
        "{what}: vertical force parts {} vs weight {weight}",
        sum[2]
    );
    assert!(
        sum[0].abs() <= tol && sum[1].abs() <= tol,
        "{what}: horizontal parts {sum:?}"
    );
}

#[test]
fn cube_on_four_corners_its_support_region_is_the_base_square_and_forces_carry_the_weight() {
    for ell in [0.5, 2.0] {
        let (scene, report) = judge(&cube_on("cube4", ell, &FOUR, [0.0, 0.0]));
        assert!(report.held);
        let svg = spatial::svg_text(&scene, &report);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let top = Top::of(&doc);
        let regions = all_with(&doc, "support-region");
        assert_eq!(regions.len(), 1);
        assert_eq!(regions[0].tag_name().name(), "polygon");
        let poly: Vec<[f64; 2]> = polygon(&regions[0])
            .into_iter()
            .map(|p| top.world(p))
            .collect();
        assert_eq!(poly.len(), 4, "{poly:?}");
        let tol = PX / top.scale;
        for c in FOUR {
            let want = [c[0] * ell, c[1] * ell];
            assert!(
                poly.iter().any(|p| dist2(*p, want) <= tol),
                "ℓ = {ell}: base corner {want:?} not in the drawn region {poly:?}"
            );
        }
        // The centre-of-mass box sits at the nominal centre of mass, coloured held.
        let boxes = all_with(&doc, "com-box");
        assert_eq!(boxes.len(), 1);
        let b = &boxes[0];
        let centre = top.world([
            num(b, "x") + 0.5 * num(b, "width"),
            num(b, "y") + 0.5 * num(b, "height"),
        ]);
        assert!(dist2(centre, [0.0, 0.0]) <= tol);
        assert_eq!(b.attribute("fill"), Some("#2ca02c"));
        check_forces(&doc, &scene, "cube4");
        // Contacts are dots, each with its pyramid of k = 4 edges.
        assert_eq!(all_with(&doc, "pyramid-edge").len(), 16);
        assert!(all_with(&doc, "screw-axis").is_empty() && all_with(&doc, "slide").is_empty());
        rasterise(&svg, "cube4");
    }
}

/// The screw axis drawn: its pixel line, and from the data its scene line and the contacts
/// on it.
struct Screw {
    pixels: ([f64; 2], [f64; 2]),
    point: [f64; 3],
    axis: [f64; 3],
    through: Vec<u64>,
}

fn screw(doc: &roxmltree::Document) -> Screw {
    let axes = all_with(doc, "screw-axis");
    assert_eq!(axes.len(), 1, "one screw axis");
    let l = &axes[0];
    let g = all_with(doc, "motion").into_iter().next().unwrap();
    Screw {
        pixels: ([num(l, "x1"), num(l, "y1")], [num(l, "x2"), num(l, "y2")]),
        point: v3(&nums(&g, "data-point")),
        axis: v3(&nums(&g, "data-axis")),
        through: g
            .attribute("data-through")
            .unwrap()
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect(),
    }
}

fn distance_to_line(p: [f64; 3], q: [f64; 3], u: [f64; 3]) -> f64 {
    let d = [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
    let t = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
    let e = [d[0] - t * u[0], d[1] - t * u[1], d[2] - t * u[2]];
    (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt()
}

#[test]
fn a_tipping_cube_turns_about_an_axis_through_the_contacts_it_tips_about() {
    // On four corners with the centre of mass beyond the +x edge: it tips about the
    // corners 1 and 2 (x = +ℓ). On two front corners: it tips about the line through them.
    let cases = [
        (cube_on("tips", 0.5, &FOUR, [0.7, 0.1]), vec![1u64, 2]),
        (
            cube_on("two", 0.5, &[[-1.0, -1.0], [1.0, -1.0]], [0.0, 0.0]),
            vec![0, 1],
        ),
        (
            cube_on("diagonal", 1.0, &[[-1.0, -1.0], [1.0, 1.0]], [0.3, -0.2]),
            vec![0, 1],
        ),
    ];
    for (line, tips_about) in cases {
        let (scene, report) = judge(&line);
        let id = line["id"].clone();
        assert!(!report.held && !report.uncertain, "{id}");
        let svg = spatial::svg_text(&scene, &report);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let axo = Axo::of(&doc);
        let Screw {
            pixels: (a, b),
            point,
            axis,
            through,
        } = screw(&doc);
        assert_eq!(through, tips_about, "{id}: contacts on the axis");
        for &c in &tips_about {
            let p = scene.contacts[c as usize].points[0];
            assert!(
                distance_to_line(p, point, axis) <= 1e-6,
                "{id}: contact {c} at {p:?} off the axis through {point:?} along {axis:?}"
            );
            let q = axo.at(p);
            assert!(
                line_distance(q, a, b) <= PX,
                "{id}: the drawn axis misses contact {c}'s pixel {q:?}"
            );
        }
        assert_eq!(all_with(&doc, "turn").len(), 1, "{id}");
        assert!(all_with(&doc, "slide").is_empty() && all_with(&doc, "force").is_empty());
        // The turn takes the centre of mass down (gravity does work on it).
        let v = all_with(&doc, "com-velocity");
        assert_eq!(v.len(), 1);
        let (from, to) = axo.arrow(&v[0]);
        assert!(to[2] < from[2], "{id}: the centre of mass rises");
        assert!(
            svg.contains("tips about c"),
            "{id}: the caption names the pivot"
        );
        rasterise(&svg, "tips");
    }
}

#[test]
fn an_incline_with_little_friction_slides_down_the_slope() {
    // A face tilted 20° about y (normal leaning +x), μ = 0.2 < tan 20° ≈ 0.36.
    let (s, c) = 20f64.to_radians().sin_cos();
    let ell = 0.5;
    // The box's bottom face, turned: points (x, y, −ℓ) rotated about y by −20°.
    let rot = |x: f64, y: f64| [x * c - ell * s, y, -x * s - ell * c];
    let face: Vec<[f64; 3]> = [[-ell, -ell], [ell, -ell], [ell, ell], [-ell, ell]]
        .iter()
        .map(|p| rot(p[0], p[1]))
        .collect();
    let line = json!({"id": "incline", "dim": 3, "half_size": ell, "contacts": [
        {"pair": 0, "points": face, "normal": [s, 0.0, c], "mu": 0.2}]});
    let (scene, report) = judge(&line);
    assert!(!report.held && !report.uncertain);
    let svg = spatial::svg_text(&scene, &report);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let axo = Axo::of(&doc);
    let slides = all_with(&doc, "slide");
    assert_eq!(slides.len(), 1, "a slide arrow");
    let (a, b) = axo.arrow(&slides[0]);
    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    // Down the slope: (cos 20°, 0, −sin 20°).
    let along = (d[0] * c - d[2] * s) / len;
    assert!(along > 0.999, "slide {d:?} not down the slope ({along})");
    assert!(all_with(&doc, "screw-axis").is_empty());
    assert!(!all_with(&doc, "face").is_empty());
    assert!(svg.contains("slides toward"));
    rasterise(&svg, "incline");
}

fn cases() -> PathBuf {
    crate::common::data_dir()
}

fn public_lines() -> Vec<String> {
    std::fs::read_to_string(cases().join("scenes3d_public.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

/// Checks one public picture: well-formed, classed, its forces or motion consistent.
fn check_public(svg: &str, scene: &SpatialScene, report: &SpatialReport) {
    let id = report.id.to_string();
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{id}: {e}"));
    let mut want = vec!["axo-panel", "top-panel", "body", "gravity", "com-box"];
    if !scene.contacts.is_empty() {
        want.push("contact");
    }
    if scene.contacts.iter().any(|c| c.slip.is_none()) {
        want.push("pyramid-edge");
    }
    let story = spatial::story(scene, report);
    let need = &report.needs[story.need_index];
    if need.witness.is_some() {
        want.push("force");
    }
    match &story.motion {
        Some(spatial::Motion::Turn { .. }) => want.extend(["screw-axis", "turn"]),
        Some(spatial::Motion::Slide { .. }) => want.push("slide"),
        None => {}
    }
    if need.certificate.is_some() {
        assert!(story.motion.is_some(), "{id}: a certificate and no motion");
    }
    for class in want {
        assert!(
            !all_with(&doc, class).is_empty(),
            "{id}: no element of class {class}"
        );
    }
    if need.witness.is_some() {
        check_forces(&doc, scene, &id);
    }
    if let Some(spatial::Motion::Turn {
        point,
        axis,
        through,
        ..
    }) = &story.motion
    {
        for &c in through {
            assert!(scene.contacts[c]
                .points
                .iter()
                .any(|&p| distance_to_line(p, *point, *axis) <= 1e-3 * scene.body.half_size));
        }
    }
    // The drawn motion takes the centre of mass down.
    for class in ["slide", "com-velocity"] {
        for l in all_with(&doc, class) {
            let (from, to) = Axo::of(&doc).arrow(&l);
            assert!(to[2] < from[2], "{id}: {class} rises: {from:?} -> {to:?}");
        }
    }
    let text = doc
        .descendants()
        .filter(|n| n.is_text())
        .map(|n| n.text().unwrap())
        .collect::<String>();
    assert!(text.contains("m0·g·ℓ"), "{id}: the margin's units");
    rasterise(svg, &id);
}

#[test]
fn every_public_scene_draws_well_formed_and_consistent() {
    let lines = public_lines();
    let judged = judge_all(&lines);
    assert_eq!(judged.len(), 69);
    let (mut turns, mut slides, mut held) = (0, 0, 0);
    for (scene, report) in &judged {
        let svg = spatial::svg_text(scene, report);
        check_public(&svg, scene, report);
        match spatial::story(scene, report).motion {
            Some(spatial::Motion::Turn { .. }) => turns += 1,
            Some(spatial::Motion::Slide { .. }) => slides += 1,
            None => {}
        }
        held += usize::from(report.held);
    }
    assert!(
        turns > 0 && slides > 0 && held > 0,
        "{turns} {slides} {held}"
    );
}

#[test]
fn draw_command_writes_one_spatial_picture_per_line() {
    let dir = std::env::temp_dir().join(format!("planar-hold-draw3d-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = crate::common::cli()
        .args([
            "draw",
            cases().join("scenes3d_public.jsonl").to_str().unwrap(),
            "-o",
        ])
        .arg(&dir)
        .args(["--backend", "cpu"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 69);
    let svg = std::fs::read_to_string(dir.join("ref_cube4_mu0.5.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert!(!all_with(&doc, "axo-panel").is_empty());
    assert!(!all_with(&doc, "support-region").is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `gate --no-region --draw`: each picture without a region, and its legend says why.
#[test]
fn a_gate_without_the_region_draws_none_and_says_so() {
    let dir = std::env::temp_dir().join(format!("planar-hold-noregion-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = crate::common::cli()
        .arg("gate")
        .arg(cases().join("scenes3d_public.jsonl"))
        .args(["--backend", "cpu", "--no-region", "--draw"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut drawn = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let svg = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        assert!(!all_with(&doc, "top-panel").is_empty());
        assert!(all_with(&doc, "support-region-group").is_empty());
        assert!(svg.contains("no support region (not asked for"));
        drawn += 1;
    }
    assert_eq!(drawn, 69);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every spatial line of the public sliding set draws well formed and consistent, and each
/// sliding contact with its one friction ray at its points (no pyramid) and its slip arrow
/// along the slip's tangential part (computed here from the line); seen from above, the
/// slip's horizontal part from the contact's middle.
#[test]
fn sliding_spatial_contacts_are_drawn_with_their_slip_and_one_friction_ray() {
    let lines: Vec<String> = std::fs::read_to_string(cases().join("sliding_public.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"dim\""))
        .map(String::from)
        .collect();
    let judged = judge_all(&lines);
    assert_eq!(judged.len(), 93);
    let mut slips = 0;
    for (line, (scene, report)) in lines.iter().zip(&judged) {
        let id = report.id.to_string();
        let svg = spatial::svg_text(scene, report);
        check_public(&svg, scene, report);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let axo = Axo::of(&doc);
        let value: Value = serde_json::from_str(line).unwrap();
        for (c, given) in scene
            .contacts
            .iter()
            .zip(value["contacts"].as_array().unwrap())
        {
            let group = doc
                .descendants()
                .find(|n| {
                    has_class(n, "contact")
                        && n.attribute("data-contact") == Some(&c.source.to_string())
                })
                .unwrap_or_else(|| panic!("{id}: no group of contact {}", c.source));
            let inside = |class: &str| group.descendants().filter(|n| has_class(n, class)).count();
            if given["slip"].is_null() {
                assert!(
                    inside("pyramid-edge") > 0 && inside("sliding-ray") == 0,
                    "{id}"
                );
                continue;
            }
            assert_eq!(
                inside("pyramid-edge") + inside("pyramid"),
                0,
                "{id}: no pyramid"
            );
            let rays = inside("sliding-ray");
            assert!(rays >= 1 && rays <= c.points.len(), "{id}: {rays} rays");
            let n = v3(&nums_of(&given["normal"]));
            let l = n.iter().map(|x| x * x).sum::<f64>().sqrt();
            let n = n.map(|x| x / l);
            let v = v3(&nums_of(&given["slip"]));
            let vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
            let vt = [v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2]];
            let lt = vt.iter().map(|x| x * x).sum::<f64>().sqrt();
            let u = vt.map(|x| x / lt);
            let arrows: Vec<_> = group
                .descendants()
                .filter(|n| has_class(n, "slip"))
                .collect();
            assert_eq!(arrows.len(), 1, "{id}");
            let (a, b) = axo.arrow(&arrows[0]);
            let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let ld = d.iter().map(|x| x * x).sum::<f64>().sqrt();
            assert!(
                (0..3).all(|k| (d[k] / ld - u[k]).abs() < 1e-4),
                "{id}: slip arrow {d:?}, slip direction {u:?}"
            );
            // Seen from above.
            let top = doc
                .descendants()
                .find(|n| {
                    has_class(n, "sliding")
                        && n.attribute("data-contact") == Some(&c.source.to_string())
                })
                .unwrap_or_else(|| panic!("{id}: no top view of sliding contact {}", c.source));
            let flat: Vec<_> = top.descendants().filter(|n| has_class(n, "slip")).collect();
            if u[0].hypot(u[1]) > 1e-3 {
                assert_eq!(flat.len(), 1, "{id}");
                let (dx, dy) = (
                    num(&flat[0], "x2") - num(&flat[0], "x1"),
                    num(&flat[0], "y1") - num(&flat[0], "y2"),
                );
                let cross = dx * u[1] - dy * u[0];
                assert!(
                    cross.abs() <= 0.05 * dx.hypot(dy) && dx * u[0] + dy * u[1] > 0.0,
                    "{id}: the slip from above ({dx}, {dy}), its direction {u:?}"
                );
            }
            slips += 1;
        }
    }
    assert!(slips >= 93, "{slips}");
}

fn nums_of(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}
