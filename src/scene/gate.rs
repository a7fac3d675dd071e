//! The gate over both kinds of line: a planar scene or edit (docs/contract-planar.md §8–§9) and a spatial scene
//! (docs/contract-scenes.md), parsed by [`parse_line`] and judged in one batch by [`hold_reports`]:
//! planar needs of at most 16 generators for the enumeration, every other need (planar
//! scenes of five body pairs or more, spatial scenes) for the general engine, all in ONE
//! [`Batch`] a round (`"coulomb"` scenes still undecided go round again with k doubled).
//!
//! Every answer comes from the engine: the cone tests of each round (grasps finished there
//! too) and the support regions (with the engine's solvers). [`hold_reports_async`] is the gate, async
//! as the engine's core is (the page awaits it); [`hold_reports`] blocks on it natively. In
//! between, `plan` turns lines into a round's batch and `judge` turns that batch's
//! [`Answers`] into the reports, or into the next round's plan.

use serde::Serialize;
use serde_json::Value;

use super::grasp::{
    circular_outcome, judge_bracketed, judge_grasp, push_grasp_cases, refine_grasp,
    threshold_outcome, threshold_searched, GraspReport,
};
use super::parse::parse_planar;
use super::region::{support_region, SupportRegion};
use super::report::{judge as judge_planar, judge_general, HoldReport};
use super::spatial::main_pyramid;
use super::spatial::{pyramids, FrictionModel, SpatialScene};
use super::spatial_parse::{parse_grasp, parse_plain_grasp, parse_plain_spatial, parse_spatial};
use super::spatial_report::{every_need, judge_spatial, push_cases, refine, SpatialReport};
use super::types::Scene;
use crate::device::block_on;
use crate::general::circular::{CircularOutcome, Decided};
use crate::general::grasp::GraspOutcome;
use crate::general::proof::Proof;
use crate::general::{GeneralOutcome, GRASP_DIM};
use crate::probe::{probe, Probe};
use crate::{Answers, Batch, Engine, Error, Options};

/// One gate input line: planar (no `dim`) or spatial (`"dim": 3`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SceneLine {
    /// A planar scene or edit (docs/contract-planar.md §8–§9).
    Planar(Scene),
    /// A 3-D body on point, edge and face contacts (docs/contract-spatial.md, docs/contract-scenes.md).
    Spatial(SpatialScene),
    /// A grasp (`"dim": 3, "grasp": true`, docs/contract-grasp.md): its contacts, the body
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
/// A line that names `dim` (and `grasp`) before anything breaks is read by the spatial (or
/// grasp) reader, which says what is wrong with it; the planar reader takes the rest.
pub fn parse_line(text: &str) -> Result<SceneLine, Error> {
    // Planar lines, the most, never name "dim": they skip the probe; a grasp line or a
    // spatial scene's in the plain form is read in one pass without it (the plain spatial
    // reader refuses a line that names "grasp", which the probe then sends to the grasp
    // reader, as it would have).
    let probe = if text.contains("\"dim\"") {
        if let Some(grasp) = parse_plain_grasp(text) {
            return grasp.map(SceneLine::Grasp);
        }
        if let Some(spatial) = parse_plain_spatial(text) {
            return spatial.map(SceneLine::Spatial);
        }
        probe(text.as_bytes())
    } else {
        Probe::default()
    };
    if probe.dim {
        if probe.grasp {
            parse_grasp(text).map(SceneLine::Grasp)
        } else {
            parse_spatial(text).map(SceneLine::Spatial)
        }
    } else {
        parse_planar(text).map(SceneLine::Planar)
    }
}

