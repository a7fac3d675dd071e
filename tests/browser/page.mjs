// The page of web/ (built by scripts/web into target/web/) in headless Chromium, served from
// 127.0.0.1: it finds the WebGPU adapter; the public sample through window.planarHold.evaluate
// gives what `planar-hold eval --backend cpu` gives (verdicts and witness subsets exactly,
// margins within 1e-5 relative, refused lines alike); the general public cases through it on
// WebGPU (search on the device, finish in wasm) as the CLI's CPU engine answers them; the example scenes through
// window.planarHold.gate agree with `planar-hold gate --backend cpu`; dragging the centre of
// mass past the support turns "held" into "not held"; screenshots go to target/browser/.
// Last, the page's batch rate against the CPU engine, measured in this run.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adapterOf, launch, serve, unavailable } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const site = join(root, 'target', 'web');
const shots = join(root, 'target', 'browser');
const bin = process.env.PLANAR_HOLD_BIN || join(root, 'target', 'release', 'planar-hold');
const sample = process.env.PLANAR_HOLD_SAMPLE || join(root, 'tests', 'data', 'public_sample.jsonl');
const examples = join(root, 'docs', 'examples.jsonl');

const failures = [];
let passed = 0;
const check = (ok, what) => {
  if (ok) {
    passed++;
    console.log(`ok: ${what}`);
  }
  else {
    console.error(`FAIL: ${what}`);
    failures.push(what);
  }
};

for (const [path, how] of [[join(site, 'index.html'), 'run scripts/web'], [bin, 'cargo build --release'], [sample, 'the public sample in tests/data, or set PLANAR_HOLD_SAMPLE']]) {
  if (!existsSync(path)) {
    console.error(`FAIL: ${path} is missing (${how})`);
    process.exit(1);
  }
}
mkdirSync(shots, { recursive: true });

/// docs/contract-planar.md §7: margins agree to about 1e-5, relative to max(1, |m|).
const closeMargin = (a, b) => Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(a), Math.abs(b));

function compareEval(pageText, cliText) {
  const page = pageText.trim().split('\n').map((l) => JSON.parse(l));
  const cli = cliText.trim().split('\n').map((l) => JSON.parse(l));
  const bad = [];
  if (page.length !== cli.length) bad.push(`${page.length} answers from the page, ${cli.length} from the CLI`);
  for (let k = 0; k < Math.min(page.length, cli.length); k++) {
    const [p, c] = [page[k], cli[k]];
    const where = `line ${k + 1} (id ${JSON.stringify(c.id)})`;
    if (JSON.stringify(p.id) !== JSON.stringify(c.id)) bad.push(`${where}: id ${JSON.stringify(p.id)}`);
    if ('error' in c || 'error' in p) {
      if (p.error !== c.error || p.line !== c.line) bad.push(`${where}: error ${JSON.stringify(p.error)} vs ${JSON.stringify(c.error)}`);
      continue;
    }
    if (p.verdict !== c.verdict) bad.push(`${where}: verdict ${p.verdict} vs ${c.verdict}`);
    const pw = p.witness ? JSON.stringify(p.witness.generators) : 'null';
    const cw = c.witness ? JSON.stringify(c.witness.generators) : 'null';
    if (pw !== cw) bad.push(`${where}: witness subset ${pw} vs ${cw}`);
    if (!closeMargin(p.margin, c.margin)) bad.push(`${where}: margin ${p.margin} vs ${c.margin}`);
    if (p.capped !== c.capped) bad.push(`${where}: capped ${p.capped} vs ${c.capped}`);
  }
  return { bad, n: cli.length };
}

