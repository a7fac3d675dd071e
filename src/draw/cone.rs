//! The right panel: the wrench cone cut at f_z = 1, in the (f_x, τ/ℓ) plane, with the needs.
//!
//! A wrench `w` with `w_z > 0` meets the plane f_z = 1 at `(w_x, w_τ)/w_z`; the cone's slice is
//! everything its non-negative combinations reach there. It is computed exactly as the view
//! rectangle cut by the half-planes of the cone's supporting planes, so generators with
//! `w_z ≤ 0` (which make the slice unbounded) need no special case.

use svg::node::element::{Circle, ClipPath, Definitions, Group, Polygon, Rectangle};

use super::frame::{arrow, label, line, r, Frame};
use super::style;
use crate::planar::tables::Candidate;
use crate::scene::{HoldReport, Scene};

type V3 = [f64; 3];

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn unit(a: V3) -> Option<V3> {
    let n = dot(a, a).sqrt();
    (n > 1e-12).then(|| a.map(|v| v / n))
}

/// Relative tolerance of the picture's geometry (far below what a pixel shows).
const TOL: f64 = 1e-9;

/// Unit normals `y` of half-spaces `y·w ≥ 0` whose intersection is the cone spanned by
/// `gens` (its H-representation); `None` when the cone is all of R³, an empty list with no
/// generators at all (the cone is the origin: handled by the caller as an empty slice).
///
/// Full-dimensional: the facets, each through two generators (pair planes). Flat (a plane
/// through the origin): both sides of that plane and the in-plane edges. A ray or a line:
/// two orthogonal planes through it both ways, and the ray's own side.
pub(crate) fn half_spaces(gens: &[V3]) -> Option<Vec<V3>> {
    let gens: Vec<V3> = gens.iter().filter_map(|&g| unit(g)).collect();
    let supports = |y: V3| gens.iter().all(|&w| dot(y, w) >= -TOL);
    let both = |y: V3| [y, y.map(|v| -v)];
    let mut pairs = Vec::new();
    for (i, &a) in gens.iter().enumerate() {
        for &b in &gens[i + 1..] {
            if let Some(y) = unit(cross(a, b)) {
                pairs.push(y);
            }
        }
    }
    let full_rank = pairs
        .iter()
        .any(|&y| gens.iter().any(|&w| dot(y, w).abs() > 1e-7));
    let planes: Vec<V3> = if full_rank {
        let facets: Vec<V3> = pairs
            .iter()
            .flat_map(|&y| both(y))
            .filter(|&y| supports(y))
            .collect();
        if facets.is_empty() {
            return None;
        }
        facets
    } else if let Some(&normal) = pairs.first() {
        let mut p: Vec<V3> = both(normal).to_vec();
        p.extend(
            gens.iter()
                .filter_map(|&w| unit(cross(w, normal)))
                .flat_map(both)
                .filter(|&y| supports(y)),
        );
        p
    } else if let Some(&w) = gens.first() {
        let axis = (0..3)
            .min_by(|&a, &b| w[a].abs().total_cmp(&w[b].abs()))
            .unwrap_or(0);
        let mut e = [0.0; 3];
        e[axis] = 1.0;
        let b1 = unit(cross(w, e)).unwrap_or([1.0, 0.0, 0.0]);
        let b2 = cross(w, b1);
        let mut p: Vec<V3> = [both(b1), both(b2)].concat();
        if supports(w) {
            p.push(w);
        }
        p
    } else {
        Vec::new()
    };
    Some(planes)
}

/// The slice at f_z = 1 of the cone `{y·w ≥ 0 : y in planes}` inside the rectangle
/// `[x0, x1] × [t0, t1]`, as a convex polygon (counter-clockwise, no repeated or collinear
/// vertices; a segment or a point when the cone is flat or a ray, empty when it misses).
pub(crate) fn slice(planes: Option<&[V3]>, view: [f64; 4]) -> Vec<[f64; 2]> {
    let mut poly = vec![
        [view[0], view[2]],
        [view[1], view[2]],
        [view[1], view[3]],
        [view[0], view[3]],
    ];
    let Some(planes) = planes else {
        return poly;
    };
    if planes.is_empty() {
        return Vec::new();
    }
    let size = (view[1] - view[0]).abs().max((view[3] - view[2]).abs());
    for &y in planes {
        // y·(x, 1, τ) = y_x x + y_τ τ + y_z ≥ 0
        let f = |p: [f64; 2]| y[0] * p[0] + y[2] * p[1] + y[1];
        let tol = TOL * (1.0 + size);
        let mut out = Vec::with_capacity(poly.len() + 1);
        for k in 0..poly.len() {
            let (a, b) = (poly[k], poly[(k + 1) % poly.len()]);
            let (fa, fb) = (f(a), f(b));
            if fa >= -tol {
                out.push(a);
            }
            if (fa >= -tol) != (fb >= -tol) {
                let t = fa / (fa - fb);
                out.push([a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]);
            }
        }
        poly = out;
        if poly.is_empty() {
            return poly;
        }
    }
    simplify(poly, 1e-9 * (1.0 + size))
}

