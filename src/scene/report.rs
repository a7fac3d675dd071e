//! Verdicts (docs/contract-planar.md §4–§9): the cone tests' outcomes judged into a [`HoldReport`] per scene, and
//! the gate that runs all of them in one batch.

use serde::Serialize;
use serde_json::Value;

use super::spatial::SpatialScene;
use super::types::{EditSummary, GeneratorSource, Scene};
use crate::general::GeneralOutcome;
use crate::planar::tables::Candidate;
use crate::{Outcome, Verdict, MARGIN_CAP};

/// A witness in physical terms: generator indices, weights (in nominal weights `m0·g`,
/// float64-polished: [`Witness::polished`](crate::Witness::polished)) and where each
/// generator comes from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WitnessReport {
    /// Generator indices (docs/contract-planar.md §2 order, see [`Scene::generators`]), ascending, 0 to 3 of them.
    pub generators: Vec<u32>,
    /// Weight `λ ≥ 0` of each generator: the force along its edge ray, in units of `m0·g`.
    pub weights: Vec<f64>,
    /// Where each generator comes from (`GeneratorSource::describe`).
    pub sources: Vec<String>,
}

/// The nearest supporting candidate of a need (docs/contract-planar.md §5–§6), or, for a scene of more than 16
/// generators (the general engine, docs/contract-general.md), the facet that binds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BindingReport {
    /// Index in the candidate table ([`crate::NO_BINDING`] for a facet of the general engine).
    pub candidate: u32,
    /// The candidate, e.g. "+(w1 x w6)", or "facet".
    pub kind: String,
    /// The facet's unit inward normal (general engine only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normal: Option<[f64; 3]>,
    /// The generators the candidate is built from (none for the apex `−need`).
    pub generators: Vec<u32>,
    /// Where each generator comes from (`GeneratorSource::describe`).
    pub sources: Vec<String>,
}

/// One need's cone test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NeedReport {
    /// The mass of this corner of the mass × centre-of-mass box, in the nominal mass's units.
    pub mass: f64,
    /// The centre-of-mass x-offset of this corner, in the units of `half_size`.
    pub com_offset_x: f64,
    /// The wrench the contacts must supply (docs/contract-planar.md §3), as the cone test took it.
    pub need: [f32; 3],
    /// "supported", "unsupported" or "uncertain".
    pub verdict: &'static str,
    /// Signed distance of the need to the cone's boundary (docs/contract-planar.md §6), at most [`MARGIN_CAP`].
    pub margin: f32,
    /// No candidate supports the cone (it fills R³): the margin is the cap.
    pub capped: bool,
    /// Contact forces that hold, only when supported (docs/contract-planar.md §4).
    pub witness: Option<WitnessReport>,
    /// Unit normal `y` with `y·wᵢ ≥ 0` for every generator and `y·need < 0`, only when
    /// unsupported (docs/contract-planar.md §5).
    pub certificate: Option<[f32; 3]>,
    /// The nearest supporting candidate, which attains the margin; none when capped.
    pub binding: Option<BindingReport>,
    /// The margin is proven (docs/contract-general.md §8): always by the enumeration; by
    /// the general engine (five body pairs or more) when its facet set was proven complete.
    /// Written only when false.
    #[serde(skip_serializing_if = "is_true")]
    pub margin_checked: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

/// A contact that slides (docs/contract-scenes.md, sliding contacts), in the plane
/// (`V = [f64; 2]`) or in space (`[f64; 3]`): which, the slip as given, and the direction and
/// ray the generators used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlidingReport<V> {
    /// Index into the scene's contacts.
    pub contact: usize,
    /// Its body pair.
    pub pair: u64,
    /// The slip as given (the body's velocity relative to the other body at the contact).
    pub slip: V,
    /// The unit direction of the slip's tangential part, `v_t/|v_t|`: where the body slides.
    pub direction: V,
    /// The one friction ray at each of its points, `n − μ·direction` (unit normal part):
    /// the force's direction, on the cone's boundary, its tangential part against the slip.
    pub ray: V,
}

impl SlidingReport<[f64; 2]> {
    /// The sliding contacts of a planar scene, in contact order.
    pub(crate) fn of_planar(scene: &Scene) -> Vec<Self> {
        (scene.contacts.iter().enumerate())
            .filter_map(|(k, c)| {
                Some(SlidingReport {
                    contact: k,
                    pair: c.pair,
                    slip: c.slip?,
                    direction: c.slip_direction()?,
                    ray: c.sliding_ray()?,
                })
            })
            .collect()
    }
}

