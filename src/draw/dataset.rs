//! A data set of grasps in one picture (`planar-hold draw --answers`), as grasp data-set
//! papers plot it: the distribution of q1 (a histogram, bars split by verdict, and the
//! force-closure share), its cumulative distribution for every series of answers (a friction
//! model, or a file), and where two series answer the same grasps (a `"coulomb"` file's
//! inner and outer pyramids, or two files), how q1 moves between them: the grasps binned by
//! both values, against the diagonal.
//!
//! Fed by [`Series`] only (what a file of answers holds: ids, q1, verdicts): reading the
//! files is the CLI's. Elements carry classes (`histogram`, `cdf`, `shift`, `bin`,
//! `series-<k>`) for tests and restyling.

use std::collections::HashMap;

use svg::node::element::{Group, Path, Rectangle};
use svg::Document;

use super::frame::{axes, label, line, r, short, Axis};
use super::page::{page, Caption};
use super::style;

/// A grasp's verdict as its answer says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closure {
    /// Proven in force closure.
    Yes,
    /// Proven out of it.
    No,
    /// Neither: within tolerance, unproven, or undecided between pyramids.
    Uncertain,
    /// The series says nothing of it (an outer pyramid's q1 beside a "coulomb" verdict).
    Unknown,
}

/// One series of answers: a name, and for each answered grasp its id (as JSON text), q1 and
/// verdict.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// What the series is ("inner, k = 8", or its file's name).
    pub name: String,
    /// Each grasp's id, as JSON text (pairs grasps across series).
    pub ids: Vec<String>,
    /// Each grasp's q1.
    pub q1: Vec<f64>,
    /// Each grasp's verdict.
    pub closure: Vec<Closure>,
    /// How many of its q1 are an upper bound only (a threshold's search stopped once it
    /// decided, or a bound that did not close): drawn at that bound, and counted in the
    /// series' label.
    pub upper_bounds: usize,
}

impl Series {
    /// The name, and how many q1 are upper bounds where there are any (legend and caption).
    fn label(&self) -> String {
        match self.upper_bounds {
            0 => self.name.clone(),
            n => format!("{} (q1 an upper bound on {})", self.name, count(n)),
        }
    }
}

/// What the picture shows: the series, in order (the first is the histogram's), the rows
/// refused in the files (answered with an error), and where the answers came from.
#[derive(Clone, Debug, Default)]
pub struct DataSet {
    /// The series of answers.
    pub series: Vec<Series>,
    /// Refused rows, over every file.
    pub refused: usize,
    /// The files read, for the title.
    pub source: String,
}

/// The colours of the series, in order (then again).
const SERIES: [&str; 4] = [style::CONTACT, style::FAILURE, style::FRICTION, style::NEED];
const HISTOGRAM: [f64; 4] = [80.0, 60.0, 380.0, 260.0];
const CDF: [f64; 4] = [570.0, 60.0, 380.0, 260.0];
const SHIFT: [f64; 4] = [80.0, 380.0, 300.0, 300.0];
const CHANGE: [f64; 4] = [570.0, 380.0, 380.0, 300.0];
/// Two q1 closer than this (relative to 1 or their size) count as the same (the general
/// engine's tolerance).
const SAME: f64 = 1e-9;
/// Bins of the histogram, and of the shift's grid along each axis.
const BINS: usize = 60;
const GRID: usize = 50;
/// Points of each CDF line.
const CDF_POINTS: usize = 400;
/// The share of grasps left out at each end of the histogram's range (counted in its end
/// bins): a few outliers do not squash the rest.
const TAIL: f64 = 1e-3;

/// A plot: a pixel rectangle and the ranges of its axes, each its own scale.
#[derive(Clone, Copy)]
struct Plot {
    px: [f64; 4],
    x: [f64; 2],
    y: [f64; 2],
}

impl Plot {
    fn at(&self, x: f64, y: f64) -> [f64; 2] {
        let [left, top, w, h] = self.px;
        [
            left + w * (x - self.x[0]) / (self.x[1] - self.x[0]),
            top + h - h * (y - self.y[0]) / (self.y[1] - self.y[0]),
        ]
    }

    /// Border, ticks and numbers on both axes, the axes' names.
    fn axes(&self, x_name: &str, y_name: &str) -> Group {
        axes(
            self.px,
            Axis::new(self.x, |v| self.at(v, self.y[0])[0], x_name),
            Axis::new(self.y, |v| self.at(self.x[0], v)[1], y_name),
            48.0,
        )
    }
}

/// The value at quantile `p` of sorted values.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let k = (p * (sorted.len() - 1) as f64).round() as usize;
    sorted[k.min(sorted.len() - 1)]
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_by(f64::total_cmp);
    s
}

