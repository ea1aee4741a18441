// What we carry through without modelling it: materials, textures, samplers and images (bytes,
// never decoded; images inside bufferViews copied bounds-checked), the asset object, root
// extensions and extensionsRequired.
#include <algorithm>
#include <cstring>
#include <set>

#include "io/gltf_reader.h"

namespace hairswing::io {
namespace {

// A texture reference ({"index": i, "texCoord": n, ...}) inside a material.
void CheckTextureInfo(const Json& mat, const char* key, size_t textures, const std::string& f) {
  if (const Json* t = GetObject(mat, key, f)) {
    const std::string tf = f + "." + key;
    if (!Find(*t, "index")) throw ReadError(tf + ".index", "missing");
    GetIndex(*t, "index", -1, textures, tf);
    GetNumber(*t, "texCoord", 0, tf);
    GetFloat(*t, "scale", 1, tf);
    GetFloat(*t, "strength", 1, tf);
    GetObject(*t, "extensions", tf);
  }
}

// The core material fields are passed through as JSON but read by the renderer, the collider
// fitter and --wear: their types are checked here once, so those readers can trust them.
void CheckMaterial(const Json& mat, size_t textures, const std::string& f) {
  if (!mat.is_object()) throw ReadError(f, "expected an object");
  GetString(mat, "name", "", f);
  if (const Json* pbr = GetObject(mat, "pbrMetallicRoughness", f)) {
    const std::string pf = f + ".pbrMetallicRoughness";
    GetVec<4>(*pbr, "baseColorFactor", glm::vec4(1), pf);
    GetFloat(*pbr, "metallicFactor", 1, pf);
    GetFloat(*pbr, "roughnessFactor", 1, pf);
    CheckTextureInfo(*pbr, "baseColorTexture", textures, pf);
    CheckTextureInfo(*pbr, "metallicRoughnessTexture", textures, pf);
  }
  for (const char* t : {"normalTexture", "occlusionTexture", "emissiveTexture"})
    CheckTextureInfo(mat, t, textures, f);
  GetVec<3>(mat, "emissiveFactor", glm::vec3(0), f);
  const std::string mode = GetString(mat, "alphaMode", "OPAQUE", f);
  if (mode != "OPAQUE" && mode != "MASK" && mode != "BLEND")
    throw ReadError(f + ".alphaMode", "\"" + mode + "\" is not OPAQUE, MASK or BLEND");
  GetFloat(mat, "alphaCutoff", 0.5f, f);
  GetBool(mat, "doubleSided", false, f);
  GetObject(mat, "extensions", f);
}

}  // namespace

void ReadPassThrough(const tinygltf::Model& m, const Json& root, const std::string& file,
                     const std::set<int>& missing_buffers, Avatar& av, Warnings& warnings) {
  const Json& mats = GetArray(root, "materials", "");
  for (size_t i = 0; i < mats.size(); ++i) {
    CheckMaterial(mats[i], m.textures.size(), Idx("materials", i));
    av.materials.push_back({GetString(mats[i], "name", "", Idx("materials", i)), Dump(mats[i])});
  }
  const Json& texs = GetArray(root, "textures", "");
  for (size_t i = 0; i < texs.size(); ++i) {
    if (!texs[i].is_object()) throw ReadError(Idx("textures", i), "expected an object");
    GetIndex(texs[i], "source", -1, m.images.size(), Idx("textures", i));
    GetIndex(texs[i], "sampler", -1, m.samplers.size(), Idx("textures", i));
    av.textures_json.push_back(Dump(texs[i]));
  }
  for (const auto& s : GetArray(root, "samplers", "")) av.samplers_json.push_back(Dump(s));
  for (size_t i = 0; i < m.images.size(); ++i) {
    const auto& src = m.images[i];
    Image img;
    img.name = src.name;
    img.mime_type = src.mimeType;
    if (src.uri.rfind("data:", 0) != 0) img.uri = src.uri;
    bool from_missing = src.bufferView >= 0 &&
                        src.bufferView < static_cast<int>(m.bufferViews.size()) &&
                        missing_buffers.count(m.bufferViews[src.bufferView].buffer);
    if (src.bufferView >= 0 && !from_missing) {
      if (src.bufferView >= static_cast<int>(m.bufferViews.size()))
        throw ReadError(Idx("images", i) + ".bufferView", "index out of range");
      const auto& view = m.bufferViews[src.bufferView];
      if (view.buffer < 0 || view.buffer >= static_cast<int>(m.buffers.size()))
        throw ReadError(Idx("bufferViews", src.bufferView) + ".buffer", "index out of range");
      const auto& buf = m.buffers[view.buffer].data;
      if (view.byteOffset > buf.size() || view.byteLength > buf.size() - view.byteOffset)
        throw ReadError(Idx("images", i), "bufferViews[" + std::to_string(src.bufferView) +
                                              "] exceeds buffer " + std::to_string(view.buffer) +
                                              " (" + std::to_string(buf.size()) + " bytes)");
      img.bytes.assign(buf.begin() + static_cast<long>(view.byteOffset),
                       buf.begin() + static_cast<long>(view.byteOffset + view.byteLength));
    } else if (src.as_is && !from_missing) {
      img.bytes = src.image;
    }
    if (img.bytes.empty())
      warnings.push_back(file + ": " + Idx("images", i) + " (\"" +
                         (src.uri.empty() ? src.name : src.uri) +
                         "\") not found; kept as a reference");
    if (img.mime_type.empty()) {
      std::string u = img.uri;
      std::transform(u.begin(), u.end(), u.begin(), ::tolower);
      if (u.size() > 4 && u.substr(u.size() - 4) == ".png")
        img.mime_type = "image/png";
      else if (u.size() > 4 &&
               (u.substr(u.size() - 4) == ".jpg" || u.substr(u.size() - 5) == ".jpeg"))
        img.mime_type = "image/jpeg";
    }
    av.images.push_back(std::move(img));
  }
  if (const Json* a = Find(root, "asset")) av.asset_json = Dump(*a);
  if (const Json* ext = Find(root, "extensions"); ext && ext->is_object())
    for (auto it = ext->begin(); it != ext->end(); ++it)
      if (!IsModelledExtension(it.key())) av.unknown_extensions[it.key()] = Dump(it.value());
  // A VRM Animation's humanoid is kept as JSON but read by the retargeter: checked here.
  if (const Json* ext = GetObject(root, "extensions", "")) {
    if (const Json* anim = GetObject(*ext, "VRMC_vrm_animation", "extensions")) {
      const std::string f = "extensions.VRMC_vrm_animation";
      if (const Json* hum = GetObject(*anim, "humanoid", f))
        if (const Json* bones = GetObject(*hum, "humanBones", f + ".humanoid"))
          for (auto b = bones->begin(); b != bones->end(); ++b) {
            const std::string bf = f + ".humanoid.humanBones." + b.key();
            if (!b.value().is_object()) throw ReadError(bf, "expected an object");
            if (!Find(b.value(), "node")) throw ReadError(bf + ".node", "missing");
            GetIndex(b.value(), "node", -1, m.nodes.size(), bf);
          }
    }
  }
  // A required extension changes how the file must be read. Those that only add material,
  // texture or light data pass through (kept verbatim, honoured by the renderer that shows the
  // avatar); one that changes geometry or skeleton decoding, or one we do not know, fails the
  // load, as it does in three.js.
  for (const auto& e : GetArray(root, "extensionsRequired", "")) {
    if (!e.is_string()) throw ReadError("extensionsRequired", "expected strings");
    const std::string name = e.get<std::string>();
    const bool passes = name.rfind("KHR_materials_", 0) == 0 || name.rfind("VRMC_", 0) == 0 ||
                        name == "KHR_texture_transform" || name == "KHR_texture_basisu" ||
                        name == "EXT_texture_webp" || name == "EXT_texture_avif" ||
                        name == "KHR_lights_punctual" || name == "KHR_mesh_quantization";
    if (!passes && !IsModelledExtension(name))
      throw ReadError("extensionsRequired", "\"" + name + "\" is not supported");
    if (!IsModelledExtension(name) && name != "KHR_mesh_quantization")
      av.extensions_required.push_back(name);
  }
}

}  // namespace hairswing::io
