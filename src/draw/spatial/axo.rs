//! The left panel: the body, its contacts, pyramids and forces, or the certificate's motion,
//! in an axonometric view (orthographic, z up, seen from the front right and above).
//! Its pieces (the projection, the box, the contacts with their pyramids, their labels, the
//! triad) also draw the grasp pictures ([`crate::draw::grasp`]), so both read the same.

use svg::node::element::{Circle, Group, Path, Polygon};

use super::super::frame::{arrow, label, line, r, short};
use super::super::style;
use super::story::{Motion, SpatialStory};
use crate::scene::spatial::{add, cross, dot, norm3, sub};
use crate::scene::{tangent_basis, Pyramid, SpatialContact, SpatialReport, SpatialScene};

/// The view: azimuth of the viewer (from +x toward +y) and elevation, in degrees.
const AZIMUTH: f64 = -62.0;
const ELEVATION: f64 = 24.0;
/// Length of the weight arrow, in half-sizes per nominal weight.
const FORCE_SCALE: f64 = 1.0;
/// The longest force arrow, in half-sizes: beyond it every arrow shrinks (one scale).
const LONGEST: f64 = 2.2;
/// Length of a drawn pyramid edge, in half-sizes.
const PYRAMID_LENGTH: f64 = 0.35;
/// Radius of the turn's arc around the screw axis, in half-sizes.
const TURN_RADIUS: f64 = 0.4;
/// Length of the arrow of the centre of mass's velocity in a turn, in half-sizes.
const COM_VELOCITY: f64 = 0.6;
/// Length of the slide arrow, in half-sizes.
const SLIDE_LENGTH: f64 = 1.3;
/// Length of a sliding contact's slip arrow, in half-sizes.
const SLIP_LENGTH: f64 = 0.7;

/// The orthographic map from scene coordinates to pixels: `pixel = origin + M·p`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Projection {
    /// Rows: pixel x and pixel y (down) per scene unit.
    pub m: [[f64; 3]; 2],
    /// Pixel of the reference point.
    pub origin: [f64; 2],
    /// Unit vector toward the viewer: larger `dot(p, toward)` is nearer.
    pub toward: [f64; 3],
}

/// The unit view: screen right and screen up (y up), and the direction to the viewer.
pub(in crate::draw) fn view() -> ([f64; 3], [f64; 3], [f64; 3]) {
    let (az, el) = (AZIMUTH.to_radians(), ELEVATION.to_radians());
    let toward = [el.cos() * az.cos(), el.cos() * az.sin(), el.sin()];
    let right = [-az.sin(), az.cos(), 0.0];
    let up = cross(toward, right);
    (right, up, toward)
}

impl Projection {
    /// The `d` of an SVG path through the projections of `pts`, in order (an arc, a turn).
    pub(in crate::draw) fn path_d(&self, pts: &[[f64; 3]]) -> String {
        let d: Vec<String> = pts
            .iter()
            .enumerate()
            .map(|(i, &q)| {
                let q = self.at(q);
                format!("{} {} {}", if i == 0 { "M" } else { "L" }, r(q[0]), r(q[1]))
            })
            .collect();
        d.join(" ")
    }

    fn unit(p: [f64; 3]) -> [f64; 2] {
        let (right, up, _) = view();
        [dot(p, right), dot(p, up)]
    }

    /// Fits the unit view of `points` into the pixel rectangle `px` (a margin of `pad`).
    pub(in crate::draw) fn fit(px: [f64; 4], points: &[[f64; 3]], pad: f64) -> Projection {
        let (right, up, toward) = view();
        let mut b = [
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for &p in points {
            let q = Projection::unit(p);
            b = [
                b[0].min(q[0]),
                b[1].max(q[0]),
                b[2].min(q[1]),
                b[3].max(q[1]),
            ];
        }
        let (w, h) = ((b[1] - b[0]).max(1e-9), (b[3] - b[2]).max(1e-9));
        let scale = ((px[2] - 2.0 * pad) / w).min((px[3] - 2.0 * pad) / h);
        let (cx, cy) = (0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]));
        let origin = [
            px[0] + 0.5 * px[2] - scale * cx,
            px[1] + 0.5 * px[3] + scale * cy,
        ];
        Projection {
            m: [right.map(|v| scale * v), up.map(|v| -scale * v)],
            origin,
            toward,
        }
    }

    /// The pixel of a scene point.
    pub(crate) fn at(&self, p: [f64; 3]) -> [f64; 2] {
        [
            self.origin[0] + dot(self.m[0], p),
            self.origin[1] + dot(self.m[1], p),
        ]
    }

    pub(in crate::draw) fn tag(&self, g: Group) -> Group {
        let m: Vec<String> = self.m.concat().iter().map(|&v| num(v)).collect();
        g.set("data-projection", m.join(" ")).set(
            "data-origin",
            format!("{} {}", r(self.origin[0]), r(self.origin[1])),
        )
    }
}

