// hairswing-three: hairswing's spring solver (compiled to WebAssembly) in place of three-vrm's
// spring bones in a three.js app.
//
// HairswingSpringBones.fromVRM(vrm, bytes, options) loads the same file the app gave GLTFLoader
// into the WebAssembly solver, finds the three.js objects of the nodes the solver reads (chain
// attachments, centres, collider nodes) and writes (the spring joints), and by default takes the
// place of vrm.springBoneManager, so the app's vrm.update(delta) runs hairswing. Each update reads
// the drivers' world matrices, runs the solver (fixed 1/120 s steps by default, interpolating the
// drivers between frames) and writes the joints' local rotations into the bones. A frame
// allocates nothing: the matrices go through Float32Array views on the module's memory.
//
// The package imports neither three nor @pixiv/three-vrm: it only calls what every three.js
// Object3D has (updateWorldMatrix, matrixWorld, quaternion.set), so it works with the copy of
// three the app already has.
import createHairswing from '../wasm/hairswing.mjs';

const MODES = ['arc', 'parent', 'vrm'];
const SHAPES = ['sphere', 'capsule', 'insideSphere', 'insideCapsule', 'plane'];
const COLLIDER_BYTES = 48; // hs_collider: node, shape, offset[3], tail[3], normal[3], radius
const STEPPINGS = ['fixed', 'frame'];
const STATUS = ['ok', 'invalid input', 'invalid argument', 'out of memory', 'internal error',
  'unsupported', 'i/o error'];
const CONFIG_BYTES = 40; // hs_config: struct_size, mode, tuned, arc_liveliness, stiffness_scale,
// vrm_three_compat, teleport_distance, teleport_angle, arc_stiffness, arc_follow (10 x 4 bytes);
// the library refuses a config whose struct_size is not its own sizeof(hs_config)
const REPORT_BYTES = 20; // hs_step_report: flags, steps_run, steps_dropped, teleports, contacts
const TIMING_WINDOW = 256; // updates kept for the p50/p95 of stats
const LIMIT_BYTES = 28; // hs_joint_limit: kind, angle, yaw, rotation[4]
const LIMIT_TYPES = [null, 'cone', 'hinge', 'spherical'];
const SETTINGS_FLOATS = 7; // hs_joint_settings: stiffness, drag_force, gravity_power, gravity_dir[3], hit_radius

// A joint's settings as three-vrm's VRMSpringBoneJoint.settings has them: stiffness, dragForce,
// gravityPower, gravityDir and hitRadius, read and written in place (joints.forEach((j) =>
// { j.settings.stiffness = 2; })). Values live in the owner's mirror of the solver's settings; a
// write is checked at once and reaches the solver at the next update(). gravityDir is a live
// {x, y, z} view with set(x, y, z) and copy(v) (the package does not import three, so it is not
// a THREE.Vector3), and assigning any {x, y, z} to gravityDir copies it.
function checkSetting(name, value, lo, hi) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < lo || value > hi) {
    throw new RangeError(`hairswing: ${name} must be a number in [${lo}, ${hi === Infinity ? 'inf' : hi}] (got ${value})`);
  }
  return value;
}

function makeSettings(owner, index) {
  const at = (k) => SETTINGS_FLOATS * index + k;
  const field = (k, name, lo, hi) => ({
    enumerable: true,
    get: () => owner._mirror[at(k)],
    set: (v) => {
      owner._mirror[at(k)] = checkSetting(name, v, lo, hi);
      owner._settingsDirty = true;
    },
  });
  const dir = {};
  for (const [k, axis] of [[3, 'x'], [4, 'y'], [5, 'z']]) {
    Object.defineProperty(dir, axis, field(k, `gravityDir.${axis}`, -Infinity, Infinity));
  }
  dir.set = (x, y, z) => {
    dir.x = x;
    dir.y = y;
    dir.z = z;
    return dir;
  };
  dir.copy = (v) => dir.set(v.x, v.y, v.z);
  const settings = {};
  Object.defineProperties(settings, {
    stiffness: field(0, 'stiffness', 0, Infinity),
    dragForce: field(1, 'dragForce', 0, 1),
    gravityPower: field(2, 'gravityPower', 0, Infinity),
    hitRadius: field(6, 'hitRadius', 0, Infinity),
    gravityDir: { enumerable: true, get: () => dir, set: (v) => { dir.copy(v); } },
  });
  return Object.seal(settings);
}

/** Defaults of every option (docs: README.md "Options"). */
export const DEFAULT_CONFIG = Object.freeze({
  mode: 'arc',
  stepping: 'fixed',
  tuned: true,
  arcLiveliness: 0,
  arcStiffness: 1.6,
  arcFollow: 0,
  stiffnessScale: 1,
  threeVrmCompat: false,
  teleportDistance: 0.5,
  teleportAngle: 1.5,
});

