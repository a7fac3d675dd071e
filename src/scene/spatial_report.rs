//! A spatial scene's hold report (docs/contract-spatial.md §2–§5): the general engine's outcomes for its
//! needs judged into held, robust margin, uncertain, the binding need and facet, a reason a
//! person can act on, and the support region; `"coulomb"`'s bracket between the inner and
//! the outer pyramid, refined by doubling k.

use serde::Serialize;

use crate::general::proof::Proof;
use serde_json::Value;

use super::region::SupportRegion;
use super::report::{sliding_words, SlidingReport, WitnessReport};
use super::spatial::{pyramids, FrictionModel, SpatialScene, Twist, MAX_PYRAMID};
use crate::general::proof::RegionProof;
use crate::general::{GeneralBatch, GeneralOutcome, GENERAL_MARGIN_CAP};
use crate::{Error, Verdict};

/// What binds a need: a plane of R⁶ through the origin with every generator on its side
/// (inside: the facet attaining the margin; outside: the certificate's plane), and the
/// generators, contacts and points on it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpatialBinding {
    /// Unit inward normal `(force part, moment part)`.
    pub normal: [f64; 6],
    /// Generator indices on the plane, ascending.
    pub generators: Vec<u32>,
    /// Indices into the scene's contacts of those generators, ascending, each once.
    pub contacts: Vec<usize>,
    /// `[contact, point]` of those generators, each once.
    pub points: Vec<[usize; 2]>,
}

/// One need's cone test in a spatial scene.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpatialNeedReport {
    /// The mass of this corner of the mass × centre-of-mass box (nominal mass's units).
    pub mass: f64,
    /// `[δ_x, δ_y]` of this corner, in the scene's length unit.
    pub com_offset: [f64; 2],
    /// The wrench the contacts must supply (docs/contract-spatial.md §1).
    pub need: [f64; 6],
    /// "supported", "unsupported" or "uncertain".
    pub verdict: &'static str,
    /// Signed distance of the need to the boundary of the (inner) pyramids' cone, at most
    /// 1000: the bound from above.
    pub margin: f64,
    /// The bound from below (docs/contract-general.md §9).
    pub margin_lower: f64,
    /// The cone is all of R⁶.
    pub capped: bool,
    /// `"coulomb"` only: the outer pyramids' margin, an upper bound of the true cone's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin_upper: Option<f64>,
    /// Forces along pyramid edges that hold, only when supported.
    pub witness: Option<WitnessReport>,
    /// Unit `y` with `y·wᵢ ≥ 0` for every generator (of the outer pyramids for
    /// `"coulomb"`) and `y·need < 0`, only when unsupported: read as a twist, the motion
    /// gravity would make.
    pub certificate: Option<[f64; 6]>,
    /// What binds this need; none when capped or the cone is flat.
    pub binding: Option<SpatialBinding>,
    /// The margin is proven (docs/contract-general.md §8); false: it is an upper bound.
    pub margin_checked: bool,
    /// With `--proof`: the proof of `margin` and `margin_lower` (docs/proof.md), on the
    /// (inner) pyramids' generators at the report's `pyramid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<Proof>,
}

/// The need that attains the robust margin.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpatialBindingNeed {
    /// Index into `needs`.
    pub index: usize,
    /// Its mass.
    pub mass: f64,
    /// Its `[δ_x, δ_y]`.
    pub com_offset: [f64; 2],
}

