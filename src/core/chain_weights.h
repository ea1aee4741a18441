// Skin weights along a hair chain, shared by the demo avatars and the chain fitter.
#pragma once

#include <algorithm>
#include <vector>

#include <glm/glm.hpp>

namespace hairswing::internal {

// Weights for a point at arc length s along a chain with joint positions `pts` (the last joint is
// only a tail). Influences are hat functions: joint j peaks at the middle of its own segment and
// blends linearly into its neighbours' peaks, so weights are continuous everywhere (a jump in
// weight tears the mesh when a joint bends). Up to `pin` metres the point stays on `attach`
// (weight 1), then blends into the first joint. Writes up to two (joint, weight) pairs.
inline void ChainWeights(const std::vector<int>& joints, const std::vector<glm::vec3>& pts, int attach, float s,
                         float pin, int* j0, float* w0, int* j1, float* w1) {
  *j1 = -1;
  *w1 = 0;
  if (s <= pin) {
    *j0 = attach;
    *w0 = 1;
    return;
  }
  float prev_peak = pin, acc = 0;
  int prev = attach;
  const int swinging = static_cast<int>(pts.size()) - 1;
  for (int j = 0; j < swinging; ++j) {
    const float len = glm::length(pts[j + 1] - pts[j]);
    const float peak = acc + 0.5f * len;
    if (s <= peak) {
      const float t = std::clamp((s - prev_peak) / std::max(peak - prev_peak, 1e-6f), 0.0f, 1.0f);
      if (t <= 0.0f) {
        *j0 = prev;
        *w0 = 1;
        return;
      }
      *j0 = joints[j];
      *w0 = t;
      *j1 = prev;
      *w1 = 1 - t;
      return;
    }
    prev_peak = peak;
    prev = joints[j];
    acc += len;
  }
  *j0 = joints[swinging - 1];
  *w0 = 1;
}

}  // namespace hairswing::internal
