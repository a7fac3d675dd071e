// The page: a scene as a JavaScript object (the JSON line `planar-hold gate` reads), edited by
// dragging and sliders, judged on every change by the crate compiled to wasm with the kernel on
// the browser's WebGPU. Nothing here computes a cone test or a picture: the wasm does.

import wasmInit, * as ph from './planar_hold_web.js';

const $ = (id) => document.getElementById(id);
const SWEEP_X = 256;
const SWEEP_MU = 160;
const MU_RANGE = [0, 1.5];

const BUILT_IN = [
  { id: 'floor, one edge', half_size: 1, mass: { nominal: 1, range: [1, 1] }, com_offset_x: [0, 0],
    contacts: [{ pair: 0, p0: [-1, -1], p1: [1, -1], normal: [0, 1], mu: 0.5 }] },
  { id: 'pinched between two walls', half_size: 1, com_offset_x: [0, 0],
    contacts: [{ pair: 0, p0: [-1, -0.4], p1: [-1, 0.4], normal: [1, 0], mu: 0.6 },
               { pair: 1, p0: [1, -0.4], p1: [1, 0.4], normal: [-1, 0], mu: 0.6 }] },
  { id: 'corner on the floor, leaning on a wall', half_size: 1, com_offset_x: [0, 0],
    contacts: [{ pair: 0, p0: [-1, -1], p1: [-1, -1], normal: [0, 1], mu: 0.5 },
               { pair: 1, p0: [1, 0.6], p1: [1, 0.6], normal: [-1, 0], mu: 0.5 }] },
];

const state = {
  scenes: [],        // [{label, scene}]
  scene: null,       // the scene being edited (an object in the input format)
  gpu: false,        // WebGPU found: every answer from the GPU, else from the CPU engine in wasm
  adapter: null,
  busy: false,
  pending: false,
  frame: null,       // {ox, oy, s}: world → picture pixels of the scene panel
  sweep: null,       // {data, muRange, xRange}
  sweepTimer: null,
};

// ----- scene editing -----------------------------------------------------------------------

/// The contact list the handles move: `contacts`, or for an edit its `after` list.
const editable = (s) => (s.contacts ? s.contacts : s.after || []);
const allContacts = (s) => [...(s.contacts || []), ...(s.before || []), ...(s.after || [])];
const halfSize = (s) => s.half_size ?? 1;
const comRange = (s) => s.com_offset_x ?? [0, 0];
const massOf = (s) => {
  const m = s.mass || {};
  const nominal = m.nominal ?? 1;
  const range = m.range ?? [nominal, nominal];
  return { nominal, range };
};
const muOf = (c) => (Array.isArray(c.mu) ? c.mu[0] : c.mu ?? 0);

function setCom(s, x) {
  const [lo, hi] = comRange(s);
  const w = hi - lo;
  s.com_offset_x = [round(x - w / 2), round(x + w / 2)];
}

function setMass(s, m, w = null) {
  const { nominal, range } = massOf(s);
  if (w === null) w = range[1] - range[0];
  const lo = Math.max(1e-3, m - w / 2);
  s.mass = { nominal, range: [round(lo), round(lo + w)] };
}

/// The centre of mass's interval (docs/contract-planar.md §8: held over all of it ⇔ held at its ends): `±w/2`.
function setComWidth(s, w) {
  const [lo, hi] = comRange(s);
  const x = (lo + hi) / 2;
  s.com_offset_x = [round(x - w / 2), round(x + w / 2)];
}

function setMu(s, mu) {
  for (const c of allContacts(s)) {
    c.mu = Array.isArray(c.mu) ? [mu, Math.max(mu, c.mu[1])] : mu;
  }
}

/// A contact's tangent t = (n_z, −n_x), unit (docs/contract-planar.md §2): a sliding contact's
/// slip is ±t (only the sign of v·t counts, docs/contract-scenes.md).
function tangent(c) {
  const l = Math.hypot(c.normal[0], c.normal[1]) || 1;
  return [c.normal[1] / l, -c.normal[0] / l];
}

/// Which way a contact slides: 0 (it sticks), +1 along t, −1 against it.
const slideSign = (c) => (c.slip ? Math.sign(c.slip[0] * tangent(c)[0] + c.slip[1] * tangent(c)[1]) : 0);

function setSlide(c, sign) {
  if (sign === 0) {
    delete c.slip;
    return;
  }
  const t = tangent(c);
  c.slip = [round(sign * t[0]), round(sign * t[1])];
  if (Array.isArray(c.mu)) c.mu = c.mu[0]; // a sliding contact has one μ
}

