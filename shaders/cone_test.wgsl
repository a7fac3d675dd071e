// The planar hold cone test (SPEC §4–7): one invocation per case.
//
// Mirrored line for line by `src/cpu/mod.rs` (same tables, same order, same tolerances); the
// structs are mirrored by `src/types.rs` (keep in sync: `tests/layout.rs` checks them).
//
// One pass shares all the work: the 120 cross products c_ij = w_i × w_j serve the pair solves,
// the pair-plane candidates and (dotted with the need) the Cramer numerators; the 560 triple
// products det(w_i, w_j, w_k) = c_ij·w_k serve both the triple solves and the pair-plane
// support tests; every other support test reads running minima and maxima gathered on the way.

const MAX_GENERATORS: u32 = 16u;
const WITNESS_COUNT: u32 = 696u;
const CANDIDATE_COUNT: u32 = 385u;
const FIRST_PAIR: u32 = 16u;
const FIRST_TRIPLE: u32 = 136u;
const PAIR_COUNT: u32 = 120u;

const KIND_PAIR_PLANE: u32 = 0u;
const KIND_GENERATOR_DIRECTION: u32 = 1u;
const KIND_PERPENDICULAR: u32 = 2u;
const KIND_GENERATOR_PLANE: u32 = 3u;
const KIND_APEX: u32 = 4u;

const VERDICT_SUPPORTED: u32 = 0u;
const VERDICT_UNSUPPORTED: u32 = 1u;
const VERDICT_UNCERTAIN: u32 = 2u;

const EPS: f32 = 1e-5;
const MARGIN_CAP: f32 = 1000.0;
const NO_BINDING: u32 = 0xffffffffu;
const NONE_YET: f32 = 3.0e38;
const F32_MAX: f32 = 3.40282347e38;
const THIN: f32 = 0.125;

// One invocation per case, so private arrays are large (~4 KiB): 64 keeps a workgroup small
// while filling a wave of 64 (AMD) or two warps of 32 (NVIDIA), and llvmpipe's 8-wide SIMD.
const WORKGROUP_SIZE: u32 = 64u;

// Keep in sync with `Case` in src/types.rs (208 bytes).
struct Case {
    generators: array<f32, 48>,
    need: array<f32, 3>,
    active_mask: u32,
}

// Keep in sync with `Outcome` in src/types.rs (68 bytes).
struct Outcome {
    verdict: u32,
    witness_len: u32,
    witness_index: array<u32, 3>,
    witness_weight: array<f32, 3>,
    certificate: array<f32, 3>,
    margin: f32,
    capped: u32,
    binding: u32,
    witness_exponent: array<i32, 3>,
}