/// The gate's answer to a spatial scene.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpatialReport {
    /// The input's `id`, echoed as given.
    pub id: Value,
    /// Always 3: a spatial scene's answer.
    pub dim: u8,
    /// Every need has a witness and the robust margin is at least `margin_min`.
    pub held: bool,
    /// Minimum of the needs' margins: force in `m0·g` and moment in `m0·g·ℓ`, in one
    /// Euclidean norm.
    pub robust_margin: f64,
    /// Minimum of the needs' bounds from below.
    pub robust_margin_lower: f64,
    /// Every need's margin is proven (docs/contract-general.md §8); false: the robust margin is an
    /// upper bound, and the gate holds only where `margin_min` asks for no margin.
    pub margin_checked: bool,
    /// Not held, and no need certified: within tolerance of the boundary, or (for
    /// `"coulomb"`) between the inner and the outer pyramid at every k tried.
    pub uncertain: bool,
    /// The cone is all of R⁶ (every need's margin is the cap).
    pub capped: bool,
    /// "inner", "outer" or "coulomb", echoed.
    pub friction: &'static str,
    /// Edges of each pyramid the answer used (for `"coulomb"`, after refining).
    pub pyramid: usize,
    /// The scene's `margin_min`, echoed.
    pub margin_min: f64,
    /// Generators of the cone test at `pyramid` edges: Σ points × k, a sliding contact's
    /// points one each.
    pub n_generators: usize,
    /// The contacts that slide, with the direction and ray used; omitted when none does.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sliding: Vec<SlidingReport<[f64; 3]>>,
    /// `"coulomb"` only: the least of the outer pyramids' margins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin_upper: Option<f64>,
    /// `"coulomb"` only: undecided between the inner and the outer pyramid at `pyramid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coulomb_uncertain: Option<bool>,
    /// The need whose margin is the robust margin (first on ties).
    pub binding_need: SpatialBindingNeed,
    /// What binds that need (when not held: the need the reason names).
    pub binding: Option<SpatialBinding>,
    /// Why not held, in words; `None` when held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// docs/contract-support-region.md at the nominal mass: `[δ_x, δ_y]` vertices, counter-clockwise,
    /// clipped to `|δ| ≤ 4ℓ`. This and the other `support_region` fields are `None` (not
    /// written) where the region was not asked for ([`crate::Options::support_region`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_region: Option<Vec<[f64; 2]>>,
    /// "polygon", "segment", "point" or "empty".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_region_shape: Option<&'static str>,
    /// The region reaches the clip box (it is unbounded or larger).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_region_clipped: Option<bool>,
    /// The region's inner and outer polygons meet within 1e-9 ℓ, its proof checked
    /// (docs/contract-support-region.md): `support_region` is then the region within that.
    /// False: `support_region` is the bound from above, `support_region_inner` the bound from
    /// below.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_region_checked: Option<bool>,
    /// The inner polygon (witnessed centre-of-mass positions, counter-clockwise), only where
    /// the region is not checked (else it is `support_region` within 1e-9 ℓ).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_region_inner: Option<Vec<[f64; 2]>>,
    /// With [`crate::Options::proof`]: the region's proof (docs/contract-support-region.md
    /// §4), which [`check_support_region`](crate::details::scene::check_support_region) checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_region_proof: Option<RegionProof>,
    /// One report per need, in need order (`SpatialScene::need_points`).
    pub needs: Vec<SpatialNeedReport>,
}

/// Pushes the scene's cases at `k` edges a point: for each of its pyramids, every need it
/// asks ([`SpatialScene::asked_needs`]). Returns how many.
pub(super) fn push_cases(
    batch: &mut GeneralBatch,
    scene: &SpatialScene,
    k: usize,
) -> Result<usize, Error> {
    let (asked, _) = scene.asked_needs();
    for &p in pyramids(scene.friction) {
        let g: Vec<f64> = scene.generators(k, p).concat();
        for (j, n) in asked.iter().enumerate() {
            if j == 0 {
                batch.push(6, &g, n)?;
            } else {
                batch.push_need(n)?;
            }
        }
    }
    Ok(asked.len() * pyramids(scene.friction).len())
}

/// Every need's outcome and proof (for each pyramid, in need order) from the answers to
/// the cases [`push_cases`] asked (`proofs` empty where none were made).
pub(super) fn every_need(
    scene: &SpatialScene,
    answers: &[GeneralOutcome],
    proofs: &[Option<Proof>],
) -> (Vec<GeneralOutcome>, Vec<Option<Proof>>) {
    let (asked, scales) = scene.asked_needs();
    let mut outcomes = Vec::with_capacity(scales.len() * answers.len() / asked.len().max(1));
    let mut every_proof = Vec::with_capacity(if proofs.is_empty() {
        0
    } else {
        outcomes.capacity()
    });
    for p in 0..answers.len() / asked.len().max(1) {
        for &(j, r) in &scales {
            let at = p * asked.len() + j;
            outcomes.push(if r == 1.0 {
                answers[at]
            } else {
                answers[at].scaled(r)
            });
            if let Some(proof) = proofs.get(at) {
                every_proof.push(proof.as_ref().map(|q| {
                    if r == 1.0 {
                        q.clone()
                    } else {
                        q.scaled(r)
                    }
                }));
            }
        }
    }
    (outcomes, every_proof)
}

