// fit's root ramp chosen by measurement (`hairswing fit --root-ramp auto`, a batch manifest's
// fit option "root_ramp": "auto"): shared by both.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "hairswing/avatar.h"
#include "hairswing/fit.h"
#include "hairswing/status.h"

namespace hairswing::cli {

struct RootRampChoice {
  float ramp = 1.0f;
  nlohmann::ordered_json report;  ///< every ramp tried and the one chosen ("root_ramp_auto")
  std::string summary;            ///< one line: the choice and its figures against ramp 1
};

/// Fits the selected hair with root ramps 1, 1.25, 1.5, 1.75 and 2 on copies of `av` (`fit`'s
/// other options as given), measures each in vrm mode and in arc's follow setting (the head-turn
/// at 60 fps) and keeps the least excess stretch p99 in vrm mode among the ramps whose mesh
/// swings, in both, at least 0.8x as far as vrm mode's with ramp 1; the narrower on a tie.
/// `progress` (may be empty) gets one line per ramp as it is measured. `av` is not changed.
Result<RootRampChoice> ChooseRootRamp(const Avatar& av, const HairSelection& sel,
                                      const FitOptions& fit,
                                      const std::function<void(const std::string&)>& progress);

}  // namespace hairswing::cli