/**
 * arc's named settings (docs: README.md "Options"), as options to pass to fromVRM or configure():
 * `article` (the defaults: the article's improved solver, calm, least stretch), `lively` (swings
 * about as far as three-vrm, as a rigid swing) and `follow` (lively's swing from the chain's root,
 * the segments below turning with it: a third to two thirds of the curl). The library's own values
 * (hs_config_arc_setting); a test checks that they agree.
 */
export const ARC_SETTINGS = Object.freeze({
  article: Object.freeze({ arcLiveliness: 0, arcStiffness: 1.6, arcFollow: 0 }),
  lively: Object.freeze({ arcLiveliness: 1, arcStiffness: 1, arcFollow: 0 }),
  follow: Object.freeze({ arcLiveliness: 1, arcStiffness: 1, arcFollow: 0.7 }),
});

let modulePromise = null;

// The WebAssembly module, instantiated once and shared by every HairswingSpringBones. In node the
// .wasm is read from the package folder; in a browser it is fetched from beside this file (a
// bundler such as vite copies it, as it does for any `new URL(..., import.meta.url)`).
function loadModule(options) {
  if (modulePromise) return modulePromise;
  modulePromise = (async () => {
    let wasmBinary = options.wasmBinary;
    if (!wasmBinary) {
      const url = options.wasmUrl || new URL('../wasm/hairswing.wasm', import.meta.url);
      const inNode = typeof process === 'object' && process.versions && process.versions.node;
      if (inNode && String(url).startsWith('file:')) {
        const fs = await import(/* @vite-ignore */ ['node', 'fs'].join(':'));
        wasmBinary = fs.readFileSync(url);
      } else {
        const response = await fetch(url);
        if (!response.ok) throw new Error(`hairswing: cannot load ${url}: HTTP ${response.status}`);
        wasmBinary = await response.arrayBuffer();
      }
    }
    return createHairswing({ wasmBinary });
  })();
  modulePromise.catch(() => { modulePromise = null; });
  return modulePromise;
}

function hairswingError(M, status, what) {
  const message = M.UTF8ToString(M._hs_last_error());
  const err = new Error(`hairswing: ${what}: ${message || STATUS[status] || `status ${status}`}`);
  err.code = STATUS[status] || status;
  return err;
}

// Every allocation on the module heap goes through here: _malloc returns 0 when the heap cannot
// grow, and writing there would overwrite the module's own memory.
function alloc(M, bytes, what) {
  const p = M._malloc(bytes);
  if (!p) {
    const err = new Error(`hairswing: ${what}: out of memory (${bytes} bytes on the WebAssembly heap)`);
    err.code = 'OUT_OF_MEMORY';
    throw err;
  }
  return p;
}

// Frees the pointers that are set (0 is nothing).
function freeAll(M, ...ptrs) {
  for (const p of ptrs) if (p) M._free(p);
}

function asBytes(bytes) {
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError('hairswing: bytes must be the file as an ArrayBuffer or Uint8Array (the same bytes GLTFLoader parsed)');
}

// The glTF JSON of a .glb/.vrm or .gltf file (only its node tree is used here).
function readJson(u8, name) {
  try {
    if (u8.length >= 20 && u8[0] === 0x67 && u8[1] === 0x6c && u8[2] === 0x54 && u8[3] === 0x46) {
      const view = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
      const total = view.getUint32(8, true);
      if (total > u8.length) throw new Error(`truncated: the GLB header says ${total} bytes, there are ${u8.length}`);
      const length = view.getUint32(12, true);
      return JSON.parse(new TextDecoder().decode(u8.subarray(20, 20 + length)));
    }
    return JSON.parse(new TextDecoder().decode(u8));
  } catch (e) {
    const err = new Error(`hairswing: ${name}: not a glTF file (${e.message})`);
    err.code = 'invalid input';
    throw err;
  }
}

// A .glb of a .gltf whose buffers are separate files, from the buffers GLTFLoader already loaded
// (the solver in WebAssembly has no file system): every buffer goes into the one binary chunk.
async function packGltf(json, gltf) {
  const buffers = await Promise.all(json.buffers.map((_, i) => gltf.parser.getDependency('buffer', i)));
  const offsets = [];
  let total = 0;
  for (const b of buffers) {
    offsets.push(total);
    total += (b.byteLength + 3) & ~3;
  }
  const bin = new Uint8Array(total);
  buffers.forEach((b, i) => bin.set(new Uint8Array(b), offsets[i]));
  const packed = { ...json, buffers: [{ byteLength: total }] };
  packed.bufferViews = (json.bufferViews || []).map((v) => ({ ...v, buffer: 0, byteOffset: (v.byteOffset || 0) + offsets[v.buffer] }));
  const text = new TextEncoder().encode(JSON.stringify(packed));
  const jsonLength = (text.length + 3) & ~3;
  const out = new Uint8Array(28 + jsonLength + total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0x46546c67, true); // 'glTF'
  dv.setUint32(4, 2, true);
  dv.setUint32(8, out.length, true);
  dv.setUint32(12, jsonLength, true);
  dv.setUint32(16, 0x4e4f534a, true); // 'JSON'
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + jsonLength);
  dv.setUint32(20 + jsonLength, total, true);
  dv.setUint32(24 + jsonLength, 0x004e4942, true); // 'BIN'
  out.set(bin, 28 + jsonLength);
  return out;
}

