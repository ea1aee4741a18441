// The deterministic elementary functions (src/core/det_math.h) against the C library: within a
// few units in the last place of a double over the ranges the solver uses, and exact at the
// special points. (Their reason to exist, equal bits native and in WebAssembly, is checked by
// ctest wasm.hash_matches_native.)
#include "core/det_math.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hairswing {
namespace {

// |a - b| in units of the last place of b.
double Ulps(double a, double b) {
  if (a == b) return 0.0;
  return std::fabs(a - b) / std::fabs(std::nextafter(b, INFINITY) - b);
}

TEST(DetMath, CloseToTheCLibrary) {
  double worst_exp = 0, worst_log = 0, worst_sin = 0, worst_cos = 0, worst_pow = 0;
  for (int i = 0; i <= 20000; ++i) {
    const double x = -40.0 + 80.0 * i / 20000.0;  // exp: step factors, drag mappings
    worst_exp = std::max(worst_exp, Ulps(det::Exp(x), std::exp(x)));
    const double y = std::ldexp(1.0 + i / 20000.0, i % 60 - 30);  // log: 2^-30 .. 2^30
    worst_log = std::max(worst_log, Ulps(det::Log(y), std::log(y)));
    const double a = -50.0 + 100.0 * i / 20000.0;  // angles of a few turns
    // sin/cos near their zeros are compared in absolute terms (ulps of 1).
    worst_sin = std::max(worst_sin, std::fabs(det::Sin(a) - std::sin(a)) / 2.220446049250313e-16);
    worst_cos = std::max(worst_cos, std::fabs(det::Cos(a) - std::cos(a)) / 2.220446049250313e-16);
    const double b = 0.001 + 0.998 * i / 20000.0;  // (1 - drag)^(h / dt_ref)
    worst_pow = std::max(worst_pow, Ulps(det::Pow(b, 0.5), std::pow(b, 0.5)));
  }
  EXPECT_LT(worst_exp, 8.0);
  EXPECT_LT(worst_log, 8.0);
  EXPECT_LT(worst_sin, 8.0);
  EXPECT_LT(worst_cos, 8.0);
  EXPECT_LT(worst_pow, 64.0);  // exp(y log x): the error of log x grows by y log x
  RecordProperty("worst_ulps_exp_log_sin_cos_pow",
                 std::to_string(worst_exp) + " " + std::to_string(worst_log) + " " +
                     std::to_string(worst_sin) + " " + std::to_string(worst_cos) + " " +
                     std::to_string(worst_pow));
}

TEST(DetMath, Atan2AndSlerpCloseToTheCLibraryAndGlm) {
  double worst_atan = 0;
  for (int i = 0; i <= 20000; ++i) {
    const double ang = -3.14159 + 6.28318 * i / 20000.0;
    const double r = 0.001 + 100.0 * (i % 97) / 97.0;
    const double y = r * std::sin(ang), x = r * std::cos(ang);
    worst_atan = std::max(worst_atan, Ulps(det::Atan2(y, x), std::atan2(y, x)));
  }
  EXPECT_LT(worst_atan, 8.0);
  EXPECT_EQ(det::Atan2(0.0, 1.0), 0.0);
  EXPECT_EQ(det::Atan2(1.0, 0.0), std::atan2(1.0, 0.0));
  EXPECT_EQ(det::Atan2(0.0, -1.0), std::atan2(0.0, -1.0));
  EXPECT_TRUE(std::isnan(det::Atan2(NAN, 1.0)));
  // Slerp against glm's (acos-based) over random-ish pairs, both hemispheres, and near-equal
  // rotations (the linear branch).
  float worst_slerp = 0;
  for (int i = 0; i < 2000; ++i) {
    const glm::quat a = glm::normalize(
        glm::quat(std::cos(i * 0.7f), std::sin(i * 1.3f), std::cos(i * 2.1f), std::sin(i * 0.37f)));
    const float step = i % 4 == 0 ? 1e-5f : 0.9f;
    const glm::quat b = glm::normalize(
        glm::quat(a.w + step * std::sin(i * 0.11f), a.x, a.y, a.z - step * std::cos(i * 0.5f)));
    const glm::quat c = i % 2 ? -b : b;
    const float t = (i % 11) / 10.0f;
    const glm::quat d = det::Slerp(a, c, t), g = glm::slerp(a, c, t);
    for (int k = 0; k < 4; ++k) worst_slerp = std::max(worst_slerp, std::fabs(d[k] - g[k]));
  }
  EXPECT_LT(worst_slerp, 1e-6f);
  RecordProperty("worst_ulps_atan2", std::to_string(worst_atan));
  RecordProperty("worst_slerp_component", std::to_string(worst_slerp));
}

// The series stop at the first term too small to change the sum (det::Negligible). The same
// series summed to their last term, written out here: the results must be the same bits, over
// the small arguments where the early stop saves most and the whole ranges.
double FullSin(double r) {  // SinPoly on |r| <= pi/4, every term to r^21
  double term = r, sum = r;
  for (int n = 3; n <= 21; n += 2) sum = sum + (term = -term * (r * r) / ((n - 1) * n));
  return sum;
}
double FullCos(double r) {
  double term = 1.0, sum = 1.0;
  for (int n = 2; n <= 22; n += 2) sum = sum + (term = -term * (r * r) / ((n - 1) * n));
  return sum;
}
double FullExp(double x) {  // det::Exp's reduction, then all 17 terms
  const double k = std::floor(x * det::kInvLn2 + 0.5);
  const double r = (x - k * det::kLn2Hi) - k * det::kLn2Lo;
  double sum = 1.0, term = 1.0;
  for (int n = 1; n <= 17; ++n) sum = sum + (term = term * r / n);
  return std::ldexp(sum, static_cast<int>(k));
}
double FullAtan(double z) {  // AtanNonNegative for z in [0, 1], all 13 terms
  z = z / (1.0 + std::sqrt(1.0 + z * z));
  z = z / (1.0 + std::sqrt(1.0 + z * z));
  double sum = 0.0, p = z;
  for (int n = 1; n <= 25; n += 2, p = p * (z * z)) sum = sum + ((n & 2) ? -p : p) / n;
  return 4.0 * sum;
}
double FullLog(double x) {
  int e = 0;
  double m = std::frexp(x, &e);
  if (m < 0.70710678118654752440) m = m * 2.0, e = e - 1;
  const double s = (m - 1.0) / (m + 1.0);
  double sum = 0.0, p = s;
  for (int n = 1; n <= 31; n += 2, p = p * (s * s)) sum = sum + p / n;
  return 2.0 * sum + e * det::kLn2Lo + e * det::kLn2Hi;
}

TEST(DetMath, EarlyStopGivesTheFullSeriesBits) {
  int checked = 0;
  for (int i = -20000; i <= 20000; ++i) {
    // Small arguments (1e-9 .. 0.6 rad, both signs) and the whole reduced range.
    const double small = std::copysign(std::pow(10.0, -9.0 + 8.8 * std::abs(i) / 20000.0), i);
    for (const double r : {small, 0.7853981 * i / 20000.0}) {
      ASSERT_EQ(det::Sin(r), FullSin(r)) << r;
      ASSERT_EQ(det::Cos(r), FullCos(r)) << r;
      ASSERT_EQ(det::Exp(r), FullExp(r)) << r;
      ASSERT_EQ(det::Exp(40.0 * r), FullExp(40.0 * r)) << r;
      ASSERT_EQ(det::Atan2(std::fabs(r), 1.0), FullAtan(std::fabs(r))) << r;
      ASSERT_EQ(det::Log(1.0 + 0.5 * r), FullLog(1.0 + 0.5 * r)) << r;
      ASSERT_EQ(det::Log(std::ldexp(1.0 + std::fabs(r), i % 40)),
                FullLog(std::ldexp(1.0 + std::fabs(r), i % 40)))
          << r;
      checked += 7;
    }
  }
  EXPECT_EQ(checked, 7 * 2 * 40001);
}

TEST(DetMath, SpecialValues) {
  EXPECT_EQ(det::Exp(0.0), 1.0);
  EXPECT_EQ(det::Log(1.0), 0.0);
  EXPECT_EQ(det::Sin(0.0), 0.0);
  EXPECT_EQ(det::Cos(0.0), 1.0);
  EXPECT_EQ(det::Pow(0.3, 0.0), 1.0);
  EXPECT_EQ(det::Pow(0.0, 2.0), 0.0);
  EXPECT_TRUE(std::isinf(det::Exp(1000.0)));
  EXPECT_EQ(det::Exp(-1000.0), 0.0);
  EXPECT_TRUE(std::isnan(det::Log(-1.0)));
  EXPECT_TRUE(std::isinf(det::Log(0.0)) && det::Log(0.0) < 0);
  EXPECT_TRUE(std::isnan(det::Sin(INFINITY)));
  const glm::quat q = det::AngleAxis(1.0f, glm::vec3(0, 1, 0));
  const glm::quat r = glm::angleAxis(1.0f, glm::vec3(0, 1, 0));
  EXPECT_NEAR(q.w, r.w, 1e-7f);
  EXPECT_NEAR(q.y, r.y, 1e-7f);
}

}  // namespace
}  // namespace hairswing
