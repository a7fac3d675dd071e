// The general cone test's float32 search (docs/contract-general.md): Lawson–Hanson's active-set NNLS,
// min |Σ x_i w_i − need| over x ≥ 0, for K ≤ 256 generators in R³ or R⁶, one invocation per
// case (`main`) or one workgroup per case (`main_workgroup`: the invocations share the
// gradient scan over the generators, every other step is run by all of them alike).
//
// Mirrored line for line by `src/general/search.rs` (same state, order and constants); the
// structs by `GeneralRecord`, `GeneralHint` and `GeneralParams` in `src/general/types.rs` (keep in
// sync: `tests/general/gpu.rs` checks them). The answer is only a hint: the host re-runs the
// search in float64 from the passive set written here and checks every proof.
//
// The host uploads, per case, the unit need and then the unit generators (normalised in
// float64, rounded to float32), `dim` numbers each, at `records[i].offset` of `values`.

const MAX_DIM: u32 = 7u;

const HINT_INSIDE: u32 = 0u;
const HINT_OUTSIDE: u32 = 1u;
const HINT_UNFINISHED: u32 = 2u;
const NONE: u32 = 0xffffffffu;

const INSIDE_TOL: f32 = 1e-5;
const GRADIENT_TOL: f32 = 1e-6;
const RANK_TOL: f32 = 1e-5;

const WORKGROUP_SIZE: u32 = 64u;

// Keep in sync with `GeneralRecord` in src/general/types.rs (16 bytes).
struct Record {
    offset: u32,
    count: u32,
    dim: u32,
    _pad: u32,
}

// Keep in sync with `GeneralHint` in src/general/types.rs (40 bytes).
struct Hint {
    status: u32,
    len: u32,
    index: array<u32, 8>,
    residual: f32,
    iterations: u32,
}

