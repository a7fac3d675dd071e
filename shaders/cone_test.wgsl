// The planar hold cone test (docs/contract-planar.md §4–§7): one invocation per case.
//
// Mirrored line for line by `src/planar/cone_test.rs` (same tables, same order, same tolerances); the
// structs are mirrored by `src/planar/types.rs` (keep in sync: `tests/kernels/layout.rs` checks them).
//
// Pair-major, so that nothing per pair or per triple needs a large dynamically indexed array
// (a GPU can only put those in slow local memory; `tests/kernels/shader.rs` keeps all of them under
// 1 KiB per invocation): the generators, their lengths and inverse lengths sit in 16-entry
// arrays, the need's numerators c_ij·need of the 120 pairs in one array filled by the pass
// that solves the pairs. The main pass then takes each pair (i, j) in table order with its
// cross product c_ij = w_i × w_j in registers, runs the triples (i, j, k), k > j, whose
// determinants det(w_i, w_j, w_k) = c_ij·w_k also bound the pair's plane, and decides the
// pair's two plane candidates on the spot. Every other candidate's support test is a direct
// loop over the generators, run only where that candidate would be the nearest so far.
// Every loop over generators stops after the highest active slot.

const MAX_GENERATORS: u32 = 16u;
const WITNESS_COUNT: u32 = 696u;
const CANDIDATE_COUNT: u32 = 385u;
const FIRST_PAIR: u32 = 16u;
const FIRST_TRIPLE: u32 = 136u;
const PAIR_COUNT: u32 = 120u;
const FIRST_GENERATOR_DIRECTION: u32 = 240u;
const FIRST_PERPENDICULAR: u32 = 272u;
const FIRST_GENERATOR_PLANE: u32 = 288u;
const APEX: u32 = 384u;

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
// f32::MAX exactly, as a hex float: the decimal 3.40282347e38 lies above it (naga rounds it
// down, Tint refuses it as not representable).
const F32_MAX: f32 = 0x1.fffffep+127f;
const THIN: f32 = 0.125;

// 64 fills a wave of 64 (AMD) or two warps of 32 (NVIDIA), and llvmpipe's 8-wide SIMD.
const WORKGROUP_SIZE: u32 = 64u;

// Keep in sync with `Case` in src/planar/types.rs (208 bytes).
struct Case {
    generators: array<f32, 48>,
    need: array<f32, 3>,
    active_mask: u32,
}

// Keep in sync with `Outcome` in src/planar/types.rs (68 bytes).
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
    // Always 0 (the host writes it so): read as the float +0.0 that `unfused` adds.
    zero: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> cases: array<Case>;
@group(0) @binding(1) var<storage, read_write> outcomes: array<Outcome>;
// (i, j, k, size), docs/contract-planar.md §4 order.
@group(0) @binding(2) var<uniform> subsets: array<vec4<u32>, WITNESS_COUNT>;
// (kind, i, j or axis, sign), docs/contract-planar.md §5 order.
@group(0) @binding(3) var<uniform> candidates: array<vec4<u32>, CANDIDATE_COUNT>;
@group(0) @binding(4) var<uniform> params: Params;

// The generators, by component (three arrays of f32: 192 B, where one of vec3 takes 256 B).
// Private rather than workgroup memory: every index here comes from a table or a loop
// counter, the same in the invocations that run together, which llvmpipe turns into one
// vector load, where a per-invocation workgroup address is loaded lane by lane (the kernel
// ran 4× slower there with these arrays in workgroup memory).
var<private> wx: array<f32, MAX_GENERATORS>;
var<private> wy: array<f32, MAX_GENERATORS>;
var<private> wz: array<f32, MAX_GENERATORS>;
// |w_k| and 1/|w_k| (0 for a zero slot).
var<private> len: array<f32, MAX_GENERATORS>;
var<private> inv_len: array<f32, MAX_GENERATORS>;

// w_k (`w[k]` in the CPU reference).
fn generator(k: u32) -> vec3<f32> {
    return vec3<f32>(wx[k], wy[k], wz[k]);
}