// How many children GLTFLoader puts under a node's object before the node's glTF children: the
// primitives of a multi-primitive mesh, or the mesh/camera/light objects of a bone or group.
function objectsBeforeChildren(json, def) {
  let objects = 0;
  let primitives = 0;
  if (def.mesh !== undefined) {
    objects++;
    primitives = ((json.meshes || [])[def.mesh] || {}).primitives?.length || 0;
  }
  if (def.camera !== undefined) objects++;
  if (def.extensions && def.extensions.KHR_lights_punctual) objects++;
  if (def.isBone || objects > 1) return objects;
  return objects === 1 && primitives > 1 ? primitives : 0;
}

// glTF node index -> three.js object. With the GLTFLoader result, its parser's own record; else by
// walking the scene as GLTFLoader built it: children in glTF order, each carrying its glTF name in
// userData.name (objects added later, e.g. three-vrm's collider objects, come after them).
function mapNodes(json, scene, gltf) {
  const nodes = json.nodes || [];
  const objects = new Array(nodes.length).fill(null);
  const associations = gltf && gltf.parser && gltf.parser.associations;
  if (associations) {
    for (const [object, ref] of associations) {
      if (ref && ref.nodes !== undefined && object.isObject3D && !objects[ref.nodes]) objects[ref.nodes] = object;
    }
    return objects;
  }
  const sameNode = (object, def) => (def.name ? object.userData.name === def.name : object.userData.name === undefined);
  const walk = (parent, childIndices, first) => {
    let p = first;
    for (const c of childIndices) {
      const def = nodes[c];
      if (!def) continue;
      const kids = parent.children;
      while (p < kids.length && !sameNode(kids[p], def)) p++;
      if (p >= kids.length) continue; // not found: reported if the solver needs it
      objects[c] = kids[p++];
      walk(objects[c], def.children || [], objectsBeforeChildren(json, def));
    }
  };
  const sceneDef = (json.scenes || [])[json.scene ?? 0];
  if (sceneDef) walk(scene, sceneDef.nodes || [], 0);
  return objects;
}

function validateConfig(config) {
  if (!MODES.includes(config.mode)) throw new RangeError(`hairswing: mode must be one of ${MODES.join(', ')} (got ${config.mode})`);
  if (!STEPPINGS.includes(config.stepping)) throw new RangeError(`hairswing: stepping must be 'fixed' or 'frame' (got ${config.stepping})`);
  if (config.stepping === 'frame' && config.mode !== 'vrm') {
    throw new RangeError("hairswing: stepping 'frame' (one step of the caller's delta, three-vrm's way) exists in vrm mode only; arc and parent run fixed 1/120 s steps");
  }
  const num = (key, ok, what) => {
    if (typeof config[key] !== 'number' || !ok(config[key])) throw new RangeError(`hairswing: ${key} must be ${what} (got ${config[key]})`);
  };
  num('arcLiveliness', (v) => v >= 0 && v <= 1, 'in [0, 1]');
  num('stiffnessScale', (v) => v > 0 && Number.isFinite(v), 'a positive number');
  num('arcStiffness', (v) => v > 0 && Number.isFinite(v), 'a positive number');
  num('arcFollow', (v) => v >= 0 && v <= 1, 'in [0, 1]');
  num('teleportDistance', (v) => v > 0, 'a positive number of metres');
  num('teleportAngle', (v) => v > 0, 'a positive number of radians');
}

/**
 * hairswing's spring solver driving a VRM's hair in three.js; offers what apps call on three-vrm's
 * VRMSpringBoneManager (update, reset, setInitState, joints) plus mode, config, stats, stateHash.
 */
