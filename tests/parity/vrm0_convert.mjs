// VRM 0.x written as VRM 1.0 keeps its face and look (issue 14): for each VRM 0.x avatar,
// `hairswing convert` writes a VRM 1.0 file, and @pixiv/three-vrm must see in it what it sees in
// the original: the same expressions (names, isBinary, overrides, every morph-target,
// material-colour and texture-transform bind), the same lookAt (type, range maps; the head offset
// turned with the model), the same first-person annotations, a VRM 1.0 meta; every bind must
// resolve to an existing node/morph target/material; and the MToon materials must equal what
// three-vrm's own VRM 0.x material converter (VRMMaterialsV0CompatPlugin) makes of the original.
// Written back as VRM 0.x (--vrm-version 0), three-vrm must see the original's face and as many
// spring joints.
//
//   node vrm0_convert.mjs CLI WORKDIR FILE.vrm...
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { glbJson, glbWithJson, loadForSprings } from './load_vrm.mjs';
import { VRMMaterialsV0CompatPlugin } from '@pixiv/three-vrm-materials-v0compat';

const [cli, work, ...files] = process.argv.slice(2);
fs.mkdirSync(work, { recursive: true });
let failures = 0;
const fail = (msg) => { failures++; console.log(`FAIL ${msg}`); };
const r6 = (x) => Math.round(x * 1e6) / 1e6;
const vec = (v) => v.toArray().map(r6).join(',');

// What three-vrm shows, as comparable strings.
function describe(vrm) {
  const expressions = {};
  for (const e of vrm.expressionManager.expressions) {
    const binds = e._binds.map((b) => {
      if (b.primitives) return `morph ${b.primitives.map((p) => p.name).join('+')} #${b.index} w${r6(b.weight)}`;
      if (b.type) return `colour ${b.material.name} ${b.type} ${vec(b.targetValue)} a${r6(b.targetAlpha)}`;
      return `uv ${b.material.name} s${vec(b.scale)} o${vec(b.offset)}`;
    }).sort();
    expressions[e.expressionName] = { isBinary: e.isBinary, blink: e.overrideBlink, lookAt: e.overrideLookAt, mouth: e.overrideMouth, binds };
  }
  const a = vrm.lookAt.applier;
  const maps = ['rangeMapHorizontalInner', 'rangeMapHorizontalOuter', 'rangeMapVerticalDown', 'rangeMapVerticalUp']
    .map((k) => `${k} ${r6(a[k].inputMaxValue)} ${r6(a[k].outputScale)}`);
  const firstPerson = vrm.firstPerson.meshAnnotations.map((m) => `${m.type}:${m.meshes.map((x) => x.name).join('+')}`).sort();
  return { expressions, lookAt: { type: a.constructor.name, maps, offset: vrm.lookAt.offsetFromHeadBone.toArray().map(r6) }, firstPerson };
}

