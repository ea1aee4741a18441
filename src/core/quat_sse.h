// One quaternion or vector in one SSE register (x, y, z, w: glm's order in memory), for the
// scalar code's dependent chains of rotations (a lone chain's joints, one after the other).
// Each function performs glm's operations in glm's order, lane by lane, so it gives glm's bits
// (the build turns off floating-point contraction): a - b is computed as a + (-b) where a lane
// needs the other sign, which IEEE arithmetic makes the same number (a NaN result stays NaN; its
// sign, which no caller reads, can differ). The register functions exist only where SSE2 is; the
// functions on glm types at the end use them there and glm elsewhere.
#pragma once

#if HAIRSWING_SIMD && defined(__SSE2__)
#include <emmintrin.h>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace hairswing::internal::sse {

inline __m128 Load(const glm::quat& q) { return _mm_loadu_ps(&q.x); }
// A vector's three components, 0 in the fourth lane.
inline __m128 Load(const glm::vec3& v) { return _mm_setr_ps(v.x, v.y, v.z, 0.0f); }
inline glm::quat StoreQuat(__m128 r) {
  glm::quat q;
  _mm_storeu_ps(&q.x, r);
  return q;
}

inline glm::vec3 StoreVec3(__m128 r) {
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, r);
  return {lanes[0], lanes[1], lanes[2]};
}

template <int A, int B, int C, int D>  // lanes A, B, C, D of v (each 0-3)
inline __m128 Pick(__m128 v) {
  return _mm_shuffle_ps(v, v, _MM_SHUFFLE(D, C, B, A));
}

// glm's p * q: w = pw qw - px qx - py qy - pz qz, x = pw qx + px qw + py qz - pz qy, and so on.
inline __m128 QuatMul(__m128 p, __m128 q) {
  const __m128 last_neg = _mm_setr_ps(0.0f, 0.0f, 0.0f, -0.0f);
  const __m128 t0 = _mm_mul_ps(Pick<3, 3, 3, 3>(p), q);
  const __m128 t1 = _mm_xor_ps(_mm_mul_ps(Pick<0, 1, 2, 0>(p), Pick<3, 3, 3, 0>(q)), last_neg);
  const __m128 t2 = _mm_xor_ps(_mm_mul_ps(Pick<1, 2, 0, 1>(p), Pick<2, 0, 1, 1>(q)), last_neg);
  const __m128 t3 = _mm_mul_ps(Pick<2, 0, 1, 2>(p), Pick<1, 2, 0, 2>(q));
  return _mm_sub_ps(_mm_add_ps(_mm_add_ps(t0, t1), t2), t3);
}

// glm's cross(a, b) in lanes 0-2: (a.y b.z - b.y a.z, a.z b.x - b.z a.x, a.x b.y - b.x a.y).
inline __m128 Cross(__m128 a, __m128 b) {
  return _mm_sub_ps(_mm_mul_ps(Pick<1, 2, 0, 3>(a), Pick<2, 0, 1, 3>(b)),
                    _mm_mul_ps(Pick<1, 2, 0, 3>(b), Pick<2, 0, 1, 3>(a)));
}

// glm's q * v: v + ((uv * q.w) + uuv) * 2, uv = cross(q.xyz, v), uuv = cross(q.xyz, uv).
inline __m128 Rotate(__m128 q, __m128 v) {
  const __m128 uv = Cross(q, v);
  const __m128 uuv = Cross(q, uv);
  const __m128 t = _mm_add_ps(_mm_mul_ps(uv, Pick<3, 3, 3, 3>(q)), uuv);
  return _mm_add_ps(v, _mm_mul_ps(t, _mm_set1_ps(2.0f)));
}

// glm's dot of two vectors (lanes 0-2): (x + y) + z of the products, in lane 0.
inline __m128 Dot3(__m128 a, __m128 b) {
  const __m128 m = _mm_mul_ps(a, b);
  return _mm_add_ss(_mm_add_ss(m, Pick<1, 1, 1, 1>(m)), Pick<2, 2, 2, 2>(m));
}