export class HairswingSpringBones {
  /**
   * @param vrm the VRM from three-vrm (gltf.userData.vrm), or the GLTFLoader result itself
   *   (also for a plain glTF with VRMC_springBone; then nodes are matched by the loader's record).
   * @param bytes the file GLTFLoader parsed (ArrayBuffer or Uint8Array).
   * @param options {mode, stepping, tuned, arcLiveliness, arcStiffness, arcFollow, stiffnessScale, threeVrmCompat,
   *   teleportDistance, teleportAngle, name, gltf, replaceManager, wasmBinary, wasmUrl}.
   */
  static async fromVRM(vrm, bytes, options = {}) {
    if (!vrm || typeof vrm !== 'object') throw new TypeError('hairswing: fromVRM needs the VRM (gltf.userData.vrm) or the GLTFLoader result');
    let u8 = asBytes(bytes);
    const gltf = options.gltf || (vrm.parser && vrm.scene ? vrm : null);
    const target = gltf && gltf.userData && gltf.userData.vrm ? gltf.userData.vrm : vrm;
    const scene = target.scene || (gltf && gltf.scene);
    if (!scene || !scene.isObject3D) throw new TypeError('hairswing: the VRM has no scene (pass gltf.userData.vrm or the GLTFLoader result)');
    const config = { ...DEFAULT_CONFIG };
    for (const key of Object.keys(DEFAULT_CONFIG)) if (options[key] !== undefined) config[key] = options[key];
    validateConfig(config);
    const name = options.name || 'avatar';
    const json = readJson(u8, name);
    const external = (json.buffers || []).findIndex((b) => b.uri && !b.uri.startsWith('data:'));
    if (external >= 0 && !(u8[0] === 0x67 && u8[1] === 0x6c)) {
      if (!gltf || !gltf.parser || typeof gltf.parser.getDependency !== 'function') throw new Error(`hairswing: ${name}: buffers[${external}].uri "${json.buffers[external].uri}" is a separate file: pass options.gltf (the GLTFLoader result), whose loaded buffers are used, or load a .glb/.vrm`);
      u8 = await packGltf(json, gltf);
    }
    const M = await loadModule(options);
    return new HairswingSpringBones(CONSTRUCT, { M, u8, json, name, scene, gltf, target, config, options });
  }

  constructor(token, init) {
    if (token !== CONSTRUCT) throw new TypeError('hairswing: create it with `await HairswingSpringBones.fromVRM(vrm, bytes, options)`');
    const { M, u8, json, name, scene, gltf, target, config, options } = init;
    this._M = M;
    this._disposed = false;
    this._config = config;
    // Load: the bytes and the name go through the module's heap and are freed at once.
    const nameLen = M.lengthBytesUTF8(name) + 1;
    let data = 0;
    let namePtr = 0;
    let out = 0;
    let status;
    try {
      data = alloc(M, Math.max(1, u8.length), `${name} (${u8.length} bytes)`);
      namePtr = alloc(M, nameLen, name);
      out = alloc(M, 8, name);
      M.HEAPU8.set(u8, data);
      M.stringToUTF8(name, namePtr, nameLen);
      status = M._hs_avatar_load_memory(data, u8.length, namePtr, out);
      this._avatar = status === 0 ? M.HEAPU32[out >> 2] : 0;
    } finally {
      freeAll(M, data, namePtr, out);
    }
    if (status !== 0) throw hairswingError(M, status, name);
    try {
      this._flipped = M._hs_avatar_axes_flipped(this._avatar) === 1;
      this._json = json;
      this._objects = mapNodes(json, scene, gltf);
      /** The springs' colliders, in their node's frame (file axes): {object, node, shape, offset,
       *  tail, normal, radius}; shape is 'sphere', 'capsule', 'insideSphere', 'insideCapsule' or
       *  'plane'. Read-only: the solver's copy is fixed at load. */
      this.colliders = this._readColliders();
      /** The collider groups as the file has them: {index, name, colliders} (entries of
       *  `colliders`), as three-vrm's manager lists them. Read-only. */
      this.colliderGroups = this._readColliderGroups();
      this._center = null;
      this._centerInverse = null;
      this._world = 0;
      this._createWorld();
    } catch (e) {
      this._release();
      throw e;
    }
    /** The manager this one replaced on the VRM (restored by dispose), or null. */
    this.replacedManager = null;
    this._target = target;
    if (options.replaceManager !== false && 'springBoneManager' in target) {
      this.replacedManager = target.springBoneManager || null;
      target.springBoneManager = this;
    }
    this._times = new Float64Array(TIMING_WINDOW);
    this._stats = { updates: 0, steps: 0, contacts: 0, teleports: 0, stepsDropped: 0, lastFlags: 0, lastMicros: 0 };
    this.reset();
  }

