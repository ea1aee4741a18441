// Playback check of `hairswing bake` (issue 14): the baked file, loaded with three.js's
// GLTFLoader and played with its AnimationMixer, must put every hair joint where hairswing's own
// solver run had it (the --reference output), within 0.5 mm including keyframe reduction and the
// seam correction, at every baked frame. The same bake written as .vrm must load in
// @pixiv/three-vrm with the baked springs not simulated (moved aside, docs/bake.md).
//
//   node bake_playback.mjs CLI WORKDIR UAL_CLIPS.gltf [GODETTE.vrm]
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { THREE, glbJson, loadForSprings, stripForNode } from './load_vrm.mjs';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const [cli, work, ual, godette] = process.argv.slice(2);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const run = (args) => execFileSync(cli, args, { encoding: 'utf8' });
const layered = path.join(work, 'layered.vrm');
run(['make-demo-avatar', '--variant', 'layered', '-o', layered]);

const cases = [
  { avatar: layered, clip: 'Walk_Loop', args: [] },
  { avatar: layered, clip: 'Hit_Chest', args: ['--settle', '0.5'] },
  { avatar: layered, clip: 'Idle_Loop', args: ['--solver', 'vrm', '--rate', '60'] },
];
if (godette && fs.existsSync(godette)) cases.push({ avatar: godette, clip: 'Jog_Fwd_Loop', args: [] });
else console.log('note: godette not present, its case skipped');

let failures = 0;
for (const c of cases) {
  const stem = `${path.basename(c.avatar, '.vrm')}-${c.clip}`;
  const out = path.join(work, `${stem}.glb`);
  const json = path.join(work, `${stem}.json`);
  const refPath = path.join(work, `${stem}.ref.json`);
  run(['bake', c.avatar, '--motion', ual, '--clip', c.clip, '-o', out, '--json', json, '--reference', refPath, ...c.args]);
  const figures = JSON.parse(fs.readFileSync(json, 'utf8')).clips[0];
  const ref = JSON.parse(fs.readFileSync(refPath, 'utf8')).clips[0];

  const gltf = await new Promise((resolve, reject) =>
    new GLTFLoader().parse(stripForNode(fs.readFileSync(out)), '', resolve, reject));
  const nodes = await gltf.parser.getDependencies('node');
  const anim = gltf.animations.find((a) => a.name === c.clip);
  if (!anim) throw new Error(`${stem}: no animation ${c.clip} in the baked file`);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(anim);
  action.setLoop(THREE.LoopOnce);
  action.clampWhenFinished = true;
  action.play();
  const p = new THREE.Vector3();
  let worst = 0;
  let worstAt = '';
  for (let f = 0; f < ref.times.length; ++f) {
    action.reset(); // a finished LoopOnce action pauses: restart it, then jump to the frame
    action.play();
    mixer.setTime(ref.times[f]);
    gltf.scene.updateMatrixWorld(true);
    for (let j = 0; j < ref.joints.length; ++j) {
      const node = ref.joints[j];
      if (node < 0 || !nodes[node]) continue; // an end node added for a virtual tail
      p.setFromMatrixPosition(nodes[node].matrixWorld);
      const r = ref.positions[f * ref.joints.length + j];
      const d = Math.hypot(p.x - r[0], p.y - r[1], p.z - r[2]);
      if (d > worst) {
        worst = d;
        worstAt = `frame ${f} (t=${ref.times[f].toFixed(3)} s) node ${node} ${nodes[node].name}`;
      }
    }
  }
  const ok = worst <= 5e-4;
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${stem}: ${figures.mode}, ${ref.times.length} frames x ${ref.joints.length} joints, ` +
    `worst ${(worst * 1000).toFixed(3)} mm at ${worstAt}; keys ${figures.keys_before} -> ${figures.keys_after}, ` +
    `reduction error ${figures.reduction_error_deg.toFixed(3)} deg / ${figures.reduction_error_mm.toFixed(3)} mm` +
    (figures.mode === 'cyclic' ? `, ${figures.cycles_to_periodic} loops to periodic, seam ${figures.seam_position_mm.toFixed(4)} mm, seam velocity ratio ${figures.seam_velocity_ratio.toFixed(2)} (inside ${figures.interior_velocity_ratio.toFixed(2)})` : ''));
  if (figures.keys_after > figures.keys_before) { failures++; console.log('FAIL keys grew'); }
}

// As .vrm: three-vrm loads it, simulates none of the baked springs, and plays the hair.
const vrmOut = path.join(work, 'layered-Walk_Loop.vrm');
run(['bake', layered, '--motion', ual, '--clip', 'Walk_Loop', '-o', vrmOut]);
const baked = glbJson(fs.readFileSync(vrmOut));
const sb = baked.extensions.VRMC_springBone;
const movedAside = sb.extras && sb.extras.hairswing_baked_springs ? sb.extras.hairswing_baked_springs.length : 0;
let vrmJoints = -1;
try {
  const { manager } = await loadForSprings(fs.readFileSync(vrmOut));
  vrmJoints = manager.joints.size;
} catch (e) {
  if (!/no spring bones/.test(e.message)) throw e;
  vrmJoints = 0;
}
const vrmOk = sb.springs.length === 0 && movedAside > 0 && vrmJoints === 0;
if (!vrmOk) failures++;
console.log(`${vrmOk ? 'ok  ' : 'FAIL'} .vrm: ${movedAside} springs moved aside to VRMC_springBone.extras.hairswing_baked_springs, ${sb.springs.length} left live, three-vrm simulates ${vrmJoints} joints`);
process.exit(failures ? 1 : 0);
