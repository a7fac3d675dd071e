//! What a spatial picture explains ([`story`]): the need, its witness forces summed per
//! point or its certificate's motion ([`motion`]), what fails, and the caption's lines. Both
//! panels and the page read it; it reads neither.

use super::super::frame::short;
use crate::general::GENERAL_MARGIN_CAP;
use crate::scene::spatial::{add, cross, dot, norm3, sub};
use crate::scene::{FrictionModel, Pyramid, SpatialReport, SpatialScene};

/// A turn whose axis (and pitch) lie farther than this many half-sizes from the centre of
/// mass moves the body nearly as a translation: drawn as a slide.
const FAR: f64 = 6.0;
/// How near (in half-sizes) a contact point must lie to the screw axis to be named as one
/// the body tips about.
const ON_AXIS: f64 = 1e-3;

/// The motion the certificate `y` says gravity makes, as the picture draws it: the velocity
/// of a point `p` (relative to the reference point) is `v(p) = y_f + ω × p`, `ω = y_τ/ℓ`; a
/// turn about the certificate's screw axis (the scene's own `Twist`) where that axis passes
/// near the centre of mass, else the centre of mass's slide.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    /// A turn (a screw) about the axis through `point` along `axis`.
    Turn {
        /// Unit direction of ω: the body turns counterclockwise looking down it.
        axis: [f64; 3],
        /// The point of the axis nearest the reference point: `ω × y_f / |ω|²`.
        point: [f64; 3],
        /// Pitch `ω·y_f / |ω|²`: how far it advances along the axis per radian.
        pitch: f64,
        /// Indices into `SpatialScene::contacts` of the contacts with a point on the axis:
        /// the ones it tips about.
        through: Vec<usize>,
    },
    /// A translation along `direction` (unit): the velocity of the centre of mass.
    Slide {
        /// Unit direction of the centre of mass's motion.
        direction: [f64; 3],
    },
}

/// What a spatial picture explains: one need, its forces or its motion.
pub struct SpatialStory {
    /// Index into [`SpatialReport::needs`]: the binding need; when not held the worst
    /// certified one (else the worst uncertain one), the need the reason names.
    pub need_index: usize,
    /// That need's mass, in nominal masses.
    pub mass: f64,
    /// That need's centre of mass `(δ_x, δ_y, 0)`, relative to the reference point.
    pub com: [f64; 3],
    /// The witness's contact forces summed per application point: `(point, force)`, the
    /// force in nominal weights `m0·g`.
    pub forces: Vec<([f64; 3], [f64; 3])>,
    /// The certificate's motion, when the need has one.
    pub motion: Option<Motion>,
    /// Contacts on the binding plane, when not held (what fails).
    pub binding_contacts: Vec<usize>,
    /// The pyramid the drawn edges and the forces use.
    pub pyramid: Pyramid,
    /// Caption lines after the title.
    pub lines: Vec<String>,
}

pub(super) fn fmt_margin(m: f64, capped: bool) -> String {
    if m >= GENERAL_MARGIN_CAP {
        if capped {
            format!("{GENERAL_MARGIN_CAP} (the cap: no plane bounds the contacts)")
        } else {
            format!("{GENERAL_MARGIN_CAP} (at least)")
        }
    } else if m.abs() >= 1e-3 || m == 0.0 {
        format!("{:.4}", m + 0.0)
    } else {
        format!("{m:.2e}")
    }
}

fn v3(p: [f64; 3]) -> String {
    format!("({}, {}, {})", short(p[0]), short(p[1]), short(p[2]))
}

/// Distance from `p` to the line through `q` along the unit `u`.
fn line_distance(p: [f64; 3], q: [f64; 3], u: [f64; 3]) -> f64 {
    let d = sub(p, q);
    norm3(sub(d, u.map(|v| v * dot(d, u))))
}

/// The pyramid the margins, witnesses and drawn edges come from.
fn main_pyramid(f: FrictionModel) -> Pyramid {
    match f {
        FrictionModel::Outer => Pyramid::Outer,
        FrictionModel::Inner | FrictionModel::Coulomb | FrictionModel::Circular => Pyramid::Inner,
    }
}

