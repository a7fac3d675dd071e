//! The proof of a circular grasp's q1 (docs/proof.md, "Circular grasps"). The true friction
//! cones have no finite list of generators, so the proof names its own: points of the
//! contacts' discs, each `[disc, fx, fy, fz]`. The checker first checks that each force lies
//! on its disc `{n + μt : t ⊥ n, |t| ≤ 1}` (to rounding, which it counts), rebuilds its
//! generator `(1, f, p × f/ℓ)`, and then asks of the faces or the nearest point exactly what
//! it asks of a pyramid grasp's ([`super::check`]). The bound from above is the support
//! function's closed form at the answer's `weakest` (or the nearest proof's plane `(0, u)`):
//! `h_W(u) = maxᵢ v·n + μ|v − (v·n)n|`, `v = u_f + (u_τ × p)/ℓ`, which no finite set of
//! points could give.

use super::{check, compare, Checked, DiscPoint, Proof};
use crate::general::linalg::{dot, norm};

/// One contact point's disc, as the checker rebuilds it from the line: the point relative
/// to the reference point, the unit inward normal, μ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckedDisc {
    /// The point, in the scene's length unit.
    pub p: [f64; 3],
    /// The unit inward normal.
    pub n: [f64; 3],
    /// The friction coefficient.
    pub mu: f64,
}

/// A point further than this off its disc (relative to `1 + μ`) is refused: the engine's lie
/// on it to rounding.
const OFF: f64 = 1e-9;

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

impl CheckedDisc {
    /// A bound on the distance from `f` to the disc: `√((f·n − 1)² + max(0, |f_t| − μ)²)`
    /// and the rounding of computing it.
    fn off(&self, f: [f64; 3]) -> f64 {
        let fnn = dot(&f, &self.n);
        let ft = [0, 1, 2].map(|a| f[a] - fnn * self.n[a]);
        let over = (norm(&ft) - self.mu).max(0.0);
        ((fnn - 1.0).powi(2) + over * over).sqrt() + 8.0 * f64::EPSILON * norm(&f)
    }

    /// `(f, p × f/ℓ)`.
    fn wrench(&self, f: [f64; 3], ell: f64) -> [f64; 6] {
        let m = cross(self.p, f);
        [f[0], f[1], f[2], m[0] / ell, m[1] / ell, m[2] / ell]
    }

    /// `h_i(u) = v·n + μ|v − (v·n)n|`, `v = u_f + (u_τ × p)/ℓ`.
    fn support(&self, u: &[f64; 6], ell: f64) -> f64 {
        let c = cross([u[3], u[4], u[5]], self.p);
        let v = [0, 1, 2].map(|a| u[a] + c[a] / ell);
        let vn = dot(&v, &self.n);
        let vt = [0, 1, 2].map(|a| v[a] - vn * self.n[a]);
        vn + self.mu * norm(&vt)
    }
}

/// Checks a circular grasp's answer against its proof: the points on their discs, the
/// faces (inside) or the nearest point (outside) as [`super::check`] checks a pyramid
/// grasp's, on the points' generators; the bound from below lowered by how far rounding may
/// have moved the points, the bound from above `h_W(u)/|u|` by the closed form (`u` the
/// answer's `weakest` inside, the plane's outside); then the answer's `value` (q1), `lower`
/// (q1_lower) against them within `tol` (ε·scale), and `closed` (margin_checked) within
/// `closed_tol` (the line's `"tolerance"` times the scale). `ell` is ℓ.
#[allow(clippy::too_many_arguments)] // an answer's fields, as the answer names them
pub fn check_disc_answer(
    discs: &[CheckedDisc],
    ell: f64,
    proof: &Proof,
    weakest: &[f64],
    value: f64,
    lower: f64,
    closed: bool,
    tol: f64,
    closed_tol: f64,
) -> Result<Checked, String> {
    let points = match proof {
        Proof::Inner(p) => &p.points,
        Proof::Nearest(p) => &p.points,
    };
    if points.is_empty() {
        return Err("a circular grasp's proof names its points".into());
    }
    if !(ell > 0.0 && ell.is_finite()) {
        return Err(format!("half_size {ell}: not a length"));
    }
    let mut lifted = Vec::with_capacity(points.len() * 7);
    // How far the points as given (and their generators as computed) may lie from W.
    let mut slack = 0.0f64;
    for (j, &DiscPoint(i, fx, fy, fz)) in points.iter().enumerate() {
        let disc = discs.get(i as usize).ok_or(format!(
            "point {j}: disc {i} beyond the line's {}",
            discs.len()
        ))?;
        let f = [fx, fy, fz];
        let off = disc.off(f);
        if !(off <= OFF * (1.0 + disc.mu)) {
            return Err(format!("point {j}: {off} off disc {i}"));
        }
        let w = disc.wrench(f, ell);
        let arm = (1.0 + (norm(&disc.p) / ell).powi(2)).sqrt();
        slack = slack.max(off * arm + 8.0 * f64::EPSILON * norm(&w));
        lifted.push(1.0);
        lifted.extend_from_slice(&w);
    }
    let e0 = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let mut c = check(&lifted, 7, &e0, proof)?;
    c.lower -= slack;
    let u: [f64; 6] = match proof {
        Proof::Inner(_) => weakest
            .try_into()
            .map_err(|_| "weakest: not 6 numbers".to_string())?,
        // check() has made sure the plane is (0, u).
        Proof::Nearest(p) => std::array::from_fn(|a| p.plane[a + 1]),
    };
    let nu = norm(&u);
    if !(nu > 0.0 && nu.is_finite()) {
        return Err("the direction from above is not a direction".into());
    }
    c.upper = discs
        .iter()
        .map(|d| d.support(&u, ell))
        .fold(f64::NEG_INFINITY, f64::max)
        / nu;
    compare(
        &c,
        matches!(proof, Proof::Inner(_)),
        value,
        lower,
        false,
        tol,
    )?;
    if closed && value - c.lower > closed_tol.max(tol) {
        return Err(format!(
            "checked, but the proof leaves [{}, {value}] open",
            c.lower
        ));
    }
    Ok(c)
}
