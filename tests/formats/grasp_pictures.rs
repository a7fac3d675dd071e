//! `planar-hold draw` on grasp lines (`planar_hold::details::draw::grasp`): the picture carries the
//! q1 `gate` reports, one pyramid per contact, the binding facet's contacts, and the weakest
//! wrench as the screw its numbers make; spatial scenes drawn beside grasps draw as before;
//! the grasp pictures in docs/pictures are what the command makes; `draw --answers` pictures
//! a data set from gate's answers in either format.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "planar-hold-grasp-pictures-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `planar-hold ARGS… --backend cpu`, which must succeed; its standard output.
fn run(args: &[&std::ffi::OsStr]) -> String {
    crate::common::cli_ok(
        args.iter()
            .copied()
            .chain(["--backend".as_ref(), "cpu".as_ref()]),
    )
}

fn draw(input: &Path, dir: &Path) {
    run(&[
        "draw".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        dir.as_os_str(),
    ]);
}

fn has_class(n: &roxmltree::Node, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|w| w == class))
}

fn all_with<'a>(doc: &'a roxmltree::Document, class: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants().filter(|n| has_class(n, class)).collect()
}

fn nums(n: &roxmltree::Node, attr: &str) -> Vec<f64> {
    n.attribute(attr)
        .unwrap_or_else(|| panic!("{attr} missing on <{}>", n.tag_name().name()))
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

fn num(n: &roxmltree::Node, attr: &str) -> f64 {
    nums(n, attr)[0]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// The pixel of scene point `p` in the axonometric panel (`pixel = origin + M·p`).
fn project(doc: &roxmltree::Document, p: [f64; 3]) -> [f64; 2] {
    let g = all_with(doc, "axo-panel").into_iter().next().unwrap();
    let (m, o) = (nums(&g, "data-projection"), nums(&g, "data-origin"));
    [
        o[0] + m[0] * p[0] + m[1] * p[1] + m[2] * p[2],
        o[1] + m[3] * p[0] + m[4] * p[1] + m[5] * p[2],
    ]
}

/// Pixel distance from `p` to the line through the `<line>` element `l`.
fn off_line(p: [f64; 2], l: &roxmltree::Node) -> f64 {
    let (a, b) = ([num(l, "x1"), num(l, "y1")], [num(l, "x2"), num(l, "y2")]);
    let d = [b[0] - a[0], b[1] - a[1]];
    ((p[0] - a[0]) * d[1] - (p[1] - a[1]) * d[0]).abs() / d[0].hypot(d[1])
}

/// docs/pictures/grasps.jsonl: four fingertips in force closure (a screw), two opposite
/// ones on the boundary (a pure moment about the line through them), three that leave the
/// object free (not in force closure).
fn grasps() -> PathBuf {
    root().join("docs/pictures/grasps.jsonl")
}

#[test]
fn draw_pictures_a_grasp_with_the_gates_q1_a_pyramid_per_contact_and_the_weakest_screw() {
    let dir = scratch("draw");
    let reports: Vec<Value> = run(&["gate".as_ref(), grasps().as_os_str()])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: Vec<Value> = std::fs::read_to_string(grasps())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    draw(&grasps(), &dir);
    let kinds = ["screw", "moment", "screw"];
    let verdicts = [
        "in force closure",
        "force closure uncertain",
        "not in force closure",
    ];
    assert_eq!(reports.len(), 3);
    for (i, (line, report)) in lines.iter().zip(&reports).enumerate() {
        let id = report["id"].as_str().unwrap();
        let svg = std::fs::read_to_string(dir.join(format!("{id}.svg"))).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();

        // The q1 gate reports, to the last digit and in the title.
        let q1 = report["q1"].as_f64().unwrap();
        assert_eq!(
            doc.root_element()
                .attribute("data-q1")
                .unwrap()
                .parse::<f64>()
                .unwrap(),
            q1,
            "{id}"
        );
        let title = all_with(&doc, "title")[0].text().unwrap().trim();
        assert_eq!(title, format!("{id}: {}, q1 {q1:.4}", verdicts[i]));

        // A group per contact, one pyramid each (point contacts) of k edges.
        let n = line["contacts"].as_array().unwrap().len();
        let k = line["pyramid"].as_u64().unwrap() as usize;
        let groups: Vec<_> = all_with(&doc, "contact")
            .into_iter()
            .filter(|g| g.tag_name().name() == "g")
            .collect();
        assert_eq!(groups.len(), n, "{id}: contact groups");
        for g in &groups {
            let pyramids = g.descendants().filter(|e| has_class(e, "pyramid")).count();
            let edges = g
                .descendants()
                .filter(|e| has_class(e, "pyramid-edge"))
                .count();
            assert_eq!((pyramids, edges), (1, k), "{id}: a point contact's pyramid");
        }
        // The binding facet's contacts, and only they, have a halo.
        let mut halos: Vec<u64> = all_with(&doc, "binding")
            .iter()
            .map(|h| {
                h.parent()
                    .unwrap()
                    .attribute("data-contact")
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .collect();
        halos.sort();
        let facet: Vec<u64> = report["facet"]["contacts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        assert_eq!(halos, facet, "{id}: binding contacts");

        // The weakest wrench: its screw, rebuilt from gate's `weakest`.
        let u: Vec<f64> = report["weakest"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let ell = line["half_size"].as_f64().unwrap();
        let f = [u[0], u[1], u[2]];
        let m = [ell * u[3], ell * u[4], ell * u[5]];
        let w = all_with(&doc, "weakest")
            .into_iter()
            .next()
            .expect("weakest");
        assert_eq!(w.attribute("data-kind"), Some(kinds[i]), "{id}");
        let axis_line = all_with(&doc, "screw-axis")
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{id}: no screw axis"));
        let axis = nums(&w, "data-axis");
        let axis = [axis[0], axis[1], axis[2]];
        if kinds[i] == "moment" {
            // Along the moment, through c; no force to draw.
            assert!(norm(f) < 1e-9, "{id}");
            for j in 0..3 {
                assert!((axis[j] - m[j] / norm(m)).abs() < 1e-6, "{id}: {axis:?}");
            }
            assert!(off_line(project(&doc, [0.0; 3]), &axis_line) < 1.0);
            assert!(all_with(&doc, "wrench-force").is_empty());
            assert_eq!(all_with(&doc, "wrench-moment").len(), 1);
            continue;
        }
        let point = nums(&w, "data-point");
        let point = [point[0], point[1], point[2]];
        let pitch = num(&w, "data-pitch");
        // Along the force; the moment about c is the point's moment of f plus pitch·f.
        let r = cross(point, f);
        for j in 0..3 {
            assert!((axis[j] - f[j] / norm(f)).abs() < 1e-6, "{id}: {axis:?}");
            assert!(
                (r[j] + pitch * f[j] - m[j]).abs() < 1e-5 * ell,
                "{id}: {point:?}, pitch {pitch}: moment {m:?}"
            );
        }
        assert!(pitch != 0.0, "{id}: a screw has a pitch");
        assert!(all_with(&doc, "wrench-label")[0]
            .text()
            .unwrap()
            .contains("pitch h = "));
        // The axis drawn passes through that point; the force starts on it.
        assert!(
            off_line(project(&doc, point), &axis_line) < 1.0,
            "{id}: the axis misses its point"
        );
        let force = all_with(&doc, "wrench-force")[0];
        let from = nums(&force, "data-from");
        assert!(norm([from[0] - point[0], from[1] - point[1], from[2] - point[2]]) < 1e-6);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether two SVGs are the same picture: the same text between their numbers, and numbers
/// that agree to a hundredth of a pixel or 1e-9 relative (the last digits of a float64 may
/// differ between machines and instruction sets; a stale picture differs by more).
fn same_picture(a: &str, b: &str) -> Result<(), String> {
    fn tokens(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let (bytes, mut i) = (s.as_bytes(), 0);
        while i < bytes.len() {
            let number = |c: u8| c.is_ascii_digit() || c == b'.' || c == b'-' || c == b'e';
            let start = i;
            let is_number = bytes[i].is_ascii_digit()
                || (bytes[i] == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
            if is_number {
                i += 1;
                while i < bytes.len() && number(bytes[i]) {
                    i += 1;
                }
            } else {
                while i < bytes.len()
                    && !(bytes[i].is_ascii_digit()
                        || (bytes[i] == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
                {
                    i += 1;
                }
            }
            out.push((is_number, &s[start..i]));
        }
        out
    }
    let (ta, tb) = (tokens(a), tokens(b));
    if ta.len() != tb.len() {
        return Err(format!("{} tokens against {}", ta.len(), tb.len()));
    }
    for ((na, x), (_, y)) in ta.iter().zip(&tb) {
        let close = match (na, x.parse::<f64>(), y.parse::<f64>()) {
            (true, Ok(p), Ok(q)) => (p - q).abs() <= 0.011f64.max(1e-9 * p.abs()),
            _ => x == y,
        };
        if !close {
            return Err(format!("{x:?} against {y:?}"));
        }
    }
    Ok(())
}

#[test]
fn the_pictures_in_docs_are_what_the_command_makes() {
    // Every SVG of docs/pictures, from the four files the docs say make them.
    let pictures = root().join("docs/pictures");
    let mut checked = 0;
    for (source, names) in [
        (
            grasps(),
            &["four-fingers", "two-fingers", "top-and-side"][..],
        ),
        // Not `feet`: its binding need is a tie between the two mirror-image centre-of-mass
        // corners (equal margins), which rounding breaks one way or the other.
        (
            root().join("docs/scenes3d.jsonl"),
            &["cube", "tips", "slides"][..],
        ),
        (root().join("docs/examples.jsonl"), &["s1", "e1"][..]),
        (
            root().join("docs/pictures/sliding.jsonl"),
            &["pushed-box", "pushed-too-high", "pushed-cube"][..],
        ),
    ] {
        let dir = scratch("docs");
        draw(&source, &dir);
        for name in names {
            let name = format!("{name}.svg");
            let made = std::fs::read_to_string(dir.join(&name)).unwrap();
            let kept = std::fs::read_to_string(pictures.join(&name)).unwrap();
            if let Err(why) = same_picture(&made, &kept) {
                panic!(
                    "docs/pictures/{name} is stale ({why}): planar-hold draw {} -o \
                     docs/pictures --backend cpu",
                    source.display()
                );
            }
            checked += 1;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let in_docs = std::fs::read_dir(&pictures)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "svg")
        })
        .count();
    assert_eq!(
        checked + 1,
        in_docs,
        "an SVG of docs/pictures that no command here makes (but feet)"
    );
}

#[test]
fn spatial_scenes_beside_grasps_draw_as_before() {
    // `slides` of docs/scenes3d.jsonl drawn in one run with the grasps is `slides` drawn
    // alone, byte for byte: drawing grasps changes nothing of a spatial picture.
    let dir = scratch("mixed");
    let scenes = std::fs::read_to_string(root().join("docs/scenes3d.jsonl")).unwrap();
    let slides = scenes
        .lines()
        .find(|l| l.contains("\"id\": \"slides\""))
        .unwrap();
    let mixed = format!("{}{slides}\n", std::fs::read_to_string(grasps()).unwrap());
    std::fs::create_dir_all(&dir).unwrap();
    let (input, alone) = (dir.join("mixed.jsonl"), dir.join("alone.jsonl"));
    std::fs::write(&input, mixed).unwrap();
    std::fs::write(&alone, format!("{slides}\n")).unwrap();
    let (out, out_alone) = (dir.join("out"), dir.join("out-alone"));
    draw(&input, &out);
    draw(&alone, &out_alone);
    assert!(
        std::fs::read(out.join("slides.svg")).unwrap()
            == std::fs::read(out_alone.join("slides.svg")).unwrap(),
        "the spatial picture of slides changed beside grasps"
    );
    assert!(out.join("four-fingers.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `planar-hold draw --answers FILES -o OUT`, which must succeed.
fn draw_answers(files: &[&Path], out: &Path) {
    let mut args: Vec<&std::ffi::OsStr> = vec!["draw".as_ref(), "--answers".as_ref()];
    args.extend(files.iter().map(|f| f.as_os_str()));
    args.extend(["-o".as_ref(), out.as_os_str()]);
    crate::common::cli_ok(args);
}

#[test]
fn draw_answers_pictures_a_data_set_from_gates_answers_in_either_format() {
    let dir = scratch("answers");
    std::fs::create_dir_all(&dir).unwrap();
    // Fingertip grasps, a refused one among them, as "inner" and as "coulomb" at k = 4.
    let mut grasps: Vec<Value> = crate::common::read_data("grasp_public.jsonl")
        .into_iter()
        .filter(|g| g["category"] == "fingertip" && g["contacts"].as_array().unwrap().len() <= 4)
        .take(16)
        .collect();
    for g in &mut grasps {
        g["pyramid"] = 4.into();
        g["friction"] = "inner".into();
    }
    let mut bad = grasps[0].clone();
    bad["half_size"] = (-1.0).into();
    grasps.insert(7, bad);
    let lines = |gs: &[Value]| gs.iter().map(|g| format!("{g}\n")).collect::<String>();
    let inner = dir.join("inner.jsonl");
    std::fs::write(&inner, lines(&grasps)).unwrap();
    let outer: Vec<Value> = grasps
        .iter()
        .map(|g| {
            let mut g = g.clone();
            g["friction"] = "outer".into();
            g
        })
        .collect();
    let outer_in = dir.join("outer.jsonl");
    std::fs::write(&outer_in, lines(&outer)).unwrap();
    let gate = |input: &Path, output: &Path| {
        let out = crate::common::cli()
            .args([
                "gate".as_ref(),
                input.as_os_str(),
                "--backend".as_ref(),
                "cpu".as_ref(),
            ])
            .args(["-o".as_ref(), output.as_os_str()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(5), "one row refused");
    };
    let (json, parquet) = (dir.join("answers.jsonl"), dir.join("answers.parquet"));
    gate(&inner, &json);
    gate(&inner, &parquet);
    let outer_out = dir.join("outer-answers.jsonl");
    gate(&outer_in, &outer_out);

    // The same picture from either format, but for the file named in the title.
    let (a, b) = (dir.join("a.svg"), dir.join("b.svg"));
    draw_answers(&[&json], &a);
    draw_answers(&[&parquet], &b);
    let a = std::fs::read_to_string(&a).unwrap();
    let b = std::fs::read_to_string(&b).unwrap();
    let name = |p: &Path| p.display().to_string();
    assert_eq!(
        a.replace(&name(&json), "F"),
        b.replace(&name(&parquet), "F")
    );
    let answers: Vec<Value> = std::fs::read_to_string(&json)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let held = answers
        .iter()
        .filter(|r| r["force_closure"] == Value::Bool(true))
        .count();
    let doc = roxmltree::Document::parse(&a).unwrap();
    let counted = |class: &str| -> usize {
        all_with(&doc, class)
            .iter()
            .filter(|n| has_class(n, "bin"))
            .map(|n| num(n, "data-count") as usize)
            .sum()
    };
    assert_eq!(counted("closure"), held);
    assert_eq!(
        counted("closure") + counted("uncertain") + counted("open"),
        answers.len() - 1,
        "every answered grasp in one bar"
    );
    assert!(a.contains("16 grasps answered, 1 rows refused"), "{a}");
    assert!(a.contains("inner, k = 4: 16 grasps"), "{a}");
    assert!(!a.contains("upper bound on"), "every q1 closed: {a}");
    // A threshold's answers (searches stopped once decided) are drawn at their q1, which is
    // then an upper bound: the series says on how many.
    let asked = dir.join("asked.jsonl");
    let out = crate::common::cli()
        .args([
            "gate".as_ref(),
            inner.as_os_str(),
            "--backend".as_ref(),
            "cpu".as_ref(),
        ])
        .args([
            "--q1-at-least".as_ref(),
            "0.05".as_ref(),
            "-o".as_ref(),
            asked.as_os_str(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5), "one row refused");
    let open = std::fs::read_to_string(&asked)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"margin_checked\":false"))
        .count();
    assert!(open > 0, "some threshold search stopped before q1 closed");
    let c = dir.join("c.svg");
    draw_answers(&[&asked], &c);
    let c = std::fs::read_to_string(&c).unwrap();
    assert!(
        c.contains(&format!("inner, k = 4 (q1 an upper bound on {open})")),
        "{c}"
    );
    assert!(
        all_with(&doc, "shift").is_empty(),
        "one series: nothing to compare"
    );

    // Two files of the same grasps: compared grasp by grasp. A "coulomb" file's answers
    // (here made of the two: the inner q1 and verdict, the outer q1 as q1_upper) are two
    // series of their own; with the "inner" file beside them, three.
    let read = |p: &Path| -> Vec<Value> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let coulomb: String = read(&json)
        .iter()
        .zip(read(&outer_out))
        .map(|(i, o)| {
            let mut c = i.clone();
            if c.get("error").is_none() {
                c["friction"] = "coulomb".into();
                c["q1_upper"] = o["q1"].clone();
            }
            format!("{c}\n")
        })
        .collect();
    let coulomb_out = dir.join("coulomb-answers.jsonl");
    std::fs::write(&coulomb_out, coulomb).unwrap();
    let c = dir.join("c.svg");
    draw_answers(&[&coulomb_out, &json], &c);
    let c = std::fs::read_to_string(&c).unwrap();
    let doc = roxmltree::Document::parse(&c).unwrap();
    assert!(c.contains("inner pyramids, k = 4") && c.contains("outer pyramids, k = 4"));
    let lines = all_with(&doc, "cdf")[0]
        .children()
        .filter(|n| n.tag_name().name() == "path")
        .count();
    assert_eq!(lines, 3);
    let pairs: usize = all_with(&doc, "shift")[0]
        .children()
        .filter(|n| has_class(n, "bin"))
        .map(|n| num(&n, "data-count") as usize)
        .sum();
    assert_eq!(pairs, 16);
    assert!(
        c.contains("lower on 0 (0.0 %)"),
        "the outer pyramids never lower q1: {c}"
    );
    let o = dir.join("o.svg");
    draw_answers(&[&json, &outer_out], &o);
    let o = std::fs::read_to_string(&o).unwrap();
    assert!(o.contains("outer, k = 4 against inner, k = 4, on the 16 grasps both answer"));
    // A file of fewer grasps beside it: each file's count in the title, the pairs its own.
    let some = dir.join("some-outer.jsonl");
    let first: Vec<String> = read(&outer_out)
        .into_iter()
        .filter(|r| r.get("error").is_none())
        .take(10)
        .map(|r| format!("{r}\n"))
        .collect();
    std::fs::write(&some, first.concat()).unwrap();
    let s = dir.join("s.svg");
    draw_answers(&[&json, &some], &s);
    let s = std::fs::read_to_string(&s).unwrap();
    assert!(s.contains("16 and 10 grasps answered"), "{s}");
    assert!(s.contains("on the 10 grasps both answer"), "{s}");

    // Answers that are not a grasp's: refused, nothing written.
    let cases = dir.join("cases.jsonl");
    std::fs::write(
        &cases,
        "{\"id\":1,\"verdict\":\"supported\",\"margin\":0.5}\n",
    )
    .unwrap();
    let out = crate::common::cli()
        .args([
            "draw".as_ref(),
            "--answers".as_ref(),
            cases.as_os_str(),
            "-o".as_ref(),
        ])
        .arg(dir.join("none.svg"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1: not a grasp answer"));
    assert!(!dir.join("none.svg").exists());
}
