// hairswing viewer (served by `hairswing view`): a VRM rendered with three.js + three-vrm (MToon),
// its hair simulated in the browser by the hairswing-three WebAssembly package. The server
// (cli/view.cpp) lists avatars, retargets clips onto the avatar shown and runs the fitters.
//
// Motion: the body follows the rest pose, the standard head-turn (4 s of head turns and
// hip sway, then still; the same angles as hairswing's HeadTurnMotion) or a retargeted clip; the
// hair follows the body through the solver, one update per rendered frame with the frame's time.
// The head-turn test runs on a fixed 60 Hz clock, records the driver matrices it feeds the solver
// and ends with the state hash, which `hairswing hash AVATAR --replay` reproduces natively.
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { VRMLoaderPlugin, VRMUtils } from '@pixiv/three-vrm';
import { ARC_SETTINGS, HairswingSpringBones } from '../../hairswing-three/src/index.js';

const $ = (id) => document.getElementById(id);
const MODES = ['parent', 'arc', 'vrm'];
const HEAD_TURN_SECONDS = 12;
const SETTLE_AFTER = 2; // "move, then settle": seconds of motion before the body holds still

// ---- scene ---------------------------------------------------------------------------------
const renderer = new THREE.WebGLRenderer({ canvas: $('view'), antialias: true });
renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
renderer.outputColorSpace = THREE.SRGBColorSpace;
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xdfe3e8);
const camera = new THREE.PerspectiveCamera(30, 1, 0.01, 100);
camera.position.set(0, 1.3, 4);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 0.9, 0);
controls.enableDamping = false;
scene.add(new THREE.HemisphereLight(0xffffff, 0x8d8d8d, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 2.2);
sun.position.set(1.2, 2.5, 2.0);
scene.add(sun);
const grid = new THREE.GridHelper(10, 20, 0x8892a0, 0xb8c0ca);
scene.add(grid);
const overlay = new THREE.Group();
overlay.visible = false;
scene.add(overlay);

function resize() {
  const el = $('stage');
  const w = el.clientWidth, h = el.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(1, h);
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

// ---- messages and progress ---------------------------------------------------------------------
let messageText = '';
function showMessage(text, kind = 'error') {
  messageText = text;
  const m = $('message');
  m.textContent = text;
  m.className = kind === 'error' ? '' : 'info';
  m.hidden = !text;
}
$('message').addEventListener('click', () => showMessage(''));
function progress(fraction, text) {
  const p = $('progress');
  p.hidden = fraction == null;
  if (fraction == null) return;
  $('progress-bar').style.width = `${Math.round(100 * Math.min(1, fraction))}%`;
  $('progress-text').textContent = text;
}
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

// Reads a response body with a progress bar (the size from Content-Length when given).
async function readWithProgress(response, label) {
  return readStream(response.body, Number(response.headers.get('Content-Length')) || 0, label);
}

async function readStream(stream, total, label) {
  const reader = stream.getReader();
  const parts = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
    if (total > 4 << 20) progress(got / total, `${label}: ${mb(got)} of ${mb(total)}`);
  }
  progress(null);
  const out = new Uint8Array(got);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out.buffer;
}

async function readFileWithProgress(file) {
  if (file.size < 4 << 20) return file.arrayBuffer();
  return readStream(file.stream(), file.size, `reading ${file.name}`);
}

// The session token `hairswing view` printed in its URL (?token=...): the server answers /api/
// requests only with it, so other pages in the browser and other users of the machine cannot use
// the server. Kept for this tab so a reload or ?avatar= link without it still works.
const sessionToken = (() => {
  const fromUrl = new URLSearchParams(location.search).get('token');
  if (fromUrl) sessionStorage.setItem('hairswing-token', fromUrl);
  return fromUrl || sessionStorage.getItem('hairswing-token') || '';
})();

async function api(path, form) {
  const headers = { 'X-Hairswing-Token': sessionToken };
  const res = await fetch(path, form ? { method: 'POST', body: form, headers } : { headers });
  if (!res.ok) {
    let why = `${res.status} ${res.statusText}`;
    try { why = (await res.json()).error || why; } catch { /* not JSON */ }
    throw new Error(why);
  }
  return res;
}

// ---- the avatar --------------------------------------------------------------------------------
// S: everything about the avatar on show; replaced as a whole when another one loads.
let S = null;
let mode = 'arc';
let arcSetting = 'article'; // the improved solver's named setting (ARC_SETTINGS)
let paused = false;
let hideAccessories = false;
const clipCache = new Map(); // avatar bytes key -> retargeted library clips

function headTurnAngles(t) { // HeadTurnMotion::Angles (src/anim/head_turn.cpp)
  let w = 0;
  if (t >= 0 && t <= 4) { const s = Math.sin(Math.PI * t / 4); w = s * s; }
  return {
    yaw: 50 * Math.PI / 180 * w * Math.sin(2 * Math.PI * t / 2.0),
    pitch: 15 * Math.PI / 180 * w * Math.sin(2 * Math.PI * t / 1.3),
    sway: 0.03 * w * Math.sin(2 * Math.PI * t / 2.0),
  };
}

function meshesOf(root) {
  const out = [];
  root.traverse((o) => { if (o.isMesh) out.push(o); });
  return out;
}

// Vertices a spring joint moves (weight >= 0.5 on joint bones), per skinned mesh.
function hairVertices(mesh, jointSet) {
  if (!mesh.isSkinnedMesh) return null;
  const idx = mesh.geometry.attributes.skinIndex, wt = mesh.geometry.attributes.skinWeight;
  if (!idx || !wt) return null;
  const bones = mesh.skeleton.bones.map((b) => jointSet.has(b));
  if (!bones.some(Boolean)) return null;
  const hair = new Uint8Array(idx.count);
  let n = 0;
  for (let v = 0; v < idx.count; v++) {
    let w = 0;
    for (let k = 0; k < 4; k++) if (bones[idx.getComponent(v, k)]) w += wt.getComponent(v, k);
    if (w >= 0.5) { hair[v] = 1; n++; }
  }
  return n ? hair : null;
}

// Edges between hair vertices (at most ~6000, spread evenly) with their rest lengths.
function hairEdges(mesh, hair) {
  const index = mesh.geometry.index;
  const count = index ? index.count : mesh.geometry.attributes.position.count;
  const seen = new Set();
  const edges = [];
  for (let i = 0; i + 2 < count; i += 3) {
    const tri = [0, 1, 2].map((k) => (index ? index.getX(i + k) : i + k));
    for (let k = 0; k < 3; k++) {
      const a = Math.min(tri[k], tri[(k + 1) % 3]), b = Math.max(tri[k], tri[(k + 1) % 3]);
      if (!hair[a] || !hair[b]) continue;
      const key = a * 16777216 + b;
      if (seen.has(key)) continue;
      seen.add(key);
      edges.push(a, b);
    }
  }
  const step = Math.max(1, Math.ceil(edges.length / 2 / 6000));
  const picked = [];
  for (let e = 0; e < edges.length / 2; e += step) picked.push(edges[2 * e], edges[2 * e + 1]);
  return Uint32Array.from(picked);
}

// Vertices at the same rest position (a sheet cut into pieces per bone) are one point for the
// stretch figure: their mean position, so that a gap opening between pieces counts as stretch (as
// the native measurement's welded positions do).
function weldGroups(mesh, hair) {
  const pos = mesh.geometry.attributes.position;
  const key = new Map();
  const group = new Int32Array(pos.count).fill(-1);
  const members = [];
  for (let v = 0; v < pos.count; v++) {
    if (!hair[v]) continue;
    const k = `${Math.round(pos.getX(v) * 1e5)},${Math.round(pos.getY(v) * 1e5)},${Math.round(pos.getZ(v) * 1e5)}`;
    let g = key.get(k);
    if (g === undefined) { g = members.length; key.set(k, g); members.push([]); }
    members[g].push(v);
    group[v] = g;
  }
  return { group, members };
}

function skinnedPositions(mesh, vertices) {
  const out = new Map();
  const v = new THREE.Vector3();
  for (const i of vertices) {
    mesh.getVertexPosition(i, v);
    v.applyMatrix4(mesh.matrixWorld);
    out.set(i, v.clone());
  }
  return out;
}

function edgeLengths(h) {
  const { mesh, edges, weld } = h;
  const verts = new Set();
  for (const v of edges) for (const m of weld.members[weld.group[v]]) verts.add(m);
  const pos = skinnedPositions(mesh, verts);
  const welded = (v) => {
    const list = weld.members[weld.group[v]];
    const p = new THREE.Vector3();
    for (const m of list) p.add(pos.get(m));
    return p.multiplyScalar(1 / list.length);
  };
  const len = new Float32Array(edges.length / 2);
  for (let e = 0; e < len.length; e++) len[e] = welded(edges[2 * e]).distanceTo(welded(edges[2 * e + 1]));
  return len;
}

// The avatar's right at rest, as AvatarRight (src/anim/head_turn.cpp): right minus left upper leg
// (else upper arm, else shoulder), horizontal, unit, exactly an axis within 0.5 degrees of one;
// -X (the right of an avatar facing +Z) when the humanoid does not tell. The head-turn nods about
// it and sways the hips along it, whichever way the avatar faces.
function avatarRight(humanoid) {
  const pairs = [['rightUpperLeg', 'leftUpperLeg'], ['rightUpperArm', 'leftUpperArm'], ['rightShoulder', 'leftShoulder']];
  for (const [r, l] of pairs) {
    const rn = humanoid.getRawBoneNode(r), ln = humanoid.getRawBoneNode(l);
    if (!rn || !ln) continue;
    const d = new THREE.Vector3().setFromMatrixPosition(rn.matrixWorld)
      .sub(new THREE.Vector3().setFromMatrixPosition(ln.matrixWorld));
    d.y = 0;
    if (!(d.length() > 1e-6)) continue;
    d.normalize();
    for (const a of [[1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1]])
      if (d.x * a[0] + d.z * a[2] > 0.99996) return new THREE.Vector3(...a);
    return d;
  }
  return new THREE.Vector3(-1, 0, 0);
}

function plainAvatar(gltf) {
  const none = () => null;
  const humanoid = { autoUpdateHumanBones: true, resetNormalizedPose() {}, resetRawPose() {}, update() {},
    getRawBoneNode: none, getNormalizedBoneNode: none };
  return { scene: gltf.scene, humanoid, plain: true, update() {} };
}

async function showAvatar(bytes, name) {
  const buf = bytes instanceof ArrayBuffer ? bytes : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const magic = new Uint8Array(buf, 0, Math.min(64, buf.byteLength));
  const text = String.fromCharCode(...magic).trimStart();
  if (!(magic[0] === 0x67 && magic[1] === 0x6c && magic[2] === 0x54 && magic[3] === 0x46) && !text.startsWith('{'))
    throw new Error(`${name}: not a loadable avatar: neither binary glTF (.vrm, .glb) nor glTF JSON`);
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  let gltf;
  try {
    gltf = await loader.parseAsync(buf.slice(0), '');
  } catch (e) {
    throw new Error(`${name}: not a loadable avatar (${e.message || e})`);
  }
  // A glTF without VRM data (e.g. a haircut to fit) shows as it is, without humanoid motion.
  const vrm = gltf.userData.vrm || plainAvatar(gltf);
  if (gltf.parser.json.extensions && gltf.parser.json.extensions.VRM) VRMUtils.rotateVRM0(vrm);
  vrm.scene.updateMatrixWorld(true);
  let springs = null;
  try {
    springs = await HairswingSpringBones.fromVRM(vrm, buf, { mode, ...ARC_SETTINGS[arcSetting], gltf, name, wasmUrl: 'hairswing.wasm' });
  } catch (e) {
    if (!/no spring|no springs|no VRMC_springBone|not a VRM/i.test(String(e.message))) throw new Error(`${name}: ${e.message || e}`);
  }
  // Swap only now: a file that fails above leaves the current avatar on show.
  if (S) {
    scene.remove(S.vrm.scene);
    if (S.springs) S.springs.dispose();
    VRMUtils.deepDispose(S.vrm.scene);
  }
  scene.add(vrm.scene);
  const joints = springs ? springs.joints : [];
  const jointSet = new Set(joints.map((j) => j.bone).filter(Boolean));
  const meshes = meshesOf(vrm.scene);
  const hair = [];
  for (const m of meshes) {
    const h = hairVertices(m, jointSet);
    if (h) hair.push({ mesh: m, verts: h, edges: hairEdges(m, h), weld: weldGroups(m, h) });
  }
  for (const h of hair) h.rest = edgeLengths(h);
  // Accessories: every mesh but the body (the largest one), the head or face, and the hair.
  const bodyMesh = meshes.filter((m) => !hair.some((h) => h.mesh === m))
    .sort((a, b) => b.geometry.attributes.position.count - a.geometry.attributes.position.count)[0];
  const accessories = meshes.filter((m) => m !== bodyMesh && !hair.some((h) => h.mesh === m) &&
    !/head|face|eye|brow|mouth|teeth|tongue/i.test(`${m.name} ${m.parent ? m.parent.name : ''}`));
  const head = vrm.humanoid.getRawBoneNode('head');
  // Chain tips: joints whose next joint is not their child (joints come chain by chain, parents
  // first; an added end node, bone null, follows the joint it ends).
  const childOf = (c, p) => (c.bone ? c.bone.parent === p.bone : p.bone !== null);
  // A chain's last joint has no segment of its own: the chain ends at that joint's node (its
  // bone, or for an added end node, the end of its parent's segment).
  const tips = joints.map((j, i) => (i + 1 < joints.length && childOf(joints[i + 1], j) ? -1 : i)).filter((i) => i >= 0);
  S = {
    name, bytes: new Uint8Array(buf), gltf, vrm, springs, hair, accessories, head, tips,
    normHead: vrm.humanoid.getNormalizedBoneNode('head'),
    normHips: vrm.humanoid.getNormalizedBoneNode('hips'),
    hipsRest: vrm.humanoid.getNormalizedBoneNode('hips') ? vrm.humanoid.getNormalizedBoneNode('hips').position.clone() : null,
    right: avatarRight(vrm.humanoid),
    mixer: new THREE.AnimationMixer(vrm.scene),
    clips: [], dropped: [], motion: 'rest', clip: null, action: null,
    t: 0, holdAt: null, fixed: false, record: null, headTurnDone: null,
    tipRest: null, chart: [], lastSample: -1, stretch: 0, lag: 0,
  };
  applyAccessories();
  buildOverlay();
  restart();
  frame('body');
  fillFitList();
  S.chainsLoaded = loadChains().catch((e) => showMessage(`chains: ${e.message}`));
  $('avatar-info').textContent = springs
    ? `${springs.joints.length} spring joints, ${springs.colliders.length} colliders, ${hair.length} skinned hair mesh(es)`
    : 'no spring bones: fit hair below to add them';
  fillClipList();
  loadLibraryClips().catch((e) => showMessage(`clips: ${e.message}`));
  return S;
}

// ---- motion ------------------------------------------------------------------------------------
function setBodyRest() {
  S.mixer.stopAllAction();
  S.action = null;
  S.vrm.humanoid.resetNormalizedPose();
  S.vrm.humanoid.resetRawPose();
  S.vrm.humanoid.autoUpdateHumanBones = true;
}

function poseBody(tb) {
  if (S.motion === 'headturn') {
    if (!S.normHead) return;
    const m = headTurnAngles(tb);
    const qy = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 1, 0), m.yaw);
    const qx = new THREE.Quaternion().setFromAxisAngle(S.right, m.pitch);
    S.normHead.quaternion.copy(qy.multiply(qx));
    if (S.normHips) S.normHips.position.copy(S.hipsRest).addScaledVector(S.right, m.sway);
  } else if (S.motion === 'clip' && S.action) {
    S.mixer.setTime(tb);
  }
}

