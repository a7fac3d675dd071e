//! planar-hold in a browser: the core crate's scene parsing, cone-test formats, reports and
//! pictures, with the WGSL kernel run by the browser's WebGPU (`gpu`). The page (`www/`)
//! calls these functions; `window.planarHold` wraps them for scripts and tests.
//!
//! Everything that is not a promise of the GPU comes from `planar_hold` itself: the JSON Lines
//! reader and writer of `eval` ([`planar_hold::io`]), the gate's scenes and reports
//! ([`planar_hold::scene`]), the pictures ([`planar_hold::draw`]).

mod gpu;

use std::cell::RefCell;
use std::rc::Rc;

use planar_hold::io::json::{salvage_id, write_line, ErrorLine};
use planar_hold::io::lines::{LineReader, MAX_LINE};
use planar_hold::io::{format_json, parse_json_chunk_into, CaseBatch};
use planar_hold::scene::gate::{self, Judged};
use planar_hold::scene::{parse_planar, Friction, HoldReport, Report, Scene};
use planar_hold::{draw, Answers, Batch, Case, Engine, Options};
use serde_json::json;
use wasm_bindgen::prelude::*;

pub use gpu::WebGpu;

thread_local! {
    static GPU: RefCell<Option<Rc<WebGpu>>> = const { RefCell::new(None) };
}

fn gpu() -> Result<Rc<WebGpu>, JsValue> {
    GPU.with(|g| g.borrow().clone())
        .ok_or_else(|| JsValue::from_str("WebGPU is not initialised (call init() first)"))
}

fn js_err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// Finds the WebGPU adapter and builds the pipeline; resolves to the adapter's name.
#[wasm_bindgen]
pub async fn init() -> Result<String, JsValue> {
    let engine = Rc::new(WebGpu::new().await?);
    let name = engine.adapter.clone();
    GPU.with(|g| *g.borrow_mut() = Some(engine));
    Ok(name)
}

/// The lines of `text` in chunks, as `eval` and `gate` read a file.
fn chunks(text: &str, rows: usize) -> Result<Vec<planar_hold::io::lines::LineChunk>, JsValue> {
    let mut reader = LineReader::new(text.as_bytes(), rows, 8 << 20);
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk().map_err(js_err)? {
        out.push(chunk);
    }
    Ok(out)
}

/// Which engine answers a call.
#[derive(Clone, Copy)]
enum On {
    Gpu,
    Cpu,
}

async fn eval_text(on: On, text: &str) -> Result<String, JsValue> {
    let mut out = Vec::new();
    let mut batch = CaseBatch::default();
    for chunk in chunks(text, 16_384)? {
        parse_json_chunk_into(&chunk, &mut batch);
        let answers = answers(on, &batch.batch).await?;
        format_json(&batch, &answers, &mut out);
    }
    String::from_utf8(out).map_err(js_err)
}

/// `planar-hold eval`'s JSON Lines answers to the cone tests in `text`, from the GPU: one line
/// per input line, a refused line answered in place by `{"id", "line", "error"}`.
#[wasm_bindgen]
pub async fn evaluate(text: String) -> Result<String, JsValue> {
    eval_text(On::Gpu, &text).await
}

/// As [`evaluate`], on the CPU engine compiled to wasm (one thread): the page's fallback where
/// WebGPU is missing, and its yardstick.
#[wasm_bindgen]
pub async fn evaluate_cpu(text: String) -> Result<String, JsValue> {
    eval_text(On::Cpu, &text).await
}

/// Scenes, or the refused line's `(id, error)`.
type Parsed = Vec<(u64, Result<Scene, (Option<serde_json::Value>, String)>)>;

fn parse_scenes(text: &str) -> Result<Parsed, JsValue> {
    let mut out = Vec::new();
    for chunk in chunks(text, 4096)? {
        for (k, line) in chunk.lines.iter().enumerate() {
            let bytes = chunk.text(k);
            let row = if line.too_long {
                Err((None, format!("line longer than {MAX_LINE} bytes")))
            } else {
                match std::str::from_utf8(bytes) {
                    Err(e) => Err((None, format!("invalid input: not UTF-8: {e}"))),
                    Ok(s) => parse_planar(s).map_err(|e| (salvage_id(bytes), e.to_string())),
                }
            };
            out.push((line.number, row));
        }
    }
    Ok(out)
}

/// A batch's answers on the page: the planar cases from the GPU (awaited) or the CPU engine
/// compiled to wasm, the general ones on that CPU engine (the page's WebGPU runs the
/// enumeration only).
async fn answers(on: On, batch: &Batch) -> Result<Answers, JsValue> {
    match on {
        On::Cpu => Engine::Cpu
            .evaluate(batch, Options::default())
            .map_err(js_err),
        On::Gpu => {
            let planar = gpu()?.evaluate(&batch.planar).await?;
            let mut answers = if batch.general.is_empty() {
                Answers::default()
            } else {
                let general = Batch::from(batch.general.clone());
                Engine::Cpu
                    .evaluate(&general, Options::default())
                    .map_err(js_err)?
            };
            answers.planar = planar;
            Ok(answers)
        }
    }
}

