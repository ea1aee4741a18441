// VRM 0.x avatars face -Z; VRM 1.0 avatars face +Z. We rotate every VRM 0.x avatar by 180 degrees
// about +Y on import, M = diag(-1, 1, -1), by conjugating every local transform: T' = M T M.
// Because M is a proper rotation (det +1) and M = M^-1, world transforms become M W M, points
// M p, quaternions (w, x, y, z) -> (w, -x, y, -z); scales are unchanged (diagonal matrices
// commute). Nothing else about the rig changes, so chain rest shapes and collider placements are
// exactly the same model, turned around.
#include "io/read_internal.h"

namespace hairswing::io {
namespace {

inline glm::vec3 Flip(const glm::vec3& v) { return {-v.x, v.y, -v.z}; }
inline glm::quat Flip(const glm::quat& q) { return {q.w, -q.x, q.y, -q.z}; }

void FlipAll(std::vector<glm::vec3>& vs) {
  for (auto& v : vs) v = Flip(v);
}

}  // namespace

glm::quat Vrm0TurnedRotation(const glm::quat& q) { return Flip(q); }

void NormaliseVrm0Axes(Avatar& av) {
  const glm::mat4 m(glm::vec4(-1, 0, 0, 0), glm::vec4(0, 1, 0, 0), glm::vec4(0, 0, -1, 0),
                    glm::vec4(0, 0, 0, 1));
  for (auto& n : av.nodes) {
    n.translation = Flip(n.translation);
    n.rotation = Flip(n.rotation);
  }
  for (auto& s : av.skins)
    for (auto& b : s.inverse_bind) b = m * b * m;
  for (auto& mesh : av.meshes)
    for (auto& p : mesh.primitives) {
      FlipAll(p.positions);
      FlipAll(p.normals);
      for (auto& t : p.targets) {
        FlipAll(t.positions);
        FlipAll(t.normals);
        FlipAll(t.tangents);
      }
      auto it = p.extra_attributes.find("TANGENT");
      if (it != p.extra_attributes.end() && it->second.components >= 3)
        for (size_t i = 0; i + 2 < it->second.data.size(); i += it->second.components) {
          it->second.data[i] = -it->second.data[i];
          it->second.data[i + 2] = -it->second.data[i + 2];
        }
    }
  for (auto& a : av.animations)
    for (auto& ch : a.channels) {
      if (ch.path == AnimationChannel::Path::kTranslation) {
        for (size_t i = 0; i + 2 < ch.values.size(); i += 3) {
          ch.values[i] = -ch.values[i];
          ch.values[i + 2] = -ch.values[i + 2];
        }
      } else if (ch.path == AnimationChannel::Path::kRotation) {  // stored x,y,z,w
        for (size_t i = 0; i + 3 < ch.values.size(); i += 4) {
          ch.values[i] = -ch.values[i];
          ch.values[i + 2] = -ch.values[i + 2];
        }
      }
    }
  for (auto& c : av.vrm.colliders) {
    c.offset = Flip(c.offset);
    c.tail = Flip(c.tail);
    c.normal = Flip(c.normal);
  }
  for (auto& s : av.vrm.springs) s.virtual_tail = Flip(s.virtual_tail);
}

}  // namespace hairswing::io