/// One control a contact: sticks, or slides one way along its surface or the other (an edit's
/// contacts stick: the contract keeps slips to scene lines).
function syncSliding() {
  const host = $('sliding');
  host.replaceChildren();
  const s = state.scene;
  if (!s.contacts) {
    host.textContent = 'an edit\'s contacts stick';
    return;
  }
  const v2 = ([x, z]) => `(${x.toFixed(2)}, ${z.toFixed(2)})`;
  s.contacts.forEach((c, k) => {
    const label = document.createElement('label');
    const select = document.createElement('select');
    select.dataset.contact = String(k);
    const t = tangent(c);
    for (const [value, text] of [[0, 'sticks'], [1, `slides toward ${v2(t)}`], [-1, `slides toward ${v2([-t[0], -t[1]])}`]]) {
      select.add(new Option(text, String(value)));
    }
    select.value = String(slideSign(c));
    select.addEventListener('change', () => {
      setSlide(c, Number(select.value));
      changed({ sweep: true });
    });
    label.append(`c${c.source ?? k} `, select);
    host.append(label);
  });
}

const round = (v) => Math.round(v * 1e6) / 1e6;
const lineOf = (s) => JSON.stringify(s);

function syncControls() {
  const s = state.scene;
  const [lo, hi] = comRange(s);
  const ell = halfSize(s);
  $('com').min = -2 * ell;
  $('com').max = 2 * ell;
  $('com').step = ell / 100;
  $('com').value = (lo + hi) / 2;
  $('com-value').textContent = ((lo + hi) / 2).toFixed(2);
  const { range } = massOf(s);
  $('mass').value = (range[0] + range[1]) / 2;
  $('mass-value').textContent = ((range[0] + range[1]) / 2).toFixed(2);
  $('mass-width').value = range[1] - range[0];
  $('mass-width-value').textContent = (range[1] - range[0]).toFixed(2);
  $('com-width').value = hi - lo;
  $('com-width-value').textContent = (hi - lo).toFixed(2);
  const cs = allContacts(s);
  const mu = cs.length ? muOf(cs[0]) : 0;
  $('mu').value = mu;
  $('mu-value').textContent = Number(mu).toFixed(2);
  $('line').value = lineOf(s);
  syncSliding();
}

function load(scene) {
  state.scene = structuredClone(scene);
  syncControls();
  changed({ sweep: true });
}

// ----- judging -----------------------------------------------------------------------------

async function judge(line) {
  return JSON.parse(await ph.judge_scene(line, !state.gpu));
}

/// Called on every change: one judge in flight at a time, the latest scene next.
async function changed({ sweep = true } = {}) {
  $('line').value = lineOf(state.scene);
  if (sweep) scheduleSweep();
  if (state.busy) {
    state.pending = true;
    return;
  }
  state.busy = true;
  try {
    do {
      state.pending = false;
      const line = lineOf(state.scene);
      const t0 = performance.now();
      let result;
      try {
        result = await judge(line);
        $('line-error').textContent = '';
      } catch (e) {
        $('line-error').textContent = String(e);
        $('verdict').textContent = 'invalid scene';
        $('verdict').className = 'verdict not-held';
        continue;
      }
      const ms = performance.now() - t0;
      render(result, ms);
    } while (state.pending);
  } finally {
    state.busy = false;
  }
}

function render(result, ms) {
  const { report, svg, forces } = result;
  $('svg-host').innerHTML = svg;
  const picture = $('svg-host').querySelector('svg');
  const overlay = $('overlay');
  overlay.setAttribute('viewBox', picture.getAttribute('viewBox'));
  const panel = picture.querySelector('g.scene-panel');
  const [ox, oy] = panel.getAttribute('data-origin').split(' ').map(Number);
  state.frame = { ox, oy, s: Number(panel.getAttribute('data-scale')) };

  const verdict = $('verdict');
  verdict.textContent = report.held ? 'held' : report.uncertain ? 'not held (uncertain)' : 'not held';
  verdict.className = 'verdict ' + (report.held ? 'held' : 'not-held');
  $('margin').textContent = report.robust_margin.toPrecision(6);
  $('engine').textContent = state.gpu ? `GPU: ${state.adapter}` : 'CPU (wasm): WebGPU is missing';
  $('latency').textContent = `${ms.toFixed(1)} ms (${report.needs.length} cone test${report.needs.length > 1 ? 's' : ''})`;
  $('reason').textContent = report.reason || '';
  $('forces').innerHTML = forces.length
    ? forces.map(([[x, z], [fx, fz]]) =>
        `<li>at (${x.toFixed(3)}, ${z.toFixed(3)}): (${fx.toFixed(4)}, ${fz.toFixed(4)})</li>`).join('')
    : '<li>none (not held)</li>';
  drawOverlay();
}

