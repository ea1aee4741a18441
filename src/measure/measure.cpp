// The measurement run (docs/measure.md): head-turn per solver x fps, the mesh sampled at 30 Hz.
#include "hairswing/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "hairswing/anim.h"
#include "hairswing/collide.h"
#include "hairswing/motion.h"

namespace hairswing {
namespace {

struct HairPrim {
  const MeshInstance* inst;
  const Primitive* prim;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<float> rest_len;
  size_t edge_offset = 0;    // into the flat per-edge arrays
  size_t vertex_offset = 0;  // into the flat front-strand flags
};

glm::mat3 RotationOnly(const glm::mat4& m) {
  return glm::mat3(glm::normalize(glm::vec3(m[0])), glm::normalize(glm::vec3(m[1])),
                   glm::normalize(glm::vec3(m[2])));
}

// Hair edges on welded vertices: vertices at the same rest position are one vertex.
struct WeldedEdges {
  std::vector<std::pair<uint32_t, uint32_t>> rep;  // welded vertex -> (hair primitive, vertex)
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<float> rest_len;
  std::vector<int> chain;       // per edge, -1 = no spring weight
  std::vector<int> vert_chain;  // per welded vertex: the chain of its largest spring weight, or -1
};

// The flip of one chain at the world's current state (ChordFlipDeg) from its reference chord
// `ref` (attachment frame, ChainReference); 0 for a chain without a segment.
double ChainFlipDeg(const Rig& rig, const SpringWorld& w, int chain, const glm::vec3& ref) {
  const RigChain& ch = rig.chains()[chain];
  if (ch.joint_end - ch.joint_begin < 2) return 0.0;
  const int root = rig.joint_node()[ch.joint_begin];
  const glm::mat3 a_now = ch.attach >= 0 ? RotationOnly(w.world()[ch.attach]) : glm::mat3(1.0f);
  return ChordFlipDeg(ref, w.tails()[ch.joint_end - 2] - glm::vec3(w.world()[root][3]),
                      glm::mat3(1.0f), a_now);
}

// Shortest rotation taking unit vector a to unit vector b.
glm::mat3 RotationBetween(const glm::vec3& a, const glm::vec3& b) {
  const float d = glm::dot(a, b);
  if (d > 1.0f - 1e-7f) return glm::mat3(1.0f);
  glm::quat q;
  if (d < -1.0f + 1e-7f) {
    glm::vec3 axis = glm::cross(a, std::fabs(a.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0));
    q = glm::angleAxis(3.14159265f, glm::normalize(axis));
  } else {
    const glm::vec3 c = glm::cross(a, b);
    q = glm::normalize(glm::quat(1.0f + d, c.x, c.y, c.z));
  }
  return glm::mat3_cast(q);
}

// Per chain at one sample: the summed arc deviation and curl (degrees) and their counts.
struct ShapeAcc {
  double arc_sum = 0, curl_sum = 0;
  int arc_n = 0, curl_n = 0;
};

// The shape and the chord a chain's curl and flip are measured from, in its attachment frame:
// per segment joint j, ref_seg[j]; the chain's root-to-tip chord, ref_chord[chain].
struct ChainReference {
  std::vector<glm::vec3> seg, chord;
};

// The rest pose's (the file's): what the hair's shape is without gravity.
ChainReference RestReference(const Rig& rig) {
  ChainReference ref;
  ref.seg.assign(rig.joint_node().size(), glm::vec3(0.0f));
  ref.chord.assign(rig.chains().size(), glm::vec3(0.0f));
  for (size_t c = 0; c < rig.chains().size(); ++c) {
    const RigChain& ch = rig.chains()[c];
    const glm::mat3 inv_rest = glm::transpose(
        ch.attach >= 0 ? RotationOnly(rig.rest_world()[ch.attach]) : glm::mat3(1.0f));
    auto at = [&](int j) { return glm::vec3(rig.rest_world()[rig.joint_node()[j]][3]); };
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j)
      ref.seg[j] = inv_rest * (at(j + 1) - at(j));
    if (ch.joint_end - ch.joint_begin >= 2)
      ref.chord[c] = inv_rest * (at(ch.joint_end - 1) - at(ch.joint_begin));
  }
  return ref;
}

// Where the hair hangs now (after settling under gravity with the body still): each segment and
// chord as the solver holds it, in the attachment frame.
ChainReference HangingReference(const Rig& rig, const SpringWorld& w) {
  ChainReference ref = RestReference(rig);
  for (size_t c = 0; c < rig.chains().size(); ++c) {
    const RigChain& ch = rig.chains()[c];
    const glm::mat3 inv_now =
        glm::transpose(ch.attach >= 0 ? RotationOnly(w.world()[ch.attach]) : glm::mat3(1.0f));
    auto at = [&](int j) { return glm::vec3(w.world()[rig.joint_node()[j]][3]); };
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j)
      ref.seg[j] = inv_now * (w.tails()[j] - at(j));
    if (ch.joint_end - ch.joint_begin >= 2)
      ref.chord[c] = inv_now * (w.tails()[ch.joint_end - 2] - at(ch.joint_begin));
  }
  return ref;
}

void ShapeDeviation(const Rig& rig, const SpringWorld& w, int chain, const ChainReference& ref,
                    ShapeAcc* acc) {
  const RigChain& ch = rig.chains()[chain];
  const auto world = w.world();
  const glm::mat3 a_now = ch.attach >= 0 ? RotationOnly(world[ch.attach]) : glm::mat3(1.0f);
  const glm::mat3 inv_now = glm::transpose(a_now);
  glm::mat3 first_swing(1.0f);
  bool have_first = false;
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const glm::vec3 rest = ref.seg[j];
    const glm::vec3 now = inv_now * (w.tails()[j] - glm::vec3(world[rig.joint_node()[j]][3]));
    if (glm::length(rest) < 1e-9f || glm::length(now) < 1e-9f) continue;
    acc->arc_sum += AngleDeg(rest, now);
    ++acc->arc_n;
    if (!have_first) {
      first_swing = RotationBetween(glm::normalize(rest), glm::normalize(now));
      have_first = true;
      continue;
    }
    acc->curl_sum += AngleDeg(first_swing * rest, now);
    ++acc->curl_n;
  }
}