/// Drops repeated vertices and vertices on the line through their neighbours.
fn simplify(mut poly: Vec<[f64; 2]>, tol: f64) -> Vec<[f64; 2]> {
    let close = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).abs() <= tol && (a[1] - b[1]).abs() <= tol;
    poly.dedup_by(|a, b| close(*a, *b));
    while poly.len() > 1 && close(poly[0], poly[poly.len() - 1]) {
        poly.pop();
    }
    let mut changed = true;
    while changed && poly.len() > 2 {
        changed = false;
        for k in 0..poly.len() {
            let n = poly.len();
            let (a, b, c) = (poly[(k + n - 1) % n], poly[k], poly[(k + 1) % n]);
            let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
            let len = (c[0] - a[0]).hypot(c[1] - a[1]);
            if area.abs() <= tol * len.max(tol) {
                poly.remove(k);
                changed = true;
                break;
            }
        }
    }
    poly
}

/// The unit normal of candidate `index` of docs/contract-planar.md §5 for these generators and need, in f64.
pub(super) fn candidate_normal(index: u32, gens: &[V3], need: V3) -> Option<V3> {
    let g = |i: u32| gens.get(i as usize).copied();
    let sign = |negative: bool, v: V3| if negative { v.map(|x| -x) } else { v };
    let y = match Candidate::at(index)? {
        Candidate::PairPlane { i, j, negative } => sign(negative, cross(g(i)?, g(j)?)),
        Candidate::GeneratorDirection { i, negative } => sign(negative, g(i)?),
        Candidate::Perpendicular { i } => {
            let w = g(i)?;
            let k = dot(need, w) / dot(w, w);
            [0, 1, 2].map(|a| -(need[a] - k * w[a]))
        }
        Candidate::GeneratorPlane { i, axis, negative } => {
            let mut e = [0.0; 3];
            e[axis as usize] = 1.0;
            sign(negative, cross(g(i)?, e))
        }
        Candidate::Apex => need.map(|x| -x),
    };
    unit(y)
}

/// A point on the slice plane of a wrench with `w_z > 0`.
fn on_slice(w: V3) -> Option<[f64; 2]> {
    (w[1] > TOL * dot(w, w).sqrt()).then(|| [w[0] / w[1], w[2] / w[1]])
}

