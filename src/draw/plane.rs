//! The left panel: the scene to scale in the x–z plane, y up, with the forces or the failure.
//!
//! Drawn in two passes: the shapes in world coordinates first (an edit's ghosts, the contacts,
//! the weight and the forces, the failure's marks), whose extent fits the frame; then, in
//! pixels, the box, the shapes, the turning arc and the labels, in that order (later on top).

use svg::node::element::{Circle, Group, Line, Path, Rectangle};
use svg::node::Node;

use super::frame::{arrow, label, line, r, short, Frame};
use super::story::{Failure, Story};
use super::style;
use crate::scene::{Contact, Scene, LINE_TOLERANCE};

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
pub(super) fn panel(px: [f64; 4], scene: &Scene, story: &Story) -> Group {
    let ell = scene.body.half_size;
    let tol = LINE_TOLERANCE * ell;
    let weight = Weight::of(scene, story);
    let mut shapes = ghosts(scene, tol);
    shapes.extend(contacts(scene, &story.binding_contacts, tol));
    shapes.extend(loads(story, &weight));
    shapes.extend(failure_marks(story.failure, weight.com, ell));
    shapes.extend(story.lines_of_action.iter().map(|&[a, b]| Shape::Segment {
        a,
        b,
        class: "certificate line-of-action",
        colour: style::FAILURE,
        width: 1.2,
        dash: Some("6 4"),
    }));
    let frame = fit(px, scene, &shapes);

    let mut g = frame.tag(Group::new().set("class", "scene-panel"));
    g = g.add(frame.axes("x", "z"));
    g = the_box(g, &frame, scene);
    for s in &shapes {
        g = g.add(s.draw(&frame));
    }
    if let Some(Failure::Tip {
        pivot, clockwise, ..
    }) = story.failure
    {
        g = g.add(turn(&frame, pivot, clockwise, ell));
    }
    labels(g, &frame, scene, story, &weight)
}

/// The weight arrow, down from the centre of mass, and the scale it shares with the forces.
struct Weight {
    /// The centre of mass `(x, 0)`: the arrow's start.
    com: [f64; 2],
    /// The arrow's end.
    tip: [f64; 2],
    /// Half-sizes per nominal weight `m0·g`, for the weight and every contact force.
    scale: f64,
}

impl Weight {
    /// One scale for the weight and the contact forces: [`FORCE_SCALE`], less when the
    /// longest arrow would pass [`LONGEST`].
    fn of(scene: &Scene, story: &Story) -> Weight {
        let ell = scene.body.half_size;
        let weight = story.mass / scene.body.mass_nominal;
        let longest = story
            .forces
            .iter()
            .map(|f| f.1[0].hypot(f.1[1]))
            .fold(weight, f64::max);
        let scale = (FORCE_SCALE * ell).min(LONGEST * ell / longest.max(1e-12));
        let com = [story.com_offset_x, 0.0];
        Weight {
            com,
            tip: [com[0], -scale * weight],
            scale,
        }
    }
}

/// Ghosts of an edit: the contacts as given before (dashed) and after (dotted).
fn ghosts(scene: &Scene, tol: f64) -> Vec<Shape> {
    let mut shapes = Vec::new();
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
    shapes
}

/// Each contact (a halo over it when it binds), its normal and its friction edges.
fn contacts(scene: &Scene, binding_contacts: &[usize], tol: f64) -> Vec<Shape> {
    let ell = scene.body.half_size;
    let mut shapes = Vec::new();
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
        // A sliding contact: its one friction ray, solid, in place of the cone's edges.
        let sliding = c.slip.is_some();
        for &p in ends {
            for ray in c.rays() {
                let len = ray[0].hypot(ray[1]);
                shapes.push(Shape::Segment {
                    a: p,
                    b: add(p, ray, if sliding { 0.6 } else { 0.5 } * ell / len),
                    class: if sliding {
                        "friction-ray sliding"
                    } else {
                        "friction-edge"
                    },
                    colour: style::FRICTION,
                    width: if sliding { 2.0 } else { 1.2 },
                    dash: (!sliding).then_some("4 2"),
                });
            }
        }
        // Its slip: which way the body moves over it, from the middle, just inside the box.
        if let Some(u) = c.slip_direction() {
            let mid = [0.5 * (c.p0[0] + c.p1[0]), 0.5 * (c.p0[1] + c.p1[1])];
            let start = add(mid, c.normal, 0.12 * ell);
            shapes.push(Shape::Arrow {
                a: add(start, u, -0.3 * ell),
                b: add(start, u, 0.3 * ell),
                class: "slip",
                colour: style::SLIP,
                width: 3.0,
            });
        }
    }
    shapes
}

/// The weight and the witness's contact forces, to one scale.
fn loads(story: &Story, weight: &Weight) -> Vec<Shape> {
    let mut shapes = vec![Shape::Arrow {
        a: weight.com,
        b: weight.tip,
        class: "gravity",
        colour: style::GRAVITY,
        width: 2.5,
    }];
    for &(at, f) in &story.forces {
        shapes.push(Shape::Arrow {
            a: at,
            b: add(at, f, weight.scale),
            class: "force",
            colour: style::FORCE,
            width: 2.5,
        });
    }
    shapes
}

