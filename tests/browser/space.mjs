// The 3-D page of web/ (space.html, built by scripts/web into target/web/) in headless
// Chromium, served from 127.0.0.1: it runs on WebGPU; window.planarHold.gate gives, line for
// line, what `planar-hold gate --backend cpu` writes for planar scenes, spatial scenes and
// grasps (verdicts exactly, margins and q1 to 1e-9 relative, support regions with the same
// vertices in the same order, refused lines alike); dragging the centre of mass with the mouse moves it, the
// margin follows live, and past the support region the stance is not held; dragging the
// picture turns the view; a grasp shows force closure and the CLI's q1. Screenshots go to
// target/browser/space-*.png.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adapterOf, launch, serve, unavailable } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const site = join(root, 'target', 'web');
const shots = join(root, 'target', 'browser');
const bin = process.env.PLANAR_HOLD_BIN || join(root, 'target', 'release', 'planar-hold');
const data = (name) => readFileSync(join(root, 'tests', 'data', name), 'utf8');

const failures = [];
let passed = 0;
const check = (ok, what) => {
  if (ok) {
    passed++;
    console.log(`ok: ${what}`);
  } else {
    console.error(`FAIL: ${what}`);
    failures.push(what);
  }
};

for (const [path, how] of [[join(site, 'space.html'), 'run scripts/web'], [bin, 'cargo build --release']]) {
  if (!existsSync(path)) {
    console.error(`FAIL: ${path} is missing (${how})`);
    process.exit(1);
  }
}
mkdirSync(shots, { recursive: true });

/// The gate's input: every kind of line, refused ones among them. The grasps are the public
/// ones of at most 48 generators (the page finishes them in wasm on one thread).
function gateInput() {
  const small = data('grasp_public.jsonl').split('\n').filter((l) => {
    if (!l.trim()) return false;
    const g = JSON.parse(l);
    const k = g.pyramid ?? 4;
    return g.contacts.reduce((n, c) => n + c.points.length * k, 0) <= 48;
  });
  return [data('scenes3d_public.jsonl'), data('scenes3d_public_invalid.jsonl'), data('scenes_public.jsonl'),
    data('scenes_public_invalid.jsonl'), small.join('\n') + '\n',
    readFileSync(join(root, 'docs', 'scenes3d.jsonl'), 'utf8'),
    readFileSync(join(root, 'docs', 'pictures', 'grasps.jsonl'), 'utf8')].join('');
}

function cliGate(text) {
  try {
    return execFileSync(bin, ['gate', '-', '--backend', 'cpu'], { input: text, encoding: 'utf8', maxBuffer: 1 << 28 });
  } catch (e) {
    return e.stdout; // status 5: some lines refused, answered in place
  }
}

const close = (a, b, rel) => a === b || Math.abs(a - b) <= rel * Math.max(1, Math.abs(a), Math.abs(b));

/// How a page report differs from the CLI's: verdicts exactly, margins and q1 to 1e-9
/// relative (planar margins, float32, to docs/contract-planar.md §7's 1e-5), regions vertex
/// by vertex to 1e-9, refused lines exactly.
function differs(p, c) {
  if ('error' in c || 'error' in p) return JSON.stringify(p) === JSON.stringify(c) ? null : `refused ${JSON.stringify(p)} vs ${JSON.stringify(c)}`;
  if (JSON.stringify(p.id) !== JSON.stringify(c.id)) return `id ${JSON.stringify(p.id)}`;
  if ('force_closure' in c) {
    if (p.force_closure !== c.force_closure) return `force_closure ${p.force_closure} vs ${c.force_closure}`;
    if (!close(p.q1, c.q1, 1e-9)) return `q1 ${p.q1} vs ${c.q1}`;
    if (p.margin_checked !== c.margin_checked) return `margin_checked ${p.margin_checked}`;
    return null;
  }
  if (p.held !== c.held || p.uncertain !== c.uncertain) return `held ${p.held}/${p.uncertain} vs ${c.held}/${c.uncertain}`;
  if (c.dim !== 3) return close(p.robust_margin, c.robust_margin, 1e-5) ? null : `margin ${p.robust_margin} vs ${c.robust_margin}`;
  if (!close(p.robust_margin, c.robust_margin, 1e-9)) return `robust margin ${p.robust_margin} vs ${c.robust_margin}`;
  if (p.support_region_shape !== c.support_region_shape) return `region ${p.support_region_shape} vs ${c.support_region_shape}`;
  // The same polygon: the same vertices in the same (counter-clockwise) order, from
  // whichever vertex (wasm's sin and cos may round a pyramid edge's last bit otherwise than
  // the native libm, which may move the first vertex to another corner).
  const [pv, cv] = [p.support_region, c.support_region];
  if (pv.length !== cv.length) return `region of ${pv.length} vertices vs ${cv.length}`;
  const same = (u, v) => close(u[0], v[0], 1e-9) && close(u[1], v[1], 1e-9);
  const shift = cv.length ? pv.findIndex((v) => same(v, cv[0])) : 0;
  if (shift < 0 || cv.some((v, k) => !same(pv[(k + shift) % pv.length], v))) return `region ${JSON.stringify(pv)} vs ${JSON.stringify(cv)}`;
  return null;
}

