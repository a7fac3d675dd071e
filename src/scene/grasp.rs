//! Grasp lines (docs/contract-grasp.md): a spatial scene with `"grasp": true`, its
//! contacts' wrenches of unit normal force, and its report: the Ferrari–Canny q1 of the
//! grasp wrench space, force closure, the weakest direction and the binding facet, all from
//! the general engine on the lifted cone ([`crate::general::grasp`]) and checked there.
//! `"coulomb"` brackets q1 between the inner and the outer pyramids and doubles k while
//! force closure is undecided between them.

use serde::Serialize;
use serde_json::Value;

use super::spatial::{tangent_basis, FrictionModel, Pyramid, SpatialScene, MAX_PYRAMID};
use crate::general::circular::{self, Ask, CircularOutcome, Decided, Disc, Support};
use crate::general::grasp::{ForceClosure, GraspOutcome};
use crate::general::proof::{CheckedDisc, Proof};
use crate::general::EPS;
use crate::general::{GeneralBatch, MAX_GENERAL_GENERATORS};
use crate::Error;

/// Two q1 closer than this, relative, need no finer pyramid (docs/contract-grasp.md).
pub(crate) const COULOMB_GAP: f64 = 1e-3;

/// The pyramids a grasp's cases use, in the order they are pushed.
fn pyramids(friction: FrictionModel) -> &'static [Pyramid] {
    match friction {
        FrictionModel::Inner | FrictionModel::Circular => &[Pyramid::Inner],
        FrictionModel::Outer => &[Pyramid::Outer],
        FrictionModel::Coulomb => &[Pyramid::Inner, Pyramid::Outer],
    }
}

/// Pushes the lifted grasp cones of `scene` at `k` edges a point into `batch` (one per
/// pyramid: two for `"coulomb"`, inner first); returns how many.
pub(crate) fn push_grasp_cases(
    batch: &mut GeneralBatch,
    scene: &SpatialScene,
    k: usize,
) -> Result<usize, Error> {
    let ps = pyramids(scene.friction);
    for &p in ps {
        let g: Vec<f64> = scene.generators(k, p).concat();
        batch.push_grasp(&g)?;
    }
    Ok(ps.len())
}

/// For `"coulomb"`: the k to try next when force closure is undecided at `k` (the inner
/// pyramids not in force closure, the outer not proven out of it) and the two q1 differ by
/// more than [`COULOMB_GAP`] relative, while k may double within 64 edges and 256
/// generators.
pub(crate) fn refine_grasp(
    scene: &SpatialScene,
    k: usize,
    outcomes: &[GraspOutcome],
) -> Option<usize> {
    if scene.friction != FrictionModel::Coulomb || outcomes.len() != 2 {
        return None;
    }
    let (inner, outer) = (&outcomes[0], &outcomes[1]);
    let undecided =
        inner.force_closure != ForceClosure::True && outer.force_closure != ForceClosure::False;
    let wide = (outer.q1 - inner.q1).abs() > COULOMB_GAP * inner.q1.abs().max(outer.q1.abs());
    let next = 2 * k;
    (undecided
        && wide
        && next <= MAX_PYRAMID
        && scene.generator_count(next) <= MAX_GENERAL_GENERATORS)
        .then_some(next)
}

/// The plane the grasp is weakest across: its unit normal (the weakest direction), the
/// generators on it and their contacts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraspFacet {
    /// Unit outward normal of the plane `normal·x = q1` that supports W.
    pub normal: [f64; 6],
    /// Generator indices on it, ascending (docs/contract-spatial.md §3's order).
    pub generators: Vec<u32>,
    /// Indices into the line's contacts of those generators, ascending, each once.
    pub contacts: Vec<usize>,
}

/// Where `"coulomb"` decided, when it had to refine: the pyramid edges and both q1 there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraspRefined {
    /// Edges of each pyramid in the last round.
    pub pyramid: usize,
    /// The inner pyramids' q1 there.
    pub q1: f64,
    /// The outer pyramids' q1 there.
    pub q1_upper: f64,
}

