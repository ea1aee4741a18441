// Orthographic triangle rasteriser with a depth buffer and flat Lambert shading. Colours come
// from each material's baseColorFactor (parsed from its glTF JSON).
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "hairswing/render.h"

namespace hairswing {
namespace {

glm::vec3 MaterialColor(const Avatar& av, int material) {
  if (material < 0 || material >= static_cast<int>(av.materials.size())) return {0.8f, 0.8f, 0.8f};
  auto j = nlohmann::json::parse(av.materials[material].json, nullptr, false);
  if (j.is_object() && j.contains("pbrMetallicRoughness") &&
      j["pbrMetallicRoughness"].contains("baseColorFactor")) {
    const auto& c = j["pbrMetallicRoughness"]["baseColorFactor"];
    if (c.is_array() && c.size() >= 3)
      return {c[0].get<float>(), c[1].get<float>(), c[2].get<float>()};
  }
  return {0.8f, 0.8f, 0.8f};
}

// The camera of a view: the image's right and the direction towards the camera (world, unit),
// from the avatar's right r and forward f = up x r. Front: the camera in front (towards +f), the
// avatar's left (-r) on the image's right; back: behind, its right on the image's right; side:
// at its left (towards -r), its face towards the image's left.
struct ViewAxes {
  glm::vec3 image_right, to_camera;
};
ViewAxes AxesOf(const RenderOptions& o) {
  const glm::vec3 r = o.right, f = glm::cross(glm::vec3(0, 1, 0), r);
  switch (o.view) {
    case RenderOptions::View::kBack:
      return {r, -f};
    case RenderOptions::View::kSide:
      return {-f, -r};
    case RenderOptions::View::kFront:
      break;
  }
  return {-r, f};
}

// World -> (pixel x, pixel y, depth towards the viewer).
glm::vec3 Project(const RenderOptions& o, const ViewAxes& v, const glm::vec3& p) {
  const glm::vec3 d = p - o.centre;
  return {o.width * 0.5f + glm::dot(d, v.image_right) / o.metres_per_pixel,
          o.height * 0.5f - d.y / o.metres_per_pixel, glm::dot(d, v.to_camera)};
}

// Each primitive drawn (the triangles of the meshes not hidden), posed at `world`:
// f(instance, primitive, posed positions). A primitive that cannot be posed is left out.
template <class F>
void ForEachDrawnPrimitive(const Avatar& av, const Rig& rig, std::span<const glm::mat4> world,
                           const RenderOptions& o, F f) {
  std::vector<glm::mat4> palette;
  std::vector<glm::vec3> posed;
  for (const MeshInstance& inst : rig.meshes()) {
    if (inst.mesh < static_cast<int>(o.hidden_meshes.size()) && o.hidden_meshes[inst.mesh])
      continue;
    for (const Primitive& prim : av.meshes[inst.mesh].primitives) {
      if (prim.mode != 4) continue;
      posed.resize(prim.positions.size());
      if (inst.skin >= 0 && rig.skins()[inst.skin].joints.size() > palette.size())
        palette.resize(rig.skins()[inst.skin].joints.size());
      if (!PosePrimitive(rig, inst, prim, world, palette, posed).ok()) continue;
      f(inst, prim, std::span<const glm::vec3>(posed));
    }
  }
}

}  // namespace

void FrameAvatar(const Avatar& av, const Rig& rig, std::span<const glm::mat4> world,
                 RenderOptions& o, float margin) {
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
  ForEachDrawnPrimitive(
      av, rig, world, o,
      [&](const MeshInstance&, const Primitive& prim, std::span<const glm::vec3> posed) {
        for (uint32_t i : prim.indices) {
          if (i >= posed.size() || !std::isfinite(posed[i].x + posed[i].y + posed[i].z)) continue;
          lo = glm::min(lo, posed[i]);
          hi = glm::max(hi, posed[i]);
        }
      });
  if (!(lo.x <= hi.x))  // nothing drawn: the nodes
    for (const glm::mat4& m : world) {
      lo = glm::min(lo, glm::vec3(m[3]));
      hi = glm::max(hi, glm::vec3(m[3]));
    }
  if (!(lo.x <= hi.x)) return;
  o.centre = 0.5f * (lo + hi);
  // The largest extent over the image's height (a portrait image: outstretched arms may reach
  // past its sides, the head and feet not).
  const glm::vec3 e = hi - lo;
  o.metres_per_pixel = std::max({e.x, e.y, e.z, 0.1f}) * margin / static_cast<float>(o.height);
}

std::vector<uint8_t> RenderAvatar(const Avatar& av, const Rig& rig,
                                  std::span<const glm::mat4> world, const RenderOptions& o) {
  std::vector<uint8_t> rgb(static_cast<size_t>(o.width) * o.height * 3, 0);
  for (int y = 0; y < o.height; ++y)  // soft vertical gradient background
    for (int x = 0; x < o.width; ++x) {
      const uint8_t v = static_cast<uint8_t>(235 - 40 * y / o.height);
      uint8_t* px = &rgb[(static_cast<size_t>(y) * o.width + x) * 3];
      px[0] = v;
      px[1] = v;
      px[2] = static_cast<uint8_t>(std::min(255, v + 10));
    }
  std::vector<float> zbuf(static_cast<size_t>(o.width) * o.height, -1e30f);
  // Lit from above, a little from the image's right, mostly from the camera.
  const ViewAxes axes = AxesOf(o);
  const glm::vec3 light =
      glm::normalize(0.3f * axes.image_right + glm::vec3(0, 0.6f, 0) + 1.0f * axes.to_camera);
  ForEachDrawnPrimitive(
      av, rig, world, o,
      [&](const MeshInstance& inst, const Primitive& prim, std::span<const glm::vec3> posed) {
        const bool tinted =
            inst.mesh < static_cast<int>(o.mesh_tints.size()) && o.mesh_tints[inst.mesh].a > 0;
        const glm::vec3 base =
            tinted ? glm::vec3(o.mesh_tints[inst.mesh]) / 255.0f : MaterialColor(av, prim.material);
        for (size_t t = 0; t + 2 < prim.indices.size(); t += 3) {
          const glm::vec3 a = posed[prim.indices[t]], b = posed[prim.indices[t + 1]],
                          c = posed[prim.indices[t + 2]];
          glm::vec3 n = glm::cross(b - a, c - a);
          const float nl = glm::length(n);
          if (nl < 1e-12f) continue;
          n /= nl;
          if (glm::dot(n, axes.to_camera) < 0) n = -n;  // double-sided
          const float shade = 0.35f + 0.65f * std::max(0.0f, glm::dot(n, light));
          const glm::vec3 col = glm::clamp(base * shade, 0.0f, 1.0f) * 255.0f;
          const glm::vec3 pa = Project(o, axes, a), pb = Project(o, axes, b),
                          pc = Project(o, axes, c);
          const int x0 = std::max(0, static_cast<int>(std::floor(std::min({pa.x, pb.x, pc.x}))));
          const int x1 =
              std::min(o.width - 1, static_cast<int>(std::ceil(std::max({pa.x, pb.x, pc.x}))));
          const int y0 = std::max(0, static_cast<int>(std::floor(std::min({pa.y, pb.y, pc.y}))));
          const int y1 =
              std::min(o.height - 1, static_cast<int>(std::ceil(std::max({pa.y, pb.y, pc.y}))));
          const float area = (pb.x - pa.x) * (pc.y - pa.y) - (pb.y - pa.y) * (pc.x - pa.x);
          if (std::fabs(area) < 1e-9f) continue;
          for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
              const float px = x + 0.5f, py = y + 0.5f;
              const float w0 = ((pb.x - px) * (pc.y - py) - (pb.y - py) * (pc.x - px)) / area;
              const float w1 = ((pc.x - px) * (pa.y - py) - (pc.y - py) * (pa.x - px)) / area;
              const float w2 = 1.0f - w0 - w1;
              if (w0 < 0 || w1 < 0 || w2 < 0) continue;
              const float z = w0 * pa.z + w1 * pb.z + w2 * pc.z;
              float& zb = zbuf[static_cast<size_t>(y) * o.width + x];
              if (z <= zb) continue;
              zb = z;
              uint8_t* p = &rgb[(static_cast<size_t>(y) * o.width + x) * 3];
              p[0] = static_cast<uint8_t>(col.x);
              p[1] = static_cast<uint8_t>(col.y);
              p[2] = static_cast<uint8_t>(col.z);
            }
        }
      });
  for (size_t m = 0; m < o.markers.size(); ++m) {  // markers drawn on top, 5 px squares
    const glm::vec3 p = Project(o, axes, o.markers[m]);
    const glm::u8vec3 c = m < o.marker_colors.size() ? o.marker_colors[m] : glm::u8vec3(255, 0, 0);
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx) {
        const int x = static_cast<int>(p.x) + dx, y = static_cast<int>(p.y) + dy;
        if (x < 0 || y < 0 || x >= o.width || y >= o.height) continue;
        uint8_t* px = &rgb[(static_cast<size_t>(y) * o.width + x) * 3];
        px[0] = c.x;
        px[1] = c.y;
        px[2] = c.z;
      }
  }
  return rgb;
}

}  // namespace hairswing