/// The right panel for `need_index`, the need the picture explains, and notes for the caption.
pub(super) fn panel(
    px: [f64; 4],
    scene: &Scene,
    report: &HoldReport,
    need_index: usize,
) -> (Group, Vec<String>) {
    let gens = scene.generators_f64();
    let needs: Vec<[f64; 2]> = report
        .needs
        .iter()
        .filter_map(|n| on_slice(n.need.map(f64::from)))
        .collect();
    let points: Vec<(usize, [f64; 2])> = gens
        .iter()
        .enumerate()
        .filter_map(|(k, &w)| on_slice(w).map(|p| (k, p)))
        .collect();

    // The view: the needs, the origin and the generators' points (far ones left out).
    let mut b = [-0.5f64, 0.5, -0.5, 0.5];
    let reach = needs
        .iter()
        .fold(1.0f64, |m, p| m.max(p[0].abs()).max(p[1].abs()));
    for p in needs.iter().chain(points.iter().map(|(_, p)| p)) {
        if p[0].abs() <= 4.0 * reach && p[1].abs() <= 4.0 * reach {
            b = [
                b[0].min(p[0]),
                b[1].max(p[0]),
                b[2].min(p[1]),
                b[3].max(p[1]),
            ];
        }
    }
    let pad = 0.15 * (b[1] - b[0]).max(b[3] - b[2]);
    let frame = Frame::fit(px, [b[0] - pad, b[1] + pad, b[2] - pad, b[3] + pad]);
    let planes = half_spaces(&gens);
    let poly = slice(planes.as_deref(), frame.world);

    let mut g = Group::new()
        .set("class", "plot")
        .set("clip-path", "url(#cone-clip)");
    // Zero lines.
    let [x0, x1, y0, y1] = frame.world;
    g = g
        .add(
            line(frame.at([x0, 0.0]), frame.at([x1, 0.0]), style::AXIS, 0.5)
                .set("stroke-dasharray", "2 3"),
        )
        .add(
            line(frame.at([0.0, y0]), frame.at([0.0, y1]), style::AXIS, 0.5)
                .set("stroke-dasharray", "2 3"),
        );
    if !poly.is_empty() {
        let pts: Vec<String> = poly
            .iter()
            .map(|&p| {
                let q = frame.at(p);
                format!("{},{}", r(q[0]), r(q[1]))
            })
            .collect();
        g = g.add(
            Polygon::new()
                .set("class", "cone-slice")
                .set("points", pts.join(" "))
                .set("fill", style::SLICE_FILL)
                .set("fill-opacity", 0.8)
                .set("stroke", style::CONTACT)
                .set("stroke-width", 2)
                .set("stroke-linejoin", "round"),
        );
    }
    // Generators at one point (a point contact's two "endpoints") share a dot and a label.
    let mut dots: Vec<([f64; 2], Vec<usize>)> = Vec::new();
    for &(k, p) in points.iter().filter(|(_, p)| frame.contains(*p)) {
        let q = frame.at(p);
        match dots
            .iter_mut()
            .find(|(d, _)| (d[0] - q[0]).hypot(d[1] - q[1]) < 1.0)
        {
            Some((_, ks)) => ks.push(k),
            None => dots.push((q, vec![k])),
        }
    }
    for (q, ks) in dots {
        let names: Vec<String> = ks.iter().map(|k| format!("w{k}")).collect();
        g = g
            .add(
                Circle::new()
                    .set("class", "generator")
                    .set("cx", r(q[0]))
                    .set("cy", r(q[1]))
                    .set("r", 2.5)
                    .set("fill", style::CONTACT),
            )
            .add(
                label(
                    &names.join(", "),
                    [q[0] + 5.0, q[1] - 5.0],
                    "start",
                    style::CONTACT,
                )
                .set("font-size", 10)
                .set("class", "generator-label"),
            );
    }
    // Generators that do not push up: the directions in which they stretch the slice,
    // drawn from its centre.
    let centre = match poly.len() {
        0 => [0.0, 0.0],
        n => poly.iter().fold([0.0, 0.0], |c, p| {
            [c[0] + p[0] / n as f64, c[1] + p[1] / n as f64]
        }),
    };
    let span = (x1 - x0).min(y1 - y0);
    // One arrow per direction; generators along the same one share it and its label.
    let mut directions: Vec<([f64; 2], Vec<usize>)> = Vec::new();
    for (k, &w) in gens.iter().enumerate() {
        if on_slice(w).is_some() {
            continue;
        }
        // From a slice point s, adding t·w moves (s + t w_xτ) / (1 + t w_z): direction w_xτ − w_z s.
        let d = [w[0] - w[1] * centre[0], w[2] - w[1] * centre[1]];
        let n = d[0].hypot(d[1]);
        if n < 1e-9 {
            continue;
        }
        let tip = frame.at([
            centre[0] + 0.2 * span * d[0] / n,
            centre[1] + 0.2 * span * d[1] / n,
        ]);
        match directions
            .iter_mut()
            .find(|(t, _)| (t[0] - tip[0]).hypot(t[1] - tip[1]) < 3.0)
        {
            Some((_, ks)) => ks.push(k),
            None => directions.push((tip, vec![k])),
        }
    }
    for (t, ks) in directions {
        let names: Vec<String> = ks.iter().map(|k| format!("w{k}")).collect();
        g = g
            .add(
                arrow(frame.at(centre), t, style::CONTACT, 1.2)
                    .set("class", "unbounded-direction")
                    .set("stroke-dasharray", "4 2"),
            )
            .add(
                label(
                    &names.join(", "),
                    [t[0] + 3.0, t[1] - 3.0],
                    "start",
                    style::CONTACT,
                )
                .set("font-size", 10)
                .set("class", "generator-label"),
            );
    }
    // The binding facet of the need the picture explains.
    let need_report = &report.needs[need_index];
    if let Some(binding) = &need_report.binding {
        let need = need_report.need.map(f64::from);
        if let Some(y) = candidate_normal(binding.candidate, &gens, need) {
            if let Some((a, b)) = clip_line(y, frame.world) {
                g = g.add(
                    line(frame.at(a), frame.at(b), style::FAILURE, 2.0)
                        .set("class", "binding-facet")
                        .set("stroke-dasharray", "6 3"),
                );
            }
        }
    }
    for (k, n) in report.needs.iter().enumerate() {
        let Some(p) = on_slice(n.need.map(f64::from)) else {
            continue;
        };
        let q = frame.at(p);
        let colour = if n.verdict == "supported" {
            style::NEED
        } else {
            style::FAILURE
        };
        let radius = if k == need_index { 5.0 } else { 3.5 };
        g = g.add(
            Circle::new()
                .set("class", format!("need {}", n.verdict))
                .set("cx", r(q[0]))
                .set("cy", r(q[1]))
                .set("r", radius)
                .set("fill", colour)
                .set("stroke", "#ffffff")
                .set("stroke-width", 1),
        );
    }
    let mut notes = Vec::new();
    if planes.is_none() {
        notes.push(
            "Wrench cone: the contacts' wrenches fill every direction (any need is held)."
                .to_string(),
        );
    } else if poly.is_empty() {
        notes
            .push("Wrench cone: its slice at f_z = 1 is empty (no contact pushes up).".to_string());
    } else if touches_view(&poly, frame.world) {
        notes.push(
            "Wrench cone: the slice is unbounded (contacts that do not push up stretch it, dashed arrows); drawn as far as the view."
                .to_string(),
        );
    }
    // Everything but the axes is clipped to the panel: unbounded slices and far lines stop there.
    let clip = ClipPath::new().set("id", "cone-clip").add(
        Rectangle::new()
            .set("x", r(px[0]))
            .set("y", r(px[1]))
            .set("width", r(px[2]))
            .set("height", r(px[3])),
    );
    let panel = frame
        .tag(Group::new().set("class", "cone-panel"))
        .add(Definitions::new().add(clip))
        .add(frame.axes("f_x / (m0·g)", "τ / (m0·g·ℓ)   at f_z = 1"))
        .add(g);
    (panel, notes)
}