// One frame: the body at time tb, then the humanoid, look-at, expressions and the hair (the
// package replaced the manager); recorded when a head-turn test runs.
function stepFrame(dt, tb) {
  poseBody(tb);
  S.vrm.update(dt);
  if (S.vrm.plain && S.springs) S.springs.update(dt);
  if (S.record) S.record.frames.push({ dt, m: Array.from(S.springs.driverMatrices()) });
}

function advance(dt) {
  S.t += dt;
  const tb = S.holdAt != null ? Math.min(S.t, S.holdAt) : S.t;
  S.bodyTime = tb;
  stepFrame(dt, tb);
  if (!S.tipRest && S.springs && S.springs.stats.steps > S.stepsAtRestart) captureTipRest(); // tails exist after a step
  if (S.motion === 'headturn' && S.fixed && S.t >= HEAD_TURN_SECONDS - 1e-9) finishHeadTurn();
}

function setMotion(kind, clip = null) {
  if (!S) return;
  S.fixed = false;
  S.record = null;
  S.holdAt = null;
  setBodyRest();
  S.motion = kind;
  S.clip = clip;
  if (kind === 'clip' && clip) {
    S.vrm.humanoid.autoUpdateHumanBones = false; // the clip animates the raw bones
    S.action = S.mixer.clipAction(clip);
    S.action.play();
  }
  S.t = 0;
  poseBody(0);
}