/// A range with some room, never empty.
fn padded(lo: f64, hi: f64) -> [f64; 2] {
    let span = (hi - lo).max(1e-9 * hi.abs().max(1.0));
    [lo - 0.02 * span, hi + 0.02 * span]
}

fn percent(part: usize, whole: usize) -> String {
    format!("{:.1} %", 100.0 * part as f64 / whole.max(1) as f64)
}

/// Thousands separated by commas.
fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The histogram of the first series' q1, each bar split by verdict (proven in force
/// closure at the bottom, then uncertain, then out of it), and its caption lines.
fn histogram(s: &Series) -> (Group, Vec<String>) {
    let all = sorted(&s.q1);
    let (lo, hi) = (quantile(&all, TAIL), quantile(&all, 1.0 - TAIL));
    let [lo, hi] = if hi > lo { [lo, hi] } else { padded(lo, hi) };
    let width = (hi - lo) / BINS as f64;
    let mut bins = vec![[0usize; 3]; BINS];
    for (&q, &c) in s.q1.iter().zip(&s.closure) {
        if !q.is_finite() {
            continue;
        }
        let b = (((q - lo) / width).floor().max(0.0) as usize).min(BINS - 1);
        let k = match c {
            Closure::Yes => 0,
            Closure::Uncertain => 1,
            Closure::No | Closure::Unknown => 2,
        };
        bins[b][k] += 1;
    }
    let n = all.len().max(1);
    let top = bins
        .iter()
        .map(|b| b.iter().sum::<usize>())
        .max()
        .unwrap_or(0);
    let y_top = 100.0 * top as f64 / n as f64 * 1.08;
    let plot = Plot {
        px: HISTOGRAM,
        x: [lo, hi],
        y: [0.0, y_top.max(1e-9)],
    };
    let mut g = Group::new()
        .set("class", "histogram")
        .add(plot.axes("q1", "grasps (% a bin)"));
    let colours = [style::CONTACT, style::FORCE, style::GHOST_AFTER];
    let classes = ["bin closure", "bin uncertain", "bin open"];
    for (b, counts) in bins.iter().enumerate() {
        let x0 = lo + b as f64 * width;
        let mut below = 0usize;
        for k in 0..3 {
            if counts[k] == 0 {
                continue;
            }
            let share = |c: usize| 100.0 * c as f64 / n as f64;
            let a = plot.at(x0, share(below + counts[k]));
            let z = plot.at(x0 + width, share(below));
            g = g.add(
                Rectangle::new()
                    .set("class", classes[k])
                    .set("x", r(a[0]))
                    .set("y", r(a[1]))
                    .set("width", r(z[0] - a[0]))
                    .set("height", r(z[1] - a[1]))
                    .set("fill", colours[k])
                    .set("stroke", "#ffffff")
                    .set("stroke-width", 0.5)
                    .set("data-count", counts[k]),
            );
            below += counts[k];
        }
    }
    if lo < 0.0 && hi > 0.0 {
        let (a, b) = (plot.at(0.0, 0.0), plot.at(0.0, plot.y[1]));
        g = g.add(line(a, b, style::TEXT, 1.0).set("stroke-dasharray", "3 3"));
    }
    let legend = [
        (style::CONTACT, "in force closure"),
        (style::FORCE, "uncertain"),
        (style::GHOST_AFTER, "not"),
    ];
    for (k, (colour, text)) in legend.iter().enumerate() {
        let at = [HISTOGRAM[0] + 10.0 + 120.0 * k as f64, HISTOGRAM[1] - 10.0];
        g = g.add(
            Rectangle::new()
                .set("x", r(at[0]))
                .set("y", r(at[1] - 9.0))
                .set("width", 10)
                .set("height", 10)
                .set("fill", *colour),
        );
        g = g.add(label(text, [at[0] + 14.0, at[1]], "start", style::TEXT));
    }
    let closed = s.closure.iter().filter(|&&c| c == Closure::Yes).count();
    let uncertain = s
        .closure
        .iter()
        .filter(|&&c| c == Closure::Uncertain)
        .count();
    let lines = vec![format!(
        "{}: {} grasps; in force closure {} ({}), uncertain {} ({}); q1 median {}, \
             quartiles {} and {}.",
        s.label(),
        count(s.q1.len()),
        count(closed),
        percent(closed, s.q1.len()),
        count(uncertain),
        percent(uncertain, s.q1.len()),
        short(quantile(&all, 0.5)),
        short(quantile(&all, 0.25)),
        short(quantile(&all, 0.75)),
    )];
    (g, lines)
}