impl SlidingReport<[f64; 3]> {
    /// The sliding contacts of a spatial scene, in contact order.
    pub(crate) fn of_spatial(scene: &SpatialScene) -> Vec<Self> {
        (scene.contacts.iter().enumerate())
            .filter_map(|(k, c)| {
                Some(SlidingReport {
                    contact: k,
                    pair: c.pair,
                    slip: c.slip?,
                    direction: c.slip_direction()?,
                    ray: c.sliding_ray()?,
                })
            })
            .collect()
    }
}

/// "contact 0 (pair 0) slides along (1, 0), its one friction ray (−0.3, 1)" for each sliding
/// contact among `contacts` (indices into `labels`), or `None` when none slides there: what a
/// reason adds when a sliding contact's ray binds.
pub(super) fn sliding_words<V: Copy>(
    sliding: &[SlidingReport<V>],
    contacts: impl IntoIterator<Item = usize>,
    label: impl Fn(usize) -> String,
    fmt: impl Fn(V) -> String,
) -> Option<String> {
    let mut seen: Vec<usize> = contacts.into_iter().collect();
    seen.sort_unstable();
    seen.dedup();
    let words: Vec<String> = seen
        .iter()
        .filter_map(|&k| sliding.iter().find(|s| s.contact == k))
        .map(|s| {
            format!(
                "{} slides along {}, its one friction ray {} (no static friction)",
                label(s.contact),
                fmt(s.direction),
                fmt(s.ray)
            )
        })
        .collect();
    (!words.is_empty()).then(|| format!("sliding on the binding plane: {}", words.join("; ")))
}

/// The need that attains the robust margin.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BindingNeed {
    /// Index into `needs`.
    pub index: usize,
    /// Its mass (see [`NeedReport::mass`]).
    pub mass: f64,
    /// Its centre-of-mass x-offset (see [`NeedReport::com_offset_x`]).
    pub com_offset_x: f64,
}

/// The robust hold test of a scene, and the gate's answer (docs/contract-planar.md §8–§9).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HoldReport {
    /// The input's `id`, echoed as given.
    pub id: Value,
    /// Every need has a witness and the robust margin is at least `margin_min`.
    pub held: bool,
    /// Minimum of the needs' margins.
    pub robust_margin: f32,
    /// Not held only because some need lies within tolerance of its boundary: no need is
    /// certified unsupported. Never true when held.
    pub uncertain: bool,
    /// The need whose margin is the robust margin (the first one on ties).
    pub binding_need: BindingNeed,
    /// The scene's `margin_min`, echoed.
    pub margin_min: f64,
    /// Generators of the cone test: 4 per contact (docs/contract-planar.md §2), 2 per sliding
    /// contact.
    pub n_generators: usize,
    /// The contacts that slide, with the direction and ray used; omitted when none does.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sliding: Vec<SlidingReport<[f64; 2]>>,
    /// Why not held, in words (worst need, certificate, binding contacts); `None` when held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the edit did to each body pair; `None` for a plain scene.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit: Option<EditSummary>,
    /// One report per need, in need order (`Scene::need_points`).
    pub needs: Vec<NeedReport>,
    /// Every need's margin is proven; false: the robust margin is an upper bound, and the
    /// scene is held only where `margin_min` asks for no margin. Written only when false.
    #[serde(skip_serializing_if = "is_true")]
    pub margin_checked: bool,
}

fn sources_of(scene: &Scene, sources: &[GeneratorSource], gens: &[u32]) -> Vec<String> {
    gens.iter()
        .map(|&g| match sources.get(g as usize) {
            Some(s) => s.describe(scene),
            None => format!("generator {g} (not in this scene)"),
        })
        .collect()
}

fn binding_of(scene: &Scene, sources: &[GeneratorSource], o: &Outcome) -> Option<BindingReport> {
    let index = o.binding()?;
    let c = Candidate::at(index)?;
    let generators = c.generators();
    Some(BindingReport {
        candidate: index,
        kind: c.to_string(),
        normal: None,
        sources: sources_of(scene, sources, &generators),
        generators,
    })
}

fn contacts_text(
    scene: &Scene,
    sliding: &[SlidingReport<[f64; 2]>],
    b: &Option<BindingReport>,
) -> String {
    match b {
        None => "no plane bounds the contacts' wrenches".to_string(),
        Some(b) if b.generators.is_empty() => format!(
            "binding {}: no contact pushes along the need (against gravity)",
            b.kind
        ),
        Some(b) => {
            let sources = scene.generator_sources();
            let on = b.generators.iter().filter_map(|&g| sources.get(g as usize));
            let slides = sliding_words(
                sliding,
                on.map(|s| s.contact),
                |k| scene.contacts[k].label(),
                fmt2,
            );
            format!(
                "binding {}, contacts that bind: {}{}",
                b.kind,
                b.sources.join(", "),
                slides.map(|w| format!("; {w}")).unwrap_or_default()
            )
        }
    }
}