function restart() {
  if (!S) return;
  const keep = S.motion, clip = S.clip;
  setMotion(keep, clip);
  S.vrm.scene.updateMatrixWorld(true);
  S.vrm.humanoid.update();
  if (S.springs) S.springs.reset();
  S.vrm.scene.updateMatrixWorld(true);
  S.tipRest = null;
  S.stepsAtRestart = S.springs ? S.springs.stats.steps : 0;
  S.chart = [];
  updateHash();
}

function startHeadTurnTest() {
  if (!S || !S.springs) { showMessage('this avatar has no spring bones to test'); return null; }
  setMotion('headturn');
  $('clip').value = 'headturn';
  S.vrm.scene.updateMatrixWorld(true);
  S.vrm.humanoid.update();
  S.springs.reset();
  S.record = { drivers: S.springs.drivers.length, reset: Array.from(S.springs.driverMatrices()), frames: [] };
  S.hungBefore = hangUnderGravity();
  S.fixed = true; // one 1/60 s step per rendered frame: the same run however fast the page renders
  S.headTurnDone = null;
  paused = false;
  updatePauseButton();
  $('hash').textContent = 'head-turn test running (12 s at 60 Hz' +
    (S.hungBefore > 0 ? `, after ${S.hungBefore.toFixed(1)} s of letting the hair hang` : '') + ')…';
  return S.record;
}

// Hair with gravity hangs lower than the file's rest pose. As `hairswing measure` and `bake` do,
// the body is held at the motion's first pose until no chain tip moves 0.001 mm in 0.5 s (at most
// 20 s), so the test starts from hanging hair instead of showing it fall into place. Run at once
// (a few ms), on the same 60 Hz clock, and recorded: `hairswing hash --replay` replays it too.
// Returns the seconds held (0 without gravity).
function hangUnderGravity() {
  if (!S.springs.joints.some((j) => j.settings.gravityPower > 0)) return 0;
  const dt = 1 / 60, span = 30, most = 1200;
  let frames = 0, before = null;
  while (frames < most) {
    for (let i = 0; i < span; ++i, ++frames) stepFrame(dt, 0); // the clock does not move
    const now = tipPositionsInHead();
    const moved = before ? Math.max(0, ...now.map((p, i) => p.distanceTo(before[i]))) : Infinity;
    before = now;
    if (moved < 1e-6) break;
  }
  return frames * dt;
}

function finishHeadTurn() {
  S.fixed = false;
  S.headTurnDone = { hash: S.springs.stateHash(), mode: S.springs.mode, arcSetting, recording: S.record };
  S.record = null;
  S.holdAt = S.t; // stay at the end pose
  const what = S.springs.mode === 'arc' ? `arc, ${arcSetting}` : S.springs.mode;
  $('hash').textContent = `head-turn test (${what}): state hash ${S.headTurnDone.hash}`;
}

function updateHash() {
  $('hash').textContent = S && S.springs ? `state hash ${S.springs.stateHash()}` : '';
}

// ---- measurements: p99 stretch and tip lag (relative to the head) --------------------------------
function tipPositionsInHead() {
  if (!S.springs || !S.head || !S.tips.length) return [];
  const tails = S.springs.tails();
  S.vrm.scene.updateMatrixWorld(true);
  // The head's frame without its scale: an armature scaled 100x (a cm-unit export) would
  // otherwise shrink the lag 100-fold. Positions stay world metres, turned with the head.
  const pos = new THREE.Vector3(), rot = new THREE.Quaternion(), scale = new THREE.Vector3();
  S.head.matrixWorld.decompose(pos, rot, scale);
  const inv = new THREE.Matrix4().compose(pos, rot, new THREE.Vector3(1, 1, 1)).invert();
  const joints = S.springs.joints;
  return S.tips.map((i) => (joints[i].bone
    ? joints[i].bone.getWorldPosition(new THREE.Vector3())
    : new THREE.Vector3(tails[3 * i - 3], tails[3 * i - 2], tails[3 * i - 1])).applyMatrix4(inv));
}
function captureTipRest() { S.tipRest = tipPositionsInHead(); }