/// A line borrowed, of either kind: what `plan` takes.
#[derive(Clone, Copy, Debug)]
pub enum Line<'a> {
    /// A planar scene or edit.
    Planar(&'a Scene),
    /// A spatial scene.
    Spatial(&'a SpatialScene),
    /// A grasp.
    Grasp(&'a SpatialScene),
}

impl<'a> From<&'a SceneLine> for Line<'a> {
    fn from(line: &'a SceneLine) -> Line<'a> {
        match line {
            SceneLine::Planar(s) => Line::Planar(s),
            SceneLine::Spatial(s) => Line::Spatial(s),
            SceneLine::Grasp(s) => Line::Grasp(s),
        }
    }
}

impl<'a> From<&'a Scene> for Line<'a> {
    fn from(scene: &'a Scene) -> Line<'a> {
        Line::Planar(scene)
    }
}

/// The reports of many lines, in order (see the module's doc for how they are batched),
/// blocking until done: [`hold_reports_async`] at the native edge.
///
/// # Errors
///
/// Those of [`hold_reports_async`].
pub fn hold_reports<'a, L: Into<Line<'a>>>(
    engine: &Engine,
    lines: impl IntoIterator<Item = L>,
    options: Options,
) -> Result<Vec<Report>, Error> {
    block_on(hold_reports_async(engine, lines, options))
}

/// The gate: every line's report, in order. Each round's cone tests (every need of every
/// line, planar scenes of at most 16 generators for the enumeration, the others for the
/// general engine) go to `engine` in one batch as `options` say; `"coulomb"` lines still
/// undecided go round again with k doubled; then the spatial lines' support regions.
///
/// # Errors
///
/// A case the engines refuse (a non-finite number, too many generators); the engine's.
pub async fn hold_reports_async<'a, L: Into<Line<'a>>>(
    engine: &Engine,
    lines: impl IntoIterator<Item = L>,
    options: Options,
) -> Result<Vec<Report>, Error> {
    let mut plan = plan(lines, options)?;
    loop {
        let answers = engine.evaluate_async(plan.batch(), options).await?;
        match judge(engine, plan, &answers, options)? {
            Judged::Reports(reports) => return Ok(reports),
            Judged::Again(next) => plan = next,
        }
    }
}

/// Where a line's cases sit in a round's batch, and (spatial) at how many edges.
#[derive(Clone, Copy)]
enum Slot {
    Planar {
        at: usize,
        n: usize,
    },
    General {
        at: usize,
        n: usize,
    },
    Spatial {
        at: usize,
        n: usize,
        k: usize,
    },
    Grasp {
        at: usize,
        n: usize,
        k: usize,
    },
    /// A pyramid grasp's threshold, searched on its wrenches alone (no case).
    Threshold,
}

/// What a line's judgement holds between rounds.
enum State {
    /// Its cases are in this round's batch, at the slot.
    Asked(Slot),
    /// A `"coulomb"` grasp asked again at a finer k (the slot), with its outcomes at the
    /// line's own k (what the report's q1 and direction are).
    GraspAgain {
        slot: Slot,
        first: Vec<GraspOutcome>,
        proof: Option<Proof>,
    },
    /// Judged (boxed: a report is much larger than the other states).
    Done(Box<Report>),
    /// A spatial line decided at `k` edges, its outcomes kept for the report (which also
    /// needs its support region, computed with all of them at the end).
    Decided {
        k: usize,
        outcomes: Vec<GeneralOutcome>,
        proofs: Vec<Option<Proof>>,
    },
}

/// One round of the gate: the cone tests its lines need ([`Plan::batch`], for an engine to
/// answer) and what [`judge`] needs to read the answers.
struct Plan<'a> {
    lines: Vec<Line<'a>>,
    states: Vec<State>,
    batch: Batch,
}

impl Plan<'_> {
    /// The round's cone tests, of both kinds: answer them all, in one call.
    fn batch(&self) -> &Batch {
        &self.batch
    }
}

/// What [`judge`] made of a round's answers.
enum Judged<'a> {
    /// Every line's report, in order.
    Reports(Vec<Report>),
    /// Some lines go round again (`"coulomb"` scenes undecided, with k doubled): answer
    /// this plan's batch and judge again.
    Again(Plan<'a>),
}

/// The first round of `lines`: every need of every line in one batch, planar scenes of at
/// most 16 generators for the enumeration, the others for the general engine.
///
/// # Errors
///
/// A case the engines refuse (a non-finite number, too many generators).
fn plan<'a, L: Into<Line<'a>>>(
    lines: impl IntoIterator<Item = L>,
    options: Options,
) -> Result<Plan<'a>, Error> {
    let lines: Vec<Line<'a>> = lines.into_iter().map(Into::into).collect();
    let mut batch = Batch::default();
    let (cases, values) = lines.iter().fold((0, 0), |(c, v), line| {
        let (dc, dv) = general_size(line);
        (c + dc, v + dv)
    });
    batch.general.reserve(cases, values);
    let mut states = Vec::with_capacity(lines.len());
    for line in &lines {
        let slot = match *line {
            Line::Planar(s) if s.is_general() => {
                let at = batch.general.len();
                let g: Vec<f64> = s.generators_f64().concat();
                for (m, x) in s.need_points() {
                    batch.push_general(3, &g, &s.body.need(m, x))?;
                }
                Slot::General {
                    at,
                    n: batch.general.len() - at,
                }
            }
            Line::Planar(s) => {
                let at = batch.planar.len();
                batch.planar.extend(s.cases()?);
                Slot::Planar {
                    at,
                    n: batch.planar.len() - at,
                }
            }
            Line::Spatial(s) => spatial_slot(&mut batch, s, s.pyramid)?,
            Line::Grasp(s) if threshold_searched(s, options.proof) => Slot::Threshold,
            Line::Grasp(s) => grasp_slot(&mut batch, s, s.pyramid)?,
        };
        states.push(State::Asked(slot));
    }
    Ok(Plan {
        lines,
        states,
        batch,
    })
}

