// The one-register quaternion helpers (src/core/quat_sse.h) against glm, bit for bit (NaN for
// NaN): the solver
// swaps them in for glm's operations and promises the same state hashes, so a lane that adds in
// another order, a shuffle that picks the wrong component or a different special case shows here
// on its own, not only as a changed hash somewhere.
#include "core/quat_sse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/math.h"

namespace hairswing {
namespace {

#if HAIRSWING_SIMD && defined(__SSE2__)
// Each component the same bits, or NaN on both sides: which NaN comes out of an operation on two
// NaNs (or of a - NaN against a + -NaN) is not even fixed between two compilations of glm's code.
bool SameBits(const float* a, const float* b, int n) {
  for (int i = 0; i < n; ++i)
    if (std::memcmp(a + i, b + i, sizeof(float)) != 0 && !(std::isnan(a[i]) && std::isnan(b[i])))
      return false;
  return true;
}
bool SameBits(const glm::quat& a, const glm::quat& b) { return SameBits(&a.x, &b.x, 4); }
bool SameBits(const glm::vec3& a, const glm::vec3& b) { return SameBits(&a.x, &b.x, 3); }

TEST(QuatSse, GivesGlmsBitsOnRandomAndSpecialInputs) {
  namespace sse = internal::sse;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_real_distribution<float> e(-30.0f, 30.0f);  // spread the exponents
  auto value = [&](int i) {
    const float v = u(gen) * std::exp2(e(gen));
    switch (i % 97) {  // now and then a special value
      case 0:
        return 0.0f;
      case 1:
        return -0.0f;
      case 2:
        return std::numeric_limits<float>::denorm_min();
      case 3:
        return std::numeric_limits<float>::quiet_NaN();
      default:
        return v;
    }
  };
  int arcs = 0;
  for (int i = 0; i < 200000; ++i) {
    const glm::quat p(value(i), value(i + 5), value(i + 11), value(i + 17));
    const glm::quat q(u(gen), u(gen), u(gen), u(gen));
    const glm::vec3 v(value(i + 23), u(gen), u(gen));
    ASSERT_TRUE(SameBits(p * q, sse::StoreQuat(sse::QuatMul(sse::Load(p), sse::Load(q)))))
        << "product, input " << i;
    ASSERT_TRUE(SameBits(p * v, sse::StoreVec3(sse::Rotate(sse::Load(p), sse::Load(v)))))
        << "rotation, input " << i;
    ASSERT_TRUE(
        SameBits(glm::cross(v, glm::vec3(q.x, q.y, q.z)),
                 sse::StoreVec3(sse::Cross(sse::Load(v), sse::Load(glm::vec3(q.x, q.y, q.z))))))
        << "cross, input " << i;
    ASSERT_TRUE(SameBits(glm::normalize(p), sse::StoreQuat(sse::Normalize(sse::Load(p)))))
        << "normalize, input " << i;
    ASSERT_TRUE(SameBits(glm::normalize(v), sse::StoreVec3(sse::Normalize3(sse::Load(v)))))
        << "normalize a vector, input " << i;
    // The shortest arc between unit vectors (the solver's use), opposite ones included: the
    // helper gives r for the caller to take the scalar function below 1e-7.
    const glm::vec3 from = glm::normalize(glm::vec3(u(gen), u(gen), u(gen)));
    const glm::vec3 to = i % 50 == 0 ? -from : glm::normalize(glm::vec3(u(gen), u(gen), u(gen)));
    float r = 0.0f;
    const glm::quat arc =
        sse::StoreQuat(sse::ShortestArcUnnormalised(sse::Load(from), sse::Load(to), &r));
    ASSERT_EQ(r, glm::dot(from, to) + 1.0f);
    if (r >= 1e-7f) {
      ASSERT_TRUE(SameBits(internal::FromUnitVectorsUnnormalised(from, to), arc))
          << "shortest arc, input " << i;
      ++arcs;
    }
  }
  EXPECT_GT(arcs, 190000);
  // glm's normalize gives identity for a zero quaternion and NaN for a NaN one.
  const glm::quat zero(0, 0, 0, 0), nan(std::nanf(""), 0, 0, 0);
  EXPECT_TRUE(SameBits(sse::StoreQuat(sse::Normalize(sse::Load(zero))), glm::quat(1, 0, 0, 0)));
  EXPECT_TRUE(std::isnan(sse::StoreQuat(sse::Normalize(sse::Load(nan))).w));
}
#else
TEST(QuatSse, GivesGlmsBitsOnRandomAndSpecialInputs) {
  GTEST_SKIP() << "built without SSE2 (HAIRSWING_SIMD off or another processor): not used";
}
#endif

}  // namespace
}  // namespace hairswing
