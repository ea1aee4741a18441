// Loads a VRM/glTF into three.js + @pixiv/three-vrm in node (no images: node cannot decode
// them). Shared by the parity harness (three_vrm_run.mjs) and the peer benchmark (peer_bench.mjs).
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, VRMUtils } from '@pixiv/three-vrm';

export { THREE, VRMUtils };

/** The JSON chunk of a GLB (Buffer). */
export function glbJson(bytes) {
  return JSON.parse(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString('utf8'));
}

/** The GLB with its JSON chunk replaced by `json` (binary chunk unchanged), as a Buffer. */
export function glbWithJson(bytes, json) {
  const rest = bytes.subarray(20 + bytes.readUInt32LE(12));
  let text = Buffer.from(JSON.stringify(json), 'utf8');
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const header = Buffer.alloc(20);
  header.writeUInt32LE(0x46546c67, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length + rest.length, 8);
  header.writeUInt32LE(text.length, 12);
  header.writeUInt32LE(0x4e4f534a, 16);
  return Buffer.concat([header, text, rest]);
}

/** The file without what node cannot decode (images, textures; for a .gltf also its meshes, whose
 * buffers are separate files): an ArrayBuffer (GLB, binary chunk unchanged) or a JSON string. */
export function stripForNode(bytes, options = {}) {
  const motion = { extendedSpecVersion: !!options.extendedSpecVersion };
  // Node cannot decode images: drop images, textures and material texture references. For a
  // .gltf whose buffers are external, drop meshes (the springs do not need them). The binary chunk
  // of a GLB stays byte-identical.
  function strip(json) {
    delete json.images;
    delete json.textures;
    delete json.samplers;
    if (json.materials) json.materials = json.materials.map((m) => ({ name: m.name }));
    if (json.extensionsUsed) json.extensionsUsed = json.extensionsUsed.filter((e) => !e.startsWith('VRMC_materials') && !e.startsWith('KHR_texture') && !e.startsWith('KHR_materials'));
    if (json.extensions && json.extensions.VRM) {
      delete json.extensions.VRM.materialProperties;
      if (json.extensions.VRM.meta) delete json.extensions.VRM.meta.texture;
    }
    if (json.extensions && json.extensions.VRMC_vrm && json.extensions.VRMC_vrm.meta) delete json.extensions.VRMC_vrm.meta.thumbnailImage;
    // three-vrm 3.5.5 ignores an extended collider without specVersion (it falls back to the core
    // shape). hairswing reads it as 1.0; with motion.extendedSpecVersion we add the field so that
    // three-vrm runs the same shape and the plane maths can be compared.
    const sb = json.extensions && json.extensions.VRMC_springBone;
    if (motion.extendedSpecVersion && sb && sb.colliders) {
      for (const c of sb.colliders) {
        const ext = c.extensions && c.extensions.VRMC_springBone_extended_collider;
        if (ext && ext.specVersion === undefined) ext.specVersion = '1.0';
      }
    }
    return json;
  }

  let data;
  if (bytes.readUInt32LE(0) === 0x46546c67) {
    const glb = glbWithJson(bytes, strip(glbJson(bytes)));
    data = glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.length);
  } else {
    const json = strip(JSON.parse(bytes.toString('utf8')));
    delete json.meshes; delete json.accessors; delete json.bufferViews; delete json.buffers;
    for (const n of json.nodes || []) { delete n.mesh; delete n.skin; }
    delete json.skins;
    data = JSON.stringify(json);
  }
  return data;
}

/** Returns {gltf, vrm, manager, root, nodes, data} (data: the stripped file GLTFLoader parsed, an
 * ArrayBuffer or a JSON string); options.extendedSpecVersion as in three_vrm_run. */
export async function loadForSprings(bytes, options = {}) {
  const data = stripForNode(bytes, options);
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  const gltf = await new Promise((resolve, reject) => loader.parse(data, '', resolve, reject));
  const vrm = gltf.userData.vrm;
  const manager = vrm ? vrm.springBoneManager : gltf.userData.vrmSpringBoneManager;
  if (!manager && !options.allowNoSprings) throw new Error('no spring bones found');
  const root = vrm ? vrm.scene : gltf.scene;
  const nodes = await gltf.parser.getDependencies('node');
  return { gltf, vrm, manager, root, nodes, data };
}
