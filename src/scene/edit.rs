//! Edits (docs/contract-planar.md §9): the kept contacts of σ → σ′, the overlap of old and new contact sets.

use super::types::{dist, Contact, EditSummary};

/// The overlap of `new`'s contact set with `old`'s, along `old`'s line (a point contact's line
/// runs along its tangent), as a contact with `old`'s normal and μ; `None` when empty.
///
/// A point of `new` counts as on the line within `tol`. A `new` segment crossing the line
/// overlaps it in one point. The overlap's endpoints lie on the old line, in the old
/// orientation; an overlap shorter than `tol` is a point.
pub(crate) fn overlap(old: &Contact, new: &Contact, tol: f64) -> Option<Contact> {
    let len = dist(old.p0, old.p1);
    let (u, hi_old) = if len <= tol {
        (old.tangent(), 0.0)
    } else {
        (
            [(old.p1[0] - old.p0[0]) / len, (old.p1[1] - old.p0[1]) / len],
            len,
        )
    };
    let v = [-u[1], u[0]];
    // (position along the line, signed distance from it)
    let coords = |q: [f64; 2]| {
        let d = [q[0] - old.p0[0], q[1] - old.p0[1]];
        (d[0] * u[0] + d[1] * u[1], d[0] * v[0] + d[1] * v[1])
    };
    let (s0, d0) = coords(new.p0);
    let (s1, d1) = coords(new.p1);
    let (lo, hi) = match (d0.abs() <= tol, d1.abs() <= tol) {
        (true, true) => (s0.min(s1), s0.max(s1)),
        (true, false) => (s0, s0),
        (false, true) => (s1, s1),
        (false, false) if (d0 > 0.0) != (d1 > 0.0) => {
            let s = s0 + (s1 - s0) * d0 / (d0 - d1);
            (s, s)
        }
        _ => return None,
    };
    let (mut lo, mut hi) = (lo.max(0.0), hi.min(hi_old));
    if hi < lo - tol {
        return None;
    }
    if hi - lo <= tol {
        let mid = 0.5 * (lo + hi);
        lo = mid;
        hi = mid;
    }
    let at = |s: f64| [old.p0[0] + s * u[0], old.p0[1] + s * u[1]];
    Some(Contact {
        p0: at(lo),
        p1: at(hi),
        ..old.clone()
    })
}

/// The kept contacts of an edit σ → σ′ (docs/contract-planar.md §9), in the order of `before`, and what happened
/// to every pair.
pub(crate) fn resolve_edit(
    before: &[Contact],
    after: &[Contact],
    tol: f64,
) -> (Vec<Contact>, EditSummary) {
    let mut kept = Vec::new();
    let mut summary = EditSummary::default();
    for old in before {
        match after.iter().find(|a| a.pair == old.pair) {
            None => summary.broken.push(old.pair),
            Some(new) => match overlap(old, new, tol) {
                Some(c) => {
                    summary.kept.push(old.pair);
                    kept.push(c);
                }
                None => summary.no_overlap.push(old.pair),
            },
        }
    }
    summary.made = after
        .iter()
        .filter(|a| !before.iter().any(|b| b.pair == a.pair))
        .map(|a| a.pair)
        .collect();
    (kept, summary)
}
