#!/usr/bin/env python3
"""Writes the compressed-geometry corpus in tests/data/compressed/ (committed; rerun to regenerate).

strip.glb is a small hand-made hair strip: a 5 x 16 vertex grid skinned to a head and a 4-joint
chain, with normals, UVs, 8-bit joints, float weights, one morph target (positions and normals)
and a VRMC_springBone spring with a head collider. Nothing here comes from ../shared.

The compressed copies are made by the encoders real pipelines use, from Debian's packages (not by
our own code, so the decoder is checked against files it did not write):
  strip_draco.glb             draco_transcoder (package draco): KHR_draco_mesh_compression, made
                              from strip_no_morph.glb (the strip without its morph target, which
                              draco_transcoder 1.5 refuses)
  strip_meshopt.glb           gltfpack -c (package gltfpack): EXT_meshopt_compression with
                              KHR_mesh_quantization, fallback buffer without bytes
  strip_meshopt_fallback.glb  gltfpack -cf: the same with an uncompressed fallback copy
Neither encoder knows VRM, so the spring extension is put back afterwards with its node indices
mapped by node name (both keep the names). Two damaged copies have one compressed stream
overwritten: strip_draco_damaged.glb and strip_meshopt_damaged.glb.
expected.tsv: file, ok|error, and for errors a substring of the one-line message."""
import json, math, os, shutil, struct, subprocess, sys, tempfile, zlib

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compressed")
COLS, ROWS = 5, 16


def glb_split(data):
    jlen = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + jlen])
    rest = data[20 + jlen:]
    bin_chunk = b""
    if len(rest) >= 8:
        blen, btype = struct.unpack_from("<I4s", rest, 0)
        if btype == b"BIN\0":
            bin_chunk = rest[8:8 + blen]
    return doc, bin_chunk


def glb(doc, bin_chunk):
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * ((4 - len(js) % 4) % 4)
    bin_chunk += b"\0" * ((4 - len(bin_chunk) % 4) % 4)
    out = struct.pack("<4sII", b"glTF", 2, 0) + struct.pack("<I4s", len(js), b"JSON") + js
    if bin_chunk:
        out += struct.pack("<I4s", len(bin_chunk), b"BIN\0") + bin_chunk
    return out[:8] + struct.pack("<I", len(out)) + out[12:]


