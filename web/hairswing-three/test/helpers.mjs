// Shared by the package's node tests: where things are, and loading a file into three.js +
// @pixiv/three-vrm in node (tests/parity/load_vrm.mjs: images stripped, node cannot decode them).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const packageDir = path.resolve(here, '..');
export const repo = path.resolve(packageDir, '../..');
export const sharedData = path.resolve(repo, '../shared/data');
const parityDir = path.join(repo, 'tests/parity');

/** Why the tests cannot run here, or null. */
export function missing() {
  if (!fs.existsSync(path.join(packageDir, 'wasm/hairswing.wasm'))) return 'web/hairswing-three/wasm/hairswing.wasm missing (run scripts/build-wasm)';
  if (!fs.existsSync(path.join(parityDir, 'node_modules/@pixiv/three-vrm'))) return 'tests/parity/node_modules missing (run scripts/setup)';
  return null;
}

/** The native command line tool (ctest passes HAIRSWING_CLI; else the default build folder). */
export function cli() {
  const p = process.env.HAIRSWING_CLI || path.join(repo, 'build/cli/hairswing');
  return fs.existsSync(p) ? p : null;
}

/** A built-in demo avatar written by the native tool into a temp folder (cached per process). */
const demoCache = new Map();
export function demoAvatar(variant) {
  if (demoCache.has(variant)) return demoCache.get(variant);
  const tool = cli();
  if (!tool) throw new Error('hairswing CLI not found: build it (cmake --build build) or set HAIRSWING_CLI');
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'hs-three-'));
  const file = path.join(dir, `${variant}.vrm`);
  execFileSync(tool, ['make-demo-avatar', '--variant', variant, '-o', file]);
  demoCache.set(variant, file);
  return file;
}

export async function load(file, options) {
  const { loadForSprings, THREE, VRMUtils } = await import(path.join(parityDir, 'load_vrm.mjs'));
  return { ...(await loadForSprings(fs.readFileSync(file), options)), THREE, VRMUtils };
}

/** The test motion at time t: a head turn and nod, and a sideways sway of the hips. */
export function headTurn(t) {
  return {
    yaw: 0.8 * Math.sin(2 * Math.PI * t / 2.0),
    pitch: 0.25 * Math.sin(2 * Math.PI * t / 1.3),
    sway: 0.03 * Math.sin(2 * Math.PI * t / 1.7),
  };
}
