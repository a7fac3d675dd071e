// The 3-D page: a spatial scene or a grasp (the JSON line `planar-hold gate` reads), judged on
// every change by the crate's engine compiled to wasm, on the browser's WebGPU. This script
// turns and paints what the wasm answers (an orthographic view on a 2-D canvas); it computes
// no cone test, no region and no wrench.

import wasmInit, * as ph from './planar_hold_web.js';

const $ = (id) => document.getElementById(id);

/// The README's stance and grasp, before the example files.
const BUILT_IN = [
  { id: 'a stance on two feet (the README)', dim: 3, half_size: 0.4, mass: { nominal: 60.0 },
    contacts: [
      { pair: 0, points: [[-0.08, 0.06, -0.9], [0.17, 0.06, -0.9], [0.17, 0.16, -0.9], [-0.08, 0.16, -0.9]], normal: [0, 0, 1], mu: 0.6 },
      { pair: 1, points: [[-0.08, -0.16, -0.9], [0.17, -0.16, -0.9], [0.17, -0.06, -0.9], [-0.08, -0.06, -0.9]], normal: [0, 0, 1], mu: 0.6 }] },
  { id: 'four fingertips on a 10 cm cube (the README)', dim: 3, grasp: true, half_size: 0.05, pyramid: 8, friction: 'inner',
    contacts: [
      { points: [[0.05, 0, 0]], normal: [-1, 0, 0], mu: 0.5 },
      { points: [[-0.05, 0.03, 0]], normal: [1, 0, 0], mu: 0.5 },
      { points: [[-0.05, -0.03, 0.02]], normal: [1, 0, 0], mu: 0.5 },
      { points: [[0, 0, 0.05]], normal: [0, 0, -1], mu: 0.5 }] },
];

const state = {
  scenes: [],     // [{label, scene}]
  scene: null,    // the line being edited, as an object
  result: null,   // {kind, report, scene, contacts} from the wasm
  gpu: false,
  adapter: null,
  busy: false,
  pending: false,
  yaw: -0.6,      // the view: turned about the vertical, then tilted toward the viewer
  pitch: 0.45,
  frame: null,    // {s, cx, cy}: world units to canvas pixels
};

const round = (v) => Math.round(v * 1e6) / 1e6;
const lineOf = (s) => JSON.stringify(s);
const isGrasp = (s) => s.grasp === true;

// ----- the view ----------------------------------------------------------------------------

/// A world point (z up) turned by the view: [across, depth (larger: farther), up].
function turn([x, y, z]) {
  const [c, s] = [Math.cos(state.yaw), Math.sin(state.yaw)];
  const [qx, qy] = [c * x - s * y, s * x + c * y];
  const [cp, sp] = [Math.cos(state.pitch), Math.sin(state.pitch)];
  return [qx, qy * cp - z * sp, qy * sp + z * cp];
}

/// Canvas pixels of a world point: the view turned about the picture's centre `o`.
function toPx(p) {
  const { o, s, cx, cy } = state.frame;
  const v = turn([p[0] - o[0], p[1] - o[1], p[2] - o[2]]);
  return [cx + s * v[0], cy - s * v[2]];
}

/// The point of the horizontal plane at height `z0` under canvas pixel (px, py).
function onPlane(px, py, z0) {
  const { o, s, cx, cy } = state.frame;
  const a = (px - cx) / s;
  const up = (cy - py) / s;
  const [cp, sp] = [Math.cos(state.pitch), Math.sin(state.pitch)];
  const qy = (up - (z0 - o[2]) * cp) / sp;
  const [c, sn] = [Math.cos(state.yaw), Math.sin(state.yaw)];
  return [o[0] + c * a + sn * qy, o[1] - sn * a + c * qy];
}

/// The body as a box: the cube of the half-size about the reference point, grown to hold
/// every contact point.
function bodyBox(r) {
  const ell = r.scene.body.half_size;
  const lo = [-ell, -ell, -ell];
  const hi = [ell, ell, ell];
  for (const c of r.contacts) {
    for (const p of c.points) {
      for (let a = 0; a < 3; a++) {
        lo[a] = Math.min(lo[a], p[a]);
        hi[a] = Math.max(hi[a], p[a]);
      }
    }
  }
  return { lo, hi };
}

