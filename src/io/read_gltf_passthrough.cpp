// What we carry through without modelling it: materials, textures, samplers and images (bytes,
// never decoded; images inside bufferViews copied bounds-checked), the asset object, root
// extensions and extensionsRequired.
#include <algorithm>
#include <cstring>
#include <set>

#include "io/gltf_reader.h"

namespace hairswing::io {

void ReadPassThrough(const tinygltf::Model& m, const Json& root, const std::string& file,
                     const std::set<int>& missing_buffers, Avatar& av, Warnings& warnings) {
  const Json& mats = GetArray(root, "materials", "");
  for (size_t i = 0; i < mats.size(); ++i)
    av.materials.push_back({GetString(mats[i], "name", "", Idx("materials", i)), Dump(mats[i])});
  const Json& texs = GetArray(root, "textures", "");
  for (size_t i = 0; i < texs.size(); ++i) {
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
  for (const auto& e : GetArray(root, "extensionsRequired", "")) {
    if (!e.is_string()) throw ReadError("extensionsRequired", "expected strings");
    std::string name = e.get<std::string>();
    if (name == "KHR_draco_mesh_compression" || name == "EXT_meshopt_compression" ||
        name == "KHR_mesh_quantization") {
      if (name != "KHR_mesh_quantization")
        throw ReadError("extensionsRequired", "\"" + name + "\" is not supported");
    }
    if (!IsModelledExtension(name) && name != "KHR_mesh_quantization")
      av.extensions_required.push_back(name);
  }
}

}  // namespace hairswing::io
