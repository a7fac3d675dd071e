//! planar-hold in a browser: the core crate's one door ([`planar_hold::Engine`]) on the
//! browser's WebGPU, awaited (a page cannot block its own thread), with the core's scene
//! parsing, cone-test formats, reports and pictures. Both pages (`www/`) call these
//! functions; `window.planarHold` wraps them for scripts and tests.
//!
//! Every answer comes from the engine, planar and general alike: on the GPU the planar
//! enumeration's shader, and the general engine's search on the device finished in float64
//! here in wasm; on the CPU engine compiled to wasm where WebGPU is missing. Nothing here
//! picks an engine for a case: the batch does ([`planar_hold::CaseKind`]). The 3-D page's
//! exports are in [`space`].

mod space;

use std::cell::RefCell;
use std::rc::Rc;

use planar_hold::details::device::GpuContext;
use planar_hold::details::device::{GpuBackend, GpuOptions};
use planar_hold::details::draw;
use planar_hold::details::scene::parse_planar;
use planar_hold::io::json::{salvage_id, write_line, ErrorLine};
use planar_hold::io::lines::{LineChunk, LineReader, MAX_LINE};
use planar_hold::io::{format_json, parse_json_chunk_into, CaseBatch};
use planar_hold::{parse_line, Friction, HoldReport, Report, Scene, SceneLine};
use planar_hold::{Batch, Case, Engine, Options, Threads};
use serde_json::json;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The engine on the browser's WebGPU, once [`init`] found it.
    static GPU: RefCell<Option<Rc<Engine>>> = const { RefCell::new(None) };
    /// The CPU engine compiled to wasm: the page's fallback, and its yardstick.
    static CPU: Rc<Engine> = Rc::new(Engine::cpu());
}

/// The engine a call runs on: the CPU one when `cpu`, else the GPU one.
fn engine(cpu: bool) -> Result<Rc<Engine>, JsValue> {
    if cpu {
        return Ok(CPU.with(Rc::clone));
    }
    GPU.with(|g| g.borrow().clone())
        .ok_or_else(|| JsValue::from_str("WebGPU is not initialised (call init() first)"))
}

/// How every call is answered: on this (the page's only) thread.
fn options() -> Options {
    Options {
        threads: Threads::Current,
        ..Options::default()
    }
}

fn js_err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// Finds the WebGPU adapter, makes the device and builds both kernels (so that a shader the
/// browser refuses fails here); resolves to the adapter's name.
#[wasm_bindgen]
pub async fn init() -> Result<String, JsValue> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::BROWSER_WEBGPU,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .map_err(|e| JsValue::from_str(&format!("no WebGPU adapter: {e}")))?;
    let info = adapter.get_info();
    let ctx = GpuContext::from_adapter(&adapter).await.map_err(js_err)?;
    let gpu = GpuBackend::new(ctx, GpuOptions::default()).map_err(js_err)?;
    gpu.prepare().await.map_err(js_err)?;
    GPU.with(|g| *g.borrow_mut() = Some(Rc::new(Engine::from(gpu))));
    Ok(format!("{} ({:?})", info.name, info.backend))
}

/// The lines of `text` in chunks, as `eval` and `gate` read a file.
fn chunks(text: &str, rows: usize) -> Result<Vec<LineChunk>, JsValue> {
    let mut reader = LineReader::new(text.as_bytes(), rows, 8 << 20);
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk().map_err(js_err)? {
        out.push(chunk);
    }
    Ok(out)
}

async fn eval_text(cpu: bool, text: &str) -> Result<String, JsValue> {
    let engine = engine(cpu)?;
    let mut out = Vec::new();
    let mut batch = CaseBatch::default();
    for chunk in chunks(text, 16_384)? {
        parse_json_chunk_into(&chunk, &mut batch);
        let answers = engine
            .evaluate_async(&batch.batch, options())
            .await
            .map_err(js_err)?;
        format_json(&batch, &answers, &mut out);
    }
    String::from_utf8(out).map_err(js_err)
}

/// `planar-hold eval`'s JSON Lines answers to the cone tests in `text` (planar and general),
/// from the GPU: one line per input line, a refused line answered in place by `{"id",
/// "line", "error"}`.
#[wasm_bindgen]
pub async fn evaluate(text: String) -> Result<String, JsValue> {
    eval_text(false, &text).await
}

/// As [`evaluate`], on the CPU engine compiled to wasm (one thread): the page's fallback where
/// WebGPU is missing, and its yardstick.
#[wasm_bindgen]
pub async fn evaluate_cpu(text: String) -> Result<String, JsValue> {
    eval_text(true, &text).await
}

/// Each line's scene, or the refused line's `(id, error)`, with its line number: as the
/// CLI's gate reads them.
type Parsed = Vec<(u64, Result<SceneLine, (Option<serde_json::Value>, String)>)>;

fn parse_lines(text: &str) -> Result<Parsed, JsValue> {
    let mut out = Vec::new();
    for chunk in chunks(text, 4096)? {
        for (k, line) in chunk.lines.iter().enumerate() {
            let bytes = chunk.text(k);
            let row = if line.too_long {
                Err((None, format!("line longer than {MAX_LINE} bytes")))
            } else {
                match std::str::from_utf8(bytes) {
                    Err(e) => Err((salvage_id(bytes), format!("invalid input: not UTF-8: {e}"))),
                    Ok(s) => parse_line(s).map_err(|e| (salvage_id(bytes), e.to_string())),
                }
            };
            out.push((line.number, row));
        }
    }
    Ok(out)
}

/// `planar-hold gate`'s JSON Lines reports on the lines of `text` (planar scenes and edits,
/// spatial scenes, grasps), from the GPU (or the CPU engine when `cpu`): the same lines the
/// CLI writes, a refused line answered in place.
#[wasm_bindgen]
pub async fn gate(text: String, cpu: bool) -> Result<String, JsValue> {
    let parsed = parse_lines(&text)?;
    let good: Vec<&SceneLine> = parsed.iter().filter_map(|(_, r)| r.as_ref().ok()).collect();
    let reports = planar_hold::hold_reports_async(&*engine(cpu)?, good, options())
        .await
        .map_err(js_err)?;
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

/// A planar scene's report, through the engine's gate.
async fn planar_report(cpu: bool, scene: &Scene) -> Result<HoldReport, JsValue> {
    let reports = planar_hold::hold_reports_async(&*engine(cpu)?, [scene], options())
        .await
        .map_err(js_err)?;
    match reports.into_iter().next() {
        Some(Report::Planar(r)) => Ok(r),
        _ => Err(JsValue::from_str("a planar scene answered as another kind")),
    }
}

/// One scene line judged for the page, on the GPU (or the CPU when `cpu`): `{report, svg,
/// forces, scene}` as JSON: the gate's report, the CLI's picture, the witness forces of the
/// need the picture explains (`[[x, z], [fx, fz]]`, nominal weights) and the scene as parsed.
#[wasm_bindgen]
pub async fn judge_scene(line: String, cpu: bool) -> Result<String, JsValue> {
    let scene = parse_planar(&line).map_err(js_err)?;
    let report = planar_report(cpu, &scene).await?;
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
    let answers = engine(cpu)?
        .evaluate_async(&Batch::from(cases), options())
        .await
        .map_err(js_err)?;
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
