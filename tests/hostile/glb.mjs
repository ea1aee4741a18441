// Minimal GLB container helpers for the hostile-input generator: split a .glb/.vrm into its
// JSON document and binary chunk, append typed data to the binary chunk, and join them again.
// Only what the generator needs; the files it reads are the project's own demo avatars.

export function readGlb(buf) {
  if (buf.readUInt32LE(0) !== 0x46546c67) throw new Error("not a GLB file");
  const jsonLen = buf.readUInt32LE(12);
  const json = JSON.parse(buf.subarray(20, 20 + jsonLen).toString("utf8"));
  let bin = Buffer.alloc(0);
  const binStart = 20 + jsonLen;
  if (binStart + 8 <= buf.length) {
    const binLen = buf.readUInt32LE(binStart);
    bin = Buffer.from(buf.subarray(binStart + 8, binStart + 8 + binLen));
  }
  return { json, bin };
}

function pad4(b, fill) {
  const extra = (4 - (b.length % 4)) % 4;
  return extra ? Buffer.concat([b, Buffer.alloc(extra, fill)]) : b;
}

/// Joins a document and a binary chunk; the first buffer's byteLength is set to the chunk size.
/// `jsonText` may be given to write JSON that JSON.stringify cannot (deep nesting, raw tokens).
export function writeGlb(json, bin, jsonText) {
  if (json && json.buffers && json.buffers[0] && json.buffers[0].uri === undefined)
    json.buffers[0].byteLength = bin.length;
  const js = pad4(Buffer.from(jsonText ?? JSON.stringify(json), "utf8"), 0x20);
  const bn = pad4(bin, 0);
  const parts = [Buffer.alloc(12), Buffer.alloc(8), js];
  if (bn.length) parts.push(Buffer.alloc(8), bn);
  const total = parts.reduce((n, p) => n + p.length, 0);
  parts[0].writeUInt32LE(0x46546c67, 0);
  parts[0].writeUInt32LE(2, 4);
  parts[0].writeUInt32LE(total, 8);
  parts[1].writeUInt32LE(js.length, 0);
  parts[1].writeUInt32LE(0x4e4f534a, 4);
  if (bn.length) {
    parts[3].writeUInt32LE(bn.length, 0);
    parts[3].writeUInt32LE(0x004e4942, 4);
  }
  return Buffer.concat(parts);
}

/// Appends float32 data as a new bufferView + accessor on buffer 0; returns the accessor index.
export function addFloatAccessor(doc, glb, values, type, extra = {}) {
  const data = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => data.writeFloatLE(v, i * 4));
  const offset = pad4(glb.bin, 0).length;
  glb.bin = Buffer.concat([pad4(glb.bin, 0), data]);
  doc.bufferViews.push({ buffer: 0, byteOffset: offset, byteLength: data.length });
  const width = { SCALAR: 1, VEC3: 3, VEC4: 4 }[type];
  doc.accessors.push({ bufferView: doc.bufferViews.length - 1, componentType: 5126,
                       count: values.length / width, type, ...extra });
  return doc.accessors.length - 1;
}

/// Byte position of element `i`, component `c` of an accessor inside the binary chunk.
export function elementOffset(doc, accessorIndex, i, c = 0) {
  const acc = doc.accessors[accessorIndex];
  const view = doc.bufferViews[acc.bufferView];
  const compSize = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 }[acc.componentType];
  const width = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 }[acc.type];
  const stride = view.byteStride || compSize * width;
  return (view.byteOffset || 0) + (acc.byteOffset || 0) + i * stride + c * compSize;
}

/// Writes one component of an accessor element (float or integer, per its componentType).
export function setComponent(doc, bin, accessorIndex, i, c, value) {
  const acc = doc.accessors[accessorIndex];
  const at = elementOffset(doc, accessorIndex, i, c);
  switch (acc.componentType) {
    case 5126: bin.writeFloatLE(value, at); break;
    case 5121: bin.writeUInt8(value, at); break;
    case 5123: bin.writeUInt16LE(value, at); break;
    case 5125: bin.writeUInt32LE(value, at); break;
    default: throw new Error(`componentType ${acc.componentType} not handled`);
  }
}