/// The floor under a stance: the lowest contact point's height.
const floorOf = (r) => Math.min(...r.contacts.flatMap((c) => c.points.map((p) => p[2])));

/// The centre of mass's offset (the middle of its interval).
function comOf(s) {
  const o = s.com_offset || [[0, 0], [0, 0]];
  return [(o[0][0] + o[0][1]) / 2, (o[1][0] + o[1][1]) / 2];
}

function setCom(s, [x, y]) {
  const o = s.com_offset || [[0, 0], [0, 0]];
  const [wx, wy] = [o[0][1] - o[0][0], o[1][1] - o[1][0]];
  s.com_offset = [[round(x - wx / 2), round(x + wx / 2)], [round(y - wy / 2), round(y + wy / 2)]];
}

/// The floor under a stance, as drawn: the square about the contacts, the support region and
/// the centre of mass, with a margin of half the half-size.
function floorSquare(r) {
  const z = floorOf(r);
  const xy = [...r.contacts.flatMap((c) => c.points.map((p) => [p[0], p[1]])), ...r.report.support_region, comOf(state.scene)];
  const pad = 0.5 * r.scene.body.half_size;
  const [x0, x1] = [Math.min(...xy.map((p) => p[0])) - pad, Math.max(...xy.map((p) => p[0])) + pad];
  const [y0, y1] = [Math.min(...xy.map((p) => p[1])) - pad, Math.max(...xy.map((p) => p[1])) + pad];
  return [[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]];
}

/// The picture's centre and scale: the body's box about its middle, and everything drawn
/// within the sphere that holds it, so that no turn of the view leaves the canvas.
function fit(r) {
  const canvas = $('view');
  const { lo, hi } = bodyBox(r);
  const o = lo.map((v, a) => (v + hi[a]) / 2);
  const drawn = [lo, hi];
  if (r.kind === 'scene') drawn.push(...floorSquare(r));
  let reach = 0;
  for (const p of drawn) reach = Math.max(reach, Math.hypot(p[0] - o[0], p[1] - o[1], p[2] - o[2]));
  // A grasp's weakest wrench: arrows of 1.6 half-sizes from the object's centre.
  if (r.kind === 'grasp') reach = Math.max(reach, Math.hypot(...o) + 1.6 * r.scene.body.half_size);
  state.frame = { o, s: (0.47 * Math.min(canvas.width, canvas.height)) / reach, cx: canvas.width / 2, cy: canvas.height / 2 };
}

// ----- painting ----------------------------------------------------------------------------

const COLOURS = { body: '#9e9e9e', contact: '#1565c0', cone: 'rgba(21,101,192,0.55)', binding: '#c62828',
  region: 'rgba(0,200,83,0.28)', regionEdge: '#1b5e20', com: '#ef6c00', force: '#6a1b9a', moment: '#d81b60' };

function line(ctx, a, b, colour, width = 1, dash = []) {
  const [p, q] = [toPx(a), toPx(b)];
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.beginPath();
  ctx.moveTo(...p);
  ctx.lineTo(...q);
  ctx.stroke();
  ctx.setLineDash([]);
}

function polygon(ctx, points, fill, stroke, width = 1) {
  if (!points.length) return;
  ctx.beginPath();
  points.map(toPx).forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
  ctx.closePath();
  if (fill) {
    ctx.fillStyle = fill;
    ctx.fill();
  }
  if (stroke) {
    ctx.strokeStyle = stroke;
    ctx.lineWidth = width;
    ctx.stroke();
  }
}

function dot(ctx, p, r, fill, stroke = '#fff') {
  const [x, y] = toPx(p);
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fillStyle = fill;
  ctx.fill();
  ctx.strokeStyle = stroke;
  ctx.lineWidth = 2;
  ctx.stroke();
}

