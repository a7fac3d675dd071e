//! `planar-hold demo`: the planar reference scenes (docs/contract-planar.md §6) side by side
//! with their expected values, then two spatial scenes through the gate (a cube on its four
//! corners, a stance on two feet: verdict, robust margin, support region), a grasp (four
//! fingertips on a cube: force closure, q1, the weakest wrench, the binding facet's contacts),
//! then a random batch on the GPU and the CPU with the agreement count and cases/s of each.
//! It writes no files.

use std::io::Write;
use std::time::Instant;

use planar_hold::details::sample::{contact_generators, mixed_cases};
use planar_hold::{hold_reports, parse_line, Report};
use planar_hold::{Answers, Backend, Batch, Case, Engine, Options, Outcome};

use super::{BackendArg, Failure};

/// A docs/contract-planar.md §6 scene: name, case, expected verdict and margin.
fn reference_scenes() -> Vec<(String, Case, &'static str, f32)> {
    let floor = [0.0f32, 1.0];
    let (a, b) = ([-1.0f32, -1.0], [1.0f32, -1.0]);
    let gravity = [0.0, 1.0, 0.0];
    let mut scenes = Vec::new();
    for (mu, expected) in [
        (0.2f32, 0.196_116_14),
        (0.5, 0.447_213_6),
        (0.8, 0.577_350_26),
        (1.2, 0.577_350_26),
    ] {
        let g = contact_generators(&[(a, floor, mu), (b, floor, mu)]);
        scenes.push((
            format!("flat box, μ = {mu}"),
            Case::new(&g, gravity).unwrap(),
            "supported",
            expected,
        ));
    }
    let g = contact_generators(&[(a, floor, 0.2)]);
    scenes.push((
        "corner A alone, μ = 0.2".into(),
        Case::new(&g, gravity).unwrap(),
        "unsupported",
        -0.636,
    ));
    let g = contact_generators(&[(a, floor, 0.2), (b, floor, 0.2)]);
    for (push, verdict) in [
        (0.19f32, "supported"),
        (-0.19, "supported"),
        (0.21, "unsupported"),
        (-0.21, "unsupported"),
    ] {
        let case = Case::new(&g, [push, 1.0, 0.0]).unwrap();
        scenes.push((
            format!("sideways push {push:+}, μ = 0.2"),
            case,
            verdict,
            f32::NAN,
        ));
    }
    scenes
}

/// Two spatial scenes (docs/contract-scenes.md §2): a cube of half-size 0.5 on its four bottom
/// corners, and a 60 kg body standing on two feet (faces of four vertices each), both with
/// intervals of mass and centre of mass.
const SPATIAL_SCENES: [&str; 2] = [
    r#"{"id": "cube on four corners, μ = 0.5", "dim": 3, "half_size": 0.5, "pyramid": 4,
        "mass": {"nominal": 1.0, "range": [0.9, 1.1]}, "com_offset": [[-0.05, 0.05], [-0.05, 0.05]],
        "contacts": [{"pair": 0, "points": [[-0.5, -0.5, -0.5]], "normal": [0, 0, 1], "mu": 0.5},
                     {"pair": 1, "points": [[0.5, -0.5, -0.5]], "normal": [0, 0, 1], "mu": 0.5},
                     {"pair": 2, "points": [[0.5, 0.5, -0.5]], "normal": [0, 0, 1], "mu": 0.5},
                     {"pair": 3, "points": [[-0.5, 0.5, -0.5]], "normal": [0, 0, 1], "mu": 0.5}]}"#,
    r#"{"id": "two feet, μ in [0.6, 0.8], Coulomb cones", "dim": 3, "half_size": 0.4, "pyramid": 4,
        "friction": "coulomb", "mass": {"nominal": 60.0, "range": [55.0, 65.0]},
        "com_offset": [[-0.02, 0.06], [-0.03, 0.03]],
        "contacts": [{"pair": 0, "points": [[-0.08, 0.06, -0.9], [0.17, 0.06, -0.9], [0.17, 0.16, -0.9],
                                           [-0.08, 0.16, -0.9]], "normal": [0, 0, 1], "mu": [0.6, 0.8]},
                     {"pair": 1, "points": [[-0.08, -0.16, -0.9], [0.17, -0.16, -0.9], [0.17, -0.06, -0.9],
                                           [-0.08, -0.06, -0.9]], "normal": [0, 0, 1], "mu": [0.6, 0.8]}]}"#,
];

