// Helpers shared by the solver files (private to src/spring).
#pragma once

#include <cmath>
#include <span>

#include "core/math.h"
#include "hairswing/rig.h"

namespace hairswing::internal {

bool PoseIsFinite(std::span<const Transform> pose);

/// VRM content is authored for one spring update per 60 Hz frame (docs/solver.md).
constexpr float kVrmRefDt = 1.0f / 60.0f;

/// Relative damping rate (1/s) that brings a segment with restoring coefficient k and drag rate c
/// to 60% of critical damping in all (the tuned defaults); 0 when the drag already does.
float TunedRelativeDamping(float k, float c);

}  // namespace hairswing::internal