  // (Re)creates the world for the current config and maps its drivers and joints to objects.
  _createWorld() {
    const M = this._M;
    const c = this._config;
    let cfg = 0;
    let out = 0;
    let status;
    try {
      cfg = alloc(M, CONFIG_BYTES, 'world config');
      out = alloc(M, 4, 'world config');
      const i32 = M.HEAP32;
      const f32 = M.HEAPF32;
      const b = cfg >> 2;
      M.HEAPU32[b] = CONFIG_BYTES;
      i32[b + 1] = MODES.indexOf(c.mode);
      i32[b + 2] = c.tuned ? 1 : 0;
      f32[b + 3] = c.arcLiveliness;
      f32[b + 4] = c.stiffnessScale;
      i32[b + 5] = c.threeVrmCompat ? 1 : 0;
      f32[b + 6] = c.teleportDistance;
      f32[b + 7] = c.teleportAngle;
      f32[b + 8] = c.arcStiffness;
      f32[b + 9] = c.arcFollow;
      status = M._hs_world_create(this._avatar, cfg, out);
      if (status === 0) {
        if (this._world) this._freeWorld();
        this._world = M.HEAPU32[out >> 2];
      }
    } finally {
      freeAll(M, cfg, out);
    }
    if (status !== 0) throw hairswingError(M, status, 'world');
    const w = this._world;
    const nd = Number(M._hs_world_driver_count(w));
    const nj = Number(M._hs_world_joint_count(w));
    const int32s = (ptr, n) => Array.from(M.HEAP32.subarray(ptr >> 2, (ptr >> 2) + n));
    const driverNodes = int32s(M._hs_world_driver_nodes(w), nd);
    const jointNodes = int32s(M._hs_world_joint_nodes(w), nj);
    // Rig node -> glTF node index (-1: an end node hairswing added for a spring's virtual tail).
    const fileNode = (rigNode) => M._hs_avatar_file_node(this._avatar, rigNode);
    const notInScene = (node, what) => new Error(`hairswing: ${what} glTF node ${node} (${this._nodeName(node)}) is not in the three.js scene; pass options.gltf (the GLTFLoader result) so that nodes are matched by the loader's own record`);
    this._ancestors = null; // made at the first update (_updateDriverWorlds)
    this._drivers = driverNodes.map((rigNode) => {
      const node = fileNode(rigNode);
      const object = node >= 0 ? this._objects[node] : null;
      if (!object) throw notInScene(node, 'the springs read');
      return object;
    });
    // A joint on an end node hairswing added has no bone (node -1).
    // The joints' settings: the file's, or what the app set before a configure() rebuilt the
    // world (the same joints in the same order), pushed into the new world.
    const previous = this._mirror && this._mirror.length === SETTINGS_FLOATS * nj ? this._mirror : null;
    this._mirror = new Float32Array(SETTINGS_FLOATS * nj);
    this._settingsDirty = false;
    this._pullSettings(w, nj);
    if (previous) {
      this._mirror.set(previous);
      this._pushSettings(w, nj);
    }
    const joints = jointNodes.map((rigNode, index) => {
      const node = fileNode(rigNode);
      const joint = { index, node, bone: node >= 0 ? this._objects[node] : null };
      joint.settings = previous && this.joints ? this.joints[index].settings : makeSettings(this, index);
      joint.colliderGroups = this._jointGroups(w, index);
      joint.limit = this._jointLimit(w, index);
      return joint;
    });
    const missing = joints.find((j) => j.node >= 0 && !j.bone);
    if (missing) throw notInScene(missing.node, 'the spring joint on');
    /** Spring joints in solver order: {index, node (glTF node index), bone (Object3D or null)}. */
    this.joints = joints;
    this._bones = joints.map((j) => j.bone);
    // three-vrm's spring joints switch matrixAutoUpdate off on their bones (they compose those
    // matrices themselves). hairswing writes rotations, so three.js must compose the matrices
    // again, or the hair would not move on screen. dispose() puts the old values back.
    if (!this._matrixAutoUpdateBefore) this._matrixAutoUpdateBefore = this._bones.map((b) => (b ? b.matrixAutoUpdate : null));
    for (const b of this._bones) if (b) b.matrixAutoUpdate = true;
    // Buffers on the module heap, sized once; the views are rebuilt only if the heap grows.
    if (this._buf) M._free(this._buf);
    this._buf = 0;
    this._nd = nd;
    this._nj = nj;
    const bytes = 64 * nd + 16 * nj + 12 * nj + REPORT_BYTES + 16;
    this._buf = alloc(M, bytes, 'frame buffers');
    this._driversPtr = this._buf;
    this._rotPtr = this._driversPtr + 64 * nd;
    this._tailsPtr = this._rotPtr + 16 * nj;
    this._reportPtr = this._tailsPtr + 12 * nj;
    // Rest rotations of the joints (the file's), to put the bones back on reset.
    const nodes = Number(M._hs_avatar_node_count(this._avatar));
    const pose = alloc(M, 40 * Math.max(1, nodes), 'rest pose');
    try {
      if (M._hs_avatar_rest_pose(this._avatar, pose, nodes) !== 0) throw hairswingError(M, 2, 'rest pose');
      const f = M.HEAPF32;
      this._rest = new Float32Array(4 * nj);
      for (let j = 0; j < nj; j++) for (let k = 0; k < 4; k++) this._rest[4 * j + k] = f[(pose >> 2) + 10 * jointNodes[j] + 3 + k];
    } finally {
      M._free(pose);
    }
    this._heap = null;
  }

  _readColliders() {
    const M = this._M;
    const n = Number(M._hs_avatar_collider_count(this._avatar));
    const out = [];
    const p = alloc(M, COLLIDER_BYTES, 'colliders');
    try {
      const flip = this._flipped ? -1 : 1;
      for (let i = 0; i < n; i++) {
        const status = M._hs_avatar_collider(this._avatar, i, p);
        if (status !== 0) throw hairswingError(M, status, 'collider');
        const i32 = M.HEAP32;
        const f = M.HEAPF32;
        const b = p >> 2;
        const vec = (k) => [flip * f[b + k], f[b + k + 1], flip * f[b + k + 2]];
        const node = M._hs_avatar_file_node(this._avatar, i32[b]);
        out.push({ object: node >= 0 ? this._objects[node] : null, node, shape: SHAPES[i32[b + 1]], offset: vec(2), tail: vec(5), normal: vec(8), radius: f[b + 11] });
      }
    } finally {
      M._free(p);
    }
    return out;
  }