/// A number to 1e-6: enough to read geometry back.
pub(in crate::draw) fn num(v: f64) -> String {
    let s = format!("{:.6}", v + 0.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".into()
    } else {
        s.into()
    }
}

pub(in crate::draw) fn coords(p: [f64; 3]) -> String {
    format!("{} {} {}", num(p[0]), num(p[1]), num(p[2]))
}

fn points_attr(pts: &[[f64; 2]]) -> String {
    pts.iter()
        .map(|p| format!("{},{}", r(p[0]), r(p[1])))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The corners of the box `[−ℓ, ℓ]³`, index bits (x, y, z).
fn corners(ell: f64) -> [[f64; 3]; 8] {
    std::array::from_fn(|i| [0, 1, 2].map(|a| if i >> a & 1 == 1 { ell } else { -ell }))
}

/// A 3-D arrow from `a` to `b` with its scene coordinates on it.
pub(in crate::draw) fn arrow3(
    p: &Projection,
    a: [f64; 3],
    b: [f64; 3],
    class: &str,
    colour: &str,
    w: f64,
) -> svg::node::element::Line {
    arrow(p.at(a), p.at(b), colour, w)
        .set("class", class)
        .set("data-from", coords(a))
        .set("data-to", coords(b))
}

/// Where the turn's arc lies: centre on the axis nearest the centre of mass, radius, the two
/// unit vectors of its plane (t₁ × t₂ = axis) and its samples, in the turn's sense.
pub(in crate::draw) fn turn_arc(
    axis: [f64; 3],
    point: [f64; 3],
    com: [f64; 3],
    ell: f64,
) -> Vec<[f64; 3]> {
    let centre = add(point, axis, dot(sub(com, point), axis));
    let (t1, t2) = tangent_basis(axis);
    // Start on the side facing the viewer-ish: from the screen-up direction's part ⊥ axis.
    let rad = TURN_RADIUS * ell;
    let n = 40;
    let sweep = 250f64.to_radians();
    // Begin where the arc is nearest the top of the picture, so the head is visible.
    let (_, up, _) = view();
    let start = dot(up, t2).atan2(dot(up, t1));
    (0..=n)
        .map(|i| {
            let th = start + sweep * i as f64 / n as f64;
            let (s, c) = th.sin_cos();
            add(add(centre, t1, rad * c), t2, rad * s)
        })
        .collect()
}

/// Liang–Barsky: the part of the pixel segment `a`–`b` inside the rectangle `px`.
pub(in crate::draw) fn clip(
    a: [f64; 2],
    b: [f64; 2],
    px: [f64; 4],
) -> Option<([f64; 2], [f64; 2])> {
    let d = [b[0] - a[0], b[1] - a[1]];
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-d[0], a[0] - px[0]),
        (d[0], px[0] + px[2] - a[0]),
        (-d[1], a[1] - px[1]),
        (d[1], px[1] + px[3] - a[1]),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    (t0 < t1).then(|| {
        (
            [a[0] + t0 * d[0], a[1] + t0 * d[1]],
            [a[0] + t1 * d[0], a[1] + t1 * d[1]],
        )
    })
}

