#!/usr/bin/env python3
"""Writes the compatibility corpus in tests/data/compat/ (committed; rerun to regenerate).

Each file takes the valid base scene of make_broken.py and adds one deviation from glTF 2.0 that
three.js' GLTFLoader or UniVRM accept (docs/compat.md lists them with what they do). expected.tsv
gives, per file, `ok` with a substring the one warning must contain (`-` = no warning at all), or
`error` with a substring the one-line error must contain: data that is really there loads, data
that is not stays an error. Nothing here comes from ../shared."""
import copy, json, os, struct

from make_broken import base, buffer_bytes, glb

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compat")

def glb_doc():
    doc = base()
    doc["buffers"] = [{"byteLength": len(buffer_bytes())}]
    return doc

def with_tail_image(doc, data, tail):
    """Appends `tail` bytes after the mesh data as an image's bufferView (kept, never decoded)."""
    doc["bufferViews"].append({"buffer": 0, "byteOffset": len(data), "byteLength": len(tail)})
    doc["images"] = [{"bufferView": len(doc["bufferViews"]) - 1, "mimeType": "image/png", "name": "tail"}]
    return data + tail

cases = []   # (file name, bytes, "ok" | "error", substring or "-")
extra = []   # (file name, bytes): side files (external buffers)

data = buffer_bytes()
tail = bytes(range(64))

# 1. The exporter wrote buffers[0].byteLength shorter than the BIN chunk, and views lie in the
#    tail (the avatar: textures in the last 21,760 bytes). GLTFLoader and UniVRM use the
#    whole chunk.
d = glb_doc()
body = with_tail_image(d, data, tail)
d["buffers"][0]["byteLength"] = len(data)
cases.append(("glb_bytelength_short.glb", glb(d, body), "ok", "buffers[0].byteLength is 172 but the GLB BIN chunk has 236"))

# 2. byteLength larger than the BIN chunk, every view inside the chunk.
d = glb_doc()
d["buffers"][0]["byteLength"] = len(data) + 100
cases.append(("glb_bytelength_long.glb", glb(d, data), "ok", "has only 172 bytes"))

# 3. byteLength larger than the BIN chunk and a view reaching past the chunk: the bytes are not
#    there (GLTFLoader: a short slice and a RangeError; UniVRM: an out-of-range sub-array).
d = glb_doc()
d["buffers"][0]["byteLength"] = len(data) + 100
d["bufferViews"][2]["byteLength"] = 128 + 64
cases.append(("glb_view_past_bin.glb", glb(d, data), "error", "bufferViews[2]"))

# 4. A BIN chunk longer than byteLength with nothing reading the extra bytes (the spec allows up
#    to 3 bytes of padding; exporters leave more). Loads without a warning; export drops the tail.
d = glb_doc()
cases.append(("glb_unused_tail.glb", glb(d, data + bytes(8)), "ok", "-"))

# 5. An unknown chunk type after BIN: clients must ignore it.
d = glb_doc()
g = glb(d, data)
unknown = struct.pack("<I4s", 8, b"XTRA") + b"12345678"
g = g + unknown
g = g[:8] + struct.pack("<I", len(g)) + g[12:]
cases.append(("glb_unknown_chunk.glb", g, "ok", "-"))

# 6. External buffer file longer than its byteLength, a view in the extra bytes.
d = base()
body = with_tail_image(d, data, tail)
d["buffers"] = [{"byteLength": len(data), "uri": "ext_long.bin"}]
cases.append(("ext_bytelength_short.gltf", json.dumps(d).encode(), "ok", 'file "ext_long.bin" has 236 bytes'))
extra.append(("ext_long.bin", body))

# 7. External buffer file shorter than its byteLength, every view inside the file.
d = base()
d["buffers"] = [{"byteLength": len(data) + 50, "uri": "ext_short.bin"}]
cases.append(("ext_bytelength_long.gltf", json.dumps(d).encode(), "ok", "has only 172 bytes"))
extra.append(("ext_short.bin", data))

# 8. External buffer file shorter than its byteLength and a view past its end: an error.
d = base()
d["buffers"] = [{"byteLength": len(data) + 50, "uri": "ext_cut.bin"}]
cases.append(("ext_view_past_file.gltf", json.dumps(d).encode(), "error", "bufferViews[2]"))
extra.append(("ext_cut.bin", data[:100]))

# 9. A buffer uri written "./name" with a percent-encoded space (UniVRM strips "./" and unescapes;
#    GLTFLoader resolves it as a URL).
d = base()
d["buffers"] = [{"byteLength": len(data), "uri": "./with%20space.bin"}]
cases.append(("uri_dot_slash_percent.gltf", json.dumps(d).encode(), "ok", "-"))
extra.append(("with space.bin", data))

# 10. Nodes and meshes without names, and two meshes with the same name (UniVRM renames them;
#     names are optional in glTF).
d = base()
for n in d["nodes"][1:]:
    n.pop("name", None)
