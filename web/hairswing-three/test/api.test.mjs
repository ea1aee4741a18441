// The package's surface: drop-in replacement of three-vrm's manager, node matching without the
// GLTFLoader result, mode switching, config, stats, and the errors a user can run into (bad
// bytes, misuse), which must be JS Errors with a message naming the problem, never a crash, and
// must leave nothing half-built.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ARC_SETTINGS, HairswingSpringBones, DEFAULT_CONFIG } from '../src/index.js';
import { execFileSync } from 'node:child_process';
import { cli, demoAvatar, headTurn, load, missing, sharedData } from './helpers.mjs';

async function setup(file, options = {}) {
  const side = await load(file);
  if (side.gltf.parser.json.extensions.VRM) side.VRMUtils.rotateVRM0(side.vrm);
  side.root.updateMatrixWorld(true);
  const springs = await HairswingSpringBones.fromVRM(side.vrm, side.data, options);
  return { side, springs };
}

function turnHead(side, t) {
  const head = side.vrm.humanoid.getNormalizedBoneNode('head');
  head.rotation.set(headTurn(t).pitch, headTurn(t).yaw, 0);
}

test('replaces vrm.springBoneManager; vrm.update(delta) moves the hair; dispose puts it back', async (t) => {
  if (missing()) return t.skip(missing());
  const { side, springs } = await setup(demoAvatar('layered'));
  const original = springs.replacedManager;
  assert.ok(original && typeof original.update === 'function', 'three-vrm manager kept');
  assert.equal(side.vrm.springBoneManager, springs);
  const bone = springs.joints.find((j) => j.bone).bone;
  const rest = bone.quaternion.clone();
  for (let f = 1; f <= 60; f++) {
    turnHead(side, f / 60);
    side.vrm.update(1 / 60);
  }
  assert.ok(!bone.quaternion.equals(rest), 'the first joint did not turn');
  // On screen too: three.js composes the bone's matrix from the rotation written (three-vrm had
  // switched matrixAutoUpdate off on its spring bones; the hair then stood still when rendered).
  const { THREE } = side;
  side.vrm.scene.updateMatrixWorld(true);
  const composed = new THREE.Matrix4().compose(bone.position, bone.quaternion, bone.scale);
  assert.ok(bone.matrix.equals(composed), 'the bone matrix does not follow the solved rotation');
  assert.ok(springs.joints.every((j) => !j.bone || j.bone.matrixAutoUpdate), 'matrixAutoUpdate off on a joint bone');
  const s = springs.stats;
  assert.equal(s.updates, 60);
  assert.equal(s.steps, 120, 'two 1/120 s steps per 60 Hz frame');
  assert.ok(s.p50Micros > 0 && s.p95Micros >= s.p50Micros, `timing ${s.p50Micros} ${s.p95Micros}`);
  assert.match(springs.stateHash(), /^[0-9a-f]{16}$/);
  springs.dispose();
  assert.equal(side.vrm.springBoneManager, original);
  assert.equal(bone.matrixAutoUpdate, false, 'dispose did not give three-vrm its bones back as they were');
  springs.dispose(); // twice is fine
});

test('nodes matched from the scene alone equal the loader\'s own record', async (t) => {
  if (missing()) return t.skip(missing());
  const files = [demoAvatar('layered'), demoAvatar('ponytail'), path.join(sharedData, 'avatars/godette.vrm')].filter((f) => fs.existsSync(f));
  for (const file of files) {
    const side = await load(file);
    const a = await HairswingSpringBones.fromVRM(side.vrm, side.data, { replaceManager: false });
    const b = await HairswingSpringBones.fromVRM(side.vrm, side.data, { replaceManager: false, gltf: side.gltf });
    assert.deepEqual(a.drivers, b.drivers, path.basename(file));
    assert.deepEqual(a.joints.map((j) => j.bone), b.joints.map((j) => j.bone), path.basename(file));
    for (const j of b.joints) {
      if (j.bone) assert.equal(side.gltf.parser.associations.get(j.bone).nodes, j.node);
    }
    a.dispose();
    b.dispose();
  }
});