/// Whether a polygon reaches the border of the view (then the view cut it).
fn touches_view(poly: &[[f64; 2]], view: [f64; 4]) -> bool {
    let tol = 1e-9 * (1.0 + (view[1] - view[0]).abs());
    poly.iter().any(|p| {
        (p[0] - view[0]).abs() <= tol
            || (p[0] - view[1]).abs() <= tol
            || (p[1] - view[2]).abs() <= tol
            || (p[1] - view[3]).abs() <= tol
    })
}

/// The part of the line `y_x x + y_τ τ + y_z = 0` inside the view, if any.
fn clip_line(y: V3, view: [f64; 4]) -> Option<([f64; 2], [f64; 2])> {
    let (a, c, b) = (y[0], y[2], y[1]);
    let mut hits: Vec<[f64; 2]> = Vec::new();
    if c.abs() > 1e-12 {
        for x in [view[0], view[1]] {
            let t = -(a * x + b) / c;
            if t >= view[2] && t <= view[3] {
                hits.push([x, t]);
            }
        }
    }
    if a.abs() > 1e-12 {
        for t in [view[2], view[3]] {
            let x = -(c * t + b) / a;
            if x >= view[0] && x <= view[1] {
                hits.push([x, t]);
            }
        }
    }
    let first = *hits.first()?;
    let far = hits.iter().copied().max_by(|p, q| {
        let d = |s: &[f64; 2]| (s[0] - first[0]).hypot(s[1] - first[1]);
        d(p).total_cmp(&d(q))
    })?;
    Some((first, far))
}

#[cfg(test)]
mod tests {
    use super::{half_spaces, slice};

    #[test]
    fn unbounded_slices_are_cut_at_the_view_and_full_cones_fill_it() {
        let view = [-1.0, 1.0, -1.0, 1.0];
        // C = R³: no supporting plane.
        assert!(half_spaces(&[
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0]
        ])
        .is_none());
        assert_eq!(slice(None, view).len(), 4);
        // One upward point generator and a sideways one (f_z = 0): a ray from (0, 0.5) along +x.
        let planes = half_spaces(&[[0.0, 1.0, 0.5], [1.0, 0.0, 0.0]]).unwrap();
        let poly = slice(Some(&planes), view);
        let xs: Vec<f64> = poly.iter().map(|p| p[0]).collect();
        assert!(poly.iter().all(|p| (p[1] - 0.5).abs() < 1e-9), "{poly:?}");
        assert!(xs.iter().any(|&x| x.abs() < 1e-9) && xs.iter().any(|&x| (x - 1.0).abs() < 1e-9));
        // Only a downward generator: empty.
        let planes = half_spaces(&[[0.0, -1.0, 0.0]]).unwrap();
        assert!(slice(Some(&planes), view).is_empty());
        // No generators at all: empty.
        assert!(slice(Some(&half_spaces(&[]).unwrap()), view).is_empty());
    }
}
