//! The page both pictures share: its size, the title (a tooltip and the first line), the
//! arrowheads and a white background; under the panels, the caption: its lines, then the
//! legend in smaller grey type, each wrapped to the page.

use svg::node::element::{Definitions, Group, Rectangle, Title};
use svg::Document;

use super::{frame, style};

/// The page's width, in pixels.
const WIDTH: f64 = 1000.0;
const LINE_HEIGHT: f64 = 17.0;
/// Characters per caption line before it wraps (at 12 px, about 6.6 px a character).
const WRAP: usize = 140;

/// The caption under the panels, from `top` down: the lines, then the legend.
pub(super) struct Caption {
    top: f64,
    lines: Vec<String>,
    legend: Vec<String>,
}

impl Caption {
    /// `lines` and `legend`, each wrapped to the page.
    pub(super) fn new<'a>(
        top: f64,
        lines: impl IntoIterator<Item = &'a String>,
        legend: &str,
    ) -> Caption {
        Caption {
            top,
            lines: lines.into_iter().flat_map(|l| wrap(l, WRAP)).collect(),
            legend: wrap(legend, WRAP),
        }
    }

    /// The page's height: the caption's last line and a margin below it.
    pub(super) fn page_height(&self) -> f64 {
        self.top + LINE_HEIGHT * (self.lines.len() + self.legend.len()) as f64 + 16.0
    }

    /// The caption's text.
    pub(super) fn group(&self) -> Group {
        let mut text = Group::new().set("class", "caption");
        let mut y = self.top;
        for l in &self.lines {
            text = text.add(frame::label(l, [20.0, y], "start", style::TEXT));
            y += LINE_HEIGHT;
        }
        for l in &self.legend {
            text = text.add(frame::label(l, [20.0, y], "start", style::AXIS).set("font-size", 11));
            y += LINE_HEIGHT;
        }
        text
    }
}

/// The page, `height` pixels high, before its panels and caption: `title` as its tooltip and
/// its first line (at `title_at`), the arrowheads of the shared arrow colours and of
/// `more_heads`, a white background.
pub(super) fn page(height: f64, title: &str, title_at: [f64; 2], more_heads: &[&str]) -> Document {
    let mut doc = Document::new()
        .set("width", WIDTH)
        .set("height", frame::r(height))
        .set("viewBox", (0, 0, WIDTH, frame::r(height)))
        .set("font-family", style::FONT)
        .add(Title::new(title))
        .add(style::markers());
    for &colour in more_heads {
        doc = doc.add(Definitions::new().add(style::marker(colour)));
    }
    doc.add(
        Rectangle::new()
            .set("class", "background")
            .set("width", "100%")
            .set("height", "100%")
            .set("fill", "#ffffff"),
    )
    .add(
        frame::label(title, title_at, "start", style::TEXT)
            .set("class", "caption title")
            .set("font-size", 16)
            .set("font-weight", "bold"),
    )
}

/// Splits `text` into lines of at most `width` characters at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}
