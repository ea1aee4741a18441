#!/usr/bin/env node
// hairswing-hash AVATAR [--solver arc|parent|vrm] [--fps N]
// The WebAssembly solver's state hash after the 12 s standard head-turn: 16 hex digits, the same
// value `hairswing hash` prints natively for the same file and options (ctest
// wasm.hash_matches_native). Build the module first: scripts/build-wasm.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const usage = 'usage: hairswing-hash.mjs AVATAR [--solver arc|parent|vrm] [--fps 10..1000]';
const args = process.argv.slice(2);
let file = null;
let solver = 'arc';
let fps = 60;
for (let i = 0; i < args.length; ++i) {
  const a = args[i];
  if (a === '--help' || a === '-h') {
    console.log(`${usage}\nPrints the state hash after the 12 s head-turn, computed by the WebAssembly build.`);
    process.exit(0);
  } else if (a === '--solver') solver = args[++i];
  else if (a === '--fps') fps = Number(args[++i]);
  else if (a.startsWith('-') || file) {
    console.error(`error: unexpected argument ${a}\n${usage}`);
    process.exit(2);
  } else file = a;
}
const modes = { arc: 0, parent: 1, vrm: 2 };
if (!file || !(solver in modes) || !Number.isInteger(fps) || fps < 10 || fps > 1000) {
  console.error(`error: ${!file ? 'AVATAR is required' : !(solver in modes) ? `unknown solver ${solver}` : `--fps must be an integer in [10, 1000]`}\n${usage}`);
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const wasmDir = path.join(here, '..', 'wasm');
if (!fs.existsSync(path.join(wasmDir, 'hairswing.wasm'))) {
  console.error(`error: ${wasmDir}/hairswing.wasm missing: run scripts/build-wasm`);
  process.exit(2);
}
let bytes;
try {
  bytes = fs.readFileSync(file);
} catch (e) {
  console.error(`error: ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  process.exit(2);
}
const { default: createHairswing } = await import(path.join(wasmDir, 'hairswing.mjs'));
const M = await createHairswing({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'hairswing.wasm')) });
const data = M._malloc(bytes.length);
M.HEAPU8.set(bytes, data);
const nameLen = M.lengthBytesUTF8(file) + 1;
const name = M._malloc(nameLen);
M.stringToUTF8(file, name, nameLen);
const out = M._malloc(8);
const fail = () => {
  console.error(`error: ${M.UTF8ToString(M._hs_last_error())}`);
  process.exit(2);
};
if (M._hs_avatar_load_memory(data, bytes.length, name, out) !== 0) fail();
const avatar = new DataView(M.HEAPU8.buffer).getUint32(out, true);
if (M._hs_head_turn_hash(avatar, modes[solver], fps, out) !== 0) fail();
const hash = new DataView(M.HEAPU8.buffer).getBigUint64(out, true);
console.log(hash.toString(16).padStart(16, '0'));