test('colliders: the same shapes, nodes and sizes three-vrm read from the file', async (t) => {
  if (missing()) return t.skip(missing());
  const files = [demoAvatar('layered'), path.join(sharedData, 'avatars/godette.vrm'),
    path.join(sharedData, 'fixtures/vrm-conformance/springbone_collider_capsule_x0p02_r0p1.vrm')].filter((f) => fs.existsSync(f));
  for (const file of files) {
    const { side, springs } = await setup(file);
    const theirs = Array.from(side.manager.colliders);
    assert.ok(theirs.length > 0, `${path.basename(file)}: no colliders`);
    assert.equal(springs.colliders.length, theirs.length, path.basename(file));
    // three-vrm puts each collider on an object under its node; match by node and offset.
    for (const c of theirs) {
      const shape = c.shape;
      const match = springs.colliders.find((o) => o.object === c.parent &&
        Math.hypot(o.offset[0] - shape.offset.x, o.offset[1] - shape.offset.y, o.offset[2] - shape.offset.z) < 1e-6);
      assert.ok(match, `${path.basename(file)}: no collider on ${c.parent.name} at ${shape.offset.toArray()}`);
      assert.equal(match.shape.toLowerCase().includes(shape.type), true, `${match.shape} vs ${shape.type}`);
      assert.ok(Math.abs(match.radius - shape.radius) < 1e-6, `radius ${match.radius} vs ${shape.radius}`);
      if (shape.type === 'capsule') {
        assert.ok(Math.hypot(match.tail[0] - shape.tail.x, match.tail[1] - shape.tail.y, match.tail[2] - shape.tail.z) < 1e-6);
      }
    }
    springs.dispose();
  }
});

test('mode switches at run time and changes the motion; configure rebuilds', async (t) => {
  if (missing()) return t.skip(missing());
  const runs = {};
  for (const plan of [['arc'], ['parent'], ['arc', 'parent']]) {
    const { side, springs } = await setup(demoAvatar('layered'), { mode: plan[0] });
    for (let f = 1; f <= 120; f++) {
      if (f === 60 && plan[1]) springs.mode = plan[1];
      turnHead(side, f / 60);
      side.vrm.update(1 / 60);
    }
    assert.equal(springs.mode, plan[plan.length - 1]);
    runs[plan.join('>')] = springs.stateHash();
    springs.dispose();
  }
  assert.notEqual(runs.arc, runs.parent);
  assert.notEqual(runs['arc>parent'], runs.arc);
  assert.notEqual(runs['arc>parent'], runs.parent);

  const { springs } = await setup(demoAvatar('layered'));
  assert.deepEqual(springs.config, { ...DEFAULT_CONFIG });
  springs.configure({ mode: 'vrm', stepping: 'frame', threeVrmCompat: true });
  assert.equal(springs.config.stepping, 'frame');
  springs.update(1 / 30);
  assert.equal(springs.stats.steps, 1, 'frame stepping: one step per update');
  assert.throws(() => { springs.mode = 'arc'; }, /stepping 'frame'.*vrm mode only/);
  assert.throws(() => springs.configure({ arcLiveliness: 2 }), /arcLiveliness must be in \[0, 1\]/);
  assert.throws(() => springs.configure({ colour: 'red' }), /unknown option colour/);
  assert.equal(springs.config.mode, 'vrm', 'a refused change leaves the config as it was');
  springs.dispose();
});