// One avatar prepared for measuring: its hair primitives with their rest edge lengths, the welded
// edges, the shirt and the front strands, and the buffers every run reuses. Measure() runs it
// once per solver x fps, then (with match_swing) again while bisecting the stiffness.
class MeasureRun {
 public:
  MeasureRun(const Avatar& av, const Rig& rig, const MeasureOptions& opt, int head, int hips)
      : av_(av),
        rig_(rig),
        opt_(opt),
        head_(head),
        hips_(hips),
        right_(AvatarRight(av, rig)),
        to_viewer_(glm::cross(glm::vec3(0, 1, 0), right_)) {}

  // Finds and poses the hair, welds it, finds the front strands; fills the report's header.
  Status Prepare(MeasureReport* report);
  // One run of `mode` at `fps` with stiffness x `scale`. `full` = skin the mesh (stretch,
  // occlusion); otherwise only the solver quantities (swing, shape) are measured.
  Status Run(SolverMode mode, int fps, float scale, bool full, RunResult* out);
  // A full run of `mode` at `fps` that takes the mesh figures of `skinned` (the same solver at
  // another frame rate, already skinned; null = none) when the solver alone reaches the same
  // state at every sample: the mesh is a function of that state and the body pose at the same
  // instant. Otherwise (or with share_identical_fps off) the run skins the mesh itself.
  Status RunSharingMesh(SolverMode mode, int fps, const RunResult* skinned, RunResult* out);
  // Equal swing: each non-arc run gets RunResult::matched.
  Status MatchSwing(MeasureReport* report);

  int run_index = 0;  // for progress
  int runs = 1;

 private:
  int VertexChain(const MeshInstance& inst, const Primitive& p, size_t v) const;
  void FindHair();
  Status PoseRest();
  void Weld();
  Status PoseShirt(std::span<const glm::mat4> world);
  Status FindFrontStrands(MeasureReport* report);
  // Per 30 Hz sample of a full run.
  Status SampleStretch(RunResult& r);
  void SampleRootsAndPenetration(const SpringWorld& sw, RunResult& r);
  // The world capsule of a chain's sphere/capsule collider under `world`; false for other shapes.
  bool ColliderCapsule(int ci, std::span<const glm::mat4> world, WorldCollider* out) const;
  // Marks the (link, collider) pairs that overlap already in the rest pose; returns their count.
  int FindRestOverlaps();
  // rest_overlap_'s entry of chain c's link from joint j against its collider slot k.
  size_t PairIndex(int c, int j, int k) const {
    const RigChain& ch = rig_.chains()[c];
    return pair_offset_[c] +
           static_cast<size_t>((j - ch.joint_begin) * (ch.collider_end - ch.collider_begin) +
                               (k - ch.collider_begin));
  }
  Status SampleOcclusion(int* hidden_max, double* depth_max);
  // After a run.
  void SummariseSwing(const std::vector<std::vector<glm::vec3>>& tip_local, RunResult& r) const;
  void SummariseShape(const std::vector<ShapeAcc>& shape, RunResult& r) const;
  void SummariseMesh(RunResult& r) const;

  const Avatar& av_;
  const Rig& rig_;
  const MeasureOptions& opt_;
  const int head_, hips_;
  std::vector<int> node_chain_;  // rig node -> chain holding it as a joint, or -1
  std::vector<HairPrim> hair_;
  size_t n_edges_ = 0, n_verts_ = 0;
  int bind_differs_ = 0;  // welded edges whose stored length differs from the rest length > 1 %
  std::vector<std::vector<glm::vec3>> posed_;  // per hair primitive, positions at the current pose
  std::vector<std::vector<glm::vec3>> rigid_;  // the same with every spring rigid (the baseline)
  WeldedEdges welded_;
  const MeshInstance* shirt_inst_ = nullptr;
  OcclusionCaster caster_;
  std::vector<glm::vec3> shirt_pos_;
  std::vector<uint32_t> shirt_idx_;
  std::vector<uint8_t> front_;  // per hair vertex: in front of the shirt at rest
  // The avatar's right (AvatarRight) and its front, towards a viewer in front of it (+Z for an
  // avatar facing +Z): the head-turn nods about the one, the front strands are seen along the
  // other.
  const glm::vec3 right_, to_viewer_;
  // Scratch reused by every run.
  std::vector<glm::mat4> world_, body_world_, palette_;
  std::vector<Transform> body_pose_;
  std::vector<double> max_ratio_, max_welded_, max_excess_, sample_ratios_;
  // Mesh swing (RunResult::swing_mesh_rms_mm): per welded hair vertex, its offset d from the
  // rigid baseline in its chain's attachment frame (mm): the sum of d and of |d|^2 over the
  // samples and the latest d, so that the rms of d - d_end comes out at the end without keeping
  // every sample: sum |d - e|^2 = sum |d|^2 - 2 e . sum d + n |e|^2.
  std::vector<glm::dvec3> mesh_sum_, mesh_last_;
  std::vector<double> mesh_sum_sq_;
  std::vector<glm::mat3> to_attach_;  // per chain, this sample: world to attachment frame
  size_t mesh_samples_ = 0;
  // Per chain link x chain collider (chain by chain, link-major): 1 = overlaps at rest, so no
  // solver can avoid it and it is not counted as penetration (a head sphere larger than the head
  // holding the hair). pair_offset_[c] = first entry of chain c.
  std::vector<uint8_t> rest_overlap_;
  std::vector<size_t> pair_offset_;
};

int MeasureRun::VertexChain(const MeshInstance& inst, const Primitive& p, size_t v) const {
  // The chain holding a vertex's largest spring weight, -1 if none.
  int best = -1;
  float best_w = 0;
  for (int k = 0; k < 4; ++k) {
    if (!(p.weights[v][k] > best_w) || p.joints[v][k] >= rig_.skins()[inst.skin].joints.size())
      continue;
    const int c = node_chain_[rig_.skins()[inst.skin].joints[p.joints[v][k]]];
    if (c < 0) continue;
    best = c;
    best_w = p.weights[v][k];
  }
  return best;
}