function sample() {
  S.vrm.scene.updateMatrixWorld(true); // skinning reads the bones' world matrices
  let stretch = 0;
  const all = [];
  for (const h of S.hair) {
    const len = edgeLengths(h);
    for (let e = 0; e < len.length; e++) if (h.rest[e] > 1e-6) all.push(Math.abs(len[e] / h.rest[e] - 1) * 100);
  }
  if (all.length) {
    all.sort((a, b) => a - b);
    stretch = all[Math.min(all.length - 1, Math.floor(0.99 * all.length))];
  }
  const tips = tipPositionsInHead();
  // The body at its rest pose and the hair still since the last sample (0.01 mm): where the hair
  // hangs is the reference. Hair with gravity hangs below the file's rest pose; that droop is not
  // lag (as `hairswing measure`, which lets it settle first).
  const still = S.prevTips && S.prevTips.length === tips.length &&
    tips.every((p, i) => p.distanceTo(S.prevTips[i]) < 1e-5);
  if (S.motion === 'rest' && still && tips.length) S.tipRest = tips;
  S.prevTips = tips;
  let lag = 0;
  if (tips.length && S.tipRest && S.tipRest.length === tips.length) {
    let s = 0;
    for (let i = 0; i < tips.length; i++) s += tips[i].distanceToSquared(S.tipRest[i]);
    lag = Math.sqrt(s / tips.length) * 1000;
  }
  S.stretch = stretch;
  S.lag = lag;
  S.chart.push([stretch, lag]);
  if (S.chart.length > 100) S.chart.shift();
  drawChart();
}

function drawChart() {
  const c = $('chart'), g = c.getContext('2d');
  g.clearRect(0, 0, c.width, c.height);
  const data = S ? S.chart : [];
  const top = 16, h = c.height - top - 6, w = c.width - 12;
  const maxS = Math.max(1, ...data.map((d) => d[0]));
  const maxL = Math.max(10, ...data.map((d) => d[1]));
  g.strokeStyle = '#ccd';
  g.strokeRect(6, top, w, h);
  const line = (k, max, colour) => {
    g.strokeStyle = colour;
    g.beginPath();
    data.forEach((d, i) => {
      const x = 6 + (w * i) / 99, y = top + h - (h * d[k]) / max;
      if (i) g.lineTo(x, y); else g.moveTo(x, y);
    });
    g.stroke();
  };
  line(0, maxS, '#c62828');
  line(1, maxL, '#1565c0');
  g.font = '11px system-ui';
  g.fillStyle = '#c62828';
  g.fillText(`p99 stretch ${S ? S.stretch.toFixed(2) : '–'} % (max ${maxS.toFixed(1)})`, 8, 12);
  g.fillStyle = '#1565c0';
  g.fillText(`tip lag ${S ? S.lag.toFixed(0) : '–'} mm (max ${maxL.toFixed(0)})`, 200, 12);
}

// ---- view ----------------------------------------------------------------------------------------
// The hair as it is now (skinned, world metres): every vertex a spring joint moves, at most ~4000
// of them spread evenly. Empty when the avatar has no hair chains.
function hairPoints() {
  const out = [];
  if (!S) return out;
  S.vrm.scene.updateMatrixWorld(true);
  const total = S.hair.reduce((n, h) => n + h.verts.reduce((a, b) => a + b, 0), 0);
  const step = Math.max(1, Math.ceil(total / 4000));
  let k = 0;
  for (const h of S.hair) {
    for (let v = 0; v < h.verts.length; v++) {
      if (!h.verts[v] || k++ % step) continue;
      out.push(h.mesh.getVertexPosition(v, new THREE.Vector3()).applyMatrix4(h.mesh.matrixWorld));
    }
  }
  return out;
}

function frame(kind) {
  if (!S) return;
  const box = new THREE.Box3().setFromObject(S.vrm.scene);
  const height = Math.max(0.3, box.max.y - box.min.y);
  const points = kind === 'hair' ? hairPoints() : [];
  if (kind === 'hair' && (points.length || S.head)) {
    // The hair and the head fill the view whatever the avatar's size, units or proportions (a
    // large head collider or a body much larger than the head does not move the frame).
    if (S.head) points.push(S.head.getWorldPosition(new THREE.Vector3()));
    const centre = new THREE.Box3().setFromPoints(points).getCenter(new THREE.Vector3());
    // Three views around the head (the avatar faces +z: VRM 1.0, and three-vrm turns VRM 0.x
    // models that way too): front three-quarter, side, back three-quarter. The front one unless
    // another shows over 1/0.7 times as many hair pixels (a ponytail or long hair behind the head
    // is seen from the side or back; bangs and bobs from the front).
    const views = [[0.45, 0.12, 1], [1, 0.12, 0.1], [0.6, 0.12, -1]].map((d) => new THREE.Vector3(...d).normalize());
    const shown = views.map((dir) => { placeCamera(points, centre, dir); return hairPixels(); });
    const best = shown.indexOf(Math.max(...shown));
    placeCamera(points, centre, views[shown[0] >= 0.7 * shown[best] ? 0 : best]);
  } else {
    const c = box.getCenter(new THREE.Vector3());
    const dist = (height / 2) / Math.tan((camera.fov * Math.PI) / 360) * 1.3;
    controls.target.copy(c);
    camera.position.set(c.x + 0.25 * dist, c.y + 0.2 * height, c.z + dist);
  }
  camera.lookAt(controls.target);
  controls.update();
}

// The camera on the line from `centre` along `dir`, as near as it can be while seeing every point:
// a point at depth z towards the camera and x, y across needs distance >= z + |x| / tan(half the
// horizontal fov), and the same for y with the vertical fov; 8 % margin.
function placeCamera(points, centre, dir) {
  const right = new THREE.Vector3(0, 1, 0).cross(dir).normalize();
  const up = dir.clone().cross(right);
  const tanV = Math.tan((camera.fov * Math.PI) / 360), tanH = tanV * camera.aspect;
  let dist = 0.1;
  const d = new THREE.Vector3();
  for (const p of points) {
    d.subVectors(p, centre);
    const z = d.dot(dir), x = Math.abs(d.dot(right)), y = Math.abs(d.dot(up));
    dist = Math.max(dist, z + (1.08 * x) / tanH, z + (1.08 * y) / tanV);
  }
  controls.target.copy(centre);
  camera.position.copy(centre).addScaledVector(dir, dist);
  camera.lookAt(centre);
  camera.updateMatrixWorld();
}

// The hair (its vertices) against the view: the share inside it (1 when nothing is cropped) and
// how much of the view it spans (the larger of its width and height over the view's, 0..1).
function hairInView() {
  const points = hairPoints();
  if (!points.length) return { inside: 0, span: 0 };
  camera.updateMatrixWorld();
  let inside = 0;
  const box = new THREE.Box2();
  for (const p of points) {
    p.project(camera);
    if (Math.abs(p.x) <= 1 && Math.abs(p.y) <= 1 && p.z <= 1) inside++;
    box.expandByPoint(new THREE.Vector2(Math.max(-1, Math.min(1, p.x)), Math.max(-1, Math.min(1, p.y))));
  }
  return { inside: inside / points.length, span: Math.max(box.max.x - box.min.x, box.max.y - box.min.y) / 2 };
}