// ----- handles -----------------------------------------------------------------------------

const toPx = ([x, z]) => [state.frame.ox + x * state.frame.s, state.frame.oy - z * state.frame.s];
const NS = 'http://www.w3.org/2000/svg';

function drawOverlay() {
  const overlay = $('overlay');
  overlay.replaceChildren();
  const s = state.scene;
  if (!state.frame) return;
  // The held band of the centre of mass at this μ, from the last sweep, over the box.
  if (state.sweep) {
    const ell = halfSize(s);
    for (const [x0, x1] of heldIntervals()) {
      const [px0, py0] = toPx([x0, ell]);
      const [px1, py1] = toPx([x1, -ell]);
      const r = document.createElementNS(NS, 'rect');
      r.setAttribute('class', 'band');
      r.setAttribute('x', px0);
      r.setAttribute('y', py0);
      r.setAttribute('width', Math.max(1, px1 - px0));
      r.setAttribute('height', py1 - py0);
      const t = document.createElementNS(NS, 'title');
      t.textContent = `held for a centre of mass at x in [${x0.toFixed(3)}, ${x1.toFixed(3)}] at this μ (sweep)`;
      r.append(t);
      overlay.append(r);
    }
  }
  editable(s).forEach((c, k) => {
    const same = c.p0[0] === c.p1[0] && c.p0[1] === c.p1[1];
    for (const end of same ? ['p0'] : ['p0', 'p1']) {
      handle('endpoint', toPx(c[end]), `contact ${k} ${end}`, (w) => {
        c[end] = [round(w[0]), round(w[1])];
        if (same) c.p1 = [...c[end]];
      });
    }
  });
  const [lo, hi] = comRange(s);
  handle('com', toPx([(lo + hi) / 2, 0]), 'centre of mass', (w) => {
    setCom(s, w[0]);
    $('com').value = (comRange(s)[0] + comRange(s)[1]) / 2;
    $('com-value').textContent = Number($('com').value).toFixed(2);
    if (state.sweep) paintSweep();
  });
}

function handle(kind, [cx, cy], title, move) {
  const overlay = $('overlay');
  const h = document.createElementNS(NS, 'circle');
  h.setAttribute('class', `handle ${kind}`);
  h.setAttribute('cx', cx);
  h.setAttribute('cy', cy);
  h.setAttribute('r', 9);
  h.setAttribute('data-handle', title);
  const t = document.createElementNS(NS, 'title');
  t.textContent = `drag: ${title}`;
  h.append(t);
  h.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    const frame = { ...state.frame }; // the frame the drag started in: no feedback from rescaling
    const ctm = overlay.getScreenCTM().inverse();
    const world = (ev) => {
      const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(ctm);
      return [(p.x - frame.ox) / frame.s, (frame.oy - p.y) / frame.s];
    };
    const onMove = (ev) => {
      move(world(ev));
      h.setAttribute('cx', new DOMPoint(ev.clientX, ev.clientY).matrixTransform(ctm).x);
      h.setAttribute('cy', new DOMPoint(ev.clientX, ev.clientY).matrixTransform(ctm).y);
      changed({ sweep: false }); // the sweep once the drag ends: one batch, not one a move
    };
    const onUp = () => {
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
      changed({ sweep: true });
    };
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
  });
  overlay.append(h);
}

// ----- the sweep ---------------------------------------------------------------------------

function sweepRange() {
  const ell = halfSize(state.scene);
  return [-2 * ell, 2 * ell];
}

/// One batch of SWEEP_X × SWEEP_MU cone tests: `{data, ms}`.
async function runSweep(line, cpu) {
  const [x0, x1] = sweepRange();
  const t0 = performance.now();
  const data = await ph.sweep(line, SWEEP_X, SWEEP_MU, x0, x1, MU_RANGE[0], MU_RANGE[1], cpu);
  return { data, ms: performance.now() - t0 };
}

function scheduleSweep() {
  clearTimeout(state.sweepTimer);
  state.sweepTimer = setTimeout(doSweep, 120);
}

