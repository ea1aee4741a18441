// The self-contained HTML measurement report (uPlot from npm is embedded at build time).
#pragma once

#include <string>
#include <vector>

#include "hairswing/measure.h"

namespace hairswing::cli {

/// Writes one page covering every report given (e.g. several avatars for `hairswing demo`).
/// An existing file is replaced only with `force` (WriteFileAtomic).
Status WriteHtmlReport(const std::vector<MeasureReport>& reports, const std::string& path,
                       bool force);

void PrintMeasureTable(const MeasureReport& rep);

/// Solver options of `measure` (docs/measure.md).
struct MeasureFlags {
  bool match_swing = false;     ///< also the swing-matched comparison
  bool plain = false;           ///< plain VRM mapping for arc and parent
  float arc_liveliness = 1.0f;  ///< SpringConfig::arc_liveliness
  bool force = false;           ///< --force: replace existing --json/--report files
};
int RunMeasure(const std::string& file, const std::string& solvers, const std::string& fps,
               const std::string& shirt, const std::string& json_path,
               const std::string& report_path, bool quiet, MeasureReport* out,
               const std::string& motion = "head-turn", const std::string& clip_name = "",
               double seconds = 12.0, bool fit_colliders = false, const MeasureFlags& flags = {});

}  // namespace hairswing::cli