function arrow(ctx, from, to, colour, label) {
  line(ctx, from, to, colour, 3);
  const [p, q] = [toPx(from), toPx(to)];
  const ang = Math.atan2(q[1] - p[1], q[0] - p[0]);
  ctx.fillStyle = colour;
  ctx.beginPath();
  ctx.moveTo(...q);
  ctx.lineTo(q[0] - 12 * Math.cos(ang - 0.4), q[1] - 12 * Math.sin(ang - 0.4));
  ctx.lineTo(q[0] - 12 * Math.cos(ang + 0.4), q[1] - 12 * Math.sin(ang + 0.4));
  ctx.closePath();
  ctx.fill();
  ctx.font = '13px system-ui, sans-serif';
  ctx.fillText(label, q[0] + 6, q[1] - 6);
}

function paint() {
  const r = state.result;
  const canvas = $('view');
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!r) return;
  const ell = r.scene.body.half_size;
  const { lo, hi } = bodyBox(r);
  const binding = new Set(r.kind === 'grasp' && r.report.facet ? r.report.facet.contacts : []);

  const z = r.kind === 'scene' ? floorOf(r) : 0;
  if (r.kind === 'scene') polygon(ctx, floorSquare(r), 'rgba(0,0,0,0.03)', '#e0e0e0');

  // The body's box, as a wire frame.
  const corner = (i) => [i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]];
  for (let i = 0; i < 8; i++) {
    for (const bit of [1, 2, 4]) {
      if (!(i & bit)) line(ctx, corner(i), corner(i | bit), COLOURS.body, 1);
    }
  }

  // The contacts: faces, edges and points.
  const colourOf = (k) => (binding.has(k) ? COLOURS.binding : COLOURS.contact);
  r.contacts.forEach((c, k) => {
    if (c.kind === 'face') polygon(ctx, c.points, 'rgba(21,101,192,0.18)', colourOf(k), 2);
    if (c.kind === 'edge') line(ctx, c.points[0], c.points[1], colourOf(k), 4);
  });

  if (r.kind === 'scene') {
    // The support region on the floor, over the feet it spans.
    const region = r.report.support_region.map(([x, y]) => [x, y, z]);
    if (region.length >= 3) polygon(ctx, region, COLOURS.region, COLOURS.regionEdge, 2);
    else if (region.length === 2) line(ctx, region[0], region[1], COLOURS.regionEdge, 4);
    else if (region.length === 1) dot(ctx, region[0], 5, COLOURS.regionEdge);
  }

  // Each contact's friction pyramid (the cone test's own edges, the same at each of its
  // points): one fan, at its middle.
  const cone = 0.45 * ell;
  r.contacts.forEach((c, k) => {
    const mid = [0, 1, 2].map((a) => c.points.reduce((t, p) => t + p[a], 0) / c.points.length);
    const tips = c.edges.map((e) => {
      const n = Math.hypot(...e);
      return mid.map((v, a) => v + (cone * e[a]) / n);
    });
    const colour = binding.has(k) ? COLOURS.binding : COLOURS.cone;
    for (const t of tips) line(ctx, mid, t, colour, 1);
    polygon(ctx, tips, null, colour, 1);
    for (const p of c.points) dot(ctx, p, 4, colourOf(k));
  });

  if (r.kind === 'scene') {
    // The centre of mass at the reference point's height, its plumb line, and its handle on
    // the floor.
    const [x, y] = comOf(state.scene);
    line(ctx, [x, y, 0], [x, y, z], COLOURS.com, 1.5, [5, 4]);
    dot(ctx, [x, y, 0], 6, '#fff', COLOURS.com);
    dot(ctx, [x, y, z], 9, COLOURS.com);
  } else {
    // The weakest wrench: its force and its moment (per half-size), from the object's centre.
    const w = r.report.weakest;
    const len = 1.6 * ell;
    arrow(ctx, [0, 0, 0], [w[0] * len, w[1] * len, w[2] * len], COLOURS.force, 'force');
    arrow(ctx, [0, 0, 0], [w[3] * len, w[4] * len, w[5] * len], COLOURS.moment, 'moment');
  }
}

// ----- the answer --------------------------------------------------------------------------

