// The avatar's node tree, shared by the checks on a loaded avatar and the chain fitter.
#pragma once

#include "hairswing/avatar.h"

namespace hairswing::internal {

// Whether `ancestor` is above `node` (its parent, the parent's parent, ...); a node is not its
// own ancestor. `node` must be a valid index.
inline bool IsAncestor(const Avatar& av, int ancestor, int node) {
  for (int p = av.nodes[node].parent; p != -1; p = av.nodes[p].parent)
    if (p == ancestor) return true;
  return false;
}

}  // namespace hairswing::internal
