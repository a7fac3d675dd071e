//! The gate over both kinds of line: a planar scene or edit (docs/contract-planar.md §8–§9) and a spatial scene
//! (docs/contract-scenes.md), parsed by [`parse_line`] and judged in one batch by [`hold_reports`]:
//! planar needs of at most 16 generators through ONE call of the enumeration, every other
//! need (planar scenes of five body pairs or more, spatial scenes) through ONE call of the
//! general engine a round (`"coulomb"` scenes still undecided go round again with k doubled).

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use super::grasp::{judge_grasp, push_grasp_cases, refine_grasp, GraspReport};
use super::parse::parse_planar;
use super::region::{support_region, SupportRegion};
use super::report::{judge, judge_general, HoldReport};
use super::spatial::SpatialScene;
use super::spatial_parse::{has_dim, has_grasp, parse_grasp, parse_spatial};
use super::spatial_report::{judge_spatial, main_pyramid, push_cases, refine, SpatialReport};
use super::types::Scene;
use crate::general::grasp::{finish, GraspOutcome};
use crate::general::solver::Solver;
use crate::general::{GeneralBatch, GeneralOutcome};
use crate::{Engine, Error};

/// One gate input line: planar (no `dim`) or spatial (`"dim": 3`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SceneLine {
    /// A planar scene or edit (docs/contract-planar.md §8–§9).
    Planar(Scene),
    /// A 3-D body on point, edge and face contacts (docs/contract-spatial.md, docs/contract-scenes.md).
    Spatial(SpatialScene),
    /// A grasp (`"dim": 3, "grasp": true`, docs/contract-spatial.md §6): its contacts, the body
    /// nominal.
    Grasp(SpatialScene),
}

/// The gate's answer to one line.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Report {
    /// A planar scene's.
    Planar(HoldReport),
    /// A spatial scene's.
    Spatial(SpatialReport),
    /// A grasp's.
    Grasp(GraspReport),
}

impl Report {
    /// The line's `id`.
    pub fn id(&self) -> &Value {
        match self {
            Report::Planar(r) => &r.id,
            Report::Spatial(r) => &r.id,
            Report::Grasp(r) => &r.id,
        }
    }

    /// Whether the gate passes.
    pub fn held(&self) -> bool {
        match self {
            Report::Planar(r) => r.held,
            Report::Spatial(r) => r.held,
            Report::Grasp(r) => r.held(),
        }
    }

    /// Not held, but no need certified.
    pub fn uncertain(&self) -> bool {
        match self {
            Report::Planar(r) => r.uncertain,
            Report::Spatial(r) => r.uncertain,
            Report::Grasp(r) => r.uncertain(),
        }
    }

    /// The robust margin, in float64 (a grasp's: its q1).
    pub fn robust_margin(&self) -> f64 {
        match self {
            Report::Planar(r) => r.robust_margin as f64,
            Report::Spatial(r) => r.robust_margin,
            Report::Grasp(r) => r.q1,
        }
    }

    /// Why not held, when not.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Report::Planar(r) => r.reason.as_deref(),
            Report::Spatial(r) => r.reason.as_deref(),
            Report::Grasp(r) => r.reason.as_deref(),
        }
    }

    /// How two reports on one line differ beyond tolerance (`gate --backend both`).
    pub fn disagreement(&self, other: &Report) -> Option<String> {
        match (self, other) {
            (Report::Planar(a), Report::Planar(b)) => a.disagreement(b),
            (Report::Spatial(a), Report::Spatial(b)) => a.disagreement(b),
            (Report::Grasp(a), Report::Grasp(b)) => a.disagreement(b),
            _ => Some("reports of two kinds for one line".into()),
        }
    }
}

/// Parses and validates one JSON line of either kind. The caller adds the line number.
pub fn parse_line(text: &str) -> Result<SceneLine, Error> {
    if has_dim(text) {
        if has_grasp(text) {
            parse_grasp(text).map(SceneLine::Grasp)
        } else {
            parse_spatial(text).map(SceneLine::Spatial)
        }
    } else {
        parse_planar(text).map(SceneLine::Planar)
    }
}

