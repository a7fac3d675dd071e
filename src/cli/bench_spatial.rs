//! `planar-hold bench --spatial`: the gate's rate on spatial scenes (docs/contract-spatial.md and docs/contract-scenes.md) of
//! three families — a cube on its four bottom corners, two feet (two faces of four vertices),
//! a four-finger grasp — each scene jittered (sizes, positions, normals, μ, the mass and
//! centre-of-mass box) and with 8 needs (mass × δx × δy intervals), friction pyramids of 4
//! edges (`"inner"`). Scenes per second end to end (JSON line in, report out) on all cores,
//! on one, and on the GPU where `--backend` has gpu and an adapter exists; and where the time
//! goes: parsing, building the generators and needs, the cone tests (and within them the
//! inside margin's facets), the support region, and judging + writing the reports.

use std::time::Instant;

use planar_hold::details::sample::Rng;
use planar_hold::details::scene::{support_region, Pyramid};
use planar_hold::details::solver::{Route, Solver};
use planar_hold::GeneralBatch;
use planar_hold::{hold_reports, parse_line, SceneLine, SpatialScene, SupportRegion};
use planar_hold::{Answers, Backend, Batch, Engine, Options};
use rayon::prelude::*;
use serde_json::{json, Value};

use super::Failure;

/// The families timed, in table order.
pub(super) const FAMILIES: [&str; 3] = ["cube", "feet", "grasp"];

/// Edges of each friction pyramid (docs/contract-spatial.md §2's default).
const K: usize = 4;

/// A float64 in [lo, hi) from the workload's generator.
fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    lo + (hi - lo) * u
}

fn normalize(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|c| c / n)
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The mass and centre-of-mass box of a scene of half-size `l`: mass within ±10 % of
/// nominal, the centre of mass in a square of side 0.04·l about `(cx, cy)`.
fn body(id: String, l: f64, cx: f64, cy: f64, contacts: Vec<Value>) -> Value {
    let w = 0.02 * l;
    json!({
        "id": id, "dim": 3, "half_size": l, "pyramid": K, "friction": "inner",
        "mass": {"nominal": 1.0, "range": [0.9, 1.1]},
        "com_offset": [[cx - w, cx + w], [cy - w, cy + w]],
        "contacts": contacts,
    })
}

/// A cube of half-size ~0.5 on its four bottom corners (point contacts, normals tilted by
/// up to ~3°), the centre of mass anywhere within 1.2 half-sizes (held about 70 %).
fn cube(rng: &mut Rng, i: usize) -> Value {
    let l = uniform(rng, 0.4, 0.6);
    let contacts = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .enumerate()
        .map(|(pair, &(sx, sy))| {
            let p = [
                sx * l * uniform(rng, 0.95, 1.05),
                sy * l * uniform(rng, 0.95, 1.05),
                -l,
            ];
            let n = [uniform(rng, -0.05, 0.05), uniform(rng, -0.05, 0.05), 1.0];
            json!({"pair": pair, "points": [p], "normal": n, "mu": uniform(rng, 0.2, 1.0)})
        })
        .collect();
    let (cx, cy) = (uniform(rng, -1.2, 1.2) * l, uniform(rng, -1.2, 1.2) * l);
    body(format!("cube_{i}"), l, cx, cy, contacts)
}

/// A face of four vertices: a `a × b` rectangle centred at `c`, perpendicular to `n`.
fn sole(c: [f64; 3], n: [f64; 3], a: f64, b: f64) -> Vec<[f64; 3]> {
    let u = normalize(cross([0.0, 1.0, 0.0], n));
    let v = cross(n, u);
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|&(s, t)| std::array::from_fn(|k| c[k] + s * a / 2.0 * u[k] + t * b / 2.0 * v[k]))
        .collect()
}

/// A standing body (half-size 0.5, the centre of mass 0.9 above the ground) on two feet:
/// two rectangular soles (0.22 × 0.1) as face contacts of four vertices, on ground tilted by
/// up to ~6°, the feet 0.2–0.4 apart, one a little ahead; the centre of mass near the
/// support polygon.
fn feet(rng: &mut Rng, i: usize) -> Value {
    let l = 0.5;
    let ahead = uniform(rng, -0.1, 0.1);
    let apart = uniform(rng, 0.1, 0.2);
    let contacts = [(-1.0, 0), (1.0, 1)]
        .iter()
        .map(|&(side, pair)| {
            let n = normalize([uniform(rng, -0.1, 0.1), uniform(rng, -0.1, 0.1), 1.0]);
            let c = [side * ahead / 2.0, side * apart, -0.9];
            let points = sole(c, n, uniform(rng, 0.2, 0.24), uniform(rng, 0.08, 0.12));
            json!({"pair": pair, "points": points, "normal": n, "mu": uniform(rng, 0.4, 1.0)})
        })
        .collect();
    let (cx, cy) = (uniform(rng, -0.15, 0.15), uniform(rng, -0.3, 0.3));
    body(format!("feet_{i}"), l, cx, cy, contacts)
}

