// Rotation and matrix helpers shared by every module (core is the bottom layer: any module may
// include core/*.h; no module includes another module's private header).
#pragma once

#include <cmath>
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#if HAIRSWING_SIMD && defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hairswing::internal {

/// The rotation of a world matrix with its scale removed (columns normalised).
/// A matrix with an axis scaled to zero (a clip's scale-0 key hides a bone that way) has no
/// rotation to recover; it gives identity instead of NaN.
inline glm::quat RotationOf(const glm::mat4& m) {
  const glm::vec3 x(m[0]), y(m[1]), z(m[2]);
  const float lx = glm::dot(x, x), ly = glm::dot(y, y), lz = glm::dot(z, z);
  if (!(lx > 0.0f && ly > 0.0f && lz > 0.0f) || !std::isfinite(lx + ly + lz))
    return glm::quat(1, 0, 0, 0);
  glm::mat3 r(glm::normalize(x), glm::normalize(y), glm::normalize(z));
  return glm::normalize(glm::quat_cast(r));
}

/// FromUnitVectors before its normalisation (for a caller that normalises a product anyway).
inline glm::quat FromUnitVectorsUnnormalised(const glm::vec3& from, const glm::vec3& to) {
  float r = glm::dot(from, to) + 1.0f;
  glm::quat q;
  if (r < 1e-7f) {
    r = 0.0f;
    if (std::fabs(from.x) > std::fabs(from.z))
      q = glm::quat(r, -from.y, from.x, 0.0f);
    else
      q = glm::quat(r, 0.0f, -from.z, from.y);
  } else {
    const glm::vec3 c = glm::cross(from, to);
    q = glm::quat(r, c.x, c.y, c.z);
  }
  return q;
}

/// Shortest rotation taking unit vector `from` to unit vector `to` (as three.js'
/// Quaternion.setFromUnitVectors, including its choice of axis for opposite vectors).
inline glm::quat FromUnitVectors(const glm::vec3& from, const glm::vec3& to) {
  return glm::normalize(FromUnitVectorsUnnormalised(from, to));
}

/// True when the matrix is rotation x uniform scale (+ translation), within float tolerance.
inline bool IsSimilarity(const glm::mat4& m) {
  const glm::vec3 a(m[0]), b(m[1]), c(m[2]);
  const float la = glm::dot(a, a), lb = glm::dot(b, b), lc = glm::dot(c, c);
  const float tol = 1e-5f * la;
  return std::fabs(la - lb) <= tol && std::fabs(la - lc) <= tol &&
         std::fabs(glm::dot(a, b)) <= tol && std::fabs(glm::dot(a, c)) <= tol &&
         std::fabs(glm::dot(b, c)) <= tol;
}

/// parent * local for a `local` whose last row is (0, 0, 0, 1), as every translation-rotation-
/// scale matrix (ToMatrix) has: glm's product without the terms that multiply that row, so the
/// same sums in the same order (a quarter fewer operations where world matrices are chained).
inline glm::mat4 MulAffine(const glm::mat4& parent, const glm::mat4& local) {
  glm::mat4 r;
  for (int c = 0; c < 3; ++c)
    r[c] = parent[0] * local[c][0] + parent[1] * local[c][1] + parent[2] * local[c][2];
  r[3] = parent[0] * local[3][0] + parent[1] * local[3][1] + parent[2] * local[3][2] + parent[3];
  return r;
}

/// MulAffine written into `out` (which must not be `parent` or `local`), with SSE2 where the
/// build has it: the same sums in the same order on the four rows at once, so the same bits.
/// Written column by column from registers: a whole matrix returned and copied went through
/// narrow stores read back as wide loads, which the processor does not forward.
inline void MulAffineTo(const glm::mat4& parent, const glm::mat4& local, glm::mat4* out) {
#if HAIRSWING_SIMD && defined(__SSE2__)
  const __m128 p0 = _mm_loadu_ps(&parent[0][0]), p1 = _mm_loadu_ps(&parent[1][0]),
               p2 = _mm_loadu_ps(&parent[2][0]), p3 = _mm_loadu_ps(&parent[3][0]);
  for (int c = 0; c < 4; ++c) {
    __m128 v = _mm_add_ps(_mm_add_ps(_mm_mul_ps(p0, _mm_set1_ps(local[c][0])),
                                     _mm_mul_ps(p1, _mm_set1_ps(local[c][1]))),
                          _mm_mul_ps(p2, _mm_set1_ps(local[c][2])));
    if (c == 3) v = _mm_add_ps(v, p3);
    _mm_storeu_ps(&(*out)[c][0], v);
  }
#else
  *out = MulAffine(parent, local);
#endif
}

/// T(position) * R(rotation) * uniform scale, as a matrix.
inline glm::mat4 Compose(const glm::vec3& position, const glm::quat& rotation, float scale) {
  const glm::mat3 r = glm::mat3_cast(rotation) * scale;
  return glm::mat4(glm::vec4(r[0], 0.0f), glm::vec4(r[1], 0.0f), glm::vec4(r[2], 0.0f),
                   glm::vec4(position, 1.0f));
}

}  // namespace hairswing::internal