function applyAccessories() {
  if (S) for (const m of S.accessories) m.visible = !hideAccessories;
}

function buildOverlay() {
  overlay.clear();
  if (!S || !S.springs) return;
  const jointMat = new THREE.MeshBasicMaterial({ color: 0xff6f00, depthTest: false });
  const lineMat = new THREE.LineBasicMaterial({ color: 0xff6f00, depthTest: false });
  const colMat = new THREE.MeshBasicMaterial({ color: 0x00897b, wireframe: true, depthTest: false });
  S.overlayJoints = S.springs.joints.map(() => {
    const s = new THREE.Mesh(new THREE.SphereGeometry(0.006, 8, 6), jointMat);
    s.renderOrder = 10;
    overlay.add(s);
    return s;
  });
  const segGeo = new THREE.BufferGeometry();
  segGeo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(S.springs.joints.length * 6), 3));
  S.overlayLines = new THREE.LineSegments(segGeo, lineMat);
  S.overlayLines.renderOrder = 10;
  S.overlayLines.frustumCulled = false;
  overlay.add(S.overlayLines);
  S.overlayColliders = S.springs.colliders.filter((c) => c.shape !== 'plane').map((c) => {
    const g = new THREE.Group();
    const r = Math.max(0.002, c.radius);
    const a = new THREE.Mesh(new THREE.SphereGeometry(r, 12, 8), colMat);
    g.add(a);
    let b = null;
    if (/capsule/i.test(c.shape)) { b = new THREE.Mesh(new THREE.SphereGeometry(r, 12, 8), colMat); g.add(b); }
    overlay.add(g);
    return { c, a, b };
  });
}

function updateOverlay() {
  if (!overlay.visible || !S || !S.springs) return;
  const tails = S.springs.tails();
  const pos = S.overlayLines.geometry.attributes.position;
  const p = new THREE.Vector3();
  S.springs.joints.forEach((j, i) => {
    if (j.bone) j.bone.getWorldPosition(p);
    else p.set(tails[3 * i - 3], tails[3 * i - 2], tails[3 * i - 1]); // an added end: from its parent's end
    S.overlayJoints[i].position.copy(p);
    pos.setXYZ(2 * i, p.x, p.y, p.z);
    pos.setXYZ(2 * i + 1, tails[3 * i], tails[3 * i + 1], tails[3 * i + 2]);
  });
  pos.needsUpdate = true;
  for (const { c, a, b } of S.overlayColliders) {
    const o = c.object;
    o.updateWorldMatrix(true, false);
    const s = new THREE.Vector3().setFromMatrixScale(o.matrixWorld);
    a.position.copy(new THREE.Vector3(...c.offset).applyMatrix4(o.matrixWorld));
    a.scale.setScalar(s.x);
    if (b) { b.position.copy(new THREE.Vector3(...c.tail).applyMatrix4(o.matrixWorld)); b.scale.setScalar(s.x); }
  }
}

// ---- controls ------------------------------------------------------------------------------------
function updateSolverButtons() {
  for (const b of document.querySelectorAll('#solver button')) b.classList.toggle('on', b.dataset.mode === mode);
  // The named settings are the improved solver's: greyed out under the others.
  for (const b of document.querySelectorAll('#arc-setting button')) {
    b.classList.toggle('on', b.dataset.setting === arcSetting);
    b.disabled = mode !== 'arc';
  }
}
function updatePauseButton() { $('pause').textContent = paused ? 'Resume' : 'Pause'; $('pause').classList.toggle('on', paused); }

for (const b of document.querySelectorAll('#solver button')) {
  b.addEventListener('click', () => {
    mode = b.dataset.mode;
    if (S && S.springs) S.springs.mode = mode; // switchable while running: the hair keeps its state
    updateSolverButtons();
  });
}
for (const b of document.querySelectorAll('#arc-setting button')) {
  b.addEventListener('click', () => {
    if (b.dataset.setting === arcSetting) return;
    arcSetting = b.dataset.setting;
    // Rebuilds the solver with the setting; the hair starts again at rest under the current pose.
    if (S && S.springs) S.springs.configure(ARC_SETTINGS[arcSetting]);
    updateSolverButtons();
  });
}
$('pause').addEventListener('click', () => { paused = !paused; updatePauseButton(); });
$('restart').addEventListener('click', () => restart()); // a paused view stays paused, at time 0
$('headturn').addEventListener('click', () => startHeadTurnTest());
$('settle').addEventListener('click', () => {
  if (!S) return;
  if (S.motion === 'rest') { setMotion('headturn'); $('clip').value = 'headturn'; }
  else setMotion(S.motion, S.clip);
  S.holdAt = SETTLE_AFTER;
  paused = false;
  updatePauseButton();
});
$('frame-body').addEventListener('click', () => frame('body'));
$('frame-hair').addEventListener('click', () => frame('hair'));
$('accessories').addEventListener('change', (e) => { hideAccessories = e.target.checked; applyAccessories(); });
$('overlay').addEventListener('change', (e) => { overlay.visible = e.target.checked; updateOverlay(); });
$('clip').addEventListener('change', (e) => {
  const v = e.target.value;
  if (v === 'rest' || v === 'headturn') setMotion(v);
  else {
    const [list, i] = v.split(':');
    setMotion('clip', (list === 'lib' ? S.clips : S.dropped)[Number(i)]);
  }
});

function fillClipList() {
  const sel = $('clip');
  sel.innerHTML = '';
  const add = (value, text, parent = sel) => { const o = document.createElement('option'); o.value = value; o.textContent = text; parent.append(o); };
  add('rest', 'Rest pose');
  add('headturn', 'Head-turn (standard test motion)');
  const group = (label, list, key) => {
    if (!list.length) return;
    const g = document.createElement('optgroup');
    g.label = label;
    list.forEach((c, i) => add(`${key}:${i}`, c.name, g));
    sel.append(g);
  };
  if (S) {
    group('Clip library', S.clips, 'lib');
    group('Dropped clips', S.dropped, 'drop');
  }
  sel.value = S && S.motion === 'clip' ? sel.value : (S ? S.motion : 'rest');
}

async function retargetedClips(clipsFile) {
  const form = new FormData();
  form.append('avatar', new Blob([S.bytes]), S.name);
  if (clipsFile) form.append('clips', clipsFile, clipsFile.name);
  const res = await api('/api/clips', form);
  const buf = await readWithProgress(res, 'retargeted clips');
  const gltf = await new GLTFLoader().parseAsync(buf, '');
  return gltf.animations;
}

async function loadLibraryClips() {
  if (!serverInfo || !serverInfo.clips.length || !S) return;
  const mine = S;
  const key = `${S.name}:${S.bytes.length}`;
  if (!clipCache.has(key)) clipCache.set(key, await retargetedClips(null));
  if (S !== mine) return;
  S.clips = clipCache.get(key);
  fillClipList();
}

