//! What a planar picture explains, read from the scene and its report alone: the need it
//! shows, the witness's forces, what binds, how the box fails, and the caption that says so.

use super::frame::short;
use crate::planar::tables::Candidate;
use crate::scene::{GeneratorSource, HoldReport, NeedReport, Scene, LINE_TOLERANCE};

/// How the box fails, read from the certificate (a virtual motion along which gravity does
/// work and no contact resists: velocity `(y_x, y_z)` of the reference point, turning rate
/// `y_τ/ℓ`, positive clockwise in the picture).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Failure {
    /// Turning about `pivot` (the motion's fixed point), a contact's end when the binding
    /// candidate names one.
    Tip {
        /// The fixed point `(x, z)`, relative to the reference point, in the scene's length units.
        pivot: [f64; 2],
        /// The sense of the turn in the picture.
        clockwise: bool,
    },
    /// Translating along `direction` (unit), the fixed point far away or at infinity.
    Slide {
        /// Unit direction `(x, z)` of the centre of mass's motion (along the contact line
        /// when friction edges of contacts on one line bind).
        direction: [f64; 2],
    },
}

/// What a picture explains: one need (the binding one), its forces or its failure.
pub struct Story {
    /// Index into [`HoldReport::needs`]: the binding need, or when not held the worst
    /// certified one.
    pub need_index: usize,
    /// That need's mass, in the nominal mass's units.
    pub mass: f64,
    /// That need's centre-of-mass x-offset, in the scene's length units.
    pub com_offset_x: f64,
    /// Contact forces of the witness, merged per application point: `(point, force)`, the
    /// force in nominal weights `m0·g` (float64-polished weights).
    pub forces: Vec<([f64; 2], [f64; 2])>,
    /// How the box fails, when the need has a certificate.
    pub failure: Option<Failure>,
    /// When a sliding contact's ray binds and the box turns about a point off the contacts:
    /// the binding forces' lines of action, from their points to that pivot (about it they
    /// have no moment, and gravity's turns the box).
    pub lines_of_action: Vec<[[f64; 2]; 2]>,
    /// Indices into `Scene::contacts` of the contacts the binding candidate is built from.
    pub binding_contacts: Vec<usize>,
    /// Caption lines after the title.
    pub lines: Vec<String>,
}

/// Derives the story of the picture from the scene and its report.
pub fn story(scene: &Scene, report: &HoldReport) -> Story {
    let tol = LINE_TOLERANCE * scene.body.half_size;
    let need_index = explained_need(report);
    let need = &report.needs[need_index];
    let ends = GeneratorEnds {
        scene,
        sources: scene.generator_sources(),
    };
    let forces = witness_forces(scene, need, &ends, tol);
    let binding = Binding::of(scene, need, &ends, tol);
    let failure = need
        .certificate
        .and_then(|y| failure(scene, need, y, &binding));
    let lines_of_action = match failure {
        Some(Failure::Tip { pivot, .. }) if binding.sliding_ray => {
            let generators = need.binding.as_ref().map_or(&[][..], |b| &b.generators);
            generators
                .iter()
                .filter_map(|&g| ends.at(g).map(|(_, p)| [p, pivot]))
                .filter(|[p, q]| (p[0] - q[0]).hypot(p[1] - q[1]) > tol)
                .collect()
        }
        _ => Vec::new(),
    };
    let lines = caption(scene, report, need_index, &forces, failure, &binding);
    Story {
        need_index,
        mass: need.mass,
        com_offset_x: need.com_offset_x,
        forces,
        failure,
        lines_of_action,
        // Highlighted only to show what fails.
        binding_contacts: if report.held {
            Vec::new()
        } else {
            binding.contacts
        },
        lines,
    }
}

/// The need the picture explains: the binding one; when not held and some need is
/// certified, the worst certified one.
fn explained_need(report: &HoldReport) -> usize {
    let need_index = report
        .binding_need
        .index
        .min(report.needs.len().saturating_sub(1));
    if !report.held
        && report
            .needs
            .get(need_index)
            .is_some_and(|n| n.certificate.is_none())
    {
        if let Some(k) = (0..report.needs.len())
            .filter(|&k| report.needs[k].certificate.is_some())
            .min_by(|&a, &b| report.needs[a].margin.total_cmp(&report.needs[b].margin))
        {
            return k;
        }
    }
    need_index
}

