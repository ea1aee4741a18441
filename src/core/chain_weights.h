// Skin weights along a hair chain, shared by the demo avatars and the chain fitter.
#pragma once

#include <algorithm>
#include <glm/glm.hpp>
#include <vector>

namespace hairswing::internal {

// Weights for a point at arc length s along a chain with joint positions `pts` (the last joint is
// only a tail). Influences are hat functions: joint j peaks at the middle of its own segment and
// blends linearly into its neighbours' peaks, so weights are continuous everywhere (a jump in
// weight tears the mesh when a joint bends). Up to `pin` metres the point stays on `attach`
// (weight 1), then blends into the first joint. Writes up to two (joint, weight) pairs.
inline void ChainWeights(const std::vector<int>& joints, const std::vector<glm::vec3>& pts,
                         int attach, float s, float pin, int* j0, float* w0, int* j1, float* w1) {
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

namespace hairswing::internal {

// Weights with a wide root fade: the attachment's weight falls linearly from 1 at `pin` to 0 at
// `pin + ramp` (arc length, metres); the rest is shared by the chain's joints with hat functions
// peaking at the middle of each segment (the first joint takes everything before its peak). Adds
// the weights into `out` (index 0 = attachment, 1 + j = joint j); they sum to 1.
inline void FadedChainWeights(const std::vector<glm::vec3>& pts, float s, float pin, float ramp,
                              std::vector<float>* out) {
  const float head =
      s <= pin ? 1.0f : std::clamp(1.0f - (s - pin) / std::max(ramp, 1e-6f), 0.0f, 1.0f);
  (*out)[0] += head;
  const float rest = 1.0f - head;
  if (rest <= 0.0f) return;
  const int swinging = static_cast<int>(pts.size()) - 1;
  float acc = 0, prev_peak = 0;
  for (int j = 0; j < swinging; ++j) {
    const float len = glm::length(pts[j + 1] - pts[j]);
    const float peak = acc + 0.5f * len;
    if (s <= peak) {
      if (j == 0) {
        (*out)[1] += rest;
        return;
      }
      const float t = std::clamp((s - prev_peak) / std::max(peak - prev_peak, 1e-6f), 0.0f, 1.0f);
      (*out)[1 + j] += rest * t;
      (*out)[j] += rest * (1 - t);
      return;
    }
    prev_peak = peak;
    acc += len;
  }
  (*out)[swinging] += rest;
}

}  // namespace hairswing::internal
