// Diffusion of skin weights over a welded hair surface (used by the chain fitter).
#pragma once

#include <utility>
#include <vector>

namespace hairswing::internal {

/// Smooths `weights` (per welded vertex, one entry per influence: attachment first, then the
/// chain's joints) on the vertices of `chain` (chain_of[v] == chain, geo[v] >= 0) by Jacobi
/// diffusion over `adj` (neighbour, edge length). Vertices with geo <= pinned_geo keep their
/// weights (the band pinned to the attachment). `segment` (metres) sets how far the weights are
/// spread: about half a segment.
void SmoothChainWeights(const std::vector<std::vector<std::pair<int, float>>>& adj,
                        const std::vector<float>& geo, const std::vector<int>& chain_of, int chain,
                        float pinned_geo, float segment, std::vector<std::vector<float>>* weights);

}  // namespace hairswing::internal