  // Indices filled by one of the C API's (out, capacity, count) calls.
  _indices(what, call) {
    const M = this._M;
    const countPtr = alloc(M, 4, what);
    let out = 0;
    try {
      let status = call(0, 0, countPtr);
      if (status !== 0) throw hairswingError(M, status, what);
      const n = M.HEAPU32[countPtr >> 2];
      if (n === 0) return [];
      out = alloc(M, 4 * n, what);
      status = call(out, n, countPtr);
      if (status !== 0) throw hairswingError(M, status, what);
      return Array.from(M.HEAP32.subarray(out >> 2, (out >> 2) + n));
    } finally {
      freeAll(M, countPtr, out);
    }
  }

  _readColliderGroups() {
    const M = this._M;
    const n = Number(M._hs_avatar_collider_group_count(this._avatar));
    const groups = [];
    for (let g = 0; g < n; g++) {
      const name = M.UTF8ToString(M._hs_avatar_collider_group_name(this._avatar, g));
      const members = this._indices('collider group', (out, cap, count) => M._hs_avatar_collider_group(this._avatar, g, out, cap, count));
      groups.push(Object.freeze({ index: g, name, colliders: Object.freeze(members.map((i) => this.colliders[i])) }));
    }
    return Object.freeze(groups);
  }

  // The collider groups joint j collides with (its spring's).
  _jointGroups(w, j) {
    const M = this._M;
    const members = this._indices('joint collider groups', (out, cap, count) => M._hs_world_joint_collider_groups(w, j, out, cap, count));
    return Object.freeze(members.map((g) => this.colliderGroups[g]));
  }

  // Joint j's angle limit (VRMC_springBone_limit) or null: {type, angle, yaw, rotation}.
  _jointLimit(w, j) {
    const M = this._M;
    const p = alloc(M, LIMIT_BYTES, 'joint limit');
    try {
      const status = M._hs_world_joint_limit(w, j, p);
      if (status !== 0) throw hairswingError(M, status, 'joint limit');
      const b = p >> 2;
      const kind = M.HEAP32[b];
      if (kind === 0) return null;
      const f = M.HEAPF32;
      return Object.freeze({
        type: LIMIT_TYPES[kind], angle: f[b + 1], yaw: kind === 3 ? f[b + 2] : 0,
        rotation: Object.freeze([f[b + 3], f[b + 4], f[b + 5], f[b + 6]]),
      });
    } finally {
      M._free(p);
    }
  }

  _nodeName(node) {
    const def = (this._json.nodes || [])[node];
    return (def && def.name) || 'unnamed';
  }

  // Float32Array views of the buffers, rebuilt when the module memory grew (a new ArrayBuffer).
  _views() {
    const M = this._M;
    if (this._heap !== M.HEAPF32.buffer) {
      this._heap = M.HEAPF32.buffer;
      this._dv = new Float32Array(this._heap, this._driversPtr, 16 * this._nd);
      this._rv = new Float32Array(this._heap, this._rotPtr, 4 * this._nj);
      this._tv = new Float32Array(this._heap, this._tailsPtr, 3 * this._nj);
      this._report = new Int32Array(this._heap, this._reportPtr, 5);
    }
  }

  // What updateWorldMatrix(true, false) on every driver gives, with each object on the way (the
  // drivers' shared ancestors: hips, spine, neck, head...) brought up to date once per update
  // instead of once per driver below it, top down. The objects come from a list made once
  // (_driverAncestors) and made again when any of them has another parent than when it was made:
  // the list holds every ancestor up to the scene's root, so a reparented or removed object
  // anywhere above a driver is followed. Checking a parent per object costs less than finding
  // the shared ancestors anew each update (0.5-0.6 against 1.3-1.4 us on the ponytail demo, node).
  _updateDriverWorlds() {
    let list = this._ancestors;
    const parents = this._ancestorParents;
    for (let k = 0; list && k < list.length; k++) if (list[k].parent !== parents[k]) list = null;
    if (!list) list = this._driverAncestors();
    for (let k = 0; k < list.length; k++) list[k].updateWorldMatrix(false, false);
  }

  // Every driver and its ancestors, each once, parents before children, in the order
  // _updateDriverWorlds brings them up to date; with each one's parent now.
  _driverAncestors() {
    const seen = new Set();
    const list = [];
    const path = [];
    for (let i = 0; i < this._nd; i++) {
      path.length = 0;
      for (let o = this._drivers[i]; o && !seen.has(o); o = o.parent) path.push(o);
      for (let k = path.length - 1; k >= 0; k--) {
        list.push(path[k]);
        seen.add(path[k]);
      }
    }
    this._ancestors = list;
    this._ancestorParents = list.map((o) => o.parent);
    return list;
  }

