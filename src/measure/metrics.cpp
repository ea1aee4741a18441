// Metric building blocks: mesh edges, stretch summary and the Embree ray caster.
#include <embree3/rtcore.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "hairswing/collide.h"
#include "hairswing/measure.h"

namespace hairswing {

std::vector<std::pair<uint32_t, uint32_t>> TriangleEdges(std::span<const uint32_t> idx) {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  e.reserve(idx.size());
  for (size_t t = 0; t + 2 < idx.size(); t += 3)
    for (int k = 0; k < 3; ++k) {
      uint32_t a = idx[t + k], b = idx[t + (k + 1) % 3];
      if (a == b) continue;
      if (a > b) std::swap(a, b);
      e.emplace_back(a, b);
    }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  return e;
}

StretchSummary SummariseStretch(std::span<const double> m) {
  StretchSummary s;
  if (m.empty()) return s;
  s.p99_pct = 100.0 * (Quantile(std::vector<double>(m.begin(), m.end()), 0.99) - 1.0);
  const auto it = std::max_element(m.begin(), m.end());
  s.worst_pct = 100.0 * (*it - 1.0);
  s.worst_edge = static_cast<int>(it - m.begin());
  return s;
}

float LinkPenetration(const glm::vec3& a, const glm::vec3& b, const glm::vec3& h0,
                      const glm::vec3& h1, float radius) {
  float u, v;
  ClosestSegmentParams(a, b, h0, h1, &u, &v);
  return radius - glm::length(a + u * (b - a) - (h0 + v * (h1 - h0)));
}

double MaxStepMotion(std::span<const glm::vec3> path) {
  double m = 0;
  for (size_t i = 1; i < path.size(); ++i)
    m = std::max(m, static_cast<double>(glm::length(path[i] - path[i - 1])));
  return m;
}

double AngleDeg(const glm::vec3& a, const glm::vec3& b) {
  const float la = glm::length(a), lb = glm::length(b);
  if (la < 1e-12f || lb < 1e-12f) return 0.0;
  return glm::degrees(std::acos(std::clamp(glm::dot(a / la, b / lb), -1.0f, 1.0f)));
}

double ChordFlipDeg(const glm::vec3& rest_chord, const glm::vec3& now_chord,
                    const glm::mat3& attach_rest, const glm::mat3& attach_now) {
  // Rotations: the transpose is the inverse.
  return AngleDeg(glm::transpose(attach_rest) * rest_chord, glm::transpose(attach_now) * now_chord);
}

struct OcclusionCaster::Impl {
  RTCDevice device = nullptr;
  RTCScene scene = nullptr;
  RTCGeometry geom = nullptr;
  size_t vertices = 0;
  float* vbuf = nullptr;
  bool empty = true;
};

OcclusionCaster::OcclusionCaster() : impl_(std::make_unique<Impl>()) {
  impl_->device = rtcNewDevice("threads=1");
  impl_->scene = rtcNewScene(impl_->device);
  // The shirt is re-posed at every sample with the same triangles: a dynamic scene whose
  // hierarchy is refitted to the moved vertices, not rebuilt. Which triangle a ray hits first and
  // at what distance does not depend on the hierarchy, only the cost of finding it.
  rtcSetSceneFlags(impl_->scene, RTC_SCENE_FLAG_DYNAMIC);
  rtcSetSceneBuildQuality(impl_->scene, RTC_BUILD_QUALITY_LOW);
}

OcclusionCaster::~OcclusionCaster() {
  if (impl_->geom) rtcReleaseGeometry(impl_->geom);
  rtcReleaseScene(impl_->scene);
  rtcReleaseDevice(impl_->device);
}

namespace {
// Embree accepts coordinates within about +-1.8e18 (its docs' "valid range"); beyond that (an
// avatar with a 1e30 translation) it asserts. Such a mesh casts no shadow in the measurement.
constexpr float kEmbreeLimit = 1e18f;
bool InEmbreeRange(const glm::vec3& v) {
  return std::fabs(v.x) < kEmbreeLimit && std::fabs(v.y) < kEmbreeLimit &&
         std::fabs(v.z) < kEmbreeLimit;
}
}  // namespace

void OcclusionCaster::SetMesh(std::span<const glm::vec3> pos, std::span<const uint32_t> idx) {
  Impl& m = *impl_;
  if (!std::all_of(pos.begin(), pos.end(), InEmbreeRange)) {
    m.empty = true;
    return;
  }
  if (!m.geom || m.vertices != pos.size()) {
    if (m.geom) {
      rtcDetachGeometry(m.scene, 0);
      rtcReleaseGeometry(m.geom);
    }
    m.geom = rtcNewGeometry(m.device, RTC_GEOMETRY_TYPE_TRIANGLE);
    rtcSetGeometryBuildQuality(m.geom, RTC_BUILD_QUALITY_REFIT);
    // Embree reads 16 bytes past the last vertex: allocate one spare.
    m.vbuf = static_cast<float*>(rtcSetNewGeometryBuffer(
        m.geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), pos.size() + 1));
    auto* ibuf = static_cast<uint32_t*>(rtcSetNewGeometryBuffer(
        m.geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(uint32_t), idx.size() / 3));
    std::copy(idx.begin(), idx.begin() + (idx.size() / 3) * 3, ibuf);
    m.vertices = pos.size();
    std::copy(&pos[0].x, &pos[0].x + 3 * pos.size(), m.vbuf);
    rtcCommitGeometry(m.geom);
    rtcAttachGeometryByID(m.scene, m.geom, 0);
  } else {
    std::copy(&pos[0].x, &pos[0].x + 3 * pos.size(), m.vbuf);
    rtcUpdateGeometryBuffer(m.geom, RTC_BUFFER_TYPE_VERTEX, 0);
    rtcCommitGeometry(m.geom);
  }
  rtcCommitScene(m.scene);
  m.empty = idx.size() < 3;
}

float OcclusionCaster::DepthBehind(const glm::vec3& p, const glm::vec3& dir) const {
  return DepthBehind(p, dir, nullptr);
}

float OcclusionCaster::DepthBehind(const glm::vec3& p, const glm::vec3& dir, int* triangle) const {
  if (triangle) *triangle = -1;
  if (impl_->empty || !InEmbreeRange(p) || !InEmbreeRange(dir)) return -1.0f;
  RTCIntersectContext ctx;
  rtcInitIntersectContext(&ctx);
  RTCRayHit rh{};
  rh.ray.org_x = p.x;
  rh.ray.org_y = p.y;
  rh.ray.org_z = p.z;
  rh.ray.dir_x = dir.x;
  rh.ray.dir_y = dir.y;
  rh.ray.dir_z = dir.z;
  rh.ray.tnear = 0.0f;
  rh.ray.tfar = std::numeric_limits<float>::infinity();
  rh.ray.mask = 0xFFFFFFFFu;
  rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
  rtcIntersect1(impl_->scene, &ctx, &rh);
  if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) return -1.0f;
  if (triangle) *triangle = static_cast<int>(rh.hit.primID);
  return rh.ray.tfar * glm::length(dir);
}

}  // namespace hairswing