function near(a, b, where) {
  if (typeof a === 'number' || typeof b === 'number') {
    if (!(Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(a)))) fail(`${where}: ${a} != ${b}`);
    return;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    const n = Math.min(a.length, b.length); // three-vrm keeps 4 components where glTF has 3
    for (let i = 0; i < n; i++) near(a[i], b[i], `${where}[${i}]`);
    return;
  }
  if (a && typeof a === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b || {})])) {
      if (a[k] === undefined || (b && b[k] === undefined)) {
        if ((a[k] ?? b[k]) !== undefined) fail(`${where}.${k}: ${JSON.stringify(a[k])} vs ${JSON.stringify(b && b[k])}`);
        continue;
      }
      near(a[k], b[k], `${where}.${k}`);
    }
    return;
  }
  if (a !== b) fail(`${where}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
}

// A variant of the first file with what it lacks: material-colour and texture-transform binds, a
// custom binary expression, a third-person-only mesh and a transparent MToon material.
if (files.length && fs.existsSync(files[0])) {
  const bytes = fs.readFileSync(files[0]);
  const j = glbJson(bytes);
  const vrm = j.extensions.VRM;
  const mat = j.materials[0].name;
  const groups = vrm.blendShapeMaster.blendShapeGroups;
  groups.push({ name: 'Blush', presetName: 'unknown', isBinary: true, binds: [{ mesh: groups.find((g) => g.binds && g.binds.length).binds[0].mesh, index: 1, weight: 40 }],
    materialValues: [{ materialName: mat, propertyName: '_Color', targetValue: [1, 0.5, 0.5, 1] },
      { materialName: mat, propertyName: '_MainTex_ST', targetValue: [0.5, 0.5, 0.25, 0.1] },
      { materialName: mat, propertyName: '_RimColor', targetValue: [0.2, 0.3, 0.4, 1] }] });
  if (vrm.firstPerson.meshAnnotations.length) vrm.firstPerson.meshAnnotations[0].firstPersonFlag = 'ThirdPersonOnly';
  const mp = vrm.materialProperties.find((m) => m.shader === 'VRM/MToon');
  if (mp) {
    mp.keywordMap = { ...(mp.keywordMap || {}), _ALPHABLEND_ON: true };
    mp.floatProperties = { ...(mp.floatProperties || {}), _ZWrite: 1, _ShadeShift: -0.3, _ShadeToony: 0.7 };
    mp.renderQueue = 3001;
  }
  const patched = path.join(work, `${path.basename(files[0], '.vrm')}-patched.vrm`);
  fs.writeFileSync(patched, glbWithJson(bytes, j));
  files.push(patched);
}

for (const file of files) {
  const name = path.basename(file);
  if (!fs.existsSync(file)) { console.log(`note: ${file} not present, skipped`); continue; }
  const out = path.join(work, name.replace(/\.vrm$/, '.v1.vrm'));
  execFileSync(cli, ['convert', file, '-o', out, '--force', '--vrm-version', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const before = failures;
  const a = await loadForSprings(fs.readFileSync(file), { allowNoSprings: true });
  const b = await loadForSprings(fs.readFileSync(out), { allowNoSprings: true });
  const da = describe(a.vrm);
  const db = describe(b.vrm);
  // Expressions: same names, same everything.
  const names = Object.keys(da.expressions).sort();
  if (names.join() !== Object.keys(db.expressions).sort().join()) fail(`${name}: expression names ${names} vs ${Object.keys(db.expressions).sort()}`);
  for (const n of names) {
    const x = da.expressions[n], y = db.expressions[n];
    if (!y) continue;
    if (JSON.stringify(x) !== JSON.stringify(y)) fail(`${name}: expression ${n}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
  }
  // lookAt: type and range maps equal; the offset turned 180 degrees about Y with the model.
  if (da.lookAt.type !== db.lookAt.type || da.lookAt.maps.join() !== db.lookAt.maps.join()) fail(`${name}: lookAt ${JSON.stringify(da.lookAt)} vs ${JSON.stringify(db.lookAt)}`);
  const [ox, oy, oz] = da.lookAt.offset;
  near(db.lookAt.offset, [-ox, oy, -oz], `${name}: lookAt offset`);
  if (da.firstPerson.join() !== db.firstPerson.join()) fail(`${name}: firstPerson ${da.firstPerson} vs ${db.firstPerson}`);
  if (b.vrm.meta.metaVersion !== '1') fail(`${name}: meta version ${b.vrm.meta.metaVersion}`);
  // Every bind of the written file resolves.
  const j1 = glbJson(fs.readFileSync(out));
  const ext = j1.extensions.VRMC_vrm;
  let binds = 0;
  for (const group of ['preset', 'custom']) {
    for (const [en, e] of Object.entries((ext.expressions || {})[group] || {})) {
      for (const m of e.morphTargetBinds || []) {
        binds++;
        const mesh = j1.meshes[j1.nodes[m.node].mesh];
        if (!mesh || !mesh.primitives.every((p) => (p.targets || []).length > m.index)) fail(`${name}: ${en} morph bind node ${m.node} #${m.index} does not resolve`);
      }
      for (const m of [...(e.materialColorBinds || []), ...(e.textureTransformBinds || [])]) {
        binds++;
        if (!j1.materials[m.material]) fail(`${name}: ${en} material bind ${m.material} does not resolve`);
      }
    }
  }
  // Materials: three-vrm's own v0 converter on the original is the reference.
  const j0 = glbJson(fs.readFileSync(file));
  const plugin = new VRMMaterialsV0CompatPlugin({ json: structuredClone(j0) });
  await plugin.beforeRoot();
  const reference = plugin.parser.json.materials;
  let mtoon = 0;
  reference.forEach((m, i) => {
    const ours = j1.materials[i];
    if (!m.extensions || !m.extensions.VRMC_materials_mtoon) return;
    mtoon++;
    const pick = (x) => ({ pbr: x.pbrMetallicRoughness, normalTexture: x.normalTexture, emissiveTexture: x.emissiveTexture,
      emissiveFactor: x.emissiveFactor, alphaMode: x.alphaMode, alphaCutoff: x.alphaCutoff, doubleSided: x.doubleSided ?? false,
      mtoon: x.extensions.VRMC_materials_mtoon });
    near(pick(m), pick(ours), `${name}: materials[${i}] ${m.name}`);
  });
  // Written back as VRM 0.x (--vrm-version 0): three-vrm sees the original's face and springs.
  const out0 = path.join(work, name.replace(/\.vrm$/, '.v0.vrm'));
  execFileSync(cli, ['convert', file, '-o', out0, '--force', '--vrm-version', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const c = await loadForSprings(fs.readFileSync(out0), { allowNoSprings: true });
  if (JSON.stringify(describe(c.vrm)) !== JSON.stringify(da)) fail(`${name}: written as VRM 0.x, three-vrm sees a different face`);
  const joints = (x) => (x.manager ? x.manager.joints.size : 0);
  if (joints(c) !== joints(a)) fail(`${name}: written as VRM 0.x, ${joints(c)} spring joints instead of ${joints(a)}`);
  console.log(`${failures === before ? 'ok  ' : 'FAIL'} ${name}: ${names.length} expressions (${binds} binds resolve), lookAt ${da.lookAt.type}, ${da.firstPerson.length} first-person annotations, ${mtoon} MToon materials equal to three-vrm's conversion`);
}
process.exit(failures ? 1 : 0);