fn fmt3(v: [f32; 3]) -> String {
    let v = v.map(|x| x + 0.0); // no "-0.00000"
    format!("({:.5}, {:.5}, {:.5})", v[0], v[1], v[2])
}

fn fmt2(v: [f64; 2]) -> String {
    let v = v.map(|x| x + 0.0);
    format!("({:.5}, {:.5})", v[0], v[1])
}

/// Judges one scene from the outcomes of its cases (in the order of [`Scene::cases`]).
///
/// Panics if `outcomes` is empty or longer than the scene's needs: [`hold_reports`](crate::hold_reports) pairs them.
pub fn judge(scene: &Scene, outcomes: &[Outcome]) -> HoldReport {
    let points = scene.need_points();
    let needs = scene.needs();
    let sources = scene.generator_sources();
    // The cases the outcomes answer, for float64-polished witness weights (forces that
    // reproduce the need to ~1e-15); `None` only for a scene `parse_line` would reject.
    let cases = scene.cases().ok();
    assert!(
        !outcomes.is_empty() && outcomes.len() <= points.len(),
        "judge: {} outcomes for {} needs",
        outcomes.len(),
        points.len()
    );
    let reports: Vec<NeedReport> = outcomes
        .iter()
        .zip(points.iter().zip(&needs))
        .enumerate()
        .map(|(k, (o, (&(mass, com), &need)))| NeedReport {
            mass,
            com_offset_x: com,
            need,
            verdict: o.verdict().as_str(),
            margin: o.margin.min(MARGIN_CAP),
            capped: o.is_capped(),
            witness: o.witness().map(|w| WitnessReport {
                sources: sources_of(scene, &sources, &w.indices),
                weights: match &cases {
                    Some(c) => w.polished(&c[k]),
                    None => w.weights.clone(),
                },
                generators: w.indices,
            }),
            certificate: o.certificate(),
            binding: binding_of(scene, &sources, o),
            margin_checked: true,
        })
        .collect();
    conclude(scene, reports)
}

/// Judges one scene of more than 16 generators from the general engine's outcomes (in the
/// order of [`Scene::need_points`]); the same report as [`judge`], the binding a facet.
///
/// # Panics
///
/// Panics if `outcomes` is empty or longer than the scene's needs: [`hold_reports`] pairs them.
pub(crate) fn judge_general(scene: &Scene, outcomes: &[GeneralOutcome]) -> HoldReport {
    let points = scene.need_points();
    let needs = scene.needs();
    let sources = scene.generator_sources();
    assert!(
        !outcomes.is_empty() && outcomes.len() <= points.len(),
        "judge_general: {} outcomes for {} needs",
        outcomes.len(),
        points.len()
    );
    let reports = outcomes
        .iter()
        .zip(points.iter().zip(&needs))
        .map(|(o, (&(mass, com), &need))| NeedReport {
            mass,
            com_offset_x: com,
            need,
            verdict: o.verdict.as_str(),
            margin: (o.margin as f32).min(MARGIN_CAP),
            capped: o.capped,
            witness: o.witness().map(|(indices, weights)| WitnessReport {
                sources: sources_of(scene, &sources, indices),
                weights: weights.to_vec(),
                generators: indices.to_vec(),
            }),
            certificate: o.certificate.map(|c| [c[0], c[1], c[2]].map(|v| v as f32)),
            binding: o.facet.map(|f| {
                let generators: Vec<u32> = f.generators.iter().collect();
                BindingReport {
                    candidate: crate::NO_BINDING,
                    kind: "facet".into(),
                    normal: Some([f.normal[0], f.normal[1], f.normal[2]]),
                    sources: sources_of(scene, &sources, &generators),
                    generators,
                }
            }),
            margin_checked: o.margin_checked,
        })
        .collect();
    conclude(scene, reports)
}