struct Params {
    count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> cases: array<Case>;
@group(0) @binding(1) var<storage, read_write> outcomes: array<Outcome>;
// (i, j, k, size), SPEC §4 order.
@group(0) @binding(2) var<uniform> subsets: array<vec4<u32>, WITNESS_COUNT>;
// (kind, i, j or axis, sign), SPEC §5 order.
@group(0) @binding(3) var<uniform> candidates: array<vec4<u32>, CANDIDATE_COUNT>;
@group(0) @binding(4) var<uniform> params: Params;

fn dot3(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

fn cross3(a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// 0.0, read at run time (no case count reaches 2^31): a value no compiler can see through.
var<private> opaque_zero: f32;

// a = hi + lo exactly: hi the top 12 bits of the significand (a mask), lo = a − hi the other
// 12, so that a product of halves is exact. Both pass through opaque_zero, so that no
// compiler's algebra (llvmpipe's and lavapipe's rewrite such sums) can recombine them.
fn split(a: f32) -> vec2<f32> {
    let hi = bitcast<f32>(bitcast<u32>(a) & 0xfffff000u) + opaque_zero;
    return vec2<f32>(hi, (a - hi) + opaque_zero);
}

// The rounding error of p = x·y, exactly (Dekker's two-product, from the halves).
fn product_error(x: f32, y: f32, p: f32) -> f32 {
    let xs = split(x);
    let ys = split(y);
    return xs.y * ys.y - (((p - xs.x * ys.x) - xs.y * ys.x) - xs.x * ys.y);
}

// a·b − c·d to about one ulp, in plain float32 operations (WGSL does not promise a fused
// fma, and llvmpipe's is not), rounding the same way as the CPU paths. p and q pass through
// opaque_zero so that no compiler contracts their products into the sums that follow
// (lavapipe does), which would cancel the error terms.
fn diff_of_products(a: f32, b: f32, c: f32, d: f32) -> f32 {
    let p = a * b + opaque_zero;
    let q = c * d + opaque_zero;
    return (p - q) + (product_error(a, b, p) - product_error(c, d, q));
}

// w_i × w_j: the plain cross product, or where the two are nearly parallel or antiparallel
// (|c| < THIN·|a||b|: thin cones, friction cones at large μ) every component accurately.
fn pair_cross(a: vec3<f32>, b: vec3<f32>, a_len: f32, b_len: f32) -> vec3<f32> {
    let c = cross3(a, b);
    let bound = THIN * a_len * b_len;
    if dot3(c, c) < bound * bound {
        return vec3<f32>(
            diff_of_products(a.y, b.z, a.z, b.y),
            diff_of_products(a.z, b.x, a.x, b.z),
            diff_of_products(a.x, b.y, a.y, b.x),
        );
    }
    return c;
}

// 2^k for k in -126..=127, from its bits.
fn pow2(k: i32) -> f32 {
    return bitcast<f32>(u32(127 + k) << 23u);
}

// The prescaling exponent e of a vector: its largest component times 2^-e lies in [2, 4)
// (read from the float bits; e in -127..=126 so that 2^-e and 2^e are normal); 0 for zero.
fn exponent_of(v: vec3<f32>) -> i32 {
    let top = max(max(bitcast<u32>(v.x) & 0x7fffffffu, bitcast<u32>(v.y) & 0x7fffffffu), bitcast<u32>(v.z) & 0x7fffffffu);
    if top == 0u {
        return 0;
    }
    return clamp(i32(top >> 23u), 1, 254) - 128;
}

// m·2^e in two steps of normal powers of two, clamped in between so that nothing overflows;
// then at most MARGIN_CAP and at least −f32::MAX.
fn unscale_margin(m0: f32, e: i32) -> f32 {
    let a = e / 2;
    let b = e - a;
    var m = m0 * pow2(a);
    if b > 0 {
        m = max(min(m, MARGIN_CAP * pow2(-b)), -F32_MAX * pow2(-b));
    }
    return min(m * pow2(b), MARGIN_CAP);
}

fn cross_axis(w: vec3<f32>, axis: u32) -> vec3<f32> {
    if axis == 0u {
        return vec3<f32>(0.0, w.z, -w.y);
    } else if axis == 1u {
        return vec3<f32>(-w.z, 0.0, w.x);
    }
    return vec3<f32>(w.y, -w.x, 0.0);
}

fn pair_index(i: u32, j: u32) -> u32 {
    return i * (31u - i) / 2u + (j - i - 1u);
}

// −(need − (need·w / w·w) w), then one Gram–Schmidt step against w: when the need lies
// close to w the subtraction cancels and leaves a spurious component along w.
fn perpendicular(need: vec3<f32>, w: vec3<f32>, need_dot_w: f32, w_len: f32) -> vec3<f32> {
    let w2 = w_len * w_len;
    var t = 0.0;
    if w_len > 0.0 {
        t = need_dot_w / w2;
    }
    let y = vec3<f32>(t * w.x - need.x, t * w.y - need.y, t * w.z - need.z);
    var s = 0.0;
    if w_len > 0.0 {
        s = dot3(y, w) / w2;
    }
    return vec3<f32>(y.x - s * w.x, y.y - s * w.y, y.z - s * w.z);
}

struct Found {
    ok: bool,
    len: u32,
    index: vec3<u32>,
    weight: vec3<f32>,
}

var<private> w: array<vec3<f32>, MAX_GENERATORS>;
var<private> len: array<f32, MAX_GENERATORS>;
// c_p = w_i × w_j for the pair p = (i, j).
var<private> c: array<vec3<f32>, PAIR_COUNT>;

// Weights λ with Σλw = rhs for the subset s = (i, j, k, size) of determinant det:
// projection; the normal equations through Lagrange's identity; Cramer's rule.
fn solve(s: vec4<u32>, det: f32, rhs: vec3<f32>) -> vec3<f32> {
    if s.w == 1u {
        return vec3<f32>(dot3(rhs, w[s.x]) / det, 0.0, 0.0);
    } else if s.w == 2u {
        let cp = c[pair_index(s.x, s.y)];
        return vec3<f32>(dot3(cross3(rhs, w[s.y]), cp) / det, -dot3(cross3(rhs, w[s.x]), cp) / det, 0.0);
    }
    return vec3<f32>(
        dot3(c[pair_index(s.y, s.z)], rhs) / det,
        -dot3(c[pair_index(s.x, s.z)], rhs) / det,
        dot3(c[pair_index(s.x, s.y)], rhs) / det,
    );
}

// The SPEC §7 witness test of one subset's weights: `forces` false when a force λ_k|w_k| is
// below −ε·scale; else the weights clamped at 0, r = Σλw − need and `ok` when |r| ≤ ε·scale.
// scale = |need|, or with `loose` max(|need|, Σ|λ_k||w_k|) (only where the cone fills R³).
struct Check {
    forces: bool,
    ok: bool,
    weight: vec3<f32>,
    r: vec3<f32>,
}

fn check(s: vec4<u32>, weight: vec3<f32>, need: vec3<f32>, need_len: f32, loose: bool) -> Check {
    var scale = need_len;
    if loose {
        var size = 0.0;
        for (var k = 0u; k < s.w; k++) {
            size += abs(weight[k]) * len[s[k]];
        }
        scale = max(scale, size);
    }
    var out = Check(false, false, vec3<f32>(0.0), vec3<f32>(0.0));
    var sum = vec3<f32>(0.0);
    for (var k = 0u; k < s.w; k++) {
        let i = s[k];
        if weight[k] * len[i] < -EPS * scale {
            return out;
        }
        out.weight[k] = max(weight[k], 0.0);
        sum = vec3<f32>(
            sum.x + out.weight[k] * w[i].x,
            sum.y + out.weight[k] * w[i].y,
            sum.z + out.weight[k] * w[i].z,
        );
    }
    out.forces = true;
    out.r = vec3<f32>(sum.x - need.x, sum.y - need.y, sum.z - need.z);
    let tolerance = EPS * scale;
    out.ok = dot3(out.r, out.r) <= tolerance * tolerance;
    return out;
}

// `check`, and where only a triple's residual fails (a square system: its residual is
// rounding alone) one step of iterative refinement: the same solve on the residual.
fn attempt(s: vec4<u32>, det: f32, weight: vec3<f32>, need: vec3<f32>, need_len: f32, loose: bool) -> Found {
    var out = Found(false, s.w, s.xyz, vec3<f32>(0.0));
    let first = check(s, weight, need, need_len, loose);
    if !first.forces {
        return out;
    }
    if first.ok {
        out.ok = true;
        out.weight = first.weight;
        return out;
    }
    if s.w != 3u {
        return out;
    }
    let again = check(s, first.weight - solve(s, det, first.r), need, need_len, loose);
    out.ok = again.forces && again.ok;
    out.weight = again.weight;
    return out;
}

// The determinant of the subset s when it is independent, else 0.
fn independent(s: vec4<u32>) -> f32 {
    if s.w == 1u {
        if len[s.x] > 0.0 {
            return len[s.x] * len[s.x];
        }
        return 0.0;
    } else if s.w == 2u {
        let cp = c[pair_index(s.x, s.y)];
        let cl2 = dot3(cp, cp);
        if sqrt(cl2) > EPS * len[s.x] * len[s.y] {
            return cl2;
        }
        return 0.0;
    }
    let d = dot3(c[pair_index(s.x, s.y)], w[s.z]);
    if abs(d) > EPS * len[s.x] * len[s.y] * len[s.z] {
        return d;
    }
    return 0.0;
}

// A candidate's normal before normalisation (xyz) and the length it must exceed to be
// valid (w): the tests of the search.
fn candidate_vector(e: vec4<u32>, need: vec3<f32>, need_dot_i: f32) -> vec4<f32> {
    let kind = e.x;
    let i = e.y;
    var sign = 1.0;
    if e.w == 1u {
        sign = -1.0;
    }
    let need_len = sqrt(dot3(need, need));
    if kind == KIND_PAIR_PLANE {
        return vec4<f32>(sign * pair_cross(w[i], w[e.z], len[i], len[e.z]), EPS * len[i] * len[e.z]);
    } else if kind == KIND_GENERATOR_DIRECTION {
        return vec4<f32>(sign * w[i], 0.0);
    } else if kind == KIND_PERPENDICULAR {
        var floor = NONE_YET;
        if len[i] > 0.0 {
            floor = EPS * need_len;
        }
        return vec4<f32>(perpendicular(need, w[i], need_dot_i, len[i]), floor);
    } else if kind == KIND_GENERATOR_PLANE {
        return vec4<f32>(sign * cross_axis(w[i], e.z), EPS * len[i]);
    }
    return vec4<f32>(-1.0 * need, 0.0);
}

fn candidate_direction(e: vec4<u32>, need: vec3<f32>, need_dot_i: f32) -> vec3<f32> {
    let y = candidate_vector(e, need, need_dot_i).xyz;
    return (1.0 / sqrt(dot3(y, y))) * y;
}

// Whether the unit y supports every active generator, tested directly.
fn supports_all(y: vec3<f32>) -> bool {
    var ok = true;
    for (var k = 0u; k < MAX_GENERATORS; k++) {
        ok = ok && dot3(y, w[k]) >= -EPS * len[k];
    }
    return ok;
}

// The nearest supporting candidate again, every support tested directly on the unit
// normal: only where the search's candidate fails that test (the search tests a thin
// pair's plane through another pair's triple product).
struct Nearest {
    best: u32,
    best_dot: f32,
}

fn direct_search(need: vec3<f32>) -> Nearest {
    var best = NO_BINDING;
    var best_dot = NONE_YET;
    for (var index = 0u; index < CANDIDATE_COUNT; index++) {
        let e = candidates[index];
        let v = candidate_vector(e, need, dot3(need, w[e.y]));
        let y = v.xyz;
        let yl = sqrt(dot3(y, y));
        if yl > v.w {
            let unit = (1.0 / yl) * y;
            let y_need = dot3(unit, need);
            if y_need < best_dot && supports_all(unit) {
                best = index;
                best_dot = y_need;
            }
        }
    }
    return Nearest(best, best_dot);
}

fn cone_test(case_: Case) -> Outcome {
    // Exact power-of-two prescaling: the need and each active generator times 2^-e, their
    // largest component in [2, 4). No direction changes, no bit is lost, and nothing below
    // overflows or underflows: every test is scale-free. Mapped back at the end.
    let need_raw = vec3<f32>(case_.need[0], case_.need[1], case_.need[2]);
    let e_need = exponent_of(need_raw);
    let need = pow2(-e_need) * need_raw;
    var e_gen: array<i32, MAX_GENERATORS>;
    let need_len = sqrt(dot3(need, need));

    // Per generator. An inactive slot reads as the zero vector: it then builds no candidate
    // (zero length), no witness (zero determinant) and lies on every plane.
    var inv_len: array<f32, MAX_GENERATORS>;
    var need_dot: array<f32, MAX_GENERATORS>;
    var need_cross: array<vec3<f32>, MAX_GENERATORS>;
    var dir_lo: array<f32, MAX_GENERATORS>;
    var dir_hi: array<f32, MAX_GENERATORS>;
    var axis_lo: array<vec3<f32>, MAX_GENERATORS>;
    var axis_hi: array<vec3<f32>, MAX_GENERATORS>;
    for (var i = 0u; i < MAX_GENERATORS; i++) {
        w[i] = vec3<f32>(0.0);
        e_gen[i] = 0;
        if ((case_.active_mask >> i) & 1u) == 1u {
            let g = vec3<f32>(case_.generators[3u * i], case_.generators[3u * i + 1u], case_.generators[3u * i + 2u]);
            e_gen[i] = exponent_of(g);
            w[i] = pow2(-e_gen[i]) * g;
        }
        len[i] = sqrt(dot3(w[i], w[i]));
        inv_len[i] = 0.0;
        if len[i] > 0.0 {
            inv_len[i] = 1.0 / len[i];
        }
        need_dot[i] = dot3(need, w[i]);
        need_cross[i] = cross3(need, w[i]);
        dir_lo[i] = len[i];
        dir_hi[i] = len[i];
        axis_lo[i] = vec3<f32>(0.0);
        axis_hi[i] = vec3<f32>(0.0);
    }

    var found = Found(false, 0u, vec3<u32>(0u), vec3<f32>(0.0));
    var have_witness = need_len == 0.0; // need = 0: the empty witness

    // Singles: projection.
    for (var t = 0u; t < FIRST_PAIR; t++) {
        let i = subsets[t].x;
        if !have_witness && len[i] > 0.0 {
            let f = check(subsets[t], vec3<f32>(need_dot[i] / (len[i] * len[i]), 0.0, 0.0), need, need_len, false);
            if f.forces && f.ok {
                found = Found(true, 1u, vec3<u32>(i, 0u, 0u), f.weight);
                have_witness = true;
            }
        }
    }

    // Pairs: cross products, their need numerators, 2×2 normal equations.
    var c_len: array<f32, PAIR_COUNT>;
    var c_need: array<f32, PAIR_COUNT>;
    var plane_lo: array<f32, PAIR_COUNT>;
    var plane_hi: array<f32, PAIR_COUNT>;
    for (var t = FIRST_PAIR; t < FIRST_TRIPLE; t++) {
        let p = t - FIRST_PAIR;
        let i = subsets[t].x;
        let j = subsets[t].y;
        let cp = pair_cross(w[i], w[j], len[i], len[j]);
        let cl2 = dot3(cp, cp);
        c[p] = cp;
        c_len[p] = sqrt(cl2);
        c_need[p] = dot3(cp, need);
        plane_lo[p] = 0.0;
        plane_hi[p] = 0.0;
        let g = dot3(w[i], w[j]);
        dir_lo[i] = min(dir_lo[i], g * inv_len[j]);
        dir_hi[i] = max(dir_hi[i], g * inv_len[j]);
        dir_lo[j] = min(dir_lo[j], g * inv_len[i]);
        dir_hi[j] = max(dir_hi[j], g * inv_len[i]);
        axis_lo[i] = min(axis_lo[i], cp * inv_len[j]);
        axis_hi[i] = max(axis_hi[i], cp * inv_len[j]);
        axis_lo[j] = min(axis_lo[j], -cp * inv_len[i]);
        axis_hi[j] = max(axis_hi[j], -cp * inv_len[i]);
        if !have_witness && c_len[p] > EPS * len[i] * len[j] {
            // The normal equations' solution through Lagrange's identity (error ~ 1/sin θ,
            // where the 2×2 Gram system's is ~ 1/sin² θ).
            let li = dot3(need_cross[j], cp) / cl2;
            let lj = -dot3(need_cross[i], cp) / cl2;
            let f = check(subsets[t], vec3<f32>(li, lj, 0.0), need, need_len, false);
            if f.forces && f.ok {
                found = Found(true, 2u, vec3<u32>(i, j, 0u), f.weight);
                have_witness = true;
            }
        }
    }

    // Triples: D = det(w_i, w_j, w_k) = c_ij·w_k, shared by Cramer and the pair-plane supports.
    for (var t = FIRST_TRIPLE; t < WITNESS_COUNT; t++) {
        let i = subsets[t].x;
        let j = subsets[t].y;
        let k = subsets[t].z;
        let pij = pair_index(i, j);
        let pik = pair_index(i, k);
        let pjk = pair_index(j, k);
        let d = dot3(c[pij], w[k]);
        // c_ij·w_k = D, c_ik·w_j = −D, c_jk·w_i = D.
        plane_lo[pij] = min(plane_lo[pij], d * inv_len[k]);
        plane_hi[pij] = max(plane_hi[pij], d * inv_len[k]);
        plane_lo[pik] = min(plane_lo[pik], -d * inv_len[j]);
        plane_hi[pik] = max(plane_hi[pik], -d * inv_len[j]);
        plane_lo[pjk] = min(plane_lo[pjk], d * inv_len[i]);
        plane_hi[pjk] = max(plane_hi[pjk], d * inv_len[i]);
        if !have_witness && abs(d) > EPS * len[i] * len[j] * len[k] {
            let weight = vec3<f32>(c_need[pjk] / d, -c_need[pik] / d, c_need[pij] / d);
            let f = attempt(subsets[t], d, weight, need, need_len, false);
            if f.ok {
                found = f;
                have_witness = true;
            }
        }
    }

    // Candidates: the nearest supporting one gives the margin, the binding and the certificate.
    var best = NO_BINDING;
    var best_dot = NONE_YET;
    for (var index = 0u; index < CANDIDATE_COUNT; index++) {
        let e = candidates[index];
        let kind = e.x;
        let i = e.y;
        let negative = e.w == 1u;
        var sign = 1.0;
        if negative {
            sign = -1.0;
        }
        var valid = false;
        var supports = false;
        var y_need = 0.0;
        if kind == KIND_PAIR_PLANE {
            let j = e.z;
            let p = pair_index(i, j);
            let cl = c_len[p];
            valid = cl > EPS * len[i] * len[j];
            if negative {
                supports = plane_hi[p] <= EPS * cl;
            } else {
                supports = plane_lo[p] >= -EPS * cl;
            }
            y_need = sign * c_need[p] / cl;
        } else if kind == KIND_GENERATOR_DIRECTION {
            valid = len[i] > 0.0;
            if negative {
                supports = dir_hi[i] <= EPS * len[i];
            } else {
                supports = dir_lo[i] >= -EPS * len[i];
            }
            y_need = sign * need_dot[i] * inv_len[i];
        } else if kind == KIND_PERPENDICULAR {
            let y = perpendicular(need, w[i], need_dot[i], len[i]);
            let yl = sqrt(dot3(y, y));
            valid = len[i] > 0.0 && yl > EPS * need_len;
            supports = true;
            for (var k = 0u; k < MAX_GENERATORS; k++) {
                supports = supports && dot3(y, w[k]) >= -EPS * yl * len[k];
            }
            y_need = dot3(y, need) / yl;
        } else if kind == KIND_GENERATOR_PLANE {
            let axis = e.z;
            let u = cross_axis(w[i], axis);
            let ul = sqrt(dot3(u, u));
            valid = ul > EPS * len[i];
            // (w_i × e_a)·w_k = −(w_i × w_k)_a
            if negative {
                supports = axis_lo[i][axis] >= -EPS * ul;
            } else {
                supports = axis_hi[i][axis] <= EPS * ul;
            }
            y_need = sign * dot3(u, need) / ul;
        } else if kind == KIND_APEX {
            valid = need_len > 0.0;
            supports = true;
            for (var k = 0u; k < MAX_GENERATORS; k++) {
                supports = supports && need_dot[k] <= EPS * need_len * len[k];
            }
            y_need = -need_len;
        }
        if valid && supports && y_need < best_dot {
            best = index;
            best_dot = y_need;
        }
    }

    // C fills R³, yet no witness passed at the need's scale: every one has forces far
    // larger than the need. Look again at SPEC §7's wider scale.
    if best == NO_BINDING && !have_witness {
        for (var t = 0u; t < WITNESS_COUNT; t++) {
            let det = independent(subsets[t]);
            if det != 0.0 {
                let f = attempt(subsets[t], det, solve(subsets[t], det, need), need, need_len, true);
                if f.ok {
                    found = f;
                    have_witness = true;
                    break;
                }
            }
        }
    }

    if best != NO_BINDING && best_dot < -EPS * need_len {
        // Every reported proof checks out: the unit y actually returned supports every
        // active generator (the pair's own included). Where the search's support test was
        // off, look again with direct tests.
        let e = candidates[best];
        if !supports_all(candidate_direction(e, need, need_dot[e.y])) {
            let again = direct_search(need);
            if again.best != NO_BINDING {
                best = again.best;
                best_dot = again.best_dot;
            }
        }
    }

    var out: Outcome;
    out.binding = best;
    out.capped = 0u;
    out.certificate = array<f32, 3>(0.0, 0.0, 0.0);
    // No candidate supports: C fills R³, unless C = {0} and need = 0 (SPEC §6: margin 0).
    var longest = 0.0;
    for (var i = 0u; i < MAX_GENERATORS; i++) {
        longest = max(longest, len[i]);
    }
    if best == NO_BINDING && need_len == 0.0 && longest == 0.0 {
        out.margin = 0.0;
    } else if best == NO_BINDING {
        out.margin = MARGIN_CAP;
        out.capped = 1u;
    } else {
        out.margin = unscale_margin(best_dot, e_need);
    }
    var have_certificate = best != NO_BINDING && best_dot < -EPS * need_len;
    if have_certificate {
        // The y returned, checked as a reader would: supports, and the need strictly beyond.
        let e = candidates[best];
        let y = candidate_direction(e, need, need_dot[e.y]);
        have_certificate = supports_all(y) && dot3(y, need) < -EPS * need_len;
        if have_certificate {
            out.certificate = array<f32, 3>(y.x, y.y, y.z);
        }
    }
    if have_witness && !have_certificate {
        out.verdict = VERDICT_SUPPORTED;
    } else if have_certificate && !have_witness {
        out.verdict = VERDICT_UNSUPPORTED;
    } else {
        out.verdict = VERDICT_UNCERTAIN;
    }
    out.witness_len = 0u;
    out.witness_index = array<u32, 3>(0u, 0u, 0u);
    out.witness_weight = array<f32, 3>(0.0, 0.0, 0.0);
    out.witness_exponent = array<i32, 3>(0, 0, 0);
    if have_witness {
        out.witness_len = found.len;
        out.witness_index = array<u32, 3>(found.index.x, found.index.y, found.index.z);
        out.witness_weight = array<f32, 3>(found.weight.x, found.weight.y, found.weight.z);
        // Weight k in the caller's units: weight·2^(e_need − e_gen).
        for (var k = 0u; k < found.len; k++) {
            out.witness_exponent[k] = e_need - e_gen[found.index[k]];
        }
    }
    return out;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    opaque_zero = f32(params.count >> 31u);
    if index >= params.count {
        return;
    }
    outcomes[index] = cone_test(cases[index]);
}