// Keep in sync with `GeneralParams` in src/general/types.rs (16 bytes).
struct GeneralParams {
    count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read> records: array<Record>;
@group(0) @binding(2) var<storage, read_write> hints: array<Hint>;
@group(0) @binding(3) var<uniform> params: GeneralParams;

// The search's state (`State` in the twin): 420 bytes per invocation.
var<private> d: u32;
var<private> g0: u32;
var<private> need: array<f32, 7>;
var<private> res: array<f32, 7>;
var<private> passive: array<u32, 7>;
var<private> x: array<f32, 7>;
var<private> z: array<f32, 7>;
var<private> q: array<array<f32, 7>, 7>;
var<private> r: array<array<f32, 7>, 7>;
var<private> banned: array<u32, 8>;

// The workgroup variant's scan: each invocation's best (gradient, generator), reduced.
var<workgroup> scan_g: array<f32, WORKGROUP_SIZE>;
var<workgroup> scan_i: array<u32, WORKGROUP_SIZE>;

// Component `a` of generator `i`.
fn gen(i: u32, a: u32) -> f32 {
    return values[g0 + i * d + a];
}

fn is_banned(i: u32) -> bool {
    return ((banned[i >> 5u] >> (i & 31u)) & 1u) == 1u;
}

fn ban(i: u32) {
    banned[i >> 5u] |= 1u << (i & 31u);
}

fn clear_banned() {
    for (var w = 0u; w < 8u; w++) {
        banned[w] = 0u;
    }
}

fn is_passive(i: u32, len: u32) -> bool {
    var found = false;
    for (var a = 0u; a < len; a++) {
        found = found || passive[a] == i;
    }
    return found;
}

// Least squares on the passive set's `len` columns towards the need into `z`; false when a
// column is dependent on those before it.
fn least_squares(len: u32) -> bool {
    for (var k = 0u; k < len; k++) {
        for (var j = 0u; j < MAX_DIM; j++) {
            r[j][k] = 0.0;
        }
        var v: array<f32, 7>;
        for (var a = 0u; a < d; a++) {
            v[a] = gen(passive[k], a);
        }
        var nv = 0.0;
        for (var a = 0u; a < d; a++) {
            nv += v[a] * v[a];
        }
        nv = sqrt(nv);
        for (var twice = 0u; twice < 2u; twice++) {
            for (var j = 0u; j < k; j++) {
                var c = 0.0;
                for (var a = 0u; a < d; a++) {
                    c += v[a] * q[j][a];
                }
                r[j][k] += c;
                for (var a = 0u; a < d; a++) {
                    v[a] -= c * q[j][a];
                }
            }
        }
        var n = 0.0;
        for (var a = 0u; a < d; a++) {
            n += v[a] * v[a];
        }
        n = sqrt(n);
        if !(n > RANK_TOL * nv) {
            return false;
        }
        r[k][k] = n;
        for (var a = 0u; a < d; a++) {
            q[k][a] = v[a] / n;
        }
    }
    for (var kk = 0u; kk < len; kk++) {
        let k = len - 1u - kk;
        var s = 0.0;
        for (var a = 0u; a < d; a++) {
            s += q[k][a] * need[a];
        }
        for (var j = k + 1u; j < len; j++) {
            s -= r[k][j] * z[j];
        }
        z[k] = s / r[k][k];
    }
    return true;
}

// res = need − Σ x_a w_a over the passive set.
fn residual(len: u32) {
    for (var a = 0u; a < d; a++) {
        res[a] = need[a];
    }
    for (var p = 0u; p < len; p++) {
        for (var a = 0u; a < d; a++) {
            res[a] -= x[p] * gen(passive[p], a);
        }
    }
}

fn res_len() -> f32 {
    var s = 0.0;
    for (var a = 0u; a < d; a++) {
        s += res[a] * res[a];
    }
    return sqrt(s);
}

// w_i·res.
fn gradient(i: u32) -> f32 {
    var g = 0.0;
    for (var a = 0u; a < d; a++) {
        g += gen(i, a) * res[a];
    }
    return g;
}

// Generator j enters the passive set of `len`: the inner loop of Lawson–Hanson. Returns the
// new length.
fn enter(j: u32, len_in: u32) -> u32 {
    var len = len_in;
    passive[len] = j;
    x[len] = 0.0;
    len += 1u;
    var first = true;
    // At most max(d, 6) + 1 steps (the bound of R³ and R⁶ kept as it was).
    for (var step = 0u; step <= max(d, 6u); step++) {
        if !least_squares(len) {
            len -= 1u; // dependent on the passive set: leave it out
            ban(j);
            break;
        }
        var all_positive = true;
        for (var a = 0u; a < len; a++) {
            all_positive = all_positive && z[a] > 0.0;
        }
        if all_positive {
            for (var a = 0u; a < len; a++) {
                x[a] = z[a];
            }
            clear_banned();
            break;
        }
        if first && z[len - 1u] <= 0.0 {
            len -= 1u; // its gradient said it helps, its weight says not
            ban(j);
            break;
        }
        first = false;
        // Step from x towards z until the first weight reaches zero; that one leaves.
        // (Some z ≤ 0, so some t ≤ 1 replaces the 2.)
        var alpha = 2.0;
        var leaving = 0u;
        for (var a = 0u; a < len; a++) {
            if z[a] <= 0.0 {
                let den = x[a] - z[a];
                let t = select(0.0, x[a] / den, den > 0.0);
                if t < alpha {
                    alpha = t;
                    leaving = a;
                }
            }
        }
        for (var a = 0u; a < len; a++) {
            x[a] += alpha * (z[a] - x[a]);
        }
        x[leaving] = 0.0;
        var kept = 0u;
        for (var a = 0u; a < len; a++) {
            if x[a] > 0.0 {
                passive[kept] = passive[a];
                x[kept] = x[a];
                kept += 1u;
            }
        }
        len = kept;
        if len == 0u {
            break;
        }
    }
    residual(len);
    return len;
}

// Reads case `index`'s record and need into the state.
fn start(index: u32) -> u32 {
    let rec = records[index];
    d = rec.dim;
    g0 = rec.offset + rec.dim;
    for (var a = 0u; a < d; a++) {
        need[a] = values[rec.offset + a];
        res[a] = need[a];
    }
    clear_banned();
    return rec.count;
}

fn write_hint(index: u32, status: u32, len: u32, iterations: u32) {
    var h: Hint;
    h.status = status;
    h.len = len;
    for (var a = 0u; a < MAX_DIM; a++) {
        h.index[a] = select(0u, passive[a], a < len);
    }
    h.residual = res_len();
    h.iterations = iterations;
    hints[index] = h;
}

fn search(index: u32) {
    let k = start(index);
    var len = 0u;
    var status = HINT_UNFINISHED;
    let cap = 3u * k + 30u;
    var iterations = 0u;
    while iterations < cap {
        iterations += 1u;
        let dist = res_len();
        if dist <= INSIDE_TOL {
            status = HINT_INSIDE;
            break;
        }
        // The generator most against the residual, among those not passive nor banned.
        var best_g = GRADIENT_TOL * dist;
        var best = NONE;
        for (var i = 0u; i < k; i++) {
            if is_banned(i) || is_passive(i, len) {
                continue;
            }
            let g = gradient(i);
            if g > best_g {
                best_g = g;
                best = i;
            }
        }
        if best == NONE {
            status = HINT_OUTSIDE;
            break;
        }
        if len == d {
            ban(best); // a full passive set: it lies in its span
            continue;
        }
        len = enter(best, len);
    }
    write_hint(index, status, len, iterations);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= params.count {
        return;
    }
    search(index);
}

// One workgroup per case: every invocation holds the same state and takes the same steps;
// only the gradient scan is shared (invocation l takes generators l, l + 64, …), reduced to
// the largest gradient, ties to the smaller index (the per-invocation scan's choice). The
// loop runs a uniform number of rounds so that every barrier is in uniform control flow.
var<workgroup> stop: u32;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main_workgroup(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) l: u32,
) {
    let index = wg.x;
    if index >= params.count {
        return;
    }
    let k = start(index);
    let cap = 3u * records[index].count + 30u;
    var len = 0u;
    var status = HINT_UNFINISHED;
    var done = false;
    var iterations = 0u;
    for (var turn = 0u; turn < cap; turn++) {
        var best_g = 0.0;
        var best = NONE;
        if !done {
            iterations += 1u;
            let dist = res_len();
            if dist <= INSIDE_TOL {
                status = HINT_INSIDE;
                done = true;
            } else {
                best_g = GRADIENT_TOL * dist;
                for (var i = l; i < k; i += WORKGROUP_SIZE) {
                    if is_banned(i) || is_passive(i, len) {
                        continue;
                    }
                    let g = gradient(i);
                    if g > best_g {
                        best_g = g;
                        best = i;
                    }
                }
            }
        }
        scan_g[l] = best_g;
        scan_i[l] = best;
        workgroupBarrier();
        for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride >>= 1u) {
            if l < stride {
                let bi = scan_i[l + stride];
                let bg = scan_g[l + stride];
                let ai = scan_i[l];
                if bi != NONE && (ai == NONE || bg > scan_g[l] || (bg == scan_g[l] && bi < ai)) {
                    scan_i[l] = bi;
                    scan_g[l] = bg;
                }
            }
            workgroupBarrier();
        }
        if !done {
            let j = scan_i[0];
            if j == NONE {
                status = HINT_OUTSIDE;
                done = true;
            } else if len == d {
                ban(j); // a full passive set: it lies in its span
            } else {
                len = enter(j, len);
            }
        }
        if l == 0u {
            stop = select(0u, 1u, done);
        }
        if workgroupUniformLoad(&stop) == 1u {
            break;
        }
    }
    if l == 0u {
        write_hint(index, status, len, iterations);
    }
}