function compare(pageText, cliText, name) {
  const page = pageText.trim().split('\n').map((l) => JSON.parse(l));
  const cli = cliText.trim().split('\n').map((l) => JSON.parse(l));
  const bad = page.length === cli.length ? [] : [`${page.length} lines from the page, ${cli.length} from the CLI`];
  let same = 0;
  const lines = pageText.trim().split('\n');
  const cliLines = cliText.trim().split('\n');
  for (let k = 0; k < Math.min(page.length, cli.length); k++) {
    const d = differs(page[k], cli[k]);
    if (d) bad.push(`${name} line ${k + 1} (id ${JSON.stringify(cli[k].id)}): ${d}`);
    if (lines[k] === cliLines[k]) same++;
  }
  return { bad, n: cli.length, same, kinds: {
    planar: cli.filter((c) => 'held' in c && c.dim !== 3).length,
    spatial: cli.filter((c) => c.dim === 3).length,
    grasps: cli.filter((c) => 'force_closure' in c).length,
    refused: cli.filter((c) => 'error' in c).length } };
}

const server = await serve(site);
const { context, close: closeBrowser } = await launch();
try {
  const page = await context.newPage();
  const console_ = [];
  page.on('console', (m) => console_.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => console_.push(`pageerror: ${e.message}`));
  await page.goto(`${server.url}space.html`);
  const adapter = await adapterOf(page);
  if (!adapter.ok) {
    await page.screenshot({ path: join(shots, 'space-no-webgpu.png') });
    await closeBrowser();
    await server.close();
    unavailable(`no WebGPU adapter in Chromium: ${adapter.error}`);
  }
  await page.evaluate(() => window.planarHold.ready);
  const backend = await page.evaluate(() => window.planarHold.backend);
  check(backend === 'gpu', `the 3-D page runs on WebGPU (${await page.evaluate(() => window.planarHold.adapter)})`);

  // The gate, on the GPU (search on the device, finish in wasm), against the CLI on the CPU.
  const text = gateInput();
  const cli = cliGate(text);
  const t0 = performance.now();
  const onGpu = await page.evaluate((t) => window.planarHold.gate(t), text);
  const ms = performance.now() - t0;
  const g = compare(onGpu, cli, 'gpu');
  g.bad.slice(0, 20).forEach((b) => console.error(`  ${b}`));
  check(g.bad.length === 0, `window.planarHold.gate on WebGPU: ${g.n} lines (${JSON.stringify(g.kinds)}) as planar-hold gate --backend cpu writes them (${g.bad.length} differ, ${g.same} byte for byte; ${ms.toFixed(0)} ms)`);
  const onCpu = await page.evaluate((t) => window.planarHold.gateCpu(t), text);
  const c = compare(onCpu, cli, 'wasm cpu');
  c.bad.slice(0, 10).forEach((b) => console.error(`  ${b}`));
  check(c.bad.length === 0, `the page's CPU engine (wasm): the same ${c.n} lines (${c.bad.length} differ, ${c.same} byte for byte)`);

  // The stance on two feet: held, its support region on the floor.
  await page.selectOption('#examples', '0');
  await page.evaluate(() => window.planarHold.idle());
  const verdict = async () => (await page.textContent('#verdict')).trim();
  const margin = async () => Number(await page.getAttribute('#margin', 'data-value'));
  check(await verdict() === 'held', `the stance on two feet is "${await verdict()}"`);
  const region = await page.evaluate(() => window.planarHold.result().report.support_region);
  check(region.length === 4, `its support region has ${region.length} vertices`);
  const m0 = await margin();
  await page.screenshot({ path: join(shots, 'space-stance-held.png'), fullPage: true });

  // Drag the centre of mass with the mouse: to x = 0.1 (inside the feet's x in [-0.08, 0.17]),
  // then to x = 0.5 (outside).
  const drag = async (x, y) => {
    const from = await page.evaluate(() => window.planarHold.comHandle());
    const to = await page.evaluate(([a, b]) => window.planarHold.floorPoint(a, b), [x, y]);
    await page.mouse.move(from[0], from[1]);
    await page.mouse.down();
    for (let k = 1; k <= 8; k++) {
      await page.mouse.move(from[0] + (to[0] - from[0]) * k / 8, from[1] + (to[1] - from[1]) * k / 8);
      await page.waitForTimeout(30);
    }
    await page.mouse.up();
    await page.waitForTimeout(100);
    await page.evaluate(() => window.planarHold.idle());
  };
  const comX = async () => {
    const o = (await page.evaluate(() => window.planarHold.scene())).com_offset;
    return [(o[0][0] + o[0][1]) / 2, (o[1][0] + o[1][1]) / 2];
  };
  await drag(0.1, 0);
  const [x1, y1] = await comX();
  const m1 = await margin();
  check(Math.abs(x1 - 0.1) < 0.01 && Math.abs(y1) < 0.01, `the drag moved the centre of mass to (${x1.toFixed(3)}, ${y1.toFixed(3)})`);
  check(await verdict() === 'held' && m1 < m0, `near the feet's edge still held, the margin live: ${m0.toPrecision(5)} -> ${m1.toPrecision(5)}`);
  await drag(0.5, 0);
  const [x2] = await comX();
  const m2 = await margin();
  check(Math.abs(x2 - 0.5) < 0.01 && await verdict() === 'not held' && m2 < 0, `past the support region (x = ${x2.toFixed(3)}): "${await verdict()}", margin ${m2.toPrecision(5)}`);
  const reason = (await page.textContent('#reason')).trim();
  check(reason.length > 0, `and says why: "${reason.slice(0, 90)}…"`);
  await page.screenshot({ path: join(shots, 'space-stance-not-held.png'), fullPage: true });

  // Turn the view: drag the picture away from the handle.
  const before = await page.evaluate(() => window.planarHold.view());
  const box = await page.locator('#view').boundingBox();
  await page.mouse.move(box.x + 40, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(box.x + 160, box.y + 70, { steps: 6 });
  await page.mouse.up();
  const after = await page.evaluate(() => window.planarHold.view());
  check(Math.abs(after.yaw - before.yaw) > 0.5 && after.pitch !== before.pitch, `dragging the picture turns the view (yaw ${before.yaw.toFixed(2)} -> ${after.yaw.toFixed(2)})`);
  check(JSON.stringify(await comX()) === JSON.stringify([x2, 0]), 'and leaves the centre of mass where it was');

  // The README's grasp: force closure, the CLI's q1, its binding facet and weakest wrench drawn.
  await page.selectOption('#examples', '1');
  await page.evaluate(() => window.planarHold.idle());
  check(await verdict() === 'force closure', `the four fingertips: "${await verdict()}"`);
  const line = JSON.stringify(await page.evaluate(() => window.planarHold.scene()));
  const want = JSON.parse(cliGate(line + '\n').trim());
  check(close(await margin(), want.q1, 1e-9), `q1 ${await margin()} (the CLI's ${want.q1})`);
  const detail = await page.textContent('#detail');
  check(detail.includes('binding facet on contacts [0,1,2,3]'), `the binding facet's contacts are named: "${detail.slice(0, 120)}…"`);
  await page.screenshot({ path: join(shots, 'space-grasp.png'), clip: { x: 0, y: 0, width: 1280, height: 760 } });

  // The screenshot of the README and docs/page.md: the stance, turned, its centre of mass back inside.
  await page.selectOption('#examples', '0');
  await page.evaluate(() => window.planarHold.idle());
  await page.screenshot({ path: join(shots, 'space-stance.png'), clip: { x: 0, y: 0, width: 1280, height: 760 } });

  const errors = console_.filter((l) => l.startsWith('error') || l.startsWith('pageerror'));
  errors.forEach((l) => console.error(`  console ${l}`));
  check(errors.length === 0, 'no error in the page\'s console');
} finally {
  await closeBrowser();
  await server.close();
}
console.log(`browser 3-D page: ${passed} passed, ${failures.length} failed (screenshots in ${shots})`);
process.exit(failures.length ? 1 : 0);