/// What fails, in world coordinates: the pivot (its turning arc is drawn in pixels, once the
/// frame is known), or the sliding arrow beside the weight.
fn failure_marks(failure: Option<Failure>, com: [f64; 2], ell: f64) -> Option<Shape> {
    match failure {
        Some(Failure::Tip { pivot, .. }) => Some(Shape::Dot {
            at: pivot,
            class: "certificate pivot",
            colour: style::FAILURE,
            radius: 6.0,
        }),
        Some(Failure::Slide { direction }) => {
            // Beside the weight arrow, from the centre of mass's height.
            let start = [com[0] + 0.3 * ell, 0.0];
            Some(Shape::Arrow {
                a: start,
                b: add(start, direction, 0.7 * ell),
                class: "certificate slide",
                colour: style::FAILURE,
                width: 3.0,
            })
        }
        None => None,
    }
}

/// The frame that shows the box, every contact (ghosts too) and every shape, with a margin.
fn fit(px: [f64; 4], scene: &Scene, shapes: &[Shape]) -> Frame {
    let ell = scene.body.half_size;
    let mut bounds = [-ell, ell, -ell, ell];
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
    for s in shapes {
        match *s {
            Shape::Segment { a, b, .. } | Shape::Arrow { a, b, .. } => {
                bounds = grow(grow(bounds, a), b);
            }
            Shape::Dot { at, .. } => bounds = grow(bounds, at),
        }
    }
    let pad = 0.12 * (bounds[1] - bounds[0]).max(bounds[3] - bounds[2]);
    Frame::fit(
        px,
        [
            bounds[0] - pad,
            bounds[1] + pad,
            bounds[2] - pad,
            bounds[3] + pad,
        ],
    )
}

/// The box, its reference point and the interval of centres of mass.
fn the_box(g: Group, frame: &Frame, scene: &Scene) -> Group {
    let ell = scene.body.half_size;
    let (tl, br) = (frame.at([-ell, ell]), frame.at([ell, -ell]));
    let outline = Rectangle::new()
        .set("class", "box")
        .set("x", r(tl[0]))
        .set("y", r(tl[1]))
        .set("width", r(br[0] - tl[0]))
        .set("height", r(br[1] - tl[1]))
        .set("fill", "#f4f4f4")
        .set("stroke", style::BOX)
        .set("stroke-width", 2);
    let [lo, hi] = scene.body.com_offset_x;
    let (a, b) = (frame.at([lo, 0.0]), frame.at([hi, 0.0]));
    let com_interval = line([a[0] - 1.0, a[1]], [b[0] + 1.0, b[1]], style::BOX, 5.0)
        .set("class", "box com-interval")
        .set("stroke-opacity", 0.45);
    let c = frame.at([0.0, 0.0]);
    let reference = Group::new()
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
        ));
    g.add(outline).add(com_interval).add(reference)
}

impl Shape {
    /// The shape in pixels.
    fn draw(&self, frame: &Frame) -> Box<dyn Node> {
        match *self {
            Shape::Segment {
                a,
                b,
                class,
                colour,
                width,
                dash,
            } => Box::new(segment(frame, a, b, class, colour, width, dash)),
            Shape::Arrow {
                a,
                b,
                class,
                colour,
                width,
            } => Box::new(arrow(frame.at(a), frame.at(b), colour, width).set("class", class)),
            Shape::Dot {
                at,
                class,
                colour,
                radius,
            } => Box::new(dot(frame, at, class, colour, radius)),
        }
    }
}

/// A segment in pixels; an edit's ghosts sit a few pixels behind the line they share with
/// the kept contact (before nearer than after), so the three read apart.
fn segment(
    frame: &Frame,
    a: [f64; 2],
    b: [f64; 2],
    class: &str,
    colour: &str,
    width: f64,
    dash: Option<&str>,
) -> Line {
    let (mut a, mut b) = (frame.at(a), frame.at(b));
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
    l
}

/// A point in pixels: a contact point a filled dot (a translucent halo when it binds), a
/// ghost or the pivot a ring.
fn dot(frame: &Frame, at: [f64; 2], class: &str, colour: &str, radius: f64) -> Circle {
    let q = frame.at(at);
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
    dot
}

/// The turning arrow around the pivot: from straight up, 70° the way the box turns.
fn turn(frame: &Frame, pivot: [f64; 2], clockwise: bool, ell: f64) -> Path {
    let q = frame.at(pivot);
    let rad = 0.45 * ell * frame.scale;
    let sweep = 70f64.to_radians();
    let (a0, a1) = if clockwise {
        (90f64.to_radians(), 90f64.to_radians() - sweep)
    } else {
        (90f64.to_radians(), 90f64.to_radians() + sweep)
    };
    let p = |a: f64| [q[0] + rad * a.cos(), q[1] - rad * a.sin()];
    let (s, e) = (p(a0), p(a1));
    let sweep_flag = if clockwise { 1 } else { 0 };
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
        )
}

/// Labels beside the things they name, outside the box where there is room: the mass by
/// the weight arrow, each contact's name behind it, the pivot.
fn labels(mut g: Group, frame: &Frame, scene: &Scene, story: &Story, weight: &Weight) -> Group {
    let w = frame.at(weight.com);
    let tip = frame.at(weight.tip);
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
    for c in &scene.contacts {
        if let Some(u) = c.slip_direction() {
            let mid = [0.5 * (c.p0[0] + c.p1[0]), 0.5 * (c.p0[1] + c.p1[1])];
            let ell = scene.body.half_size;
            let tip = frame.at(add(add(mid, c.normal, 0.12 * ell), u, 0.3 * ell));
            let d = [u[0], -u[1]];
            g = g.add(
                label(
                    "slip",
                    [tip[0] + 8.0 * d[0], tip[1] + 8.0 * d[1] + 4.0],
                    if d[0] >= 0.0 { "start" } else { "end" },
                    style::SLIP,
                )
                .set("class", "slip-label"),
            );
        }
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

/// A contact as a segment, or a dot when its ends meet.
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
