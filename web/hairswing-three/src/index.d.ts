// Types of hairswing-three (src/index.js). The package needs no import of three: objects are
// typed structurally as what it calls on them, so any three.js Object3D fits.

/** The part of a three.js Object3D the package uses. */
export interface Object3DLike {
  isObject3D: boolean;
  name: string;
  parent: Object3DLike | null;
  children: Object3DLike[];
  userData: Record<string, unknown>;
  matrixWorld: { elements: ArrayLike<number> };
  quaternion: { set(x: number, y: number, z: number, w: number): unknown };
  updateWorldMatrix(updateParents: boolean, updateChildren: boolean): void;
}

/** 'arc': hairswing's solver; 'parent': the previous (parent-relative) solver; 'vrm': the VRM reference. */
export type HairswingMode = 'arc' | 'parent' | 'vrm';

export interface HairswingConfig {
  /** Solver, switchable at run time (default 'arc'). */
  mode: HairswingMode;
  /** 'fixed' (default): 1/120 s steps, drivers interpolated between frames, frame-rate independent.
   *  'frame' (vrm mode only): one step of the caller's delta per update, as three-vrm does. */
  stepping: 'fixed' | 'frame';
  /** arc/parent: tuned damping (default true); false = the plain VRM mapping. */
  tuned: boolean;
  /** arc: 0..1, how much of the author's swing is kept as a rigid swing (default 0, the article's
   *  setting; 1 in the 'lively' and 'follow' settings, see ARC_SETTINGS). */
  arcLiveliness: number;
  /** arc: stiffness x this on top of stiffnessScale (default 1.6, the article's firmer tuning;
   *  1 = the author's stiffness). */
  arcStiffness: number;
  /** arc: 0..1, how far the segments below a chain's first turn with its swing (default 0 = the
   *  original arc; 0.7 in the 'follow' setting). */
  arcFollow: number;
  /** Multiplies every joint's stiffness (default 1). */
  stiffnessScale: number;
  /** vrm: reproduce three-vrm 3.5.5 exactly, quirks included (default false). */
  threeVrmCompat: boolean;
  /** Metres an attachment may jump in one step before the chain is reset (default 0.5). */
  teleportDistance: number;
  /** Radians an attachment may turn in one step before the chain is reset (default 1.5). */
  teleportAngle: number;
}

export interface HairswingOptions extends Partial<HairswingConfig> {
  /** Name used in error messages (default 'avatar'). */
  name?: string;
  /** The GLTFLoader result: nodes are matched by the loader's own record, and a .gltf's separate
   *  buffers are taken from it. Without it, nodes are matched by walking vrm.scene. */
  gltf?: { scene: Object3DLike; parser: unknown; userData: Record<string, unknown> };
  /** Take the place of vrm.springBoneManager, so vrm.update(delta) runs hairswing (default true). */
  replaceManager?: boolean;
  /** The .wasm file's bytes, if the app loads them itself. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to fetch the .wasm from (default: beside the package's module). */
  wasmUrl?: string | URL;
}

export interface HairswingJoint {
  /** Index in the solver's joint order (as in tails()). */
  index: number;
  /** glTF node index; -1 for an end node hairswing added (a spring's virtual tail). */
  node: number;
  /** The bone the solver rotates, or null for an added end node. */
  bone: Object3DLike | null;
  /** The joint's VRM parameters, as three-vrm's VRMSpringBoneJoint.settings: read them, or write
   *  them while running (checked at once, RangeError when out of range; used from the next
   *  update()). A chain's last joint is only its tip: its settings change nothing. */
  readonly settings: HairswingJointSettings;
  /** The collider groups this joint collides with (its spring's; entries of colliderGroups). */
  readonly colliderGroups: ReadonlyArray<HairswingColliderGroup>;
  /** The joint's angle limit (VRMC_springBone_limit) as the solver applies it, or null. Read-only
   *  here: `hairswing tune --limit` writes limits into the file. */
  readonly limit: HairswingJointLimit | null;
}

export interface HairswingColliderGroup {
  /** Index in the file's collider groups. */
  index: number;
  name: string;
  readonly colliders: ReadonlyArray<HairswingCollider>;
}

export interface HairswingJointLimit {
  type: 'cone' | 'hinge' | 'spherical';
  /** Radians: the cone's or hinge's half angle, the spherical limit's pitch. */
  angle: number;
  /** Radians: the spherical limit's yaw (0 for the others). */
  yaw: number;
  /** The limit's frame relative to the default one, quaternion [x, y, z, w]. */
  readonly rotation: ReadonlyArray<number>;
}