void MeasureRun::FindHair() {
  // Hair = skinned triangle primitives with weight on a spring joint.
  node_chain_.assign(rig_.node_count(), -1);
  for (size_t c = 0; c < rig_.chains().size(); ++c)
    for (int j = rig_.chains()[c].joint_begin; j < rig_.chains()[c].joint_end; ++j)
      node_chain_[rig_.joint_node()[j]] = static_cast<int>(c);
  for (const MeshInstance& inst : rig_.meshes()) {
    if (inst.skin < 0) continue;
    for (const Primitive& p : av_.meshes[inst.mesh].primitives) {
      bool is_hair = false;
      for (size_t v = 0; v < p.joints.size() && !is_hair; ++v)
        is_hair = VertexChain(inst, p, v) >= 0;
      if (!is_hair || p.mode != 4) continue;
      HairPrim h{&inst, &p, TriangleEdges(p.indices), {}, n_edges_, n_verts_};
      n_edges_ += h.edges.size();
      n_verts_ += p.positions.size();
      hair_.push_back(std::move(h));
    }
  }
}

Status MeasureRun::PoseRest() {
  world_.resize(rig_.node_count());
  body_world_.resize(rig_.node_count());
  body_pose_.resize(rig_.node_count());
  size_t max_joints = 1;
  for (const auto& s : rig_.skins()) max_joints = std::max(max_joints, s.joints.size());
  palette_.resize(max_joints);
  posed_.resize(hair_.size());
  rigid_.resize(hair_.size());
  for (size_t h = 0; h < hair_.size(); ++h) {
    posed_[h].resize(hair_[h].prim->positions.size());
    rigid_[h].resize(hair_[h].prim->positions.size());
    Status st =
        PosePrimitive(rig_, *hair_[h].inst, *hair_[h].prim, rig_.rest_world(), palette_, posed_[h]);
    if (!st.ok()) return st;
    for (const auto& [a, b] : hair_[h].edges)
      hair_[h].rest_len.push_back(glm::length(posed_[h][a] - posed_[h][b]));
  }
  return Status::Ok();
}

void MeasureRun::Weld() {
  // One vertex per rest position (a 0.01 mm grid), one edge per welded vertex pair.
  std::map<std::tuple<long long, long long, long long>, uint32_t> grid;
  std::vector<std::vector<uint32_t>> weld(hair_.size());
  std::vector<int> rep_chain;
  constexpr double kGrid = 1e-5;
  for (size_t h = 0; h < hair_.size(); ++h)
    for (size_t v = 0; v < posed_[h].size(); ++v) {
      const glm::vec3& p = posed_[h][v];
      auto key = std::make_tuple(std::llround(p.x / kGrid), std::llround(p.y / kGrid),
                                 std::llround(p.z / kGrid));
      auto [it, fresh] = grid.emplace(key, static_cast<uint32_t>(welded_.rep.size()));
      if (fresh) {
        welded_.rep.emplace_back(static_cast<uint32_t>(h), static_cast<uint32_t>(v));
        rep_chain.push_back(VertexChain(*hair_[h].inst, *hair_[h].prim, v));
      } else if (rep_chain[it->second] < 0) {
        rep_chain[it->second] = VertexChain(*hair_[h].inst, *hair_[h].prim, v);
      }
      weld[h].push_back(it->second);
    }
  std::vector<std::pair<uint32_t, uint32_t>> all;
  for (size_t h = 0; h < hair_.size(); ++h)
    for (const auto& [a, b] : hair_[h].edges) {
      uint32_t wa = weld[h][a], wb = weld[h][b];
      if (wa == wb) continue;
      all.emplace_back(std::min(wa, wb), std::max(wa, wb));
    }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  welded_.vert_chain = rep_chain;
  for (const auto& [a, b] : all) {
    const auto [ha, va] = welded_.rep[a];
    const auto [hb, vb] = welded_.rep[b];
    const float len = glm::length(posed_[ha][va] - posed_[hb][vb]);
    if (!(len > 0)) continue;
    welded_.edges.emplace_back(a, b);
    welded_.rest_len.push_back(len);
    welded_.chain.push_back(rep_chain[a] >= 0 ? rep_chain[a] : rep_chain[b]);
    // The mesh's stored (bind-pose) length of the same edge, for the report's note.
    const float bind = glm::length(hair_[ha].prim->positions[va] - hair_[hb].prim->positions[vb]);
    if (std::fabs(bind / len - 1.0f) > 0.01f) ++bind_differs_;
  }
}

Status MeasureRun::PoseShirt(std::span<const glm::mat4> w) {
  shirt_pos_.clear();
  shirt_idx_.clear();
  for (const Primitive& p : av_.meshes[shirt_inst_->mesh].primitives) {
    const uint32_t base = static_cast<uint32_t>(shirt_pos_.size());
    std::vector<glm::vec3> tmp(p.positions.size());
    Status st = PosePrimitive(rig_, *shirt_inst_, p, w, palette_, tmp);
    if (!st.ok()) return st;
    shirt_pos_.insert(shirt_pos_.end(), tmp.begin(), tmp.end());
    for (uint32_t i : p.indices) shirt_idx_.push_back(base + i);
  }
  caster_.SetMesh(shirt_pos_, shirt_idx_);
  return Status::Ok();
}

Status MeasureRun::FindFrontStrands(MeasureReport* report) {
  // Hair that at rest is in front of the shirt: a ray into the body hits it, nothing of the
  // shirt lies between the vertex and the viewer.
  for (const MeshInstance& inst : rig_.meshes())
    if (inst.mesh == opt_.shirt_mesh) shirt_inst_ = &inst;
  front_.assign(n_verts_, 0);
  if (!shirt_inst_) return Status::Ok();
  if (Status st = PoseShirt(rig_.rest_world()); !st.ok()) return st;
  for (size_t h = 0; h < hair_.size(); ++h)
    for (size_t v = 0; v < posed_[h].size(); ++v)
      if (caster_.DepthBehind(posed_[h][v], -to_viewer_) >= 0 &&
          caster_.DepthBehind(posed_[h][v], to_viewer_) < 0) {
        front_[hair_[h].vertex_offset + v] = 1;
        ++report->front_strand_vertices;
      }
  return Status::Ok();
}

