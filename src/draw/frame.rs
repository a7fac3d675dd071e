//! Panels: world coordinates to pixels (uniform scale, y up), axes with ticks, arrows, and
//! numbers as the captions write them.

use svg::node::element::{Group, Line, Rectangle, Text};

use super::style;

/// A panel of the picture: the pixel rectangle and the map from world coordinates into it,
/// one scale for both axes (lengths and angles read true).
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    /// Pixel rectangle: left, top, width, height.
    pub px: [f64; 4],
    /// World rectangle shown: x0, x1, y0, y1.
    pub world: [f64; 4],
    /// Pixels per world unit.
    pub scale: f64,
    /// Pixel position of the world origin.
    pub origin: [f64; 2],
}

impl Frame {
    /// The frame showing at least `[x0, x1] × [y0, y1]` centred in the pixel rectangle.
    pub(super) fn fit(px: [f64; 4], bounds: [f64; 4]) -> Frame {
        let w = (bounds[1] - bounds[0]).max(1e-9);
        let h = (bounds[3] - bounds[2]).max(1e-9);
        let scale = (px[2] / w).min(px[3] / h);
        let cx = 0.5 * (bounds[0] + bounds[1]);
        let cy = 0.5 * (bounds[2] + bounds[3]);
        let (hw, hh) = (0.5 * px[2] / scale, 0.5 * px[3] / scale);
        let origin = [
            px[0] + 0.5 * px[2] - cx * scale,
            px[1] + 0.5 * px[3] + cy * scale,
        ];
        Frame {
            px,
            world: [cx - hw, cx + hw, cy - hh, cy + hh],
            scale,
            origin,
        }
    }

    /// Pixel coordinates of a world point.
    pub(super) fn at(&self, p: [f64; 2]) -> [f64; 2] {
        [
            self.origin[0] + self.scale * p[0],
            self.origin[1] - self.scale * p[1],
        ]
    }

    /// Attributes that let a reader (or a test) map pixels back to world coordinates.
    pub(super) fn tag(&self, g: Group) -> Group {
        g.set(
            "data-origin",
            format!("{} {}", r(self.origin[0]), r(self.origin[1])),
        )
        .set("data-scale", self.scale)
    }

    /// The panel's border, ticks and numbers along the bottom and left edges, axis names.
    pub(super) fn axes(&self, x_name: &str, y_name: &str) -> Group {
        let [x0, x1, y0, y1] = self.world;
        axes(
            self.px,
            Axis::new([x0, x1], |v| self.at([v, 0.0])[0], x_name),
            Axis::new([y0, y1], |v| self.at([0.0, v])[1], y_name),
            40.0,
        )
    }

    /// Whether a world point lies inside the shown rectangle.
    pub(super) fn contains(&self, p: [f64; 2]) -> bool {
        p[0] >= self.world[0]
            && p[0] <= self.world[1]
            && p[1] >= self.world[2]
            && p[1] <= self.world[3]
    }
}

/// One axis of a panel: the values shown, the pixel of each, its name.
pub(super) struct Axis<'a, F: Fn(f64) -> f64> {
    range: [f64; 2],
    pixel: F,
    name: &'a str,
}

impl<'a, F: Fn(f64) -> f64> Axis<'a, F> {
    pub(super) fn new(range: [f64; 2], pixel: F, name: &'a str) -> Self {
        Axis { range, pixel, name }
    }
}

/// A panel's border (`px`: left, top, width, height), ticks and numbers along its bottom
/// (`x`) and left (`y`) edges, and the axes' names, the y name turned up `name_gap` px left
/// of the panel.
pub(super) fn axes<X, Y>(px: [f64; 4], x: Axis<'_, X>, y: Axis<'_, Y>, name_gap: f64) -> Group
where
    X: Fn(f64) -> f64,
    Y: Fn(f64) -> f64,
{
    let [left, top, width, height] = px;
    let mut g = Group::new().set("class", "axes").add(
        Rectangle::new()
            .set("x", r(left))
            .set("y", r(top))
            .set("width", r(width))
            .set("height", r(height))
            .set("fill", "none")
            .set("stroke", style::AXIS)
            .set("stroke-width", 1),
    );
    let tick = |g: Group, a: [f64; 2], b: [f64; 2]| g.add(line(a, b, style::AXIS, 1.0));
    let step = nice_step(x.range[1] - x.range[0]);
    for v in ticks(x.range[0], x.range[1], step) {
        let at = (x.pixel)(v);
        g = tick(g, [at, top + height], [at, top + height + 4.0]);
        g = g.add(label(
            &number(v, step),
            [at, top + height + 16.0],
            "middle",
            style::AXIS,
        ));
    }
    let step = nice_step(y.range[1] - y.range[0]);
    for v in ticks(y.range[0], y.range[1], step) {
        let at = (y.pixel)(v);
        g = tick(g, [left - 4.0, at], [left, at]);
        g = g.add(label(
            &number(v, step),
            [left - 6.0, at + 4.0],
            "end",
            style::AXIS,
        ));
    }
    g.add(label(
        x.name,
        [left + 0.5 * width, top + height + 32.0],
        "middle",
        style::TEXT,
    ))
    .add(label(y.name, [0.0, 0.0], "middle", style::TEXT).set(
        "transform",
        format!(
            "translate({} {}) rotate(-90)",
            r(left - name_gap),
            r(top + 0.5 * height)
        ),
    ))
}

/// Rounds a pixel coordinate to 0.01 px: short files, exact enough to read back.
pub(super) fn r(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// A tick spacing of 1, 2 or 5 × 10^k giving about five ticks over `span`.
pub(super) fn nice_step(span: f64) -> f64 {
    let raw = (span / 5.0).max(1e-12);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * p)
}

pub(super) fn ticks(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A tick number with as many decimals as the step needs.
pub(super) fn number(v: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    format!("{:.*}", decimals, v + 0.0)
}

/// A number to at most four decimals, no trailing zeros.
pub(super) fn short(v: f64) -> String {
    let s = format!("{:.4}", v + 0.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// A straight line in pixels.
pub(super) fn line(a: [f64; 2], b: [f64; 2], colour: &str, width: f64) -> Line {
    Line::new()
        .set("x1", r(a[0]))
        .set("y1", r(a[1]))
        .set("x2", r(b[0]))
        .set("y2", r(b[1]))
        .set("stroke", colour)
        .set("stroke-width", width)
}

/// An arrow from `a` to `b` in pixels, its head a marker in the arrow's colour.
pub(super) fn arrow(a: [f64; 2], b: [f64; 2], colour: &str, width: f64) -> Line {
    line(a, b, colour, width)
        .set("marker-end", format!("url(#{})", style::marker_id(colour)))
        .set("stroke-linecap", "round")
}

/// Text at a pixel position; `anchor` is "start", "middle" or "end".
pub(super) fn label(text: &str, at: [f64; 2], anchor: &str, colour: &str) -> Text {
    Text::new(text)
        .set("x", r(at[0]))
        .set("y", r(at[1]))
        .set("text-anchor", anchor)
        .set("fill", colour)
        .set("font-size", style::FONT_SIZE)
}