/// A line borrowed, of either kind.
#[derive(Clone, Copy)]
enum LineRef<'a> {
    Planar(&'a Scene),
    Spatial(&'a SpatialScene),
    Grasp(&'a SpatialScene),
}

/// The reports of many lines, in order (see the module's doc for how they are batched).
pub fn hold_reports(engine: &mut Engine, lines: &[SceneLine]) -> Result<Vec<Report>, Error> {
    let refs: Vec<LineRef> = lines
        .iter()
        .map(|l| match l {
            SceneLine::Planar(s) => LineRef::Planar(s),
            SceneLine::Spatial(s) => LineRef::Spatial(s),
            SceneLine::Grasp(s) => LineRef::Grasp(s),
        })
        .collect();
    reports_of(engine, &refs)
}

/// The reports of planar scenes only (the planar page and tools), as [`hold_reports`].
pub fn planar_reports(engine: &mut Engine, scenes: &[Scene]) -> Result<Vec<HoldReport>, Error> {
    let refs: Vec<LineRef> = scenes.iter().map(LineRef::Planar).collect();
    Ok(reports_of(engine, &refs)?
        .into_iter()
        .filter_map(|r| match r {
            Report::Planar(r) => Some(r),
            Report::Spatial(_) | Report::Grasp(_) => None,
        })
        .collect())
}

/// Where a line's cases sit in the batches, and (spatial) at how many edges.
#[derive(Clone, Copy)]
enum Slot {
    Planar { at: usize, n: usize },
    General { at: usize, n: usize },
    Spatial { at: usize, n: usize, k: usize },
    Grasp { at: usize, n: usize },
}

fn reports_of(engine: &mut Engine, lines: &[LineRef]) -> Result<Vec<Report>, Error> {
    let mut cases = Vec::new();
    let mut general = GeneralBatch::new();
    let mut slots = Vec::with_capacity(lines.len());
    for line in lines {
        slots.push(match *line {
            LineRef::Planar(s) if s.is_general() => {
                let at = general.len();
                let g: Vec<f64> = s.generators_f64().concat();
                for (m, x) in s.need_points() {
                    general.push(3, &g, &s.body.need(m, x))?;
                }
                Slot::General {
                    at,
                    n: general.len() - at,
                }
            }
            LineRef::Planar(s) => {
                let c = s.cases()?;
                let at = cases.len();
                cases.extend(c);
                Slot::Planar {
                    at,
                    n: cases.len() - at,
                }
            }
            LineRef::Spatial(s) => {
                let at = general.len();
                let n = push_cases(&mut general, s, s.pyramid)?;
                Slot::Spatial {
                    at,
                    n,
                    k: s.pyramid,
                }
            }
            LineRef::Grasp(s) => {
                let at = general.len();
                let n = push_grasp_cases(&mut general, s, s.pyramid)?;
                Slot::Grasp { at, n }
            }
        });
    }
    let outcomes = engine.evaluate(&cases)?;
    if outcomes.len() != cases.len() {
        return Err(Error::Gpu(format!(
            "{} outcomes for {} cases",
            outcomes.len(),
            cases.len()
        )));
    }
    let mut general_outcomes = vec![GeneralOutcome::default(); general.len()];
    if !general.is_empty() {
        engine.evaluate_general_into(&general, &mut general_outcomes)?;
    }
    // "coulomb" scenes still undecided: again with k doubled, all in one batch a round.
    let mut finals: Vec<Option<(usize, Vec<GeneralOutcome>)>> = vec![None; lines.len()];
    let mut pending: Vec<(usize, usize)> = Vec::new();
    for (i, (line, slot)) in lines.iter().zip(&slots).enumerate() {
        if let (LineRef::Spatial(s), Slot::Spatial { at, n, k }) = (line, *slot) {
            let o = &general_outcomes[at..at + n];
            match refine(s, k, o) {
                Some(next) => pending.push((i, next)),
                None => finals[i] = Some((k, o.to_vec())),
            }
        }
    }
    while !pending.is_empty() {
        let mut batch = GeneralBatch::new();
        let mut at = Vec::with_capacity(pending.len());
        for &(i, k) in &pending {
            let LineRef::Spatial(s) = lines[i] else {
                unreachable!("only spatial lines refine")
            };
            at.push((batch.len(), push_cases(&mut batch, s, k)?));
        }
        let mut out = vec![GeneralOutcome::default(); batch.len()];
        engine.evaluate_general_into(&batch, &mut out)?;
        let mut next_round = Vec::new();
        for (&(i, k), &(a, n)) in pending.iter().zip(&at) {
            let LineRef::Spatial(s) = lines[i] else {
                unreachable!("only spatial lines refine")
            };
            let o = &out[a..a + n];
            match refine(s, k, o) {
                Some(next) => next_round.push((i, next)),
                None => finals[i] = Some((k, o.to_vec())),
            }
        }
        pending = next_round;
    }
    let grasps = grasp_rounds(engine, lines, &slots, &general, &general_outcomes)?;
    // The support regions: the facets of each spatial scene's main cone at its given k (for
    // "coulomb" the inner pyramids before refining: a region every point of which the
    // true cone holds, and the same whatever k the verdicts needed), on all cores.
    let spatial: Vec<usize> = (0..lines.len())
        .filter(|&i| matches!(lines[i], LineRef::Spatial(_)))
        .collect();
    let regions: Vec<SupportRegion> = spatial
        .par_iter()
        .map_init(Solver::new, |solver, &i| {
            let LineRef::Spatial(s) = lines[i] else {
                unreachable!("filtered to spatial lines")
            };
            let g = s.generators(s.pyramid, main_pyramid(s.friction));
            support_region(solver, &g, s.body.half_size)
        })
        .collect();
    let mut regions = regions.into_iter();
    Ok(lines
        .iter()
        .zip(&slots)
        .enumerate()
        .map(|(i, (line, slot))| match (*line, *slot) {
            (LineRef::Planar(s), Slot::Planar { at, n }) => {
                Report::Planar(judge(s, &outcomes[at..at + n]))
            }
            (LineRef::Planar(s), Slot::General { at, n }) => {
                Report::Planar(judge_general(s, &general_outcomes[at..at + n]))
            }
            (LineRef::Spatial(s), _) => {
                let (k, o) = finals[i].take().expect("every spatial line is final");
                let region = regions.next().unwrap_or_default();
                Report::Spatial(judge_spatial(s, k, &o, region))
            }
            (LineRef::Grasp(s), Slot::Grasp { at, n }) => {
                let first = &grasps.first[at..at + n];
                let last = grasps.last[i].as_ref().map(|(k, o)| (*k, &o[..]));
                Report::Grasp(judge_grasp(s, first, last))
            }
            _ => unreachable!("slots follow the lines"),
        })
        .collect())
}

/// The grasp lines' outcomes, checked: at the line's k (by case, in the first batch's
/// positions), and for `"coulomb"` lines that had to refine, at the last k (by line).
struct GraspRounds {
    first: Vec<GraspOutcome>,
    last: Vec<Option<(usize, Vec<GraspOutcome>)>>,
}

/// Every grasp case of `batch` at `slots` finished and checked ([`finish`], on all cores),
/// then `"coulomb"` grasps still undecided again with k doubled, all in one batch a round.
fn grasp_rounds(
    engine: &mut Engine,
    lines: &[LineRef],
    slots: &[Slot],
    batch: &GeneralBatch,
    outcomes: &[GeneralOutcome],
) -> Result<GraspRounds, Error> {
    let finish_all = |batch: &GeneralBatch, outcomes: &[GeneralOutcome], cases: &[usize]| {
        cases
            .par_iter()
            .map_init(Solver::new, |solver, &c| {
                finish(&batch.get(c), &outcomes[c], solver)
            })
            .collect::<Vec<GraspOutcome>>()
    };
    let cases: Vec<usize> = slots
        .iter()
        .flat_map(|slot| match *slot {
            Slot::Grasp { at, n } => at..at + n,
            _ => 0..0,
        })
        .collect();
    let mut first = vec![GraspOutcome::default(); batch.len()];
    for (&c, o) in cases.iter().zip(finish_all(batch, outcomes, &cases)) {
        first[c] = o;
    }
    let mut last: Vec<Option<(usize, Vec<GraspOutcome>)>> = vec![None; lines.len()];
    let mut pending: Vec<(usize, usize)> = Vec::new();
    for (i, (line, slot)) in lines.iter().zip(slots).enumerate() {
        if let (LineRef::Grasp(s), Slot::Grasp { at, n }) = (line, *slot) {
            if let Some(next) = refine_grasp(s, s.pyramid, &first[at..at + n]) {
                pending.push((i, next));
            }
        }
    }
    while !pending.is_empty() {
        let mut round = GeneralBatch::new();
        let mut at = Vec::with_capacity(pending.len());
        for &(i, k) in &pending {
            let LineRef::Grasp(s) = lines[i] else {
                unreachable!("only grasp lines refine here")
            };
            at.push((round.len(), push_grasp_cases(&mut round, s, k)?));
        }
        let mut out = vec![GeneralOutcome::default(); round.len()];
        engine.evaluate_general_into(&round, &mut out)?;
        let all: Vec<usize> = (0..round.len()).collect();
        let done = finish_all(&round, &out, &all);
        let mut next_round = Vec::new();
        for (&(i, k), &(a, n)) in pending.iter().zip(&at) {
            let LineRef::Grasp(s) = lines[i] else {
                unreachable!("only grasp lines refine here")
            };
            let o = &done[a..a + n];
            if let Some(next) = refine_grasp(s, k, o) {
                next_round.push((i, next));
            }
            last[i] = Some((k, o.to_vec()));
        }
        pending = next_round;
    }
    Ok(GraspRounds { first, last })
}