/// The motion of the certificate `y` for a body of half-size `ell` with its centre of mass
/// at `com` (see [`Motion`]); `None` when `y` is zero.
pub(crate) fn motion(scene: &SpatialScene, y: [f64; 6], com: [f64; 3]) -> Option<Motion> {
    let ell = scene.body.half_size;
    let yf = [y[0], y[1], y[2]];
    let omega = [y[3] / ell, y[4] / ell, y[5] / ell];
    let w = norm3(omega);
    let v_com = add(yf, cross(omega, com), 1.0);
    let speed = norm3(v_com);
    // The screw of the certificate (one formula: `scene::Twist`), drawn as a turn when
    // its axis passes near enough for the centre of mass to move slower than FAR·ℓ·|ω|.
    if let crate::scene::Twist::Turn { point, axis, pitch } =
        crate::scene::Twist::of_certificate(&y, ell)
    {
        if speed <= FAR * ell * w {
            let through = scene
                .contacts
                .iter()
                .enumerate()
                .filter(|(_, c)| {
                    c.points
                        .iter()
                        .any(|&p| line_distance(p, point, axis) <= ON_AXIS * ell)
                })
                .map(|(i, _)| i)
                .collect();
            return Some(Motion::Turn {
                axis,
                point,
                pitch,
                through,
            });
        }
    }
    (speed > 0.0).then(|| Motion::Slide {
        direction: v_com.map(|v| v / speed),
    })
}