/// For `"coulomb"`: the k to try next when some need is undecided at `k` (the inner not
/// supported, the outer not certified), while k may double within 64 edges and 256
/// generators.
pub(super) fn refine(scene: &SpatialScene, k: usize, outcomes: &[GeneralOutcome]) -> Option<usize> {
    if scene.friction != FrictionModel::Coulomb {
        return None;
    }
    let n = outcomes.len() / 2;
    let (inner, outer) = outcomes.split_at(n);
    let undecided = inner
        .iter()
        .zip(outer)
        .any(|(i, o)| i.verdict != Verdict::Supported && o.verdict != Verdict::Unsupported);
    let next = 2 * k;
    // A sliding contact's ray is exact: only the contacts that stick refine.
    let sticks = scene.contacts.iter().any(|c| c.slip.is_none());
    (undecided
        && sticks
        && next <= MAX_PYRAMID
        && scene.generator_count(next) <= crate::general::MAX_GENERAL_GENERATORS)
        .then_some(next)
}

/// The six numbers of a vector of R⁶ held in the engine's longer array.
fn six(v: &[f64]) -> [f64; 6] {
    std::array::from_fn(|a| v[a])
}

fn binding_of(scene: &SpatialScene, k: usize, o: &GeneralOutcome) -> Option<SpatialBinding> {
    let f = o.facet?;
    let generators: Vec<u32> = f.generators.iter().collect();
    let mut contacts = Vec::new();
    let mut points = Vec::new();
    for &g in &generators {
        if let Some(s) = scene.source(g as usize, k) {
            if !contacts.contains(&s.contact) {
                contacts.push(s.contact);
            }
            if !points.contains(&[s.contact, s.point]) {
                points.push([s.contact, s.point]);
            }
        }
    }
    contacts.sort_unstable();
    points.sort_unstable();
    Some(SpatialBinding {
        normal: six(&f.normal),
        generators,
        contacts,
        points,
    })
}

/// A support region as the report's fields hold it: each `None` where it was not asked for.
#[derive(Default)]
struct RegionFields {
    vertices: Option<Vec<[f64; 2]>>,
    shape: Option<&'static str>,
    clipped: Option<bool>,
    checked: Option<bool>,
    inner: Option<Vec<[f64; 2]>>,
    proof: Option<RegionProof>,
}

impl RegionFields {
    fn of(region: Option<SupportRegion>) -> RegionFields {
        let Some(r) = region else {
            return RegionFields::default();
        };
        RegionFields {
            vertices: Some(r.vertices),
            shape: Some(r.shape),
            clipped: Some(r.clipped),
            checked: Some(r.checked),
            inner: (!r.checked).then_some(r.inner),
            proof: r.proof,
        }
    }
}

/// Judges a spatial scene from its outcomes at `k` edges (in [`push_cases`]'s order) and its
/// support region (`None` where not asked for).
///
/// # Panics
///
/// Panics if `outcomes` does not hold one outcome per need and pyramid: the gate pairs them.
pub(crate) fn judge_spatial(
    scene: &SpatialScene,
    k: usize,
    outcomes: &[GeneralOutcome],
    mut proofs: Vec<Option<Proof>>,
    region: Option<SupportRegion>,
) -> SpatialReport {
    let points = scene.need_points();
    let needs = scene.needs();
    let n = points.len();
    assert_eq!(
        outcomes.len(),
        n * pyramids(scene.friction).len(),
        "judge_spatial: outcomes do not match the needs"
    );
    let coulomb = scene.friction == FrictionModel::Coulomb;
    let witness = |o: &GeneralOutcome| {
        o.witness().map(|(indices, weights)| WitnessReport {
            sources: indices
                .iter()
                .map(|&i| scene.describe(i as usize, k))
                .collect(),
            weights: weights.to_vec(),
            generators: indices.to_vec(),
        })
    };
    let reports: Vec<SpatialNeedReport> = (0..n)
        .map(|i| {
            let main = &outcomes[i];
            let outer = coulomb.then(|| &outcomes[n + i]);
            // Coulomb: held by the inner pyramid's witness, refused by the outer's certificate.
            let (verdict, proof) = match outer {
                None => (main.verdict, main),
                Some(_) if main.verdict == Verdict::Supported => (Verdict::Supported, main),
                Some(o) if o.verdict == Verdict::Unsupported => (Verdict::Unsupported, o),
                Some(_) => (Verdict::Uncertain, main),
            };
            SpatialNeedReport {
                mass: points[i].0,
                com_offset: points[i].1,
                need: needs[i],
                verdict: verdict.as_str(),
                margin: main.margin.min(GENERAL_MARGIN_CAP),
                margin_lower: main.margin_lower.min(GENERAL_MARGIN_CAP),
                capped: main.capped,
                margin_upper: outer.map(|o| o.margin.min(GENERAL_MARGIN_CAP)),
                witness: if verdict == Verdict::Supported {
                    witness(proof)
                } else {
                    None
                },
                certificate: if verdict == Verdict::Unsupported {
                    proof.certificate.map(|c| six(&c))
                } else {
                    None
                },
                binding: binding_of(scene, k, proof),
                margin_checked: main.margin_checked,
                proof: proofs.get_mut(i).and_then(Option::take),
            }
        })
        .collect();
    conclude(scene, k, reports, RegionFields::of(region))
}