d["meshes"].append(copy.deepcopy(d["meshes"][0]))
cases.append(("unnamed_and_duplicate_names.gltf", json.dumps(d).encode(), "ok", "-"))

# 11. Skin weights that do not sum to 1 (GLTFLoader and UniVRM use them as written).
d = base()
d["meshes"][0]["primitives"][0]["attributes"].update({"JOINTS_0": 3, "WEIGHTS_0": 4})
d["accessors"] += [
    {"bufferView": 3, "componentType": 5121, "count": 3, "type": "VEC4"},
    {"bufferView": 4, "componentType": 5126, "count": 3, "type": "VEC4"},
]
skin_bytes = bytes([0, 1, 0, 0] * 3) + struct.pack("<12f", *([0.5, 0.2, 0, 0] * 3))
d["bufferViews"] += [
    {"buffer": 1, "byteOffset": 0, "byteLength": 12},
    {"buffer": 1, "byteOffset": 12, "byteLength": 48},
]
d["buffers"].append({"byteLength": len(skin_bytes), "uri": "weights.bin"})
cases.append(("weights_not_normalised.gltf", json.dumps(d).encode(), "ok", "-"))
extra.append(("weights.bin", skin_bytes))

# 12. An accessor without a bufferView (all zeros; valid glTF, used for sparse or empty morphs).
d = base()
d["accessors"].append({"componentType": 5126, "count": 3, "type": "VEC3"})
d["meshes"][0]["primitives"][0]["targets"] = [{"POSITION": 3}]
cases.append(("accessor_without_view.gltf", json.dumps(d).encode(), "ok", "-"))

# 13. asset.version "2.1": GLTFLoader checks only the major version (UniVRM wants "2.0" exactly).
#     A minor version of 2 promises backward compatibility.
d = base()
d["asset"]["version"] = "2.1"
cases.append(("asset_version_2_1.gltf", json.dumps(d).encode(), "ok", "-"))

# 14. No "scene" property: GLTFLoader shows scene 0; glTF leaves it to the application.
d = base()
d.pop("scene")
cases.append(("no_scene_property.gltf", json.dumps(d).encode(), "ok", "-"))

# 15. POSITION accessor without min/max (required by the spec; GLTFLoader warns and computes the
#     bounds; we never read them).
d = base()
d["accessors"][0].pop("min")
d["accessors"][0].pop("max")
cases.append(("position_without_bounds.gltf", json.dumps(d).encode(), "ok", "-"))

# 16-17. Vertex attributes that are not finite numbers in data no spring or measurement needs (an
#        exporter defect, like WEIGHTS_0 all NaN on a real library file): GLTFLoader loads them
#        (the GPU shows garbage for those vertices). Normals with a NaN are left out (viewers
#        compute them); a morph target's non-finite deltas become 0. One warning each.
def inline_buffer(d, data):
    import base64
    d["buffers"].append({"byteLength": len(data),
                         "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()})
    d["bufferViews"].append({"buffer": len(d["buffers"]) - 1, "byteOffset": 0, "byteLength": len(data)})
    return len(d["bufferViews"]) - 1

d = base()
view = inline_buffer(d, struct.pack("<9f", 0, 0, 1, float("nan"), 0, 1, 0, 0, 1))
d["accessors"].append({"bufferView": view, "componentType": 5126, "count": 3, "type": "VEC3"})
d["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = len(d["accessors"]) - 1
cases.append(("normals_not_finite.gltf", json.dumps(d).encode(), "ok", "NORMAL: 1 of 3 normals are not finite numbers"))

d = base()
view = inline_buffer(d, struct.pack("<9f", 0, 0, 0, 0, float("inf"), 0, 0, 0, 0))
d["accessors"].append({"bufferView": view, "componentType": 5126, "count": 3, "type": "VEC3"})
d["meshes"][0]["primitives"][0]["targets"] = [{"POSITION": len(d["accessors"]) - 1}]
cases.append(("morph_not_finite.gltf", json.dumps(d).encode(), "ok", "targets[0].POSITION: 1 of 3 deltas are not finite numbers"))

# 18. A UV set with a NaN (no spring or measurement reads UVs): those values become 0.
d = base()
view = inline_buffer(d, struct.pack("<6f", 0, 0, float("nan"), 1, 1, 1))
d["accessors"].append({"bufferView": view, "componentType": 5126, "count": 3, "type": "VEC2"})
d["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = len(d["accessors"]) - 1
cases.append(("uv_not_finite.gltf", json.dumps(d).encode(), "ok", "TEXCOORD_0: 1 of 3 values are not finite numbers; they are set to 0"))


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, blob in extra:
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(blob)
    with open(os.path.join(HERE, "expected.tsv"), "w") as f:
        f.write("# file\tok|error\tsubstring of the one warning (ok; - = no warning) or of the error\n")
        for name, blob, result, expect in cases:
            with open(os.path.join(HERE, name), "wb") as g:
                g.write(blob)
            f.write(f"{name}\t{result}\t{expect}\n")
    print(f"wrote {len(cases)} compatibility files to {HERE}")


if __name__ == "__main__":
    main()