/// The scenes' reports through the core's gate ([`gate::plan`], then [`gate::judge`]), each
/// round's batch answered by [`answers`] (as `scene::hold_reports`, awaited).
async fn reports(on: On, scenes: &[&Scene]) -> Result<Vec<HoldReport>, JsValue> {
    let mut plan = gate::plan(scenes.iter().copied()).map_err(js_err)?;
    let reports = loop {
        let answers = answers(on, plan.batch()).await?;
        match gate::judge(plan, &answers).map_err(js_err)? {
            Judged::Reports(reports) => break reports,
            Judged::Again(next) => plan = next,
        }
    };
    Ok(reports
        .into_iter()
        .filter_map(|r| match r {
            Report::Planar(r) => Some(r),
            Report::Spatial(_) => None,
        })
        .collect())
}

/// `planar-hold gate`'s JSON Lines reports on the scenes (or edits) in `text`, from the GPU
/// (or the CPU engine when `cpu`).
#[wasm_bindgen]
pub async fn gate(text: String, cpu: bool) -> Result<String, JsValue> {
    let parsed = parse_scenes(&text)?;
    let good: Vec<&Scene> = parsed.iter().filter_map(|(_, r)| r.as_ref().ok()).collect();
    let reports = reports(if cpu { On::Cpu } else { On::Gpu }, &good).await?;
    let mut out = Vec::new();
    let mut next = reports.iter();
    for (line, row) in &parsed {
        match row {
            Ok(_) => write_line(&mut out, next.next().expect("one report per scene")),
            Err((id, error)) => write_line(
                &mut out,
                &ErrorLine {
                    id: id.clone(),
                    line: *line,
                    error,
                },
            ),
        }
    }
    String::from_utf8(out).map_err(js_err)
}

/// One scene line judged for the page, on the GPU (or the CPU when `cpu`): `{report, svg,
/// forces, scene}` as JSON: the gate's report, the CLI's picture, the witness forces of the
/// need the picture explains (`[[x, z], [fx, fz]]`, nominal weights) and the scene as parsed.
#[wasm_bindgen]
pub async fn judge_scene(line: String, cpu: bool) -> Result<String, JsValue> {
    let scene = parse_planar(&line).map_err(js_err)?;
    let on = if cpu { On::Cpu } else { On::Gpu };
    let report = reports(on, &[&scene]).await?.remove(0);
    let story = draw::story(&scene, &report);
    let svg = draw::svg_text(&scene, &report);
    Ok(json!({
        "report": report,
        "svg": svg,
        "forces": story.forces,
        "story_need": story.need_index,
        "scene": scene,
    })
    .to_string())
}

/// The sweep: the scene's nominal mass with its centre of mass at `nx` offsets across
/// `[x_lo, x_hi]`, under `nmu` friction coefficients across `[mu_lo, mu_hi]` (every contact
/// given the same μ): `nx·nmu` cone tests in one batch, row-major (μ outer, lowest first).
/// Returns `[verdict, margin]` per case (verdict 0 supported, 1 unsupported, 2 uncertain).
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub async fn sweep(
    line: String,
    nx: u32,
    nmu: u32,
    x_lo: f64,
    x_hi: f64,
    mu_lo: f64,
    mu_hi: f64,
    cpu: bool,
) -> Result<Vec<f32>, JsValue> {
    let scene = parse_planar(&line).map_err(js_err)?;
    let cases = sweep_cases(&scene, nx, nmu, [x_lo, x_hi], [mu_lo, mu_hi])?;
    let answers = answers(if cpu { On::Cpu } else { On::Gpu }, &Batch::from(cases)).await?;
    Ok(answers
        .planar
        .iter()
        .flat_map(|o| [o.verdict as f32, o.margin])
        .collect())
}

fn step(range: [f64; 2], n: u32, k: u32) -> f64 {
    if n <= 1 {
        range[0]
    } else {
        range[0] + (range[1] - range[0]) * k as f64 / (n - 1) as f64
    }
}

/// The sweep's cases: the scene's own generators (docs/contract-planar.md §2) at each μ, its own need (docs/contract-planar.md §3)
/// at each offset.
pub fn sweep_cases(
    scene: &Scene,
    nx: u32,
    nmu: u32,
    xs: [f64; 2],
    mus: [f64; 2],
) -> Result<Vec<Case>, JsValue> {
    let mut cases = Vec::with_capacity(nx as usize * nmu as usize);
    let mut s = scene.clone();
    for j in 0..nmu {
        let mu = step(mus, nmu, j);
        for c in &mut s.contacts {
            c.mu = Friction::Value(mu);
        }
        let gens = s.generators();
        for i in 0..nx {
            let need = s.body.need(s.body.mass_nominal, step(xs, nx, i));
            cases.push(Case::new(&gens, need.map(|v| v as f32)).map_err(js_err)?);
        }
    }
    Ok(cases)
}

/// The sweep's cases as `eval` input, one JSON line each (`{"generators", "need"}`, the float32
/// values written so that they read back bit for bit): what `planar-hold bench --input` times
/// natively on the very cases the page's batch answered.
#[wasm_bindgen]
pub fn sweep_jsonl(
    line: String,
    nx: u32,
    nmu: u32,
    x_lo: f64,
    x_hi: f64,
    mu_lo: f64,
    mu_hi: f64,
) -> Result<String, JsValue> {
    let scene = parse_planar(&line).map_err(js_err)?;
    let cases = sweep_cases(&scene, nx, nmu, [x_lo, x_hi], [mu_lo, mu_hi])?;
    let mut out = Vec::new();
    for c in &cases {
        let generators: Vec<[f32; 3]> = c.active_generators().map(|(_, g)| g).collect();
        write_line(&mut out, &json!({"generators": generators, "need": c.need}));
    }
    String::from_utf8(out).map_err(js_err)
}