/// The general cases a spatial or grasp line first asks, and their numbers (needs and
/// generators), as [`plan`] will push them (others: none counted).
fn general_size(line: &Line<'_>) -> (usize, usize) {
    let (s, dim, cases) = match *line {
        Line::Spatial(s) => (s, 6, s.asked_needs().0.len()),
        Line::Grasp(s) => (s, GRASP_DIM, 1),
        Line::Planar(_) => return (0, 0),
    };
    // A cone once per pyramid, its needs beside it (`push_cases`).
    let cones = pyramids(s.friction).len();
    let cases = cases * cones;
    (cases, dim * (cases + cones * s.generator_count(s.pyramid)))
}

/// Whether a threshold's bracketed search ended without answering: its bracket open and
/// the threshold or force closure still uncertain (it stops early only once both are
/// decided).
fn undecided(c: &CircularOutcome) -> bool {
    !c.closed && (c.at_least == Some(Decided::Uncertain) || c.force_closure == Decided::Uncertain)
}

fn spatial_slot(batch: &mut Batch, s: &SpatialScene, k: usize) -> Result<Slot, Error> {
    let at = batch.general.len();
    let n = push_cases(&mut batch.general, s, k)?;
    Ok(Slot::Spatial { at, n, k })
}

fn grasp_slot(batch: &mut Batch, s: &SpatialScene, k: usize) -> Result<Slot, Error> {
    let at = batch.general.len();
    let n = push_grasp_cases(&mut batch.general, s, k)?;
    Ok(Slot::Grasp { at, n, k })
}

