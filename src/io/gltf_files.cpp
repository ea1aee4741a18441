// File access for tinygltf (see gltf_files.h): buffers and images read from the asset's folder,
// missing buffers served as zeros of their declared size, writing disabled.
#include "io/gltf_files.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace hairswing::io {

namespace fs = std::filesystem;

bool InsideFolder(const std::string& base_dir, const std::string& path) {
  // Lexical, so "a/../../x" and "%2e%2e/x" (decoded before we get here) are caught without
  // touching the file system; a path that normalises to the folder itself is not a file in it.
  const fs::path base = fs::path(base_dir.empty() ? "." : base_dir).lexically_normal();
  const fs::path rel = fs::path(path).lexically_normal().lexically_relative(base);
  if (rel.empty() || *rel.begin() == ".." || rel == ".") return false;
  // Then through the file system: a symlink in the folder ("hair.bin -> /etc/passwd") or a
  // linked subfolder must not lead out of it either. Both sides are resolved, so a folder that
  // is itself reached through a link still contains its own files.
  std::error_code ec;
  const fs::path real_base = fs::weakly_canonical(base, ec);
  if (ec) return false;
  const fs::path real = fs::weakly_canonical(path, ec);
  if (ec) return false;
  const fs::path real_rel = real.lexically_relative(real_base);
  return !real_rel.empty() && *real_rel.begin() != ".." && real_rel != ".";
}

bool FsFileExists(const std::string& path, void* user) {
  auto* ctx = static_cast<FsContext*>(user);
  if (ctx->no_files) return ctx->buffer_paths.count(path) > 0;
  if (!InsideFolder(ctx->base_dir, path)) return false;
  if (ctx->buffer_paths.count(path)) return true;
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string FsExpandPath(const std::string& p, void*) { return p; }

namespace {

// A buffer file that is not read: zeros of its declared size, recorded as missing. Anything else
// (an image) fails with `why`.
bool ServeMissing(FsContext* ctx, const std::string& path, std::vector<unsigned char>* out,
                  std::string* err, const char* why) {
  auto it = ctx->buffer_paths.find(path);
  if (it == ctx->buffer_paths.end()) {
    if (err) *err = why;
    return false;
  }
  ctx->missing.insert(path);
  out->assign(std::max<size_t>(it->second, 1), 0);
  return true;
}

}  // namespace

bool FsReadWholeFile(std::vector<unsigned char>* out, std::string* err, const std::string& path,
                     void* user) {
  auto* ctx = static_cast<FsContext*>(user);
  if (ctx->no_files)  // bytes from memory: nothing on disk is read, whatever the URI says
    return ServeMissing(ctx, path, out, err,
                        "no folder was given, so files the asset names are not read");
  if (!InsideFolder(ctx->base_dir, path)) {
    if (err) *err = "outside the asset's folder";
    return false;
  }
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) {  // a FIFO would block the open forever
    if (err) *err = "not a regular file";
    return false;
  }
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (f) {
    std::streamoff size = f.tellg();
    if (size < 0 || static_cast<size_t>(size) > ctx->max_bytes) {
      if (err) *err = "file too large";
      return false;
    }
    out->resize(static_cast<size_t>(size));
    f.seekg(0);
    if (size > 0 && !f.read(reinterpret_cast<char*>(out->data()), size)) {
      if (err) *err = "read failed";
      return false;
    }
    return true;
  }
  return ServeMissing(ctx, path, out, err, "cannot open");
}

bool FsWriteWholeFile(std::string* err, const std::string&, const std::vector<unsigned char>&,
                      void*) {
  if (err) *err = "writing through the loader is disabled";
  return false;
}

// Images are kept as encoded bytes; we never decode pixels. tinygltf hands an image stored in a
// bufferView over as a pointer into the buffer without checking that the view lies inside it, so
// those bytes are not read here but copied, bounds-checked, in ReadPassThrough.
bool KeepImageBytes(tinygltf::Image* image, const int, std::string*, std::string*, int, int,
                    const unsigned char* bytes, int size, void*) {
  image->as_is = true;
  if (image->bufferView >= 0) return true;
  image->image.assign(bytes, bytes + std::max(size, 0));
  return true;
}

std::string JoinPath(const std::string& dir, const std::string& file) {
  if (dir.empty()) return file;
  if (dir.back() == '/') return dir + file;
  return dir + "/" + file;
}

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace hairswing::io
