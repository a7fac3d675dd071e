//! Pictures of a grasp line and its report (SVG, docs/contract-grasp.md): the object's
//! contacts and friction pyramids, the contacts on the binding facet, and the weakest wrench
//! `u*` read as a screw — its axis, the force along it and the sense of its moment — or as a
//! pure moment.
//!
//! A grasp line has no geometry but its contacts, so the object is drawn as the smallest cube
//! about the reference point `c` that holds them (ℓ, the line's `half_size`, is only the
//! moment unit). The axonometric view, the cube and the contacts are the spatial pictures'
//! own (`draw::spatial`'s axonometric panel), so both read the same.
//!
//! Left panel (`axo-panel`, with `data-projection` and `data-origin` as the spatial
//! pictures'): the cube, the contacts (`contact`, their pyramids `pyramid` and
//! `pyramid-edge`; those on the binding facet with a `binding` halo) and the weakest wrench
//! (group `weakest` with `data-kind` `screw`, `force` or `moment`, `data-axis`,
//! `data-point`, `data-pitch`): the axis (`screw-axis`), the force (`wrench-force`, with
//! `data-from`/`data-to`), the moment's sense (`wrench-moment`) and a label
//! (`wrench-label`). Right panel (`weakest-panel`): u*'s six components as bars
//! (`wrench-bar`). The `svg` element carries `data-q1`, the report's q1 to the last digit.

use serde_json::Value;
use svg::node::element::{Group, Line, Path, Rectangle};
use svg::Document;

use super::frame::{label, line, r, short};
use super::page::{page, Caption};
use super::spatial::axo::{self, Projection};
use super::style;
use crate::scene::spatial::{add, cross, dot, norm3};
use crate::scene::{FrictionModel, GraspReport, Pyramid, SpatialScene};

const AXO_PANEL: [f64; 4] = [20.0, 50.0, 600.0, 480.0];
const BAR_PANEL: [f64; 4] = [650.0, 70.0, 330.0, 300.0];
const CAPTION_TOP: f64 = 560.0;
/// The weakest wrench's colour: the needs' purple, apart from contacts (blue), friction
/// (green) and the binding facet (red).
const WRENCH: &str = style::NEED;
/// Length of the drawn force along the axis, in drawn half-sizes.
const FORCE_LENGTH: f64 = 1.3;
/// A screw axis whose point nearest `c` lies farther than this many drawn half-sizes would
/// shrink the object to a speck: the wrench is then drawn at `c`, as its force there and its
/// moment about it. Nearer, the view is fitted to show the axis's point and the force.
const FAR: f64 = 4.0;
/// Pixels left free around what the view fits: the wrench's label goes there.
const PAD: f64 = 44.0;
/// `|f|` at most this (u* is a unit vector): a pure moment. `|h|` at most this times ℓ: a
/// pure force. Both far below what the wrench's float64 components can tell apart from 0.
const TINY: f64 = 1e-9;

/// The weakest wrench `u* = (f, m)` as a screw, the moment in physical units `ℓ·m`: a force
/// along a line plus a moment about that same line (Poinsot), or a couple alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Screw {
    /// The force `f` along `axis` (`f/|f|`) through `point`, the axis's point nearest `c`
    /// (`f × ℓm / |f|²`), with the moment `pitch·f` about the axis (`pitch = f·ℓm / |f|²`, a
    /// length; 0: a pure force).
    Force {
        /// Unit direction of the force.
        axis: [f64; 3],
        /// The axis's point nearest the reference point.
        point: [f64; 3],
        /// Moment about the axis per unit of force, in the scene's length unit.
        pitch: f64,
    },
    /// No force: a couple about `axis` (`m/|m|`), the same about every point.
    Moment {
        /// Unit direction of the moment.
        axis: [f64; 3],
    },
}