/// The gate's answer to a grasp line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraspReport {
    /// The input's `id`, echoed as given.
    pub id: Value,
    /// `true`, `false` or `"uncertain"` (within tolerance of the boundary, an unproven
    /// facet set, or for `"coulomb"` undecided between the pyramids at every k tried).
    pub force_closure: Value,
    /// The Ferrari–Canny metric of the (inner, for `"coulomb"`) pyramids at the line's k:
    /// `h_W(weakest)`, checked.
    pub q1: f64,
    /// The bound from below of `q1` (docs/contract-grasp.md): `margin_checked` exactly when it
    /// meets `q1` within tolerance.
    pub q1_lower: f64,
    /// `"coulomb"` only: the outer pyramids' q1 at the line's k, an upper bound of the
    /// true cones'.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q1_upper: Option<f64>,
    /// The unit wrench the contacts supply least of (q1's direction).
    pub weakest: [f64; 6],
    /// The binding plane; `null` when there is none.
    pub facet: Option<GraspFacet>,
    /// q1 is proven (the facet set complete, docs/contract-spatial.md §1a); false: an
    /// upper bound.
    pub margin_checked: bool,
    /// "inner", "outer" or "coulomb", echoed.
    pub friction: &'static str,
    /// The line's pyramid edges.
    pub pyramid: usize,
    /// Generators at the line's k: Σ points × k.
    pub n_generators: usize,
    /// With a threshold T (`"q1_at_least"`, `--q1-at-least`): whether q1 ≥ T, `true`,
    /// `false` or `"uncertain"`, decided by the bracket `[q1_lower, q1]` reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q1_at_least: Option<Value>,
    /// `"coulomb"` only, when k was doubled: where the verdict was decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refined: Option<GraspRefined>,
    /// Why not in force closure, in words; `None` when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// With `--proof`: the proof of `q1` and `q1_lower` (docs/proof.md), on the generators
    /// `(1, wᵢ)` of the (inner) pyramids at the line's k.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<Proof>,
}

impl GraspReport {
    /// Force closure proven.
    pub(crate) fn held(&self) -> bool {
        self.force_closure == Value::Bool(true)
    }

    /// Neither proven in nor out of force closure.
    pub(crate) fn uncertain(&self) -> bool {
        self.force_closure.is_string()
    }

    /// How two reports on one line differ beyond tolerance (`gate --backend both`): the
    /// verdicts (unless one is uncertain) or q1 by more than 1e-6 relative to max(1, |q1|).
    pub(crate) fn disagreement(&self, other: &GraspReport) -> Option<String> {
        let (a, b) = (&self.force_closure, &other.force_closure);
        if a != b && !self.uncertain() && !other.uncertain() {
            return Some(format!("force_closure {a} vs {b}"));
        }
        let scale = 1f64.max(self.q1.abs()).max(other.q1.abs());
        ((self.q1 - other.q1).abs() > 1e-6 * scale)
            .then(|| format!("q1 {} vs {}", self.q1, other.q1))
    }
}

/// The report of a grasp from its outcomes at the line's k (`first`: one per pyramid,
/// inner first) and, for `"coulomb"`, at the k the refinement ended at (`last`).
/// A `"circular"` line's report comes from its search (`circular`, [`circular_outcome`] of
/// the inner pyramids' outcome), found on it now when not given.
pub(crate) fn judge_grasp(
    scene: &SpatialScene,
    first: &[GraspOutcome],
    last: Option<(usize, &[GraspOutcome])>,
    proof: Option<Proof>,
    circular: Option<CircularOutcome>,
) -> GraspReport {
    if scene.friction == FrictionModel::Circular {
        let c = circular.unwrap_or_else(|| circular_outcome(scene, &first[0], proof.is_some()));
        return judge_bracketed(scene, c);
    }
    let k = scene.pyramid;
    let main = &first[0];
    let coulomb = scene.friction == FrictionModel::Coulomb && first.len() == 2;
    let force_closure = if coulomb {
        let o = last.map_or(first, |(_, o)| o);
        match (o[0].force_closure, o[1].force_closure) {
            (ForceClosure::True, _) => ForceClosure::True,
            (_, ForceClosure::False) => ForceClosure::False,
            _ => ForceClosure::Uncertain,
        }
    } else {
        main.force_closure
    };
    let refined = last
        .filter(|&(kk, o)| coulomb && kk != k && o.len() == 2)
        .map(|(kk, o)| GraspRefined {
            pyramid: kk,
            q1: o[0].q1,
            q1_upper: o[1].q1,
        });
    let facet = (!main.generators.is_empty()).then(|| {
        let generators: Vec<u32> = main.generators.iter().collect();
        let mut contacts: Vec<usize> = generators
            .iter()
            .filter_map(|&g| scene.source(g as usize, k).map(|s| s.contact))
            .collect();
        contacts.dedup();
        GraspFacet {
            normal: main.weakest,
            generators,
            contacts,
        }
    });
    let reason = reason(force_closure, main, coulomb);
    GraspReport {
        id: scene.id.clone(),
        force_closure: force_closure.as_json(),
        q1: main.q1,
        q1_lower: main.q1_lower,
        q1_upper: coulomb.then(|| first[1].q1),
        weakest: main.weakest,
        facet,
        margin_checked: first.iter().all(|o| o.margin_checked),
        friction: scene.friction.as_str(),
        pyramid: k,
        n_generators: scene.generator_count(k),
        q1_at_least: scene
            .q1_at_least
            .map(|t| Decided::at_least(main.q1_lower, main.q1, t).as_json()),
        refined,
        reason,
        proof,
    }
}