/// Where each of the scene's generators acts: its source and the contact end it starts from.
struct GeneratorEnds<'a> {
    scene: &'a Scene,
    sources: Vec<GeneratorSource>,
}

impl GeneratorEnds<'_> {
    fn at(&self, g: u32) -> Option<(&GeneratorSource, [f64; 2])> {
        self.sources.get(g as usize).map(|s| {
            let c = &self.scene.contacts[s.contact];
            (s, if s.endpoint == 0 { c.p0 } else { c.p1 })
        })
    }
}

/// The witness's contact forces, merged per application point (points within `tol` are one).
fn witness_forces(
    scene: &Scene,
    need: &NeedReport,
    ends: &GeneratorEnds,
    tol: f64,
) -> Vec<([f64; 2], [f64; 2])> {
    let mut forces: Vec<([f64; 2], [f64; 2])> = Vec::new();
    if let Some(w) = &need.witness {
        for (&g, &lambda) in w.generators.iter().zip(&w.weights) {
            let Some((s, p)) = ends.at(g) else { continue };
            let ray = scene.contacts[s.contact].ray(s.ray);
            let f = [lambda * ray[0], lambda * ray[1]];
            match forces
                .iter_mut()
                .find(|(q, _)| (q[0] - p[0]).hypot(q[1] - p[1]) <= tol)
            {
                Some((_, sum)) => *sum = [sum[0] + f[0], sum[1] + f[1]],
                None => forces.push((p, f)),
            }
        }
    }
    forces
}

/// What binds the need, in words, and the contacts it is built from.
struct Binding {
    /// Indices into `Scene::contacts` of the binding generators' contacts (repeats in a row
    /// dropped).
    contacts: Vec<usize>,
    /// The point both binding generators start from and its name ("contact 2 (pair 1) p0"),
    /// when they are a pair at one point: what the box tips about.
    one_point: Option<([f64; 2], String)>,
    /// Friction edges bind (of contacts on one line): the box slides.
    sliding: bool,
    /// A sliding contact's ray binds (its force has one direction: the box can turn about
    /// where the binding rays' lines meet, away from any contact).
    sliding_ray: bool,
    /// What binds, for the caption.
    words: String,
}

impl Binding {
    fn of(scene: &Scene, need: &NeedReport, ends: &GeneratorEnds, tol: f64) -> Binding {
        let generators: &[u32] = need
            .binding
            .as_ref()
            .map_or(&[], |b| b.generators.as_slice());
        let mut contacts: Vec<usize> = generators
            .iter()
            .filter_map(|&g| ends.sources.get(g as usize).map(|s| s.contact))
            .collect();
        contacts.dedup();
        let one_point = match generators {
            [a, b] => match (ends.at(*a), ends.at(*b)) {
                (Some((sa, pa)), Some((_, pb))) if (pa[0] - pb[0]).hypot(pa[1] - pb[1]) <= tol => {
                    let c = &scene.contacts[sa.contact];
                    let end = if c.is_point(tol) {
                        String::new()
                    } else {
                        format!(" p{}", sa.endpoint)
                    };
                    Some((pa, format!("{}{end}", c.label())))
                }
                _ => None,
            },
            _ => None,
        };
        let (words, sliding) = binding_words(scene, need, &one_point);
        let sliding_ray = generators
            .iter()
            .any(|&g| ends.sources.get(g as usize).is_some_and(|s| s.ray == 0));
        Binding {
            contacts,
            one_point,
            sliding,
            sliding_ray,
            words,
        }
    }
}