/// A ball of radius 0.04 (half-size 0.04) held by four fingertips: a thumb and three
/// fingers roughly opposed across it, each pressing along the inward normal at its point,
/// μ 0.2–0.8, the centre of mass within 0.5 radii of the centre.
fn grasp(rng: &mut Rng, i: usize) -> Value {
    let r = 0.04;
    let thumb = std::f64::consts::PI + uniform(rng, -0.3, 0.3);
    let angles = [
        (thumb, uniform(rng, -0.4, 0.2)),
        (uniform(rng, -0.9, -0.5), uniform(rng, -0.3, 0.3)),
        (uniform(rng, -0.2, 0.2), uniform(rng, -0.3, 0.3)),
        (uniform(rng, 0.5, 0.9), uniform(rng, -0.3, 0.3)),
    ];
    let contacts = angles
        .iter()
        .enumerate()
        .map(|(pair, &(az, el))| {
            let d = [el.cos() * az.cos(), el.cos() * az.sin(), el.sin()];
            let p = d.map(|c| r * c);
            let n = d.map(|c| -c);
            json!({"pair": pair, "points": [p], "normal": n, "mu": uniform(rng, 0.2, 0.8)})
        })
        .collect();
    let (cx, cy) = (uniform(rng, -0.5, 0.5) * r, uniform(rng, -0.5, 0.5) * r);
    body(format!("grasp_{i}"), r, cx, cy, contacts)
}

/// `n` jittered scenes of `family` as JSON lines (the same ones every run).
pub(super) fn scenes(family: &str, n: usize) -> Vec<String> {
    let seed = 2026 + FAMILIES.iter().position(|f| *f == family).unwrap_or(0) as u64;
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            match family {
                "cube" => cube(&mut rng, i),
                "feet" => feet(&mut rng, i),
                _ => grasp(&mut rng, i),
            }
            .to_string()
        })
        .collect()
}

/// Seconds of the fastest of up to three runs of `f` (fewer once they have taken a second).
fn best(mut f: impl FnMut()) -> f64 {
    let (mut best, mut total) = (f64::MAX, 0.0);
    for _ in 0..3 {
        let t = Instant::now();
        f();
        let s = t.elapsed().as_secs_f64();
        best = best.min(s);
        total += s;
        if total > 1.0 {
            break;
        }
    }
    best
}

/// The gate end to end: each line parsed, every need through `engine` in one batch, the
/// reports judged (with the support regions) and written as JSON.
fn gate(engine: &Engine, lines: &[String]) -> Result<usize, Failure> {
    let scenes = lines
        .par_iter()
        .map(|l| parse_line(l))
        .collect::<Result<Vec<_>, _>>()?;
    let reports = hold_reports(engine, &scenes, Options::default())?;
    let bytes: usize = reports
        .par_iter()
        .map(|r| serde_json::to_string(r).map_or(0, |s| s.len() + 1))
        .sum();
    Ok(bytes)
}

fn spatial(lines: &[SceneLine]) -> Vec<&SpatialScene> {
    lines
        .iter()
        .filter_map(|l| match l {
            SceneLine::Spatial(s) => Some(s),
            SceneLine::Planar(_) | SceneLine::Grasp(_) => None,
        })
        .collect()
}

/// One family's numbers.
struct Row {
    family: &'static str,
    k: usize,
    scenes: usize,
    needs: usize,
    held: usize,
    all: f64,
    one: f64,
    gpu: Option<f64>,
    parse_s: f64,
    build_s: f64,
    cone_s: f64,
    nnls_s: f64,
    region_s: f64,
    /// The support region cut from the whole facet set instead ([`Route::Whole`]).
    region_whole_s: f64,
    /// Every need's inside margin from its scene's whole facet set, found once a scene
    /// (the route that would pay where many needs share one cone).
    margins_whole_s: f64,
    e2e_s: f64,
}