impl Screw {
    /// The screw of the wrench `u` (moments in units of `ell`); `None` for the zero wrench.
    pub(crate) fn of_wrench(u: &[f64; 6], ell: f64) -> Option<Screw> {
        let f = [u[0], u[1], u[2]];
        let m = [ell * u[3], ell * u[4], ell * u[5]];
        let (nf, nm) = (norm3(f), norm3([u[3], u[4], u[5]]));
        if nf <= TINY * (nf + nm) {
            return (nm > 0.0).then(|| Screw::Moment {
                axis: [u[3] / nm, u[4] / nm, u[5] / nm],
            });
        }
        let f2 = nf * nf;
        let pitch = dot(f, m) / f2;
        Some(Screw::Force {
            axis: f.map(|v| v / nf),
            point: cross(f, m).map(|v| v / f2),
            pitch: if pitch.abs() <= TINY * ell {
                0.0
            } else {
                pitch
            },
        })
    }

    /// "a screw along … through …, pitch h = …", "a pure force along … through …", "a pure
    /// moment about …".
    pub(crate) fn describe(&self, ell: f64) -> String {
        match *self {
            Screw::Force {
                axis,
                point,
                pitch: 0.0,
            } => format!(
                "a pure force along {} through {} (pitch 0)",
                v3(axis),
                v3(point)
            ),
            Screw::Force { axis, point, pitch } => format!(
                "a screw along {} through {}, pitch h = f·ℓm/|f|² = {} ({}ℓ): the force along \
                 the axis and the moment h·f about it",
                v3(axis),
                v3(point),
                fmt_q1(pitch),
                short(pitch / ell)
            ),
            Screw::Moment { axis } => format!("a pure moment about {} (no force)", v3(axis)),
        }
    }
}

/// A number to four decimals, rounding noise (below 5e-5) to 0 so that it reads "0", not
/// "-0".
fn n4(v: f64) -> String {
    short(if v.abs() < 5e-5 { 0.0 } else { v })
}

fn v3(p: [f64; 3]) -> String {
    format!("({}, {}, {})", n4(p[0]), n4(p[1]), n4(p[2]))
}

/// q1 (and other small numbers) as the caption writes them: four decimals, or three
/// significant digits below 1e-3.
pub(crate) fn fmt_q1(v: f64) -> String {
    if v == 0.0 || v.abs() >= 1e-3 {
        format!("{:.4}", v + 0.0)
    } else {
        format!("{v:.3e}")
    }
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

fn verdict_words(report: &GraspReport) -> &'static str {
    if report.held() {
        "in force closure"
    } else if report.uncertain() {
        "force closure uncertain"
    } else {
        "not in force closure"
    }
}

/// The title: the id, the verdict and q1 (for `"coulomb"` also the outer pyramids' q1).
fn title(report: &GraspReport) -> String {
    let upper = report
        .q1_upper
        .map(|u| format!(" (q1_upper {}, outer pyramids)", fmt_q1(u)))
        .unwrap_or_default();
    format!(
        "{}: {}, q1 {}{upper}",
        id_text(&report.id),
        verdict_words(report),
        fmt_q1(report.q1)
    )
}

/// The pyramid q1 comes from (for `"coulomb"` the inner one), whose edges are drawn.
fn main_pyramid(f: FrictionModel) -> Pyramid {
    match f {
        FrictionModel::Outer => Pyramid::Outer,
        FrictionModel::Inner | FrictionModel::Coulomb | FrictionModel::Circular => Pyramid::Inner,
    }
}

/// The drawn cube's half-size: the largest coordinate of a contact point (ℓ when there is
/// none or all sit at `c`).
fn drawn_half_size(scene: &SpatialScene) -> f64 {
    let b = scene
        .contacts
        .iter()
        .flat_map(|c| &c.points)
        .flat_map(|p| p.iter().map(|v| v.abs()))
        .fold(0.0, f64::max);
    if b > 0.0 && b.is_finite() {
        b
    } else {
        scene.body.half_size
    }
}

