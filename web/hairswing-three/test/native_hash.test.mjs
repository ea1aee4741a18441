// The package in WebAssembly computes bitwise what the native library computes from the same
// input: the package runs an avatar in three.js under a head turn at 45 fps (so the solver
// interpolates its drivers between frames), the driver matrices it fed the solver are recorded,
// and `hairswing hash AVATAR --replay` runs them through the native C++ frame driver. The two state
// hashes must be equal, in every mode.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ARC_SETTINGS, HairswingSpringBones } from '../src/index.js';
import { cli, demoAvatar, headTurn, load, missing, sharedData } from './helpers.mjs';

const avatars = [() => demoAvatar('layered'), () => demoAvatar('ponytail'), () => path.join(sharedData, 'avatars/godette.vrm')];

// The modes, and arc's `follow` setting (its first segments' swing turns the ones below, also in
// the SIMD lanes).
const runs = [
  { mode: 'arc' }, { mode: 'parent' }, { mode: 'vrm' },
  { mode: 'arc', setting: 'follow' },
];
for (const pick of avatars) {
  for (const { mode, setting } of runs) {
    test(`${mode} mode${setting ? ` (${setting})` : ''}: WebAssembly in three.js gives the native hash`, async (t) => {
      const why = missing() || (cli() ? null : 'hairswing CLI not built');
      if (why) return t.skip(why);
      const file = pick();
      if (!fs.existsSync(file)) return t.skip(`${file} not present`);
      const side = await load(file);
      if (side.gltf.parser.json.extensions.VRM) side.VRMUtils.rotateVRM0(side.vrm);
      side.root.updateMatrixWorld(true);
      const bytes = side.data;
      const springs = await HairswingSpringBones.fromVRM(side.vrm, bytes, { mode, ...(setting ? ARC_SETTINGS[setting] : {}), name: path.basename(file) });
      const restHash = springs.stateHash();
      const record = { drivers: springs.drivers.length, reset: Array.from(springs.driverMatrices()), frames: [] };
      // Animated as apps do: the normalized humanoid bones, which vrm.update copies to the raw ones.
      const head = side.vrm.humanoid.getNormalizedBoneNode('head');
      const hips = side.vrm.humanoid.getNormalizedBoneNode('hips');
      const restBones = springs.joints.filter((j) => j.bone).map((j) => [j.bone, j.bone.quaternion.clone()]);
      const q0 = head.quaternion.clone();
      const p0 = hips.position.clone();
      const q = new side.THREE.Quaternion();
      const e = new side.THREE.Euler();
      const dt = 1 / 45;
      for (let f = 1; f <= 12 * 45; f++) {
        const m = headTurn(Math.min(f * dt, 8)); // turn for 8 s, then hold still and settle
        head.quaternion.copy(q0).multiply(q.setFromEuler(e.set(m.pitch, m.yaw, 0)));
        hips.position.set(p0.x + m.sway, p0.y, p0.z);
        side.vrm.update(dt); // the VRM's own update runs the package (it replaced the manager)
        record.frames.push({ dt, m: Array.from(springs.driverMatrices()) });
      }
      const ours = springs.stateHash();
      assert.notEqual(ours, restHash, 'the hair did not move');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hs-replay-'));
      const recording = path.join(dir, 'drivers.json');
      fs.writeFileSync(recording, JSON.stringify(record));
      const native = execFileSync(cli(), ['hash', file, '--solver', mode, '--arc-setting', setting || 'article', '--replay', recording], { encoding: 'utf8' }).trim();
      t.diagnostic(`${path.basename(file)} ${mode}${setting ? ` ${setting}` : ''}: wasm ${ours}, native ${native}, ${springs.stats.steps} steps, ${springs.stats.contacts} contacts`);
      assert.equal(ours, native);
      // reset(): bones back to their rest rotation; under the rest pose, the state at load.
      assert.ok(restBones.some(([b, r]) => !b.quaternion.equals(r)), 'no bone moved');
      springs.reset();
      for (const [b, r] of restBones) assert.ok(b.quaternion.equals(r), `${b.name} not back at rest`);
      head.quaternion.copy(q0);
      hips.position.copy(p0);
      side.vrm.humanoid.update();
      springs.reset();
      assert.equal(springs.stateHash(), restHash, 'reset under the rest pose differs from the state at load');
      springs.dispose();
      fs.rmSync(dir, { recursive: true });
    });
  }
}
