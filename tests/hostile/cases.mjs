// The hostile-input corpus: every case is one small file (or a few) with one thing wrong, built
// from the project's own demo avatar (written by `hairswing make-demo-avatar`) or from scratch.
// Families follow the red-team report of issue 16: JSON types, numbers, resource bombs, paths,
// solver stress, fit on hostile meshes, undo records, --wear files, clips and BVH.
//
// A case is { name, family, kind, files: {name: Buffer|string}, setup?(dir) }; `kind` selects the
// commands the runner puts it through (see run_hostile.mjs). Nothing here is copied from
// ../shared; the generator needs only the hairswing binary.
import { readGlb, writeGlb, addFloatAccessor, setComponent } from "./glb.mjs";

const clone = (o) => structuredClone(o);

// Deeply nested JSON text: `depth` arrays (or objects) around a zero.
function nested(depth, kind = "array") {
  if (kind === "array") return "[".repeat(depth) + "0" + "]".repeat(depth);
  return '{"a":'.repeat(depth) + "0" + "}".repeat(depth);
}

// --- bases ----------------------------------------------------------------------------------

function humanNode(doc, bone) {
  return doc.extensions.VRMC_vrm.humanoid.humanBones[bone].node;
}

function meshIndex(doc, name) {
  return doc.meshes.findIndex((m) => m.name === name);
}

/// A clip file: the demo avatar itself with a 1 s head-and-hips animation (humanoid from VRMC_vrm).
function withAnimation(base, opts = {}) {
  const doc = clone(base.json);
  const glb = { bin: Buffer.from(base.bin) };
  const times = opts.times ?? [0, 0.5, 1];
  const head = humanNode(doc, "head");
  const hips = humanNode(doc, "hips");
  const input = addFloatAccessor(doc, glb, times, "SCALAR",
                                 { min: [times.reduce((a, b) => Math.min(a, b))], max: [times.reduce((a, b) => Math.max(a, b))] });
  const rot = opts.rotations ?? times.flatMap((_, i) => (i % 2 ? [0, 0.3826834, 0, 0.9238795] : [0, 0, 0, 1]));
  const rotOut = addFloatAccessor(doc, glb, rot, "VEC4");
  const hipsT = doc.nodes[hips].translation ?? [0, 1, 0];
  const tr = opts.translations ?? times.flatMap((_, i) => [hipsT[0], hipsT[1] + (i % 2 ? 0.02 : 0), hipsT[2]]);
  const trOut = addFloatAccessor(doc, glb, tr, "VEC3");
  doc.animations = [{
    name: "Sway",
    samplers: [{ input, output: rotOut, interpolation: "LINEAR" },
               { input, output: trOut, interpolation: "LINEAR" }],
    channels: [{ sampler: 0, target: { node: head, path: "rotation" } },
               { sampler: 1, target: { node: hips, path: "translation" } }],
  }];
  if (opts.edit) opts.edit(doc, glb);
  return { json: doc, bin: glb.bin };
}

/// VRM Animation: the same nodes and clip, humanoid named by VRMC_vrm_animation, no VRMC_vrm.
function asVrma(clip, edit) {
  const doc = clone(clip.json);
  const humanBones = {};
  for (const [bone, v] of Object.entries(doc.extensions.VRMC_vrm.humanoid.humanBones))
    humanBones[bone] = { node: v.node };
  delete doc.extensions.VRMC_vrm;
  delete doc.extensions.VRMC_springBone;
  doc.extensionsUsed = ["VRMC_vrm_animation"];
  doc.extensions.VRMC_vrm_animation = { specVersion: "1.0", humanoid: { humanBones } };
  if (edit) edit(doc);
  return { json: doc, bin: clip.bin };
}

/// A BVH text with the CMU joint names (so the built-in humanoid map finds it).
function bvh({ frames = 3, frameTime = 1 / 30, offsetScale = 1, values, extraJoints = "", framesLine } = {}) {
  const j = (name, off, body) =>
    `JOINT ${name}\n{\nOFFSET ${off.map((v) => v * offsetScale).join(" ")}\nCHANNELS 3 Zrotation Xrotation Yrotation\n${body}}\n`;
  const end = "End Site\n{\nOFFSET 0 5 0\n}\n";
  const leg = (s) => j(`${s}UpLeg`, [s === "Left" ? 10 : -10, 0, 0], j(`${s}Leg`, [0, -40, 0], j(`${s}Foot`, [0, -40, 0], end)));
  const arm = (s) => j(`${s}Shoulder`, [s === "Left" ? 5 : -5, 10, 0], j(`${s}Arm`, [s === "Left" ? 10 : -10, 0, 0],
                       j(`${s}ForeArm`, [25, 0, 0], j(`${s}Hand`, [25, 0, 0], end))));
  const head = j("Neck", [0, 15, 0], j("Head", [0, 10, 0], end));
  const spine = j("Spine", [0, 10, 0], j("Spine1", [0, 15, 0], head + arm("Left") + arm("Right") + extraJoints));
  const channels = 6 + 3 * 18;  // extra joints carry CHANNELS 0
  let text = `HIERARCHY\nROOT Hips\n{\nOFFSET 0 90 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n` +
             spine + leg("Left") + leg("Right") + `}\nMOTION\n${framesLine ?? `Frames: ${frames}`}\nFrame Time: ${frameTime}\n`;
  for (let f = 0; f < frames; f++) {
    const row = values ? values(f, channels) : Array.from({ length: channels }, (_, c) => (c === 1 ? 90 : (f * 7 + c) % 20));
    text += row.join(" ") + "\n";
  }
  return text;
}