async function doSweep() {
  if (state.sweeping) {
    state.sweepAgain = true;
    return;
  }
  state.sweeping = true;
  const line = lineOf(state.scene);
  let r;
  try {
    r = await runSweep(line, !state.gpu);
  } catch (e) {
    $('rate').textContent = `sweep failed: ${e}`;
    return;
  } finally {
    state.sweeping = false;
    if (state.sweepAgain) {
      state.sweepAgain = false;
      scheduleSweep();
    }
  }
  state.sweep = { data: r.data, xRange: sweepRange(), line };
  paintSweep();
  drawOverlay();
  const n = SWEEP_X * SWEEP_MU;
  $('rate').textContent = `${n.toLocaleString('en')} cases in ${r.ms.toFixed(1)} ms: ` +
    `${perSecond(n / (r.ms / 1e3))} on the ${state.gpu ? 'GPU' : 'CPU (wasm)'} ` +
    '(end to end: cases built, uploaded, answered, read back)';
  $('rate').dataset.casesPerSecond = String(n / (r.ms / 1e3));
}

const perSecond = (r) => (r >= 1e6 ? `${(r / 1e6).toFixed(2)} M` : `${(r / 1e3).toFixed(1)} k`) + ' cases/s';

function paintSweep() {
  const { data } = state.sweep;
  const ctx = $('sweep').getContext('2d');
  const img = ctx.createImageData(SWEEP_X, SWEEP_MU);
  const ell = halfSize(state.scene);
  for (let j = 0; j < SWEEP_MU; j++) {
    for (let i = 0; i < SWEEP_X; i++) {
      const k = j * SWEEP_X + i;
      const verdict = data[2 * k];
      const m = Math.min(1, Math.abs(data[2 * k + 1]) / ell);
      const row = SWEEP_MU - 1 - j; // μ up
      const p = 4 * (row * SWEEP_X + i);
      const t = 0.35 + 0.65 * Math.sqrt(m);
      const [r, g, b] = verdict === 0 ? [40, 150 + 80 * t, 60] : verdict === 1 ? [150 + 90 * t, 50, 50] : [190, 190, 190];
      img.data.set([r, g, b, 255], p);
    }
  }
  ctx.putImageData(img, 0, 0);
  // This scene's (centre of mass, μ).
  const [x0, x1] = state.sweep.xRange;
  const [lo, hi] = comRange(state.scene);
  const cs = allContacts(state.scene);
  const mu = cs.length ? muOf(cs[0]) : 0;
  const cx = ((lo + hi) / 2 - x0) / (x1 - x0) * (SWEEP_X - 1);
  const cy = SWEEP_MU - 1 - (mu - MU_RANGE[0]) / (MU_RANGE[1] - MU_RANGE[0]) * (SWEEP_MU - 1);
  ctx.strokeStyle = '#000';
  ctx.beginPath();
  ctx.moveTo(cx - 5, cy); ctx.lineTo(cx + 5, cy);
  ctx.moveTo(cx, cy - 5); ctx.lineTo(cx, cy + 5);
  ctx.stroke();
}

/// x-intervals of the sweep's row nearest this scene's μ where the need is held.
function heldIntervals() {
  const { data, xRange: [x0, x1] } = state.sweep;
  const cs = allContacts(state.scene);
  const mu = cs.length ? muOf(cs[0]) : 0;
  const j = Math.round((mu - MU_RANGE[0]) / (MU_RANGE[1] - MU_RANGE[0]) * (SWEEP_MU - 1));
  if (j < 0 || j >= SWEEP_MU) return [];
  const dx = (x1 - x0) / (SWEEP_X - 1);
  const out = [];
  let start = null;
  for (let i = 0; i <= SWEEP_X; i++) {
    const held = i < SWEEP_X && data[2 * (j * SWEEP_X + i)] === 0;
    if (held && start === null) start = i;
    if (!held && start !== null) {
      out.push([x0 + (start - 0.5) * dx, x0 + (i - 0.5) * dx]);
      start = null;
    }
  }
  return out;
}

/// The same batch on the GPU (best of 3) and on the CPU engine in wasm: cases per second; with
/// the scene and, for a native comparison on the very same cases, the batch as eval input.
async function bench() {
  const line = lineOf(state.scene);
  const n = SWEEP_X * SWEEP_MU;
  const [x0, x1] = sweepRange();
  const out = { cases: n, scene: line,
    jsonl: ph.sweep_jsonl(line, SWEEP_X, SWEEP_MU, x0, x1, MU_RANGE[0], MU_RANGE[1]) };
  if (state.gpu) {
    let best = Infinity;
    for (let k = 0; k < 3; k++) best = Math.min(best, (await runSweep(line, false)).ms);
    out.gpu_cases_per_s = n / (best / 1e3);
  }
  out.cpu_wasm_cases_per_s = n / ((await runSweep(line, true)).ms / 1e3);
  return out;
}