Status MeasureRun::Prepare(MeasureReport* report) {
  report->chains = static_cast<int>(rig_.chains().size());
  for (const RigChain& ch : rig_.chains())
    report->chain_names.push_back(av_.vrm.springs[ch.source_spring].name);
  FindHair();
  report->hair_vertices = HairVertexCount(av_, rig_);
  report->measured_vertices = static_cast<int>(n_verts_);
  report->hair_edges = static_cast<int>(n_edges_);
  if (Status st = PoseRest(); !st.ok()) return st;
  Weld();
  report->hair_edges_welded = static_cast<int>(welded_.edges.size());
  report->bind_pose_edges_differ = bind_differs_;
  report->penetration_rest_pairs = FindRestOverlaps();
  report->skinned_hair = !welded_.edges.empty();
  if (Status st = FindFrontStrands(report); !st.ok()) return st;
  max_ratio_.resize(n_edges_);
  max_welded_.resize(welded_.edges.size());
  max_excess_.resize(welded_.edges.size());
  sample_ratios_.reserve(n_edges_);
  return Status::Ok();
}

Status MeasureRun::SampleStretch(RunResult& r) {
  sample_ratios_.clear();
  for (size_t h = 0; h < hair_.size(); ++h) {
    Status st = PosePrimitive(rig_, *hair_[h].inst, *hair_[h].prim, world_, palette_, posed_[h]);
    if (!st.ok()) return st;
    if (!opt_.series) continue;  // figures only: the welded and excess stretch below
    for (size_t e = 0; e < hair_[h].edges.size(); ++e) {
      const float rest = hair_[h].rest_len[e];
      if (rest <= 0) continue;
      const double ratio =
          glm::length(posed_[h][hair_[h].edges[e].first] - posed_[h][hair_[h].edges[e].second]) /
          rest;
      max_ratio_[hair_[h].edge_offset + e] = std::max(max_ratio_[hair_[h].edge_offset + e], ratio);
      sample_ratios_.push_back(ratio);
    }
  }
  // The baseline at the same instant: the body as in the run, every spring rigid in its
  // attachment frame (body_world_, posed from the body motion alone).
  for (size_t h = 0; h < hair_.size(); ++h) {
    Status st =
        PosePrimitive(rig_, *hair_[h].inst, *hair_[h].prim, body_world_, palette_, rigid_[h]);
    if (!st.ok()) return st;
  }
  for (size_t e = 0; e < welded_.edges.size(); ++e) {
    const auto [ha, va] = welded_.rep[welded_.edges[e].first];
    const auto [hb, vb] = welded_.rep[welded_.edges[e].second];
    const double rest = welded_.rest_len[e];
    const double len = glm::length(posed_[ha][va] - posed_[hb][vb]);
    const double rigid = glm::length(rigid_[ha][va] - rigid_[hb][vb]);
    max_welded_[e] = std::max(max_welded_[e], len / rest);
    max_excess_[e] = std::max(max_excess_[e], (len - rigid) / rest);
  }
  // Mesh swing: how far each hair vertex is from where the rigid baseline puts it, in its
  // chain's attachment frame (summed here, against where it is at the end in SummariseMesh, as
  // the tips' swing: hair that hangs under gravity or rests against a collider is off the rest
  // pose for good, and that offset is not swing).
  if (r.sample_times.size() == 1) {
    mesh_sum_.assign(welded_.rep.size(), glm::dvec3(0.0));
    mesh_last_.assign(welded_.rep.size(), glm::dvec3(0.0));
    mesh_sum_sq_.assign(welded_.rep.size(), 0.0);
    mesh_samples_ = 0;
  }
  to_attach_.resize(rig_.chains().size());
  for (size_t c = 0; c < to_attach_.size(); ++c) {
    const int attach = rig_.chains()[c].attach;
    to_attach_[c] = attach >= 0 ? glm::transpose(RotationOnly(world_[attach])) : glm::mat3(1.0f);
  }
  for (size_t v = 0; v < welded_.rep.size(); ++v) {
    const int c = welded_.vert_chain[v];
    if (c < 0) continue;
    const auto [h, i] = welded_.rep[v];
    const glm::dvec3 off = 1000.0 * glm::dvec3(to_attach_[c] * (posed_[h][i] - rigid_[h][i]));
    mesh_sum_[v] += off;
    mesh_sum_sq_[v] += glm::dot(off, off);
    mesh_last_[v] = off;
  }
  ++mesh_samples_;
  if (opt_.series)
    r.stretch_p99_series_pct.push_back(100.0 * (QuantileInPlace(sample_ratios_, 0.99) - 1.0));
  return Status::Ok();
}

bool MeasureRun::ColliderCapsule(int ci, std::span<const glm::mat4> world,
                                 WorldCollider* out) const {
  const ColliderShape kind = rig_.collider_shape()[ci];
  if (kind != ColliderShape::kSphere && kind != ColliderShape::kCapsule) return false;
  *out = ColliderToWorld(kind, rig_.collider_offset()[ci], rig_.collider_tail()[ci],
                         rig_.collider_normal()[ci], rig_.collider_radius()[ci],
                         world[rig_.collider_node()[ci]], true);
  return true;
}

int MeasureRun::FindRestOverlaps() {
  const auto& chains = rig_.chains();
  const auto rest = rig_.rest_world();
  pair_offset_.assign(chains.size() + 1, 0);
  for (size_t c = 0; c < chains.size(); ++c) {
    const RigChain& ch = chains[c];
    const size_t links = static_cast<size_t>(std::max(0, ch.joint_end - ch.joint_begin - 1));
    pair_offset_[c + 1] =
        pair_offset_[c] + links * static_cast<size_t>(ch.collider_end - ch.collider_begin);
  }
  rest_overlap_.assign(pair_offset_.back(), 0);
  int count = 0;
  for (size_t c = 0; c < chains.size(); ++c) {
    const RigChain& ch = chains[c];
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
      // At rest a link runs from its joint to the next joint of the chain.
      const glm::vec3 a(rest[rig_.joint_node()[j]][3]), b(rest[rig_.joint_node()[j + 1]][3]);
      for (int k = ch.collider_begin; k < ch.collider_end; ++k) {
        WorldCollider wc;
        if (!ColliderCapsule(rig_.chain_colliders()[k], rest, &wc)) continue;
        if (LinkPenetration(a, b, wc.head, wc.tail, wc.radius) <= opt_.penetration_threshold)
          continue;
        rest_overlap_[PairIndex(static_cast<int>(c), j, k)] = 1;
        ++count;
      }
    }
  }
  return count;
}

