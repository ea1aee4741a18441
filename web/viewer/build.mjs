// Bundles the viewer into dist/ (index.html, style.css, app.js, hairswing.wasm) with esbuild:
// three, @pixiv/three-vrm and the hairswing-three package (with its WebAssembly build, made by
// scripts/build-wasm) in one file, so `hairswing view` serves it offline. Run by scripts/build-viewer.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const wasm = path.join(here, '../hairswing-three/wasm/hairswing.wasm');
if (!fs.existsSync(wasm)) {
  console.error(`build-viewer: ${wasm} missing: run scripts/build-wasm first`);
  process.exit(1);
}
const dist = path.join(here, 'dist');
fs.rmSync(dist, { recursive: true, force: true });
fs.mkdirSync(dist);
await build({
  entryPoints: [path.join(here, 'src/main.js')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  outfile: path.join(dist, 'app.js'),
  // The emscripten module imports node's modules only when it runs under node.
  external: ['module', 'node:*', 'fs', 'path', 'url', 'worker_threads'],
  logLevel: 'warning',
});
for (const f of ['index.html', 'src/style.css']) fs.copyFileSync(path.join(here, f), path.join(dist, path.basename(f)));
fs.copyFileSync(wasm, path.join(dist, 'hairswing.wasm'));
const size = (f) => (fs.statSync(path.join(dist, f)).size / 1024).toFixed(0);
console.log(`build-viewer: web/viewer/dist (app.js ${size('app.js')} KB, hairswing.wasm ${size('hairswing.wasm')} KB)`);
