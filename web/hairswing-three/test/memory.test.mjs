// 10^5 updates of the layered demo (60 chains' worth of joints, colliders, a head turn): neither
// the JavaScript heap nor the WebAssembly memory grows. A frame goes through Float32Array views
// on the module's memory and writes into the bones' existing quaternions, so it allocates nothing.
import test from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { HairswingSpringBones } from '../src/index.js';
import { demoAvatar, load, missing } from './helpers.mjs';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

test('10^5 updates: no heap growth', async (t) => {
  if (missing()) return t.skip(missing());
  const side = await load(demoAvatar('layered'));
  side.root.updateMatrixWorld(true);
  const springs = await HairswingSpringBones.fromVRM(side.vrm, side.data);
  const head = side.vrm.humanoid.getRawBoneNode('head');
  const step = (f) => {
    head.rotation.y = 0.8 * Math.sin(f * 0.05); // the raw head: only the springs run here
    springs.update(1 / 60);
  };
  for (let f = 0; f < 2000; f++) step(f); // warm up (JIT, the stats window)
  gc();
  const jsBefore = process.memoryUsage().heapUsed;
  const wasmBefore = springs._M.HEAPU8.length;
  for (let f = 0; f < 100000; f++) step(f);
  gc();
  const jsAfter = process.memoryUsage().heapUsed;
  const growth = jsAfter - jsBefore;
  t.diagnostic(`JS heap ${jsBefore} -> ${jsAfter} bytes (${growth >= 0 ? '+' : ''}${growth}), WebAssembly memory ${wasmBefore} -> ${springs._M.HEAPU8.length} bytes, ${springs.stats.steps} steps, p50 ${springs.stats.p50Micros.toFixed(1)} us per update`);
  assert.equal(springs._M.HEAPU8.length, wasmBefore, 'the WebAssembly memory grew');
  // A per-update allocation of even 16 bytes would leave 1.6 MB here if it were retained, and
  // would show as GC churn otherwise; 256 KiB allows for the engine's own bookkeeping.
  assert.ok(growth < 256 * 1024, `the JavaScript heap grew by ${growth} bytes`);
  assert.equal(springs.stats.updates, 102000);
  springs.dispose();
});