/// Derives the story of the picture from the scene and its report.
pub fn story(scene: &SpatialScene, report: &SpatialReport) -> SpatialStory {
    let ell = scene.body.half_size;
    let n = report.needs.len();
    let worst = |verdict: &str| {
        (0..n)
            .filter(|&i| report.needs[i].verdict == verdict)
            .min_by(|&a, &b| report.needs[a].margin.total_cmp(&report.needs[b].margin))
    };
    let need_index = if report.held {
        report.binding_need.index
    } else {
        worst("unsupported")
            .or_else(|| worst("uncertain"))
            .unwrap_or(report.binding_need.index)
    }
    .min(n.saturating_sub(1));
    let need = &report.needs[need_index];
    let com = [need.com_offset[0], need.com_offset[1], 0.0];
    let k = report.pyramid;
    let pyramid = main_pyramid(scene.friction);

    // Witness forces, summed per application point.
    let mut forces: Vec<([f64; 3], [f64; 3])> = Vec::new();
    if let Some(w) = &need.witness {
        let edges: Vec<Vec<[f64; 3]>> = scene.contacts.iter().map(|c| c.rays(k, pyramid)).collect();
        for (&g, &lambda) in w.generators.iter().zip(&w.weights) {
            let Some(s) = scene.source(g as usize, k) else {
                continue;
            };
            let p = scene.contacts[s.contact].points[s.point];
            let f = edges[s.contact][s.edge].map(|v| v * lambda);
            match forces
                .iter_mut()
                .find(|(q, _)| norm3(sub(*q, p)) <= 1e-9 * ell)
            {
                Some((_, sum)) => *sum = add(*sum, f, 1.0),
                None => forces.push((p, f)),
            }
        }
    }
    let binding_contacts = if report.held {
        Vec::new()
    } else {
        need.binding
            .as_ref()
            .map(|b| b.contacts.clone())
            .unwrap_or_default()
    };
    let mut motion = need.certificate.and_then(|y| motion(scene, y, com));
    // Coulomb friction is not associated: a certificate's slide also lifts off the contacts.
    // When the binding contacts share one plane that bears the body (its normal up), the body
    // slides along it: draw that part. Away from contacts that only press down, it falls.
    let mut lift = None;
    if let Some(Motion::Slide { direction }) = &mut motion {
        let normals: Vec<[f64; 3]> = binding_contacts
            .iter()
            .map(|&c| scene.contacts[c].normal)
            .collect();
        if let Some(&n) = normals.first() {
            let along = dot(*direction, n);
            let t = add(*direction, n, -along);
            if normals.iter().all(|m| norm3(sub(*m, n)) <= 1e-9)
                && n[2] > 1e-9
                && along > 0.0
                && norm3(t) > 1e-6
            {
                lift = Some(along.asin().to_degrees());
                *direction = t.map(|v| v / norm3(t));
            }
        }
    }

    let mut lines = vec![format!(
        "Need {need_index} of {n}{}: mass {}, centre of mass at (δx, δy) = ({}, {}); {} friction, \
         {k} pyramid edges a point, {} generators; margin {}.",
        if need_index == report.binding_need.index {
            " (binding)"
        } else {
            ""
        },
        short(need.mass),
        short(com[0]),
        short(com[1]),
        report.friction,
        report.n_generators,
        fmt_margin(need.margin, need.capped),
    )];
    if !forces.is_empty() {
        let list: Vec<String> = forces
            .iter()
            .map(|(p, f)| format!("{} at {}", v3(*f), v3(*p)))
            .collect();
        lines.push(format!(
            "Contact forces that hold it (witness, summed per point, in nominal weights m0·g): {}.",
            list.join(", ")
        ));
    }
    if let Some(y) = need.certificate {
        let how = match &motion {
            Some(Motion::Turn {
                axis,
                point,
                pitch,
                through,
            }) => {
                let about = if through.is_empty() {
                    String::new()
                } else {
                    format!(
                        " — it tips about {}",
                        through
                            .iter()
                            .map(|&c| format!("c{}", scene.contacts[c].source))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                format!(
                    "gravity turns the body about the axis through {} along {} (pitch {}){about}",
                    v3(*point),
                    v3(*axis),
                    short(*pitch)
                )
            }
            Some(Motion::Slide { direction }) if direction[2] < -0.99 => {
                format!("the body falls (toward {})", v3(*direction))
            }
            Some(Motion::Slide { direction }) => {
                let lifts = lift
                    .map(|a| {
                        format!(
                            " along the contact plane (the certificate's motion also lifts off \
                             it by {a:.1}°)"
                        )
                    })
                    .unwrap_or_default();
                format!("the body slides toward {}{lifts}", v3(*direction))
            }
            None => "no motion to draw".to_string(),
        };
        lines.push(format!(
            "Certificate y = ({}), read as a twist (v(p) = y_f + (y_τ × p)/ℓ, which no contact \
             resists and gravity drives): {how}.",
            y.iter()
                .map(|v| format!("{:.4}", v + 0.0))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    } else if !report.held && need.verdict == "uncertain" {
        lines.push(
            "Uncertain: neither a witness nor a certificate passes for this need; the gate \
             treats it as not held."
                .to_string(),
        );
    }
    for sl in &report.sliding {
        lines.push(format!(
            "Sliding: {} slides along {} (its slip {}): its force is the one friction ray {} \
             at each point, no static friction, no pyramid.",
            scene.contacts[sl.contact].label(),
            v3(sl.direction),
            v3(sl.slip),
            v3(sl.ray)
        ));
    }
    let v2 = |p: [f64; 2]| format!("({}, {})", short(p[0]), short(p[1]));
    if let (Some(vertices), Some(shape)) = (&report.support_region, report.support_region_shape) {
        let region = match (shape, vertices.as_slice()) {
            ("empty", _) | (_, []) => "empty: no centre of mass is held".to_string(),
            ("point", [p, ..]) => format!("the point δ = {}", v2(*p)),
            ("segment", [a, b, ..]) => format!("the segment from {} to {}", v2(*a), v2(*b)),
            (_, v) => format!("a polygon of {} vertices", v.len()),
        };
        let region = if report.support_region_clipped == Some(true) {
            format!("{region}, cut at ±4ℓ (it reaches farther)")
        } else {
            region
        };
        lines.push(format!("Support region at the nominal mass: {region}."));
    }
    if let Some(r) = &report.reason {
        lines.push(format!("Why: {r}."));
    }
    SpatialStory {
        need_index,
        mass: need.mass,
        com,
        forces,
        motion,
        binding_contacts,
        pyramid,
        lines,
    }
}
