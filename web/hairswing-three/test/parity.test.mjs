// vrm mode in WebAssembly against @pixiv/three-vrm itself, in node: the package (stepping 'frame',
// threeVrmCompat) and three-vrm's VRMSpringBoneManager run the same file under the same motion,
// one update per 60 Hz frame, and every joint's tail must agree within 2e-6 m over 240 frames
// (the native parity test, tests/parity_test.cpp, holds the C++ solver to the same bound; under
// this motion the extended plane's 2 exact frames stay within it too).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { HairswingSpringBones } from '../src/index.js';
import { load, missing, sharedData, headTurn } from './helpers.mjs';

const cases = [
  // [file under ../shared/data, node swept sideways for rigs without a humanoid, frames compared exactly]
  ['fixtures/vrm-conformance/smoke_spring.vrm', -1, 240],
  ['fixtures/vrm-conformance/springbone_collider_sphere_x0p02_r0p1.vrm', -1, 240],
  ['fixtures/vrm-conformance/springbone_collider_capsule_x0p02_r0p1.vrm', -1, 240],
  // The chain hangs exactly along the plane's normal: which side it folds to at the first contact
  // is rounding noise (tests/parity_test.cpp explains); after that only finiteness is compared.
  ['fixtures/vrm-conformance/springbone_extended_plane_with_base_sphere.vrm', -1, 2],
  ['avatars/godette.vrm', -1, 240],
  ['fixtures/three-vrm/sphere-collider.gltf', 5, 240],
  ['fixtures/three-vrm/plane-collider.gltf', 5, 240],
];

for (const [rel, sweepNode, exactFrames] of cases) {
  test(`vrm mode matches three-vrm: ${rel}`, async (t) => {
    const why = missing();
    const file = path.join(sharedData, rel);
    if (why) return t.skip(why);
    if (!fs.existsSync(file)) return t.skip(`../shared/data/${rel} not present`);
    const opts = { extendedSpecVersion: true };
    const theirs = await load(file, opts);
    const ours = await load(file, opts);
    const vrm0 = !!(theirs.gltf.parser.json.extensions && theirs.gltf.parser.json.extensions.VRM);
    for (const side of [theirs, ours]) {
      if (vrm0) side.VRMUtils.rotateVRM0(side.vrm);
      side.root.updateMatrixWorld(true);
    }
    theirs.manager.setInitState();
    // The bytes GLTFLoader parsed (images stripped; a .gltf's separate buffers dropped).
    const bytes = typeof ours.data === 'string' ? new TextEncoder().encode(ours.data) : ours.data;
    const springs = await HairswingSpringBones.fromVRM(ours.vrm || ours.gltf, bytes, {
      gltf: ours.gltf, mode: 'vrm', stepping: 'frame', threeVrmCompat: true, name: rel,
    });
    // The two sides' joints by glTF node index.
    const nodeOf = (gltf, o) => gltf.parser.associations.get(o).nodes;
    const theirJoints = Array.from(theirs.manager.joints);
    const ourIndex = new Map(springs.joints.map((j) => [j.node, j.index]));
    const order = theirJoints.map((j) => {
      const n = nodeOf(theirs.gltf, j.bone);
      assert.ok(ourIndex.has(n), `three-vrm has a joint on node ${n} that hairswing does not`);
      return ourIndex.get(n);
    });
    const head = (side) => (side.vrm && side.vrm.humanoid ? side.vrm.humanoid.getRawBoneNode('head') : null);
    const hips = (side) => (side.vrm && side.vrm.humanoid ? side.vrm.humanoid.getRawBoneNode('hips') : side.nodes[sweepNode]);
    const rest = (side) => ({ head: head(side) && head(side).quaternion.clone(), hips: hips(side) && hips(side).position.clone() });
    const restT = rest(theirs);
    const restO = rest(ours);
    const dt = 1 / 60;
    let worst = 0;
    let worstFrame = -1;
    const tmp = new theirs.THREE.Vector3();
    const euler = new theirs.THREE.Euler();
    for (let f = 1; f <= 240; f++) {
      const m = headTurn(f * dt);
      for (const [side, r] of [[theirs, restT], [ours, restO]]) {
        const h = head(side);
        if (h) h.quaternion.copy(r.head).multiply(new side.THREE.Quaternion().setFromEuler(euler.set(m.pitch, m.yaw, 0)));
        const p = hips(side);
        if (p) p.position.copy(r.hips).add(new side.THREE.Vector3(sweepNode >= 0 ? 20 * m.sway : m.sway, 0, 0));
      }
      theirs.root.updateMatrixWorld(true);
      theirs.manager.update(dt);
      springs.update(dt);
      const tails = springs.tails();
      for (let k = 0; k < theirJoints.length; k++) {
        const j = theirJoints[k];
        tmp.copy(j._currentTail);
        if (j.center) tmp.applyMatrix4(j.center.matrixWorld);
        const o = 3 * order[k];
        assert.ok(Number.isFinite(tails[o + 1]), `frame ${f}: non-finite tail`);
        if (f > exactFrames) continue;
        const d = Math.hypot(tails[o] - tmp.x, tails[o + 1] - tmp.y, tails[o + 2] - tmp.z);
        if (d > worst) { worst = d; worstFrame = f; }
      }
    }
    t.diagnostic(`${theirJoints.length} joints, ${Math.min(240, exactFrames)} frames, worst tail difference ${worst.toExponential(3)} m (frame ${worstFrame})`);
    assert.ok(worst < 2e-6, `worst tail difference ${worst} m at frame ${worstFrame}`);
    springs.dispose();
  });
}