export interface HairswingJointSettings {
  /** Pull back towards the rest direction, VRM units (>= 0). */
  stiffness: number;
  /** How quickly motion dies, 0 to 1. */
  dragForce: number;
  /** VRM units (>= 0). */
  gravityPower: number;
  /** World direction of gravity: a live view (normalised by the solver at the next update);
   *  assigning any {x, y, z} copies it. */
  gravityDir: { x: number; y: number; z: number; set(x: number, y: number, z: number): unknown; copy(v: { x: number; y: number; z: number }): unknown };
  /** Collision radius of the joint, in its node's units (>= 0). */
  hitRadius: number;
}

export interface HairswingCollider {
  /** The collider's node object (null if it is not in the scene). */
  object: Object3DLike | null;
  /** glTF node index. */
  node: number;
  shape: 'sphere' | 'capsule' | 'insideSphere' | 'insideCapsule' | 'plane';
  /** In the node's local frame: sphere centre / capsule head / a point on the plane. */
  offset: [number, number, number];
  tail: [number, number, number];
  normal: [number, number, number];
  /** In the node's units; unused for planes. */
  radius: number;
}

export interface HairswingStats {
  updates: number;
  /** Solver steps run since creation. */
  steps: number;
  contacts: number;
  teleports: number;
  stepsDropped: number;
  /** Step report flags of the last update (see include/hairswing/hairswing.h, HS_STEP_*). */
  lastFlags: number;
  /** Microseconds of the last update, and the median and 95th percentile of the last 256. */
  lastMicros: number;
  p50Micros: number;
  p95Micros: number;
}

export const DEFAULT_CONFIG: Readonly<HairswingConfig>;

export class HairswingSpringBones {
  /** Loads `bytes` (the file GLTFLoader parsed) into the WebAssembly solver for `vrm` (or the
   *  GLTFLoader result). Rejects with an Error naming the file and field when the file is unusable. */
  static fromVRM(vrm: object, bytes: ArrayBuffer | ArrayBufferView, options?: HairswingOptions): Promise<HairswingSpringBones>;
  private constructor();

  /** The spring joints in solver order. */
  readonly joints: ReadonlyArray<HairswingJoint>;
  /** The objects whose world matrices the solver reads: chain attachments, centres, collider nodes. */
  readonly drivers: Object3DLike[];
  /** The springs' colliders (read-only; for overlays). */
  readonly colliders: ReadonlyArray<HairswingCollider>;
  /** The file's collider groups (read-only), as three-vrm's manager lists them. */
  readonly colliderGroups: ReadonlyArray<HairswingColliderGroup>;
  /** The object whose space the hair is simulated in (setCenter), or null for world space. */
  readonly center: Object3DLike | null;
  /** Simulates the hair in `object`'s space (null: world), as three-vrm's spring bone center:
   *  the hair moves with that object without lagging and swings only from motion relative to
   *  it. Restarts the hair at rest under the current pose. */
  setCenter(object: Object3DLike | null): void;
  /** The manager this one replaced on the VRM (put back by dispose), or null. */
  readonly replacedManager: unknown;
  mode: HairswingMode;
  readonly config: HairswingConfig;
  readonly stats: HairswingStats;

  /** Advances the hair by delta seconds (finite, >= 0) and writes the joint rotations into the bones. */
  update(delta: number): void;
  /** Hair at rest under the current pose; bones back to their rest rotation. */
  reset(): void;
  /** As reset(): hairswing keeps the file's rest pose (three-vrm takes the current pose as rest). */
  setInitState(): void;
  /** Changes options; rebuilds the solver and resets the hair. */
  configure(changes: Partial<HairswingConfig>): void;
  /** 16 hex digits of the solver state (the same value natively for the same input). */
  stateHash(): string;
  /** World positions of the joints' segment ends after the last step, 3 floats per joint. */
  tails(): Float32Array;
  /** The driver matrices last passed to the solver, 16 floats each (hairswing's axes). */
  driverMatrices(): Float32Array;
  /** Frees the solver and restores the VRM's own manager; later calls throw. */
  dispose(): void;
}

/** arc's named settings: pass one to fromVRM's options or configure(), e.g.
 *  `springs.configure(ARC_SETTINGS.follow)`. */
export const ARC_SETTINGS: Readonly<{
  article: Readonly<Pick<HairswingConfig, 'arcLiveliness' | 'arcStiffness' | 'arcFollow'>>;
  lively: Readonly<Pick<HairswingConfig, 'arcLiveliness' | 'arcStiffness' | 'arcFollow'>>;
  follow: Readonly<Pick<HairswingConfig, 'arcLiveliness' | 'arcStiffness' | 'arcFollow'>>;
}>;