test('ARC_SETTINGS are the library\'s named settings; arcFollow reaches the solver', async (t) => {
  if (missing()) return t.skip(missing());
  const { side, springs } = await setup(demoAvatar('ponytail'));
  const M = springs._M; // the library's own values, through its C API (hs_config_arc_setting)
  const cfg = M._malloc(64);
  const name = M._malloc(16);
  // The layout src/index.js writes (CONFIG_BYTES, the fields' offsets) is the library's: given
  // 64 bytes, hs_config_init writes its own sizeof(hs_config), 40, and leaves the rest alone
  // (a world is refused for any other struct_size).
  M.HEAPU8.fill(0xab, cfg, cfg + 64);
  M._hs_config_init(cfg, 64);
  assert.equal(M.HEAPU32[cfg >> 2], 64, 'struct_size is the size given');
  assert.equal(M.HEAP32[(cfg >> 2) + 1], 0, 'mode arc second');
  assert.notEqual(M.HEAPU8[cfg + 39], 0xab, 'arc_follow written');
  assert.deepEqual([...M.HEAPU8.subarray(cfg + 40, cfg + 64)], new Array(24).fill(0xab), 'sizeof(hs_config) is 40');
  assert.deepEqual(Object.keys(ARC_SETTINGS), ['article', 'lively', 'follow']);
  for (const [key, values] of Object.entries(ARC_SETTINGS)) {
    M.stringToUTF8(key, name, 16);
    assert.equal(M._hs_config_arc_setting(cfg, name), 0, key);
    const f32 = M.HEAPF32;
    const b = cfg >> 2;
    assert.deepEqual([f32[b + 3], f32[b + 8], f32[b + 9]],
      [values.arcLiveliness, values.arcStiffness, values.arcFollow].map(Math.fround), `${key} differs from the library's`);
  }
  M.stringToUTF8('bouncy', name, 16);
  assert.notEqual(M._hs_config_arc_setting(cfg, name), 0);
  M._free(cfg);
  M._free(name);
  const article = DEFAULT_CONFIG;
  for (const k of Object.keys(ARC_SETTINGS.article)) assert.equal(article[k], ARC_SETTINGS.article[k], `default ${k}`);
  // The same head-turn under each setting ends in three different states.
  const hashes = {};
  for (const key of Object.keys(ARC_SETTINGS)) {
    springs.configure(ARC_SETTINGS[key]);
    for (let f = 1; f <= 90; f++) {
      turnHead(side, f / 60);
      side.vrm.update(1 / 60);
    }
    hashes[key] = springs.stateHash();
  }
  assert.equal(new Set(Object.values(hashes)).size, 3, JSON.stringify(hashes));
  assert.equal(springs.config.arcFollow, 0.7);
  assert.throws(() => springs.configure({ arcFollow: 1.5 }), /arcFollow must be in \[0, 1\]/);
  assert.equal(springs.config.arcFollow, 0.7, 'a refused change leaves the config as it was');
  springs.dispose();
});

test('joint settings: the file\'s values as three-vrm reads them, edited while running as with three-vrm', async (t) => {
  if (missing()) return t.skip(missing());
  // The values are three-vrm's own for the same file and bone.
  const { side, springs } = await setup(demoAvatar('layered'));
  const theirs = new Map([...springs.replacedManager.joints].map((j) => [j.bone, j.settings]));
  let compared = 0;
  for (const j of springs.joints) {
    const s = j.bone && theirs.get(j.bone);
    if (!s) continue;
    for (const k of ['stiffness', 'dragForce', 'gravityPower', 'hitRadius']) {
      assert.ok(Math.abs(j.settings[k] - s[k]) < 1e-6, `${k} of joint ${j.index}: ${j.settings[k]} vs three-vrm ${s[k]}`);
    }
    for (const a of ['x', 'y', 'z']) assert.ok(Math.abs(j.settings.gravityDir[a] - s.gravityDir[a]) < 1e-6, `gravityDir.${a}`);
    compared++;
  }
  assert.ok(compared >= 60, `only ${compared} joints compared`);
  springs.dispose();

  // The same head-turn twice; one run makes every chain four times softer after one second.
  const run = async (edit) => {
    const { side: sd, springs: sp } = await setup(demoAvatar('layered'));
    const before = [];
    for (let f = 1; f <= 120; f++) {
      if (f === 60 && edit) sp.joints.forEach((j) => { j.settings.stiffness *= 0.25; });
      turnHead(sd, f / 60);
      sd.vrm.update(1 / 60);
      if (f === 59) before.push(sp.stateHash());
    }
    const out = { before: before[0], after: sp.stateHash(), sp, sd };
    return out;
  };
  const plain = await run(false);
  const soft = await run(true);
  assert.equal(soft.before, plain.before, 'the runs differ before the edit');
  assert.notEqual(soft.after, plain.after, 'the edit did not reach the solver');
  assert.ok(Math.abs(soft.sp.joints[0].settings.stiffness - 0.25 * plain.sp.joints[0].settings.stiffness) < 1e-6);
  // It survives configure(), which rebuilds the solver.
  const edited = soft.sp.joints[0].settings.stiffness;
  soft.sp.configure({ arcLiveliness: 0.5 });
  assert.equal(soft.sp.joints[0].settings.stiffness, edited);
  // Out of range: a RangeError at once, nothing changed.
  const s0 = soft.sp.joints[0].settings;
  assert.throws(() => { s0.dragForce = 2; }, RangeError);
  assert.throws(() => { s0.stiffness = NaN; }, RangeError);
  assert.throws(() => { s0.hitRadius = -1; }, RangeError);
  assert.ok(s0.dragForce >= 0 && s0.dragForce <= 1);
  // A zero gravity direction is refused at the next update, naming the joint; the solver keeps
  // the last good one, and the next update runs.
  s0.gravityDir.set(0, 0, 0);
  assert.throws(() => soft.sp.update(1 / 60), /joint 0: gravityDir/);
  assert.ok(Math.abs(Math.hypot(s0.gravityDir.x, s0.gravityDir.y, s0.gravityDir.z) - 1) < 1e-6);
  soft.sp.update(1 / 60);
  // Assigning a vector copies it; the solver normalises it.
  s0.gravityDir = { x: 0, y: 0, z: -2 };
  soft.sp.update(1 / 60);
  assert.ok(Math.abs(s0.gravityDir.z + 1) < 1e-6 && Math.abs(s0.gravityDir.y) < 1e-6, JSON.stringify(s0.gravityDir));
  plain.sp.dispose();
  soft.sp.dispose();
});