fn time_family(
    family: &'static str,
    lines: &[String],
    gpu: Option<&Engine>,
) -> Result<Row, Failure> {
    let n = lines.len();
    let cpu = Engine::new(Backend::Cpu)?;
    let mut failed = None;
    let e2e_s = best(|| {
        if let Err(e) = gate(&cpu, lines) {
            failed = Some(e);
        }
    });
    let one_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Failure::new(format!("a one-thread pool: {e}"), 1))?;
    let one_s = one_pool.install(|| {
        best(|| {
            if let Err(e) = gate(&cpu, lines) {
                failed = Some(e);
            }
        })
    });
    let gpu_s = match gpu {
        Some(g) => {
            gate(g, lines)?; // warm-up: buffers grow
            Some(best(|| {
                if let Err(e) = gate(g, lines) {
                    failed = Some(e);
                }
            }))
        }
        None => None,
    };
    if let Some(e) = failed {
        return Err(e);
    }
    // The stages, each on all cores as the gate runs them.
    let mut parsed = Vec::new();
    let parse_s = best(|| {
        parsed = lines
            .par_iter()
            .map(|l| parse_line(l).expect("parsed above"))
            .collect();
    });
    let scenes = spatial(&parsed);
    let mut batch = GeneralBatch::default();
    let build_s = best(|| {
        batch.clear();
        for s in &scenes {
            let g: Vec<f64> = s.generators(s.pyramid, Pyramid::Inner).concat();
            for need in s.needs() {
                batch.push(6, &g, &need).expect("a valid scene");
            }
        }
    });
    let batch = Batch::from(batch);
    let mut answers = Answers::default();
    let cpu = Engine::cpu();
    let mut cones = |inside_margin| {
        let options = Options {
            inside_margin,
            ..Options::default()
        };
        cpu.evaluate_into(&batch, options, &mut answers)
    };
    let mut failed = None;
    let mut timed = |inside_margin| {
        best(|| {
            if let Err(e) = cones(inside_margin) {
                failed = Some(e);
            }
        })
    };
    let nnls_s = timed(false);
    let cone_s = timed(true);
    if let Some(e) = failed {
        return Err(e.into());
    }
    let out = &answers.general;
    let held = scenes
        .iter()
        .scan(0, |at, s| {
            let m = s.needs().len();
            let all = out[*at..*at + m]
                .iter()
                .all(|o| o.verdict == planar_hold::Verdict::Supported);
            *at += m;
            Some(all)
        })
        .filter(|&h| h)
        .count();
    let region_s = best(|| {
        let mut regions = vec![SupportRegion::default(); scenes.len()];
        cpu.each_with_solver(&mut regions, Options::default(), 1, |solver, i, region| {
            let s = &scenes[i];
            let g = s.generators(s.pyramid, Pyramid::Inner);
            *region = support_region(solver, &g, &s.body, false);
            0
        });
    });
    let region_whole_s = best(|| {
        let regions: Vec<SupportRegion> = scenes
            .par_iter()
            .map_init(
                || Solver::with_route(Route::Whole),
                |solver, s| {
                    let g = s.generators(s.pyramid, Pyramid::Inner);
                    support_region(solver, &g, &s.body, false)
                },
            )
            .collect();
        std::hint::black_box(regions);
    });
    let margins_whole_s = best(|| {
        let least: Vec<f64> = scenes
            .par_iter()
            .map_init(
                || (Solver::with_route(Route::Whole), GeneralBatch::default()),
                |(solver, one), s| {
                    let g: Vec<f64> = s.generators(s.pyramid, Pyramid::Inner).concat();
                    let needs = s.needs();
                    one.clear();
                    one.push(6, &g, &needs[0]).expect("a valid scene");
                    let (facets, _) = solver.facets_proven(&one.get(0));
                    needs
                        .iter()
                        .map(|x| {
                            facets
                                .iter()
                                .map(|f| (0..6).map(|c| f.normal[c] * x[c]).sum::<f64>())
                                .fold(f64::INFINITY, f64::min)
                        })
                        .sum::<f64>()
                },
            )
            .collect();
        std::hint::black_box(least);
    });
    Ok(Row {
        family,
        k: scenes.first().map_or(0, |s| s.generator_count(s.pyramid)),
        scenes: n,
        needs: batch.len(),
        held,
        all: n as f64 / e2e_s,
        one: n as f64 / one_s,
        gpu: gpu_s.map(|s| n as f64 / s),
        parse_s,
        build_s,
        cone_s,
        nnls_s,
        region_s,
        region_whole_s,
        margins_whole_s,
        e2e_s,
    })
}