fn dot3(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

fn cross3(a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// The product a·b rounded on its own: plus a +0.0 no compiler can see through, so that it
// cannot be fused with the addition that follows into one fma. WGSL lets implementations
// contract a·b + c, and Vulkan drivers do (lavapipe among them); Veltkamp's split and
// Dekker's product error below are exact only on separately rounded products.
fn unfused(a: f32, b: f32) -> f32 {
    return a * b + bitcast<f32>(params.zero);
}

// Veltkamp's split: a = hi + lo exactly, each with at most 12 significant bits.
fn split(a: f32) -> vec2<f32> {
    let t = unfused(4097.0, a);
    let hi = t - (t - a);
    return vec2<f32>(hi, a - hi);
}

// The rounding error of p = x·y, exactly (Dekker's two-product).
fn product_error(x: f32, y: f32, p: f32) -> f32 {
    let xs = split(x);
    let ys = split(y);
    return xs.y * ys.y - (((p - xs.x * ys.x) - xs.y * ys.x) - xs.x * ys.y);
}

// a·b − c·d to about one ulp, in plain float32 operations (WGSL does not promise a fused
// fma, and llvmpipe's is not). The Dekker steps round as the CPU paths do; the shader's other
// sums and products may still be contracted by a driver, within docs/contract-planar.md §7's tolerance.
fn diff_of_products(a: f32, b: f32, c: f32, d: f32) -> f32 {
    let p = unfused(a, b);
    let q = unfused(c, d);
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

// Index of the triple i < j < k among the 560 in lexicographic order: those with a smaller
// first index, then a smaller second one, then a smaller third one.
fn triple_index(i: u32, j: u32, k: u32) -> u32 {
    let a = 16u - i;
    let b = 16u - j;
    return 560u - a * (a - 1u) * (a - 2u) / 6u + (a - 1u) * (a - 2u) / 2u - b * (b - 1u) / 2u + (k - j - 1u);
}

// The first candidate after the block of this kind (docs/contract-planar.md §5 order).
fn next_block(kind: u32) -> u32 {
    if kind == KIND_GENERATOR_DIRECTION {
        return FIRST_PERPENDICULAR;
    } else if kind == KIND_PERPENDICULAR {
        return FIRST_GENERATOR_PLANE;
    }
    return APEX;
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

// Weights λ with Σλw = rhs for the subset s = (i, j, k, size) of determinant det:
// projection; the normal equations through Lagrange's identity; Cramer's rule. The cross
// products are recomputed, the same expressions as everywhere else.
fn solve(s: vec4<u32>, det: f32, rhs: vec3<f32>) -> vec3<f32> {
    if s.w == 1u {
        return vec3<f32>(dot3(rhs, generator(s.x)) / det, 0.0, 0.0);
    } else if s.w == 2u {
        let cp = pair_cross(generator(s.x), generator(s.y), len[s.x], len[s.y]);
        return vec3<f32>(dot3(cross3(rhs, generator(s.y)), cp) / det, -dot3(cross3(rhs, generator(s.x)), cp) / det, 0.0);
    }
    return vec3<f32>(
        dot3(pair_cross(generator(s.y), generator(s.z), len[s.y], len[s.z]), rhs) / det,
        -dot3(pair_cross(generator(s.x), generator(s.z), len[s.x], len[s.z]), rhs) / det,
        dot3(pair_cross(generator(s.x), generator(s.y), len[s.x], len[s.y]), rhs) / det,
    );
}

// The docs/contract-planar.md §7 witness test of one subset's weights: `forces` false when a force λ_k|w_k| is
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
        let wi = generator(i);
        sum = vec3<f32>(
            sum.x + out.weight[k] * wi.x,
            sum.y + out.weight[k] * wi.y,
            sum.z + out.weight[k] * wi.z,
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
        let cp = pair_cross(generator(s.x), generator(s.y), len[s.x], len[s.y]);
        let cl2 = dot3(cp, cp);
        if sqrt(cl2) > EPS * len[s.x] * len[s.y] {
            return cl2;
        }
        return 0.0;
    }
    let d = dot3(pair_cross(generator(s.x), generator(s.y), len[s.x], len[s.y]), generator(s.z));
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
        return vec4<f32>(sign * pair_cross(generator(i), generator(e.z), len[i], len[e.z]), EPS * len[i] * len[e.z]);
    } else if kind == KIND_GENERATOR_DIRECTION {
        return vec4<f32>(sign * generator(i), 0.0);
    } else if kind == KIND_PERPENDICULAR {
        var floor = NONE_YET;
        if len[i] > 0.0 {
            floor = EPS * need_len;
        }
        return vec4<f32>(perpendicular(need, generator(i), need_dot_i, len[i]), floor);
    } else if kind == KIND_GENERATOR_PLANE {
        return vec4<f32>(sign * cross_axis(generator(i), e.z), EPS * len[i]);
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
        ok = ok && dot3(y, generator(k)) >= -EPS * len[k];
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
        let v = candidate_vector(e, need, dot3(need, generator(e.y)));
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

// The generator in slot k of case `index` as the caller gave it.
fn raw_generator(index: u32, k: u32) -> vec3<f32> {
    return vec3<f32>(cases[index].generators[3u * k], cases[index].generators[3u * k + 1u], cases[index].generators[3u * k + 2u]);
}

// The cone test of case `index`, its outcome written to `outcomes[index]`.
fn cone_test(index: u32) {
    // Exact power-of-two prescaling: the need and each active generator times 2^-e, their
    // largest component in [2, 4). No direction changes, no bit is lost, and nothing below
    // overflows or underflows: every test is scale-free. Mapped back at the end.
    let need_raw = vec3<f32>(cases[index].need[0], cases[index].need[1], cases[index].need[2]);
    let e_need = exponent_of(need_raw);
    let need = pow2(-e_need) * need_raw;
    let need_len = sqrt(dot3(need, need));
    let mask = cases[index].active_mask & 0xffffu;
    // Slots from n on are inactive. An inactive slot reads as the zero vector: it then builds
    // no candidate (zero length), no witness (zero determinant) and lies on every plane, so
    // every loop over generators stops at n.
    let n = 32u - countLeadingZeros(mask);

    for (var i = 0u; i < MAX_GENERATORS; i++) {
        var wi = vec3<f32>(0.0);
        if ((mask >> i) & 1u) == 1u {
            let g = raw_generator(index, i);
            wi = pow2(-exponent_of(g)) * g;
        }
        wx[i] = wi.x;
        wy[i] = wi.y;
        wz[i] = wi.z;
        len[i] = sqrt(dot3(wi, wi));
        inv_len[i] = 0.0;
        if len[i] > 0.0 {
            inv_len[i] = 1.0 / len[i];
        }
    }

    var found = Found(false, 0u, vec3<u32>(0u), vec3<f32>(0.0));
    var have_witness = need_len == 0.0; // need = 0: the empty witness

    // Singles: projection.
    for (var t = 0u; t < n; t++) {
        let i = subsets[t].x;
        if !have_witness && len[i] > 0.0 {
            let f = check(subsets[t], vec3<f32>(dot3(need, generator(i)) / (len[i] * len[i]), 0.0, 0.0), need, need_len, false);
            if f.forces && f.ok {
                found = Found(true, 1u, vec3<u32>(i, 0u, 0u), f.weight);
                have_witness = true;
            }
        }
    }

    // Pairs: the need's numerators c_ij·need (kept for the triples), 2×2 normal equations.
    // Over the active slots, i then j ascending: the table's order (pair_index is the
    // entry's position, tests/kernels/layout.rs checks it, as for triple_index).
    var c_need: array<f32, PAIR_COUNT>;
    for (var i = 0u; i < n; i++) {
        for (var j = i + 1u; j < n; j++) {
            let p = pair_index(i, j);
            let t = FIRST_PAIR + p;
            let wi = generator(i);
            let wj = generator(j);
            let cp = pair_cross(wi, wj, len[i], len[j]);
            let cl2 = dot3(cp, cp);
            c_need[p] = dot3(cp, need);
            if !have_witness && sqrt(cl2) > EPS * len[i] * len[j] {
                // The normal equations' solution through Lagrange's identity (error ~ 1/sin θ,
                // where the 2×2 Gram system's is ~ 1/sin² θ).
                let li = dot3(cross3(need, wj), cp) / cl2;
                let lj = -dot3(cross3(need, wi), cp) / cl2;
                let f = check(subsets[t], vec3<f32>(li, lj, 0.0), need, need_len, false);
                if f.forces && f.ok {
                    found = Found(true, 2u, vec3<u32>(i, j, 0u), f.weight);
                    have_witness = true;
                }
            }
        }
    }

    // Each pair (i, j) again, in table order: its triples (i, j, k), k > j, whose
    // determinants D = c_ij·w_k serve Cramer and the pair plane's support, and its two plane
    // candidates ±c_ij (candidates 2p, 2p + 1, the first block of the candidate table). The
    // plane's support reads det(w_i, w_j, w_k) of every other k as the triple of the three
    // in table order computes it, the same expression the triple search uses.
    var best = NO_BINDING;
    var best_dot = NONE_YET;
    for (var i = 0u; i < n; i++) {
        for (var j = i + 1u; j < n; j++) {
            let p = pair_index(i, j);
            // The triples (i, j, k), k > j, follow one another in the table from here.
            let first_triple = FIRST_TRIPLE + triple_index(i, j, j + 1u);
            let wi = generator(i);
            let wj = generator(j);
            let cp = pair_cross(wi, wj, len[i], len[j]);
            let cl = sqrt(dot3(cp, cp));
            let valid = cl > EPS * len[i] * len[j];
            // Only a candidate that could become the nearest needs its support test.
            let planes = valid && (c_need[p] / cl < best_dot || -c_need[p] / cl < best_dot);
            // Running min and max over k of D/|w_k| (0 for k = i, j).
            var plane_lo = 0.0;
            var plane_hi = 0.0;
            if planes {
                // k < i: the triple (k, i, j), D = c_ki·w_j.
                for (var k = 0u; k < i; k++) {
                    let v = dot3(pair_cross(generator(k), wi, len[k], len[i]), wj) * inv_len[k];
                    plane_lo = min(plane_lo, v);
                    plane_hi = max(plane_hi, v);
                }
                // i < k < j: the triple (i, k, j), D = c_ik·w_j = −c_ij·w_k.
                for (var k = i + 1u; k < j; k++) {
                    let v = -dot3(pair_cross(wi, generator(k), len[i], len[k]), wj) * inv_len[k];
                    plane_lo = min(plane_lo, v);
                    plane_hi = max(plane_hi, v);
                }
            }
            if planes || !have_witness {
                // k > j: the triple (i, j, k) itself.
                for (var k = j + 1u; k < n; k++) {
                    let d = dot3(cp, generator(k));
                    plane_lo = min(plane_lo, d * inv_len[k]);
                    plane_hi = max(plane_hi, d * inv_len[k]);
                    if !have_witness && abs(d) > EPS * len[i] * len[j] * len[k] {
                        let weight = vec3<f32>(c_need[pair_index(j, k)] / d, -c_need[pair_index(i, k)] / d, c_need[p] / d);
                        let f = attempt(subsets[first_triple + k - j - 1u], d, weight, need, need_len, false);
                        if f.ok {
                            found = f;
                            have_witness = true;
                        }
                    }
                }
            }
            if planes {
                for (var index = 2u * p; index < 2u * p + 2u; index++) {
                    var supports = plane_lo >= -EPS * cl;
                    var y_need = c_need[p] / cl;
                    if candidates[index].w == 1u {
                        supports = plane_hi <= EPS * cl;
                        y_need = -c_need[p] / cl;
                    }
                    if supports && y_need < best_dot {
                        best = index;
                        best_dot = y_need;
                    }
                }
            }
        }
    }

    // The other candidates, in table order: the nearest supporting one gives the margin, the
    // binding and the certificate. Support tests only where the candidate would be nearer.
    for (var index = FIRST_GENERATOR_DIRECTION; index < CANDIDATE_COUNT; index++) {
        let e = candidates[index];
        let kind = e.x;
        let i = e.y;
        if kind != KIND_APEX && i >= n {
            // The rest of this kind's block (ordered by generator) is inactive slots.
            index = next_block(kind) - 1u;
            continue;
        }
        let negative = e.w == 1u;
        var sign = 1.0;
        if negative {
            sign = -1.0;
        }
        var valid = false;
        var y_need = 0.0;
        var supports = true;
        if kind == KIND_GENERATOR_DIRECTION {
            valid = len[i] > 0.0;
            y_need = sign * dot3(need, generator(i)) * inv_len[i];
            if valid && y_need < best_dot {
                // Min and max over k of w_i·w_k/|w_k|, from |w_i| (k = i).
                let wi = generator(i);
                var lo = len[i];
                var hi = len[i];
                for (var k = 0u; k < n; k++) {
                    if k != i {
                        let g = dot3(wi, generator(k)) * inv_len[k];
                        lo = min(lo, g);
                        hi = max(hi, g);
                    }
                }
                if negative {
                    supports = hi <= EPS * len[i];
                } else {
                    supports = lo >= -EPS * len[i];
                }
            }
        } else if kind == KIND_PERPENDICULAR {
            let y = perpendicular(need, generator(i), dot3(need, generator(i)), len[i]);
            let yl = sqrt(dot3(y, y));
            valid = len[i] > 0.0 && yl > EPS * need_len;
            y_need = dot3(y, need) / yl;
            if valid && y_need < best_dot {
                for (var k = 0u; k < n; k++) {
                    supports = supports && dot3(y, generator(k)) >= -EPS * yl * len[k];
                }
            }
        } else if kind == KIND_GENERATOR_PLANE {
            let axis = e.z;
            let wi = generator(i);
            let u = cross_axis(wi, axis);
            let ul = sqrt(dot3(u, u));
            valid = ul > EPS * len[i];
            y_need = sign * dot3(u, need) / ul;
            if valid && y_need < best_dot {
                // (w_i × e_a)·w_k = −(w_i × w_k)_a: min and max over k of (w_i × w_k)_a/|w_k|
                // (0 for k = i), as the pair (i, k) or (k, i) in table order computes it.
                var lo = 0.0;
                var hi = 0.0;
                for (var k = 0u; k < n; k++) {
                    var v = 0.0;
                    if k < i {
                        v = -pair_cross(generator(k), wi, len[k], len[i])[axis] * inv_len[k];
                    } else if k > i {
                        v = pair_cross(wi, generator(k), len[i], len[k])[axis] * inv_len[k];
                    }
                    lo = min(lo, v);
                    hi = max(hi, v);
                }
                if negative {
                    supports = lo >= -EPS * ul;
                } else {
                    supports = hi <= EPS * ul;
                }
            }
        } else if kind == KIND_APEX {
            valid = need_len > 0.0;
            y_need = -need_len;
            if valid && y_need < best_dot {
                for (var k = 0u; k < n; k++) {
                    supports = supports && dot3(need, generator(k)) <= EPS * need_len * len[k];
                }
            }
        }
        if valid && supports && y_need < best_dot {
            best = index;
            best_dot = y_need;
        }
    }

    // C fills R³, yet no witness passed at the need's scale: every one has forces far
    // larger than the need. Look again at docs/contract-planar.md §7's wider scale.
    if best == NO_BINDING && !have_witness {
        for (var t = 0u; t < WITNESS_COUNT; t++) {
            let s = subsets[t];
            if max(s.x, max(s.y, s.z)) >= n {
                continue;
            }
            let det = independent(s);
            if det != 0.0 {
                let f = attempt(s, det, solve(s, det, need), need, need_len, true);
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
        if !supports_all(candidate_direction(e, need, dot3(need, generator(e.y)))) {
            let again = direct_search(need);
            if again.best != NO_BINDING {
                best = again.best;
                best_dot = again.best_dot;
            }
        }
    }

    // Written field by field into the output (a local Outcome, arrays and all, would be one
    // more private array).
    outcomes[index].binding = best;
    outcomes[index].capped = 0u;
    outcomes[index].certificate = array<f32, 3>(0.0, 0.0, 0.0);
    // No candidate supports: C fills R³, unless C = {0} and need = 0 (docs/contract-planar.md §6: margin 0).
    var longest = 0.0;
    for (var i = 0u; i < MAX_GENERATORS; i++) {
        longest = max(longest, len[i]);
    }
    if best == NO_BINDING && need_len == 0.0 && longest == 0.0 {
        outcomes[index].margin = 0.0;
    } else if best == NO_BINDING {
        outcomes[index].margin = MARGIN_CAP;
        outcomes[index].capped = 1u;
    } else {
        outcomes[index].margin = unscale_margin(best_dot, e_need);
    }
    var have_certificate = best != NO_BINDING && best_dot < -EPS * need_len;
    if have_certificate {
        // The y returned, checked as a reader would: supports, and the need strictly beyond.
        let e = candidates[best];
        let y = candidate_direction(e, need, dot3(need, generator(e.y)));
        have_certificate = supports_all(y) && dot3(y, need) < -EPS * need_len;
        if have_certificate {
            outcomes[index].certificate = array<f32, 3>(y.x, y.y, y.z);
        }
    }
    if have_witness && !have_certificate {
        outcomes[index].verdict = VERDICT_SUPPORTED;
    } else if have_certificate && !have_witness {
        outcomes[index].verdict = VERDICT_UNSUPPORTED;
    } else {
        outcomes[index].verdict = VERDICT_UNCERTAIN;
    }
    outcomes[index].witness_len = 0u;
    outcomes[index].witness_index = array<u32, 3>(0u, 0u, 0u);
    outcomes[index].witness_weight = array<f32, 3>(0.0, 0.0, 0.0);
    outcomes[index].witness_exponent = array<i32, 3>(0, 0, 0);
    if have_witness {
        outcomes[index].witness_len = found.len;
        outcomes[index].witness_index = array<u32, 3>(found.index.x, found.index.y, found.index.z);
        outcomes[index].witness_weight = array<f32, 3>(found.weight.x, found.weight.y, found.weight.z);
        // Weight k in the caller's units: weight·2^(e_need − e_gen), the generator's exponent
        // read again from the case (an array of them would cost 64 private bytes).
        for (var k = 0u; k < found.len; k++) {
            outcomes[index].witness_exponent[k] = e_need - exponent_of(raw_generator(index, found.index[k]));
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= params.count {
        return;
    }
    cone_test(index);
}