fn verdict_of(r: &SpatialNeedReport) -> Verdict {
    match r.verdict {
        "supported" => Verdict::Supported,
        "unsupported" => Verdict::Unsupported,
        _ => Verdict::Uncertain,
    }
}

fn fmt3(v: [f64; 3]) -> String {
    let v = v.map(|x| x + 0.0);
    format!("({:.5}, {:.5}, {:.5})", v[0], v[1], v[2])
}

fn fmt6(v: &[f64; 6]) -> String {
    let v = v.map(|x| x + 0.0);
    format!(
        "({:.5}, {:.5}, {:.5}, {:.5}, {:.5}, {:.5})",
        v[0], v[1], v[2], v[3], v[4], v[5]
    )
}

/// The scene's report from its needs' reports: the robust margin, held, uncertain, why.
fn conclude(
    scene: &SpatialScene,
    k: usize,
    reports: Vec<SpatialNeedReport>,
    region: RegionFields,
) -> SpatialReport {
    let robust = reports
        .iter()
        .map(|r| r.margin)
        .fold(f64::INFINITY, f64::min);
    // The binding need: the first whose margin ties the least to rounding, so that mirror-image
    // needs (equal margins in exact arithmetic) name the same one whichever route rounds lower.
    let tie = 1e-12 * robust.abs().max(f64::MIN_POSITIVE);
    let bi = reports
        .iter()
        .position(|r| r.margin <= robust + tie)
        .unwrap_or(0);
    let verdicts: Vec<Verdict> = reports.iter().map(verdict_of).collect();
    let all_supported = verdicts.iter().all(|&v| v == Verdict::Supported);
    let margin_checked = reports.iter().all(|r| r.margin_checked);
    // An unproven margin is an upper bound: it passes margin_min only when none is asked.
    let unproven =
        all_supported && robust >= scene.margin_min && !margin_checked && scene.margin_min > 0.0;
    let held = all_supported && robust >= scene.margin_min && !unproven;
    let any_unsupported = verdicts.contains(&Verdict::Unsupported);
    let uncertain =
        !held && !any_unsupported && (verdicts.contains(&Verdict::Uncertain) || unproven);
    let coulomb = scene.friction == FrictionModel::Coulomb;
    let margin_upper = coulomb.then(|| {
        reports
            .iter()
            .filter_map(|r| r.margin_upper)
            .fold(f64::INFINITY, f64::min)
    });
    let coulomb_uncertain = coulomb.then(|| {
        reports
            .iter()
            .any(|r| r.verdict == "uncertain" && r.margin < 0.0 && r.margin_upper > Some(0.0))
    });
    let worst = |kind: Verdict| {
        (0..reports.len())
            .filter(|&i| verdicts[i] == kind)
            .min_by(|&a, &b| reports[a].margin.total_cmp(&reports[b].margin))
    };
    // The need the reason (and the binding) is about: certified, else uncertain, else the
    // one short of margin_min (the binding need).
    let focus = if held {
        bi
    } else {
        worst(Verdict::Unsupported)
            .or_else(|| worst(Verdict::Uncertain))
            .unwrap_or(bi)
    };
    let name = |i: usize| {
        let r = &reports[i];
        format!(
            "need {i} (mass {}, com_offset [{}, {}])",
            r.mass, r.com_offset[0], r.com_offset[1]
        )
    };
    let binds = |i: usize| match &reports[i].binding {
        None => "no plane bounds the contacts' wrenches".to_string(),
        Some(b) if b.contacts.is_empty() => {
            "no contact pushes along the need (against gravity)".to_string()
        }
        Some(b) => format!(
            "the contacts on the binding plane: {}",
            b.contacts
                .iter()
                .map(|&c| {
                    let on: Vec<String> = b
                        .points
                        .iter()
                        .filter(|p| p[0] == c)
                        .map(|p| p[1].to_string())
                        .collect();
                    let contact = &scene.contacts[c];
                    if contact.points.len() == 1 {
                        contact.label()
                    } else {
                        format!(
                            "{} at {} {}",
                            contact.label(),
                            if on.len() == 1 { "point" } else { "points" },
                            on.join(", ")
                        )
                    }
                })
                .collect::<Vec<_>>()
                .join("; ")
        ),
    };
    let count = |kind: Verdict| verdicts.iter().filter(|&&v| v == kind).count();
    let total = reports.len();
    let sliding = SlidingReport::of_spatial(scene);
    let slides = |i: usize| {
        let on = reports[i]
            .binding
            .iter()
            .flat_map(|b| b.contacts.iter().copied());
        sliding_words(&sliding, on, |c| scene.contacts[c].label(), fmt3)
            .map(|w| format!("; {w}"))
            .unwrap_or_default()
    };
    let reason = (!held).then(|| {
        let r = &reports[focus];
        let mut why = match verdicts[focus] {
            Verdict::Unsupported => {
                let y = r.certificate.unwrap_or_default();
                let by = if coulomb {
                    " by the outer pyramids"
                } else {
                    ""
                };
                format!(
                    "{}: certified unsupported ({} of {total} needs){by}, certificate y = {} \
                     (y·need < 0): gravity's motion, which no contact resists, is {}; margin \
                     {:.5}; {}",
                    name(focus),
                    count(Verdict::Unsupported),
                    fmt6(&y),
                    Twist::of_certificate(&y, scene.body.half_size).describe(),
                    r.margin,
                    binds(focus)
                )
            }
            Verdict::Uncertain if coulomb && r.margin < 0.0 => format!(
                "{}: uncertain by linearisation ({} of {total} needs): the inner pyramids \
                 (k = {k}) do not hold it (margin {:.5}) and the outer ones are not \
                 certified (margin {:.5}); {}",
                name(focus),
                count(Verdict::Uncertain),
                r.margin,
                r.margin_upper.unwrap_or(0.0),
                binds(focus)
            ),
            Verdict::Uncertain => format!(
                "{}: uncertain ({} of {total} needs): within tolerance of the boundary of \
                 the contacts' cone, neither a witness nor a certificate passes (margin \
                 {:.3e}); {}",
                name(focus),
                count(Verdict::Uncertain),
                r.margin,
                binds(focus)
            ),
            Verdict::Supported if unproven => format!(
                "robust margin {:.5} ≥ margin_min {} is not proven: a facet set of the \
                 contacts' cone could not be proven complete, so {:.5} is only an upper \
                 bound (every need supported); {}",
                robust,
                scene.margin_min,
                robust,
                binds(focus)
            ),
            Verdict::Supported => format!(
                "robust margin {:.5} < margin_min {} at {} (every need supported, but not by \
                 enough); {}",
                robust,
                scene.margin_min,
                name(focus),
                binds(focus)
            ),
        };
        why.push_str(&slides(focus));
        if scene.contacts.is_empty() {
            why.push_str("; no contacts");
        }
        why
    });
    SpatialReport {
        id: scene.id.clone(),
        dim: 3,
        held,
        robust_margin: robust,
        robust_margin_lower: reports
            .iter()
            .map(|r| r.margin_lower)
            .fold(f64::INFINITY, f64::min),
        margin_checked,
        uncertain,
        capped: reports.iter().all(|r| r.capped),
        friction: scene.friction.as_str(),
        pyramid: k,
        margin_min: scene.margin_min,
        n_generators: scene.generator_count(k),
        sliding,
        margin_upper,
        coulomb_uncertain,
        binding_need: SpatialBindingNeed {
            index: bi,
            mass: reports[bi].mass,
            com_offset: reports[bi].com_offset,
        },
        binding: reports[focus].binding.clone(),
        reason,
        support_region: region.vertices,
        support_region_shape: region.shape,
        support_region_clipped: region.clipped,
        support_region_checked: region.checked,
        support_region_inner: region.inner,
        support_region_proof: region.proof,
        needs: reports,
    }
}

impl SpatialReport {
    /// How two reports on one line differ beyond tolerance, if they do: held (unless either
    /// is uncertain) or the robust margin by more than 1e-6 relative. How `gate --backend
    /// both` checks the GPU against the CPU.
    pub fn disagreement(&self, other: &SpatialReport) -> Option<String> {
        if self.held != other.held && !self.uncertain && !other.uncertain {
            return Some(format!("held {} vs {}", self.held, other.held));
        }
        let (a, b) = (self.robust_margin, other.robust_margin);
        ((a - b).abs() > 1e-6 * a.abs().max(b.abs()).max(1.0))
            .then(|| format!("robust margin {a} vs {b}"))
    }
}
