//! The left panel: the scene to scale in the x–z plane, y up, with the forces or the failure.

use svg::node::element::{Circle, Group, Path, Rectangle};

use super::frame::{arrow, label, line, r, Frame};
use super::{style, Failure, Story};
use crate::scene::{Contact, Scene};

/// Length of the weight arrow, in half-sizes per nominal weight `m0·g`.
const FORCE_SCALE: f64 = 0.8;
/// The longest force arrow, in half-sizes: beyond it every force arrow and the weight shrink
/// together (one scale for all).
const LONGEST: f64 = 2.5;

/// A primitive in world coordinates, kept until the frame is known.
enum Shape {
    Segment {
        a: [f64; 2],
        b: [f64; 2],
        class: &'static str,
        colour: &'static str,
        width: f64,
        dash: Option<&'static str>,
    },
    Arrow {
        a: [f64; 2],
        b: [f64; 2],
        class: &'static str,
        colour: &'static str,
        width: f64,
    },
    Dot {
        at: [f64; 2],
        class: &'static str,
        colour: &'static str,
        radius: f64,
    },
}

fn add(p: [f64; 2], d: [f64; 2], s: f64) -> [f64; 2] {
    [p[0] + s * d[0], p[1] + s * d[1]]
}

/// The panel.
pub fn panel(px: [f64; 4], scene: &Scene, story: &Story) -> Group {
    let ell = scene.body.half_size;
    let tol = crate::scene::LINE_TOLERANCE * ell;
    let mut shapes: Vec<Shape> = Vec::new();
    let mut bounds = [-ell, ell, -ell, ell];

    // Ghosts of an edit: the contacts as given before (dashed) and after (dotted).
    for (list, dash, class, colour) in [
        (
            &scene.before,
            "5 4",
            "contact ghost before",
            style::GHOST_BEFORE,
        ),
        (
            &scene.after,
            "1 3",
            "contact ghost after",
            style::GHOST_AFTER,
        ),
    ] {
        for c in list.iter() {
            shapes.push(contact_shape(c, class, colour, 5.0, Some(dash), tol));
        }
    }
    let binding_contacts = &story.binding_contacts;
    for (k, c) in scene.contacts.iter().enumerate() {
        let class = if scene.edit.is_some() {
            "contact kept"
        } else {
            "contact"
        };
        shapes.push(contact_shape(c, class, style::CONTACT, 3.5, None, tol));
        if binding_contacts.contains(&k) {
            shapes.push(contact_shape(
                c,
                "contact binding",
                style::FAILURE,
                9.0,
                None,
                tol,
            ));
        }
        // Normal a third of the way along (off the middle, where a centred weight arrow
        // ends), friction edges (μ's lower end) at each endpoint.
        let mid = [
            c.p0[0] + (c.p1[0] - c.p0[0]) / 3.0,
            c.p0[1] + (c.p1[1] - c.p0[1]) / 3.0,
        ];
        shapes.push(Shape::Arrow {
            a: mid,
            b: add(mid, c.normal, 0.3 * ell),
            class: "normal",
            colour: style::CONTACT,
            width: 1.5,
        });
        let ends: &[[f64; 2]] = if c.is_point(tol) {
            &[c.p0]
        } else {
            &[c.p0, c.p1]
        };
        for &p in ends {
            for ray in c.edge_directions() {
                let len = ray[0].hypot(ray[1]);
                shapes.push(Shape::Segment {
                    a: p,
                    b: add(p, ray, 0.5 * ell / len),
                    class: "friction-edge",
                    colour: style::FRICTION,
                    width: 1.2,
                    dash: Some("4 2"),
                });
            }
        }
    }
    for c in scene
        .contacts
        .iter()
        .chain(&scene.before)
        .chain(&scene.after)
    {
        for p in [c.p0, c.p1] {
            bounds = grow(bounds, p);
        }
    }

    // One scale for the weight and the contact forces.
    let weight = story.mass / scene.body.mass_nominal;
    let longest = story
        .forces
        .iter()
        .map(|f| f.1[0].hypot(f.1[1]))
        .fold(weight, f64::max);
    let scale = (FORCE_SCALE * ell).min(LONGEST * ell / longest.max(1e-12));
    let com = [story.com_offset_x, 0.0];
    shapes.push(Shape::Arrow {
        a: com,
        b: [com[0], -scale * weight],
        class: "gravity",
        colour: style::GRAVITY,
        width: 2.5,
    });
    for &(at, f) in &story.forces {
        shapes.push(Shape::Arrow {
            a: at,
            b: add(at, f, scale),
            class: "force",
            colour: style::FORCE,
            width: 2.5,
        });
    }
    match story.failure {
        // The turning arc is drawn in pixels below, once the frame is known.
        Some(Failure::Tip { pivot, .. }) => {
            shapes.push(Shape::Dot {
                at: pivot,
                class: "certificate pivot",
                colour: style::FAILURE,
                radius: 6.0,
            });
        }
        Some(Failure::Slide { direction }) => {
            // Beside the weight arrow, from the centre of mass's height.
            let start = [com[0] + 0.3 * ell, 0.0];
            shapes.push(Shape::Arrow {
                a: start,
                b: add(start, direction, 0.7 * ell),
                class: "certificate slide",
                colour: style::FAILURE,
                width: 3.0,
            });
        }
        None => {}
    }
    for s in &shapes {
        match *s {
            Shape::Segment { a, b, .. } | Shape::Arrow { a, b, .. } => {
                bounds = grow(grow(bounds, a), b);
            }
            Shape::Dot { at, .. } => bounds = grow(bounds, at),
        }
    }
    let pad = 0.12 * (bounds[1] - bounds[0]).max(bounds[3] - bounds[2]);
    let frame = Frame::fit(
        px,
        [
            bounds[0] - pad,
            bounds[1] + pad,
            bounds[2] - pad,
            bounds[3] + pad,
        ],
    );

    let mut g = frame.tag(Group::new().set("class", "scene-panel"));
    g = g.add(frame.axes("x", "z"));
    // The box, its reference point and the interval of centres of mass.
    let (tl, br) = (frame.at([-ell, ell]), frame.at([ell, -ell]));
    g = g.add(
        Rectangle::new()
            .set("class", "box")
            .set("x", r(tl[0]))
            .set("y", r(tl[1]))
            .set("width", r(br[0] - tl[0]))
            .set("height", r(br[1] - tl[1]))
            .set("fill", "#f4f4f4")
            .set("stroke", style::BOX)
            .set("stroke-width", 2),
    );
    let [lo, hi] = scene.body.com_offset_x;
    let (a, b) = (frame.at([lo, 0.0]), frame.at([hi, 0.0]));
    g = g.add(
        line([a[0] - 1.0, a[1]], [b[0] + 1.0, b[1]], style::BOX, 5.0)
            .set("class", "box com-interval")
            .set("stroke-opacity", 0.45),
    );
    let c = frame.at([0.0, 0.0]);
    g = g.add(
        Group::new()
            .set("class", "box reference")
            .add(
                Circle::new()
                    .set("cx", r(c[0]))
                    .set("cy", r(c[1]))
                    .set("r", 5)
                    .set("fill", "none")
                    .set("stroke", style::BOX)
                    .set("stroke-width", 1.5),
            )
            .add(line(
                [c[0] - 7.0, c[1]],
                [c[0] + 7.0, c[1]],
                style::BOX,
                1.0,
            ))
            .add(line(
                [c[0], c[1] - 7.0],
                [c[0], c[1] + 7.0],
                style::BOX,
                1.0,
            )),
    );

    for s in &shapes {
        g = match *s {
            Shape::Segment {
                a,
                b,
                class,
                colour,
                width,
                dash,
            } => {
                let (mut a, mut b) = (frame.at(a), frame.at(b));
                // An edit's ghosts sit a few pixels behind the line they share with the kept
                // contact (before nearer than after), so the three read apart.
                let behind = match class {
                    "contact ghost before" => 6.0,
                    "contact ghost after" => 12.0,
                    _ => 0.0,
                };
                if behind > 0.0 {
                    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                    let len = dx.hypot(dy).max(1e-9);
                    // Pixel normal of the segment, turned to point away from the box centre.
                    let mut n = [-dy / len, dx / len];
                    let c = frame.at([0.0, 0.0]);
                    if (a[0] - c[0]) * n[0] + (a[1] - c[1]) * n[1] < 0.0 {
                        n = [-n[0], -n[1]];
                    }
                    a = [a[0] + behind * n[0], a[1] + behind * n[1]];
                    b = [b[0] + behind * n[0], b[1] + behind * n[1]];
                }
                let mut l = line(a, b, colour, width)
                    .set("class", class)
                    .set("stroke-linecap", "round");
                if let Some(d) = dash {
                    l = l.set("stroke-dasharray", d);
                }
                if class == "contact binding" {
                    l = l.set("stroke-opacity", 0.35);
                }
                g.add(l)
            }
            Shape::Arrow {
                a,
                b,
                class,
                colour,
                width,
            } => g.add(arrow(frame.at(a), frame.at(b), colour, width).set("class", class)),
            Shape::Dot {
                at,
                class,
                colour,
                radius,
            } => {
                let q = frame.at(at);
                // A contact point is a filled dot (a translucent halo when it binds); a ghost
                // or the pivot a ring.
                let filled = class.starts_with("contact") && !class.contains("ghost");
                let mut dot = Circle::new()
                    .set("class", class)
                    .set("cx", r(q[0]))
                    .set("cy", r(q[1]))
                    .set("r", radius)
                    .set("fill", if filled { colour } else { "none" })
                    .set("stroke", colour)
                    .set("stroke-width", 2.5);
                if class == "contact binding" {
                    dot = dot.set("fill-opacity", 0.35).set("stroke-opacity", 0.35);
                }
                g.add(dot)
            }
        };
    }

    // The turning arrow around the pivot.
    if let Some(Failure::Tip {
        pivot, clockwise, ..
    }) = story.failure
    {
        let q = frame.at(pivot);
        let rad = 0.45 * ell * frame.scale;
        // Start straight up from the pivot, sweep 70° the way the box turns.
        let sweep = 70f64.to_radians();
        let (a0, a1) = if clockwise {
            (90f64.to_radians(), 90f64.to_radians() - sweep)
        } else {
            (90f64.to_radians(), 90f64.to_radians() + sweep)
        };
        let p = |a: f64| [q[0] + rad * a.cos(), q[1] - rad * a.sin()];
        let (s, e) = (p(a0), p(a1));
        let sweep_flag = if clockwise { 1 } else { 0 };
        g = g.add(
            Path::new()
                .set("class", "certificate turn")
                .set(
                    "d",
                    format!(
                        "M {} {} A {} {} 0 0 {} {} {}",
                        r(s[0]),
                        r(s[1]),
                        r(rad),
                        r(rad),
                        sweep_flag,
                        r(e[0]),
                        r(e[1])
                    ),
                )
                .set("fill", "none")
                .set("stroke", style::FAILURE)
                .set("stroke-width", 2.5)
                .set(
                    "marker-end",
                    format!("url(#{})", style::marker_id(style::FAILURE)),
                ),
        );
    }

    // Labels beside the things they name, outside the box where there is room.
    let w = frame.at(com);
    let tip = frame.at([com[0], -scale * weight]);
    // Left of the weight arrow when a sliding arrow takes its right.
    let (dx, anchor) = match story.failure {
        Some(Failure::Slide { .. }) => (-6.0, "end"),
        _ => (6.0, "start"),
    };
    g = g.add(
        label(
            &format!("m = {}", short(story.mass)),
            [w[0] + dx, 0.5 * (w[1] + tip[1])],
            anchor,
            style::GRAVITY,
        )
        .set("class", "gravity-label"),
    );
    for c in &scene.contacts {
        let mid = frame.at([0.5 * (c.p0[0] + c.p1[0]), 0.5 * (c.p0[1] + c.p1[1])]);
        // Behind the contact, away from the box: against the inward normal (pixels: y down).
        let off = [-c.normal[0], c.normal[1]];
        let anchor = match off[0] {
            x if x > 0.5 => "start",
            x if x < -0.5 => "end",
            _ => "middle",
        };
        g = g.add(
            label(
                &format!("c{}", c.source),
                [mid[0] + 16.0 * off[0], mid[1] + 16.0 * off[1] + 4.0],
                anchor,
                style::CONTACT,
            )
            .set("class", "contact-label"),
        );
    }
    if let Some(Failure::Tip { pivot, .. }) = story.failure {
        let q = frame.at(pivot);
        g = g.add(
            label("pivot", [q[0] - 8.0, q[1] + 20.0], "end", style::FAILURE)
                .set("class", "certificate-label"),
        );
    }
    g
}

fn grow(b: [f64; 4], p: [f64; 2]) -> [f64; 4] {
    [
        b[0].min(p[0]),
        b[1].max(p[0]),
        b[2].min(p[1]),
        b[3].max(p[1]),
    ]
}

fn contact_shape(
    c: &Contact,
    class: &'static str,
    colour: &'static str,
    width: f64,
    dash: Option<&'static str>,
    tol: f64,
) -> Shape {
    if c.is_point(tol) {
        Shape::Dot {
            at: c.p0,
            class,
            colour,
            radius: 0.6 * width + 1.5,
        }
    } else {
        Shape::Segment {
            a: c.p0,
            b: c.p1,
            class,
            colour,
            width,
            dash,
        }
    }
}

/// A number to at most four decimals, no trailing zeros.
pub fn short(v: f64) -> String {
    let s = format!("{:.4}", v + 0.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".to_string()
    } else {
        s.to_string()
    }
}