void MeasureRun::SampleRootsAndPenetration(const SpringWorld& sw, RunResult& r) {
  // Roots against the body pose computed independently of the solver (body_world_).
  const auto& chains = rig_.chains();
  for (size_t c = 0; c < chains.size(); ++c) {
    const RigChain& ch = chains[c];
    const int root = rig_.joint_node()[ch.joint_begin];
    r.root_drift_mm = std::max(
        r.root_drift_mm,
        1000.0 * glm::length(glm::vec3(sw.world()[root][3]) - glm::vec3(body_world_[root][3])));
    // Link-in-capsule penetration beyond the threshold (proxy check, hit radius ignored), for
    // the pairs that are clear of each other at rest.
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
      const glm::vec3 a(sw.world()[rig_.joint_node()[j]][3]), b = sw.tails()[j];
      for (int k = ch.collider_begin; k < ch.collider_end; ++k) {
        if (rest_overlap_[PairIndex(static_cast<int>(c), j, k)]) continue;
        WorldCollider wc;
        if (!ColliderCapsule(rig_.chain_colliders()[k], world_, &wc)) continue;
        if (LinkPenetration(a, b, wc.head, wc.tail, wc.radius) > opt_.penetration_threshold)
          ++r.penetration_samples;
      }
    }
  }
}

Status MeasureRun::SampleOcclusion(int* hidden_max, double* depth_max) {
  // Clothing occlusion from the front: front-strand vertices now behind the posed shirt.
  if (Status st = PoseShirt(world_); !st.ok()) return st;
  int hidden = 0;
  for (size_t h = 0; h < hair_.size(); ++h)
    for (size_t v = 0; v < posed_[h].size(); ++v) {
      if (!front_[hair_[h].vertex_offset + v]) continue;
      const float d = caster_.DepthBehind(posed_[h][v], to_viewer_);
      if (d > opt_.occlusion_threshold) {
        ++hidden;
        *depth_max = std::max(*depth_max, 1000.0 * d);
      }
    }
  *hidden_max = std::max(*hidden_max, hidden);
  return Status::Ok();
}

void MeasureRun::SummariseSwing(const std::vector<std::vector<glm::vec3>>& tip_local,
                                RunResult& r) const {
  // Tip lag in the attachment frame against where the tip rests at the end of the run.
  const size_t samples = r.sample_times.size();
  const size_t chains = rig_.chains().size();
  r.swing_series_mm.assign(samples, 0.0);
  double sq_total = 0;
  for (size_t c = 0; c < chains; ++c) {
    const glm::vec3 end = tip_local[c].back();
    double sq = 0;
    for (size_t i = 0; i < samples; ++i) {
      const double lag = 1000.0 * glm::length(tip_local[c][i] - end);
      sq += lag * lag;
      r.swing_series_mm[i] += lag * lag;
      r.swing_max_mm = std::max(r.swing_max_mm, lag);
    }
    r.swing_rms_per_chain_mm.push_back(std::sqrt(sq / samples));
    sq_total += sq;
  }
  for (double& v : r.swing_series_mm) v = std::sqrt(v / chains);
  r.swing_rms_mm = std::sqrt(sq_total / (samples * chains));
}

void MeasureRun::SummariseShape(const std::vector<ShapeAcc>& shape, RunResult& r) const {
  double curl_total = 0, arc_total = 0;
  int curl_chains = 0;
  for (const ShapeAcc& s : shape) {
    r.shape_error_per_chain_deg.push_back(s.curl_n ? s.curl_sum / s.curl_n : 0.0);
    if (s.curl_n) {
      curl_total += r.shape_error_per_chain_deg.back();
      ++curl_chains;
    }
    arc_total += s.arc_n ? s.arc_sum / s.arc_n : 0.0;
  }
  r.shape_error_deg = curl_chains ? curl_total / curl_chains : 0.0;
  r.arc_deviation_deg = arc_total / shape.size();
}

void MeasureRun::SummariseMesh(RunResult& r) const {
  // Settle: tip motion between consecutive samples within the last 2 s.
  size_t first_late = 0;
  while (first_late < r.sample_times.size() &&
         r.sample_times[first_late] < opt_.duration - 2.0 - 1e-9)
    ++first_late;
  for (const auto& path : r.tip_paths)
    if (first_late < path.size())
      r.settle_mm =
          std::max(r.settle_mm, 1000.0 * MaxStepMotion(std::span(path).subspan(first_late)));
  const StretchSummary s = SummariseStretch(max_ratio_);
  r.stretch_p99_pct = s.p99_pct;
  r.stretch_worst_pct = s.worst_pct;
  const StretchSummary sw_all = SummariseStretch(max_welded_);
  r.stretch_p99_welded_pct = sw_all.p99_pct;
  r.stretch_worst_welded_pct = sw_all.worst_pct;
  // Excess as a ratio above 1, so SummariseStretch's 100 (Q - 1) reads it in %.
  std::vector<double> excess(max_excess_.size());
  for (size_t e = 0; e < excess.size(); ++e) excess[e] = 1.0 + max_excess_[e];
  // Over the edges that move with a spring (a vertex with spring weight): a body mesh that
  // holds the hair (godette) would otherwise put the p99 among edges no spring moves.
  std::vector<double> excess_hair;
  for (size_t e = 0; e < excess.size(); ++e)
    if (welded_.chain[e] >= 0) excess_hair.push_back(excess[e]);
  const StretchSummary ex_all =
      excess_hair.empty() ? StretchSummary{} : SummariseStretch(excess_hair);
  r.stretch_p99_excess_pct = ex_all.p99_pct;
  r.stretch_worst_excess_pct = ex_all.worst_pct;
  double mesh_sq = 0.0;
  size_t mesh_verts = 0;
  const double n = static_cast<double>(mesh_samples_);
  for (size_t v = 0; v < mesh_sum_.size(); ++v) {
    if (welded_.vert_chain[v] < 0) continue;
    const glm::dvec3& e = mesh_last_[v];
    mesh_sq +=
        std::max(0.0, mesh_sum_sq_[v] - 2.0 * glm::dot(e, mesh_sum_[v]) + n * glm::dot(e, e));
    ++mesh_verts;
  }
  r.swing_mesh_rms_mm = mesh_verts && mesh_samples_ ? std::sqrt(mesh_sq / (n * mesh_verts)) : 0.0;
  std::vector<std::vector<double>> per_chain(rig_.chains().size()), per_chain_ex(per_chain.size());
  for (size_t e = 0; e < welded_.edges.size(); ++e)
    if (welded_.chain[e] >= 0) {
      per_chain[welded_.chain[e]].push_back(max_welded_[e]);
      per_chain_ex[welded_.chain[e]].push_back(excess[e]);
    }
  for (auto& v : per_chain)
    r.stretch_p99_per_chain_pct.push_back(v.empty() ? std::nan("") : SummariseStretch(v).p99_pct);
  for (auto& v : per_chain_ex)
    r.stretch_p99_excess_per_chain_pct.push_back(v.empty() ? std::nan("")
                                                           : SummariseStretch(v).p99_pct);
}

