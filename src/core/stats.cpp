// Quantiles (include/hairswing/stats.h): shared by measure and the fitters.
#include "hairswing/stats.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

namespace hairswing {

namespace {

// The order statistics i and i + 1 of v when few values lie at or above position i (a high
// quantile such as the p99 of thousands of edge ratios): the n - i largest values are kept in a
// min-heap at the front of v, so most values cost one comparison with the heap's smallest
// instead of the several passes of a full selection. The same values as nth_element, exactly.
std::pair<double, double> UpperOrderStatistics(std::span<double> v, size_t i) {
  const size_t k = v.size() - i;  // >= 2: the heap holds order statistics i .. n-1
  const auto first = v.begin(), heap_end = v.begin() + static_cast<long>(k);
  const std::greater<double> min_heap;
  std::make_heap(first, heap_end, min_heap);
  for (auto it = heap_end; it != v.end(); ++it) {
    if (!(*it > v[0])) continue;
    std::pop_heap(first, heap_end, min_heap);  // the smallest kept value to heap_end - 1
    std::swap(*(heap_end - 1), *it);           // a permutation of v, as nth_element's
    std::push_heap(first, heap_end, min_heap);
  }
  // The heap's smallest is statistic i; the next smallest is one of the root's two children.
  return {v[0], k == 2 ? v[1] : std::min(v[1], v[2])};
}

}  // namespace

double QuantileInPlace(std::span<double> v, double q) {
  if (v.empty()) return 0.0;
  // Linear interpolation between order statistics i and i+1 (selection, not a full sort).
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  const double f = pos - static_cast<double>(i);
  const bool nan = std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); });
  if (!nan && i + 1 < v.size() && v.size() - i <= v.size() / 16) {
    const auto [lo, hi] = UpperOrderStatistics(v, i);
    return f == 0.0 ? lo : lo * (1.0 - f) + hi * f;
  }
  std::nth_element(v.begin(), v.begin() + static_cast<long>(i), v.end());
  const double lo = v[i];
  if (i + 1 >= v.size() || f == 0.0) return lo;
  const double hi = *std::min_element(v.begin() + static_cast<long>(i) + 1, v.end());
  return lo * (1.0 - f) + hi * f;
}

double Quantile(std::vector<double> v, double q) { return QuantileInPlace(v, q); }

}  // namespace hairswing