/// The caption's lines under the title.
fn lines(scene: &SpatialScene, report: &GraspReport, screw: Option<Screw>) -> Vec<String> {
    let ell = scene.body.half_size;
    let u = report.weakest;
    let checked = if report.margin_checked {
        "true (q1 proven: the facet set is complete)"
    } else {
        "false (q1 an upper bound: the facet set is not proven complete)"
    };
    let upper = report
        .q1_upper
        .map(|v| format!(", q1_upper {} (outer pyramids)", fmt_q1(v)))
        .unwrap_or_default();
    let mut out = vec![format!(
        "{} friction, k = {} pyramid edges a point, {} generators, ℓ = {} (the moment unit); \
         q1 {}{upper}; margin_checked {checked}.",
        report.friction,
        report.pyramid,
        report.n_generators,
        short(ell),
        fmt_q1(report.q1),
    )];
    if let Some(rf) = &report.refined {
        out.push(format!(
            "Decided at k = {}: q1 between {} (inner) and {} (outer).",
            rf.pyramid,
            fmt_q1(rf.q1),
            fmt_q1(rf.q1_upper)
        ));
    }
    let how = screw.map_or("the zero wrench".to_string(), |s| s.describe(ell));
    out.push(format!(
        "Weakest wrench u* = (f; m) = ({}, {}, {}; {}, {}, {}) (m in units of ℓ), the unit \
         wrench the contacts supply least of (h_W(u*) = q1): {how}.",
        n4(u[0]),
        n4(u[1]),
        n4(u[2]),
        n4(u[3]),
        n4(u[4]),
        n4(u[5]),
    ));
    let names = |cs: &[usize]| {
        cs.iter()
            .map(|&c| format!("c{}", scene.contacts[c].source))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push(match &report.facet {
        Some(f) if report.held() => format!(
            "Binding facet of W (the nearest to the origin): {} generators, from {} (red halos).",
            f.generators.len(),
            names(&f.contacts)
        ),
        Some(f) => format!(
            "The face of W that u* supports (nearest the origin): {} generators, from {} (red \
             halos).",
            f.generators.len(),
            names(&f.contacts)
        ),
        None => "No binding facet: W is flat.".to_string(),
    });
    if let Some(r) = &report.reason {
        out.push(format!("Why: {r}."));
    }
    out
}

/// What the left panel draws of the weakest wrench, in scene coordinates: where the axis
/// passes and along what (`None`: not drawn), the axis's point nearest `c` when it is drawn
/// apart from `c`, the force arrow, the moment's arc (in its sense), the label's words.
struct Drawn {
    axis: Option<([f64; 3], [f64; 3])>,
    foot: Option<[f64; 3]>,
    force: Option<([f64; 3], [f64; 3])>,
    arc: Vec<[f64; 3]>,
    words: String,
    kind: &'static str,
}

/// Where the weakest wrench goes in a picture whose cube has half-size `b`.
fn drawn(screw: Option<Screw>, u: &[f64; 6], ell: f64, b: f64) -> Drawn {
    let arc_about = |axis: [f64; 3], point: [f64; 3], sense: f64| {
        let mut a = axo::turn_arc(axis, point, point, b);
        if sense < 0.0 {
            a.reverse();
        }
        a
    };
    let pitch_words = |pitch: f64| {
        if pitch == 0.0 {
            "a pure force (pitch 0)".to_string()
        } else {
            format!(
                "a screw, pitch h = {} ({}ℓ)",
                fmt_q1(pitch),
                n4(pitch / ell)
            )
        }
    };
    match screw {
        Some(Screw::Force { axis, point, pitch }) if norm3(point) <= FAR * b => Drawn {
            axis: Some((point, axis)),
            foot: (norm3(point) > 1e-6 * b).then_some(point),
            force: Some((point, add(point, axis, FORCE_LENGTH * b))),
            arc: if pitch == 0.0 {
                Vec::new()
            } else {
                arc_about(axis, point, pitch)
            },
            words: format!("u*: {}", pitch_words(pitch)),
            kind: if pitch == 0.0 { "force" } else { "screw" },
        },
        // The axis is far off: the force at c (to scale: |f| ≤ 1, and small when the axis is
        // far) and the moment about c.
        Some(Screw::Force { axis, point, pitch }) => {
            let m = [u[3], u[4], u[5]];
            let (nf, nm) = (norm3([u[0], u[1], u[2]]), norm3(m));
            Drawn {
                axis: None,
                foot: None,
                force: Some(([0.0; 3], add([0.0; 3], axis, FORCE_LENGTH * b * nf))),
                arc: if nm > 0.0 {
                    arc_about(m.map(|v| v / nm), [0.0; 3], 1.0)
                } else {
                    Vec::new()
                },
                words: format!(
                    "u* at c (its axis {:.2}ℓ off): |f| {:.3}, moment about c; pitch {}",
                    norm3(point) / ell,
                    nf,
                    fmt_q1(pitch)
                ),
                kind: if pitch == 0.0 { "force" } else { "screw" },
            }
        }
        Some(Screw::Moment { axis }) => Drawn {
            axis: Some(([0.0; 3], axis)),
            foot: None,
            force: None,
            arc: arc_about(axis, [0.0; 3], 1.0),
            words: format!("u*: a pure moment about {} (no force)", v3(axis)),
            kind: "moment",
        },
        None => Drawn {
            axis: None,
            foot: None,
            force: None,
            arc: Vec::new(),
            words: "u*: zero".to_string(),
            kind: "zero",
        },
    }
}

/// The left panel: the cube, the contacts and pyramids, the weakest wrench.
fn axo_panel(
    px: [f64; 4],
    scene: &SpatialScene,
    report: &GraspReport,
    screw: Option<Screw>,
) -> Group {
    let ell = scene.body.half_size;
    let b = drawn_half_size(scene);
    let tips = axo::pyramid_tips(
        &scene.contacts,
        report.pyramid,
        main_pyramid(scene.friction),
        b,
    );
    let wrench = drawn(screw, &report.weakest, ell, b);

    let mut fit: Vec<[f64; 3]> = (0..8)
        .map(|i| [0, 1, 2].map(|a| if i >> a & 1 == 1 { b } else { -b }))
        .collect();
    axo::contact_extent(&scene.contacts, &tips, b, &mut fit);
    if let Some((a, z)) = wrench.force {
        fit.extend([a, z]);
    }
    fit.extend(&wrench.arc);
    let proj = Projection::fit(px, &fit, PAD);

    let mut g = proj.tag(Group::new().set("class", "axo-panel"));
    g = g
        .add(axo::border(px))
        .add(axo::body(&proj, b))
        .add(axo::reference(&proj));
    let binding = report
        .facet
        .as_ref()
        .map(|f| f.contacts.clone())
        .unwrap_or_default();
    g = axo::contacts(g, &proj, &scene.contacts, &tips, &binding, b);
    let axis = axis_pixels(px, &proj, &wrench, b);
    g = g.add(weakest(px, &proj, screw, &wrench, axis));
    g = axo::contact_labels(g, &proj, &scene.contacts);
    // The axes' triad in the lower corner the wrench leaves free.
    let mut lines: Vec<([f64; 2], [f64; 2])> = axis.into_iter().collect();
    lines.extend(wrench.force.map(|(a, z)| (proj.at(a), proj.at(z))));
    let room = |o: [f64; 2]| {
        lines
            .iter()
            .map(|&(a, z)| segment_distance(o, a, z))
            .fold(f64::INFINITY, f64::min)
    };
    let (left, right) = (
        [px[0] + 34.0, px[1] + px[3] - 30.0],
        [px[0] + px[2] - 46.0, px[1] + px[3] - 30.0],
    );
    if room(right) > room(left) + 20.0 {
        g.add(axo::triad([px[0] + px[2] - 80.0, px[1], 80.0, px[3]]))
    } else {
        g.add(axo::triad(px))
    }
}

/// Pixel distance from `p` to the segment `a`–`b`.
fn segment_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let d = [b[0] - a[0], b[1] - a[1]];
    let l2 = d[0] * d[0] + d[1] * d[1];
    let t = if l2 > 0.0 {
        (((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p[0] - a[0] - t * d[0]).hypot(p[1] - a[1] - t * d[1])
}

/// The drawn axis in pixels, cut at the panel; `None` when it is not drawn or misses it.
fn axis_pixels(px: [f64; 4], proj: &Projection, w: &Drawn, b: f64) -> Option<([f64; 2], [f64; 2])> {
    let (point, axis) = w.axis?;
    let span = 40.0 * b.max(norm3(point));
    axo::clip(
        proj.at(add(point, axis, -span)),
        proj.at(add(point, axis, span)),
        px,
    )
}

/// The weakest wrench's group: axis, force, moment arc and label.
fn weakest(
    px: [f64; 4],
    proj: &Projection,
    screw: Option<Screw>,
    w: &Drawn,
    axis: Option<([f64; 2], [f64; 2])>,
) -> Group {
    let mut g = Group::new()
        .set("class", "weakest")
        .set("data-kind", w.kind);
    match screw {
        Some(Screw::Force { axis, point, pitch }) => {
            g = g
                .set("data-axis", axo::coords(axis))
                .set("data-point", axo::coords(point))
                .set("data-pitch", axo::num(pitch));
        }
        Some(Screw::Moment { axis }) => g = g.set("data-axis", axo::coords(axis)),
        None => {}
    }
    if let Some((a, z)) = axis {
        g = g.add(
            line(a, z, WRENCH, 1.6)
                .set("class", "screw-axis")
                .set("stroke-dasharray", "8 5")
                .set("stroke-opacity", 0.8),
        );
    }
    if w.arc.len() > 1 {
        g = g.add(
            Path::new()
                .set("class", "wrench-moment")
                .set("d", proj.path_d(&w.arc))
                .set("fill", "none")
                .set("stroke", WRENCH)
                .set("stroke-width", 2.5)
                .set("stroke-linejoin", "round")
                .set("marker-end", format!("url(#{})", style::marker_id(WRENCH))),
        );
    }
    if let Some(foot) = w.foot {
        // Where the axis passes: the perpendicular from c.
        g = g.add(
            line(proj.at([0.0; 3]), proj.at(foot), WRENCH, 1.2)
                .set("class", "screw-foot")
                .set("stroke-dasharray", "2 3"),
        );
    }
    if let Some((a, z)) = w.force {
        g = g.add(axo::arrow3(proj, a, z, "wrench-force", WRENCH, 3.0));
    }
    // The label at the panel's top left, in the margin the view leaves free; a white halo
    // keeps it readable where the axis crosses it.
    g.add(
        label(&w.words, [px[0] + 10.0, px[1] + 22.0], "start", WRENCH)
            .set("class", "wrench-label")
            .set("font-weight", "bold")
            .set("stroke", "#ffffff")
            .set("stroke-width", 3)
            .set("stroke-linejoin", "round")
            .set("paint-order", "stroke"),
    )
}

/// The right panel: u*'s six components as horizontal bars about a zero line.
fn bar_panel(px: [f64; 4], report: &GraspReport) -> Group {
    let names = ["f_x", "f_y", "f_z", "m_x", "m_y", "m_z"];
    let u = report.weakest;
    let mut g = Group::new().set("class", "weakest-panel").add(
        Rectangle::new()
            .set("x", r(px[0]))
            .set("y", r(px[1]))
            .set("width", r(px[2]))
            .set("height", r(px[3]))
            .set("fill", "none")
            .set("stroke", "#dddddd")
            .set("stroke-width", 1),
    );
    g = g
        .add(label(
            "weakest wrench u* (a unit vector of R⁶)",
            [px[0] + 8.0, px[1] + 18.0],
            "start",
            style::TEXT,
        ))
        .add(label(
            "force f, moment m in units of ℓ",
            [px[0] + 8.0, px[1] + 34.0],
            "start",
            style::AXIS,
        ));
    // Columns: the names, the bars about their zero line, the values right-aligned.
    let (left, right) = (px[0] + 48.0, px[0] + px[2] - 64.0);
    let (x0, half) = (0.5 * (left + right), 0.5 * (right - left));
    let (top, row) = (px[1] + 56.0, (px[3] - 70.0) / 6.0);
    g = g.add(
        line(
            [x0, top - 6.0],
            [x0, top + 6.0 * row - 4.0],
            style::AXIS,
            1.0,
        )
        .set("class", "zero"),
    );
    for (i, (&v, name)) in u.iter().zip(names).enumerate() {
        let y = top + row * i as f64;
        let w = half * v.clamp(-1.0, 1.0);
        let (x, width) = if w >= 0.0 { (x0, w) } else { (x0 + w, -w) };
        // Noise prints as 0.000, not -0.000.
        let shown = if v.abs() < 5e-4 { 0.0 } else { v };
        g = g
            .add(label(
                name,
                [px[0] + 10.0, y + 0.5 * row + 4.0],
                "start",
                style::TEXT,
            ))
            .add(
                Rectangle::new()
                    .set("class", "wrench-bar")
                    .set("data-value", axo::num(v))
                    .set("x", r(x))
                    .set("y", r(y + 0.2 * row))
                    .set("width", r(width))
                    .set("height", r(0.6 * row))
                    .set("fill", WRENCH)
                    .set("fill-opacity", 0.7),
            )
            .add(label(
                &format!("{:.3}", shown + 0.0),
                [px[0] + px[2] - 10.0, y + 0.5 * row + 4.0],
                "end",
                style::TEXT,
            ));
    }
    // Dividing the force part from the moment part.
    let y = top + 3.0 * row;
    g.add(
        Line::new()
            .set("x1", r(px[0] + 8.0))
            .set("y1", r(y))
            .set("x2", r(px[0] + px[2] - 8.0))
            .set("y2", r(y))
            .set("stroke", "#dddddd")
            .set("stroke-width", 1),
    )
}

/// The picture of a grasp line's scene and its report (the report must be the scene's own).
pub(crate) fn picture(scene: &SpatialScene, report: &GraspReport) -> Document {
    let screw = Screw::of_wrench(&report.weakest, scene.body.half_size);
    let title = title(report);
    let legend = "Left, z up, seen from the front right: grey: the smallest cube about the \
                  reference point c (ring) that holds the contacts (a grasp line gives no other \
                  geometry; ℓ is only the moment unit); blue: contacts (c<k>; faces shaded, \
                  edges thick, points dots); green: friction pyramid edges (μ's lower end, the \
                  pyramids q1 comes from, at most 16 drawn); red halo: contacts on the binding \
                  facet; purple: the weakest wrench u* as a screw — its axis (dashed), the force \
                  along it (arrow) and the sense of its moment about the axis (arc; none for a \
                  pure force, the arc alone for a pure moment). Right: u*'s components, force \
                  and moment/ℓ in one Euclidean norm.";
    let lines = lines(scene, report, screw);
    let caption = Caption::new(CAPTION_TOP, &lines, legend);
    let mut doc = page(caption.page_height(), &title, [20.0, 30.0], &[style::AXIS])
        .add(axo_panel(AXO_PANEL, scene, report, screw))
        .add(bar_panel(BAR_PANEL, report))
        .add(caption.group());
    doc = doc.set("data-q1", report.q1.to_string());
    doc
}

/// The picture of a grasp line's scene and its report, as SVG text.
pub fn svg_text(scene: &SpatialScene, report: &GraspReport) -> String {
    picture(scene, report).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_force_through_a_point_off_c_has_that_axis_and_no_pitch() {
        // f = (0, 0, 1) at (1, 0, 0): moment (1,0,0) × (0,0,1) = (0, −1, 0); ℓ = 2.
        let s = Screw::of_wrench(&[0.0, 0.0, 1.0, 0.0, -0.5, 0.0], 2.0).unwrap();
        let Screw::Force { axis, point, pitch } = s else {
            panic!("{s:?}")
        };
        assert_eq!(axis, [0.0, 0.0, 1.0]);
        assert!((point[0] - 1.0).abs() < 1e-12 && point[1].abs() < 1e-12);
        assert_eq!(pitch, 0.0);
    }

    #[test]
    fn a_moment_along_the_force_is_the_pitch_and_a_couple_is_a_pure_moment() {
        let s = Screw::of_wrench(&[1.0, 0.0, 0.0, 0.25, 0.0, 0.0], 2.0).unwrap();
        assert_eq!(
            s,
            Screw::Force {
                axis: [1.0, 0.0, 0.0],
                point: [0.0, 0.0, 0.0],
                pitch: 0.5
            }
        );
        let s = Screw::of_wrench(&[0.0, 0.0, 0.0, 0.0, 1.0, 0.0], 2.0).unwrap();
        assert_eq!(
            s,
            Screw::Moment {
                axis: [0.0, 1.0, 0.0]
            }
        );
        assert_eq!(Screw::of_wrench(&[0.0; 6], 1.0), None);
    }
}