/// What binds, in words, and whether that is a slide: a pair plane through one point is a
/// tip about it, through two parallel friction edges (or a friction edge's own plane) a slide.
fn binding_words(
    scene: &Scene,
    need: &NeedReport,
    one_point: &Option<([f64; 2], String)>,
) -> (String, bool) {
    match &need.binding {
        None => (
            "nothing: the contacts' wrenches fill every direction".to_string(),
            false,
        ),
        Some(b) if b.generators.is_empty() => {
            ("no contact pushes against gravity".to_string(), false)
        }
        Some(b) => match (Candidate::at(b.candidate), one_point) {
            (Some(Candidate::PairPlane { .. }), Some((p, name))) => (
                format!("tipping about {name} at {} ({})", v2(*p), b.kind),
                false,
            ),
            (Some(Candidate::PairPlane { .. }), None) if parallel(scene, &b.generators) => (
                format!(
                    "sliding: the friction edges {} ({})",
                    b.sources.join(" and "),
                    b.kind
                ),
                true,
            ),
            (Some(Candidate::GeneratorPlane { axis: 2, .. }), _) => (
                format!(
                    "sliding: the friction edge {} ({})",
                    b.sources.join(", "),
                    b.kind
                ),
                true,
            ),
            _ => (
                format!("the plane {} through {}", b.kind, b.sources.join(", ")),
                false,
            ),
        },
    }
}

/// Whether `generators` are two generators of one direction (the friction edges of contacts
/// on one line).
fn parallel(scene: &Scene, generators: &[u32]) -> bool {
    let gens = scene.generators_f64();
    match generators {
        [i, j] => match (gens.get(*i as usize), gens.get(*j as usize)) {
            (Some(a), Some(c)) => {
                let cr = a[0] * c[1] - a[1] * c[0];
                cr.abs() <= 1e-9 * a[0].hypot(a[1]) * c[0].hypot(c[1])
                    && a[0] * c[0] + a[1] * c[1] > 0.0
            }
            _ => false,
        },
        _ => false,
    }
}

/// The failure, from the certificate `y`: a turn about its fixed point when that point is a
/// contact's (the box pivots on it) or near the box, else a slide along the centre of mass's
/// velocity.
fn failure(scene: &Scene, need: &NeedReport, y: [f32; 3], binding: &Binding) -> Option<Failure> {
    let y = y.map(f64::from);
    let omega = y[2] / scene.body.half_size;
    if let Some(pivot) = pivot(scene, y, omega, binding) {
        return Some(Failure::Tip {
            pivot,
            clockwise: omega > 0.0,
        });
    }
    slide(scene, need, y, omega, binding).map(|direction| Failure::Slide { direction })
}

/// The motion's fixed point when the box turns about a contact (a pivot), or about a point
/// of the box or near it (it spins in place, e.g. pressed between contacts that let it
/// turn); a fixed point farther away reads as a slide. Snapped to the binding point it names.
fn pivot(scene: &Scene, y: [f64; 3], omega: f64, binding: &Binding) -> Option<[f64; 2]> {
    let ell = scene.body.half_size;
    let on_contact = |p: [f64; 2]| {
        scene
            .contacts
            .iter()
            .any(|c| segment_distance(p, c.p0, c.p1) <= 1e-3 * ell)
    };
    let centre = (omega.abs() > 1e-12).then(|| [y[1] / omega, -y[0] / omega]);
    // With a sliding ray on the binding plane the box turns about where the binding rays'
    // lines meet: near when among the contacts (a pushing finger's height).
    let reach = if binding.sliding_ray {
        scene
            .contacts
            .iter()
            .flat_map(|c| [c.p0, c.p1])
            .fold(1.5 * ell, |m, p| m.max(p[0].abs().max(p[1].abs())))
    } else {
        1.5 * ell
    };
    let near = |p: [f64; 2]| p[0].abs().max(p[1].abs()) <= reach;
    let mut pivot = centre.filter(|&p| !binding.sliding && (on_contact(p) || near(p)))?;
    if let Some((p, _)) = &binding.one_point {
        if (p[0] - pivot[0]).hypot(p[1] - pivot[1]) <= 1e-3 * ell {
            pivot = *p;
        }
    }
    Some(pivot)
}

/// The unit direction the centre of mass moves in, when it moves.
fn slide(
    scene: &Scene,
    need: &NeedReport,
    y: [f64; 3],
    omega: f64,
    binding: &Binding,
) -> Option<[f64; 2]> {
    // Velocity at the centre of mass (x, 0): v + ω·(r_z, −r_x).
    let mut v = [y[0], y[1] - omega * need.com_offset_x];
    // Coulomb friction is not associated: the certificate's motion also lifts off at
    // atan(μ). When it binds on the friction edges of contacts along one line, the box
    // slides along that line: draw the motion's part along it.
    let tangents: Vec<[f64; 2]> = binding
        .contacts
        .iter()
        .map(|&k| scene.contacts[k].tangent())
        .collect();
    if let Some(&t) = tangents.first().filter(|_| binding.sliding) {
        let along = v[0] * t[0] + v[1] * t[1];
        if tangents
            .iter()
            .all(|u| (u[0] * t[1] - u[1] * t[0]).abs() <= 1e-9)
            && along.abs() > 1e-9
        {
            v = [along * t[0], along * t[1]];
        }
    }
    let speed = v[0].hypot(v[1]);
    (speed > 1e-12).then(|| [v[0] / speed, v[1] / speed])
}