// ---- the fitter ------------------------------------------------------------------------------------
const undoStack = [];
function fillFitList() {
  const sel = $('fit-hair');
  sel.innerHTML = '<option value="">(colliders only)</option>';
  const json = S.gltf.parser.json;
  for (const m of json.meshes || []) if (m.name) sel.append(new Option(`mesh ${m.name}`, m.name));
  for (const m of json.materials || []) if (m.name) sel.append(new Option(`material ${m.name}`, `material:${m.name}`));
  $('fit-undo').disabled = !undoStack.length;
}
$('fit-apply').addEventListener('click', async () => {
  if (!S) return;
  const form = new FormData();
  form.append('avatar', new Blob([S.bytes]), S.name);
  form.append('hair', $('fit-hair').value);
  form.append('colliders', $('fit-colliders').checked ? '1' : '0');
  $('fit-info').textContent = 'fitting…';
  try {
    const res = await api('/api/fit', form);
    const changes = JSON.parse(res.headers.get('X-Fit-Changes') || '[]');
    const bytes = await res.arrayBuffer();
    const before = { bytes: S.bytes, name: S.name };
    await showAvatar(bytes, S.name.replace(/( \(fitted\))?$/, ' (fitted)'));
    pickerShows(S.name);
    undoStack.push(before);
    $('fit-undo').disabled = false;
    $('fit-info').textContent = `${changes.length} change(s): ${changes.slice(0, 3).join('; ')}${changes.length > 3 ? '…' : ''}`;
  } catch (e) {
    $('fit-info').textContent = '';
    showMessage(`fit: ${e.message}`);
  }
});
$('fit-undo').addEventListener('click', async () => {
  const prev = undoStack.pop();
  if (!prev) return;
  await showAvatar(prev.bytes, prev.name);
  pickerShows(prev.name);
  $('fit-undo').disabled = !undoStack.length;
  $('fit-info').textContent = 'fit undone';
});

// ---- the tune panel: per-chain settings, live, then applied or saved by the server ---------------
// S.chains: the avatar's springs as the server reads them ({index, name, nodes, stiffness,
// drag_force, gravity_power, gravity_dir, hit_radius, limit}); S.edits: spring index -> the
// values the user set. Sliders act at once through the package's joint settings (three-vrm's
// joints[i].settings); the limit and presets act when the server writes them (Apply, Save).
const TUNE = [
  ['stiffness', 'tune-stiffness', 'stiffness', (v) => v.toFixed(2)],
  ['drag_force', 'tune-drag', 'dragForce', (v) => v.toFixed(2)],
  ['gravity_power', 'tune-gravity', 'gravityPower', (v) => v.toFixed(2)],
  ['hit_radius', 'tune-radius', 'hitRadius', (v) => `${(1000 * v).toFixed(0)} mm`],
];
const tuneUndo = [];
// A limit as hairswing tune writes it (none, cone:DEG, hinge:DEG[:TURN], spherical:PITCH,YAW)
// into {kind, angle, second} and back.
function parseLimit(text) {
  const m = /^(cone|hinge|spherical):([\d.]+)(?:[:,]([\d.]+))?$/.exec(text || '');
  return m ? { kind: m[1], angle: Number(m[2]), second: m[3] === undefined ? 0 : Number(m[3]) } : { kind: 'none', angle: 0, second: 0 };
}
function formatLimit(kind, angle, second) {
  if (kind === 'cone') return `cone:${angle}`;
  if (kind === 'hinge') return second ? `hinge:${angle}:${second}` : `hinge:${angle}`;
  if (kind === 'spherical') return `spherical:${angle},${Math.min(second, 90)}`;
  return 'none';
}

async function loadChains() {
  const sel = $('tune-chain');
  sel.innerHTML = '';
  S.chains = [];
  S.edits = new Map();
  if (!S.springs) { $('tune-info').textContent = 'no springs to tune'; return; }
  const form = new FormData();
  form.append('avatar', new Blob([S.bytes]), S.name);
  const mine = S;
  const info = await (await api('/api/springs', form)).json();
  if (S !== mine) return; // another avatar loaded meanwhile
  S.chains = info.springs;
  for (const c of S.chains) sel.append(new Option(c.name || `spring ${c.index}`, String(c.index)));
  const presets = $('tune-preset');
  presets.innerHTML = '<option value="">preset…</option>';
  for (const p of info.presets) presets.append(new Option(p.name, p.name));
  showChain();
}

function chainNow() {
  const i = Number($('tune-chain').value);
  const c = S && S.chains ? S.chains.find((x) => x.index === i) : null;
  return c ? { chain: c, values: { ...c, ...(S.edits.get(i) || {}) } } : null;
}

function showChain() {
  const now = chainNow();
  for (const [key, id, , fmt] of TUNE) {
    $(id).disabled = !now;
    if (now) { $(id).value = String(now.values[key]); $(`${id}-v`).textContent = fmt(now.values[key]); }
  }
  const lim = parseLimit(now ? now.values.limit : 'none');
  $('tune-limit-kind').disabled = !now;
  $('tune-limit-kind').value = lim.kind;
  $('tune-limit').disabled = !now || lim.kind === 'none';
  $('tune-limit').value = String(lim.angle);
  $('tune-limit-v').textContent = lim.kind === 'none' ? '–' : `${lim.angle}°`;
  // The second value: the hinge's axis (turn about the bone) or the spherical limit's yaw.
  const second = lim.kind === 'hinge' || lim.kind === 'spherical';
  $('tune-limit2-row').style.display = second ? '' : 'none';
  $('tune-limit2-name').textContent = lim.kind === 'spherical' ? 'yaw' : 'axis';
  $('tune-limit2').max = lim.kind === 'spherical' ? '90' : '360';
  $('tune-limit2').value = String(lim.second);
  $('tune-limit2-v').textContent = `${lim.second}°`;
  $('tune-undo').disabled = !tuneUndo.length;
}

// The package's joints of a chain: those on the chain's glTF nodes.
function chainJoints(chain) {
  const nodes = new Set(chain.nodes);
  return S.springs.joints.filter((j) => nodes.has(j.node));
}

function editChain(key, value) {
  const now = chainNow();
  if (!now) return;
  const e = S.edits.get(now.chain.index) || {};
  e[key] = value;
  S.edits.set(now.chain.index, e);
  const live = TUNE.find((t) => t[0] === key);
  if (live) for (const j of chainJoints(now.chain)) j.settings[live[2]] = value;
  showChain();
  $('tune-info').textContent = `${S.edits.size} chain(s) edited (Save writes them)`;
}

