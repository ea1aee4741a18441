// Root re-weighting (include/hairswing/fit.h, ReweightRoots): widens a head-to-first-joint skin
// blend that is narrower than the chain's first segment, so the bend at the root is spread over a
// segment of mesh instead of a thin band. Undone exactly by UndoReweight (and UndoFit).
//
// Why: a bend of the first joint by an angle a stretches the mesh across the band where the
// weight passes from the head to the joint by about (distance from the joint) x a / (band width).
// Artist rigs often blend over 1-4 cm while the first segment is 5-10 cm long, so the root is the
// joint whose bend costs most (docs/fit.md has the figures). The change is in the file: every
// runtime (three-vrm, UniVRM, Godot) stretches less, not only hairswing.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "fit/undo_keys.h"
#include "hairswing/fit.h"
#include "hairswing/rig.h"

namespace hairswing {
namespace {

using Json = nlohmann::json;
using fit::kFitUndoKey;
using fit::kReweightUndoKey;

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// One skinned primitive of the avatar, posed at rest, with its skin's joint slots as rig nodes.
struct Prim {
  int mesh = -1, prim = -1;
  const RigSkin* skin = nullptr;
  std::vector<glm::vec3> rest;                       // skinned rest positions
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // of its triangles (repeats do no harm)
  std::vector<uint8_t> on_chain;                     // per vertex, for the chain being worked on
};

// What a bend of the chain's joint `joint` costs the mesh, from the weights: turning the joint
// (and the chain below it) by a small angle about an axis across its segment moves a vertex by
// its share of weight on that joint and those below x the angle x its distance from the joint
// (at p0, the segment along dir); an edge's length changes by the difference of its ends' moves
// along it. The largest such change over the edges at the chain's vertices, in % of the edge per
// degree, for the worse of two axes across the segment.
double BendCostPctPerDeg(const Avatar& av, const std::vector<Prim>& prims, const RigChain& ch,
                         int joint, const Rig& rig, const glm::vec3& p0, const glm::vec3& dir) {
  const glm::vec3 any = std::fabs(dir.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
  const glm::vec3 ax1 = glm::normalize(glm::cross(dir, any));
  const glm::vec3 ax2 = glm::cross(dir, ax1);
  auto chain_share = [&](const Prim& pr, const Primitive& p, uint32_t v) {
    float w_chain = 0, w_all = 0;
    for (int k = 0; k < 4; ++k) {
      if (!(p.weights[v][k] > 0) || p.joints[v][k] >= pr.skin->joints.size()) continue;
      w_all += p.weights[v][k];
      const int node = pr.skin->joints[p.joints[v][k]];
      for (int j = joint; j < ch.joint_end; ++j)
        if (rig.joint_node()[j] == node) w_chain += p.weights[v][k];
    }
    return w_all > 0 ? w_chain / w_all : 0.0f;
  };
  double worst = 0;
  for (const Prim& pr : prims) {
    const Primitive& p = av.meshes[pr.mesh].primitives[pr.prim];
    for (const auto& [a, b] : pr.edges) {
      if (!pr.on_chain[a] && !pr.on_chain[b]) continue;
      const glm::vec3 e = pr.rest[b] - pr.rest[a];
      const float len2 = glm::dot(e, e);
      if (!(len2 > 1e-14f)) continue;
      const float sa = chain_share(pr, p, a), sb = chain_share(pr, p, b);
      for (const glm::vec3& axis : {ax1, ax2}) {
        const glm::vec3 da = sa * glm::cross(axis, pr.rest[a] - p0);
        const glm::vec3 db = sb * glm::cross(axis, pr.rest[b] - p0);
        worst = std::max(worst, std::fabs(static_cast<double>(glm::dot(db - da, e))) / len2);
      }
    }
  }
  return 100.0 * worst * 3.14159265358979 / 180.0;
}

// Every segment joint's bend cost (BendCostPctPerDeg) from the current weights, root first (the
// root's, computed already, given); 0 for a zero-length segment.
std::vector<double> JointBendCosts(const Avatar& av, const std::vector<Prim>& prims,
                                   const RigChain& ch, const Rig& rig, double root_cost) {
  std::vector<double> out{root_cost};
  for (int j = ch.joint_begin + 1; j + 1 < ch.joint_end; ++j) {
    const glm::vec3 a(rig.rest_world()[rig.joint_node()[j]][3]);
    const glm::vec3 b(rig.rest_world()[rig.joint_node()[j + 1]][3]);
    const float len = glm::length(b - a);
    out.push_back(len > 1e-6f ? BendCostPctPerDeg(av, prims, ch, j, rig, a, (b - a) / len) : 0.0);
  }
  return out;
}

// "; bend cost per joint, root first: a, b, ... % per degree", for the report lines.
std::string CostList(const std::vector<double>& costs) {
  std::string out = "; bend cost per joint, root first:";
  char b[32];
  for (size_t i = 0; i < costs.size(); ++i) {
    std::snprintf(b, sizeof b, "%s %.2f", i ? "," : "", costs[i]);
    out += b;
  }
  return out + " % per degree";
}

}  // namespace

Result<ReweightResult> ReweightRoots(Avatar& av, const ReweightOptions& opt) {
  if (av.unknown_extensions.count(kReweightUndoKey))
    return Status(StatusCode::kInvalidInput,
                  "the avatar's roots were already re-weighted: undo that first (fit --undo)");
  if (!(opt.blend_segments > 0.0f) || !std::isfinite(opt.blend_segments))
    return Status(StatusCode::kInvalidInput, "blend_segments must be a positive number");
  auto rig_r = BuildRig(av);
  if (!rig_r.ok()) return rig_r.status();
  const Rig& rig = rig_r.value();
  if (rig.chains().empty())
    return Status(StatusCode::kUnsupported, "the avatar has no spring chains to re-weight");
  // Every skinned primitive once (a mesh shown by several nodes is re-weighted once).
  std::vector<Prim> prims;
  std::vector<glm::mat4> palette;
  for (const MeshInstance& inst : rig.meshes()) {
    if (inst.skin < 0) continue;
    bool seen = false;
    for (const Prim& p : prims) seen |= p.mesh == inst.mesh;
    if (seen) continue;
    palette.resize(std::max(palette.size(), rig.skins()[inst.skin].joints.size()));
    for (size_t pi = 0; pi < av.meshes[inst.mesh].primitives.size(); ++pi) {
      const Primitive& p = av.meshes[inst.mesh].primitives[pi];
      if (p.joints.empty() || p.weights.size() != p.positions.size()) continue;
      Prim pr{inst.mesh, static_cast<int>(pi), &rig.skins()[inst.skin], {}, {}, {}};
      pr.rest.resize(p.positions.size());
      pr.on_chain.assign(p.positions.size(), 0);
      if (p.mode == 4)
        for (size_t t = 0; t + 2 < p.indices.size(); t += 3)
          for (int k = 0; k < 3; ++k) {
            const uint32_t a = p.indices[t + k], b = p.indices[t + (k + 1) % 3];
            pr.edges.emplace_back(std::min(a, b), std::max(a, b));
          }
      if (Status st = PosePrimitive(rig, inst, p, rig.rest_world(), palette, pr.rest); !st.ok())
        return st;
      prims.push_back(std::move(pr));
    }
  }
  ReweightResult res;
  // Original JOINTS_0 / WEIGHTS_0 of every changed vertex, per primitive: (vertex, 4 joints,
  // 4 weight bit patterns).
  std::map<std::pair<int, int>, std::map<uint32_t, std::array<uint32_t, 8>>> original;
  for (size_t c = 0; c < rig.chains().size(); ++c) {
    const RigChain& ch = rig.chains()[c];
    const std::string name = av.vrm.springs[ch.source_spring].name.empty()
                                 ? "chain " + std::to_string(c)
                                 : "chain \"" + av.vrm.springs[ch.source_spring].name + "\"";
    if (ch.joint_end - ch.joint_begin < 2 || ch.attach < 0) {
      res.changes.push_back(name + ": kept (no segment, or no attachment)");
      continue;
    }
    const glm::vec3 p0(rig.rest_world()[rig.joint_node()[ch.joint_begin]][3]);
    const glm::vec3 p1(rig.rest_world()[rig.joint_node()[ch.joint_begin + 1]][3]);
    const float seg = glm::length(p1 - p0);
    if (!(seg > 1e-6f)) {
      res.changes.push_back(name + ": kept (zero-length first segment)");
      continue;
    }
    const glm::vec3 dir = (p1 - p0) / seg;
    auto on_chain = [&](int rig_node) {
      for (int j = ch.joint_begin; j < ch.joint_end; ++j)
        if (rig.joint_node()[j] == rig_node) return true;
      return false;
    };
    // The chain's vertices (weight on one of its joints) and where the blend lies along the first
    // segment's direction: from the highest of them to the lowest one the head still moves.
    struct Vert {
      Prim* prim;
      uint32_t v;
      float s;
    };
    std::vector<Vert> verts;
    float s_begin = 1e30f, s_end = -1e30f;
    double share = 0;  // the head's share of the chain's vertex weight, summed
    for (Prim& pr : prims) {
      const Primitive& p = av.meshes[pr.mesh].primitives[pr.prim];
      std::fill(pr.on_chain.begin(), pr.on_chain.end(), 0);
      for (uint32_t v = 0; v < p.positions.size(); ++v) {
        float w_chain = 0, w_head = 0;
        for (int k = 0; k < 4; ++k) {
          if (!(p.weights[v][k] > 0) || p.joints[v][k] >= pr.skin->joints.size()) continue;
          const int node = pr.skin->joints[p.joints[v][k]];
          if (on_chain(node)) w_chain += p.weights[v][k];
          if (node == ch.attach) w_head += p.weights[v][k];
        }
        if (!(w_chain > 0)) continue;
        pr.on_chain[v] = 1;
        const float s = glm::dot(pr.rest[v] - p0, dir);
        verts.push_back({&pr, v, s});
        share += w_head / (w_head + w_chain);
        s_begin = std::min(s_begin, s);
        if (w_head > 1e-3f * (w_head + w_chain)) s_end = std::max(s_end, s);
      }
    }
    if (verts.empty()) {
      res.changes.push_back(name + ": kept (no vertex is skinned to it)");
      continue;
    }
    const float width = std::max(0.0f, s_end - s_begin);
    const float target = opt.blend_segments * seg;
    ReweightResult::Chain rc{name, width, target, 0, 0, 0, 0, 0, 0, {}};
    rc.head_share_before = rc.head_share_after = share / static_cast<double>(verts.size());
    rc.cost_before = BendCostPctPerDeg(av, prims, ch, ch.joint_begin, rig, p0, dir);
    rc.cost_after = rc.cost_before;
    // The chain as the file keeps it (rc.cost_after is its root's cost then): every joint's cost,
    // and the report line.
    auto record = [&](const char* line) {
      rc.joint_cost = JointBendCosts(av, prims, ch, rig, rc.cost_after);
      res.chains.push_back(rc);
      res.changes.push_back(name + line + CostList(rc.joint_cost));
    };
    if (width >= target) {
      // A haircut hairswing fitted has the fitter's ramp as its blend (docs/fit.md): that one is
      // widened at the source, where the weights are made.
      char b[320];
      std::snprintf(b, sizeof b, ": kept (blend %.1f mm, first segment %.1f mm%s)", 1000 * width,
                    1000 * seg,
                    av.unknown_extensions.count(kFitUndoKey)
                        ? "; fitted by hairswing: fit the source again with a larger --root-ramp "
                          "(or --root-ramp auto) to widen it"
                        : "");
      record(b);
      continue;
    }
    // The head's share fades linearly over the target width from the top of the chain's
    // vertices; a vertex never loses head weight (the blend only widens).
    std::map<std::pair<int, int>, std::map<uint32_t, std::array<uint32_t, 8>>> local;
    double share_after = share;  // what each re-weighted vertex adds to the head's share, below
    for (const Vert& vt : verts) {
      Primitive& p = av.meshes[vt.prim->mesh].primitives[vt.prim->prim];
      glm::vec4& w = p.weights[vt.v];
      glm::u16vec4& jn = p.joints[vt.v];
      float w_chain = 0, w_head = 0;
      int head_slot = -1;
      for (int k = 0; k < 4; ++k) {
        if (!(w[k] > 0) || jn[k] >= vt.prim->skin->joints.size()) continue;
        const int node = vt.prim->skin->joints[jn[k]];
        if (on_chain(node)) w_chain += w[k];
        if (node == ch.attach) {
          w_head += w[k];
          head_slot = k;
        }
      }
      const float total = w_chain + w_head;
      const float h_new =
          std::max(w_head / total, std::clamp(1.0f - (vt.s - s_begin) / target, 0.0f, 1.0f));
      if (h_new * total <= w_head + 1e-6f) continue;  // already at least as much head
      // The head needs a slot when it has none: a free one (weight 0), in the skin's joint list.
      int free_slot = -1, head_index = -1;
      if (head_slot < 0) {
        for (int k = 0; k < 4 && free_slot < 0; ++k)
          if (!(w[k] > 0)) free_slot = k;
        for (size_t s = 0; s < vt.prim->skin->joints.size() && head_index < 0; ++s)
          if (vt.prim->skin->joints[s] == ch.attach) head_index = static_cast<int>(s);
        if (free_slot < 0 || head_index < 0) {
          ++rc.skipped;
          continue;
        }
      }
      auto& rec = local[{vt.prim->mesh, vt.prim->prim}];
      if (!rec.count(vt.v))
        rec[vt.v] = {jn[0], jn[1], jn[2], jn[3], Bits(w[0]), Bits(w[1]), Bits(w[2]), Bits(w[3])};
      if (head_slot < 0) {
        jn[free_slot] = static_cast<uint16_t>(head_index);
        w[free_slot] = 0.0f;
        head_slot = free_slot;
      }
      // The chain's weights shrink in proportion, the head's slot takes what they gave.
      const float chain_scale = (total * (1.0f - h_new)) / w_chain;
      float head_total = total * h_new;
      for (int k = 0; k < 4; ++k) {
        if (jn[k] >= vt.prim->skin->joints.size()) continue;
        const int node = vt.prim->skin->joints[jn[k]];
        if (on_chain(node) && w[k] > 0) w[k] *= chain_scale;
        if (node == ch.attach && k != head_slot && w[k] > 0) {
          head_total -= w[k];  // another slot of the head keeps its weight
        }
      }
      w[head_slot] = std::max(0.0f, head_total);
      share_after += h_new - w_head / total;
      ++rc.vertices;
    }
    // Kept only where it pays: the root bend's cost from the new weights against the old (a
    // chain whose blend sits at the joint, e.g. a one-segment bang, gains nothing).
    rc.cost_after = BendCostPctPerDeg(av, prims, ch, ch.joint_begin, rig, p0, dir);
    rc.head_share_after = share_after / static_cast<double>(verts.size());
    if (!(rc.cost_after < 0.9 * rc.cost_before)) {
      for (const auto& [key, rows] : local)
        for (const auto& [v, o] : rows) {
          Primitive& p = av.meshes[key.first].primitives[key.second];
          for (int k = 0; k < 4; ++k) {
            p.joints[v][k] = static_cast<uint16_t>(o[k]);
            p.weights[v][k] = FromBits(o[4 + k]);
          }
        }
      char b[240];
      std::snprintf(b, sizeof b,
                    ": kept (blend %.1f mm; widening it to %.1f mm would not lower the root "
                    "bend's cost: %.2f -> %.2f %% per degree)",
                    1000 * width, 1000 * target, rc.cost_before, rc.cost_after);
      rc.vertices = 0;
      rc.cost_after = rc.cost_before;
      rc.head_share_after = rc.head_share_before;
      record(b);
      continue;
    }
    for (auto& [key, rows] : local)
      for (auto& [v, o] : rows) original[key].emplace(v, o);
    char b[512];
    std::snprintf(
        b, sizeof b,
        ": head-to-first-joint blend %.1f mm widened to %.1f mm (first segment: %.1f mm), "
        "%d vertices re-weighted, root bend %.2f -> %.2f %% stretch per degree, the head "
        "carries %.0f -> %.0f %% of the chain's vertex weight (that part moves with the head, "
        "not the joints%s)%s",
        1000 * width, 1000 * target, 1000 * seg, rc.vertices, rc.cost_before, rc.cost_after,
        100 * rc.head_share_before, 100 * rc.head_share_after,
        rc.head_share_after > 0.5 ? "; more than half: this hair will swing visibly less, try a "
                                    "narrower --reweight-segments"
                                  : "",
        rc.skipped ? (", " + std::to_string(rc.skipped) +
                      " kept (no free influence slot or the head is not in the skin)")
                         .c_str()
                   : "");
    record(b);
  }
  if (!original.empty()) {
    Json rec = Json::array();
    for (const auto& [key, verts] : original) {
      Json rows = Json::array();
      for (const auto& [v, o] : verts) {
        Json row = Json::array({v});
        for (uint32_t x : o) row.push_back(x);
        rows.push_back(row);
      }
      rec.push_back({{"mesh", key.first}, {"primitive", key.second}, {"vertices", rows}});
    }
    av.unknown_extensions[kReweightUndoKey] = Json{{"primitives", rec}}.dump();
  }
  return res;
}

Status UndoReweight(Avatar& av) {
  auto it = av.unknown_extensions.find(kReweightUndoKey);
  if (it == av.unknown_extensions.end())
    return Status(StatusCode::kInvalidInput, "no root re-weighting to undo");
  const Json u = Json::parse(it->second, nullptr, false);
  // The record comes from a file: every index is checked, and the work is done on copies that
  // replace the primitives only when all of it succeeded.
  std::vector<Mesh> meshes = av.meshes;
  try {
    for (const Json& pr : u.at("primitives")) {
      const int m = pr.at("mesh").get<int>(), pi = pr.at("primitive").get<int>();
      if (m < 0 || static_cast<size_t>(m) >= meshes.size() || pi < 0 ||
          static_cast<size_t>(pi) >= meshes[m].primitives.size())
        throw std::runtime_error("mesh or primitive out of range");
      Primitive& p = meshes[m].primitives[pi];
      for (const Json& row : pr.at("vertices")) {
        const auto r = row.get<std::vector<uint32_t>>();
        if (r.size() != 9) throw std::runtime_error("a vertex row does not have 9 numbers");
        if (r[0] >= p.joints.size() || r[0] >= p.weights.size())
          throw std::runtime_error("vertex out of range");
        for (int k = 0; k < 4; ++k) {
          if (r[1 + k] > 65535) throw std::runtime_error("joint index out of range");
          p.joints[r[0]][k] = static_cast<uint16_t>(r[1 + k]);
          p.weights[r[0]][k] = FromBits(r[5 + k]);
        }
      }
    }
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidInput, std::string(kReweightUndoKey) + ": " + e.what());
  }
  av.meshes = std::move(meshes);
  av.unknown_extensions.erase(kReweightUndoKey);
  return Status::Ok();
}

}  // namespace hairswing
