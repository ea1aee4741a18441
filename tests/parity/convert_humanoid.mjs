// A plain glTF character written as .vrm (`hairswing convert X.glb -o X.vrm`): its VRM humanoid
// comes from its bone names when they name every required bone, with a warning saying so, and
// @pixiv/three-vrm loads the result as a VRM 1.0 with those bones on the right nodes. A skeleton
// the names do not cover (a creature) is refused with the missing bones named and nothing
// written; the same file as .glb is written.
//
//   node convert_humanoid.mjs CLI WORKDIR HUMAN.glb|.gltf CREATURE.glb
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { THREE, glbJson, loadForSprings } from './load_vrm.mjs';

const [cli, work, human, creature] = process.argv.slice(2);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
let failures = 0;
const fail = (msg) => { failures++; console.log(`FAIL ${msg}`); };
const run = (...args) => spawnSync(cli, args, { encoding: 'utf8' });

// The human: written, with the warning; the bones three-vrm sees are the nodes named for them.
const out = path.join(work, 'human.vrm');
const r = run('convert', human, '-o', out);
if (r.status !== 0) fail(`convert ${human}: exit ${r.status}: ${r.stderr}`);
else {
  if (!/no VRM humanoid: its \d+ bones are taken from the bone names/.test(r.stderr))
    fail(`convert ${human}: no warning that the humanoid comes from the bone names: ${r.stderr}`);
  const bytes = fs.readFileSync(out);
  const json = glbJson(bytes);
  const bones = json.extensions?.VRMC_vrm?.humanoid?.humanBones ?? {};
  const { vrm } = await loadForSprings(bytes, { allowNoSprings: true });
  if (!vrm) fail('three-vrm did not load the written .vrm as a VRM');
  else {
    if (vrm.meta?.metaVersion !== '1') fail(`meta version ${vrm.meta?.metaVersion}, not 1`);
    // Each required bone on a node whose name says what it is (case and separators aside).
    const expect = { hips: /pelvis|hips/, head: /head/, leftUpperArm: /upper.?arm.?l|l.?upper.?arm|arm.?l|left.?arm|upperarm_l/,
      rightFoot: /foot.?r|r.?foot|right.?foot/ };
    for (const [bone, re] of Object.entries(expect)) {
      const node = vrm.humanoid.getRawBoneNode(bone);
      if (!node) { fail(`three-vrm: no ${bone} bone`); continue; }
      if (!re.test(node.name.toLowerCase())) fail(`three-vrm: ${bone} is on node "${node.name}"`);
      // three.js takes '.' and the like out of node names (UpperArm.L becomes UpperArmL).
      const named = THREE.PropertyBinding.sanitizeNodeName(json.nodes[bones[bone]?.node]?.name ?? '');
      if (named !== node.name) fail(`${bone}: the file puts it on "${named}", three-vrm on "${node.name}"`);
    }
    console.log(`${path.basename(human)}: ${Object.keys(bones).length} humanoid bones, head on "${vrm.humanoid.getRawBoneNode('head')?.name}"`);
  }
}

// The creature: refused as .vrm (the missing bones named, nothing written), written as .glb.
const bad = path.join(work, 'creature.vrm');
const c = run('convert', creature, '-o', bad);
if (c.status !== 2) fail(`convert ${creature} -o .vrm: exit ${c.status}, expected 2`);
if (!/no VRM humanoid.*none names .*spine.*write \.glb/.test(c.stderr))
  fail(`convert ${creature} -o .vrm: the error does not name the missing bones and .glb: ${c.stderr}`);
if (fs.existsSync(bad)) fail(`convert ${creature} -o .vrm wrote ${bad}`);
const g = run('convert', creature, '-o', path.join(work, 'creature.glb'));
if (g.status !== 0) fail(`convert ${creature} -o .glb: exit ${g.status}: ${g.stderr}`);

console.log(failures ? `${failures} failure(s)` : 'all passed');
process.exit(failures ? 1 : 0);