/// The discs of a grasp's contact points (docs/contract-grasp.md §5): every point of an
/// edge or face its own.
pub(crate) fn discs(scene: &SpatialScene) -> Vec<Disc> {
    scene
        .contacts
        .iter()
        .enumerate()
        .flat_map(|(ci, c)| {
            let t = tangent_basis(c.normal).0;
            let mu = c.mu.lower();
            c.points.iter().map(move |&p| Disc {
                p,
                n: c.normal,
                mu,
                contact: ci,
                t,
            })
        })
        .collect()
}

/// The discs of a grasp line as the proof checker takes them (docs/proof.md, circular
/// grasps): in [`discs`]' order, which a circular proof's points index.
pub fn grasp_discs(scene: &SpatialScene) -> Vec<CheckedDisc> {
    discs(scene)
        .iter()
        .map(|d| CheckedDisc {
            p: d.p,
            n: d.n,
            mu: d.mu,
        })
        .collect()
}

/// The circular q1 of a grasp line, its bracket started from what the inner pyramids at the
/// line's k proved (`pyramid`: their W lies in the true cones', so its bound from below
/// holds) and their generators, closed to the line's `"tolerance"` (default ε) times the
/// grasp's scale. With `proof`, the bracket is closed whatever the threshold, and proven on
/// its own (docs/proof.md, circular grasps).
pub(crate) fn circular_outcome(
    scene: &SpatialScene,
    pyramid: &GraspOutcome,
    proof: bool,
) -> CircularOutcome {
    let d = discs(scene);
    // The inner pyramid's edges lie on the discs: each generator with its disc's index.
    let k = scene.pyramid;
    let per_disc = scene
        .contacts
        .iter()
        .flat_map(|c| std::iter::repeat_n(c.rays_per_point(k), c.points.len()));
    let disc_of: Vec<u32> = per_disc
        .enumerate()
        .flat_map(|(i, n)| std::iter::repeat_n(i as u32, n))
        .collect();
    let seeds: Vec<([f64; 6], u32)> = scene
        .generators(k, Pyramid::Inner)
        .into_iter()
        .zip(disc_of)
        .collect();
    let w = circular::Discs::new(&d, scene.body.half_size);
    let tol = scene.tolerance.unwrap_or(EPS) * w.scale();
    circular::quality(
        &w,
        &seeds,
        Ask {
            tol,
            at_least: scene.q1_at_least.filter(|_| !proof),
            lower: if proof {
                f64::NEG_INFINITY
            } else {
                pyramid.q1_lower
            },
            proof,
        },
    )
}

/// Whether a grasp line's threshold is decided by the bracketed search on its pyramids'
/// wrenches ([`threshold_outcome`]), stopping as soon as the bracket decides it, rather
/// than by the engine's q1 closed to tolerance: an `"inner"` or `"outer"` line with
/// `"q1_at_least"`, unless a proof is asked (the proof is of the closed q1, docs/proof.md).
pub(crate) fn threshold_searched(scene: &SpatialScene, proof: bool) -> bool {
    !proof
        && scene.q1_at_least.is_some()
        && matches!(scene.friction, FrictionModel::Inner | FrictionModel::Outer)
}

