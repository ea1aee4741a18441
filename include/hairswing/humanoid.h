// The VRM 1.0 humanoid bone set.
#pragma once

#include <span>
#include <string_view>

namespace hairswing {

/// All 55 VRM 1.0 humanoid bone names, body first, then fingers.
std::span<const std::string_view> HumanBoneNames();

/// The 15 bones VRM 1.0 requires (hips, spine, head, arms, legs).
std::span<const std::string_view> RequiredHumanBoneNames();

}  // namespace hairswing
