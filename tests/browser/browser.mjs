// Shared by tint.mjs and page.mjs: headless Chromium with WebGPU on SwiftShader (its bundled
// software Vulkan), no network, a fresh profile; a static server on 127.0.0.1; and the rule
// that a missing browser or adapter is a failure when PLANAR_HOLD_REQUIRE_GPU is set (CI),
// else a skip said out loud.

import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';

export const CHROMIUM = process.env.PLANAR_HOLD_CHROMIUM || '/usr/bin/chromium';
export const REQUIRE = !!process.env.PLANAR_HOLD_REQUIRE_GPU;

// WebGPU in headless Chromium without a GPU: Dawn on SwiftShader's Vulkan. The rest keeps the
// browser off the network (no updates, no sync, no QUIC) and out of the user's profile.
export const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-webgpu-adapter=swiftshader',
  '--use-angle=swiftshader',
  '--disable-gpu-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-quic',
  '--metrics-recording-only',
];

/// Ends the test as skipped (exit 0) or, where a GPU is required, as failed (exit 1).
export function unavailable(what) {
  if (REQUIRE) {
    console.error(`FAIL: ${what} (PLANAR_HOLD_REQUIRE_GPU is set, so this is not skipped)`);
    process.exit(1);
  }
  console.log(`SKIP: ${what} (set PLANAR_HOLD_REQUIRE_GPU=1 to make this a failure)`);
  process.exit(0);
}

/// playwright-core (no browser download of its own), or a skip/failure when npm ci was not run.
async function playwright() {
  try {
    return (await import('playwright-core')).chromium;
  } catch (e) {
    unavailable(`playwright-core is not installed (run npm ci in tests/browser): ${e.message}`);
  }
}

/// Chromium with a fresh profile; `close()` ends it and removes the profile.
export async function launch() {
  if (!existsSync(CHROMIUM)) {
    unavailable(`no Chromium at ${CHROMIUM} (Debian: apt-get install chromium)`);
  }
  const chromium = await playwright();
  const profile = mkdtempSync(join(tmpdir(), 'planar-hold-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.jsonl': 'text/plain; charset=utf-8',
  '.wgsl': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/// A static server of `root` on 127.0.0.1 (a secure context, as WebGPU needs), on a free
/// port: `{ url, close }`.
export async function serve(root) {
  root = resolve(root);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] || 'application/octet-stream',
      'cache-control': 'no-store',
    });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return { url, close: () => new Promise((ok) => server.close(ok)) };
}

/// The adapter Chromium offers the page, as `{ ok, info, error }`.
export async function adapterOf(page) {
  return page.evaluate(async () => {
    if (!navigator.gpu) return { ok: false, error: 'navigator.gpu is missing' };
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) return { ok: false, error: 'requestAdapter() returned null' };
    const i = adapter.info || {};
    return { ok: true, info: `${i.vendor} ${i.architecture} ${i.device} ${i.description}`.trim() };
  });
}