Status MeasureRun::Run(SolverMode mode, int fps, float scale, bool full, RunResult* out) {
  RunResult& r = *out;
  r.solver = mode;
  r.fps = fps;
  SpringConfig cfg;
  cfg.mode = mode;
  cfg.tuned = opt_.tuned;  // identical k, c, g for arc and parent
  cfg.arc_liveliness = opt_.arc_liveliness;
  cfg.arc_stiffness = opt_.arc_stiffness;
  cfg.arc_follow = opt_.arc_follow;
  cfg.arc_max_lag_deg = opt_.arc_max_lag_deg;
  cfg.stiffness_scale = scale;
  cfg.segment_checks = opt_.segment_checks;
  auto w = SpringWorld::Create(rig_, cfg);
  if (!w.ok()) return w.status();
  SpringWorld& sw = w.value();
  std::unique_ptr<PoseSampler> motion, body_motion;
  if (opt_.motion) {
    motion = opt_.motion(rig_);
    body_motion = opt_.motion(rig_);
  } else {
    motion = std::make_unique<HeadTurnMotion>(rig_, head_, hips_, right_);
    body_motion = std::make_unique<HeadTurnMotion>(rig_, head_, hips_, right_);
  }
  ClipDriver driver(sw, *motion);
  driver.Reset();
  // Hair with gravity hangs lower than the file's rest pose. It starts where it hangs (the body
  // held at the motion's first pose until the hair is still, SettleUnderGravity), and its curl
  // and flip count from that shape, not from the file's: a strand that droops under its own
  // weight is not curled. Hair without gravity rests at the file's pose: nothing runs.
  ChainReference ref = RestReference(rig_);
  r.settle_before_s = SettleUnderGravity(sw, *motion, body_pose_);
  if (r.settle_before_s > 0.0) ref = HangingReference(rig_, sw);
  std::fill(max_ratio_.begin(), max_ratio_.end(), 1.0);
  std::fill(max_welded_.begin(), max_welded_.end(), 1.0);
  std::fill(max_excess_.begin(), max_excess_.end(), 0.0);
  r.flip_per_chain_deg.assign(rig_.chains().size(), 0.0);
  const size_t chains = rig_.chains().size();
  r.tip_paths.assign(chains, {});
  std::vector<std::vector<glm::vec3>> tip_local(chains);
  std::vector<ShapeAcc> shape(chains);
  int hidden_max = 0;
  double depth_max = 0.0;
  const int frames = static_cast<int>(std::lround(opt_.duration * fps));
  const int stride = fps / opt_.sample_hz;
  for (int f = 0; f <= frames; ++f) {
    if (f > 0) {
      const auto t0 = std::chrono::steady_clock::now();
      r.steps.Merge(driver.Advance(1.0 / fps));
      r.frame_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    if (f % stride != 0) continue;
    const double t = static_cast<double>(f) / fps;
    r.sample_times.push_back(t);
    for (size_t c = 0; c < chains; ++c) {
      const RigChain& ch = rig_.chains()[c];
      // The last segment's end; a one-joint spring (only a tail: nothing swings) has none and
      // reports its joint's own entry (the ASan corpus caught the read before the chain).
      const glm::vec3 tip = sw.tails()[std::max(ch.joint_begin, ch.joint_end - 2)];
      r.tip_paths[c].push_back(tip);
      const glm::mat4& a = ch.attach >= 0 ? sw.world()[ch.attach] : glm::mat4(1.0f);
      tip_local[c].push_back(glm::transpose(RotationOnly(a)) * (tip - glm::vec3(a[3])));
      if (opt_.shape_until < 0 || t <= opt_.shape_until + 1e-9) {
        ShapeDeviation(rig_, sw, static_cast<int>(c), ref, &shape[c]);
        r.flip_per_chain_deg[c] = std::max(
            r.flip_per_chain_deg[c], ChainFlipDeg(rig_, sw, static_cast<int>(c), ref.chord[c]));
      }
    }
    r.hashes.push_back(sw.StateHash());
    if (!full) continue;
    ComputeWorld(rig_, driver.pose(), world_);
    body_motion->Sample(t, body_pose_);
    ComputeWorld(rig_, body_pose_, body_world_);
    if (Status st = SampleStretch(r); !st.ok()) return st;
    SampleRootsAndPenetration(sw, r);
    if (shirt_inst_)
      if (Status st = SampleOcclusion(&hidden_max, &depth_max); !st.ok()) return st;
    if (opt_.progress) opt_.progress((run_index + static_cast<double>(f) / frames) / runs);
  }
  r.update_p50_ms = Quantile(r.frame_ms, 0.5);
  r.update_p95_ms = Quantile(r.frame_ms, 0.95);
  SummariseSwing(tip_local, r);
  SummariseShape(shape, r);
  for (double f : r.flip_per_chain_deg) r.flip_deg = std::max(r.flip_deg, f);
  if (!full) return Status::Ok();
  SummariseMesh(r);
  if (shirt_inst_) {
    r.occlusion_hidden = hidden_max;
    r.occlusion_max_depth_mm = depth_max;
  }
  return Status::Ok();
}

Status MeasureRun::RunSharingMesh(SolverMode mode, int fps, const RunResult* skinned,
                                  RunResult* out) {
  if (skinned && opt_.share_identical_fps) {
    RunResult r;  // the solver alone: a fraction of the cost of skinning
    if (Status st = Run(mode, fps, opt_.stiffness_scale, false, &r); !st.ok()) return st;
    if (r.hashes == skinned->hashes) {
      *out = *skinned;
      out->fps = fps;
      out->steps = r.steps;
      out->frame_ms = std::move(r.frame_ms);
      out->update_p50_ms = r.update_p50_ms;
      out->update_p95_ms = r.update_p95_ms;
      out->mesh_from_fps = skinned->fps;
      return Status::Ok();
    }
  }
  return Run(mode, fps, opt_.stiffness_scale, true, out);
}

Status MeasureRun::MatchSwing(MeasureReport* report) {
  // Scale each non-arc solver's stiffness until its tip lag rms equals arc's. Swing falls as
  // stiffness rises, so bisect the scale in log space between 1/64 and 64.
  for (RunResult& r : report->results) {
    if (r.solver == SolverMode::kArc) continue;
    const RunResult* arc = nullptr;
    for (const RunResult& a : report->results)
      if (a.solver == SolverMode::kArc && a.fps == r.fps) arc = &a;
    if (!arc) continue;
    RunResult::Matched m;
    m.target_swing_rms_mm = arc->swing_rms_mm;
    // The same solver at another frame rate already matched: fps identity gives the same answer.
    for (const RunResult& done : report->results)
      if (&done != &r && done.solver == r.solver && done.matched && report->fps_identical)
        m = *done.matched;
    if (m.iterations == 0) {
      double lo = std::log(1.0 / 64.0), hi = std::log(64.0), best_err = 1e30, best = 0.0;
      for (int it = 0; it < 40; ++it) {
        const double mid = 0.5 * (lo + hi);
        RunResult probe;
        if (Status st = Run(r.solver, r.fps, static_cast<float>(std::exp(mid)), false, &probe);
            !st.ok())
          return st;
        ++m.iterations;
        const double err = probe.swing_rms_mm / std::max(m.target_swing_rms_mm, 1e-12) - 1.0;
        if (std::fabs(err) < best_err) {
          best_err = std::fabs(err);
          best = mid;
        }
        if (std::fabs(err) <= opt_.match_tolerance) break;
        if (err > 0)
          lo = mid;  // swings too much: stiffer
        else
          hi = mid;
      }
      RunResult full_run;
      m.stiffness_scale = std::exp(best);
      if (Status st = Run(r.solver, r.fps, static_cast<float>(m.stiffness_scale), true, &full_run);
          !st.ok())
        return st;
      m.swing_rms_mm = full_run.swing_rms_mm;
      m.stretch_p99_pct = full_run.stretch_p99_welded_pct;
      m.stretch_p99_excess_pct = full_run.stretch_p99_excess_pct;
      m.shape_error_deg = full_run.shape_error_deg;
      m.reached = std::fabs(m.swing_rms_mm / std::max(m.target_swing_rms_mm, 1e-12) - 1.0) <=
                  opt_.match_tolerance;
    }
    r.matched = m;
  }
  return Status::Ok();
}

}  // namespace