/// Every series' cumulative distribution of q1.
fn cdf(series: &[Series]) -> Group {
    let sorted: Vec<Vec<f64>> = series.iter().map(|s| sorted(&s.q1)).collect();
    let lo = sorted
        .iter()
        .map(|s| quantile(s, TAIL))
        .fold(f64::INFINITY, f64::min);
    let hi = sorted
        .iter()
        .map(|s| quantile(s, 1.0 - TAIL))
        .fold(f64::NEG_INFINITY, f64::max);
    let plot = Plot {
        px: CDF,
        x: if hi > lo { [lo, hi] } else { padded(lo, hi) },
        y: [0.0, 1.0],
    };
    let mut g = Group::new()
        .set("class", "cdf")
        .add(plot.axes("q1", "share of grasps with q1 at most x"));
    for (k, s) in sorted.iter().enumerate() {
        if s.is_empty() {
            continue;
        }
        let colour = SERIES[k % SERIES.len()];
        let mut d = String::new();
        for j in 0..=CDF_POINTS {
            let p = j as f64 / CDF_POINTS as f64;
            let x = quantile(s, p).clamp(plot.x[0], plot.x[1]);
            let at = plot.at(x, p);
            d.push_str(&format!(
                "{}{} {} ",
                if j == 0 { "M" } else { "L" },
                r(at[0]),
                r(at[1])
            ));
        }
        g = g.add(
            Path::new()
                .set("class", format!("series-{k}"))
                .set("d", d.trim_end())
                .set("fill", "none")
                .set("stroke", colour)
                .set("stroke-width", 2),
        );
        let at = [CDF[0] + 10.0, CDF[1] + 18.0 + 16.0 * k as f64];
        g = g.add(line(at, [at[0] + 18.0, at[1]], colour, 2.0));
        g = g.add(label(
            &series[k].label(),
            [at[0] + 24.0, at[1] + 4.0],
            "start",
            style::TEXT,
        ));
    }
    if plot.x[0] < 0.0 && plot.x[1] > 0.0 {
        let (a, b) = (plot.at(0.0, 0.0), plot.at(0.0, 1.0));
        g = g.add(line(a, b, style::TEXT, 1.0).set("stroke-dasharray", "3 3"));
    }
    g
}

/// The grasps both series answer, as (q1 of the first, q1 of the second) and whether each
/// is in force closure there: by row where the ids run alike, else by id.
fn pairs(a: &Series, b: &Series) -> Vec<([f64; 2], [Closure; 2])> {
    if a.ids == b.ids {
        return (0..a.q1.len())
            .map(|i| ([a.q1[i], b.q1[i]], [a.closure[i], b.closure[i]]))
            .collect();
    }
    let at: HashMap<&str, usize> = a
        .ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    b.ids
        .iter()
        .enumerate()
        .filter_map(|(j, id)| {
            let i = *at.get(id.as_str())?;
            Some(([a.q1[i], b.q1[j]], [a.closure[i], b.closure[j]]))
        })
        .collect()
}