/// The panel.
pub(crate) fn panel(
    px: [f64; 4],
    scene: &SpatialScene,
    report: &SpatialReport,
    story: &SpatialStory,
) -> Group {
    let ell = scene.body.half_size;
    let k = report.pyramid;
    let box_corners = corners(ell);

    // One scale for the weight and the contact forces.
    let weight = story.mass / scene.body.mass_nominal;
    let longest = story
        .forces
        .iter()
        .map(|f| norm3(f.1))
        .fold(weight, f64::max);
    let scale = (FORCE_SCALE * ell).min(LONGEST * ell / longest.max(1e-12));
    let com = story.com;
    let weight_end = [com[0], com[1], com[2] - scale * weight];

    // Everything the view must show, to fit it.
    let mut fit: Vec<[f64; 3]> = box_corners.to_vec();
    let pyramid_tips = pyramid_tips(&scene.contacts, k, story.pyramid, ell);
    contact_extent(&scene.contacts, &pyramid_tips, ell, &mut fit);
    fit.push(com);
    fit.push(weight_end);
    for &(p, f) in &story.forces {
        fit.push(p);
        fit.push(add(p, f, scale));
    }
    let mut arc = Vec::new();
    let mut slide = None;
    match &story.motion {
        Some(Motion::Turn {
            axis, point, pitch, ..
        }) => {
            arc = turn_arc(*axis, *point, com, ell);
            fit.extend(&arc);
            let v = add(cross(*axis, sub(com, *point)), *axis, *pitch);
            if norm3(v) > 1e-9 {
                fit.push(add(com, v, COM_VELOCITY * ell / norm3(v)));
            }
        }
        Some(Motion::Slide { direction }) => {
            // Beside the weight arrow (to its right on the screen), from the centre of mass's
            // height.
            let (right, _, _) = view();
            let start = add(com, right, 0.35 * ell);
            let end = add(start, *direction, SLIDE_LENGTH * ell);
            fit.push(start);
            fit.push(end);
            slide = Some((start, end));
        }
        None => {}
    }
    let proj = Projection::fit(px, &fit, 36.0);

    let mut g = proj.tag(Group::new().set("class", "axo-panel"));
    g = g
        .add(border(px))
        .add(body(&proj, ell))
        .add(reference(&proj));

    g = contacts(
        g,
        &proj,
        &scene.contacts,
        &pyramid_tips,
        &story.binding_contacts,
        ell,
    );

    // The weight and the witness forces.
    g = g.add(arrow3(
        &proj,
        com,
        weight_end,
        "gravity",
        style::GRAVITY,
        2.5,
    ));
    let wl = proj.at([com[0], com[1], com[2] - 0.5 * scale * weight]);
    g = g.add(
        label(
            &format!("m = {}", short(story.mass)),
            [wl[0] + 7.0, wl[1]],
            "start",
            style::GRAVITY,
        )
        .set("class", "gravity-label"),
    );
    for &(p, f) in &story.forces {
        g = g.add(arrow3(
            &proj,
            p,
            add(p, f, scale),
            "force",
            style::FORCE,
            2.5,
        ));
    }

    // The motion.
    match &story.motion {
        Some(Motion::Turn {
            axis,
            point,
            pitch,
            through,
        }) => {
            let span = 40.0 * ell.max(norm3(*point));
            let (a, b) = (
                proj.at(add(*point, *axis, -span)),
                proj.at(add(*point, *axis, span)),
            );
            let mut mg = Group::new()
                .set("class", "certificate motion")
                .set("data-point", coords(*point))
                .set("data-axis", coords(*axis))
                .set("data-pitch", num(*pitch))
                .set(
                    "data-through",
                    through
                        .iter()
                        .map(|c| scene.contacts[*c].source.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            if let Some((a, b)) = clip(a, b, px) {
                mg = mg.add(
                    line(a, b, style::FAILURE, 1.8)
                        .set("class", "screw-axis")
                        .set("stroke-dasharray", "8 5"),
                );
            }
            mg = mg.add(
                Path::new()
                    .set("class", "turn")
                    .set("d", proj.path_d(&arc))
                    .set("fill", "none")
                    .set("stroke", style::FAILURE)
                    .set("stroke-width", 2.5)
                    .set("stroke-linejoin", "round")
                    .set(
                        "marker-end",
                        format!("url(#{})", style::marker_id(style::FAILURE)),
                    ),
            );
            // The centre of mass's velocity: which way the turn takes it.
            let v = cross(*axis, sub(com, *point));
            let v = add(v, *axis, *pitch);
            if norm3(v) > 1e-9 {
                let end = add(com, v, COM_VELOCITY * ell / norm3(v));
                mg = mg.add(
                    arrow3(&proj, com, end, "com-velocity", style::FAILURE, 1.5)
                        .set("stroke-dasharray", "3 2"),
                );
            }
            g = g.add(mg);
        }
        Some(Motion::Slide { .. }) => {
            if let Some((a, b)) = slide {
                g = g.add(Group::new().set("class", "certificate motion").add(arrow3(
                    &proj,
                    a,
                    b,
                    "slide",
                    style::FAILURE,
                    4.0,
                )));
            }
        }
        None => {}
    }

    g = contact_labels(g, &proj, &scene.contacts);
    g.add(triad(px))
}

/// The drawn pyramid edges of each contact (at most 16 a point; a sliding contact's one
/// ray), `PYRAMID_LENGTH·ell` long, relative to the apex.
pub(in crate::draw) fn pyramid_tips(
    contacts: &[SpatialContact],
    k: usize,
    pyramid: Pyramid,
    ell: f64,
) -> Vec<Vec<[f64; 3]>> {
    contacts
        .iter()
        .map(|c| {
            c.rays(k.min(16), pyramid)
                .into_iter()
                .map(|e| e.map(|v| v * PYRAMID_LENGTH * ell / norm3(e)))
                .collect()
        })
        .collect()
}

/// Adds to `fit` what the contacts need shown: their points and their pyramids' tips.
pub(in crate::draw) fn contact_extent(
    contacts: &[SpatialContact],
    tips: &[Vec<[f64; 3]>],
    ell: f64,
    fit: &mut Vec<[f64; 3]>,
) {
    for (c, tips) in contacts.iter().zip(tips) {
        fit.extend(&c.points);
        for p in apexes(c, ell) {
            fit.extend(tips.iter().map(|&t| add(p, t, 1.0)));
        }
        fit.extend(slip_arrow(c, ell).into_iter().flatten());
    }
}

/// A sliding contact's slip arrow: along the slip's tangential part, `SLIP_LENGTH·ell` long,
/// centred just off the contact's middle on the body's side (a face's: toward the viewer in
/// its plane, clear of the weight's arrow).
fn slip_arrow(c: &SpatialContact, ell: f64) -> Option<[[f64; 3]; 2]> {
    let u = c.slip_direction()?;
    let n = c.points.len() as f64;
    let mid = c.points.iter().fold([0.0; 3], |s, &p| add(s, p, 1.0 / n));
    let mut start = add(mid, c.normal, 0.12 * ell);
    if c.points.len() >= 3 {
        let (_, _, toward) = view();
        let side = cross(c.normal, u);
        let s = if dot(side, toward) >= 0.0 { 1.0 } else { -1.0 };
        start = add(start, side, s * 0.4 * ell);
    }
    Some([
        add(start, u, -0.5 * SLIP_LENGTH * ell),
        add(start, u, 0.5 * SLIP_LENGTH * ell),
    ])
}

/// The panel's light border.
pub(in crate::draw) fn border(px: [f64; 4]) -> svg::node::element::Rectangle {
    svg::node::element::Rectangle::new()
        .set("class", "panel-border")
        .set("x", r(px[0]))
        .set("y", r(px[1]))
        .set("width", r(px[2]))
        .set("height", r(px[3]))
        .set("fill", "none")
        .set("stroke", "#dddddd")
        .set("stroke-width", 1)
}

/// The box `[−ell, ell]³`: faces toward the viewer lightly shaded, hidden edges dashed.
pub(in crate::draw) fn body(proj: &Projection, ell: f64) -> Group {
    let box_corners = corners(ell);
    let toward = proj.toward;
    let face_visible = |axis: usize, hi: bool| (toward[axis] > 0.0) == hi;
    let mut body = Group::new().set("class", "body");
    for axis in 0..3 {
        for hi in [false, true] {
            if !face_visible(axis, hi) {
                continue;
            }
            let (a1, a2) = ((axis + 1) % 3, (axis + 2) % 3);
            let bit = |i: usize, a: usize| (i >> a) & 1;
            let mut quad: Vec<usize> = (0..8)
                .filter(|&i| bit(i, axis) == usize::from(hi))
                .collect();
            // Order around the face: (0,0), (1,0), (1,1), (0,1) in (a1, a2).
            quad.sort_by_key(|&i| match (bit(i, a1), bit(i, a2)) {
                (0, 0) => 0,
                (1, 0) => 1,
                (1, 1) => 2,
                _ => 3,
            });
            let pts: Vec<[f64; 2]> = quad.iter().map(|&i| proj.at(box_corners[i])).collect();
            body = body.add(
                Polygon::new()
                    .set("class", "body-face")
                    .set("points", points_attr(&pts))
                    .set("fill", "#eeeeee")
                    .set("fill-opacity", 0.35)
                    .set("stroke", "none"),
            );
        }
    }
    for i in 0..8usize {
        for a in 0..3 {
            if i >> a & 1 == 1 {
                continue;
            }
            let j = i | 1 << a;
            // The edge is hidden when both faces it joins face away.
            let (b1, b2) = ((a + 1) % 3, (a + 2) % 3);
            let hidden = !face_visible(b1, i >> b1 & 1 == 1) && !face_visible(b2, i >> b2 & 1 == 1);
            let mut l = line(
                proj.at(box_corners[i]),
                proj.at(box_corners[j]),
                style::BOX,
                1.2,
            )
            .set("class", "body-edge")
            .set("stroke-opacity", if hidden { 0.35 } else { 0.7 });
            if hidden {
                l = l.set("stroke-dasharray", "4 3");
            }
            body = body.add(l);
        }
    }
    body
}

/// The reference point: a small ring.
pub(in crate::draw) fn reference(proj: &Projection) -> Circle {
    let c = proj.at([0.0; 3]);
    Circle::new()
        .set("class", "body reference")
        .set("cx", r(c[0]))
        .set("cy", r(c[1]))
        .set("r", 3)
        .set("fill", "none")
        .set("stroke", style::BOX)
        .set("stroke-width", 1)
}

/// Adds the contacts to `g`, back to front, each a group (`contact <kind>`, `data-contact`)
/// with its shape and the pyramids at its application points (`tips` from
/// [`pyramid_tips`]); those in `binding` (indices into `contacts`) with a red halo.
pub(in crate::draw) fn contacts(
    mut g: Group,
    proj: &Projection,
    contacts: &[SpatialContact],
    tips: &[Vec<[f64; 3]>],
    binding: &[usize],
    ell: f64,
) -> Group {
    let toward = proj.toward;
    let mut order: Vec<usize> = (0..contacts.len()).collect();
    let depth = |i: usize| {
        let c = &contacts[i];
        c.points.iter().map(|&p| dot(p, toward)).sum::<f64>() / c.points.len() as f64
    };
    order.sort_by(|&a, &b| depth(a).total_cmp(&depth(b)));
    for &i in &order {
        let c = &contacts[i];
        let pts: Vec<[f64; 2]> = c.points.iter().map(|&p| proj.at(p)).collect();
        let mut cg = Group::new()
            .set("class", format!("contact {}", c.kind()))
            .set("data-contact", c.source);
        if binding.contains(&i) {
            cg = cg.add(shape(&pts, "contact binding", style::FAILURE, 12.0, 0.3));
        }
        cg = cg.add(shape(&pts, c.kind(), style::CONTACT, 5.0, 0.35));
        if c.slip.is_some() {
            // A sliding contact: its one friction ray at each point, no pyramid, and the slip.
            for p in apexes(c, ell) {
                for &t in &tips[i] {
                    let end = proj.at(add(p, t, 1.0));
                    cg = cg.add(
                        line(proj.at(p), end, style::FRICTION, 2.2)
                            .set("class", "sliding-ray")
                            .set("stroke-linecap", "round"),
                    );
                }
            }
            if let Some([a, b]) = slip_arrow(c, ell) {
                cg = cg.add(arrow3(proj, a, b, "slip", style::SLIP, 3.0));
            }
            g = g.add(cg);
            continue;
        }
        // Pyramids at each application point (one at the middle of a small edge or face):
        // edges and their rim.
        for p in apexes(c, ell) {
            let tips: Vec<[f64; 3]> = tips[i].iter().map(|&t| add(p, t, 1.0)).collect();
            let rim: Vec<[f64; 2]> = tips.iter().map(|&t| proj.at(t)).collect();
            cg = cg.add(
                Polygon::new()
                    .set("class", "pyramid")
                    .set("points", points_attr(&rim))
                    .set("fill", style::FRICTION)
                    .set("fill-opacity", 0.12)
                    .set("stroke", style::FRICTION)
                    .set("stroke-width", 0.8)
                    .set("stroke-opacity", 0.6),
            );
            let a = proj.at(p);
            for &t in &rim {
                cg = cg.add(line(a, t, style::FRICTION, 1.0).set("class", "pyramid-edge"));
            }
        }
        g = g.add(cg);
    }
    g
}

/// Adds the contact labels `c<k>` to `g`, outside the body: from the body's centre through
/// the contact.
pub(in crate::draw) fn contact_labels(
    mut g: Group,
    proj: &Projection,
    contacts: &[SpatialContact],
) -> Group {
    for c in contacts {
        let n = c.points.len() as f64;
        let mid = c.points.iter().fold([0.0; 3], |s, &p| add(s, p, 1.0 / n));
        let (q, o) = (proj.at(mid), proj.at([0.0; 3]));
        let (dx, dy) = (q[0] - o[0], q[1] - o[1]);
        let len = dx.hypot(dy);
        let off = if len > 1e-6 {
            [dx / len, dy / len]
        } else {
            [0.0, 1.0]
        };
        let anchor = match off[0] {
            x if x > 0.4 => "start",
            x if x < -0.4 => "end",
            _ => "middle",
        };
        g = g.add(
            label(
                &format!("c{}", c.source),
                [q[0] + 14.0 * off[0], q[1] + 14.0 * off[1] + 4.0],
                anchor,
                style::CONTACT,
            )
            .set("class", "contact-label"),
        );
    }
    g
}

/// Where a contact's pyramids are drawn: at each of its points, or at their centroid when two
/// lie closer than a pyramid's length (a small pad: the same pyramid at every point).
fn apexes(c: &SpatialContact, ell: f64) -> Vec<[f64; 3]> {
    let n = c.points.len();
    let close = (0..n)
        .any(|i| (i + 1..n).any(|j| norm3(sub(c.points[i], c.points[j])) < PYRAMID_LENGTH * ell));
    if close {
        let w = 1.0 / n as f64;
        vec![c.points.iter().fold([0.0; 3], |s, &p| add(s, p, w))]
    } else {
        c.points.clone()
    }
}

/// A contact's shape in pixels: a dot, a thick segment, or a shaded polygon.
fn shape(
    pts: &[[f64; 2]],
    class: &str,
    colour: &str,
    width: f64,
    opacity: f64,
) -> svg::node::element::Element {
    match pts {
        [p] => Circle::new()
            .set("class", class)
            .set("cx", r(p[0]))
            .set("cy", r(p[1]))
            .set("r", 0.6 * width + 2.0)
            .set("fill", colour)
            .set(
                "fill-opacity",
                if class.contains("binding") {
                    opacity
                } else {
                    1.0
                },
            )
            .into(),
        [a, b] => line(*a, *b, colour, width)
            .set("class", class)
            .set("stroke-linecap", "round")
            .set(
                "stroke-opacity",
                if class.contains("binding") {
                    opacity
                } else {
                    1.0
                },
            )
            .into(),
        _ if class.contains("binding") => Polygon::new()
            .set("class", class)
            .set("points", points_attr(pts))
            .set("fill", "none")
            .set("stroke", colour)
            .set("stroke-width", width)
            .set("stroke-opacity", opacity)
            .set("stroke-linejoin", "round")
            .into(),
        _ => Polygon::new()
            .set("class", class)
            .set("points", points_attr(pts))
            .set("fill", colour)
            .set("fill-opacity", opacity)
            .set("stroke", colour)
            .set("stroke-width", 2.0)
            .set("stroke-linejoin", "round")
            .into(),
    }
}

/// The axes x, y, z at the panel's lower left corner.
pub(in crate::draw) fn triad(px: [f64; 4]) -> Group {
    let (right, up, _) = view();
    let o = [px[0] + 34.0, px[1] + px[3] - 30.0];
    let mut g = Group::new().set("class", "triad");
    for (a, name) in ["x", "y", "z"].iter().enumerate() {
        let e = [0, 1, 2].map(|i| if i == a { 1.0 } else { 0.0 });
        let d = [dot(e, right), -dot(e, up)];
        let tip = [o[0] + 22.0 * d[0], o[1] + 22.0 * d[1]];
        g = g.add(arrow(o, tip, style::AXIS, 1.2)).add(label(
            name,
            [o[0] + 31.0 * d[0], o[1] + 31.0 * d[1] + 4.0],
            "middle",
            style::AXIS,
        ));
    }
    g
}
