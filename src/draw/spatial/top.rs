//! The right panel: the scene seen from above (x right, y up): the contacts, the support
//! region and the centre-of-mass box, to scale.

use svg::node::element::{Circle, Group, Polygon, Rectangle};

use super::super::frame::{arrow, label, line, r, Frame};
use super::super::style;
use super::story::SpatialStory;
use crate::scene::{SpatialReport, SpatialScene};

const REGION_FILL: &str = "#c6dbef";
const HELD: &str = "#2ca02c";

fn points_attr(pts: &[[f64; 2]]) -> String {
    pts.iter()
        .map(|p| format!("{},{}", r(p[0]), r(p[1])))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The panel.
pub(super) fn panel(
    px: [f64; 4],
    scene: &SpatialScene,
    report: &SpatialReport,
    story: &SpatialStory,
) -> Group {
    let ell = scene.body.half_size;
    let [[x0, x1], [y0, y1]] = scene.body.com_offset;
    let mut b = [-ell, ell, -ell, ell];
    let mut grow = |p: [f64; 2]| {
        b = [
            b[0].min(p[0]),
            b[1].max(p[0]),
            b[2].min(p[1]),
            b[3].max(p[1]),
        ];
    };
    for c in &scene.contacts {
        for p in &c.points {
            grow([p[0], p[1]]);
        }
    }
    for &p in report.support_region.iter().flatten() {
        grow(p);
    }
    grow([x0, y0]);
    grow([x1, y1]);
    let pad = 0.08 * (b[1] - b[0]).max(b[3] - b[2]);
    let frame = Frame::fit(px, [b[0] - pad, b[1] + pad, b[2] - pad, b[3] + pad]);
    let at = |p: [f64; 2]| frame.at(p);

    let mut g = frame.tag(Group::new().set("class", "top-panel"));
    g = g.add(frame.axes("x", "y"));
    g = g.add(
        label(
            "seen from above",
            [px[0] + 6.0, px[1] + 16.0],
            "start",
            style::AXIS,
        )
        .set("class", "panel-label"),
    );

    // The body's outline.
    let (tl, br) = (at([-ell, ell]), at([ell, -ell]));
    g = g.add(
        Rectangle::new()
            .set("class", "body")
            .set("x", r(tl[0]))
            .set("y", r(tl[1]))
            .set("width", r(br[0] - tl[0]))
            .set("height", r(br[1] - tl[1]))
            .set("fill", "none")
            .set("stroke", style::BOX)
            .set("stroke-opacity", 0.5)
            .set("stroke-dasharray", "4 3"),
    );

    // The support region, where it was asked for.
    if let (Some(vertices), Some(shape), Some(clipped)) = (
        &report.support_region,
        report.support_region_shape,
        report.support_region_clipped,
    ) {
        g = g.add(region_group(vertices, shape, clipped, px, &at));
    }

    // The contacts from above: outlines (blue; dashed red when they bind).
    for (i, c) in scene.contacts.iter().enumerate() {
        let pts: Vec<[f64; 2]> = c.points.iter().map(|p| at([p[0], p[1]])).collect();
        let binding = story.binding_contacts.contains(&i);
        let colour = if binding {
            style::FAILURE
        } else {
            style::CONTACT
        };
        let class = if binding {
            format!("contact {} binding", c.kind())
        } else {
            format!("contact {}", c.kind())
        };
        let cg = Group::new().set("class", class);
        g = g.add(match pts.as_slice() {
            [p] => cg.add(
                Circle::new()
                    .set("cx", r(p[0]))
                    .set("cy", r(p[1]))
                    .set("r", 3.5)
                    .set("fill", colour),
            ),
            [a, b] => cg.add(line(*a, *b, colour, 2.5).set("stroke-linecap", "round")),
            _ => {
                let mut poly = Polygon::new()
                    .set("points", points_attr(&pts))
                    .set("fill", "none")
                    .set("stroke", colour)
                    .set("stroke-width", 2)
                    .set("stroke-linejoin", "round");
                if binding {
                    poly = poly.set("stroke-dasharray", "6 3");
                }
                cg.add(poly)
            }
        });
    }

    // Sliding contacts from above: the slip's horizontal part (pink) from the contact's
    // middle, and its friction's against it (green, μ times as long): none for a slip
    // straight up or down a wall.
    for c in scene.contacts.iter().filter(|c| c.slip.is_some()) {
        let (Some(u), Some(ray)) = (c.slip_direction(), c.sliding_ray()) else {
            continue;
        };
        let n = c.points.len() as f64;
        let mid = c
            .points
            .iter()
            .fold([0.0; 2], |s, p| [s[0] + p[0] / n, s[1] + p[1] / n]);
        let len = 0.35 * ell;
        let mut sg = Group::new()
            .set("class", "sliding")
            .set("data-contact", c.source);
        if u[0].hypot(u[1]) > 1e-6 {
            let tip = [mid[0] + len * u[0], mid[1] + len * u[1]];
            sg = sg.add(arrow(at(mid), at(tip), style::SLIP, 2.5).set("class", "slip"));
        }
        let pull = [ray[0] - c.normal[0], ray[1] - c.normal[1]];
        if pull[0].hypot(pull[1]) > 1e-6 {
            let tip = [mid[0] + len * pull[0], mid[1] + len * pull[1]];
            sg =
                sg.add(arrow(at(mid), at(tip), style::FRICTION, 1.8).set("class", "friction-pull"));
        }
        g = g.add(sg);
    }

    // The centre-of-mass box, at least a few pixels wide, coloured by the answer.
    let colour = if report.held { HELD } else { style::FAILURE };
    let (a, c) = (at([x0, y1]), at([x1, y0]));
    let (mut w, mut h) = (c[0] - a[0], c[1] - a[1]);
    let (mut left, mut top) = (a[0], a[1]);
    if w < 6.0 {
        left -= 0.5 * (6.0 - w);
        w = 6.0;
    }
    if h < 6.0 {
        top -= 0.5 * (6.0 - h);
        h = 6.0;
    }
    g = g.add(
        Rectangle::new()
            .set("class", "com-box")
            .set("data-box", format!("{x0} {x1} {y0} {y1}"))
            .set("x", r(left))
            .set("y", r(top))
            .set("width", r(w))
            .set("height", r(h))
            .set("fill", colour)
            .set("fill-opacity", 0.35)
            .set("stroke", colour)
            .set("stroke-width", 1.5),
    );
    // The nominal centre of mass (the reference point) and the need drawn on the left.
    let o = at([0.0, 0.0]);
    g = g.add(
        Group::new()
            .set("class", "nominal-com")
            .add(line(
                [o[0] - 6.0, o[1]],
                [o[0] + 6.0, o[1]],
                style::TEXT,
                1.5,
            ))
            .add(line(
                [o[0], o[1] - 6.0],
                [o[0], o[1] + 6.0],
                style::TEXT,
                1.5,
            )),
    );
    let q = at([story.com[0], story.com[1]]);
    g.add(
        Circle::new()
            .set("class", "need-com")
            .set("cx", r(q[0]))
            .set("cy", r(q[1]))
            .set("r", 3)
            .set("fill", style::GRAVITY),
    )
}

/// The support region's group: its polygon (or segment, point, or the word empty) and, where
/// it reaches the box, a note.
fn region_group(
    vertices: &[[f64; 2]],
    shape: &str,
    clipped: bool,
    px: [f64; 4],
    at: &impl Fn([f64; 2]) -> [f64; 2],
) -> Group {
    let region: Vec<[f64; 2]> = vertices.iter().map(|&p| at(p)).collect();
    let rg = Group::new()
        .set("class", "support-region-group")
        .set("data-shape", shape)
        .set("data-clipped", clipped.to_string());
    let mut rg = match region.as_slice() {
        [] => rg.add(
            label(
                "support region: empty",
                [px[0] + 6.0, px[1] + px[3] - 8.0],
                "start",
                style::FAILURE,
            )
            .set("class", "support-region empty"),
        ),
        [p] => rg.add(
            Circle::new()
                .set("class", "support-region")
                .set("cx", r(p[0]))
                .set("cy", r(p[1]))
                .set("r", 4)
                .set("fill", style::CONTACT),
        ),
        [a, c] => rg.add(
            line(*a, *c, style::CONTACT, 9.0)
                .set("class", "support-region")
                .set("stroke-opacity", 0.35)
                .set("stroke-linecap", "round"),
        ),
        pts => rg.add(
            Polygon::new()
                .set("class", "support-region")
                .set("points", points_attr(pts))
                .set("fill", REGION_FILL)
                .set("fill-opacity", 0.7)
                .set("stroke", style::CONTACT)
                .set("stroke-width", 1.5),
        ),
    };
    if clipped {
        rg = rg.add(
            label(
                "support region cut at ±4ℓ",
                [px[0] + px[2] - 6.0, px[1] + 16.0],
                "end",
                style::CONTACT,
            )
            .set("class", "support-region-note"),
        );
    }
    rg
}
