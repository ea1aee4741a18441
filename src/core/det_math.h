// Deterministic elementary functions: the same bits on every platform and compiler.
//
// The C library's exp, log, pow, sin and cos differ in their last bits between glibc (native) and
// musl (emscripten's WebAssembly libc), and the solver's results must not (`hairswing hash` prints
// the same value native and in WebAssembly). These use only +, -, *, / on doubles, which IEEE 754
// rounds exactly the same way everywhere (the build has -ffp-contract=off, so no fused
// multiply-adds), plus floor, frexp and ldexp, which are exact. Accuracy: a few units in the last
// place of a double, far below the float precision of the solver's state.
#pragma once

#include <cmath>
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <limits>

namespace hairswing::det {

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 split so k * kLn2Hi is exact
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;

/// A series term too small to change the partial sum: less than a quarter of the spacing of the
/// doubles around it (|sum| 2^-55), so adding it rounds back to `sum`. Every series below has
/// terms that shrink in magnitude, so once one is negligible all later ones are too: stopping
/// there gives bitwise the sum of all the terms, in a few terms for the small arguments the
/// solver's frames pass (an interpolation between two caller frames turns a few degrees).
inline bool Negligible(double term, double sum) {
  return std::fabs(term) < std::fabs(sum) * 0x1p-55;
}

/// e^x.
inline double Exp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.0) return std::numeric_limits<double>::infinity();
  if (x < -745.0) return 0.0;
  // x = k ln2 + r, |r| <= ln2 / 2; e^r by its Taylor series (terms to r^17 / 17!: < 1e-19).
  const double k = std::floor(x * kInvLn2 + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double sum = 1.0, term = 1.0;
  for (int n = 1; n <= 17; ++n) {
    term = term * r / n;
    if (Negligible(term, sum)) break;
    sum = sum + term;
  }
  return std::ldexp(sum, static_cast<int>(k));
}

/// Natural logarithm; NaN for x < 0, -inf for 0.
inline double Log(double x) {
  if (std::isnan(x) || x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  int e = 0;
  double m = std::frexp(x, &e);  // x = m 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m = m * 2.0;
    e = e - 1;
  }
  // log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716: odd powers to s^31 (< 1e-24).
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double sum = 0.0, p = s;
  for (int n = 1; n <= 31; n += 2) {
    const double term = p / n;
    if (Negligible(term, sum)) break;
    sum = sum + term;
    p = p * s2;
  }
  return 2.0 * sum + e * kLn2Lo + e * kLn2Hi;
}

/// x^y for x >= 0 (what the solver needs); NaN for x < 0 unless y == 0.
inline double Pow(double x, double y) {
  if (y == 0.0) return 1.0;
  if (x == 0.0) return y > 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return Exp(y * Log(x));
}

namespace detail {
// x = k pi/2 + r with |r| <= pi/4 (three-part pi/2, exact for |k| < 2^20); returns k mod 4.
inline int ReduceHalfPi(double x, double* r) {
  constexpr double kInvHalfPi = 6.36619772367581382433e-01;
  constexpr double kHalfPi1 = 1.57079632673412561417e+00;
  constexpr double kHalfPi2 = 6.07710050650619224932e-11;
  constexpr double kHalfPi3 = 2.02226624879595063154e-21;
  const double k = std::floor(x * kInvHalfPi + 0.5);
  *r = ((x - k * kHalfPi1) - k * kHalfPi2) - k * kHalfPi3;
  const double q = k - 4.0 * std::floor(k / 4.0);
  return static_cast<int>(q);
}
// Taylor series on |r| <= pi/4 (terms to r^21 / 21!: < 1e-22).
inline double SinPoly(double r) {
  const double r2 = r * r;
  double term = r, sum = r;
  for (int n = 3; n <= 21; n += 2) {
    term = -term * r2 / ((n - 1) * n);
    if (Negligible(term, sum)) break;
    sum = sum + term;
  }
  return sum;
}
inline double CosPoly(double r) {
  const double r2 = r * r;
  double term = 1.0, sum = 1.0;
  for (int n = 2; n <= 22; n += 2) {
    term = -term * r2 / ((n - 1) * n);
    if (Negligible(term, sum)) break;
    sum = sum + term;
  }
  return sum;
}

/// sin of x shifted by `quarter` quarter turns (sin x = 0, cos x = 1), for |x| < 10^6.
inline double SinQuarters(double x, int quarter) {
  if (!std::isfinite(x)) return std::numeric_limits<double>::quiet_NaN();
  double r = 0.0;
  switch ((detail::ReduceHalfPi(x, &r) + quarter) & 3) {
    case 0:
      return detail::SinPoly(r);
    case 1:
      return detail::CosPoly(r);
    case 2:
      return -detail::SinPoly(r);
    default:
      return -detail::CosPoly(r);
  }
}
}  // namespace detail

