// Every shaders/*.wgsl through Chrome's WGSL compiler (Tint, in Dawn), as naga checks them in
// build.rs: createShaderModule + getCompilationInfo() (any error message fails), then a compute
// pipeline for each `@compute` entry point (Dawn translates the module for the adapter there).
// Files are found by listing shaders/, so a new kernel is checked the day it lands.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adapterOf, launch, serve, unavailable } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shaders = join(here, '..', '..', 'shaders');
const files = readdirSync(shaders).filter((f) => f.endsWith('.wgsl')).sort();
if (files.length === 0) {
  console.error(`FAIL: no .wgsl file in ${shaders}`);
  process.exit(1);
}

const server = await serve(here);
const { context, close } = await launch();
let failed = 0;
try {
  const page = await context.newPage();
  await page.goto(server.url + 'blank.html');
  const adapter = await adapterOf(page);
  if (!adapter.ok) {
    await close();
    await server.close();
    unavailable(`no WebGPU adapter in Chromium: ${adapter.error}`);
  }
  console.log(`adapter: ${adapter.info}`);
  for (const file of files) {
    const code = readFileSync(join(shaders, file), 'utf8');
    const entries = [...code.matchAll(/@compute[^{]*?\bfn\s+([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
    const result = await page.evaluate(async ({ code, entries }) => {
      const adapter = await navigator.gpu.requestAdapter();
      const device = await adapter.requestDevice();
      const lost = [];
      device.lost.then((info) => lost.push(info.message));
      device.pushErrorScope('validation');
      const module = device.createShaderModule({ code });
      const info = await module.getCompilationInfo();
      const messages = info.messages.map((m) => ({
        type: m.type,
        text: `${m.lineNum}:${m.linePos}: ${m.message}`,
      }));
      const scope = await device.popErrorScope();
      const pipelines = [];
      for (const entryPoint of entries) {
        device.pushErrorScope('validation');
        let error = null;
        try {
          await device.createComputePipelineAsync({
            layout: 'auto',
            compute: { module, entryPoint },
          });
        } catch (e) {
          error = String(e && e.message ? e.message : e);
        }
        const e2 = await device.popErrorScope();
        pipelines.push({ entryPoint, error: error || (e2 ? e2.message : null) });
      }
      device.destroy();
      return { messages, scope: scope ? scope.message : null, pipelines, lost };
    }, { code, entries });
    const errors = result.messages.filter((m) => m.type === 'error');
    for (const m of result.messages) console.log(`  ${file}:${m.text} (${m.type})`);
    const bad = [
      ...errors.map((m) => `${file}:${m.text}`),
      ...(result.scope ? [`${file}: createShaderModule: ${result.scope}`] : []),
      ...result.pipelines.filter((p) => p.error).map((p) => `${file}: pipeline ${p.entryPoint}: ${p.error}`),
    ];
    if (entries.length === 0) bad.push(`${file}: no @compute entry point found`);
    if (bad.length) {
      failed++;
      for (const b of bad) console.error(`FAIL: ${b}`);
    } else {
      console.log(`ok: ${file} compiles in Tint (${entries.length} compute pipeline(s): ${entries.join(', ')})`);
    }
  }
} finally {
  await close();
  await server.close();
}
console.log(`browser tint: ${files.length - failed} passed, ${failed} failed (shaders compiled by Tint)`);
process.exit(failed ? 1 : 0);
