// Runs three-vrm's VRMSpringBoneManager on a model under a motion file and prints the tail
// positions per step as JSON. Used by tests/parity_test.cpp; not part of the library.
//
//   node three_vrm_run.mjs MODEL MOTION.json > OUT.json
//
// MOTION.json: {"dt": s, "vrm0": bool, "head": nodeIndex, "hips": nodeIndex,
//               "frames": [{"head": [x,y,z,w], "hips": [x,y,z]}, ...]}
// with rotations/translations as local transforms in hairswing's frame (VRM 1.0 facing +Z).
// For VRM 0.x the model is rotated with VRMUtils.rotateVRM0 (three-vrm's own way to face +Z),
// and the local transforms are turned back into the file's frame (x and z negated).
import fs from 'node:fs';
import { THREE, VRMUtils, loadForSprings } from './load_vrm.mjs';

const [modelPath, motionPath] = process.argv.slice(2);
const motion = JSON.parse(fs.readFileSync(motionPath, 'utf8'));
const bytes = fs.readFileSync(modelPath);

const { gltf, vrm, manager, root, nodes } = await loadForSprings(bytes, motion);
if (motion.vrm0) VRMUtils.rotateVRM0(vrm);

const indexOf = new Map(nodes.map((n, i) => [n, i]));
const head = motion.head >= 0 ? nodes[motion.head] : null;
const hips = motion.hips >= 0 ? nodes[motion.hips] : null;
const joints = Array.from(manager.joints);
root.updateMatrixWorld(true);
manager.setInitState();

const flip = motion.vrm0 ? -1 : 1;
const out = { joints: joints.map((j) => indexOf.get(j.bone)), steps: [] };
const tmp = new THREE.Vector3();
for (const f of motion.frames) {
  if (head) head.quaternion.set(flip * f.head[0], f.head[1], flip * f.head[2], f.head[3]);
  if (hips) hips.position.set(flip * f.hips[0], f.hips[1], flip * f.hips[2]);
  root.updateMatrixWorld(true);
  manager.update(motion.dt);
  out.steps.push(joints.map((j) => {
    tmp.copy(j._currentTail);
    if (j.center) tmp.applyMatrix4(j.center.matrixWorld);
    return [tmp.x, tmp.y, tmp.z];
  }));
}
process.stdout.write(JSON.stringify(out));
