// Small statistics used by several modules (measure, fit, the CLI).
#pragma once

#include <span>
#include <vector>

namespace hairswing {

/// Linear-interpolated quantile (q in [0,1]) of `values` (copied and sorted); 0 if empty.
double Quantile(std::vector<double> values, double q);
/// The same, reordering `values` in place (no copy; for hot loops).
double QuantileInPlace(std::span<double> values, double q);

}  // namespace hairswing