Result<MeasureReport> Measure(const Avatar& av, const MeasureOptions& opt) {
  auto rig_r = BuildRig(av);
  if (!rig_r.ok()) return rig_r.status();
  const Rig& rig = rig_r.value();
  // No chains first: a plain glTF character has neither, and fit gives it both.
  if (rig.chains().empty())
    return Status(StatusCode::kUnsupported,
                  "measure: the avatar has no spring chains (hairswing fit FILE --hair SELECTOR "
                  "gives its hair chains)");
  const int head = HumanoidRigNode(av, rig, "head");
  if (head < 0)
    return Status(StatusCode::kUnsupported,
                  "measure: the avatar has no humanoid head bone (the motions turn the head: "
                  "the file's VRM humanoid must name it)");
  for (int f : opt.fps)
    if (f <= 0 || 120 % f != 0 || f % opt.sample_hz != 0)
      return Status(StatusCode::kInvalidInput, "measure: fps " + std::to_string(f) +
                                                   " must divide 120 and be a multiple of " +
                                                   std::to_string(opt.sample_hz));
  const bool has_arc =
      std::find(opt.solvers.begin(), opt.solvers.end(), SolverMode::kArc) != opt.solvers.end();
  if (opt.match_swing && !has_arc)
    return Status(StatusCode::kInvalidInput,
                  "measure: the swing-matched comparison needs the arc solver in the run");

  MeasureReport report;
  report.avatar = av.source_path;
  report.motion = opt.motion_name;
  report.settings = {opt.tuned,      opt.arc_liveliness,  opt.arc_stiffness,
                     opt.arc_follow, opt.arc_max_lag_deg, opt.stiffness_scale};
  MeasureRun run(av, rig, opt, head, HumanoidRigNode(av, rig, "hips"));
  if (Status st = run.Prepare(&report); !st.ok()) return st;
  run.runs = static_cast<int>(opt.solvers.size() * opt.fps.size());
  for (SolverMode mode : opt.solvers) {
    const size_t first = report.results.size();  // this solver's first run skins the mesh
    for (int fps : opt.fps) {
      const RunResult* skinned = first < report.results.size() ? &report.results[first] : nullptr;
      RunResult r;
      if (Status st = run.RunSharingMesh(mode, fps, skinned, &r); !st.ok()) return st;
      report.results.push_back(std::move(r));
      ++run.run_index;
    }
  }
  // Frame-rate identity: per solver, the same hash sequence at the common 30 Hz samples.
  for (const RunResult& a : report.results)
    for (const RunResult& b : report.results)
      if (a.solver == b.solver && a.hashes != b.hashes) report.fps_identical = false;
  if (opt.match_swing)
    if (Status st = run.MatchSwing(&report); !st.ok()) return st;
  if (opt.progress) opt.progress(1.0);
  return report;
}

std::string FirstNonFiniteFigure(const MeasureReport& report) {
  for (const RunResult& r : report.results) {
    const std::pair<const char*, double> figures[] = {
        {"stretch_p99_pct", r.stretch_p99_pct},
        {"stretch_worst_pct", r.stretch_worst_pct},
        {"root_drift_mm", r.root_drift_mm},
        {"settle_mm", r.settle_mm},
        {"shape_error_deg", r.shape_error_deg},
        {"arc_deviation_deg", r.arc_deviation_deg},
        {"swing_rms_mm", r.swing_rms_mm},
        {"swing_max_mm", r.swing_max_mm},
        {"swing_mesh_rms_mm", r.swing_mesh_rms_mm},
        {"stretch_p99_excess_pct", r.stretch_p99_excess_pct},
        {"flip_deg", r.flip_deg}};
    for (const auto& [name, value] : figures)
      if (!std::isfinite(value))
        return std::string(SolverModeName(r.solver)) + " at " + std::to_string(r.fps) +
               " fps: " + name;
  }
  return "";
}