test('collider groups: the file\'s groups and each joint\'s, as three-vrm reads them', async (t) => {
  if (missing()) return t.skip(missing());
  const files = [demoAvatar('layered'), path.join(sharedData, 'avatars/godette.vrm')].filter((f) => fs.existsSync(f));
  for (const file of files) {
    const name = path.basename(file);
    const { side, springs } = await setup(file);
    const theirs = Array.from(side.manager.colliderGroups);
    assert.ok(theirs.length > 0, `${name}: three-vrm sees no collider groups`);
    // Ours in the file's order (three-vrm lists them in the order joints first use them).
    const json = side.gltf.parser.json;
    const fileGroups = json.extensions.VRMC_springBone ? json.extensions.VRMC_springBone.colliderGroups
      : json.extensions.VRM.secondaryAnimation.colliderGroups;
    assert.equal(springs.colliderGroups.length, fileGroups.length, name);
    springs.colliderGroups.forEach((g, i) => assert.equal(g.index, i));
    // A collider by its node and offset (three-vrm puts each on an object under its node); a
    // group by its colliders.
    const key = (object, o) => `${object && object.name}@${o.map((v) => v.toFixed(5)).join(',')}`;
    const ourGroup = (g) => g.colliders.map((c) => key(c.object, c.offset)).sort().join(' ');
    const theirGroup = (g) => g.colliders.map((c) => key(c.parent, c.shape.offset.toArray())).sort().join(' ');
    const ours = springs.colliderGroups.map(ourGroup);
    for (const g of theirs) assert.ok(ours.includes(theirGroup(g)), `${name}: no group like three-vrm's ${theirGroup(g)}`);
    // Each joint's groups: three-vrm's for the same bone.
    const byBone = new Map([...side.manager.joints].map((j) => [j.bone, j]));
    let compared = 0;
    for (const j of springs.joints) {
      const tj = j.bone && byBone.get(j.bone);
      if (!tj) continue;
      assert.deepEqual(j.colliderGroups.map(ourGroup).sort(), tj.colliderGroups.map(theirGroup).sort(), `${name}: joint ${j.index}`);
      compared++;
    }
    assert.ok(compared > 0, `${name}: no joint compared`);
    springs.dispose();
  }
});

