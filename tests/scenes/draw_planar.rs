//! Pictures (`planar_hold::details::draw`, `planar-hold draw`, `gate --draw`): well-formed SVG with the
//! classed elements, rasterised by resvg, and geometry read back from the drawing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::planar_reports;
use planar_hold::details::draw;
use planar_hold::details::scene::parse_planar;
use planar_hold::{Backend, Engine};
use planar_hold::{HoldReport, Scene};
use serde_json::{json, Value};

const TOL: f64 = 0.02; // world units: a pixel or two at the pictures' scales

fn scene_and_report(line: &Value) -> (Scene, HoldReport) {
    let scene = parse_planar(&line.to_string()).expect("valid line");
    let report = planar_reports(
        &Engine::new(Backend::Cpu).unwrap(),
        std::slice::from_ref(&scene),
        planar_hold::Options::default(),
    )
    .unwrap()
    .remove(0);
    (scene, report)
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

/// Pixel → world map of a panel, from its `data-origin` and `data-scale`.
struct Panel {
    origin: [f64; 2],
    scale: f64,
}

impl Panel {
    fn of(doc: &roxmltree::Document, class: &str) -> Panel {
        let g = all_with(doc, class).into_iter().next().expect("panel");
        let o: Vec<f64> = g
            .attribute("data-origin")
            .unwrap()
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        Panel {
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

    /// A line's two ends in world coordinates.
    fn ends(&self, l: &roxmltree::Node) -> ([f64; 2], [f64; 2]) {
        (
            self.world([num(l, "x1"), num(l, "y1")]),
            self.world([num(l, "x2"), num(l, "y2")]),
        )
    }
}

fn close(a: [f64; 2], b: [f64; 2]) -> bool {
    (a[0] - b[0]).abs() <= TOL && (a[1] - b[1]).abs() <= TOL
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

fn contact(pair: u32, p0: [f64; 2], p1: [f64; 2], mu: f64) -> Value {
    json!({"pair": pair, "p0": p0, "p1": p1, "normal": [0.0, 1.0], "mu": mu})
}

/// docs/contract-planar.md §6's flat box on two floor corners, and the same box on one floor segment.
fn flat_boxes(mu: f64) -> [Value; 2] {
    [
        json!({"id": "corners", "half_size": 1.0, "contacts": [
            contact(0, [-1.0, -1.0], [-1.0, -1.0], mu), contact(1, [1.0, -1.0], [1.0, -1.0], mu)]}),
        json!({"id": "segment", "half_size": 1.0, "contacts": [
            contact(0, [-1.0, -1.0], [1.0, -1.0], mu)]}),
    ]
}

#[test]
fn flat_box_witness_arrows_start_at_the_corners_and_carry_the_weight() {
    for line in flat_boxes(0.2) {
        let (scene, report) = scene_and_report(&line);
        assert!(report.held);
        let svg = draw::svg_text(&scene, &report);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let panel = Panel::of(&doc, "scene-panel");
        let forces = all_with(&doc, "force");
        assert_eq!(forces.len(), 2, "{}: one arrow per corner", line["id"]);
        let starts: Vec<[f64; 2]> = forces.iter().map(|f| panel.ends(f).0).collect();
        for corner in [[-1.0, -1.0], [1.0, -1.0]] {
            assert!(
                starts.iter().any(|&s| close(s, corner)),
                "{}: no force starts at {corner:?}: {starts:?}",
                line["id"]
            );
        }
        let rise: f64 = forces
            .iter()
            .map(|f| {
                let (a, b) = panel.ends(f);
                b[1] - a[1]
            })
            .sum();
        let gravity = all_with(&doc, "gravity");
        assert_eq!(gravity.len(), 1);
        let (top, bottom) = panel.ends(&gravity[0]);
        assert!(close(top, [0.0, 0.0]), "weight at the centre of mass");
        assert!((bottom[0] - top[0]).abs() <= TOL, "weight points down");
        let weight = top[1] - bottom[1];
        assert!(weight > 0.1);
        assert!(
            (rise - weight).abs() <= 1e-3 * weight + 0.02,
            "{}: vertical force components {rise} vs weight {weight}",
            line["id"]
        );
        // Both arrows lean inward with friction μ = 0.2: ½·A₊ + ½·B₋ (docs/contract-planar.md §6).
        for f in &forces {
            let (a, b) = panel.ends(f);
            let (dx, dz) = (b[0] - a[0], b[1] - a[1]);
            assert!((dx.abs() / dz - 0.2).abs() < 0.02, "{dx} {dz}");
            assert!(dx * a[0] < 0.0, "inward");
        }
        rasterise(&svg, "flat box");
    }
}

/// Whether `p` lies inside the convex polygon `poly` (either orientation), by `margin`.
fn inside(poly: &[[f64; 2]], p: [f64; 2], margin: f64) -> bool {
    let n = poly.len();
    let signs: Vec<f64> = (0..n)
        .map(|k| {
            let (a, b) = (poly[k], poly[(k + 1) % n]);
            let len = (b[0] - a[0]).hypot(b[1] - a[1]);
            ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) / len
        })
        .collect();
    signs.iter().all(|&s| s > margin) || signs.iter().all(|&s| s < -margin)
}

#[test]
fn flat_box_cone_slice_is_the_expected_quadrilateral_with_the_need_inside() {
    // Slice points (w_x, w_τ)/w_z of A₊, A₋, B₊, B₋ (docs/contract-planar.md §6 generators).
    let expected = [[0.2, 0.8], [-0.2, 1.2], [0.2, -1.2], [-0.2, -0.8]];
    for line in flat_boxes(0.2) {
        let (scene, report) = scene_and_report(&line);
        let svg = draw::svg_text(&scene, &report);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let panel = Panel::of(&doc, "cone-panel");
        let slices = all_with(&doc, "cone-slice");
        assert_eq!(slices.len(), 1);
        let poly: Vec<[f64; 2]> = slices[0]
            .attribute("points")
            .unwrap()
            .split_whitespace()
            .map(|p| {
                let xy: Vec<f64> = p.split(',').map(|v| v.parse().unwrap()).collect();
                panel.world([xy[0], xy[1]])
            })
            .collect();
        assert_eq!(poly.len(), 4, "{}: {poly:?}", line["id"]);
        for e in expected {
            assert!(poly.iter().any(|&p| close(p, e)), "{e:?} not in {poly:?}");
        }
        let needs = all_with(&doc, "need");
        assert_eq!(needs.len(), 1);
        let need = panel.world([num(&needs[0], "cx"), num(&needs[0], "cy")]);
        assert!(close(need, [0.0, 0.0]));
        assert!(inside(&poly, need, 0.1), "need {need:?} inside {poly:?}");
        // The binding facet is a sliding edge: the line f_x = +0.2 or −0.2.
        let facet = all_with(&doc, "binding-facet");
        assert_eq!(facet.len(), 1);
        let (a, b) = panel.ends(&facet[0]);
        assert!((a[0] - b[0]).abs() <= TOL && (a[0].abs() - 0.2).abs() <= TOL);
    }
}

#[test]
fn readme_failing_edit_pivots_on_the_contact_end_the_certificate_names() {
    let e1 = json!({"id": "e1", "half_size": 1.0,
        "before": [{"pair": 0, "p0": [-1, -1], "p1": [1, -1], "normal": [0, 1], "mu": 0.5}],
        "after":  [{"pair": 0, "p0": [0.2, -1], "p1": [1.4, -1], "normal": [0, 1], "mu": 0.5}]});
    let (scene, report) = scene_and_report(&e1);
    assert!(!report.held && !report.uncertain);
    let need = &report.needs[report.binding_need.index];
    assert!(need.certificate.is_some());
    // The certificate's binding candidate is built from the rays at one end: p0 of contact 0.
    let binding = need.binding.as_ref().unwrap();
    assert_eq!(binding.generators.len(), 2);
    assert!(binding
        .sources
        .iter()
        .all(|s| s.contains("contact 0") && s.contains(" p0 ")));
    let named = scene.contacts[0].p0;
    assert!(close(named, [0.2, -1.0]));

    let svg = draw::svg_text(&scene, &report);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let panel = Panel::of(&doc, "scene-panel");
    let pivots: Vec<_> = all_with(&doc, "pivot");
    assert_eq!(pivots.len(), 1);
    assert!(has_class(&pivots[0], "certificate"));
    let pivot = panel.world([num(&pivots[0], "cx"), num(&pivots[0], "cy")]);
    assert!(close(pivot, named), "pivot {pivot:?}, named end {named:?}");
    // The kept overlap starts there; the before and after contacts are ghosts.
    let kept = all_with(&doc, "kept");
    assert_eq!(kept.len(), 1);
    let (a, b) = panel.ends(&kept[0]);
    assert!(
        close(a, [0.2, -1.0]) && close(b, [1.0, -1.0]),
        "{a:?} {b:?}"
    );
    assert_eq!(all_with(&doc, "ghost").len(), 2);
    assert_eq!(all_with(&doc, "turn").len(), 1);
    assert!(
        svg.contains("counterclockwise"),
        "the centre of mass is left of the pivot"
    );
    assert!(all_with(&doc, "binding")
        .iter()
        .any(|n| has_class(n, "contact")));
    assert!(all_with(&doc, "force").is_empty());
    rasterise(&svg, "e1");
}

#[test]
fn sliding_failure_slides_down_the_slope() {
    // A floor tilted by atan(0.2) ≈ 11° (normal leaning right) with μ = 0.1 < 0.2: the box
    // slides down the slope, to the right.
    let line = json!({"id": "slide", "half_size": 1.0, "contacts": [
        {"pair": 0, "p0": [-1, -1], "p1": [1, -1], "normal": [0.2, 1], "mu": 0.1}]});
    let (scene, report) = scene_and_report(&line);
    assert!(!report.held);
    let svg = draw::svg_text(&scene, &report);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let panel = Panel::of(&doc, "scene-panel");
    let slides = all_with(&doc, "slide");
    assert_eq!(slides.len(), 1, "{svg}");
    let (a, b) = panel.ends(&slides[0]);
    assert!(b[0] > a[0] && b[1] < a[1], "{a:?} -> {b:?}");
    // Along the slope: direction (1, −0.2) up to the drawing's rounding.
    assert!(
        ((a[1] - b[1]) / (b[0] - a[0]) - 0.2).abs() < 0.02,
        "{a:?} -> {b:?}"
    );
    rasterise(&svg, "slide");
}

#[test]
fn file_names_are_safe() {
    assert_eq!(draw::file_name(Some(&json!("p0001")), 1), "p0001.svg");
    assert_eq!(draw::file_name(Some(&json!("a/b c")), 1), "a_b_c.svg");
    assert_eq!(draw::file_name(Some(&json!("../up")), 1), "_up.svg");
    assert_eq!(draw::file_name(Some(&json!(7)), 1), "7.svg");
    assert_eq!(draw::file_name(Some(&json!("///")), 4), "line-4.svg");
    assert_eq!(draw::file_name(Some(&json!("")), 5), "line-5.svg");
    assert_eq!(draw::file_name(None, 6), "line-6.svg");
}

// ------------------------------------------------------------------ the command

fn cases() -> PathBuf {
    crate::common::data_dir()
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_planar-hold"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planar-hold-draw-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn svgs(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect()
}

/// Checks every public line's picture: well-formed, classed, rasterised.
fn check_public_pictures(dir: &Path) {
    let text = std::fs::read_to_string(cases().join("scenes_public.jsonl")).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let scene = parse_planar(line).expect("public scenes are valid");
        let id = scene.id.as_str().unwrap().to_string();
        let path = dir.join(format!("{id}.svg"));
        let svg = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{id}: {e}"));
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{id}: {e}"));
        let report = planar_reports(
            &Engine::new(Backend::Cpu).unwrap(),
            std::slice::from_ref(&scene),
            planar_hold::Options::default(),
        )
        .unwrap()
        .remove(0);
        let mut want = vec!["box", "gravity", "need", "scene-panel", "cone-panel"];
        if !scene.contacts.is_empty() {
            want.extend(["contact", "friction-edge"]);
        }
        if report.held {
            want.push("force");
        }
        if report.needs.iter().any(|n| n.certificate.is_some()) {
            want.push("certificate");
        }
        if scene.edit.is_some() && !(scene.before.is_empty() && scene.after.is_empty()) {
            want.push("ghost");
        }
        for class in want {
            assert!(
                !all_with(&doc, class).is_empty(),
                "{id}: no element of class {class}"
            );
        }
        if !report.held {
            assert!(
                all_with(&doc, "force").is_empty()
                    || report.needs.iter().all(|n| n.witness.is_some())
            );
        }
        // Every need of the report is a point of the cone panel.
        assert_eq!(all_with(&doc, "need").len(), report.needs.len(), "{id}");
        rasterise(&svg, &id);
        checked += 1;
    }
    assert_eq!(checked, 54);
}

#[test]
fn draw_command_pictures_every_public_line() {
    let dir = scratch("public");
    let out = bin()
        .args([
            "draw",
            cases().join("scenes_public.jsonl").to_str().unwrap(),
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
    assert_eq!(svgs(&dir).len(), 54);
    check_public_pictures(&dir);

    // gate --draw writes the same pictures beside its report.
    let gate_dir = scratch("gate");
    let report = gate_dir.with_extension("jsonl");
    let out = bin()
        .args([
            "gate",
            cases().join("scenes_public.jsonl").to_str().unwrap(),
            "--backend",
            "cpu",
            "-o",
        ])
        .arg(&report)
        .arg("--draw")
        .arg(&gate_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&report).unwrap().lines().count(),
        54
    );
    assert_eq!(svgs(&dir), svgs(&gate_dir));
    for name in svgs(&dir) {
        assert_eq!(
            std::fs::read(dir.join(&name)).unwrap(),
            std::fs::read(gate_dir.join(&name)).unwrap(),
            "{name}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&gate_dir);
    let _ = std::fs::remove_file(&report);
}

#[test]
fn draw_command_on_the_gpu() {
    if crate::common::gpu_engine().is_none() {
        return;
    }
    let dir = scratch("gpu");
    let out = bin()
        .args([
            "draw",
            cases().join("scenes_public.jsonl").to_str().unwrap(),
            "-o",
        ])
        .arg(&dir)
        .args(["--backend", "gpu"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_public_pictures(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn draw_command_reports_bad_lines_and_draws_the_rest() {
    let dir = scratch("bad");
    let input = dir.with_extension("jsonl");
    let good = &flat_boxes(0.2)[0];
    let text = format!(
        "{good}\n{{\"id\": \"broken\", \"half_size\": -1, \"contacts\": []}}\n\n{}\n{{not json\n",
        json!({"id": "with/slash", "half_size": 1.0, "contacts": []})
    );
    std::fs::write(&input, text).unwrap();
    let out = bin()
        .arg("draw")
        .arg(&input)
        .arg("-o")
        .arg(&dir)
        .args(["--backend", "cpu"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}"); // some lines refused
    assert!(
        stderr.contains(".jsonl:2: invalid input: half_size"),
        "{stderr}"
    );
    // serde's position within the line: a column, not "line 1".
    assert!(
        stderr.contains(".jsonl:5: invalid input: malformed JSON (parse error): key must be a string at column 2"),
        "{stderr}"
    );
    assert!(stderr.contains("2 bad input line(s)"), "{stderr}");
    assert_eq!(
        svgs(&dir),
        BTreeSet::from(["corners.svg".to_string(), "with_slash.svg".to_string()])
    );
    // --backend both is refused with a reason.
    let out = bin()
        .arg("draw")
        .arg(&input)
        .arg("-o")
        .arg(&dir)
        .args(["--backend", "both"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pick gpu or cpu"));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&input);
}

#[test]
fn readme_pictures_are_what_the_command_makes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = scratch("docs");
    let out = bin()
        .arg("draw")
        .arg(root.join("docs/examples.jsonl"))
        .arg("-o")
        .arg(&dir)
        .args(["--backend", "cpu"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["s1.svg", "e1.svg"] {
        assert!(
            std::fs::read(dir.join(name)).unwrap()
                == std::fs::read(root.join("docs/pictures").join(name)).unwrap(),
            "docs/pictures/{name} is stale: planar-hold draw docs/examples.jsonl -o docs/pictures --backend cpu"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether two world points are within 0.01 half-sizes (pixels at any scale).
fn near(a: [f64; 2], b: [f64; 2], ell: f64) -> bool {
    (a[0] - b[0]).hypot(a[1] - b[1]) <= 0.01 * ell
}

/// Whether the world segment `a → b` points along `d` (unit), within the drawing's rounding
/// (0.02 of its length, which must be at least 0.1 half-sizes `ell`).
fn along(a: [f64; 2], b: [f64; 2], d: [f64; 2], ell: f64) -> bool {
    let v = [b[0] - a[0], b[1] - a[1]];
    let len = v[0].hypot(v[1]);
    len > 0.1 * ell
        && (v[0] * d[1] - v[1] * d[0]).abs() <= 0.02 * len
        && v[0] * d[0] + v[1] * d[1] > 0.0
}

/// Every planar line of the public sliding set: each sliding contact drawn with its one
/// friction ray at each end (solid, along n − μ·sign(v·t)·t, computed here from the line) and
/// its slip arrow (along ±t, the slip's sign), no cone edges; the contacts that stick keep
/// their two dashed edges an end; a held scene's witness forces carry the weight.
#[test]
fn sliding_contacts_are_drawn_with_their_slip_and_one_friction_ray() {
    let text = std::fs::read_to_string(cases().join("sliding_public.jsonl")).unwrap();
    let mut drawn = 0;
    for line in text.lines().filter(|l| !l.contains("\"dim\"")) {
        let value: Value = serde_json::from_str(line).unwrap();
        let (scene, report) = scene_and_report(&value);
        let id = value["id"].to_string();
        let ell = scene.body.half_size;
        let svg = draw::svg_text(&scene, &report);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let panel = Panel::of(&doc, "scene-panel");
        let rays: Vec<_> = all_with(&doc, "friction-ray")
            .iter()
            .map(|l| panel.ends(l))
            .collect();
        let slips: Vec<_> = all_with(&doc, "slip")
            .iter()
            .map(|l| panel.ends(l))
            .collect();
        let (mut want_rays, mut want_edges, mut want_slips) = (0, 0, 0);
        for c in &value["contacts"].as_array().unwrap()[..] {
            let v = |k: &str| -> [f64; 2] {
                let a = c[k].as_array().unwrap();
                [a[0].as_f64().unwrap(), a[1].as_f64().unwrap()]
            };
            let (p0, p1, n) = (v("p0"), v("p1"), v("normal"));
            let l = n[0].hypot(n[1]);
            let n = [n[0] / l, n[1] / l];
            let point = (p0[0] - p1[0]).hypot(p0[1] - p1[1]) <= 1e-6 * ell;
            let ends = if point { vec![p0] } else { vec![p0, p1] };
            if c["slip"].is_null() {
                want_edges += 2 * ends.len();
                continue;
            }
            let (mu, s) = (c["mu"].as_f64().unwrap(), v("slip"));
            let t = [n[1], -n[0]];
            let sign = (s[0] * t[0] + s[1] * t[1]).signum();
            let ray = [n[0] - mu * sign * t[0], n[1] - mu * sign * t[1]];
            let lr = ray[0].hypot(ray[1]);
            for p in &ends {
                assert!(
                    rays.iter()
                        .any(|&(a, b)| near(a, *p, ell)
                            && along(a, b, [ray[0] / lr, ray[1] / lr], ell)),
                    "{id}: no friction ray {ray:?} from {p:?}: {rays:?}"
                );
            }
            assert!(
                slips
                    .iter()
                    .any(|&(a, b)| along(a, b, [sign * t[0], sign * t[1]], ell)),
                "{id}: no slip arrow along {:?}",
                [sign * t[0], sign * t[1]]
            );
            want_rays += ends.len();
            want_slips += 1;
        }
        assert_eq!(
            rays.len(),
            want_rays,
            "{id}: one friction ray an end of a sliding contact"
        );
        assert_eq!(
            slips.len(),
            want_slips,
            "{id}: one slip arrow a sliding contact"
        );
        assert_eq!(all_with(&doc, "friction-edge").len(), want_edges, "{id}");
        if report.held {
            let (top, bottom) = panel.ends(&all_with(&doc, "gravity")[0]);
            let weight = top[1] - bottom[1];
            let sum = all_with(&doc, "force").iter().fold([0.0, 0.0], |s, f| {
                let (a, b) = panel.ends(f);
                [s[0] + b[0] - a[0], s[1] + b[1] - a[1]]
            });
            assert!(
                sum[0].abs() <= 0.03 * ell && (sum[1] - weight).abs() <= 1e-3 * weight + 0.03 * ell,
                "{id}: forces {sum:?} against the weight {weight}"
            );
        }
        rasterise(&svg, &id);
        drawn += 1;
    }
    assert_eq!(drawn, 67);
}

/// The pushed box of docs/contract-scenes.md tips when pushed above h = 17/6: the picture
/// turns it about the point where the binding forces' lines meet (the sliding floor's ray at
/// its right corner B and the finger's lower ray), both drawn dashed to that pivot.
#[test]
fn a_pushed_box_pushed_too_high_turns_about_where_the_binding_rays_meet() {
    let h = 3.0;
    let line = json!({"id": "push", "half_size": 1.0, "contacts": [
        {"pair": 0, "p0": [-1.0, -1.0], "p1": [1.0, -1.0], "normal": [0.0, 1.0], "mu": 0.3,
         "slip": [1.0, 0.0]},
        {"pair": 1, "p0": [-1.0, h], "p1": [-1.0, h], "normal": [1.0, 0.0], "mu": 0.5}]});
    let (scene, report) = scene_and_report(&line);
    assert!(!report.held);
    let svg = draw::svg_text(&scene, &report);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let panel = Panel::of(&doc, "scene-panel");
    // B + s(−0.3, 1) = F + u(1, −0.5), F = (−1, h).
    let s = (h + 1.0 - 1.0) / 0.85;
    let meet = [1.0 - 0.3 * s, -1.0 + s];
    let pivot = all_with(&doc, "pivot");
    assert_eq!(pivot.len(), 1, "{svg}");
    let at = panel.world([num(&pivot[0], "cx"), num(&pivot[0], "cy")]);
    assert!(close(at, meet), "pivot {at:?}, the rays meet at {meet:?}");
    let lines: Vec<_> = all_with(&doc, "line-of-action")
        .iter()
        .map(|l| panel.ends(l))
        .collect();
    assert_eq!(lines.len(), 2);
    let r = 1.09f64.sqrt();
    assert!(lines
        .iter()
        .any(|&(a, b)| close(a, [1.0, -1.0]) && along(a, b, [-0.3 / r, 1.0 / r], 1.0)));
    let f = 1.25f64.sqrt();
    assert!(lines
        .iter()
        .any(|&(a, b)| close(a, [-1.0, h]) && along(a, b, [1.0 / f, -0.5 / f], 1.0)));
    assert!(all_with(&doc, "turn").len() == 1);
    rasterise(&svg, "pushed too high");
}
