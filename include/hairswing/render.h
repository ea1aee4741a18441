// A small software rasteriser for looking at avatars: orthographic front/side/back views of the
// posed meshes with flat shading and a depth buffer, written as PNG. For inspection and reports,
// not for production rendering.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hairswing/avatar.h"
#include "hairswing/rig.h"
#include "hairswing/status.h"

namespace hairswing {

struct RenderOptions {
  enum class View {
    kFront,
    kSide,
    kBack
  } view = View::kFront;  ///< front: at the avatar's face; side: at its left; back: at its back
  /// The avatar's right in world space, horizontal and unit (AvatarRight): the views are taken
  /// around it (the default is the right of an avatar facing +Z). The image is what a camera
  /// there sees, not its mirror: in the front view the avatar's left hand is on the image's right.
  glm::vec3 right{-1, 0, 0};
  int width = 512;               ///< pixels
  int height = 768;              ///< pixels
  glm::vec3 centre{0, 0.9f, 0};  ///< world point at the image centre, metres
  float metres_per_pixel = 0.0025f;
  std::vector<uint8_t> hidden_meshes;  ///< per Avatar mesh: 1 = do not draw
  /// Per Avatar mesh: an RGB colour drawn instead of the materials' when alpha > 0 (to tell one
  /// mesh, e.g. worn hair, from a body of the same colour).
  std::vector<glm::u8vec4> mesh_tints;
  /// Optional points drawn on top (e.g. joints), world metres, with an RGB colour each.
  std::vector<glm::vec3> markers;
  std::vector<glm::u8vec3> marker_colors;
};

/// Frames the whole avatar as posed at `world`: sets `options.centre` to the middle of what is
/// drawn (the posed triangles of the meshes not hidden) and `metres_per_pixel` so that its
/// largest extent, times `margin`, spans the image's height (outstretched arms may reach past the
/// sides of a portrait image). An avatar without meshes is framed by its nodes. Node positions
/// alone are not enough: a large head, a hat or long hair reaches far beyond its bones.
void FrameAvatar(const Avatar& avatar, const Rig& rig, std::span<const glm::mat4> world,
                 RenderOptions& options, float margin = 1.25f);

/// Renders the avatar at `world` (rig.node_count() matrices) into RGB pixels.
std::vector<uint8_t> RenderAvatar(const Avatar& avatar, const Rig& rig,
                                  std::span<const glm::mat4> world, const RenderOptions& options);

/// Writes an RGB image as PNG through WriteFileAtomic (an existing file only with `force`).
Status WritePng(const std::string& path, int width, int height, std::span<const uint8_t> rgb,
                bool force = false);

}  // namespace hairswing
