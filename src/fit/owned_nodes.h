// Which nodes move a mesh (private to the fit module): shared by the chain fitter, which removes
// springs its refit leaves without a mesh, and wear, which removes springs of the hair it hides.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hairswing/avatar.h"

namespace hairswing::fit {

// Nodes that some skinned vertex has weight on.
inline std::vector<uint8_t> NodesOwningVertices(const Avatar& av) {
  std::vector<uint8_t> owned(av.nodes.size(), 0);
  for (const Node& n : av.nodes) {
    if (n.mesh < 0 || n.skin < 0 || n.mesh >= static_cast<int>(av.meshes.size()) ||
        n.skin >= static_cast<int>(av.skins.size()))
      continue;
    const Skin& skin = av.skins[n.skin];
    for (const Primitive& p : av.meshes[n.mesh].primitives)
      for (size_t v = 0; v < std::min(p.joints.size(), p.weights.size()); ++v)
        for (int k = 0; k < 4; ++k) {
          const size_t j = p.joints[v][k];
          if (p.weights[v][k] > 0.0f && j < skin.joints.size() && skin.joints[j] >= 0 &&
              skin.joints[j] < static_cast<int>(owned.size()))
            owned[skin.joints[j]] = 1;
        }
  }
  return owned;
}

// A spring moves a mesh when a vertex follows one of its joints but the last (a tail only).
inline bool SpringMovesMesh(const Spring& s, const std::vector<uint8_t>& owned) {
  for (size_t j = 0; j + 1 < s.joints.size(); ++j)
    if (s.joints[j].node >= 0 && s.joints[j].node < static_cast<int>(owned.size()) &&
        owned[s.joints[j].node])
      return true;
  return false;
}

}  // namespace hairswing::fit