const server = await serve(site);
const { context, close } = await launch();
let rates = null;
try {
  const page = await context.newPage();
  const console_ = [];
  page.on('console', (m) => console_.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => console_.push(`pageerror: ${e.message}`));
  await page.goto(server.url);
  const adapter = await adapterOf(page);
  if (!adapter.ok) {
    await page.screenshot({ path: join(shots, 'page-no-webgpu.png') });
    await close();
    await server.close();
    unavailable(`no WebGPU adapter in Chromium: ${adapter.error}`);
  }
  await page.evaluate(() => window.planarHold.ready);
  const backend = await page.evaluate(() => window.planarHold.backend);
  check(backend === 'gpu', `the page runs on WebGPU (${await page.evaluate(() => window.planarHold.adapter)}), backend ${backend}`);
  const status = await page.textContent('#status');
  check(/WebGPU adapter/.test(status), `the status line names the adapter: "${status.trim()}"`);

  // The public sample: page (GPU) against the CLI (CPU).
  const text = readFileSync(sample, 'utf8');
  const t0 = performance.now();
  const pageAnswers = await page.evaluate((t) => window.planarHold.evaluate(t), text);
  const pageMs = performance.now() - t0;
  let cliAnswers;
  try {
    cliAnswers = execFileSync(bin, ['eval', sample, '--backend', 'cpu'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  } catch (e) {
    cliAnswers = e.stdout; // status 5: some lines refused, answered in place
  }
  const ev = compareEval(pageAnswers, cliAnswers);
  ev.bad.slice(0, 20).forEach((b) => console.error(`  ${b}`));
  check(ev.bad.length === 0, `public sample: ${ev.n} answers of window.planarHold.evaluate match planar-hold eval --backend cpu (${ev.bad.length} differ; page ${pageMs.toFixed(0)} ms)`);

  // General cases (R^6, and more than 16 generators): the engine's search on WebGPU, the
  // float64 finish in wasm, against the CLI's CPU engine: verdicts exactly, margins to 1e-9.
  const general = join(root, 'tests', 'data', 'general_public.jsonl');
  const pageGeneral = (await page.evaluate((t) => window.planarHold.evaluate(t), readFileSync(general, 'utf8'))).trim().split('\n').map((l) => JSON.parse(l));
  const cliGeneral = execFileSync(bin, ['eval', general, '--backend', 'cpu'], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l));
  const generalBad = cliGeneral.filter((c, k) => !pageGeneral[k] || pageGeneral[k].verdict !== c.verdict || pageGeneral[k].capped !== c.capped
    || Math.abs(pageGeneral[k].margin - c.margin) > 1e-9 * Math.max(1, Math.abs(c.margin)));
  generalBad.slice(0, 10).forEach((c) => console.error(`  general ${JSON.stringify(c.id)}: page ${JSON.stringify(pageGeneral[cliGeneral.indexOf(c)])}`));
  check(pageGeneral.length === cliGeneral.length && generalBad.length === 0, `general_public: ${cliGeneral.length} general answers of window.planarHold.evaluate on WebGPU match planar-hold eval --backend cpu (${generalBad.length} differ)`);

  // The example scenes through the gate.
  const scenes = readFileSync(examples, 'utf8');
  const pageGate = (await page.evaluate((t) => window.planarHold.gate(t), scenes)).trim().split('\n').map((l) => JSON.parse(l));
  const cliGate = execFileSync(bin, ['gate', examples, '--backend', 'cpu'], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l));
  const gateBad = cliGate.filter((c, k) => !pageGate[k] || pageGate[k].held !== c.held || !closeMargin(pageGate[k].robust_margin, c.robust_margin)
    || JSON.stringify(pageGate[k].id) !== JSON.stringify(c.id));
  check(pageGate.length === cliGate.length && gateBad.length === 0, `docs/examples.jsonl: ${cliGate.length} reports of window.planarHold.gate match planar-hold gate --backend cpu`);

  // The page itself: the first scene (a box on one floor edge, μ 0.5, centre of mass above it).
  await page.selectOption('#examples', '0');
  await page.evaluate(() => window.planarHold.idle());
  await page.waitForFunction(() => document.querySelector('#rate').dataset.casesPerSecond, null, { timeout: 180000 });
  await page.waitForTimeout(200);
  const before = (await page.textContent('#verdict')).trim();
  check(before === 'held', `the box on its floor edge is "${before}"`);
  const svgOk = await page.evaluate(() => !!document.querySelector('#svg-host svg g.scene-panel'));
  check(svgOk, 'the picture (the crate\'s SVG) is on the page');
  const band = await page.locator('#overlay rect.band').count();
  check(band > 0, `the sweep paints the held band of the centre of mass over the box (${band} band(s))`);
  await page.screenshot({ path: join(shots, 'page-held.png'), fullPage: true });

  // Drag the centre of mass to x = 1.6 (the support ends at x = 1): not held.
  const com = page.locator('#overlay circle.handle.com');
  const box = await com.boundingBox();
  const target = await page.evaluate(() => {
    const g = document.querySelector('#svg-host svg g.scene-panel');
    const [ox, oy] = g.getAttribute('data-origin').split(' ').map(Number);
    const s = Number(g.getAttribute('data-scale'));
    const overlay = document.querySelector('#overlay');
    const p = new DOMPoint(ox + 1.6 * s, oy).matrixTransform(overlay.getScreenCTM());
    return { x: p.x, y: p.y };
  });
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  for (let k = 1; k <= 8; k++) {
    const x = box.x + box.width / 2 + (target.x - box.x - box.width / 2) * k / 8;
    await page.mouse.move(x, target.y);
    await page.waitForTimeout(30);
  }
  await page.mouse.up();
  await page.evaluate(() => window.planarHold.idle());
  await page.waitForTimeout(300);
  await page.evaluate(() => window.planarHold.idle());
  const com_x = await page.evaluate(() => window.planarHold.scene().com_offset_x);
  check(Math.abs((com_x[0] + com_x[1]) / 2 - 1.6) < 0.05, `the drag moved the centre of mass to x = ${JSON.stringify(com_x)}`);
  const after = (await page.textContent('#verdict')).trim();
  check(after.startsWith('not held'), `past the support the page says "${after}"`);
  const reason = (await page.textContent('#reason')).trim();
  check(reason.length > 0, `and says why: "${reason.slice(0, 100)}…"`);
  await page.screenshot({ path: join(shots, 'page-not-held.png'), fullPage: true });

  // The screenshot of docs/page.md: a box on one floor corner, leaning on a wall; μ decides.
  await page.selectOption('#examples', '2');
  await page.evaluate(() => window.planarHold.idle());
  await page.waitForTimeout(200);
  const wall = (await page.textContent('#verdict')).trim();
  check(wall === 'held', `the box leaning on a wall at μ 0.5 is "${wall}"`);
  await page.screenshot({ path: join(shots, 'page-wall.png'), clip: { x: 0, y: 0, width: 1280, height: 760 } });

  // A sliding contact (docs/contract-scenes.md): the floor corner set sliding toward the wall
  // keeps only its friction ray pulling away from it: not held; toward the other side, its ray
  // is the one the sticking corner used: held with the same margin. The verdict, the margin,
  // the picture and the sweep follow each change, as gate --backend cpu says.
  const stickMargin = Number(await page.textContent('#margin'));
  const stickSweep = await page.evaluate(() => window.planarHold.sweep().held);
  const slide = async (sign) => {
    await page.selectOption('#sliding select[data-contact="0"]', String(sign));
    await page.evaluate(() => window.planarHold.idle());
    await page.waitForTimeout(200);
    await page.evaluate(() => window.planarHold.idle());
    const line = JSON.stringify(await page.evaluate(() => window.planarHold.scene()));
    const cli = JSON.parse(execFileSync(bin, ['gate', '-', '--backend', 'cpu'], { input: `${line}\n`, encoding: 'utf8' }));
    return { verdict: (await page.textContent('#verdict')).trim(), margin: Number(await page.textContent('#margin')),
      reason: (await page.textContent('#reason')).trim(), sweep: await page.evaluate(() => window.planarHold.sweep()),
      line, cli, rays: await page.locator('#svg-host svg .friction-ray').count(), slips: await page.locator('#svg-host svg .slip').count() };
  };
  const toward = await slide(1);
  check(JSON.parse(toward.line).contacts[0].slip?.[0] === 1, `the floor corner slides toward the wall: slip ${JSON.stringify(JSON.parse(toward.line).contacts[0].slip)}`);
  check(toward.verdict.startsWith('not held') && !toward.cli.held, `sliding toward the wall it is "${toward.verdict}" (gate: held ${toward.cli.held})`);
  check(/slides along/.test(toward.reason), `the reason names the sliding contact: "${toward.reason.slice(0, 120)}…"`);
  check(closeMargin(toward.margin, toward.cli.robust_margin) && toward.margin < 0, `its margin ${toward.margin} is gate's ${toward.cli.robust_margin}`);
  check(toward.sweep.line === toward.line && toward.sweep.held < stickSweep, `the sweep follows: ${toward.sweep.held} held cases, ${stickSweep} sticking`);
  check(toward.rays === 1 && toward.slips === 1, `the picture draws its one friction ray and its slip (${toward.rays}, ${toward.slips})`);
  await page.screenshot({ path: join(shots, 'page-sliding.png'), clip: { x: 0, y: 0, width: 1280, height: 760 } });
  const away = await slide(-1);
  check(away.verdict === 'held' && away.cli.held && closeMargin(away.margin, stickMargin), `sliding away from the wall it is "${away.verdict}", margin ${away.margin} (sticking ${stickMargin})`);
  const stuck = await slide(0);
  check(!('slip' in JSON.parse(stuck.line).contacts[0]) && stuck.sweep.held === stickSweep, 'set sticking again, the scene and its sweep are as before');

  // Rates: the page's batch on the GPU and the CPU engine compiled to wasm, in this run.
  rates = await page.evaluate(() => window.planarHold.bench());
  check(rates.gpu_cases_per_s > 0, `the page's sweep batch ran on the GPU`);
  const errors = console_.filter((l) => l.startsWith('error') || l.startsWith('pageerror'));
  errors.forEach((l) => console.error(`  console ${l}`));
  check(errors.length === 0, 'no error in the page\'s console');
} finally {
  await close();
  await server.close();
}