/// The bracketed q1 of a pyramid grasp line with a threshold (its line's pyramids and k),
/// stopped as soon as the threshold is decided; closed to the line's `"tolerance"` (default
/// ε) times max |wᵢ| where it is not.
pub(crate) fn threshold_outcome(scene: &SpatialScene) -> CircularOutcome {
    let k = scene.pyramid;
    let wrenches = scene.generators(k, pyramids(scene.friction)[0]);
    let contacts: Vec<usize> = (0..wrenches.len())
        .map(|i| scene.source(i, k).map_or(0, |s| s.contact))
        .collect();
    let w = circular::Points::new(&wrenches, &contacts);
    let tol = scene.tolerance.unwrap_or(EPS) * w.scale();
    let seeds: Vec<([f64; 6], u32)> = wrenches.iter().zip(0..).map(|(&q, i)| (q, i)).collect();
    circular::quality(
        &w,
        &seeds,
        Ask {
            tol,
            at_least: scene.q1_at_least,
            lower: f64::NEG_INFINITY,
            proof: false,
        },
    )
}

/// The report of a `"circular"` grasp line, or of a pyramid line's threshold
/// ([`threshold_searched`]), from its bracketed search.
pub(crate) fn judge_bracketed(scene: &SpatialScene, c: CircularOutcome) -> GraspReport {
    let force_closure = match c.force_closure {
        Decided::True => ForceClosure::True,
        Decided::False => ForceClosure::False,
        Decided::Uncertain => ForceClosure::Uncertain,
    };
    let main = GraspOutcome {
        force_closure,
        q1: c.q1,
        q1_lower: c.q1_lower,
        weakest: c.weakest,
        margin_checked: c.closed,
        ..GraspOutcome::default()
    };
    GraspReport {
        id: scene.id.clone(),
        force_closure: force_closure.as_json(),
        q1: c.q1,
        q1_lower: c.q1_lower,
        q1_upper: None,
        weakest: c.weakest,
        facet: c.q1.is_finite().then(|| GraspFacet {
            normal: c.weakest,
            generators: c.generators.clone(),
            contacts: c.contacts.clone(),
        }),
        margin_checked: c.closed,
        friction: scene.friction.as_str(),
        pyramid: scene.pyramid,
        n_generators: scene.generator_count(scene.pyramid),
        q1_at_least: c.at_least.map(|a| a.as_json()),
        refined: None,
        reason: reason(force_closure, &main, false),
        proof: c.proof,
    }
}

/// `v` with `places` decimals, as `format!("{v:.places$}")` writes it (the same string),
/// without its slow path: `v·10^places` rounded where it is clearly not a tie (the formatter
/// falls back to exact arithmetic for many such numbers, a few percent of a small grasp's
/// time where every answer has a reason).
fn push_fixed(out: &mut String, v: f64, places: usize) {
    use std::fmt::Write;
    let scale = 10f64.powi(places as i32);
    let t = v * scale;
    let r = t.round();
    // |t| < 2^40: t is within 2^-13 of v·10^places, so r (0.499 from t) is the correctly
    // rounded one.
    if places <= 9 && t.abs() < (1u64 << 40) as f64 && (t - r).abs() < 0.499 {
        let n = r.abs() as u64;
        let unit = 10u64.pow(places as u32);
        if v.is_sign_negative() {
            out.push('-');
        }
        // The digits by itoa (the formatter's padding machinery cost more than the rest).
        let mut digits = itoa::Buffer::new();
        out.push_str(digits.format(n / unit));
        out.push('.');
        let fraction = digits.format(n % unit);
        out.extend(std::iter::repeat_n('0', places - fraction.len()));
        out.push_str(fraction);
    } else {
        let _ = write!(out, "{v:.places$}");
    }
}

