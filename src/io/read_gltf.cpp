// glTF 2.0 core reader: bytes -> tinygltf::Model -> Avatar, with every index, count and number
// checked. tinygltf parses the container, JSON, data URIs and external files (through
// gltf_files.h); we decode accessors ourselves so that each one is bounds-checked against its
// buffer view (gltf_reader.h) and convert the scene in read_gltf_scene.cpp. This file drives it:
// GLB header, limits, the load, pass-through data, the VRM extensions.
#include <tiny_gltf.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "hairswing/io.h"
#include "io/compat.h"
#include "io/decode_compressed.h"
#include "io/gltf_files.h"
#include "io/gltf_reader.h"
#include "io/read_internal.h"

namespace hairswing {
namespace io {

void CollectExtensionNames(const Json& json, std::vector<std::string>& out) {
  if (json.is_object()) {
    for (auto it = json.begin(); it != json.end(); ++it) {
      if (it.key() == "extensions" && it.value().is_object())
        for (auto e = it.value().begin(); e != it.value().end(); ++e) out.push_back(e.key());
      CollectExtensionNames(it.value(), out);
    }
  } else if (json.is_array()) {
    for (const auto& e : json) CollectExtensionNames(e, out);
  }
}

}  // namespace io

namespace {

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Parses just enough of a GLB header to hand the JSON chunk to nlohmann for our own passes.
// tinygltf re-validates the container.
bool ExtractGlbJson(const uint8_t* data, size_t size, std::string* json, std::string* err) {
  if (size < 20) {
    *err = "GLB header: file truncated (" + std::to_string(size) + " bytes)";
    return false;
  }
  uint32_t version, length, chunk_len, chunk_type;
  std::memcpy(&version, data + 4, 4);
  std::memcpy(&length, data + 8, 4);
  std::memcpy(&chunk_len, data + 12, 4);
  std::memcpy(&chunk_type, data + 16, 4);
  if (version != 2) {
    *err = "GLB header.version: " + std::to_string(version) + " (expected 2)";
    return false;
  }
  if (length < 20) {
    *err = "GLB header.length: " + std::to_string(length) + " is smaller than the header";
    return false;
  }
  if (length > size) {
    *err = "GLB header.length: " + std::to_string(length) + " bytes declared, file has " +
           std::to_string(size) + " (truncated)";
    return false;
  }
  if (chunk_type != 0x4E4F534Au) {
    *err = "GLB chunk 0: not a JSON chunk";
    return false;
  }
  if (chunk_len > length - 20) {
    *err = "GLB chunk 0.length: " + std::to_string(chunk_len) + " exceeds the file";
    return false;
  }
  json->assign(reinterpret_cast<const char*>(data) + 20, chunk_len);
  return true;
}

}  // namespace

Result<LoadedAvatar> LoadAvatarFromMemory(const uint8_t* data, size_t size, const std::string& name,
                                          const std::string& base_dir, const LoadOptions& options) {
  using namespace io;
  const std::string file = BaseName(name);
  auto fail = [&](StatusCode code, const std::string& what) -> Status {
    return Status(code, file + ": " + what);
  };
  if (size > 0xFFFFFFF0u) return fail(StatusCode::kInvalidInput, "file larger than 4 GiB");
  const bool is_glb = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
  std::string json_text;
  if (is_glb) {
    std::string err;
    if (!ExtractGlbJson(data, size, &json_text, &err)) return fail(StatusCode::kInvalidInput, err);
  } else {
    json_text.assign(reinterpret_cast<const char*>(data), size);
  }
  if (std::string deep = JsonNestingError(json_text); !deep.empty())
    return fail(StatusCode::kInvalidInput,
                std::string(is_glb ? "JSON chunk" : "JSON") + ": " + deep);
  if (std::string many = JsonValuesError(json_text); !many.empty())
    return fail(StatusCode::kInvalidInput,
                std::string(is_glb ? "JSON chunk" : "JSON") + ": " + many);
  Json root;
  try {
    root = Json::parse(json_text);
  } catch (const std::bad_alloc&) {
    return fail(StatusCode::kInvalidInput, std::string(is_glb ? "JSON chunk" : "JSON") +
                                               ": out of memory while parsing " +
                                               std::to_string(json_text.size()) + " bytes");
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    return fail(StatusCode::kInvalidInput,
                std::string(is_glb ? "JSON chunk" : "JSON") + ": " + what);
  }
  if (!root.is_object()) return fail(StatusCode::kInvalidInput, "JSON: top level is not an object");

  LoadedAvatar out;
  Avatar& av = out.avatar;
  av.source_path = name;
  // Bytes without a folder (an upload, the C API's and the WebAssembly package's buffers): no
  // file the asset names is read from disk, so an asset cannot make us read what lies beside us.
  const bool no_folder = base_dir.empty();
  try {
    CheckCoreTypes(root);
    // External files must lie inside the asset's folder (gltf_files.h, InsideFolder): a buffer
    // outside is an error; an image outside is not read (tinygltf's load through FsReadWholeFile
    // fails) and reported like a missing image.
    const Json& buffers = GetArray(root, "buffers", "");
    for (size_t i = 0; i < buffers.size(); ++i) {
      const std::string uri = GetString(buffers[i], "uri", "", Idx("buffers", i));
      if (uri.empty() || uri.rfind("data:", 0) == 0 || no_folder) continue;
      if (!InsideFolder(base_dir, JoinPath(base_dir, PercentDecode(uri))))
        throw ReadError(Idx("buffers", i) + ".uri",
                        "\"" + uri + "\" points outside the asset's folder");
    }
    // Buffer lengths that disagree with the bytes present (docs/compat.md): tinygltf is given the
    // real lengths; CheckBufferLengthFixes below keeps every view within the real bytes.
    std::vector<uint8_t> rewrapped;
    const uint8_t* load_data = data;
    size_t load_size = size;
    // Compressed geometry: what the container parser must not look for (decode_compressed.h).
    const bool prepared = PrepareCompressedForParser(root);
    const std::vector<BufferLengthFix> length_fixes =
        MatchBufferLengths(root, data, size, is_glb, [&](const std::string& uri) {
          return no_folder ? std::string() : JoinPath(base_dir, PercentDecode(uri));
        });
    if (!length_fixes.empty() || prepared) {
      json_text = Dump(root);
      if (is_glb) {
        rewrapped = RewrapGlb(data, size, json_text);
        load_data = rewrapped.data();
        load_size = rewrapped.size();
      }
    }
    // Declared buffer sizes, so missing .bin files can be served as zeros (see FsContext).
    FsContext fsctx;
    fsctx.base_dir = base_dir;
    fsctx.no_files = no_folder;
    fsctx.max_bytes = 0xFFFFFFF0u;
    const Json& jbuffers = GetArray(root, "buffers", "");
    double missing_total = 0;  // bytes served as zeros, over all missing files
    for (size_t i = 0; i < jbuffers.size(); ++i) {
      double len = GetNumber(jbuffers[i], "byteLength", -1, Idx("buffers", i));
      if (len < 0 || len > 2.0e9 || len != std::floor(len))
        throw ReadError(Idx("buffers", i) + ".byteLength", "missing or absurd");
      std::string uri = GetString(jbuffers[i], "uri", "", Idx("buffers", i));
      if (uri.empty() || uri.rfind("data:", 0) == 0) continue;
      std::error_code ec;
      if (no_folder ||
          !std::filesystem::is_regular_file(JoinPath(base_dir, PercentDecode(uri)), ec)) {
        missing_total += len;
        if (missing_total > static_cast<double>(options.max_missing_buffer_bytes))
          throw ReadError(Idx("buffers", i),
                          "file \"" + uri +
                              "\" is missing, and the missing files' byteLengths add up to more "
                              "than can be stood in for with zeros (" +
                              std::to_string(options.max_missing_buffer_bytes >> 20) + " MiB)");
      }
      fsctx.buffer_paths[JoinPath(base_dir, uri)] = static_cast<size_t>(len);
      fsctx.buffer_paths[JoinPath(base_dir, PercentDecode(uri))] = static_cast<size_t>(len);
    }
    for (const char* key : {"accessors", "nodes", "meshes", "bufferViews", "animations", "skins"})
      if (GetArray(root, key, "").size() > options.max_elements)
        throw ReadError(key, "absurd element count");

    tinygltf::TinyGLTF loader;
    tinygltf::FsCallbacks cbs{&FsFileExists, &FsExpandPath, &FsReadWholeFile, &FsWriteWholeFile,
                              &fsctx};
    loader.SetFsCallbacks(cbs);
    loader.SetImageLoader(&KeepImageBytes, nullptr);
    tinygltf::Model model;
    std::string err, warn;
    bool ok = is_glb
                  ? loader.LoadBinaryFromMemory(&model, &err, &warn, load_data,
                                                static_cast<unsigned>(load_size), base_dir)
                  : loader.LoadASCIIFromString(&model, &err, &warn, json_text.data(),
                                               static_cast<unsigned>(json_text.size()), base_dir);
    if (!ok) {
      std::string first = err.substr(0, err.find('\n'));
      return fail(StatusCode::kInvalidInput, first.empty() ? "not a valid glTF file" : first);
    }
    // The decoded streams share the budget of decoded values (4 bytes each), as accessors do.
    DecodeCompressedGeometry(
        model, root, options.max_elements,
        options.max_decoded_values > SIZE_MAX / 4 ? SIZE_MAX : options.max_decoded_values * 4);
    Reader reader{model, {}, options.max_elements, options.max_decoded_values};
    for (size_t i = 0; i < model.buffers.size(); ++i) {
      const std::string uri = model.buffers[i].uri;
      if (!uri.empty() && (fsctx.missing.count(JoinPath(base_dir, uri)) ||
                           fsctx.missing.count(JoinPath(base_dir, PercentDecode(uri))))) {
        reader.missing_buffers.insert(static_cast<int>(i));
        out.warnings.push_back(file + ": " + Idx("buffers", i) + " file \"" + uri + "\" not found");
      }
    }
    CheckBufferLengthFixes(length_fixes, root, file, &out.warnings);
    std::string ext = std::filesystem::path(name).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
    av.source_format = ext == ".vrm" ? "vrm" : is_glb ? "glb" : "gltf";

    ReadNodes(model, root, av);
    ReadSkins(reader, av);
    ReadMeshes(reader, root, file, av, out.warnings);
    CheckSkinJoints(av);
    ReadAnimations(reader, av);
    ReadPassThrough(model, root, file, reader.missing_buffers, av, out.warnings);
    const Json* exts = Find(root, "extensions");
    if (exts && Find(*exts, "VRM")) {
      ReadVrm0(root, av, out.warnings);
      NormaliseVrm0Axes(av);
    } else {
      ReadVrm1(root, av, out.warnings);
    }
  } catch (const ReadError& e) {
    return fail(StatusCode::kInvalidInput, e.what());
  } catch (const std::bad_alloc&) {
    return fail(StatusCode::kInvalidInput, "out of memory (absurd counts?)");
  } catch (const std::exception& e) {
    return fail(StatusCode::kInvalidInput, e.what());
  }
  return out;
}

Result<LoadedAvatar> LoadAvatar(const std::string& path, const LoadOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return Status(StatusCode::kIoError, path + ": no such file");
  // A folder, FIFO or device is named as what it is (opening a FIFO would block forever).
  if (fs::is_directory(st)) return Status(StatusCode::kIoError, path + ": is a directory");
  if (!fs::is_regular_file(st))
    return Status(StatusCode::kIoError, path + ": not a regular file (a FIFO, socket or device)");
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f)
    return Status(StatusCode::kIoError, path + ": cannot open (" + std::strerror(errno) + ")");
  std::streamoff size = f.tellg();
  if (size < 0 || size > 0xFFFFFFF0ll)
    return Status(StatusCode::kInvalidInput, path + ": file too large");
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  // A large file is read whole only when it starts like a model: the GLB magic, or glTF JSON's
  // '{' after white space (a 3 GiB file of zeros used to cost 6 GB of memory before failing).
  if (size > (std::streamoff(64) << 20) && ext != ".bvh") {
    char head[4096] = {};
    f.seekg(0);
    f.read(head, sizeof head);
    const std::streamsize got = f.gcount();
    std::streamsize i = got >= 3 && std::memcmp(head, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < got && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
    if (!(got >= 4 && std::memcmp(head, "glTF", 4) == 0) && !(i < got && head[i] == '{')) {
      char what[8];
      std::snprintf(what, sizeof what, "0x%02x", i < got ? static_cast<unsigned char>(head[i]) : 0);
      return Status(StatusCode::kInvalidInput,
                    path + ": " + std::to_string(size) +
                        " bytes that are neither GLB (no 'glTF' header) nor glTF JSON (starts "
                        "with byte " +
                        what + ")");
    }
    f.clear();
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  f.seekg(0);
  if (size > 0 && !f.read(reinterpret_cast<char*>(bytes.data()), size))
    return Status(StatusCode::kIoError, path + ": read failed");
  if (ext == ".bvh")
    return LoadBvhFromText(std::string(bytes.begin(), bytes.end()), BaseName(path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return LoadAvatarFromMemory(bytes.data(), bytes.size(), path, dir, options);
}

}  // namespace hairswing