if (rates) {
  const rate = (r) => (r >= 1e6 ? `${(r / 1e6).toFixed(2)} M` : `${(r / 1e3).toFixed(1)} k`) + ' cases/s';
  // The native CPU engine on the very cases of the page's batch, in this run.
  const file = join(shots, 'sweep-cases.jsonl');
  writeFileSync(file, rates.jsonl);
  let native = '';
  try {
    const out = execFileSync(bin, ['bench', '--input', file, '--backend', 'cpu,cpu1', '--cases', String(rates.cases), '--json'], { encoding: 'utf8' });
    const j = JSON.parse(out.trim().split('\n').pop());
    native = j.results.filter((r) => r.batch === rates.cases)
      .map((r) => `native ${r.backend === 'cpu' ? 'CPU engine, all cores' : 'CPU engine, one thread'} ${rate(r.cases_per_s)}`).join(', ');
  } catch (e) {
    native = `native bench failed: ${e.message}`;
  }
  const generators = rates.jsonl.split('\n')[0].match(/\]\s*,\s*\[/g)?.length + 1;
  console.log(`rates (one batch of ${rates.cases} cases, ${generators} generators each, scene ${JSON.parse(rates.scene).id}; ` +
    'SwiftShader is a software proxy for a GPU, not one): ' +
    `page on the GPU ${rate(rates.gpu_cases_per_s)} (best of 3, end to end), page CPU engine (wasm, one thread) ` +
    `${rate(rates.cpu_wasm_cases_per_s)}; ${native} (load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores)`);
}
console.log(`browser page: ${passed} passed, ${failures.length} failed (screenshots in ${shots})`);
process.exit(failures.length ? 1 : 0);