/// `scenes_per_family` scenes of each family; `out`: also write them all as JSON Lines.
pub(super) fn run(
    scenes_per_family: usize,
    gpu: bool,
    json_out: bool,
    out: Option<&str>,
) -> Result<(), Failure> {
    let arch = super::machine::cpu_features();
    let gpu = if gpu {
        match Engine::new(Backend::Gpu) {
            Ok(g) => Some(g),
            Err(e) => {
                println!("gpu: {e}\ngpu: skipped (no adapter)");
                None
            }
        }
    } else {
        None
    };
    let adapter = gpu.as_ref().map(|g| g.describe());
    let families: Vec<(&'static str, Vec<String>)> = FAMILIES
        .iter()
        .map(|&f| (f, scenes(f, scenes_per_family)))
        .collect();
    if let Some(path) = out {
        let text: String = families
            .iter()
            .flat_map(|(_, l)| l.iter().map(|s| format!("{s}\n")))
            .collect();
        std::fs::write(path, text)
            .map_err(|e| Failure::new(format!("{path}: {e}"), super::exit::IO))?;
    }
    println!(
        "spatial scenes (pyramid {K}, \"inner\", 8 needs each: mass x dx x dy): {arch}, {}",
        super::machine::threads_and_gpu(adapter.as_deref())
    );
    println!(
        "{:>6} {:>3} {:>7} {:>5} {:>11} {:>10} {:>10} {:>10} {:>7} {:>7} {:>7} {:>9} {:>7} {:>7}",
        "family",
        "K",
        "scenes",
        "held",
        "scenes/s",
        "1 core/s",
        "needs/s",
        "gpu/s",
        "parse",
        "build",
        "cones",
        "(facets)",
        "region",
        "judge"
    );
    let mut rows = Vec::new();
    for (family, lines) in &families {
        let r = time_family(family, lines, gpu.as_ref())?;
        let pct = |s: f64| format!("{:.0}%", 100.0 * s / r.e2e_s);
        let judge = (r.e2e_s - r.parse_s - r.build_s - r.cone_s - r.region_s).max(0.0);
        let facets = (r.cone_s - r.nnls_s).max(0.0);
        println!(
            "{:>6} {:>3} {:>7} {:>4.0}% {:>11.0} {:>10.0} {:>10.0} {:>10} {:>7} {:>7} {:>7} {:>9} {:>7} {:>7}",
            r.family,
            r.k,
            r.scenes,
            100.0 * r.held as f64 / r.scenes as f64,
            r.all,
            r.one,
            r.all * r.needs as f64 / r.scenes as f64,
            r.gpu.map_or("-".into(), |v| format!("{v:.0}")),
            pct(r.parse_s),
            pct(r.build_s),
            pct(r.cone_s),
            format!("({})", pct(facets)),
            pct(r.region_s),
            pct(judge),
        );
        println!(
            "{:>6} support region: {:.1} µs a scene by projection, {:.1} µs from the whole facet set",
            "",
            1e6 * r.region_s / r.scenes as f64,
            1e6 * r.region_whole_s / r.scenes as f64,
        );
        // The crossover: the local search's cost a need against the whole facet set's a cone.
        let local = (r.cone_s - r.nnls_s).max(0.0) / r.needs as f64;
        let whole = r.margins_whole_s / r.scenes as f64;
        println!(
            "{:>6} inside margins: {:.1} µs a need by the local search, {:.1} µs a cone from the \
             whole facet set (found once, then a dot product a need): that pays from {:.0} needs \
             a cone, the gate asks {}",
            "",
            1e6 * local,
            1e6 * whole,
            (whole / local.max(1e-12)).ceil(),
            r.needs / r.scenes.max(1),
        );
        rows.push(json!({
            "family": r.family, "k": r.k, "scenes": r.scenes, "needs": r.needs,
            "held": r.held, "scenes_per_s": r.all, "one_core_scenes_per_s": r.one,
            "gpu_scenes_per_s": r.gpu,
            "seconds": {"end_to_end": r.e2e_s, "parse": r.parse_s, "build": r.build_s,
                        "cone_tests": r.cone_s, "cone_tests_without_facets": r.nnls_s,
                        "support_region": r.region_s,
                        "support_region_whole_facet_set": r.region_whole_s,
                        "inside_margins_whole_facet_set": r.margins_whole_s,
                        "judge_and_json": judge},
        }));
    }
    println!(
        "stages as shares of the all-core end-to-end time (each timed alone on all cores): \
         parse = JSON line to scene; build = generators + needs into one batch; cones = the \
         general engine on every need (\"(facets)\": the inside margin's share of it); \
         region = the support region by iterative projection with its proof; judge = the rest (verdicts, \
         reasons, writing the JSON)"
    );
    if json_out {
        println!(
            "{}",
            json!({"spatial": rows, "cpu": arch, "threads": rayon::current_num_threads(),
                   "adapter": adapter})
        );
    }
    Ok(())
}
