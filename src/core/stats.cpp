// Quantiles (include/hairswing/stats.h): shared by measure and the fitters.
#include "hairswing/stats.h"

#include <algorithm>
#include <cmath>

namespace hairswing {

double QuantileInPlace(std::span<double> v, double q) {
  if (v.empty()) return 0.0;
  // Linear interpolation between order statistics i and i+1 (selection, not a full sort).
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  const double f = pos - static_cast<double>(i);
  std::nth_element(v.begin(), v.begin() + static_cast<long>(i), v.end());
  const double lo = v[i];
  if (i + 1 >= v.size() || f == 0.0) return lo;
  const double hi = *std::min_element(v.begin() + static_cast<long>(i) + 1, v.end());
  return lo * (1.0 - f) + hi * f;
}

double Quantile(std::vector<double> v, double q) { return QuantileInPlace(v, q); }

}  // namespace hairswing