std::string MeasureReportJson(const MeasureReport& rep, bool include_series) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["avatar"] = rep.avatar;
  j["motion"] = rep.motion;
  j["chains"] = rep.chains;
  j["chain_names"] = rep.chain_names;
  j["hair_vertices"] = rep.hair_vertices;
  j["measured_vertices"] = rep.measured_vertices;
  j["hair_edges"] = rep.hair_edges;
  j["hair_edges_welded"] = rep.hair_edges_welded;
  j["front_strand_vertices"] = rep.front_strand_vertices;
  j["fps_identical"] = rep.fps_identical;
  j["skinned_hair"] = rep.skinned_hair;
  j["reference_pose"] = "skinned rest pose";
  j["bind_pose_edges_differ"] = rep.bind_pose_edges_differ;
  j["penetration_rest_pairs"] = rep.penetration_rest_pairs;
  // float settings as the decimal they were given as (0.7, not 0.699999988079071)
  auto dec = [](float v) { return std::round(static_cast<double>(v) * 1e6) / 1e6; };
  j["settings"] = {{"tuned", rep.settings.tuned},
                   {"arc_liveliness", dec(rep.settings.arc_liveliness)},
                   {"arc_stiffness", dec(rep.settings.arc_stiffness)},
                   {"arc_follow", dec(rep.settings.arc_follow)},
                   {"arc_max_lag_deg", dec(rep.settings.arc_max_lag_deg)},
                   {"stiffness_scale", dec(rep.settings.stiffness_scale)}};
  // Stretch of hair that no skinned vertex follows is not 0 %: it is not measurable.
  auto stretch = [&](double v) {
    return rep.skinned_hair && std::isfinite(v) ? Json(v) : Json(nullptr);
  };
  Json results = Json::array();
  for (const RunResult& r : rep.results) {
    Json o;
    o["solver"] = SolverModeName(r.solver);
    o["fps"] = r.fps;
    o["stretch_p99_pct"] = stretch(r.stretch_p99_pct);
    o["stretch_worst_pct"] = stretch(r.stretch_worst_pct);
    o["root_drift_mm"] = r.root_drift_mm;
    o["settle_mm"] = r.settle_mm;
    o["shape_error_deg"] = r.shape_error_deg;
    o["arc_deviation_deg"] = r.arc_deviation_deg;
    o["swing_rms_mm"] = r.swing_rms_mm;
    o["swing_max_mm"] = r.swing_max_mm;
    o["swing_rms_per_chain_mm"] = r.swing_rms_per_chain_mm;
    o["swing_mesh_rms_mm"] = r.swing_mesh_rms_mm;
    o["stretch_p99_welded_pct"] = stretch(r.stretch_p99_welded_pct);
    o["stretch_worst_welded_pct"] = stretch(r.stretch_worst_welded_pct);
    Json per_chain = Json::array();
    for (double v : r.stretch_p99_per_chain_pct) per_chain.push_back(stretch(v));
    o["stretch_p99_per_chain_pct"] = per_chain;
    o["stretch_p99_excess_pct"] = stretch(r.stretch_p99_excess_pct);
    o["stretch_worst_excess_pct"] = stretch(r.stretch_worst_excess_pct);
    Json per_chain_ex = Json::array();
    for (double v : r.stretch_p99_excess_per_chain_pct) per_chain_ex.push_back(stretch(v));
    o["stretch_p99_excess_per_chain_pct"] = per_chain_ex;
    o["flip_deg"] = r.flip_deg;
    o["settle_before_s"] = r.settle_before_s;
    o["flip_per_chain_deg"] = r.flip_per_chain_deg;
    if (r.matched)
      o["matched"] = {{"stiffness_scale", r.matched->stiffness_scale},
                      {"target_swing_rms_mm", r.matched->target_swing_rms_mm},
                      {"swing_rms_mm", r.matched->swing_rms_mm},
                      {"stretch_p99_pct", stretch(r.matched->stretch_p99_pct)},
                      {"stretch_p99_excess_pct", stretch(r.matched->stretch_p99_excess_pct)},
                      {"shape_error_deg", r.matched->shape_error_deg},
                      {"iterations", r.matched->iterations},
                      {"reached", r.matched->reached}};
    o["occlusion_hidden"] = r.occlusion_hidden ? Json(*r.occlusion_hidden) : Json(nullptr);
    o["occlusion_max_depth_mm"] =
        r.occlusion_max_depth_mm ? Json(*r.occlusion_max_depth_mm) : Json(nullptr);
    // The same measurement after collider fitting, when it was run.
    if (r.after_fit_stretch_p99_pct)
      o["occlusion_after_fit"] = {
          {"hidden",
           r.after_fit_occlusion_hidden ? Json(*r.after_fit_occlusion_hidden) : Json(nullptr)},
          {"max_depth_mm", r.after_fit_occlusion_max_depth_mm
                               ? Json(*r.after_fit_occlusion_max_depth_mm)
                               : Json(nullptr)},
          {"stretch_p99_pct", stretch(*r.after_fit_stretch_p99_pct)}};
    else
      o["occlusion_after_fit"] = nullptr;
    o["penetration_samples"] = r.penetration_samples;
    o["update_p50_ms"] = r.update_p50_ms;
    o["update_p95_ms"] = r.update_p95_ms;
    o["mesh_from_fps"] = r.mesh_from_fps ? Json(r.mesh_from_fps) : Json(nullptr);
    o["steps_run"] = r.steps.steps_run;
    o["steps_dropped"] = r.steps.steps_dropped;
    o["teleports"] = r.steps.teleports;
    o["contacts"] = r.steps.contacts;
    o["shape_error_per_chain_deg"] = r.shape_error_per_chain_deg;
    if (include_series) {
      o["sample_times"] = r.sample_times;
      o["stretch_p99_series_pct"] = r.stretch_p99_series_pct;
      o["swing_series_mm"] = r.swing_series_mm;
      // The tip path of the first chain only (the report plots it); metres.
      Json tips = Json::array();
      if (!r.tip_paths.empty()) {
        Json p = Json::array();
        for (const auto& v : r.tip_paths[0]) p.push_back({v.x, v.y, v.z});
        tips.push_back(p);
      }
      o["tip_paths"] = tips;
      o["frame_ms"] = r.frame_ms;
    }
    results.push_back(o);
  }
  j["results"] = results;
  return j.dump(2);
}

}  // namespace hairswing
