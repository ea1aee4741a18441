// Which nodes move a mesh (private to the fit module): shared by the chain fitter, which removes
// springs its refit leaves without a mesh, and wear, which removes springs of the hair it hides;
// and which rig nodes move as one part with a head (both take its surface from them).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hairswing/avatar.h"
#include "hairswing/rig.h"

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

// Per rig node: whether it is rig node `top` or below it without a spring joint on the way (a
// head's end bone, its jaw, its eyes): the nodes a head's own geometry follows.
inline std::vector<uint8_t> RigidPart(const Rig& rig, int top) {
  std::vector<uint8_t> part(rig.node_count(), 0), spring(rig.node_count(), 0);
  for (int j : rig.joint_node()) spring[j] = 1;
  for (size_t r = 0; r < rig.node_count(); ++r) {  // parents before children
    const int p = rig.parent()[r];
    part[r] = static_cast<int>(r) == top || (p >= 0 && part[p] && !spring[r]) ? 1 : 0;
  }
  return part;
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
