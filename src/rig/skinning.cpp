// Linear-blend skinning. Palette matrices are world[joint] * inverseBind[joint]; a vertex is the
// weight-blended sum of its (up to four) palette transforms applied to the bind-pose position.
#include <algorithm>

#include "hairswing/rig.h"

namespace hairswing {

void ComputeSkinPalette(const Rig& rig, int skin, std::span<const glm::mat4> world,
                        std::span<glm::mat4> palette) {
  const RigSkin& s = rig.skins()[skin];
  HS_ASSERT(palette.size() >= s.joints.size());
  for (size_t j = 0; j < s.joints.size(); ++j) palette[j] = world[s.joints[j]] * s.inverse_bind[j];
}

Status SkinningJob::Validate() const {
  if (out.size() != positions.size())
    return Status(StatusCode::kInvalidInput, "skinning: output size differs from positions");
  if (joints.size() != positions.size() || weights.size() != positions.size())
    return Status(StatusCode::kInvalidInput,
                  "skinning: joints/weights size differs from positions");
  for (const auto& j : joints)
    for (int k = 0; k < 4; ++k)
      if (j[k] >= palette.size())
        return Status(StatusCode::kInvalidInput, "skinning: joint index " + std::to_string(j[k]) +
                                                     " beyond the palette (" +
                                                     std::to_string(palette.size()) + ")");
  return Status::Ok();
}

void SkinningJob::Run() const {
  for (size_t v = 0; v < positions.size(); ++v) {
    const glm::vec4 w = weights[v];
    const glm::u16vec4 j = joints[v];
    float sum = w.x + w.y + w.z + w.w;
    // Blend the matrices, then transform once (same result as blending transformed points).
    glm::mat4 m = palette[j.x] * w.x;
    for (int k = 1; k < 4; ++k)
      if (w[k] != 0.0f) m += palette[j[k]] * w[k];
    const glm::vec3 acc = glm::vec3(m[0]) * positions[v].x + glm::vec3(m[1]) * positions[v].y +
                          glm::vec3(m[2]) * positions[v].z + glm::vec3(m[3]);
    out[v] = (sum > 0.0f && sum != 1.0f) ? acc / sum : (sum > 0.0f ? acc : positions[v]);
  }
}

Status PosePrimitive(const Rig& rig, const MeshInstance& inst, const Primitive& prim,
                     std::span<const glm::mat4> world, std::span<glm::mat4> palette_scratch,
                     std::span<glm::vec3> out) {
  if (out.size() != prim.positions.size())
    return Status(StatusCode::kInvalidInput, "pose: output size differs from positions");
  if (inst.skin >= 0 && !prim.joints.empty()) {
    size_t nj = rig.skins()[inst.skin].joints.size();
    if (palette_scratch.size() < nj)
      return Status(StatusCode::kInvalidInput, "pose: palette too small");
    ComputeSkinPalette(rig, inst.skin, world, palette_scratch);
    SkinningJob job{palette_scratch.first(nj), prim.positions, prim.joints, prim.weights, out};
    Status st = job.Validate();
    if (!st.ok()) return st;
    job.Run();
    return Status::Ok();
  }
  const glm::mat4& m = world[inst.node];
  for (size_t v = 0; v < out.size(); ++v)
    out[v] = glm::vec3(m * glm::vec4(prim.positions[v], 1.0f));
  return Status::Ok();
}

namespace {
// Calls fn(vertex weight > 0 on rig node) for every skinned vertex influence.
template <typename Fn>
void ForEachInfluence(const Avatar& av, const Rig& rig, Fn fn) {
  for (const MeshInstance& inst : rig.meshes()) {
    if (inst.skin < 0) continue;
    const RigSkin& skin = rig.skins()[inst.skin];
    for (const Primitive& p : av.meshes[inst.mesh].primitives) {
      const size_t n = std::min(p.joints.size(), p.weights.size());
      for (size_t v = 0; v < n; ++v)
        fn(&p, v, [&](auto visit) {
          for (int k = 0; k < 4; ++k)
            if (p.weights[v][k] > 0.0f && p.joints[v][k] < skin.joints.size())
              visit(skin.joints[p.joints[v][k]]);
        });
    }
  }
}
}  // namespace

std::vector<int> SpringJointVertexCounts(const Avatar& av, const Rig& rig) {
  std::vector<int> joint_of_node(rig.node_count(), -1);
  for (size_t j = 0; j < rig.joint_node().size(); ++j)
    joint_of_node[rig.joint_node()[j]] = static_cast<int>(j);
  std::vector<int> counts(rig.joint_node().size(), 0);
  ForEachInfluence(av, rig, [&](const Primitive*, size_t, auto influences) {
    influences([&](int node) {
      if (joint_of_node[node] >= 0) ++counts[joint_of_node[node]];
    });
  });
  return counts;
}

int HairVertexCount(const Avatar& av, const Rig& rig) {
  std::vector<uint8_t> spring(rig.node_count(), 0);
  for (int n : rig.joint_node()) spring[n] = 1;
  int count = 0;
  ForEachInfluence(av, rig, [&](const Primitive*, size_t, auto influences) {
    bool hair = false;
    influences([&](int node) { hair = hair || spring[node]; });
    count += hair ? 1 : 0;
  });
  return count;
}

}  // namespace hairswing