/// VRM 0.x form of a tiny scene (the project's broken-input base), for the VRM0 families.
function vrm0Base() {
  const data = Buffer.alloc(36 + 8 + 128);
  [0, 0, 0, 1, 0, 0, 0, 1, 0].forEach((v, i) => data.writeFloatLE(v, i * 4));
  [0, 1, 2].forEach((v, i) => data.writeUInt16LE(v, 36 + i * 2));
  const ident = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  [...ident, ...ident].forEach((v, i) => data.writeFloatLE(v, 44 + i * 4));
  return {
    json: {
      asset: { version: "2.0" }, scene: 0, scenes: [{ nodes: [0] }],
      extensionsUsed: ["VRM"],
      nodes: [{ name: "Head", children: [1, 3], translation: [0, 1.5, 0] },
              { name: "Hair1", children: [2], translation: [0, 0.1, -0.05] },
              { name: "Hair2", translation: [0, -0.1, 0] },
              { name: "Mesh", mesh: 0, skin: 0 }],
      meshes: [{ name: "tri", primitives: [{ attributes: { POSITION: 0 }, indices: 1 }] }],
      skins: [{ joints: [0, 1], inverseBindMatrices: 2 }],
      accessors: [{ bufferView: 0, componentType: 5126, count: 3, type: "VEC3", min: [0, 0, 0], max: [1, 1, 0] },
                  { bufferView: 1, componentType: 5123, count: 3, type: "SCALAR" },
                  { bufferView: 2, componentType: 5126, count: 2, type: "MAT4" }],
      bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: 36 }, { buffer: 0, byteOffset: 36, byteLength: 6 },
                    { buffer: 0, byteOffset: 44, byteLength: 128 }],
      buffers: [{ byteLength: data.length }],
      extensions: { VRM: {
        specVersion: "0.0", meta: { title: "t", licenseName: "CC0" },
        humanoid: { humanBones: [{ bone: "head", node: 0 }] },
        secondaryAnimation: {
          boneGroups: [{ bones: [1], stiffiness: 1, dragForce: 0.4, gravityPower: 0, hitRadius: 0.02, colliderGroups: [0] }],
          colliderGroups: [{ node: 0, colliders: [{ offset: { x: 0, y: 0, z: 0 }, radius: 0.1 }] }] },
      } },
    },
    bin: data,
  };
}

// --- the corpus -----------------------------------------------------------------------------