/// Why a grasp is not in force closure, in words; `None` when it is.
fn reason(verdict: ForceClosure, main: &GraspOutcome, coulomb: bool) -> Option<String> {
    if verdict == ForceClosure::True {
        return None; // most grasps of a data set: no words to format
    }
    let mut wrench = String::with_capacity(64);
    for (i, &v) in main.weakest.iter().enumerate() {
        wrench.push_str(if i == 0 { "(" } else { ", " });
        push_fixed(&mut wrench, v, 4);
    }
    wrench.push(')');
    match verdict {
        ForceClosure::True => None,
        ForceClosure::False => {
            let mut words = String::with_capacity(160);
            words.push_str("not in force closure: no squeeze of the contacts resists the wrench ");
            words.push_str(&wrench);
            words.push_str(" (q1 ");
            push_fixed(&mut words, main.q1, 6);
            words.push(')');
            Some(words)
        }
        ForceClosure::Uncertain if coulomb => Some(format!(
            "force closure undecided between the inner and the outer pyramids (q1 {:.3e}, \
             weakest against {wrench})",
            main.q1
        )),
        ForceClosure::Uncertain if !main.margin_checked && main.generators.is_empty() => {
            Some(format!(
                "force closure unproven: the bounds did not meet (q1 between {:.3e} and \
                 {:.3e}, weakest against {wrench})",
                main.q1_lower, main.q1
            ))
        }
        ForceClosure::Uncertain if !main.margin_checked => Some(format!(
            "force closure unproven: the facet set could not be proven complete (q1 at most \
             {:.3e}, weakest against {wrench})",
            main.q1
        )),
        ForceClosure::Uncertain => Some(format!(
            "force closure uncertain: q1 {:.3e} is within tolerance of 0 (weakest against \
             {wrench})",
            main.q1
        )),
    }
}

#[cfg(test)]
mod tests {
    /// A threshold's search on a pyramid's wrenches whose 9th point lies, within rounding, on
    /// the span of a ridge through three of a contact's four coplanar wrenches: before the
    /// inner hull spared the face it lies on (`ON_PLANE` in general/hull.rs), the point was
    /// refused and the bracket stayed [0.054, 0.52]. Now the search itself decides q1 ≥ 0.1.
    #[test]
    fn a_threshold_search_through_a_contacts_coplanar_wrenches_decides() {
        let line = r#"{"id": "g8258", "dim": 3, "grasp": true, "half_size": 0.05, "pyramid": 4,
            "friction": "inner", "q1_at_least": 0.1, "contacts": [
            {"points": [[-0.004958113239518583, -0.04175523593517947, -0.027053971706601745]],
             "normal": [0.09916226479037166, 0.8351047187035894, 0.5410794341320349], "mu": 0.5},
            {"points": [[0.0071125085506207626, 0.025612423461047026, 0.04234874244377694]],
             "normal": [-0.14225017101241524, -0.5122484692209405, -0.8469748488755388], "mu": 0.5},
            {"points": [[0.0092023498570943, 0.04234527789245943, -0.024943820824364964]],
             "normal": [-0.184046997141886, -0.8469055578491886, 0.49887641648729925], "mu": 0.5}]}"#;
        let scene = crate::scene::spatial_parse::parse_grasp(line).unwrap();
        let c = super::threshold_outcome(&scene);
        assert_eq!(c.at_least, Some(super::Decided::True), "{c:?}");
        assert!(c.q1_lower >= 0.1 && c.q1 >= 0.1527261274, "{c:?}");
    }

    /// `push_fixed` writes what `format!` does: values near ties of 4 and 6 decimals (a few
    /// ulps either side), tiny and negative ones (`-0.0000`), large and non-finite ones.
    #[test]
    fn fixed_decimals_are_formats_own() {
        let mut rng = crate::rng::Rng::new(7);
        let mut uniform = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut values = vec![
            0.0,
            -0.0,
            0.00005,
            -0.00005,
            0.000049999,
            1e-300,
            -1e-300,
            0.12345,
            0.12355,
            2.5e-5,
            1e12,
            -1e12,
            1e20,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for _ in 0..200_000 {
            let e = (uniform() * 24.0 - 16.0).round();
            let mut v = (uniform() - 0.5) * 10f64.powf(e);
            if uniform() < 0.3 {
                let scale = if uniform() < 0.5 { 1e4 } else { 1e6 };
                let tie = ((v * scale).floor() + 0.5) / scale;
                let ulps = (uniform() * 7.0) as i64 - 3;
                v = f64::from_bits((tie.to_bits() as i64 + ulps) as u64);
            }
            values.push(v);
        }
        for v in values {
            for places in [4, 6] {
                let mut s = String::new();
                super::push_fixed(&mut s, v, places);
                assert_eq!(s, format!("{v:.places$}"), "{v:e} to {places} places");
            }
        }
    }
}
