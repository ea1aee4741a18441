#!/usr/bin/env python3
"""Writes the broken-input corpus in tests/data/broken/ (committed; rerun to regenerate).

Every file is a small, hand-made glTF/GLB derived from one valid base scene (also written, as
valid_base.gltf) with exactly one thing wrong. expected.tsv pairs each file with a substring the
loader's one-line error must contain (the field it names). Nothing here comes from ../shared."""
import base64, copy, json, os, struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "broken")

def buffer_bytes(nan=False):
    pos = [0, 0, 0, 1, 0, 0, 0, 1, 0]
    if nan:
        pos[4] = float("nan")
    b = struct.pack("<9f", *pos)                    # 36 bytes positions
    b += struct.pack("<3H", 0, 1, 2) + b"\0\0"      # 8 bytes indices
    ident = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    b += struct.pack("<32f", *(ident + ident))      # 128 bytes inverse bind matrices
    return b

def base(nan=False):
    data = buffer_bytes(nan)
    return {
        "asset": {"version": "2.0", "generator": "hairswing make_broken.py"},
        "extensionsUsed": ["VRMC_springBone"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "Head", "children": [1, 3], "translation": [0, 1.5, 0]},
            {"name": "Hair1", "children": [2], "translation": [0, 0.1, -0.05]},
            {"name": "Hair2", "translation": [0, -0.1, 0]},
            {"name": "Mesh", "mesh": 0, "skin": 0},
        ],
        "meshes": [{"name": "tri", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": 2}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "MAT4"},
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 6},
            {"buffer": 0, "byteOffset": 44, "byteLength": 128},
        ],
        "buffers": [{"byteLength": len(data),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
        "extensions": {"VRMC_springBone": {
            "specVersion": "1.0",
            "colliders": [{"node": 0, "shape": {"sphere": {"offset": [0, 0, 0], "radius": 0.1}}}],
            "colliderGroups": [{"colliders": [0]}],
            "springs": [{"joints": [{"node": 1, "hitRadius": 0.02}, {"node": 2}], "colliderGroups": [0]}],
        }},
    }

def glb(doc, bin_chunk=b""):
    js = json.dumps(doc).encode()
    js += b" " * ((4 - len(js) % 4) % 4)
    out = struct.pack("<4sII", b"glTF", 2, 0) + struct.pack("<I4s", len(js), b"JSON") + js
    if bin_chunk:
        out += struct.pack("<I4s", len(bin_chunk), b"BIN\0") + bin_chunk
    return out[:8] + struct.pack("<I", len(out)) + out[12:]

def glb_base():
    doc = base()
    data = buffer_bytes()
    doc["buffers"] = [{"byteLength": len(data)}]
    return glb(doc, data)

def main():
    cases = []  # (file name, bytes, expected substring)

    def mutate(name, fn, expect):
        d = base()
        fn(d)
        cases.append((name, json.dumps(d).encode(), expect))

    good_glb = glb_base()
    cases.append(("truncated.glb", good_glb[: len(good_glb) // 2], "truncated"))
    cases.append(("glb_bad_version.glb", good_glb[:4] + struct.pack("<I", 7) + good_glb[8:], "header.version"))
    cases.append(("glb_chunk_not_json.glb", good_glb[:16] + b"XXXX" + good_glb[20:], "not a JSON chunk"))
    cases.append(("glb_chunk_too_long.glb", good_glb[:12] + struct.pack("<I", 0x7fffffff) + good_glb[16:], "chunk 0.length"))
    # Found by the fuzzer: a declared total length below the header size once underflowed a check.
    cases.append(("glb_length_too_small.glb", good_glb[:8] + struct.pack("<I", 8) + good_glb[12:], "smaller than the header"))
    cases.append(("empty.gltf", b"", "JSON"))
    cases.append(("invalid_json.gltf", json.dumps(base()).encode()[:-40], "JSON"))
    cases.append(("top_level_array.gltf", b"[1, 2, 3]", "top level is not an object"))
    cases.append(("nan_in_positions.gltf", json.dumps(base(nan=True)).encode(), "accessors[0]"))
    mutate("node_mesh_out_of_range.gltf", lambda d: d["nodes"][3].update(mesh=99), "nodes[3].mesh")
    mutate("node_child_out_of_range.gltf", lambda d: d["nodes"][1].update(children=[2, 42]), "nodes[1].children")
    mutate("cyclic_nodes.gltf", lambda d: (d["nodes"][0].update(children=[3]), d["nodes"][2].update(children=[1])), "cyclic node hierarchy")
    mutate("self_child.gltf", lambda d: d["nodes"][2].update(children=[2]), "own child")
    mutate("two_parents.gltf", lambda d: d["nodes"][3].update(children=[2]), "already has parent")
    cases.append(("huge_translation.gltf", json.dumps(base()).replace('"translation": [0, 0.1, -0.05]', '"translation": [0, 1e39, -0.05]').encode(), "nodes[1].translation"))
    mutate("zero_quaternion.gltf", lambda d: d["nodes"][1].update(rotation=[0, 0, 0, 0]), "nodes[1].rotation")
    mutate("absurd_accessor_count.gltf", lambda d: d["accessors"][0].update(count=4000000000), "accessors[0]")
    mutate("accessor_past_view.gltf", lambda d: d["accessors"][0].update(count=1000), "accessors[0]")
    mutate("vertex_index_out_of_range.gltf", lambda d: d["accessors"][1].update(bufferView=0, byteOffset=12, componentType=5125, count=3), "primitives[0].indices")
    mutate("skin_joint_out_of_range.gltf", lambda d: d["skins"][0].update(joints=[0, 77]), "skins[0].joints[1]")
    mutate("ibm_missing_buffer.gltf", lambda d: (d["buffers"].append({"byteLength": 128, "uri": "no_such.bin"}), d["bufferViews"][2].update(buffer=1, byteOffset=0)), "skins[0].inverseBindMatrices")
    mutate("spring_joint_out_of_range.gltf", lambda d: d["extensions"]["VRMC_springBone"]["springs"][0]["joints"][1].update(node=50), "springs[0].joints[1].node")
    mutate("spring_collider_group_out_of_range.gltf", lambda d: d["extensions"]["VRMC_springBone"]["springs"][0].update(colliderGroups=[3]), "springs[0].colliderGroups[0]")
    mutate("collider_negative_radius.gltf", lambda d: d["extensions"]["VRMC_springBone"]["colliders"][0]["shape"]["sphere"].update(radius=-1), "colliders[0].shape")
    mutate("collider_no_shape.gltf", lambda d: d["extensions"]["VRMC_springBone"]["colliders"][0].pop("shape"), "colliders[0].shape")
    mutate("spring_param_not_number.gltf", lambda d: d["extensions"]["VRMC_springBone"]["springs"][0]["joints"][0].update(stiffness="stiff"), "joints[0].stiffness")
    mutate("vrm0_bone_out_of_range.gltf", lambda d: d["extensions"].update(VRM={"secondaryAnimation": {"boneGroups": [{"bones": [9]}]}}), "boneGroups[0].bones[0]")
    mutate("required_unknown.gltf", lambda d: d.update(extensionsRequired=["EXT_made_up_geometry"]), "EXT_made_up_geometry")
    mutate("scene_root_out_of_range.gltf", lambda d: d["scenes"][0].update(nodes=[12]), "scenes[0].nodes")
    # Found by the fuzzer: tinygltf hands an image's bufferView over unchecked.
    mutate("image_view_past_buffer.gltf", lambda d: (d["bufferViews"].append({"buffer": 0, "byteOffset": 100, "byteLength": 1000}),
                                                     d.update(images=[{"bufferView": 3, "mimeType": "image/png"}])), "images[0]")

    os.makedirs(HERE, exist_ok=True)
    with open(os.path.join(HERE, "valid_base.gltf"), "w") as f:
        json.dump(base(), f, indent=1)
    with open(os.path.join(HERE, "valid_base.glb"), "wb") as f:
        f.write(good_glb)
    with open(os.path.join(HERE, "expected.tsv"), "w") as f:
        f.write("# file\tsubstring the one-line error must contain\n")
        for name, data, expect in cases:
            with open(os.path.join(HERE, name), "wb") as g:
                g.write(data)
            f.write(f"{name}\t{expect}\n")
    print(f"wrote {len(cases)} broken files to {HERE}")

if __name__ == "__main__":
    main()