// glm::normalize of a vector (lanes 0-2): v * (1 / sqrt(dot(v, v))).
inline __m128 Normalize3(__m128 v) {
  const __m128 inv = _mm_div_ss(_mm_set_ss(1.0f), _mm_sqrt_ss(Dot3(v, v)));
  return _mm_mul_ps(v, Pick<0, 0, 0, 0>(inv));
}

// glm::normalize of a quaternion: length sqrt((ww + xx) + (yy + zz)), identity when it is not
// above 0, else each component times 1 / length.
inline __m128 Normalize(__m128 q) {
  const __m128 m = _mm_mul_ps(q, q);
  const __m128 pairs = _mm_add_ps(m, Pick<3, 2, 1, 0>(m));  // lane 0: xx + ww, lane 1: yy + zz
  const __m128 len = _mm_sqrt_ss(_mm_add_ss(pairs, Pick<1, 1, 1, 1>(pairs)));
  if (_mm_cvtss_f32(len) <= 0.0f) return _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f);  // NaN goes on
  const __m128 inv = _mm_div_ss(_mm_set_ss(1.0f), len);
  return _mm_mul_ps(q, Pick<0, 0, 0, 0>(inv));
}

// internal::FromUnitVectorsUnnormalised(from, to) where dot(from, to) + 1 >= 1e-7 (the caller
// checks `r`, lane 0 of the first result, and takes the scalar function otherwise): (r, cross).
inline __m128 ShortestArcUnnormalised(__m128 from, __m128 to, float* r) {
  const float rr = _mm_cvtss_f32(Dot3(from, to)) + 1.0f;
  *r = rr;
  const __m128 c = Cross(from, to);
  const __m128 hi = _mm_unpackhi_ps(c, _mm_set1_ps(rr));  // c.z, r, (lane 3 of c), r
  return _mm_movelh_ps(c, hi);                            // c.x, c.y, c.z, r
}

}  // namespace hairswing::internal::sse
#else
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#endif

#include "core/math.h"

namespace hairswing::internal {

// glm's operations on glm's types, through the register versions above where SSE2 is (the same
// bits either way): what the solver's scalar code calls.
inline glm::quat QuatMul(const glm::quat& p, const glm::quat& q) {
#if HAIRSWING_SIMD && defined(__SSE2__)
  return sse::StoreQuat(sse::QuatMul(sse::Load(p), sse::Load(q)));
#else
  return p * q;
#endif
}

// glm::normalize(q * v): a rest axis turned into the world.
inline glm::vec3 RotateNormalized(const glm::quat& q, const glm::vec3& v) {
#if HAIRSWING_SIMD && defined(__SSE2__)
  return sse::StoreVec3(sse::Normalize3(sse::Rotate(sse::Load(q), sse::Load(v))));
#else
  return glm::normalize(q * v);
#endif
}

// glm::normalize(FromUnitVectorsUnnormalised(from, to) * base): `base` turned so that `from`
// points along `to` (both unit vectors). Opposite ones take the scalar function's axis.
inline glm::quat TurnToward(const glm::quat& base, const glm::vec3& from, const glm::vec3& to) {
#if HAIRSWING_SIMD && defined(__SSE2__)
  float r;
  const __m128 arc = sse::ShortestArcUnnormalised(sse::Load(from), sse::Load(to), &r);
  if (r >= 1e-7f) return sse::StoreQuat(sse::Normalize(sse::QuatMul(arc, sse::Load(base))));
#endif
  return glm::normalize(FromUnitVectorsUnnormalised(from, to) * base);
}

// TurnToward with `from` = base * axis (the rest axis in the joint's frame, turned with it).
inline glm::quat TurnAxisToward(const glm::quat& base, const glm::vec3& axis, const glm::vec3& to) {
#if HAIRSWING_SIMD && defined(__SSE2__)
  return TurnToward(base, sse::StoreVec3(sse::Rotate(sse::Load(base), sse::Load(axis))), to);
#else
  return TurnToward(base, base * axis, to);
#endif
}

}  // namespace hairswing::internal