/// How q1 moves from the first series to the second on the grasps both answer: the grasps
/// binned by both values (darker: more), the diagonal, and the caption's lines.
fn shift(a: &Series, b: &Series) -> Option<(Group, Vec<String>)> {
    let pairs = pairs(a, b);
    let finite: Vec<[f64; 2]> = pairs
        .iter()
        .map(|(q, _)| *q)
        .filter(|q| q[0].is_finite() && q[1].is_finite())
        .collect();
    if finite.is_empty() {
        return None;
    }
    let both = sorted(&finite.iter().flatten().copied().collect::<Vec<_>>());
    let (lo, hi) = (quantile(&both, TAIL), quantile(&both, 1.0 - TAIL));
    let range = if hi > lo { [lo, hi] } else { padded(lo, hi) };
    let plot = Plot {
        px: SHIFT,
        x: range,
        y: range,
    };
    let cell = (range[1] - range[0]) / GRID as f64;
    let mut grid = vec![0usize; GRID * GRID];
    let bin = |v: f64| (((v - range[0]) / cell).floor().max(0.0) as usize).min(GRID - 1);
    for q in &finite {
        grid[bin(q[1]) * GRID + bin(q[0])] += 1;
    }
    let most = grid.iter().copied().max().unwrap_or(1).max(1) as f64;
    let mut g = Group::new()
        .set("class", "shift")
        .add(plot.axes(&format!("q1, {}", a.name), &format!("q1, {}", b.name)));
    for (k, &c) in grid.iter().enumerate().filter(|(_, &c)| c > 0) {
        let (x, y) = ((k % GRID) as f64, (k / GRID) as f64);
        let p = plot.at(range[0] + x * cell, range[0] + (y + 1.0) * cell);
        let q = plot.at(range[0] + (x + 1.0) * cell, range[0] + y * cell);
        // Shade by the logarithm of the count: one grasp is visible beside a thousand.
        let shade = 0.15 + 0.85 * (1.0 + c as f64).ln() / (1.0 + most).ln();
        g = g.add(
            Rectangle::new()
                .set("class", "bin")
                .set("x", r(p[0]))
                .set("y", r(p[1]))
                .set("width", r(q[0] - p[0]))
                .set("height", r(q[1] - p[1]))
                .set("fill", style::CONTACT)
                .set("fill-opacity", r(shade))
                .set("data-count", c),
        );
    }
    let (d0, d1) = (plot.at(range[0], range[0]), plot.at(range[1], range[1]));
    g = g.add(line(d0, d1, style::TEXT, 1.0).set("stroke-dasharray", "4 3"));
    let n = finite.len();
    let apart = |q: &&[f64; 2]| (q[1] - q[0]).abs() > SAME * q[0].abs().max(q[1].abs()).max(1.0);
    let up = finite.iter().filter(apart).filter(|q| q[1] > q[0]).count();
    let down = finite.iter().filter(apart).filter(|q| q[1] < q[0]).count();
    let mut relative: Vec<f64> = finite
        .iter()
        .filter(|q| q[0] > SAME)
        .map(|q| (q[1] - q[0]) / q[0])
        .collect();
    relative.sort_by(f64::total_cmp);
    let change = sorted(&finite.iter().map(|q| q[1] - q[0]).collect::<Vec<_>>());
    g = g.add(changes(&change, &a.name, &b.name));
    let changed = |from: Closure, to: Closure| {
        pairs
            .iter()
            .filter(|(_, c)| c[0] == from && c[1] == to)
            .count()
    };
    let mut lines = vec![format!(
        "{} against {}, on the {} grasps both answer: q1 higher on {} ({}), lower on {} ({}), \
         the same within 1e-9 on the rest; where the first is above 1e-9, the median change is \
         {:+.1} % (quartiles {:+.1} % and {:+.1} %).",
        b.name,
        a.name,
        count(n),
        count(up),
        percent(up, n),
        count(down),
        percent(down, n),
        100.0 * quantile(&relative, 0.5),
        100.0 * quantile(&relative, 0.25),
        100.0 * quantile(&relative, 0.75),
    )];
    let (gained, lost) = (
        changed(Closure::No, Closure::Yes) + changed(Closure::Uncertain, Closure::Yes),
        changed(Closure::Yes, Closure::No) + changed(Closure::Yes, Closure::Uncertain),
    );
    if b.closure.iter().any(|&c| c != Closure::Unknown)
        && a.closure.iter().any(|&c| c != Closure::Unknown)
    {
        lines.push(format!(
            "In force closure in the second and not the first: {}; in the first and not \
             the second: {}.",
            count(gained),
            count(lost)
        ));
    }
    Some((g, lines))
}

/// The histogram of the change of q1, second − first, over the grasps both answer (sorted).
fn changes(change: &[f64], first: &str, second: &str) -> Group {
    let mut g = Group::new().set("class", "change");
    if change.is_empty() {
        return g;
    }
    let (lo, hi) = (quantile(change, TAIL), quantile(change, 1.0 - TAIL));
    let [lo, hi] = if hi > lo { [lo, hi] } else { padded(lo, hi) };
    let width = (hi - lo) / BINS as f64;
    let mut bins = vec![0usize; BINS];
    for &x in change {
        bins[(((x - lo) / width).floor().max(0.0) as usize).min(BINS - 1)] += 1;
    }
    let n = change.len() as f64;
    let top = 100.0 * *bins.iter().max().unwrap_or(&0) as f64 / n;
    let plot = Plot {
        px: CHANGE,
        x: [lo, hi],
        y: [0.0, (1.08 * top).max(1e-9)],
    };
    g = g.add(plot.axes(&format!("q1, {second} − q1, {first}"), "grasps (% a bin)"));
    for (b, &c) in bins.iter().enumerate().filter(|(_, &c)| c > 0) {
        let x0 = lo + b as f64 * width;
        let a = plot.at(x0, 100.0 * c as f64 / n);
        let z = plot.at(x0 + width, 0.0);
        g = g.add(
            Rectangle::new()
                .set("class", "bin change")
                .set("x", r(a[0]))
                .set("y", r(a[1]))
                .set("width", r(z[0] - a[0]))
                .set("height", r(z[1] - a[1]))
                .set("fill", SERIES[1])
                .set("stroke", "#ffffff")
                .set("stroke-width", 0.5)
                .set("data-count", c),
        );
    }
    if lo < 0.0 && hi > 0.0 {
        let (a, b) = (plot.at(0.0, 0.0), plot.at(0.0, plot.y[1]));
        g = g.add(line(a, b, style::TEXT, 1.0).set("stroke-dasharray", "3 3"));
    }
    g
}