  // Driver world matrices into the module (VRM 0.x: right-multiplied by the 180 degree turn
  // hairswing gave the file on import, so that hairswing's world is three.js's world).
  _readDrivers() {
    this._views();
    const dv = this._dv;
    const inv = this._centerInverse;
    if (inv) {
      this._center.updateWorldMatrix(true, false);
      inv.copy(this._center.matrixWorld).invert();
    }
    this._updateDriverWorlds();
    for (let i = 0; i < this._nd; i++) {
      const o = this._drivers[i];
      const e = inv ? this._centerTmp.multiplyMatrices(inv, o.matrixWorld).elements : o.matrixWorld.elements;
      const b = 16 * i;
      if (this._flipped) {
        for (let k = 0; k < 4; k++) { dv[b + k] = -e[k]; dv[b + 8 + k] = -e[8 + k]; }
        for (let k = 4; k < 8; k++) dv[b + k] = e[k];
        for (let k = 12; k < 16; k++) dv[b + k] = e[k];
      } else {
        for (let k = 0; k < 16; k++) dv[b + k] = e[k];
      }
    }
  }

  // The solver's joint rotations into the bones. A bone that holds its rotation already is left
  // alone: a chain's end joint, which the solver never turns, and hair at rest. Setting it would
  // change nothing but cost three.js' recomputation of bone.rotation (the Euler angles it keeps in
  // step with every quaternion write), about as much as the rest of the write.
  _writeBones(src) {
    const flip = this._flipped ? -1 : 1;
    for (let j = 0; j < this._nj; j++) {
      const bone = this._bones[j];
      if (!bone) continue;
      const q = bone.quaternion;
      const x = flip * src[4 * j], y = src[4 * j + 1], z = flip * src[4 * j + 2], w = src[4 * j + 3];
      if (q.x !== x || q.y !== y || q.z !== z || q.w !== w) q.set(x, y, z, w);
    }
  }

  // The solver's joint settings into the mirror (gravityDir comes back normalised).
  _pullSettings(w, nj) {
    const M = this._M;
    const p = alloc(M, 4 * SETTINGS_FLOATS * Math.max(nj, 1), 'joint settings');
    try {
      const status = M._hs_world_joint_settings(w, 0, nj, p);
      if (status !== 0) throw hairswingError(M, status, 'joint settings');
      this._mirror.set(M.HEAPF32.subarray(p >> 2, (p >> 2) + SETTINGS_FLOATS * nj));
    } finally {
      freeAll(M, p);
    }
  }

  // The mirror into the solver (all or nothing: a zero gravityDir is refused, naming the joint).
  _pushSettings(w, nj) {
    const M = this._M;
    const p = alloc(M, 4 * SETTINGS_FLOATS * Math.max(nj, 1), 'joint settings');
    let status;
    try {
      M.HEAPF32.set(this._mirror, p >> 2);
      status = M._hs_world_set_joint_settings(w, 0, nj, p);
    } finally {
      freeAll(M, p);
    }
    this._settingsDirty = false;
    if (status !== 0) {
      const error = hairswingError(M, status, 'joint settings');
      this._pullSettings(w, nj); // the mirror shows what the solver kept
      throw error;
    }
    this._pullSettings(w, nj);
  }

  _check(method) {
    if (this._disposed) throw new Error(`hairswing: ${method}() after dispose()`);
  }

  /** Advances the hair by `delta` seconds (>= 0) and writes the joint rotations into the bones. */
  update(delta) {
    this._check('update');
    if (typeof delta !== 'number' || !(delta >= 0) || !Number.isFinite(delta)) {
      throw new RangeError(`hairswing: update(delta) needs a finite number of seconds >= 0 (got ${delta})`);
    }
    const t0 = performance.now();
    const M = this._M;
    if (this._settingsDirty) this._pushSettings(this._world, this._nj);
    this._readDrivers();
    let status = 0;
    if (this._config.stepping === 'frame') {
      if (delta > 0) status = M._hs_world_step_variable(this._world, this._driversPtr, Math.min(delta, 1), this._rotPtr, this._reportPtr);
      else this._report.fill(0);
    } else {
      status = M._hs_world_advance(this._world, this._driversPtr, delta, this._rotPtr, this._reportPtr);
    }
    if (status !== 0) throw hairswingError(M, status, 'update');
    this._views();
    if (this._report[1] > 0) this._writeBones(this._rv);
    const s = this._stats;
    const r = this._report;
    s.lastFlags = r[0];
    s.steps += r[1];
    s.stepsDropped += r[2];
    s.teleports += r[3];
    s.contacts += r[4];
    s.lastMicros = (performance.now() - t0) * 1000;
    this._times[s.updates % TIMING_WINDOW] = s.lastMicros;
    s.updates++;
  }

  /** Puts the hair at rest under the current pose: bones to their rest rotation, no velocity. */
  reset() {
    this._check('reset');
    const M = this._M;
    this._writeBones(this._rest);
    this._readDrivers();
    const status = M._hs_world_reset(this._world, this._driversPtr);
    if (status !== 0) throw hairswingError(M, status, 'reset');
  }