/// sin x and cos x for |x| < 10^6 (the solver's angles are a few radians).
inline double Sin(double x) { return detail::SinQuarters(x, 0); }
inline double Cos(double x) { return detail::SinQuarters(x, 1); }

inline float ExpF(float x) { return static_cast<float>(Exp(x)); }
inline float LogF(float x) { return static_cast<float>(Log(x)); }
inline float PowF(float x, float y) { return static_cast<float>(Pow(x, y)); }
inline float CosF(float x) { return static_cast<float>(Cos(x)); }

namespace detail {
/// atan z for z >= 0: z > 1 is folded to pi/2 - atan(1/z); then two halvings of the angle,
/// atan z = 2 atan(z / (1 + sqrt(1 + z^2))), bring z below tan(pi/16) = 0.199, where the series
/// needs terms to z^25 (< 1e-18). sqrt is exactly rounded by IEEE 754, like + - * /.
inline double AtanNonNegative(double z) {
  constexpr double kHalfPi = 1.57079632679489661923;
  if (z > 1.0) return kHalfPi - AtanNonNegative(1.0 / z);
  z = z / (1.0 + std::sqrt(1.0 + z * z));
  z = z / (1.0 + std::sqrt(1.0 + z * z));
  const double z2 = z * z;
  double sum = 0.0, p = z;
  for (int n = 1; n <= 25; n += 2) {
    const double term = ((n & 2) ? -p : p) / n;
    if (Negligible(term, sum)) break;
    sum = sum + term;
    p = p * z2;
  }
  return 4.0 * sum;
}
}  // namespace detail

/// The angle of the point (x, y), in [-pi, pi] (as std::atan2 for finite arguments).
inline double Atan2(double y, double x) {
  constexpr double kPi = 3.14159265358979323846;
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0 && y == 0.0) return std::signbit(x) ? (std::signbit(y) ? -kPi : kPi) : y;
  const double ay = std::fabs(y), ax = std::fabs(x);
  double a = ax >= ay ? detail::AtanNonNegative(ay / ax)
                      : 1.57079632679489661923 - detail::AtanNonNegative(ax / ay);
  if (x < 0.0) a = kPi - a;
  return std::signbit(y) ? -a : a;
}

/// glm::slerp (shortest path, linear blend when the two are within float epsilon) with
/// deterministic trigonometry: the angle from atan2 of its sine and cosine instead of acos.
inline glm::quat Slerp(const glm::quat& x, const glm::quat& y, float a) {
  glm::quat z = y;
  float cos_theta = glm::dot(x, y);
  if (cos_theta < 0.0f) {
    z = -y;
    cos_theta = -cos_theta;
  }
  if (cos_theta > 1.0f - std::numeric_limits<float>::epsilon())
    return glm::quat(x.w + a * (z.w - x.w), x.x + a * (z.x - x.x), x.y + a * (z.y - x.y),
                     x.z + a * (z.z - x.z));
  const double c = cos_theta;
  const double s = std::sqrt(1.0 - c * c);
  const double angle = Atan2(s, c);
  const double ta = a;
  const double sin_a = Sin((1.0 - ta) * angle);
  // Halfway (a frame's middle step), both weights are one sine: computed once.
  const float wa = static_cast<float>(sin_a / s);
  const float wb = static_cast<float>((1.0 - ta == ta ? sin_a : Sin(ta * angle)) / s);
  return x * wa + z * wb;
}

/// glm::angleAxis with deterministic sine and cosine: rotation of `angle` radians about the unit
/// `axis`.
inline glm::quat AngleAxis(float angle, const glm::vec3& axis) {
  const double half = static_cast<double>(angle) * 0.5;
  const float s = static_cast<float>(Sin(half));
  return glm::quat(static_cast<float>(Cos(half)), axis * s);
}

}  // namespace hairswing::det