/// The picture of a data set's answers.
pub(crate) fn picture(data: &DataSet) -> Document {
    let first = data.series.first().cloned().unwrap_or_default();
    // Each series' count where they differ (two files): "1,000 and 200 grasps answered".
    let mut counts: Vec<usize> = data.series.iter().map(|s| s.q1.len()).collect();
    counts.dedup();
    let counts: Vec<String> = counts.into_iter().map(count).collect();
    let title = format!(
        "{}: {} grasps answered{}",
        data.source,
        match counts.split_last() {
            None => "0".to_string(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        },
        if data.refused > 0 {
            format!(", {} rows refused", count(data.refused))
        } else {
            String::new()
        }
    );
    let (hist, mut lines) = histogram(&first);
    let shift = match &data.series[..] {
        [a, b, ..] => shift(a, b),
        _ => None,
    };
    let mut top = HISTOGRAM[1] + HISTOGRAM[3] + 60.0;
    let mut panels = Group::new().add(hist).add(cdf(&data.series));
    if let Some((g, more)) = shift {
        panels = panels.add(g);
        lines.extend(more);
        top = SHIFT[1] + SHIFT[3] + 60.0;
    }
    let legend = "Top left: the grasps of the first series by q1 (the Ferrari–Canny metric: the \
                  largest disturbance wrench resisted in every direction with unit total normal \
                  force; below 0, minus the distance to the wrench space), each bar split by \
                  verdict; the lowest and highest 0.1 % are counted in the end bins. Top right: \
                  the cumulative distribution of q1 for every series. Bottom (where two series \
                  answer the same grasps): left, each grasp by its q1 in both, binned, darker \
                  where more (log scale), on the dashed diagonal q1 is the same; right, the \
                  change of q1 from the first series to the second (the lowest and highest 0.1 % \
                  in the end bins).";
    let caption = Caption::new(top, lines.iter(), legend);
    page(caption.page_height(), &title, [20.0, 30.0], &[])
        .add(panels)
        .add(caption.group())
}

/// The picture as SVG text.
pub fn svg_text(data: &DataSet) -> String {
    picture(data).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(name: &str, q1: &[f64]) -> Series {
        Series {
            name: name.into(),
            ids: (0..q1.len()).map(|i| i.to_string()).collect(),
            q1: q1.to_vec(),
            closure: q1
                .iter()
                .map(|&q| if q > 0.0 { Closure::Yes } else { Closure::No })
                .collect(),
            upper_bounds: 0,
        }
    }

    #[test]
    fn the_histogram_counts_every_grasp_once_and_the_shift_pairs_by_id() {
        let q: Vec<f64> = (0..1000).map(|i| (i as f64 - 300.0) / 1000.0).collect();
        let a = series("inner", &q);
        let mut b = series(
            "outer",
            &q.iter().map(|x| x * 1.1 + 0.05).collect::<Vec<_>>(),
        );
        b.ids.reverse();
        b.q1.reverse();
        b.closure.reverse();
        let text = svg_text(&DataSet {
            series: vec![a.clone(), b.clone()],
            refused: 3,
            source: "test".into(),
        });
        let doc = counted(&text, "bin closure") + counted(&text, "bin open");
        assert_eq!(doc, 1000, "every grasp in one bar");
        assert!(text.contains("3 rows refused"));
        // Paired by id: every grasp moves up (1.1 q1 + 0.05 > q1 for q1 > -0.5).
        let p = pairs(&a, &b);
        assert_eq!(p.len(), 1000);
        assert!(p.iter().all(|(q, _)| q[1] > q[0]));
        assert!(text.contains("higher on 1,000 (100.0 %)"), "{text}");
        assert_eq!(counted(&text, "bin\""), 1000);
    }

    /// The sum of `data-count` over elements whose class attribute starts with `class`.
    fn counted(text: &str, class: &str) -> usize {
        let needle = format!("class=\"{class}");
        text.split("<rect")
            .filter(|e| e.contains(&needle))
            .filter_map(|e| {
                let at = e.find("data-count=\"")? + "data-count=\"".len();
                e[at..].split('"').next()?.parse::<usize>().ok()
            })
            .sum()
    }
}
