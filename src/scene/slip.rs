//! Coulomb's law while slipping (docs/contract-scenes.md §7): the one friction ray of a contact
//! that slides, in the plane and in space. The planar and the spatial generators, the parser
//! and the pictures all take it from here.

/// How small a slip's tangential part may be, relative to the slip, before it is taken as
/// none (docs/contract-scenes.md, sliding contacts): a slip along the normal says nothing
/// about which way friction acts.
pub(crate) const SLIP_TANGENT_MIN: f64 = 1e-12;

/// The unit direction `v_t/|v_t|` of a slip's tangential part `v_t = v − (v·n)n`, at a unit
/// normal `n`, in the plane (`D = 2`) or in space (`D = 3`); `None` when `|v_t|` is at most
/// [`SLIP_TANGENT_MIN`]`·|v|` (or `v` is zero): no direction to slide in.
pub(crate) fn slip_direction<const D: usize>(n: [f64; D], v: [f64; D]) -> Option<[f64; D]> {
    // A direction: where v's squares overflow or underflow, v over its largest entry.
    let squares: f64 = v.iter().map(|x| x * x).sum();
    let v = if squares.is_finite() && squares > 1e-300 {
        v
    } else {
        let big = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if !(big > 0.0 && big.is_finite()) {
            return None;
        }
        v.map(|x| x / big)
    };
    let vn: f64 = (0..D).map(|a| v[a] * n[a]).sum();
    let vt: [f64; D] = std::array::from_fn(|a| v[a] - vn * n[a]);
    let length = |u: &[f64; D]| u.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (lt, lv) = (length(&vt), length(&v));
    (lt > SLIP_TANGENT_MIN * lv && lt > 0.0).then(|| vt.map(|x| x / lt))
}

/// The one friction ray of a contact that slides along the unit tangential direction `u`
/// ([`slip_direction`]): `n − μu`, on the Coulomb cone's boundary, its tangential part
/// opposite the slip (docs/contract-scenes.md: Coulomb's law while slipping). The planar
/// and the spatial generators, and the pictures, all take it from here.
pub(crate) fn sliding_ray<const D: usize>(n: [f64; D], mu: f64, u: [f64; D]) -> [f64; D] {
    std::array::from_fn(|a| n[a] - mu * u[a])
}