/// The README's grasp (docs/contract-grasp.md): four fingertips on a 10 cm cube, μ = 0.5.
const GRASP: &str = r#"{"id": "four fingertips on a 10 cm cube, μ = 0.5", "dim": 3, "grasp": true,
    "half_size": 0.05, "pyramid": 8, "friction": "inner",
    "contacts": [{"points": [[0.05, 0, 0]], "normal": [-1, 0, 0], "mu": 0.5},
                 {"points": [[-0.05, 0.03, 0]], "normal": [1, 0, 0], "mu": 0.5},
                 {"points": [[-0.05, -0.03, 0.02]], "normal": [1, 0, 0], "mu": 0.5},
                 {"points": [[0, 0, 0.05]], "normal": [0, 0, -1], "mu": 0.5}]}"#;

/// The grasp through the gate on `engine`: force closure, q1, the weakest wrench, the
/// contacts on the binding facet.
fn show_grasp(out: &mut impl Write, engine: &Engine, label: &str) -> Result<(), Failure> {
    let line = parse_line(&GRASP.replace('\n', " "))?;
    for report in hold_reports(engine, &[line], Options::default())? {
        let Report::Grasp(r) = report else {
            continue;
        };
        let weakest: Vec<String> = r.weakest.iter().map(|x| format!("{x:.3}")).collect();
        let facet = r
            .facet
            .as_ref()
            .map(|f| format!("{:?}", f.contacts))
            .unwrap_or_else(|| "none".into());
        writeln!(
            out,
            "  {}\n    {label:<8} force closure {}, q1 {:.5}{} ({} generators, pyramids of {} \
             edges)\n             weakest wrench [{}], binding facet on contacts {facet}",
            r.id.as_str().unwrap_or_default(),
            r.force_closure,
            r.q1,
            if r.margin_checked {
                ", proven"
            } else {
                ", an upper bound"
            },
            r.n_generators,
            r.pyramid,
            weakest.join(", "),
        )?;
    }
    Ok(())
}

/// The spatial scenes through the gate on `engine`, one block each.
fn show_spatial(out: &mut impl Write, engine: &Engine, label: &str) -> Result<(), Failure> {
    let lines: Vec<_> = SPATIAL_SCENES
        .iter()
        .map(|text| parse_line(&text.replace('\n', " ")))
        .collect::<Result<_, _>>()?;
    for report in hold_reports(engine, &lines, Options::default())? {
        let Report::Spatial(r) = report else {
            continue;
        };
        let region: Vec<String> = r
            .support_region
            .iter()
            .flatten()
            .map(|[x, y]| format!("({x:.3}, {y:.3})"))
            .collect();
        writeln!(
            out,
            "  {}\n    {label:<8} {} at every mass and centre of mass, robust margin {:.5} \
             ({} needs, {} generators, pyramids of {} edges)\n             support region \
             ({}): {}",
            r.id.as_str().unwrap_or_default(),
            if r.held { "held" } else { "not held" },
            r.robust_margin,
            r.needs.len(),
            r.n_generators,
            r.pyramid,
            r.support_region_shape.unwrap_or_default(),
            region.join(" ")
        )?;
    }
    Ok(())
}

/// One outcome in a line: verdict, margin, and the witness or the certificate. The witness
/// weights are `eval`'s (re-solved in float64 on the subset), printed to 5 decimals as the
/// margin is: the float32 search's own would read 0.5699999332427979 for 0.57.
fn show(case: &Case, o: &Outcome) -> String {
    let evidence = match (o.witness(), o.certificate()) {
        (Some(w), _) => {
            let weights: Vec<String> = w.polished(case).iter().map(|x| format!("{x:.5}")).collect();
            format!("witness {:?} × [{}]", w.indices, weights.join(", "))
        }
        (_, Some(y)) => format!("certificate y = [{:.4}, {:.4}, {:.4}]", y[0], y[1], y[2]),
        _ => String::new(),
    };
    format!(
        "{:<11} {:>9.5}  {}",
        o.verdict().as_str(),
        o.margin,
        evidence
    )
}