function render(ms) {
  const { kind, report } = state.result;
  const v = $('verdict');
  const fmt = (x) => (Number.isFinite(x) ? x.toPrecision(6) : String(x));
  if (kind === 'scene') {
    const word = report.held ? 'held' : report.uncertain ? 'not held (uncertain)' : 'not held';
    v.textContent = word;
    v.className = 'verdict ' + (report.held ? 'held' : report.uncertain ? 'uncertain' : 'not-held');
    v.dataset.verdict = report.held ? 'held' : 'not held';
    $('margin-name').textContent = 'robust margin';
    $('margin').textContent = fmt(report.robust_margin);
    $('margin').dataset.value = String(report.robust_margin);
    const [x, y] = comOf(state.scene);
    $('detail-title').textContent = `support region (${report.support_region_shape}${report.support_region_clipped ? ', clipped' : ''})`;
    $('detail').innerHTML = [`<li>centre of mass δ = (${x.toFixed(3)}, ${y.toFixed(3)})</li>`,
      ...report.support_region.map(([a, b]) => `<li>(${a.toFixed(4)}, ${b.toFixed(4)})</li>`)].join('');
  } else {
    const fc = report.force_closure;
    v.textContent = fc === true ? 'force closure' : fc === false ? 'not in force closure' : 'uncertain';
    v.className = 'verdict ' + (fc === true ? 'held' : fc === false ? 'not-held' : 'uncertain');
    v.dataset.verdict = String(fc);
    $('margin-name').textContent = 'q1 (Ferrari–Canny)';
    $('margin').textContent = fmt(report.q1);
    $('margin').dataset.value = String(report.q1);
    const w = report.weakest.map((x) => x.toFixed(3));
    $('detail-title').textContent = 'weakest wrench';
    $('detail').innerHTML = [`<li>force (${w.slice(0, 3).join(', ')})</li>`,
      `<li>moment / half-size (${w.slice(3).join(', ')})</li>`,
      `<li>binding facet on contacts ${report.facet ? JSON.stringify(report.facet.contacts) : 'none'}</li>`,
      `<li>${report.n_generators} generators, pyramids of ${report.pyramid} edges</li>`].join('');
  }
  $('reason').textContent = report.reason || '';
  $('engine').textContent = state.gpu ? `GPU: ${state.adapter}` : 'CPU (wasm): WebGPU is missing';
  $('latency').textContent = `${ms.toFixed(1)} ms`;
  paint();
}

/// Called on every change: one judgement in flight at a time, the latest line next.
async function changed({ refit = false } = {}) {
  $('line').value = lineOf(state.scene);
  if (state.busy) {
    state.pending = true;
    return;
  }
  state.busy = true;
  try {
    do {
      state.pending = false;
      const t0 = performance.now();
      try {
        state.result = JSON.parse(await ph.judge_space(lineOf(state.scene), !state.gpu));
        $('line-error').textContent = '';
      } catch (e) {
        $('line-error').textContent = String(e);
        $('verdict').textContent = 'invalid line';
        $('verdict').className = 'verdict not-held';
        continue;
      }
      if (refit || !state.frame) fit(state.result);
      refit = false;
      render(performance.now() - t0);
    } while (state.pending);
  } finally {
    state.busy = false;
  }
}

function load(scene) {
  state.scene = structuredClone(scene);
  const cs = state.scene.contacts || [];
  const mu = cs.length ? (Array.isArray(cs[0].mu) ? cs[0].mu[0] : cs[0].mu ?? 0) : 0;
  $('mu').value = mu;
  $('mu-value').textContent = Number(mu).toFixed(2);
  state.frame = null;
  changed({ refit: true });
}

// ----- dragging: the centre of mass, or the view -------------------------------------------

/// The centre of mass's handle on the canvas, in CSS pixels from its top left.
function comHandle() {
  if (!state.result || state.result.kind !== 'scene') return null;
  const [x, y] = comOf(state.scene);
  return toPx([x, y, floorOf(state.result)]);
}

function canvasPoint(ev) {
  const rect = $('view').getBoundingClientRect();
  const k = $('view').width / rect.width;
  return [(ev.clientX - rect.left) * k, (ev.clientY - rect.top) * k];
}

