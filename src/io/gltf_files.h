// File access for the glTF reader: the callbacks tinygltf reads buffers and images through, and
// the URI helpers. Private to src/io.
#pragma once

#include <tiny_gltf.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace hairswing::io {

// tinygltf fails the whole load when a buffer file is missing. Real files ship without their
// display-mesh .bin (the three-vrm fixtures), so a missing buffer is served as zeros of the
// declared size and remembered; meshes that read from it are dropped afterwards with a warning.
struct FsContext {
  std::string base_dir;
  /// No folder was given (bytes from memory): no file is read at all; buffers the asset names
  /// are missing (served as zeros, reported), images are missing.
  bool no_files = false;
  std::map<std::string, size_t> buffer_paths;  // joined path -> declared byteLength
  std::set<std::string> missing;               // joined paths served as zeros
  size_t max_bytes = 0;
};

// tinygltf::FsCallbacks over an FsContext (the `user` pointer).
bool FsFileExists(const std::string& path, void* user);
std::string FsExpandPath(const std::string& p, void* user);
bool FsReadWholeFile(std::vector<unsigned char>* out, std::string* err, const std::string& path,
                     void* user);
bool FsWriteWholeFile(std::string* err, const std::string& path,
                      const std::vector<unsigned char>& data, void* user);

// Images are kept as encoded bytes; we never decode pixels. tinygltf hands an image stored in a
// bufferView over as a pointer into the buffer without checking that the view lies inside it, so
// those bytes are not read here but copied, bounds-checked, in ReadPassThrough.
bool KeepImageBytes(tinygltf::Image* image, const int index, std::string* err, std::string* warn,
                    int req_width, int req_height, const unsigned char* bytes, int size,
                    void* user);

std::string JoinPath(const std::string& dir, const std::string& file);
/// True when `path` (base_dir joined with a decoded URI) names a file inside base_dir: URIs may
/// not climb out of the asset's folder ("../../etc/passwd"), so a file from a stranger cannot make
/// us read, and embed in our output, anything beside it.
bool InsideFolder(const std::string& base_dir, const std::string& path);
/// "%20" -> " " (URIs in glTF are percent-encoded).
std::string PercentDecode(const std::string& s);

}  // namespace hairswing::io