/// Reads a round's answers (to `plan.batch()`): each line judged, or (a `"coulomb"` scene
/// still undecided) planned again with k doubled. When no line goes round again, the
/// reports, with the spatial scenes' support regions (with `engine`'s solvers, as `options`
/// say).
///
/// # Errors
///
/// [`Error::Gpu`] when the answers do not fit the batch (one per case); the case errors of
/// [`plan`] for the next round.
fn judge<'a>(
    engine: &Engine,
    plan: Plan<'a>,
    answers: &Answers,
    options: Options,
) -> Result<Judged<'a>, Error> {
    let Plan {
        lines,
        mut states,
        batch,
    } = plan;
    if !answers.fit(&batch) {
        return Err(Error::Gpu(format!(
            "{} + {} outcomes for {} + {} cases",
            answers.planar.len(),
            answers.general.len(),
            batch.planar.len(),
            batch.general.len()
        )));
    }
    let grasps = &answers.grasps;
    // The bracketed searches (docs/contract-grasp.md): the circular lines' (milliseconds
    // each, where a pyramid's judging is microseconds), from their inner pyramids' outcome,
    // and the pyramid lines' thresholds, from their wrenches; on the threads `options`
    // names, before the lines are judged in order.
    let searched: Vec<(&SpatialScene, Option<&GraspOutcome>)> = lines
        .iter()
        .zip(&states)
        .filter_map(|(line, state)| match (line, state) {
            (Line::Grasp(s), State::Asked(Slot::Grasp { at, .. }))
                if s.friction == FrictionModel::Circular =>
            {
                grasps.get(*at).map(|o| (*s, Some(o)))
            }
            (Line::Grasp(s), State::Asked(Slot::Threshold)) => Some((*s, None)),
            _ => None,
        })
        .collect();
    let mut found = vec![CircularOutcome::default(); searched.len()];
    engine.each_with_solver(&mut found, options, 1, |_, i, out| {
        *out = match searched[i] {
            (s, Some(pyramid)) => circular_outcome(s, pyramid, options.proof),
            (s, None) => threshold_outcome(s),
        };
        0
    });
    let mut found = found.into_iter();
    let mut next = Batch::default();
    for (line, state) in lines.iter().zip(&mut states) {
        let (slot, first) =
            match std::mem::replace(state, State::Asked(Slot::Planar { at: 0, n: 0 })) {
                State::Asked(slot) => (slot, None),
                State::GraspAgain { slot, first, proof } => (slot, Some((first, proof))),
                other => {
                    *state = other;
                    continue;
                }
            };
        *state = match (*line, slot) {
            (Line::Grasp(s), Slot::Grasp { at, n, k }) => {
                let now = &grasps[at..at + n];
                let proof = answers.proofs.get(at).cloned().flatten();
                match refine_grasp(s, k, now) {
                    Some(k) => {
                        let (first, proof) = first.unwrap_or_else(|| (now.to_vec(), proof));
                        State::GraspAgain {
                            slot: grasp_slot(&mut next, s, k)?,
                            first,
                            proof,
                        }
                    }
                    None => {
                        let circular = (s.friction == FrictionModel::Circular)
                            .then(|| found.next())
                            .flatten();
                        let report = match first {
                            Some((first, proof)) => {
                                judge_grasp(s, &first, Some((k, now)), proof, circular)
                            }
                            None => judge_grasp(s, now, None, proof, circular),
                        };
                        State::Done(Box::new(Report::Grasp(report)))
                    }
                }
            }
            (Line::Grasp(s), Slot::Threshold) => {
                let c = found.next().unwrap_or_default();
                // A search that stopped short (its inner hull could not take a point): the
                // engine's closed q1 answers the line instead, next round.
                let again = undecided(&c)
                    .then(|| grasp_slot(&mut next, s, s.pyramid).ok())
                    .flatten();
                match again {
                    Some(slot) => State::Asked(slot),
                    None => State::Done(Box::new(Report::Grasp(judge_bracketed(s, c)))),
                }
            }
            (Line::Planar(s), Slot::Planar { at, n }) => State::Done(Box::new(Report::Planar(
                judge_planar(s, &answers.planar[at..at + n]),
            ))),
            (Line::Planar(s), Slot::General { at, n }) => State::Done(Box::new(Report::Planar(
                judge_general(s, &answers.general[at..at + n]),
            ))),
            (Line::Spatial(s), Slot::Spatial { at, n, k }) => {
                let proofs = answers.proofs.get(at..at + n).unwrap_or_default();
                let (outcomes, proofs) = every_need(s, &answers.general[at..at + n], proofs);
                match refine(s, k, &outcomes) {
                    Some(k) => State::Asked(spatial_slot(&mut next, s, k)?),
                    None => State::Decided {
                        k,
                        outcomes,
                        proofs,
                    },
                }
            }
            _ => unreachable!("a line's slot is of its kind"),
        };
    }
    if !next.is_empty() {
        return Ok(Judged::Again(Plan {
            lines,
            states,
            batch: next,
        }));
    }
    // The support regions: each spatial scene's main cone at its given k (for "coulomb" the
    // inner pyramids before refining: a region every point of which the true cone holds,
    // and the same whatever k the verdicts needed), on all cores, with their proofs when
    // asked.
    let spatial: Vec<&SpatialScene> = lines
        .iter()
        .filter_map(|line| match line {
            Line::Spatial(s) if options.support_region => Some(*s),
            _ => None,
        })
        .collect();
    let mut regions = vec![SupportRegion::default(); spatial.len()];
    engine.each_with_solver(&mut regions, options, 1, |solver, i, region| {
        let s = spatial[i];
        let g = s.generators(s.pyramid, main_pyramid(s.friction));
        *region = support_region(solver, &g, &s.body, options.proof);
        0
    });
    let mut regions = regions.into_iter();
    let reports = lines
        .iter()
        .zip(states)
        .map(|(line, state)| match (*line, state) {
            (_, State::Done(report)) => *report,
            (
                Line::Spatial(s),
                State::Decided {
                    k,
                    outcomes,
                    proofs,
                },
            ) => {
                let region = options
                    .support_region
                    .then(|| regions.next().unwrap_or_default());
                Report::Spatial(judge_spatial(s, k, &outcomes, proofs, region))
            }
            _ => unreachable!("every line is judged once no line is asked again"),
        })
        .collect();
    Ok(Judged::Reports(reports))
}

#[cfg(test)]
mod tests {
    use super::undecided;
    use crate::general::circular::{CircularOutcome, Decided};

    /// A threshold's search goes to the engine only where it stopped with its bracket open
    /// and the threshold or force closure still uncertain; a closed bracket, or one that
    /// decided both, answers the line itself.
    #[test]
    fn only_a_search_that_stopped_short_goes_to_the_engine() {
        let out = |closed, at_least, force_closure| CircularOutcome {
            closed,
            at_least: Some(at_least),
            force_closure,
            ..CircularOutcome::default()
        };
        use Decided::{False, True, Uncertain};
        assert!(!undecided(&out(true, Uncertain, Uncertain)));
        assert!(!undecided(&out(false, True, True)));
        assert!(!undecided(&out(false, False, False)));
        assert!(undecided(&out(false, Uncertain, True)));
        assert!(undecided(&out(false, True, Uncertain)));
    }
}
