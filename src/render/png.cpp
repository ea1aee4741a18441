// PNG output through Debian's libstb-dev (stb_image_write), compiled in this file only.
#include "hairswing/render.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>

namespace hairswing {

Status WritePng(const std::string& path, int width, int height, std::span<const uint8_t> rgb) {
  if (rgb.size() != static_cast<size_t>(width) * height * 3)
    return Status(StatusCode::kInvalidInput, path + ": pixel buffer size mismatch");
  if (!stbi_write_png(path.c_str(), width, height, 3, rgb.data(), width * 3))
    return Status(StatusCode::kIoError, path + ": cannot write PNG");
  return Status::Ok();
}

}  // namespace hairswing