test('joint limits: the file\'s VRMC_springBone_limit, read-only', async (t) => {
  if (missing()) return t.skip(missing());
  const plain = demoAvatar('ponytail');
  const limited = path.join(path.dirname(plain), 'ponytail-cone30.vrm');
  execFileSync(cli(), ['tune', plain, '--all', '--limit', 'cone:30', '-o', limited, '--force'], { stdio: 'ignore' });
  const a = await setup(plain);
  assert.ok(a.springs.joints.every((j) => j.limit === null), 'a file without limits shows limits');
  a.springs.dispose();
  const b = await setup(limited);
  const cones = b.springs.joints.filter((j) => j.limit);
  assert.ok(cones.length > 0, 'no limit read');
  for (const j of cones) {
    assert.equal(j.limit.type, 'cone');
    assert.ok(Math.abs(j.limit.angle - Math.PI / 6) < 1e-6, `angle ${j.limit.angle}`);
    assert.equal(j.limit.rotation.length, 4);
  }
  assert.throws(() => { cones[0].limit.angle = 1; }, TypeError);  // frozen (modules are strict)
  b.springs.dispose();
});

test('setCenter: the hair moves with its center object and swings only from motion relative to it', async (t) => {
  if (missing()) return t.skip(missing());
  // The avatar rides a vehicle that shakes sideways and turns; its head does not move.
  const run = async (moving, centred) => {
    const { side, springs } = await setup(demoAvatar('layered'));
    const vehicle = new side.THREE.Object3D();
    vehicle.add(side.root);
    if (centred) springs.setCenter(vehicle);
    assert.equal(springs.center, centred ? vehicle : null);
    for (let f = 1; f <= 90; f++) {
      const time = f / 60;
      if (moving) {
        vehicle.position.set(0.4 * Math.sin(2 * Math.PI * time), 0, 0.2 * Math.sin(3 * time));
        vehicle.rotation.y = 0.6 * Math.sin(2 * time);
      }
      vehicle.updateMatrixWorld(true);
      side.vrm.update(1 / 60);
    }
    const q = springs.joints.filter((j) => j.bone).map((j) => j.bone.quaternion.toArray()).flat();
    springs.dispose();
    return q;
  };
  const still = await run(false, false);
  const centred = await run(true, true);
  const free = await run(true, false);
  const diff = (x, y) => Math.max(...x.map((v, i) => Math.abs(v - y[i])));
  assert.ok(diff(centred, still) < 1e-4, `centred on the vehicle, the hair moved: ${diff(centred, still)}`);
  assert.ok(diff(free, still) > 1e-2, `in world space the shaking vehicle did not swing the hair: ${diff(free, still)}`);
  const { springs } = await setup(demoAvatar('ponytail'));
  assert.throws(() => springs.setCenter({}), TypeError);
  springs.setCenter(null);
  assert.equal(springs.center, null);
  springs.dispose();
});

// The layered demo run twice for 80 frames: makeFrame(side) gives frame(f), which poses the scene
// for frame f and returns the object an app would call updateMatrixWorld(true) on. One run calls it
// before each update(), the other never does; the hair must end in the same state, bit for bit.
async function assertStaleMatricesAgree(makeFrame) {
  const run = async (stale) => {
    const { side, springs } = await setup(demoAvatar('layered'));
    const frame = makeFrame(side);
    for (let f = 1; f <= 80; f++) {
      const top = frame(f);
      if (!stale) top.updateMatrixWorld(true);
      springs.update(1 / 60);
    }
    const hash = springs.stateHash();
    springs.dispose();
    return hash;
  };
  assert.equal(await run(true), await run(false));
}

test('stale world matrices: update() sees the pose and the parents the app set, as after updateMatrixWorld', async (t) => {
  if (missing()) return t.skip(missing());
  // update() brings each object between the scene root and the drivers up to date once per
  // update (the drivers share their ancestors). The app here never calls updateMatrixWorld in
  // one run: the head turns, the avatar is moved, and at frame 40 put under a new parent that
  // stands elsewhere and turned.
  await assertStaleMatricesAgree((side) => {
    const holder = new side.THREE.Group();
    holder.position.set(0.5, 0.1, -0.3);
    holder.rotation.y = 0.7;
    return (f) => {
      turnHead(side, f / 60);
      side.vrm.scene.position.x = 0.05 * Math.sin(f / 9);
      if (f === 40) holder.add(side.vrm.scene); // the new root of the scene
      side.vrm.humanoid.update();
      return f >= 40 ? holder : side.root;
    };
  });
});

