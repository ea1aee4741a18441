import fs from 'node:fs';
const { loadForSprings } = await import('/work/main/tests/parity/load_vrm.mjs');
const file = process.argv[2];
const pkgs = process.argv.slice(3);
const N = +(process.env.N || 6000), R = +(process.env.R || 6);
const runs = [];
for (const pkg of pkgs) {
  const { HairswingSpringBones } = await import(pkg + '/src/index.js');
  const copy = await loadForSprings(fs.readFileSync(file));
  copy.root.updateMatrixWorld(true);
  const springs = await HairswingSpringBones.fromVRM(copy.vrm || copy.gltf, copy.data, { gltf: copy.gltf, replaceManager: false, mode: process.env.MODE || 'arc', ...(process.env.FRAME ? { stepping: 'frame' } : {}) });
  const head = copy.vrm ? copy.vrm.humanoid.getRawBoneNode('head') : null;
  let i = 0;
  runs.push({ pkg, round() {
    const ns = [];
    for (let k = 0; k < N; k++, i++) {
      if (head) head.quaternion.setFromAxisAngle({ x: 0, y: 1, z: 0 }, Math.sin(i / 30) * 0.8);
      copy.root.updateMatrixWorld(true);
      const a = process.hrtime.bigint();
      springs.update(1 / 60);
      ns.push(Number(process.hrtime.bigint() - a));
    }
    ns.sort((x, y) => x - y);
    return ns[ns.length >> 1];
  }, meds: [] });
}
for (let r = 0; r < R; r++) for (const run of runs) { const m = run.round(); if (r > 0) run.meds.push(m); }
for (const run of runs) { const s = [...run.meds].sort((a, b) => a - b); console.log(`${s[s.length >> 1]} ns median of rounds [${run.meds.join(' ')}]  ${run.pkg}`); }