for (const [key, id] of TUNE) $(id).addEventListener('input', () => editChain(key, Number($(id).value)));
function editLimit() {
  const kind = $('tune-limit-kind').value;
  // A kind chosen from none starts at 45 degrees (an angle of 0 would hold the chain rigid).
  const angle = Number($('tune-limit').value) || 45;
  editChain('limit', formatLimit(kind, angle, Number($('tune-limit2').value)));
}
for (const id of ['tune-limit-kind', 'tune-limit', 'tune-limit2']) $(id).addEventListener('input', editLimit);
$('tune-chain').addEventListener('change', showChain);
$('tune-preset').addEventListener('change', () => {
  if ($('tune-preset').value) editChain('preset', $('tune-preset').value);
  $('tune-info').textContent = `preset ${$('tune-preset').value}: Apply or Save writes it`;
});
$('tune-reset').addEventListener('click', () => {
  const now = chainNow();
  if (!now) return;
  S.edits.delete(now.chain.index);
  for (const [key, , setting] of TUNE) for (const j of chainJoints(now.chain)) j.settings[setting] = now.chain[key];
  showChain();
  $('tune-info').textContent = `${now.chain.name}: as the file has it`;
});

// The edits written into the avatar by the server (hairswing tune's code), as bytes.
async function tunedBytes() {
  const list = [...S.edits].map(([spring, e]) => ({ spring, ...e }));
  const form = new FormData();
  form.append('avatar', new Blob([S.bytes]), S.name);
  form.append('tune', JSON.stringify(list));
  const res = await api('/api/tune', form);
  return { bytes: await res.arrayBuffer(), changes: JSON.parse(res.headers.get('X-Tune-Changes') || '[]') };
}

$('tune-apply').addEventListener('click', async () => {
  if (!S || !S.edits || !S.edits.size) { $('tune-info').textContent = 'nothing edited'; return; }
  const keep = $('tune-chain').value;
  try {
    const { bytes, changes } = await tunedBytes();
    const before = { bytes: S.bytes, name: S.name };
    await showAvatar(bytes, S.name.replace(/( \(tuned\))?$/, ' (tuned)'));
    pickerShows(S.name);
    tuneUndo.push(before);
    await S.chainsLoaded;
    $('tune-chain').value = keep;
    showChain();
    $('tune-info').textContent = `${changes.length} change(s): ${changes.slice(0, 2).join('; ')}${changes.length > 2 ? '…' : ''}`;
  } catch (e) {
    showMessage(`tune: ${e.message}`);
  }
});
$('tune-undo').addEventListener('click', async () => {
  const prev = tuneUndo.pop();
  if (!prev) return;
  await showAvatar(prev.bytes, prev.name);
  pickerShows(prev.name);
  $('tune-info').textContent = 'tune undone';
});
$('tune-save').addEventListener('click', async () => {
  if (!S) return;
  try {
    const { bytes, changes } = S.edits && S.edits.size ? await tunedBytes() : { bytes: S.bytes, changes: [] };
    const vrm = S.gltf.userData.vrm;
    const base = S.name.replace(/ \((fitted|tuned)\)/g, '').replace(/\.(vrm|glb|gltf)$/i, '');
    const name = `${base}-edited.${vrm ? 'vrm' : 'glb'}`;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes], { type: 'model/gltf-binary' }));
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    $('tune-info').textContent = `saved ${name} (${changes.length} change(s))`;
  } catch (e) {
    showMessage(`save: ${e.message}`);
  }
});

// Clicking the hair picks its chain: the joint with the most weight at the hit vertex.
function pickChainAt(clientX, clientY) {
  if (!S || !S.springs || !S.chains || !S.chains.length) return null;
  const rect = renderer.domElement.getBoundingClientRect();
  const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
  const ray = new THREE.Raycaster();
  ray.setFromCamera(ndc, camera);
  const hits = ray.intersectObjects(S.hair.map((h) => h.mesh), false);
  if (!hits.length || !hits[0].face) return null;
  const mesh = hits[0].object;
  const si = mesh.geometry.attributes.skinIndex, sw = mesh.geometry.attributes.skinWeight;
  let best = null, weight = -1;
  for (const v of [hits[0].face.a, hits[0].face.b, hits[0].face.c])
    for (let k = 0; k < 4; k++) {
      const w = sw.getComponent(v, k);
      if (w > weight) { weight = w; best = mesh.skeleton.bones[si.getComponent(v, k)]; }
    }
  const joint = S.springs.joints.find((j) => j.bone === best);
  const chain = joint ? S.chains.find((c) => c.nodes.includes(joint.node)) : null;
  if (!chain) return null;
  $('tune-chain').value = String(chain.index);
  showChain();
  $('tune-info').textContent = `picked ${chain.name}`;
  return chain.name;
}
{
  let down = null; // a click, not an orbit drag: the pointer moved less than 4 px
  renderer.domElement.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
  renderer.domElement.addEventListener('pointerup', (e) => {
    if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) < 4) pickChainAt(e.clientX, e.clientY);
    down = null;
  });
}

// ---- files: the avatar picker, open, drag and drop ---------------------------------------------
let serverInfo = null;
async function openFile(file) {
  const lower = file.name.toLowerCase();
  try {
    if (lower.endsWith('.vrma') || lower.endsWith('.bvh')) return await dropClips(file);
    const bytes = await readFileWithProgress(file);
    progress(1, `loading ${file.name}…`);
    await showAvatar(bytes, file.name);
    pickerShows(file.name);
    progress(null);
    showMessage('');
  } catch (e) {
    progress(null);
    // A .glb that is a clip file rather than an avatar is offered as clips.
    if (S && lower.endsWith('.glb') && /not a VRM|without VRM/.test(e.message)) {
      try { return await dropClips(file); } catch { /* report the avatar error */ }
    }
    showMessage(e.message);
  }
}

// The avatar picker names what is on show: a file opened or dropped gets its own entry.
function pickerShows(name) {
  const sel = $('avatar');
  let opt = [...sel.options].find((o) => o.value === 'local');
  if (!opt) { opt = new Option('', 'local'); sel.append(opt); }
  opt.textContent = `${name} (your file)`;
  sel.value = 'local';
}

async function dropClips(file) {
  if (!S) throw new Error('load an avatar first');
  const clips = await retargetedClips(file);
  for (const c of clips) { c.name = `${file.name}: ${c.name}`; S.dropped.push(c); }
  fillClipList();
  setMotion('clip', clips[0]);
  $('clip').value = `drop:${S.dropped.length - clips.length}`;
  showMessage(`${clips.length} clip(s) from ${file.name} retargeted onto ${S.name}`, 'info');
}

$('file').addEventListener('change', (e) => { if (e.target.files[0]) openFile(e.target.files[0]); e.target.value = ''; });
window.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
window.addEventListener('drop', (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  if (e.dataTransfer.files[0]) openFile(e.dataTransfer.files[0]);
});
$('avatar').addEventListener('change', async (e) => {
  const a = serverInfo.avatars[Number(e.target.value)];
  if (!a) return;
  try {
    const res = await api(a.url);
    await showAvatar(await readWithProgress(res, a.name), a.name);
    showMessage('');
  } catch (err) {
    showMessage(err.message);
  }
});