  /**
   * three-vrm's setInitState() takes the bones' current pose as the new rest. hairswing keeps the
   * file's rest (its rest arcs and coefficients are built from it at load) and restarts the hair
   * at rest under the current body pose, which is what apps call it for after moving an avatar.
   */
  setInitState() {
    this.reset();
  }

  /**
   * Simulates the hair in `object`'s space (three-vrm's spring bone center): the hair then
   * follows that object's own motion without lagging behind it, and swings only from motion
   * relative to it - an avatar in a moving vehicle or a scrolling scene. null = world space
   * (the default). Gravity directions and colliders are taken in that space too. The hair
   * restarts at rest under the current pose (as reset() does), since its state was in the old
   * space.
   */
  setCenter(object) {
    this._check('setCenter');
    if (object !== null && !(object && object.isObject3D)) {
      throw new TypeError('hairswing: setCenter(object) needs a three.js Object3D or null');
    }
    this._center = object;
    this._centerInverse = object ? object.matrixWorld.clone() : null;
    this._centerTmp = object ? object.matrixWorld.clone() : null;
    this.reset();
  }

  /** The object whose space the hair is simulated in (setCenter), or null for world space. */
  get center() {
    return this._center;
  }

  /** 'arc' (hairswing's solver), 'parent' (the previous solver) or 'vrm' (the VRM reference). */
  get mode() {
    return this._config.mode;
  }

  /** Switches the solver while running, carrying positions and velocities over. */
  set mode(mode) {
    this._check('mode');
    const next = { ...this._config, mode };
    validateConfig(next);
    const status = this._M._hs_world_set_mode(this._world, MODES.indexOf(mode));
    if (status !== 0) throw hairswingError(this._M, status, 'mode');
    this._config = next;
  }

  /** The options in use (a copy; change them with configure()). */
  get config() {
    return { ...this._config };
  }

  /** Changes options: rebuilds the solver and puts the hair at rest under the current pose. */
  configure(changes) {
    this._check('configure');
    const next = { ...this._config, ...changes };
    for (const key of Object.keys(next)) if (!(key in DEFAULT_CONFIG)) throw new RangeError(`hairswing: unknown option ${key}`);
    validateConfig(next);
    const before = this._config;
    this._config = next;
    try {
      this._createWorld();
    } catch (e) {
      this._config = before;
      throw e;
    }
    this.reset();
  }

  /**
   * Counters since creation and the time per update over the last 256 updates, in microseconds
   * (p50, p95): {updates, steps, contacts, teleports, stepsDropped, lastFlags, lastMicros,
   * p50Micros, p95Micros}.
   */
  get stats() {
    const n = Math.min(this._stats.updates, TIMING_WINDOW);
    const sorted = Array.from(this._times.subarray(0, n)).sort((a, b) => a - b);
    const q = (p) => (n ? sorted[Math.min(n - 1, Math.floor(p * n))] : 0);
    return { ...this._stats, p50Micros: q(0.5), p95Micros: q(0.95) };
  }

  /** 16 hex digits: FNV-1a of the solver's positions and velocities (`hairswing hash` prints the same kind). */
  stateHash() {
    this._check('stateHash');
    return BigInt.asUintN(64, BigInt(this._M._hs_world_state_hash(this._world))).toString(16).padStart(16, '0');
  }

  /** World position (three.js world) of each joint's segment end after the last step: 3 floats per joint. */
  tails() {
    this._check('tails');
    const status = this._M._hs_world_tails(this._world, this._tailsPtr, this._nj);
    if (status !== 0) throw hairswingError(this._M, status, 'tails');
    this._views();
    return Float32Array.from(this._tv);
  }

  /** The driver matrices the last update or reset passed to the solver (16 floats each, hairswing's axes). */
  driverMatrices() {
    this._check('driverMatrices');
    this._views();
    return Float32Array.from(this._dv);
  }

  /** The three.js objects whose world matrices the solver reads (attachments, centres, colliders). */
  get drivers() {
    return this._drivers.slice();
  }

  _freeWorld() {
    this._M._hs_world_destroy(this._world);
    this._world = 0;
  }

  _release() {
    const M = this._M;
    if (this._world) this._freeWorld();
    if (this._buf) M._free(this._buf);
    this._buf = 0;
    if (this._avatar) M._hs_avatar_destroy(this._avatar);
    this._avatar = 0;
  }

  /** Frees the solver; puts back the VRM's own spring bone manager if this one replaced it. */
  dispose() {
    if (this._disposed) return;
    this._release();
    if (this._matrixAutoUpdateBefore) this._bones.forEach((b, i) => { if (b) b.matrixAutoUpdate = this._matrixAutoUpdateBefore[i]; });
    this._disposed = true;
    if (this._target && this._target.springBoneManager === this) this._target.springBoneManager = this.replacedManager;
  }
}

const CONSTRUCT = Symbol('HairswingSpringBones');