test('stale world matrices: update() follows objects put above a driver after the first update', async (t) => {
  if (missing()) return t.skip(missing());
  // update() keeps the list of objects between the scene root and the drivers, and makes it again
  // when any of them has another parent. Here nothing else brings a world matrix up to date in the
  // stale run (no humanoid.update()): the raw head bone turns, at frame 30 the scene is put under
  // a moving group, at frame 50 a turning group goes between the neck and the head (a list kept
  // from before the changes leaves both groups' world matrices at identity: another state).
  await assertStaleMatricesAgree((side) => {
    const { THREE } = side;
    const head = side.vrm.humanoid.getRawBoneNode('head');
    const neck = head.parent;
    const holder = new THREE.Group();
    const between = new THREE.Group();
    const turn = new THREE.Euler();
    return (f) => {
      head.quaternion.setFromEuler(turn.set(0.2 * Math.sin(f / 11), 0.6 * Math.sin(f / 7), 0));
      if (f === 30) holder.add(side.root);
      holder.position.set(0.004 * f, 0, -0.002 * f);
      holder.rotation.y = 0.004 * f;
      if (f === 50) {
        neck.add(between);
        between.add(head);
      }
      between.rotation.x = 0.05 * Math.sin(f / 5);
      return f >= 30 ? holder : side.root;
    };
  });
});

test('bone writes: a bone is written only when its rotation changes, never a chain end joint', async (t) => {
  if (missing()) return t.skip(missing());
  // Each quaternion write makes three.js recompute the bone's Euler angles: update() skips bones
  // that hold their rotation already. Counted through the quaternions' change callback: the end
  // joints (which the solver never turns) are never written, the swinging joints are, and every
  // bone ends holding exactly the rotation the solver gave it.
  const { side, springs } = await setup(demoAvatar('layered'));
  const bones = springs.joints.map((j) => j.bone).filter(Boolean);
  const jointBones = new Set(bones);
  const ends = bones.filter((b) => !b.children.some((c) => jointBones.has(c)));
  assert.ok(ends.length >= 12 && ends.length < bones.length, `${ends.length} end joints of ${bones.length}`);
  const writes = new Map(bones.map((b) => [b, 0]));
  for (const b of bones) {
    const inner = b.quaternion._onChangeCallback;
    b.quaternion._onChange(() => {
      writes.set(b, writes.get(b) + 1);
      inner();
    });
  }
  for (let f = 1; f <= 30; f++) {
    turnHead(side, f / 60);
    side.vrm.humanoid.update();
    springs.update(1 / 60);
  }
  for (const b of ends) assert.equal(writes.get(b), 0, `end joint ${b.name} written`);
  const swinging = bones.filter((b) => !ends.includes(b));
  assert.ok(swinging.every((b) => writes.get(b) > 0), 'a swinging joint was never written');
  const flip = springs._flipped ? -1 : 1;
  const rv = springs._rv;
  springs.joints.forEach((j, i) => {
    if (!j.bone) return;
    const q = j.bone.quaternion;
    assert.deepEqual([q.x, q.y, q.z, q.w], [flip * rv[4 * i], rv[4 * i + 1], flip * rv[4 * i + 2], rv[4 * i + 3]], j.bone.name);
  });
  springs.dispose();
});