// ---- the loop -------------------------------------------------------------------------------------
let last = performance.now();
let frames = 0, fpsStart = last, fps = 0;
function loop(now) {
  requestAnimationFrame(loop);
  const wall = Math.min(0.1, Math.max(0, (now - last) / 1000));
  last = now;
  frames++;
  if (now - fpsStart > 1000) { fps = (frames * 1000) / (now - fpsStart); frames = 0; fpsStart = now; }
  if (S && !paused) {
    advance(S.fixed ? 1 / 60 : wall);
    if (S.t - S.lastSample >= 0.1 || S.t < S.lastSample) { S.lastSample = S.t; sample(); }
    if (!S.fixed && frames % 15 === 0) updateHash();
  }
  updateOverlay();
  if (S && S.springs && frames % 10 === 0) {
    const st = S.springs.stats;
    $('timing').textContent = `solver ${st.p50Micros.toFixed(0)} µs p50, ${st.p95Micros.toFixed(0)} µs p95 per frame`;
  }
  $('fps').textContent = `${fps.toFixed(0)} fps`;
  renderer.render(scene, camera);
}

// ---- start, and what the browser tests read (window.__hs) ----------------------------------------
async function start() {
  updateSolverButtons();
  updatePauseButton();
  drawChart();
  serverInfo = await (await api('/api/avatars')).json();
  for (const [i, a] of serverInfo.avatars.entries()) $('avatar').append(new Option(a.name, String(i)));
  const want = new URLSearchParams(location.search).get('avatar');
  const pick = Math.max(0, serverInfo.avatars.findIndex((a) => a.name === want));
  $('avatar').value = String(pick);
  const a = serverInfo.avatars[pick];
  if (a) await showAvatar(await readWithProgress(await api(a.url), a.name), a.name);
  requestAnimationFrame(loop);
}

// Pixels of the last frame: how many differ from the background in the centre third, and how
// many change when the hair meshes are hidden (hair on screen).
// The frame rendered now, and again with the hair meshes hidden (RGBA bytes each).
function renderWithAndWithoutHair() {
  const gl = renderer.getContext();
  const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
  const read = () => { renderer.render(scene, camera); const px = new Uint8Array(w * h * 4); gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px); return px; };
  const a = read();
  const hidden = S ? S.hair.map((x) => x.mesh) : [];
  const was = hidden.map((m) => m.visible);
  hidden.forEach((m) => { m.visible = false; });
  const b = read();
  hidden.forEach((m, i) => { m.visible = was[i]; });
  return { a, b, w, h };
}

// Pixels that change when the hair is hidden: the hair on screen.
function hairPixels() {
  const { a, b } = renderWithAndWithoutHair();
  let n = 0;
  for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 30) n++;
  return n;
}

function pixelStats() {
  const { a, b, w, h } = renderWithAndWithoutHair();
  const bg = [a[0], a[1], a[2]];
  let centre = 0, total = 0, hair = 0;
  const colour = [0, 0, 0];
  for (let y = Math.floor(h / 3); y < (2 * h) / 3; y++) for (let x = Math.floor(w / 3); x < (2 * w) / 3; x++) {
    const i = 4 * (y * w + x);
    total++;
    if (Math.abs(a[i] - bg[0]) + Math.abs(a[i + 1] - bg[1]) + Math.abs(a[i + 2] - bg[2]) > 30) centre++;
  }
  for (let i = 0; i < a.length; i += 4) {
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 30) {
      hair++;
      colour[0] += a[i]; colour[1] += a[i + 1]; colour[2] += a[i + 2];
    }
  }
  return {
    width: w, height: h, centreFraction: centre / total, hairPixels: hair, hairShare: hair / (w * h),
    hairInView: hairInView().inside, hairSpan: hairInView().span, hairMeanRgb: colour.map((c) => (hair ? c / hair : 0)),
  };
}

window.__hs = {
  ready: start().catch((e) => { showMessage(e.message); throw e; }),
  state() {
    return {
      avatar: S && S.name, mode: S && S.springs ? S.springs.mode : mode, arcSetting, paused, motion: S && S.motion,
      clip: S && S.clip ? S.clip.name : null, t: S ? S.t : 0, bodyTime: S ? S.bodyTime : 0, hash: S && S.springs ? S.springs.stateHash() : null,
      camera: camera.position.toArray(), target: controls.target.toArray(),
      meshes: S ? meshesOf(S.vrm.scene).length : 0, hiddenMeshes: S ? meshesOf(S.vrm.scene).filter((m) => !m.visible).length : 0,
      overlay: overlay.visible, overlayObjects: overlay.children.length,
      libraryClips: S ? S.clips.length : 0, droppedClips: S ? S.dropped.length : 0,
      joints: S && S.springs ? S.springs.joints.length : 0, fps,
      timing: $('timing').textContent, stretch: S ? S.stretch : 0, lag: S ? S.lag : 0, chartSamples: S ? S.chart.length : 0,
      message: messageText, headTurn: S && S.headTurnDone ? { hash: S.headTurnDone.hash, mode: S.headTurnDone.mode, arcSetting: S.headTurnDone.arcSetting } : null,
      fitUndo: !$('fit-undo').disabled, fitInfo: $('fit-info').textContent,
      chains: S && S.chains ? S.chains.length : 0, chain: $('tune-chain').value, tuneInfo: $('tune-info').textContent,
      tuneUndo: !$('tune-undo').disabled,
    };
  },
  // The selected chain's settings in the solver (the package's joints) and its glTF nodes.
  chainSettings() {
    const now = chainNow();
    if (!now) return null;
    const j = chainJoints(now.chain)[0];
    // three-vrm's own reading of the same joint (the manager the package replaced).
    const theirs = S.springs.replacedManager ? [...S.springs.replacedManager.joints].find((x) => x.bone === j.bone) : null;
    return { name: now.chain.name, index: now.chain.index, nodes: now.chain.nodes, stiffness: j.settings.stiffness, dragForce: j.settings.dragForce, gravityPower: j.settings.gravityPower, hitRadius: j.settings.hitRadius, threeVrmStiffness: theirs ? theirs.settings.stiffness : null };
  },
  // Screen position (page pixels) of a glTF node, for click tests.
  screenOfNode(node) {
    const j = S.springs.joints.find((x) => x.node === node);
    if (!j || !j.bone) return null;
    const p = new THREE.Vector3().setFromMatrixPosition(j.bone.matrixWorld).project(camera);
    const rect = renderer.domElement.getBoundingClientRect();
    return [rect.left + ((p.x + 1) / 2) * rect.width, rect.top + ((1 - p.y) / 2) * rect.height];
  },
  pickChainAt,
  // Simulated time without waiting for rendered frames (tests and screenshots): 1/60 s steps.
  step(seconds) {
    for (let i = 0; i < Math.round(seconds * 60); i++) advance(1 / 60);
    sample();
    updateOverlay();
    renderer.render(scene, camera);
    updateHash();
    return S.springs ? S.springs.stateHash() : null;
  },
  // The head-turn test without waiting for 720 rendered frames: the same steps, back to back.
  runHeadTurnNow() {
    startHeadTurnTest();
    while (S.fixed) advance(1 / 60);
    return { hash: S.headTurnDone.hash, recording: S.headTurnDone.recording, hungBefore: S.hungBefore };
  },
  pixelStats,
  internals: () => S, // for debugging in the console
};
