// The package as a user gets it: `npm pack` makes a tarball, which is installed into a fresh temp
// project next to three and @pixiv/three-vrm (npm, versions pinned as in tests/parity), and the
// drop-in example of the README runs there in node: the avatar is served on 127.0.0.1, loaded with
// GLTFLoader + VRMLoaderPlugin, and vrm.update(delta) must run hairswing and move the hair.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { demoAvatar, missing, packageDir, repo } from './helpers.mjs';

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

test('npm pack, install into a fresh project, run the README example', async (t) => {
  if (missing()) return t.skip(missing());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hs-pack-'));
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], packageDir));
  const files = packed[0].files.map((f) => f.path).sort();
  t.diagnostic(`${packed[0].filename}: ${files.join(', ')} (${packed[0].size} bytes)`);
  // The package carries the project's MIT licence, the same text as the repository's.
  assert.equal(fs.readFileSync(path.join(packageDir, 'LICENSE'), 'utf8'),
    fs.readFileSync(path.join(packageDir, '../../LICENSE'), 'utf8'), 'web/hairswing-three/LICENSE differs from LICENSE');
  for (const f of ['LICENSE', 'README.md', 'package.json', 'src/index.js', 'src/index.d.ts', 'wasm/hairswing.mjs', 'wasm/hairswing.wasm', 'bin/hairswing-hash.mjs']) {
    assert.ok(files.includes(f), `${f} missing from the tarball`);
  }
  assert.ok(!files.some((f) => f.startsWith('test/')), 'tests shipped in the tarball');

  const project = path.join(dir, 'app');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const pins = JSON.parse(fs.readFileSync(path.join(repo, 'tests/parity/package.json'), 'utf8')).dependencies;
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error',
    path.join(dir, packed[0].filename), `three@${pins.three}`, `@pixiv/three-vrm@${pins['@pixiv/three-vrm']}`], project);

  // The README's example, verbatim, inside a harness that serves the avatar and checks the result.
  const readme = fs.readFileSync(path.join(packageDir, 'README.md'), 'utf8');
  const example = readme.match(/```js\n([\s\S]*?)```/)[1];
  assert.ok(example.trim().split('\n').length <= 10, 'the README example is longer than 10 lines');
  const lines = example.split('\n');
  const imports = lines.filter((l) => l.startsWith('import '));
  const body = lines.filter((l) => !l.startsWith('import '));
  const harness = [
    ...imports,
    "import http from 'node:http';",
    "import fs from 'node:fs';",
    `const file = fs.readFileSync(${JSON.stringify(demoAvatar('layered'))});`,
    'const server = http.createServer((req, res) => { res.writeHead(200); res.end(file); });',
    "await new Promise((r) => server.listen(0, '127.0.0.1', r));",
    'const url = `http://127.0.0.1:${server.address().port}/layered.vrm`;',
    ...body,
    'const bone = springs.joints.find((j) => j.bone).bone;',
    'const rest = bone.quaternion.clone();',
    "const head = vrm.humanoid.getNormalizedBoneNode('head');",
    'for (let f = 1; f <= 90; f++) { head.rotation.y = 0.8 * Math.sin(f / 20); vrm.update(1 / 60); }',
    'console.log(JSON.stringify({ replaced: vrm.springBoneManager === springs, moved: !bone.quaternion.equals(rest), steps: springs.stats.steps, hash: springs.stateHash() }));',
    'server.close();',
  ].join('\n');
  fs.writeFileSync(path.join(project, 'example.mjs'), harness);
  const out = execFileSync('node', ['example.mjs'], { cwd: project, encoding: 'utf8' }).trim().split('\n').pop();
  const result = JSON.parse(out);
  t.diagnostic(`example: ${out}`);
  assert.equal(result.replaced, true, 'vrm.springBoneManager was not replaced');
  assert.equal(result.moved, true, 'the hair did not move');
  assert.equal(result.steps, 180);
  assert.match(result.hash, /^[0-9a-f]{16}$/);

  // The TypeScript declarations, as installed: a strict program that uses the API compiles, and
  // each misuse marked @ts-expect-error must be an error (tsc fails on an unused expectation).
  const tsc = path.join(repo, 'tests/parity/node_modules/typescript/bin/tsc');
  if (fs.existsSync(tsc)) {
    fs.writeFileSync(path.join(project, 'check.ts'), [
      "import { HairswingSpringBones, DEFAULT_CONFIG, type HairswingMode } from 'hairswing-three';",
      'export async function use(vrm: object, bytes: ArrayBuffer): Promise<string> {',
      "  const s = await HairswingSpringBones.fromVRM(vrm, bytes, { mode: 'vrm', stepping: 'frame', threeVrmCompat: true });",
      '  s.update(1 / 60);',
      "  const m: HairswingMode = s.mode; s.mode = 'arc';",
      '  s.configure({ arcLiveliness: 0.5 });',
      '  const p50: number = s.stats.p50Micros; const tails: Float32Array = s.tails();',
      '  const node: number = s.joints[0].node; const d: boolean = DEFAULT_CONFIG.tuned;',
      '  // @ts-expect-error: not a mode',
      "  s.mode = 'wobbly';",
      '  // @ts-expect-error: delta is a number',
      "  s.update('0.016');",
      '  // @ts-expect-error: the constructor is private: use fromVRM',
      '  new HairswingSpringBones();',
      '  // @ts-expect-error: unknown option',
      '  await HairswingSpringBones.fromVRM(vrm, bytes, { colour: 1 });',
      '  s.dispose();',
      '  return `${m} ${p50} ${tails.length} ${node} ${d}` + s.stateHash();',
      '}',
    ].join('\n'));
    execFileSync('node', [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', 'check.ts'], { cwd: project, encoding: 'utf8' });
    t.diagnostic('TypeScript: the declarations compile under --strict and reject the four misuses');
  } else {
    t.diagnostic('TypeScript not installed (tests/parity/node_modules/typescript): declarations not checked');
  }
  fs.rmSync(dir, { recursive: true });
});