/// Builds every case. `demo` is the ponytail demo avatar's bytes, `fitted` the same after
/// `hairswing fit --colliders` (its undo records are what the undo family tampers with).
export function buildCases(demoBytes, fittedBytes) {
  const demo = readGlb(demoBytes);
  const fitted = readGlb(fittedBytes);
  const cases = [];
  const add = (family, kind, name, files, extra = {}) => cases.push({ family, kind, name, files, ...extra });
  const glbOf = (base, edit, jsonText) => {
    const doc = clone(base.json);
    const bin = Buffer.from(base.bin);
    if (edit) edit(doc, bin);
    return writeGlb(doc, bin, jsonText ? jsonText(doc) : undefined);
  };
  const avatar = (family, name, edit, jsonText) =>
    add(family, "avatar", name, { "a.vrm": glbOf(demo, edit, jsonText) });

  const D = demo.json;
  const head = humanNode(D, "head");
  const ponytail = meshIndex(D, "Ponytail");
  const hairJoint = D.extensions.VRMC_springBone.springs[0].joints[1].node;
  const sb = (d) => d.extensions.VRMC_springBone;

  // JSON types: a field of the wrong type, length or range.
  const types = [
    ["translation_strings", (d) => { d.nodes[head].translation = ["a", "b", "c"]; }],
    ["translation_null", (d) => { d.nodes[head].translation = null; }],
    ["translation_two", (d) => { d.nodes[head].translation = [1, 2]; }],
    ["rotation_three", (d) => { d.nodes[head].rotation = [0, 0, 0]; }],
    ["rotation_object", (d) => { d.nodes[head].rotation = { x: 0 }; }],
    ["scale_string", (d) => { d.nodes[head].scale = "big"; }],
    ["matrix_fifteen", (d) => { d.nodes[hairJoint].matrix = Array(15).fill(0); }],
    ["matrix_and_trs", (d) => { d.nodes[hairJoint].matrix = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]; }],
    ["children_strings", (d) => { d.nodes[head].children = (d.nodes[head].children || []).map(String); }],
    ["children_negative", (d) => { d.nodes[head].children = [-1]; }],
    ["children_object", (d) => { d.nodes[head].children = { 0: 1 }; }],
    ["mesh_fraction", (d) => { d.nodes.find((n) => n.mesh !== undefined).mesh = 0.5; }],
    ["mesh_true", (d) => { d.nodes.find((n) => n.mesh !== undefined).mesh = true; }],
    ["mesh_2p32", (d) => { d.nodes.find((n) => n.mesh !== undefined).mesh = 4294967296; }],
    ["mesh_negative", (d) => { d.nodes.find((n) => n.mesh !== undefined).mesh = -1; }],
    ["skin_string", (d) => { d.nodes.find((n) => n.skin !== undefined).skin = "0"; }],
    ["nodes_object", (d) => { d.nodes = { a: 1 }; }],
    ["node_not_object", (d) => { d.nodes[0] = 7; }],
    ["scene_out_of_range", (d) => { d.scene = 5; }],
    ["scenes_nodes_string", (d) => { d.scenes[0].nodes = "0"; }],
    ["extensions_required_unknown", (d) => { d.extensionsRequired = ["EXT_made_up"]; }],
    ["extensions_array", (d) => { d.extensions = [1]; }],
    ["node_extensions_string", (d) => { d.nodes[head].extensions = "x"; }],
    ["accessor_count_string", (d) => { d.accessors[0].count = "3"; }],
    ["accessor_count_negative", (d) => { d.accessors[0].count = -1; }],
    ["accessor_count_4e9", (d) => { d.accessors[0].count = 4e9; }],
    ["accessor_component_type", (d) => { d.accessors[0].componentType = 1; }],
    ["accessor_type_vec7", (d) => { d.accessors[0].type = "VEC7"; }],
    ["accessor_view_out_of_range", (d) => { d.accessors[0].bufferView = 999; }],
    ["accessor_offset_huge", (d) => { d.accessors[0].byteOffset = 1e12; }],
    ["view_length_huge", (d) => { d.bufferViews[0].byteLength = 1e12; }],
    ["view_stride_odd", (d) => { d.bufferViews[0].byteStride = 3; }],
    ["view_buffer_string", (d) => { d.bufferViews[0].buffer = "0"; }],
    ["buffer_length_string", (d) => { d.buffers[0].byteLength = "big"; }],
    ["asset_missing", (d) => { delete d.asset; }],
    ["asset_version_3", (d) => { d.asset.version = "3.0"; }],
    ["primitives_empty", (d) => { d.meshes[0].primitives = []; }],
    ["attributes_empty", (d) => { d.meshes[0].primitives[0].attributes = {}; }],
    ["position_string", (d) => { d.meshes[0].primitives[0].attributes.POSITION = "0"; }],
    ["indices_out_of_range", (d) => { d.meshes[0].primitives[0].indices = 999; }],
    ["material_out_of_range", (d) => { d.meshes[0].primitives[0].material = 999; }],
    ["material_not_object", (d) => { d.materials[0] = 5; }],
    ["pbr_number", (d) => { d.materials[0].pbrMetallicRoughness = 5; }],
    ["base_color_string", (d) => { d.materials[0].pbrMetallicRoughness = { baseColorFactor: [1, 1, 1, "x"] }; }],
    ["alpha_mode_number", (d) => { d.materials[0].alphaMode = 5; }],
    ["skin_joints_strings", (d) => { d.skins[0].joints = d.skins[0].joints.map(String); }],
    ["skin_joint_huge", (d) => { d.skins[0].joints[0] = 99999; }],
    ["humanoid_array", (d) => { d.extensions.VRMC_vrm.humanoid = []; }],
    ["human_bone_out_of_range", (d) => { d.extensions.VRMC_vrm.humanoid.humanBones.head.node = 999; }],
    ["human_bone_string", (d) => { d.extensions.VRMC_vrm.humanoid.humanBones.head = "x"; }],
    ["meta_number", (d) => { d.extensions.VRMC_vrm.meta = 5; }],
    ["spring_joints_empty", (d) => { sb(d).springs[0].joints = []; }],
    ["spring_joints_missing", (d) => { delete sb(d).springs[0].joints; }],
    ["spring_joint_node_string", (d) => { sb(d).springs[0].joints[0].node = "1"; }],
    ["spring_joint_node_huge", (d) => { sb(d).springs[0].joints[0].node = 4294967296; }],
    ["collider_shape_empty", (d) => { sb(d).colliders[0].shape = {}; }],
    ["collider_radius_string", (d) => { sb(d).colliders[0].shape = { sphere: { offset: [0, 0, 0], radius: "x" } }; }],
    ["collider_offset_short", (d) => { sb(d).colliders[0].shape = { sphere: { offset: [0, 0], radius: 0.1 } }; }],
    ["collider_group_index_huge", (d) => { sb(d).colliderGroups[0].colliders = [99]; }],
    ["spring_center_out_of_range", (d) => { sb(d).springs[0].center = 999; }],
    ["springbone_array", (d) => { d.extensions.VRMC_springBone = []; }],
    ["springbone_spec_version", (d) => { sb(d).specVersion = "9.9"; }],
    ["constraint_source_out_of_range", (d) => {
      d.nodes[hairJoint].extensions = { VRMC_node_constraint: { specVersion: "1.0", constraint: { roll: { source: 999, rollAxis: "X" } } } };
    }],
    ["constraint_axis_bad", (d) => {
      d.nodes[hairJoint].extensions = { VRMC_node_constraint: { specVersion: "1.0", constraint: { roll: { source: head, rollAxis: "Q" } } } };
    }],
    ["constraint_self_source", (d) => {
      d.nodes[hairJoint].extensions = { VRMC_node_constraint: { specVersion: "1.0", constraint: { aim: { source: hairJoint, aimAxis: "PositiveY" } } } };
    }],
    ["texture_source_out_of_range", (d) => { d.textures = [{ source: 999 }]; d.materials[0].pbrMetallicRoughness = { baseColorTexture: { index: 0 } }; }],
    ["image_uri_number", (d) => { d.images = [{ uri: 5 }]; }],
    ["names_with_control_bytes", (d) => {
      const evil = "x\n\u001b[2J\u0007\r\u0000y";
      d.nodes.forEach((n) => { n.name = evil; });
      d.meshes.forEach((m) => { m.name = evil; });
      d.materials.forEach((m) => { m.name = evil; });
      sb(d).springs.forEach((s) => { s.name = evil; });
    }],
    ["animation_target_string", (d) => { d.animations = [{ channels: [{ sampler: 0, target: { node: "0", path: "rotation" } }], samplers: [{ input: 0, output: 0 }] }]; }],
  ];
  // Fields of the wrong type must be refused on read, not dropped; these few are legal or
  // harmless and load (with a warning where inspect has one).
  const lenient = new Set(["asset_version_3", "buffer_length_string", "constraint_self_source", "matrix_and_trs",
                           "names_with_control_bytes", "spring_joints_empty",
                           "spring_joints_missing", "springbone_spec_version"]);
  for (const [name, edit] of types) {
    avatar("json-types", name, edit);
    if (!lenient.has(name)) cases[cases.length - 1].mustReject = true;
  }

  // VRM 0.x documents with wrong types or ranges.
  const v0 = vrm0Base();
  const vrm0 = [
    ["base_scene", () => {}],  // no humanoid or hair: fit and validate-clips refuse it, rightly
    ["secondary_animation_array", (d) => { d.extensions.VRM.secondaryAnimation = []; }],
    ["humanoid_array", (d) => { d.extensions.VRM.humanoid = []; }],
    ["human_bones_object", (d) => { d.extensions.VRM.humanoid.humanBones = { head: 0 }; }],
    ["human_bone_node_string", (d) => { d.extensions.VRM.humanoid.humanBones[0].node = "0"; }],
    ["bone_groups_string", (d) => { d.extensions.VRM.secondaryAnimation.boneGroups = "x"; }],
    ["bones_string", (d) => { d.extensions.VRM.secondaryAnimation.boneGroups[0].bones = ["1"]; }],
    ["collider_offset_array", (d) => { d.extensions.VRM.secondaryAnimation.colliderGroups[0].colliders[0].offset = [0, 0, 0]; }],
    ["collider_radius_huge", (d) => { d.extensions.VRM.secondaryAnimation.colliderGroups[0].colliders[0].radius = 3e38; }],
    ["collider_group_node_out_of_range", (d) => { d.extensions.VRM.secondaryAnimation.colliderGroups[0].node = 99; }],
    ["bone_group_collider_groups_bad", (d) => { d.extensions.VRM.secondaryAnimation.boneGroups[0].colliderGroups = [7]; }],
    ["center_out_of_range", (d) => { d.extensions.VRM.secondaryAnimation.boneGroups[0].center = 50; }],
    ["stiffness_huge", (d) => { d.extensions.VRM.secondaryAnimation.boneGroups[0].stiffiness = 1e30; }],
    ["meta_array", (d) => { d.extensions.VRM.meta = [1]; }],
    ["blend_shape_master_bad", (d) => { d.extensions.VRM.blendShapeMaster = { blendShapeGroups: [{ binds: [{ mesh: 99, index: 7, weight: 100 }] }] }; }],
  ];
  const vrm0Lenient = new Set(["base_scene", "collider_radius_huge", "stiffness_huge", "blend_shape_master_bad"]);
  for (const [name, edit] of vrm0) {
    add("vrm0", "avatar", name, { "a.vrm": glbOf(v0, edit) });
    if (!vrm0Lenient.has(name)) cases[cases.length - 1].mustReject = true;
  }

  // Numbers: finite but absurd, zero scales, non-unit rotations, huge parameters.
  const numbers = [
    ["translation_1e30", (d) => { d.nodes[hairJoint].translation = [0, 1e30, 0]; }],
    ["translation_1e30_chain", (d) => { for (const j of sb(d).springs[0].joints) d.nodes[j.node].translation = [1e30, 1e30, 1e30]; }],
    ["translation_3e38", (d) => { d.nodes[head].translation = [3e38, 0, 0]; }],
    ["translation_denormal", (d) => { d.nodes[hairJoint].translation = [1e-45, 1e-45, 1e-45]; }],
    ["scale_1e30", (d) => { d.nodes[hairJoint].scale = [1e30, 1e30, 1e30]; }],
    ["scale_zero_head", (d) => { d.nodes[head].scale = [0, 0, 0]; }],
    ["scale_zero_hair", (d) => { d.nodes[hairJoint].scale = [0, 0, 0]; }],
    ["scale_negative", (d) => { d.nodes[head].scale = [-1, 1, 1]; }],
    ["scale_tiny", (d) => { d.nodes[head].scale = [1e-30, 1e-30, 1e-30]; }],
    ["rotation_1e20", (d) => { d.nodes[hairJoint].rotation = [1e20, 0, 0, 0]; }],
    ["rotation_zero", (d) => { d.nodes[hairJoint].rotation = [0, 0, 0, 0]; }],
    ["rotation_tiny", (d) => { d.nodes[hairJoint].rotation = [1e-30, 0, 0, 0]; }],
    ["rotation_length_2", (d) => { d.nodes[hairJoint].rotation = [0, 0, 0, 2]; }],
    ["matrix_singular", (d) => { d.nodes[hairJoint].matrix = Array(16).fill(0); delete d.nodes[hairJoint].translation; delete d.nodes[hairJoint].rotation; }],
    ["matrix_1e30", (d) => { d.nodes[hairJoint].matrix = [1e30, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]; delete d.nodes[hairJoint].translation; delete d.nodes[hairJoint].rotation; }],
    ["gravity_1e30", (d) => { for (const j of sb(d).springs[0].joints) j.gravityPower = 1e30; }],
    ["stiffness_3e38", (d) => { for (const j of sb(d).springs[0].joints) j.stiffness = 3e38; }],
    ["stiffness_negative", (d) => { for (const j of sb(d).springs[0].joints) j.stiffness = -5; }],
    ["drag_1e30", (d) => { for (const j of sb(d).springs[0].joints) j.dragForce = 1e30; }],
    ["drag_negative", (d) => { for (const j of sb(d).springs[0].joints) j.dragForce = -3; }],
    ["hit_radius_3e38", (d) => { for (const j of sb(d).springs[0].joints) j.hitRadius = 3e38; }],
    ["gravity_dir_zero", (d) => { for (const j of sb(d).springs[0].joints) j.gravityDir = [0, 0, 0]; }],
    ["collider_radius_3e38", (d) => { sb(d).colliders[0].shape = { sphere: { offset: [0, 0, 0], radius: 3e38 } }; }],
    ["collider_offset_1e30", (d) => { sb(d).colliders[0].shape = { sphere: { offset: [1e30, 0, 0], radius: 0.1 } }; }],
    ["number_1e400", (d) => { d.nodes[hairJoint].translation = [0, 0, 0]; }, (d) => JSON.stringify(d).replace('"translation":[0,0,0]', '"translation":[0,1e400,0]')],
    ["number_long_digits", (d) => { d.nodes[hairJoint].translation = [0, 0, 0]; }, (d) => JSON.stringify(d).replace('"translation":[0,0,0]', `"translation":[0,0.${"1".repeat(5000)},0]`)],
  ];
  for (const [name, edit, text] of numbers) avatar("numbers", name, edit, text);

  // Binary numbers inside the hair mesh and skin.
  const posAcc = D.meshes[ponytail].primitives[0].attributes.POSITION;
  const jointsAcc = D.meshes[ponytail].primitives[0].attributes.JOINTS_0;
  const weightsAcc = D.meshes[ponytail].primitives[0].attributes.WEIGHTS_0;
  const ibm = D.skins[0].inverseBindMatrices;
  const binary = [
    ["hair_vertex_1e20", (d, b) => setComponent(d, b, posAcc, 5, 1, 1e20)],
    ["hair_vertex_3e38_all", (d, b) => { for (let i = 0; i < d.accessors[posAcc].count; i += 97) setComponent(d, b, posAcc, i, 0, 3e38); }],
    ["hair_vertex_nan", (d, b) => setComponent(d, b, posAcc, 7, 2, NaN)],
    ["hair_vertices_identical", (d, b) => { for (let i = 0; i < d.accessors[posAcc].count; i++) for (let c = 0; c < 3; c++) setComponent(d, b, posAcc, i, c, 0.5); }],
    ["joints0_past_skin", (d, b) => setComponent(d, b, jointsAcc, 3, 0, 250)],
    ["weights_nan", (d, b) => setComponent(d, b, weightsAcc, 3, 0, NaN)],
    ["weights_negative", (d, b) => { setComponent(d, b, weightsAcc, 3, 0, -5); setComponent(d, b, weightsAcc, 3, 1, 6); }],
    ["weights_zero", (d, b) => { for (let c = 0; c < 4; c++) setComponent(d, b, weightsAcc, 3, c, 0); }],
    ["ibm_zero", (d, b) => { for (let c = 0; c < 16; c++) setComponent(d, b, ibm, 0, c, 0); }],
    ["ibm_1e30", (d, b) => setComponent(d, b, ibm, 1, 0, 1e30)],
    ["indices_past_vertices", (d, b) => { const ia = d.meshes[ponytail].primitives[0].indices; setComponent(d, b, ia, 4, 0, 60000); }],
    ["indices_degenerate", (d, b) => { const ia = d.meshes[ponytail].primitives[0].indices; for (let i = 0; i < d.accessors[ia].count; i++) setComponent(d, b, ia, i, 0, 0); }],
    ["no_indices", (d) => { delete d.meshes[ponytail].primitives[0].indices; }],
    ["hair_one_vertex", (d) => { d.accessors[posAcc].count = 1; for (const k of ["NORMAL", "JOINTS_0", "WEIGHTS_0"]) d.accessors[d.meshes[ponytail].primitives[0].attributes[k]].count = 1; delete d.meshes[ponytail].primitives[0].indices; }],
  ];
  for (const [name, edit] of binary) avatar("fit-mesh", name, edit);

  // Resource bombs: nesting, long chains, huge declared sizes.
  const deep = 100000;
  const bombs = [
    ["nested_node_extras", (d) => { d.nodes[0].extras = "@NEST@"; }],
    ["nested_material_extras", (d) => { d.materials[0].extras = "@NEST@"; }],
    ["nested_meta", (d) => { d.extensions.VRMC_vrm.meta.extras = "@NEST@"; }],
    ["nested_unknown_extension", (d) => { d.extensions.EXT_unknown = "@NEST@"; d.extensionsUsed.push("EXT_unknown"); }],
    ["nested_asset_extras", (d) => { d.asset.extras = "@NEST@"; }],
    ["nested_spring_extras", (d) => { sb(d).springs[0].extras = "@NEST@"; }],
    ["nested_mesh_extension", (d) => { d.meshes[0].extensions = { EXT_x: "@NEST@" }; }],
  ];
  for (const [name, edit] of bombs) {
    avatar("bombs", name, edit, (d) => JSON.stringify(d).replace('"@NEST@"', nested(deep)));
  }
  avatar("bombs", "nested_objects", (d) => { d.nodes[0].extras = "@NEST@"; },
         (d) => JSON.stringify(d).replace('"@NEST@"', nested(deep, "object")));
  avatar("bombs", "nested_at_top", null, (d) => JSON.stringify(d).replace(/}$/, `,"extras":${nested(deep)}}`));
  avatar("bombs", "unclosed_nesting", null, (d) => JSON.stringify(d).replace(/}$/, `,"extras":${"[".repeat(deep)}}`));
  // A 100,000-deep node chain hanging under the head.
  avatar("bombs", "deep_node_chain", (d) => {
    const first = d.nodes.length;
    for (let i = 0; i < 100000; i++) d.nodes.push({ children: i + 1 < 100000 ? [first + i + 1] : [], translation: [0, 0.001, 0] });
    d.nodes[head].children = [...(d.nodes[head].children || []), first];
  });
  avatar("bombs", "deep_node_chain_spring", (d) => {
    const first = d.nodes.length;
    const n = 20000;
    for (let i = 0; i < n; i++) d.nodes.push({ children: i + 1 < n ? [first + i + 1] : [], translation: [0, -0.001, 0] });
    d.nodes[head].children = [...(d.nodes[head].children || []), first];
    sb(d).springs.push({ joints: Array.from({ length: n }, (_, i) => ({ node: first + i })) });
  });
  avatar("bombs", "wide_nodes", (d) => {
    const first = d.nodes.length;
    for (let i = 0; i < 200000; i++) d.nodes.push({});
    for (let i = 0; i < 200000; i++) d.scenes[0].nodes.push(first + i);
  });
  avatar("bombs", "constraint_chain", (d) => {
    const first = d.nodes.length;
    const n = 200000;
    for (let i = 0; i < n; i++)
      d.nodes.push({ extensions: { VRMC_node_constraint: { specVersion: "1.0", constraint: { rotation: { source: i === 0 ? head : first + i - 1 } } } } });
    for (let i = 0; i < n; i++) d.scenes[0].nodes.push(first + i);
    d.extensionsUsed.push("VRMC_node_constraint");
  });
  // Constraints are ordered when a clip plays (measure --motion, validate-clips, retarget):
  // 70,000 chained (past the limit) and 30,000 chained down a 30,000-deep hierarchy.
  for (const [name, n, nested] of [["constraint_chain_70k_with_clip", 70000, false],
                                   ["constraint_chain_deep_30k_with_clip", 30000, true]]) {
    const doc = clone(D);
    const first = doc.nodes.length;
    for (let i = 0; i < n; i++) {
      doc.nodes.push({ children: nested && i + 1 < n ? [first + i + 1] : [],
                       extensions: { VRMC_node_constraint: { specVersion: "1.0", constraint: { rotation: { source: i === 0 ? head : first + i - 1 } } } } });
    }
    if (nested) doc.scenes[0].nodes.push(first);
    else for (let i = 0; i < n; i++) doc.scenes[0].nodes.push(first + i);
    doc.extensionsUsed.push("VRMC_node_constraint");
    add("bombs", "clip", name, { "a.vrm": writeGlb(doc, Buffer.from(demo.bin)), "c.glb": null });
  }
  // 5 million small values in an extras (about 10 MB of JSON; 1 GB to parse before the value
  // count refused it).
  avatar("bombs", "json_5m_values", (d) => {
    d.extras = { bomb: new Array(5000000).fill(0) };
  });
  avatar("bombs", "accessor_50m_eight_primitives", (d) => {
    d.accessors.push({ componentType: 5126, count: 50000000, type: "VEC3" });
    const acc = d.accessors.length - 1;
    d.meshes.push({ name: "bomb", primitives: Array.from({ length: 8 }, () => ({ attributes: { POSITION: acc } })) });
    d.nodes.push({ mesh: d.meshes.length - 1 });
    d.scenes[0].nodes.push(d.nodes.length - 1);
  });
  avatar("bombs", "missing_buffers_40x256m", (d) => {
    for (let i = 0; i < 40; i++) {
      d.buffers.push({ uri: `missing${i}.bin`, byteLength: 256 * 1024 * 1024 });
      d.bufferViews.push({ buffer: d.buffers.length - 1, byteLength: 256 * 1024 * 1024 });
      d.accessors.push({ bufferView: d.bufferViews.length - 1, componentType: 5126, count: 22369621, type: "VEC3" });
      d.meshes.push({ name: `m${i}`, primitives: [{ attributes: { POSITION: d.accessors.length - 1 } }] });
      d.nodes.push({ mesh: d.meshes.length - 1 });
      d.scenes[0].nodes.push(d.nodes.length - 1);
    }
  });
  avatar("bombs", "many_springs", (d) => {
    for (let i = 0; i < 5000; i++) sb(d).springs.push({ joints: sb(d).springs[0].joints.map((j) => ({ ...j })) });
  });
  avatar("bombs", "many_colliders", (d) => {
    for (let i = 0; i < 20000; i++) sb(d).colliders.push({ node: head, shape: { sphere: { offset: [0, 0, 0], radius: 0.01 } } });
    sb(d).colliderGroups[0].colliders = sb(d).colliders.map((_, i) => i);
  });
  avatar("bombs", "long_string", (d) => { d.nodes[0].name = "n".repeat(20000000); });
  avatar("bombs", "data_uri_huge_declared", (d) => { d.buffers.push({ uri: "data:application/octet-stream;base64,AAAA", byteLength: 1e15 }); });

  // Paths: buffers and images that point outside the asset's folder, or at special files.
  const extBuffer = (uri) => (d) => {
    d.buffers.push({ uri, byteLength: 16 });
    d.bufferViews.push({ buffer: d.buffers.length - 1, byteLength: 12 });
    d.accessors.push({ bufferView: d.bufferViews.length - 1, componentType: 5126, count: 1, type: "VEC3" });
    d.meshes.push({ name: "ext", primitives: [{ attributes: { POSITION: d.accessors.length - 1 } }] });
    d.nodes.push({ mesh: d.meshes.length - 1 });
    d.scenes[0].nodes.push(d.nodes.length - 1);
  };
  const extImage = (uri) => (d) => { d.images = [{ uri }]; d.textures = [{ source: 0 }]; d.materials[0].pbrMetallicRoughness = { baseColorTexture: { index: 0 } }; };
  const paths = [
    ["buffer_dotdot", extBuffer("../../../../../../etc/passwd")],
    ["buffer_dotdot_percent", extBuffer("%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd")],
    ["buffer_absolute", extBuffer("/etc/passwd")],
    ["buffer_file_url", extBuffer("file:///etc/passwd")],
    ["buffer_directory", extBuffer(".")],
    ["buffer_dev_zero", extBuffer("/dev/zero")],
    ["buffer_fifo", extBuffer("fifo.bin")],
    ["buffer_symlink_out", extBuffer("link.bin")],
    ["buffer_nul", extBuffer("a%00b.bin")],
    ["buffer_long_uri", extBuffer("x".repeat(100000))],
    ["buffer_bad_base64", extBuffer("data:application/octet-stream;base64,@@@@")],
    ["buffer_data_short", extBuffer("data:application/octet-stream;base64,AAAA")],
    ["image_dotdot", extImage("../../../../../../etc/passwd")],
    ["image_absolute", extImage("/etc/passwd")],
    ["image_percent", extImage("..%2f..%2f..%2f..%2fetc%2fpasswd")],
    ["image_dev_zero", extImage("/dev/zero")],
  ];
  for (const [name, edit] of paths) avatar("paths", name, edit);
  for (const c of cases) {
    if (c.name === "buffer_fifo") c.setup = { fifo: "fifo.bin" };
    if (c.name === "buffer_symlink_out") c.setup = { symlink: ["link.bin", "/etc/passwd"] };
  }

  // Solver stress: degenerate chains and colliders that every solver must survive.
  const solver = [
    ["zero_length_bones", (d) => { for (const j of sb(d).springs[0].joints.slice(1)) d.nodes[j.node].translation = [0, 0, 0]; }],
    ["joint_inside_huge_collider", (d) => { sb(d).colliders[0].shape = { sphere: { offset: [0, 0, 0], radius: 10 } }; }],
    ["collider_on_joint", (d) => { sb(d).colliders[0].node = hairJoint; }],
    ["inside_collider", (d) => { sb(d).colliders[0].shape = { sphere: { offset: [0, 0, 0], radius: 0.5, inside: true } }; }],
    ["capsule_zero_length", (d) => { sb(d).colliders[0].shape = { capsule: { offset: [0, 0, 0], tail: [0, 0, 0], radius: 0.05 } }; }],
    ["hit_radius_10", (d) => { for (const j of sb(d).springs[0].joints) j.hitRadius = 10; }],
    ["center_is_joint", (d) => { sb(d).springs[0].center = hairJoint; }],
    ["center_is_root", (d) => { sb(d).springs[0].center = 0; }],
    ["joint_twice", (d) => { const js = sb(d).springs[0].joints; js.splice(2, 0, { ...js[1] }); }],
    ["joint_in_two_springs", (d) => { sb(d).springs.push({ joints: sb(d).springs[0].joints.map((j) => ({ ...j })) }); }],
    ["not_a_chain", (d) => { sb(d).springs[0].joints = [{ node: head }, { node: humanNode(d, "leftHand") }]; }],
    ["reversed_chain", (d) => { sb(d).springs[0].joints.reverse(); }],
    ["one_joint_spring", (d) => { sb(d).springs[0].joints = sb(d).springs[0].joints.slice(0, 1); }],
    ["spring_on_hips", (d) => { sb(d).springs[0].joints = [{ node: humanNode(d, "hips") }, { node: humanNode(d, "spine") }]; }],
  ];
  for (const [name, edit] of solver) avatar("solver", name, edit);

  // Undo records of an earlier fit, tampered with.
  const undo = (d) => d.extensions.HAIRSWING_fit_undo;
  const cundo = (d) => d.extensions.HAIRSWING_collider_fit_undo;
  const undos = [
    ["valid", () => {}],
    ["short_joints", (d) => { undo(d).primitives[0].joints = [1, 2]; }],
    ["short_weights", (d) => { undo(d).primitives[0].weights = [1]; }],
    ["joint_out_of_range", (d) => { undo(d).primitives[0].joints[0] = 99999; }],
    ["weights_strings", (d) => { undo(d).primitives[0].weights = undo(d).primitives[0].weights.map(String); }],
    ["mesh_out_of_range", (d) => { undo(d).primitives[0].mesh = 999; }],
    ["nodes_before_huge", (d) => { undo(d).nodes_before = 1e12; }],
    ["nodes_before_negative", (d) => { undo(d).nodes_before = -4; }],
    ["node_skin_key", (d) => { undo(d).node_skin = { 99999: 0, x: 1 }; }],
    ["children_key", (d) => { undo(d).children = { 99999: [1], 0: [99999] }; }],
    ["removed_spring_bad_joint", (d) => { undo(d).removed_springs[0].spring.joints[0][0] = 99999; }],
    ["removed_spring_short_row", (d) => { undo(d).removed_springs[0].spring.joints[0] = [19]; }],
    ["removed_spring_index_huge", (d) => { undo(d).removed_springs[0].index = 1e9; }],
    ["record_array", (d) => { d.extensions.HAIRSWING_fit_undo = []; }],
    ["collider_rows_short", (d) => { cundo(d).colliders = cundo(d).colliders.map((r) => r.slice(0, 2)); }],
    ["colliders_before_huge", (d) => { cundo(d).colliders_before = 1e9; }],
    ["collider_groups_bad", (d) => { cundo(d).groups = [[999999]]; }],
    ["collider_springs_bad", (d) => { cundo(d).springs = [[true, [99], [1]]]; }],
    ["skin_joint_count_huge", (d) => { d.skins[0].joints = d.skins[0].joints; undo(d).skin_joints = 4e9; undo(d).nodes_before = 4e9; }],
  ];
  for (const [name, edit] of undos) add("undo", "undo", name, { "a.vrm": glbOf(fitted, edit) });

  // --wear files (a separate hair file put on before fitting) with bad materials or armature.
  const wears = [
    ["valid", () => {}],
    ["alpha_mode_number", (d) => { d.materials.forEach((m) => { m.alphaMode = 5; }); }],
    ["base_color_string", (d) => { d.materials.forEach((m) => { m.pbrMetallicRoughness = { baseColorFactor: [1, 1, 1, "x"] }; }); }],
    ["pbr_number", (d) => { d.materials.forEach((m) => { m.pbrMetallicRoughness = 5; }); }],
    ["materials_object", (d) => { d.materials = { a: 1 }; }],
    ["no_humanoid", (d) => { delete d.extensions.VRMC_vrm; }],
    ["other_armature", (d) => { d.nodes.forEach((n, i) => { n.name = `bone${i}`; }); }],
    ["nested_extras", (d) => { d.materials[0].extras = "@NEST@"; }],
  ];
  for (const [name, edit] of wears) {
    add("wear", "wear", name, {
      "a.vrm": demoBytes,
      "w.vrm": glbOf(demo, edit, name === "nested_extras" ? (d) => JSON.stringify(d).replace('"@NEST@"', nested(deep)) : undefined),
    });
  }

  // Clip files (glTF animation, VRMA, BVH).
  const clipCases = [
    ["valid", {}],
    ["keys_at_1e7", { times: [0, 1e7] }],
    ["keys_at_3e38", { times: [0, 3e38] }],
    ["times_decreasing", { times: [1, 0.5, 0] }],
    ["times_nan", { times: [0, NaN, 1] }],
    ["times_negative", { times: [-1e6, 0, 1] }],
    ["rotation_keys_zero", { rotations: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }],
    ["rotation_keys_nan", { rotations: [NaN, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1] }],
    ["translation_keys_1e30", { translations: [0, 1e30, 0, 0, 1, 0, 0, 1, 0] }],
    ["million_keys", { times: Array.from({ length: 1000000 }, (_, i) => i / 30) }],
    ["count_mismatch", { edit: (d) => { d.accessors[d.animations[0].samplers[0].output].count = 2; } }],
    ["cubic_wrong_count", { edit: (d) => { d.animations[0].samplers[0].interpolation = "CUBICSPLINE"; } }],
    ["target_node_out_of_range", { edit: (d) => { d.animations[0].channels[0].target.node = 99999; } }],
    ["target_path_unknown", { edit: (d) => { d.animations[0].channels[0].target.path = "wiggle"; } }],
    ["sampler_out_of_range", { edit: (d) => { d.animations[0].channels[0].sampler = 99; } }],
    ["input_vec3", { edit: (d) => { d.accessors[d.animations[0].samplers[0].input].type = "VEC3"; d.accessors[d.animations[0].samplers[0].input].count = 1; } }],
    ["scale_keys_zero", { edit: (d, g) => {
      const out = addFloatAccessor(d, g, [0, 0, 0, 0, 0, 0, 0, 0, 0], "VEC3");
      d.animations[0].samplers.push({ input: d.animations[0].samplers[0].input, output: out });
      d.animations[0].channels.push({ sampler: 2, target: { node: humanNode(d, "hips"), path: "scale" } });
    } }],
  ];
  for (const [name, opts] of clipCases) {
    const clip = withAnimation(demo, opts);
    add("clips", "clip", name, { "a.vrm": demoBytes, "c.glb": writeGlb(clip.json, clip.bin) });
  }
  const vrmaCases = [
    ["valid", {}, null],
    ["keys_at_1e7", { times: [0, 1e7] }, null],
    ["humanoid_array", {}, (d) => { d.extensions.VRMC_vrm_animation.humanoid = []; }],
    ["human_bone_out_of_range", {}, (d) => { d.extensions.VRMC_vrm_animation.humanoid.humanBones.head.node = 99999; }],
    ["human_bone_string", {}, (d) => { d.extensions.VRMC_vrm_animation.humanoid.humanBones.hips = "x"; }],
  ];
  for (const [name, opts, edit] of vrmaCases) {
    const v = asVrma(withAnimation(demo, opts), edit);
    add("clips", "clip", `vrma_${name}`, { "a.vrm": demoBytes, "c.vrma": writeGlb(v.json, v.bin) });
  }
  const deepJoints = (n) => { let s = ""; for (let i = 0; i < n; i++) s += `JOINT X${i}\n{\nOFFSET 0 1 0\nCHANNELS 0\n`; s += "End Site\n{\nOFFSET 0 1 0\n}\n"; return s + "}\n".repeat(n); };
  const bvhCases = [
    ["valid", bvh()],
    ["offset_1e300", bvh({ offsetScale: 1e300 })],
    ["offset_1e40", bvh({ offsetScale: 1e40 })],
    ["frames_1e9_declared", bvh({ framesLine: "Frames: 1000000000" })],
    ["frames_negative", bvh({ framesLine: "Frames: -5" })],
    ["frame_time_zero", bvh({ frameTime: 0 })],
    ["frame_time_tiny", bvh({ frameTime: 1e-30 })],
    ["frame_time_huge", bvh({ frameTime: 1e7 })],
    ["values_nan", bvh({ values: (f, n) => Array.from({ length: n }, () => "nan") })],
    ["values_1e300", bvh({ values: (f, n) => Array.from({ length: n }, () => "1e300") })],
    ["short_row", bvh({ values: () => [1, 2, 3] })],
    ["deep_joints_50k", bvh({ extraJoints: deepJoints(50000) })],
    ["wide_joints_166k", bvh({ extraJoints: Array.from({ length: 166000 }, (_, i) => `JOINT W${i}\n{\nOFFSET 0 1 0\nCHANNELS 0\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n`).join("") })],
    ["channels_huge", bvh().replace("CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 1000000000 Zrotation")],
    ["no_motion", bvh().replace(/MOTION[\s\S]*$/, "")],
    ["binary_garbage", Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
  ];
  for (const [name, text] of bvhCases) add("bvh", "clip", `bvh_${name}`, { "a.vrm": demoBytes, "c.bvh": text });

  return cases;
}