/// The scene's report from its needs' reports: the robust margin, held, uncertain, why.
fn conclude(scene: &Scene, reports: Vec<NeedReport>) -> HoldReport {
    let verdict_of = |r: &NeedReport| match r.verdict {
        "supported" => Verdict::Supported,
        "unsupported" => Verdict::Unsupported,
        _ => Verdict::Uncertain,
    };
    // The need attaining the robust margin (first one on ties; NaN never wins).
    let mut bi = 0;
    for (i, r) in reports.iter().enumerate() {
        if r.margin < reports[bi].margin || reports[bi].margin.is_nan() {
            bi = i;
        }
    }
    let robust = reports[bi].margin;
    let verdicts: Vec<Verdict> = reports.iter().map(verdict_of).collect();
    let all_supported = verdicts.iter().all(|&v| v == Verdict::Supported);
    let margin_ok = (robust as f64) >= scene.margin_min;
    let margin_checked = reports.iter().all(|r| r.margin_checked);
    // An unproven margin is an upper bound: it passes margin_min only when none is asked.
    let unproven = all_supported && margin_ok && !margin_checked && scene.margin_min > 0.0;
    let held = all_supported && margin_ok && !unproven;
    let any_unsupported = verdicts.contains(&Verdict::Unsupported);
    let any_uncertain = verdicts.contains(&Verdict::Uncertain);
    let uncertain = !held && (any_uncertain || unproven) && !any_unsupported;

    let need_name = |i: usize| {
        let r = &reports[i];
        format!(
            "need {i} (mass {}, com_offset_x {})",
            r.mass, r.com_offset_x
        )
    };
    let sliding = SlidingReport::of_planar(scene);
    let reason = (!held).then(|| {
        // The worst need of the worst kind: certified unsupported, else uncertain, else the
        // need whose margin falls short of margin_min.
        let worst = |kind: Verdict| {
            (0..reports.len())
                .filter(|&i| verdicts[i] == kind)
                .min_by(|&a, &b| reports[a].margin.total_cmp(&reports[b].margin))
        };
        let count = |kind: Verdict| verdicts.iter().filter(|&&v| v == kind).count();
        let total = reports.len();
        let mut why = if unproven {
            format!(
                "robust margin {:.5} ≥ margin_min {} is not proven: a facet set of the \
                 contacts' cone could not be proven complete, so it is only an upper bound \
                 (every need supported); {}",
                robust,
                scene.margin_min,
                contacts_text(scene, &sliding, &reports[bi].binding)
            )
        } else if let Some(i) = worst(Verdict::Unsupported) {
            let r = &reports[i];
            format!(
                "{}: certified unsupported ({} of {total} needs), certificate y = {} \
                 (y·need = {:.5} < 0); {}",
                need_name(i),
                count(Verdict::Unsupported),
                fmt3(r.certificate.unwrap_or_default()),
                r.margin,
                contacts_text(scene, &sliding, &r.binding)
            )
        } else if let Some(i) = worst(Verdict::Uncertain) {
            let r = &reports[i];
            format!(
                "{}: uncertain ({} of {total} needs): within tolerance of the boundary of the \
                 contacts' cone, neither a witness nor a certificate passes (margin {:.3e}); {}",
                need_name(i),
                count(Verdict::Uncertain),
                r.margin,
                contacts_text(scene, &sliding, &r.binding)
            )
        } else {
            let r = &reports[bi];
            format!(
                "robust margin {:.5} < margin_min {} at {} (every need supported, but not by \
                 enough); {}",
                robust,
                scene.margin_min,
                need_name(bi),
                contacts_text(scene, &sliding, &r.binding)
            )
        };
        if scene.contacts.is_empty() {
            why.push_str("; no contacts");
        }
        if let Some(e) = &scene.edit {
            why.push_str(&format!(
                "; edit: kept pairs {:?}, no overlap {:?}, made {:?} and broken {:?} contribute nothing",
                e.kept, e.no_overlap, e.made, e.broken
            ));
        }
        why
    });
    HoldReport {
        id: scene.id.clone(),
        held,
        robust_margin: robust,
        uncertain,
        binding_need: BindingNeed {
            index: bi,
            mass: reports[bi].mass,
            com_offset_x: reports[bi].com_offset_x,
        },
        margin_min: scene.margin_min,
        n_generators: scene.generator_count(),
        sliding,
        reason,
        edit: scene.edit.clone(),
        needs: reports,
        margin_checked,
    }
}

impl HoldReport {
    /// How two reports on one line differ beyond tolerance, if they do: the gate's answer
    /// (unless either is uncertain) or the robust margin (as [`crate::Outcome::disagreement`]
    /// compares margins). How `gate --backend both` checks the GPU against the CPU.
    pub(crate) fn disagreement(&self, other: &HoldReport) -> Option<String> {
        // Two robust margins both within the backends' tolerance of `margin_min` may fall on
        // either side of it (a GPU's float32 rounds otherwise, as an H200's did by 1.3e-9 on
        // one public scene): the verdicts may then differ, as the margins may.
        let at_edge = |m: f32| {
            !crate::planar::types::margins_differ(m, self.margin_min as f32)
                && !crate::planar::types::margins_differ(m, other.margin_min as f32)
        };
        let edge = at_edge(self.robust_margin) && at_edge(other.robust_margin);
        if self.held != other.held && !self.uncertain && !other.uncertain && !edge {
            return Some(format!("held {} vs {}", self.held, other.held));
        }
        crate::planar::types::margins_differ(self.robust_margin, other.robust_margin).then(|| {
            format!(
                "robust margin {} vs {}",
                self.robust_margin, other.robust_margin
            )
        })
    }
}