function onPointerDown(ev) {
  if (!state.result) return;
  ev.preventDefault();
  const canvas = $('view');
  const [px, py] = canvasPoint(ev);
  const h = comHandle();
  const moveCom = h && Math.hypot(px - h[0], py - h[1]) <= 14;
  let last = [px, py];
  canvas.classList.add('dragging');
  const onMove = (e) => {
    const p = canvasPoint(e);
    if (moveCom) {
      setCom(state.scene, onPlane(p[0], p[1], floorOf(state.result)));
      paint();
      changed();
    } else {
      state.yaw += (p[0] - last[0]) * 0.01;
      state.pitch = Math.min(1.45, Math.max(0.12, state.pitch + (p[1] - last[1]) * 0.01));
      paint();
    }
    last = p;
  };
  const onUp = () => {
    canvas.classList.remove('dragging');
    window.removeEventListener('pointermove', onMove);
    window.removeEventListener('pointerup', onUp);
  };
  window.addEventListener('pointermove', onMove);
  window.addEventListener('pointerup', onUp);
}

// ----- start -------------------------------------------------------------------------------

async function lines(path) {
  try {
    const text = await (await fetch(path)).text();
    return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  } catch (e) {
    return [];
  }
}

async function start() {
  await wasmInit();
  try {
    await ph.init();
    const info = (await navigator.gpu.requestAdapter()).info || {};
    state.adapter = [info.vendor, info.architecture, info.device, info.description]
      .filter((x) => x).join(' ') || 'WebGPU';
    state.gpu = true;
    $('status').textContent = `WebGPU adapter: ${state.adapter}. Every answer below comes from the GPU (search) and wasm (float64 finish).`;
  } catch (e) {
    state.gpu = false;
    const s = $('status');
    s.className = 'status missing';
    s.textContent = 'WebGPU is missing in this browser (' + String(e) + '). ' +
      'The page runs the CPU engine compiled to wasm instead.';
  }
  const examples = [...await lines('scenes3d.jsonl'), ...await lines('grasps.jsonl')];
  state.scenes = [...BUILT_IN.map((s) => ({ label: s.id, scene: s })),
    ...examples.map((s) => ({ label: `${isGrasp(s) ? 'grasp' : 'stance'}: ${s.id}`, scene: s }))];
  const select = $('examples');
  state.scenes.forEach((e, k) => select.add(new Option(e.label, k)));
  select.addEventListener('change', () => load(state.scenes[select.value].scene));
  $('mu').addEventListener('input', (e) => {
    const mu = Number(e.target.value);
    for (const c of state.scene.contacts || []) c.mu = Array.isArray(c.mu) ? [mu, Math.max(mu, c.mu[1])] : mu;
    $('mu-value').textContent = mu.toFixed(2);
    changed();
  });
  $('load').addEventListener('click', () => {
    try {
      load(JSON.parse($('line').value));
    } catch (e) {
      $('line-error').textContent = `not JSON: ${e.message}`;
    }
  });
  $('view').addEventListener('pointerdown', onPointerDown);
  load(state.scenes[0].scene);
}

/// For scripts and tests: the gate's JSON Lines, the view, the centre of mass's handle.
window.planarHold = {
  ready: start().then(() => true),
  get backend() { return state.gpu ? 'gpu' : 'cpu'; },
  get adapter() { return state.adapter; },
  gate: (text) => ph.gate(text, !state.gpu),
  gateCpu: (text) => ph.gate(text, true),
  judge: async (line) => JSON.parse(await ph.judge_space(line, !state.gpu)),
  load,
  examples: () => state.scenes.map((e) => e.label),
  scene: () => structuredClone(state.scene),
  result: () => state.result && structuredClone(state.result),
  view: () => ({ yaw: state.yaw, pitch: state.pitch }),
  /// The centre of mass's handle in page (client) pixels, where a mouse can take it.
  comHandle: () => {
    const h = comHandle();
    if (!h) return null;
    const rect = $('view').getBoundingClientRect();
    const k = rect.width / $('view').width;
    return [rect.left + h[0] * k, rect.top + h[1] * k];
  },
  /// Where on the page (client pixels) the floor point (x, y) of the scene is drawn.
  floorPoint: (x, y) => {
    const p = toPx([x, y, floorOf(state.result)]);
    const rect = $('view').getBoundingClientRect();
    const k = rect.width / $('view').width;
    return [rect.left + p[0] * k, rect.top + p[1] * k];
  },
  /// Resolves once the line being edited is judged.
  idle: async () => {
    while (state.busy || !state.result) await new Promise((r) => setTimeout(r, 10));
  },
};
