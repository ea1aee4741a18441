// PNG output through Debian's libstb-dev (stb_image_write), compiled in this file only.
#include <vector>

#include "hairswing/files.h"
#include "hairswing/render.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>

namespace hairswing {

Status WritePng(const std::string& path, int width, int height, std::span<const uint8_t> rgb,
                bool force) {
  if (width <= 0 || height <= 0 || rgb.size() != static_cast<size_t>(width) * height * 3)
    return Status(StatusCode::kInvalidInput, path + ": pixel buffer size mismatch");
  // Encode in memory, then write through the one safe writer (no overwrite unasked, no partial
  // file on a full disk).
  std::vector<uint8_t> png;
  auto append = [](void* ctx, void* data, int size) {
    auto* out = static_cast<std::vector<uint8_t>*>(ctx);
    out->insert(out->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
  };
  if (!stbi_write_png_to_func(append, &png, width, height, 3, rgb.data(), width * 3))
    return Status(StatusCode::kIoError, path + ": cannot encode PNG");
  return WriteFileAtomic(path, png, force);
}

}  // namespace hairswing