// ----- start -------------------------------------------------------------------------------

async function start() {
  await wasmInit();
  try {
    await ph.init();
    const info = (await navigator.gpu.requestAdapter()).info || {};
    state.adapter = [info.vendor, info.architecture, info.device, info.description]
      .filter((x) => x).join(' ') || 'WebGPU';
    state.gpu = true;
    $('status').textContent = `WebGPU adapter: ${state.adapter}. Every answer below comes from the GPU.`;
  } catch (e) {
    state.gpu = false;
    const s = $('status');
    s.className = 'status missing';
    s.textContent = 'WebGPU is missing in this browser (' + String(e) + '). ' +
      'The page runs the CPU engine compiled to wasm instead. For the GPU: a browser with WebGPU ' +
      '(Chrome/Edge 113+, or Chromium with --enable-unsafe-webgpu).';
  }
  let lines = [];
  try {
    const text = await (await fetch('examples.jsonl')).text();
    lines = text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  } catch (e) { /* the built-in scenes suffice */ }
  state.scenes = [...BUILT_IN.map((s) => ({ label: s.id, scene: s })),
    ...lines.map((s) => ({ label: `docs/examples.jsonl: ${s.id}`, scene: s }))];
  const select = $('examples');
  state.scenes.forEach((e, k) => select.add(new Option(e.label, k)));
  select.addEventListener('change', () => load(state.scenes[select.value].scene));
  $('mu').addEventListener('input', (e) => {
    setMu(state.scene, Number(e.target.value));
    $('mu-value').textContent = Number(e.target.value).toFixed(2);
    if (state.sweep) { paintSweep(); drawOverlay(); }
    changed({ sweep: false });
  });
  $('mass').addEventListener('input', (e) => {
    setMass(state.scene, Number(e.target.value));
    $('mass-value').textContent = Number(e.target.value).toFixed(2);
    changed({ sweep: true });
  });
  $('mass-width').addEventListener('input', (e) => {
    const { range } = massOf(state.scene);
    setMass(state.scene, (range[0] + range[1]) / 2, Number(e.target.value));
    $('mass-width-value').textContent = Number(e.target.value).toFixed(2);
    changed({ sweep: false });
  });
  $('com-width').addEventListener('input', (e) => {
    setComWidth(state.scene, Number(e.target.value));
    $('com-width-value').textContent = Number(e.target.value).toFixed(2);
    changed({ sweep: false });
  });
  $('com').addEventListener('input', (e) => {
    setCom(state.scene, Number(e.target.value));
    $('com-value').textContent = Number(e.target.value).toFixed(2);
    if (state.sweep) paintSweep();
    changed({ sweep: false });
  });
  $('load').addEventListener('click', () => {
    try {
      load(JSON.parse($('line').value));
    } catch (e) {
      $('line-error').textContent = `not JSON: ${e.message}`;
    }
  });
  $('bench').addEventListener('click', async () => {
    $('bench-result').textContent = 'timing…';
    const r = await bench();
    $('bench-result').textContent = (r.gpu_cases_per_s ? `GPU ${perSecond(r.gpu_cases_per_s)} (best of 3), ` : '') +
      `CPU engine in wasm (one thread) ${perSecond(r.cpu_wasm_cases_per_s)}, ${r.cases.toLocaleString('en')} cases a batch`;
  });
  load(state.scenes[0].scene);
}

/// For scripts and tests: the JSON Lines of `planar-hold eval` and `planar-hold gate`.
window.planarHold = {
  ready: start().then(() => true),
  get backend() { return state.gpu ? 'gpu' : 'cpu'; },
  get adapter() { return state.adapter; },
  evaluate: (text) => (state.gpu ? ph.evaluate(text) : ph.evaluate_cpu(text)),
  evaluateCpu: (text) => ph.evaluate_cpu(text),
  gate: (text) => ph.gate(text, !state.gpu),
  judge: (line) => judge(line),
  bench,
  scene: () => structuredClone(state.scene),
  /// The last sweep: its scene line and how many of its cases are held.
  sweep: () => state.sweep && { line: state.sweep.line, held: state.sweep.data.filter((v, i) => i % 2 === 0 && v === 0).length },
  load,
  /// Resolves once the scene is judged and its sweep painted.
  idle: async () => {
    const settled = () => !state.busy && !state.sweeping && state.sweep && state.sweep.line === lineOf(state.scene);
    while (!settled()) await new Promise((r) => setTimeout(r, 10));
  },
};
