// temporary profiler (not committed)
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadForSprings, THREE } from './load_vrm.mjs';
import { VRMUtils } from '@pixiv/three-vrm';
import { HairswingSpringBones } from '../../web/hairswing-three/src/index.js';
const file = process.argv[2];
const bench = '/work/main/build/bench/hairswing_peer_bench';
execFileSync(bench, ['motion', file, '720', '/tmp/np/m.json']);
const motion = JSON.parse(fs.readFileSync('/tmp/np/m.json', 'utf8'));
const copy = await loadForSprings(fs.readFileSync(file));
if (motion.vrm0) VRMUtils.rotateVRM0(copy.vrm);
copy.root.updateMatrixWorld(true);
const springs = await HairswingSpringBones.fromVRM(copy.vrm || copy.gltf, copy.data, { gltf: copy.gltf, replaceManager: false, mode: 'arc' });
const flip = motion.vrm0 ? -1 : 1;
const h2 = copy.nodes[motion.head];
const p2 = motion.hips >= 0 ? copy.nodes[motion.hips] : null;
const M = springs._M;
const parts = { total: [], read: [], adv: [], write: [] };
for (let round = 0; round < 6; ++round) {
  for (let i = 0; i < 720; ++i) {
    const f = motion.frames[i];
    h2.quaternion.set(flip * f.head[0], f.head[1], flip * f.head[2], f.head[3]);
    if (p2) p2.position.set(flip * f.hips[0], f.hips[1], flip * f.hips[2]);
    copy.root.updateMatrixWorld(true);
    const t0 = process.hrtime.bigint();
    springs.update(motion.dt);
    const t1 = process.hrtime.bigint();
    springs._readDrivers();
    const t2 = process.hrtime.bigint();
    M._hs_world_advance(springs._world, springs._driversPtr, 0, springs._rotPtr, springs._reportPtr);
    const t3 = process.hrtime.bigint();
    springs._writeBones(springs._rv);
    const t4 = process.hrtime.bigint();
    if (round > 0) { parts.total.push(Number(t1 - t0)); parts.read.push(Number(t2 - t1)); parts.adv.push(Number(t3 - t2)); parts.write.push(Number(t4 - t3)); }
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return (s[s.length >> 1] / 1000).toFixed(2); };
console.log(file.split('/').pop(), 'drivers', springs._nd, 'joints', springs._nj, Object.entries(parts).map(([k, v]) => `${k} ${med(v)}`).join('  '));