def png_2x2():
    """A 2 x 2 RGB PNG (the material's texture: gltfpack drops UVs no texture reads)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + bytes([90, 60, 30] * 2) for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def strip(morph=True):
    head_y, hair_z, seg = 1.5, -0.08, 0.1
    joint_y = [0.0, -seg, -2 * seg, -3 * seg]  # Hair1..Hair4 below the head, in metres
    pos, nrm, uv, jnt, wgt, dpos, dnrm = [], [], [], [], [], [], []
    for r in range(ROWS):
        y = -0.3 * r / (ROWS - 1)
        for c in range(COLS):
            x = -0.04 + 0.02 * c
            pos.append((x, head_y + y, hair_z - 0.005 * math.sin(c)))
            n = (0.1 * (c - 2), 0.05, -1.0)
            ln = math.sqrt(sum(v * v for v in n))
            nrm.append(tuple(v / ln for v in n))
            uv.append((c / (COLS - 1), r / (ROWS - 1)))
            # Linear between the two chain joints around y (skin joints 1..4); the top row shares
            # the head (skin joint 0).
            t = min(-y / seg, 2.999)
            k = int(t)
            f = t - k
            if r == 0:
                jnt.append((0, 1, 0, 0)); wgt.append((0.5, 0.5, 0.0, 0.0))
            else:
                jnt.append((1 + k, 2 + k, 0, 0)); wgt.append((1 - f, f, 0.0, 0.0))
            dpos.append((0.0, 0.0, -0.01 * r / (ROWS - 1)))
            dnrm.append((0.02 * (c - 2), 0.0, 0.0))
    idx = []
    for r in range(ROWS - 1):
        for c in range(COLS - 1):
            a, b = r * COLS + c, r * COLS + c + 1
            d, e = a + COLS, b + COLS
            idx += [a, d, b, b, d, e]

    bin_chunk, views, accessors = b"", [], []

    def add(data, target=None):
        nonlocal bin_chunk
        while len(bin_chunk) % 4:
            bin_chunk += b"\0"
        v = {"buffer": 0, "byteOffset": len(bin_chunk), "byteLength": len(data)}
        if target:
            v["target"] = target
        views.append(v)
        bin_chunk += data
        return len(views) - 1

    def acc(values, fmt, ctype, atype, target=34962, minmax=False):
        flat = [x for v in values for x in (v if isinstance(v, tuple) else (v,))]
        view = add(struct.pack("<%d%s" % (len(flat), fmt), *flat), target)
        a = {"bufferView": view, "componentType": ctype, "count": len(values), "type": atype}
        if minmax:
            a["min"] = [min(v[i] for v in values) for i in range(3)]
            a["max"] = [max(v[i] for v in values) for i in range(3)]
        accessors.append(a)
        return len(accessors) - 1

    a_pos = acc(pos, "f", 5126, "VEC3", minmax=True)
    a_nrm = acc(nrm, "f", 5126, "VEC3")
    a_uv = acc(uv, "f", 5126, "VEC2")
    a_jnt = acc(jnt, "B", 5121, "VEC4")
    a_wgt = acc(wgt, "f", 5126, "VEC4")
    a_dpos = acc(dpos, "f", 5126, "VEC3", minmax=True)
    a_dnrm = acc(dnrm, "f", 5126, "VEC3")
    a_idx = acc(idx, "H", 5123, "SCALAR", target=34963)
    # Inverse bind matrices (column-major): each joint's bind world transform is a translation.
    worlds = [(0, head_y, 0)] + [(0, head_y + jy, hair_z) for jy in joint_y]
    ibm = []
    for (tx, ty, tz) in worlds:
        ibm += [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -tx, -ty, -tz, 1]
    view = add(struct.pack("<%df" % len(ibm), *ibm))
    accessors.append({"bufferView": view, "componentType": 5126, "count": 5, "type": "MAT4"})
    a_ibm = len(accessors) - 1
    image_view = add(png_2x2())

    doc = {
        "asset": {"version": "2.0", "generator": "hairswing make_compressed.py"},
        "extensionsUsed": ["VRMC_springBone"],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "Head", "children": [1, 5], "translation": [0, head_y, 0]},
            {"name": "Hair1", "children": [2], "translation": [0, 0, hair_z]},
            {"name": "Hair2", "children": [3], "translation": [0, -seg, 0]},
            {"name": "Hair3", "children": [4], "translation": [0, -seg, 0]},
            {"name": "Hair4", "translation": [0, -seg, 0]},
            {"name": "StripMesh", "mesh": 0, "skin": 0},
        ],
        "meshes": [{"name": "Strip", "weights": [0.0], "extras": {"targetNames": ["Puff"]},
                    "primitives": [{
                        "attributes": {"POSITION": a_pos, "NORMAL": a_nrm, "TEXCOORD_0": a_uv,
                                       "JOINTS_0": a_jnt, "WEIGHTS_0": a_wgt},
                        "indices": a_idx, "material": 0,
                        "targets": [{"POSITION": a_dpos, "NORMAL": a_dnrm}]}]}],
        "materials": [{"name": "Hair", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}],
        "images": [{"bufferView": image_view, "mimeType": "image/png"}],
        "skins": [{"joints": [0, 1, 2, 3, 4], "inverseBindMatrices": a_ibm}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(bin_chunk)}],
        "extensions": {"VRMC_springBone": {
            "specVersion": "1.0",
            "colliders": [{"node": 0, "shape": {"sphere": {"offset": [0, 0.05, 0], "radius": 0.09}}}],
            "colliderGroups": [{"colliders": [0]}],
            "springs": [{"name": "Strip", "colliderGroups": [0],
                         "joints": [{"node": n, "hitRadius": 0.01, "stiffness": 0.8,
                                     "gravityPower": 0.2, "dragForce": 0.4} for n in range(1, 5)]}],
        }},
    }
    if not morph:
        prim = doc["meshes"][0]["primitives"][0]
        del prim["targets"]
        del doc["meshes"][0]["weights"]
        del doc["meshes"][0]["extras"]
    return doc, bin_chunk


def with_springs(path, source_doc):
    """Puts the source's VRMC_springBone into the encoder's output, node indices mapped by name."""
    doc, bin_chunk = glb_split(open(path, "rb").read())
    names = {n.get("name"): i for i, n in enumerate(doc["nodes"])}
    src_names = [n["name"] for n in source_doc["nodes"]]
    sb = json.loads(json.dumps(source_doc["extensions"]["VRMC_springBone"]))
    for c in sb["colliders"]:
        c["node"] = names[src_names[c["node"]]]
    for s in sb["springs"]:
        for j in s["joints"]:
            j["node"] = names[src_names[j["node"]]]
    doc.setdefault("extensions", {})["VRMC_springBone"] = sb
    doc["extensionsUsed"] = sorted(set(doc.get("extensionsUsed", [])) | {"VRMC_springBone"})
    return doc, bin_chunk


def damaged(doc, bin_chunk, view_index):
    """The same file with the middle of one compressed stream overwritten."""
    v = doc["bufferViews"][view_index]
    ext = v.get("extensions", {}).get("EXT_meshopt_compression")
    off = ext.get("byteOffset", 0) if ext else v.get("byteOffset", 0)
    ln = ext["byteLength"] if ext else v["byteLength"]
    b = bytearray(bin_chunk)
    if ext:
        b[off] = 0x00  # the stream's header byte (0xa0 / 0xe0 / 0xd0): not a meshopt stream
    else:
        for i in range(off + ln // 4, off + ln // 2):
            b[i] = 0xFF
    return glb(doc, bytes(b))


def main():
    for tool in ("draco_transcoder", "gltfpack"):
        if not shutil.which(tool):
            sys.exit("make_compressed.py: %s missing (scripts/setup installs it)" % tool)
    os.makedirs(HERE, exist_ok=True)
    doc, bin_chunk = strip()
    src = os.path.join(HERE, "strip.glb")
    open(src, "wb").write(glb(doc, bin_chunk))
    # draco_transcoder 1.5 refuses morph targets: its input is the strip without them.
    plain_doc, plain_bin = strip(morph=False)
    plain = os.path.join(HERE, "strip_no_morph.glb")
    open(plain, "wb").write(glb(plain_doc, plain_bin))
    cases = [("strip.glb", "ok", "-"), ("strip_no_morph.glb", "ok", "-")]
    with tempfile.TemporaryDirectory() as tmp:
        runs = {
            "strip_draco.glb": ["draco_transcoder", "-i", plain, "-o", os.path.join(tmp, "d.glb")],
            "strip_meshopt.glb": ["gltfpack", "-c", "-kn", "-km", "-i", src, "-o", os.path.join(tmp, "m.glb")],
            "strip_meshopt_fallback.glb": ["gltfpack", "-cf", "-kn", "-km", "-i", src, "-o",
                                           os.path.join(tmp, "f.glb")],
        }
        for name, cmd in runs.items():
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            out_doc, out_bin = with_springs(cmd[-1], doc)
            for b in out_doc["buffers"]:  # gltfpack -cf: the fallback copy lies in its own file
                if "uri" in b:
                    fallback = name.replace(".glb", ".fallback.bin")
                    shutil.copy(os.path.join(tmp, b["uri"]), os.path.join(HERE, fallback))
                    b["uri"] = fallback
            open(os.path.join(HERE, name), "wb").write(glb(out_doc, out_bin))
            cases.append((name, "ok", "-"))
            if name == "strip_draco.glb":
                view = out_doc["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]["bufferView"]
                open(os.path.join(HERE, "strip_draco_damaged.glb"), "wb").write(damaged(out_doc, out_bin, view))
                cases.append(("strip_draco_damaged.glb", "error", "KHR_draco_mesh_compression"))
            if name == "strip_meshopt.glb":
                view = next(i for i, v in enumerate(out_doc["bufferViews"])
                            if v.get("extensions", {}).get("EXT_meshopt_compression", {}).get("mode") == "ATTRIBUTES")
                open(os.path.join(HERE, "strip_meshopt_damaged.glb"), "wb").write(damaged(out_doc, out_bin, view))
                cases.append(("strip_meshopt_damaged.glb", "error", "EXT_meshopt_compression"))
    with open(os.path.join(HERE, "expected.tsv"), "w") as f:
        f.write("# file\tresult\terror substring (written by make_compressed.py)\n")
        for c in cases:
            f.write("\t".join(c) + "\n")
    print("wrote %d files to %s" % (len(cases), HERE))


if __name__ == "__main__":
    main()