/// `backend`: `cpu` alone, `gpu` (required) beside the CPU, or `both` (the GPU when found).
pub(super) fn run(n: usize, backend: BackendArg) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    let cpu = Engine::new(Backend::Cpu)?;
    let mut gpu = match backend {
        BackendArg::Cpu => None,
        BackendArg::Gpu => Some(Engine::new(Backend::Gpu)?),
        BackendArg::Both => match Engine::new(Backend::Gpu) {
            Ok(e) => Some(e),
            Err(e) => {
                writeln!(out, "GPU: {e}\n     (continuing with the CPU only)\n")?;
                None
            }
        },
    };
    writeln!(
        out,
        "Reference scenes (docs/contract-planar.md §6: a flat square box, corners A = (-1,-1), \
         B = (1,-1), ℓ = 1):"
    )?;
    let scenes = reference_scenes();
    let cases = Batch::from(scenes.iter().map(|s| s.1).collect::<Vec<Case>>());
    let on_cpu = cpu.evaluate(&cases, Options::default())?.planar;
    let on_gpu = gpu
        .as_mut()
        .map(|g| g.evaluate(&cases, Options::default()).map(|a| a.planar))
        .transpose()?;
    for (k, (name, case, verdict, margin)) in scenes.iter().enumerate() {
        let expected = if margin.is_nan() {
            format!("{verdict:<11}")
        } else {
            format!("{verdict:<11} {margin:>9.5}")
        };
        writeln!(
            out,
            "  {name}\n    expected {expected}\n    cpu      {}",
            show(case, &on_cpu[k])
        )?;
        if let Some(g) = &on_gpu {
            writeln!(out, "    gpu      {}", show(case, &g[k]))?;
        }
    }

    writeln!(
        out,
        "\nSpatial scenes through the gate (docs/contract-scenes.md; robust margin: force in \
         nominal weights, moment in weight × half-size; support region: the centre-of-mass \
         offsets [δx, δy] that hold):"
    )?;
    show_spatial(&mut out, &cpu, "cpu")?;
    if let Some(g) = gpu.as_mut() {
        writeln!(out, "  the same on the GPU:")?;
        show_spatial(&mut out, g, "gpu")?;
    }
    writeln!(
        out,
        "\nA grasp through the gate (docs/contract-grasp.md; q1: the largest disturbance wrench \
         resisted in every direction with total normal force 1; weakest wrench: (force, \
         moment / half-size)):"
    )?;
    show_grasp(&mut out, &cpu, "cpu")?;
    if let Some(g) = gpu.as_mut() {
        show_grasp(&mut out, g, "gpu")?;
    }
    writeln!(
        out,
        "  (demo writes no files; pictures: planar-hold draw docs/scenes3d.jsonl -o DIR writes \
         DIR/<id>.svg, a grasp's too)"
    )?;

    writeln!(
        out,
        "\nRandom batch: {n} cases (boxes, random cones and degenerate shapes)"
    )?;
    let cases = mixed_cases(2026, n);
    let warm = Batch::from(&cases[..n.min(1024)]);
    let batch = Batch::from(cases);
    let mut answers = Answers {
        planar: vec![Outcome::default(); n],
        ..Answers::default()
    };
    let start = Instant::now();
    cpu.evaluate_into(&batch, Options::default(), &mut answers)?;
    let cpu_rate = n as f64 / start.elapsed().as_secs_f64();
    let out_cpu = answers.planar;
    writeln!(out, "  {:<44} {:>12.0} cases/s", cpu.describe(), cpu_rate)?;
    if let Some(g) = gpu.as_mut() {
        g.evaluate(&warm, Options::default())?; // warm-up
        let mut answers = Answers {
            planar: vec![Outcome::default(); n],
            ..Answers::default()
        };
        let start = Instant::now();
        g.evaluate_into(&batch, Options::default(), &mut answers)?;
        let out_gpu = answers.planar;
        let gpu_rate = n as f64 / start.elapsed().as_secs_f64();
        writeln!(
            out,
            "  {:<44} {:>12.0} cases/s  (GPU/CPU = {:.2})",
            g.describe(),
            gpu_rate,
            gpu_rate / cpu_rate
        )?;
        let same_verdict = out_gpu
            .iter()
            .zip(&out_cpu)
            .filter(|(a, b)| a.verdict == b.verdict)
            .count();
        let same_witness = out_gpu
            .iter()
            .zip(&out_cpu)
            .filter(|(a, b)| a.witness().map(|w| w.indices) == b.witness().map(|w| w.indices))
            .count();
        let disagree = out_gpu
            .iter()
            .zip(&out_cpu)
            .filter(|(a, b)| a.disagreement(b).is_some())
            .count();
        writeln!(
            out,
            "  agreement: verdicts {same_verdict}/{n}, witness subsets {same_witness}/{n}, \
             beyond tolerance {disagree}"
        )?;
    }
    let held = out_cpu.iter().filter(|o| o.witness().is_some()).count();
    writeln!(out, "  supported {held}, not supported {}", n - held)?;
    Ok(())
}
