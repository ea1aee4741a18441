// The root extensions in which the fit module's passes record what they changed (private to the
// fit module): FitHairChains, FitColliders and ReweightRoots each write one, UndoFit reads all
// three, and ReweightRoots tells a haircut hairswing fitted by the first.
#pragma once

namespace hairswing::fit {

constexpr const char* kFitUndoKey = "HAIRSWING_fit_undo";
constexpr const char* kColliderUndoKey = "HAIRSWING_collider_fit_undo";
constexpr const char* kReweightUndoKey = "HAIRSWING_reweight_undo";

}  // namespace hairswing::fit