test('bad bytes: a JS Error naming the file and the field, nothing half-built', async (t) => {
  if (missing()) return t.skip(missing());
  const side = await load(demoAvatar('ponytail'));
  const good = new Uint8Array(side.data);
  const manager = side.vrm.springBoneManager;
  const cases = [
    ['text.vrm', new TextEncoder().encode('hello, I am not a model'), /text\.vrm: not a glTF file/],
    ['truncated.vrm', good.subarray(0, 200), /truncated\.vrm/],
    ['empty.vrm', new Uint8Array(0), /empty\.vrm/],
  ];
  // A GLB whose JSON names a node that does not exist: the message names the field.
  const json = JSON.parse(new TextDecoder().decode(good.subarray(20, 20 + new DataView(good.buffer, good.byteOffset).getUint32(12, true))));
  json.extensions.VRMC_springBone.springs[0].joints[0].node = 9999;
  const text = new TextEncoder().encode(JSON.stringify(json).padEnd(Math.ceil(JSON.stringify(json).length / 4) * 4, ' '));
  const rest = good.subarray(20 + new DataView(good.buffer, good.byteOffset).getUint32(12, true));
  const glb = new Uint8Array(20 + text.length + rest.length);
  const dv = new DataView(glb.buffer);
  dv.setUint32(0, 0x46546c67, true); dv.setUint32(4, 2, true); dv.setUint32(8, glb.length, true);
  dv.setUint32(12, text.length, true); dv.setUint32(16, 0x4e4f534a, true);
  glb.set(text, 20); glb.set(rest, 20 + text.length);
  cases.push(['badnode.vrm', glb, /badnode\.vrm.*springs\[0\]\.joints\[0\]\.node/]);
  // Compressed geometry: the package has no Draco or meshopt decoder; it says so and how to get
  // an uncompressed copy (tests/data/compressed, made by tests/data/make_compressed.py).
  const compressed = path.join(path.dirname(new URL(import.meta.url).pathname), '../../../tests/data/compressed');
  cases.push(['strip_draco.glb', new Uint8Array(fs.readFileSync(path.join(compressed, 'strip_draco.glb'))),
    /strip_draco\.glb: meshes\[0\]\.primitives\[0\]\.extensions\.KHR_draco_mesh_compression: this build of hairswing cannot decode Draco data.*hairswing convert/]);
  cases.push(['strip_meshopt.glb', new Uint8Array(fs.readFileSync(path.join(compressed, 'strip_meshopt.glb'))),
    /strip_meshopt\.glb: bufferViews\[\d+\]\.extensions\.EXT_meshopt_compression: this build of hairswing cannot decode meshopt data/]);
  for (const [name, bytes, pattern] of cases) {
    await assert.rejects(HairswingSpringBones.fromVRM(side.vrm, bytes, { name }), (e) => {
      assert.ok(e instanceof Error);
      assert.match(e.message, pattern);
      return true;
    }, name);
    assert.equal(side.vrm.springBoneManager, manager, `${name}: the VRM was changed`);
  }
  // Nothing leaks: many failed loads do not grow the module's memory, and a good load still works.
  const { default: createHairswing } = await import('../wasm/hairswing.mjs'); // (same module file)
  assert.ok(createHairswing);
  const probe = await HairswingSpringBones.fromVRM(side.vrm, good, { replaceManager: false });
  const heapBefore = probe._M.HEAPU8.length;
  for (let i = 0; i < 300; i++) await HairswingSpringBones.fromVRM(side.vrm, glb, { name: 'badnode.vrm' }).catch(() => {});
  assert.equal(probe._M.HEAPU8.length, heapBefore, 'failed loads grew the module memory');
  probe.dispose();
  await assert.rejects(HairswingSpringBones.fromVRM(side.vrm, 'not bytes'), TypeError);
  await assert.rejects(HairswingSpringBones.fromVRM(null, good), TypeError);
  await assert.rejects(HairswingSpringBones.fromVRM(side.vrm, good, { mode: 'wobbly' }), /mode must be one of arc, parent, vrm/);
});