/// The caption's lines: the need and what binds, the witness's forces, the certificate and
/// the motion, the edit.
fn caption(
    scene: &Scene,
    report: &HoldReport,
    need_index: usize,
    forces: &[([f64; 2], [f64; 2])],
    failure: Option<Failure>,
    binding: &Binding,
) -> Vec<String> {
    let need = &report.needs[need_index];
    let mut lines = vec![format!(
        "Need {} of {} (binding): mass {}, centre of mass at x = {}; binds: {}.",
        need_index,
        report.needs.len(),
        short(need.mass),
        short(need.com_offset_x),
        binding.words
    )];
    if !forces.is_empty() {
        let list: Vec<String> = forces
            .iter()
            .map(|(p, f)| format!("{} at {}", v2(*f), v2(*p)))
            .collect();
        lines.push(format!(
            "Contact forces that hold it (witness, in nominal weights m0·g): {}.",
            list.join(", ")
        ));
    }
    if let Some(y) = need.certificate {
        let meet = match failure {
            Some(Failure::Tip { .. }) if binding.sliding_ray && binding.one_point.is_none() => {
                ", where the binding forces' lines meet (dashed): about it they have no moment \
                 and gravity's turns the box"
            }
            _ => "",
        };
        lines.push(format!(
            "Certificate y = ({:.4}, {:.4}, {:.4}), y·need = {:.4} < 0: {}{meet}.",
            y[0] + 0.0,
            y[1] + 0.0,
            y[2] + 0.0,
            need.margin,
            motion_words(failure, &binding.one_point)
        ));
    } else if !report.held && need.verdict == "uncertain" {
        lines.push("Uncertain: within tolerance of the boundary neither a witness nor a certificate passes; the gate treats it as not held.".to_string());
    }
    for sl in &report.sliding {
        lines.push(format!(
            "Sliding: {} slides along {} (its slip {}): its force is the one friction ray {} at \
             each end, no static friction.",
            scene.contacts[sl.contact].label(),
            v2(sl.direction),
            v2(sl.slip),
            v2(sl.ray)
        ));
    }
    if let Some(e) = &scene.edit {
        lines.push(format!(
            "Edit: kept pairs {:?} (their overlaps are the contacts drawn), no overlap {:?}, made {:?}, broken {:?}.",
            e.kept, e.no_overlap, e.made, e.broken
        ));
    }
    lines
}

/// How the box moves, in words (the binding point named when it is the pivot).
fn motion_words(failure: Option<Failure>, one_point: &Option<([f64; 2], String)>) -> String {
    match failure {
        Some(Failure::Tip { pivot, clockwise }) => {
            let name = one_point
                .as_ref()
                .filter(|(p, _)| *p == pivot)
                .map(|(_, n)| format!("{n} "))
                .unwrap_or_default();
            format!(
                "the box tips {} about {name}{}",
                if clockwise {
                    "clockwise"
                } else {
                    "counterclockwise"
                },
                v2(pivot)
            )
        }
        Some(Failure::Slide { direction }) if direction[1] < -0.99 => {
            format!("the box falls (toward {})", v2(direction))
        }
        Some(Failure::Slide { direction }) => {
            format!("the box slides toward {}", v2(direction))
        }
        None => "no motion to draw".to_string(),
    }
}

/// A point as "(x, z)".
fn v2(p: [f64; 2]) -> String {
    format!("({}, {})", short(p[0]), short(p[1]))
}

/// Distance from `p` to the segment `[a, b]`.
fn segment_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    let t = if len2 > 0.0 {
        (((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p[0] - a[0] - t * d[0]).hypot(p[1] - a[1] - t * d[1])
}