test('misuse: constructor, NaN or negative delta, calls after dispose', async (t) => {
  if (missing()) return t.skip(missing());
  assert.throws(() => new HairswingSpringBones(), /HairswingSpringBones\.fromVRM/);
  const { springs } = await setup(demoAvatar('ponytail'));
  const before = springs.stateHash();
  for (const bad of [NaN, -0.1, Infinity, '0.016', undefined]) {
    assert.throws(() => springs.update(bad), RangeError, String(bad));
  }
  assert.equal(springs.stateHash(), before, 'a refused update changed the state');
  springs.update(0); // zero is allowed and does nothing
  assert.equal(springs.stateHash(), before);
  // A huge delta (a caller passing Date.now() / 1000, or 1e30) counts as a day: the steps beyond
  // the frame budget are dropped, and the next ordinary frame still runs its two steps.
  for (const huge of [Date.now() / 1000, 1e7, 1e30]) {
    springs.update(huge);
    const steps = springs.stats.steps;
    springs.update(1 / 60);
    assert.equal(springs.stats.steps - steps, 2, `after a delta of ${huge} s the solver stopped stepping`);
  }
  springs.dispose();
  for (const call of [() => springs.update(0.01), () => springs.reset(), () => springs.stateHash(), () => springs.tails(), () => { springs.mode = 'vrm'; }]) {
    assert.throws(call, /after dispose\(\)/);
  }
});

test('a .gltf with separate buffers: packed from the buffers GLTFLoader loaded', async (t) => {
  if (missing()) return t.skip(missing());
  const file = path.join(sharedData, 'fixtures/three-vrm/sphere-collider.gltf');
  if (!fs.existsSync(file)) return t.skip('../shared/data/fixtures/three-vrm/sphere-collider.gltf not present');
  const side = await load(file);
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  const bytes = fs.readFileSync(file);
  for (const gltf of [undefined, { scene: side.gltf.scene, userData: {} }]) {
    await assert.rejects(HairswingSpringBones.fromVRM({ scene: side.gltf.scene }, bytes, { gltf, name: 'sphere-collider.gltf' }),
      /sphere-collider\.gltf: buffers\[0\]\.uri "sphere_mesh\.bin" is a separate file: pass options\.gltf/);
  }
  // A GLTFLoader result whose parser hands out the buffers (the fixture ships without its .bin,
  // which holds only the sphere's mesh: zeros of the declared size stand in for it).
  let asked = 0;
  const parser = {
    associations: side.gltf.parser.associations,
    getDependency: async (type, i) => {
      assert.equal(type, 'buffer');
      asked++;
      return new ArrayBuffer(json.buffers[i].byteLength);
    },
  };
  const springs = await HairswingSpringBones.fromVRM(side.gltf, bytes, { gltf: { scene: side.gltf.scene, userData: {}, parser } });
  assert.equal(asked, json.buffers.length);
  const ours = new Set(springs.joints.map((j) => j.bone));
  for (const j of side.manager.joints) assert.ok(ours.has(j.bone), `three-vrm joint ${j.bone.name} missing`);
  springs.update(1 / 60);
  springs.dispose();
});

test('a failed allocation is a clear error: nothing is written at address 0 and the next load works', async (t) => {
  if (missing()) return t.skip(missing());
  const { side, springs } = await setup(demoAvatar('ponytail'));
  const M = springs._M;
  const malloc = M._malloc;
  const low = M.HEAPU8.slice(0, 256);
  const other = await load(demoAvatar('layered'));
  other.root.updateMatrixWorld(true);
  for (const failAt of [0, 1, 2, 3, 4]) { // the first, second, ... allocation of a load fails
    let calls = 0;
    M._malloc = (n) => (calls++ === failAt ? 0 : malloc(n));
    try {
      await assert.rejects(HairswingSpringBones.fromVRM(other.vrm, other.data, { replaceManager: false }),
        (e) => e.code === 'OUT_OF_MEMORY' && /out of memory/.test(e.message), `allocation ${failAt}`);
    } finally {
      M._malloc = malloc;
    }
    assert.deepEqual(M.HEAPU8.slice(0, 256), low, 'the module memory at address 0 was written');
  }
  // The manager that was loaded keeps working, and the next load succeeds.
  for (let f = 1; f <= 30; f++) {
    turnHead(side, f / 60);
    side.vrm.update(1 / 60);
  }
  const again = await HairswingSpringBones.fromVRM(other.vrm, other.data, { replaceManager: false });
  assert.ok(again.joints.length > 0);
  again.dispose();
  springs.dispose();
});
