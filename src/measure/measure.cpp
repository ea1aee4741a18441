// The measurement run (docs/measure.md): head-turn per solver x fps, the mesh sampled at 30 Hz.
#include <algorithm>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "hairswing/collide.h"
#include "hairswing/measure.h"
#include "hairswing/motion.h"

namespace hairswing {
namespace {

struct HairPrim {
  const MeshInstance* inst;
  const Primitive* prim;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<float> rest_len;
  size_t edge_offset = 0;     // into the flat per-edge arrays
  size_t vertex_offset = 0;   // into the flat front-strand flags
};

// Rotation-free deviation of each segment from its rest arc in the attachment frame, degrees.
void ShapeDeviation(const Rig& rig, const SpringWorld& w, int chain, double* sum, int* count) {
  const RigChain& ch = rig.chains[chain];
  const auto world = w.world();
  const glm::mat3 a_now = ch.attach >= 0 ? glm::mat3(world[ch.attach]) : glm::mat3(1.0f);
  const glm::mat3 a_rest = ch.attach >= 0 ? glm::mat3(rig.rest_world[ch.attach]) : glm::mat3(1.0f);
  const glm::mat3 inv_now = glm::inverse(a_now), inv_rest = glm::inverse(a_rest);
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const glm::vec3 rest = inv_rest * (glm::vec3(rig.rest_world[rig.joint_node[j + 1]][3]) -
                                       glm::vec3(rig.rest_world[rig.joint_node[j]][3]));
    const glm::vec3 now = inv_now * (w.tails()[j] - glm::vec3(world[rig.joint_node[j]][3]));
    if (glm::length(rest) < 1e-9f || glm::length(now) < 1e-9f) continue;
    *sum += AngleDeg(rest, now);
    ++*count;
  }
}

}  // namespace

Result<MeasureReport> Measure(const Avatar& av, const MeasureOptions& opt) {
  auto rig_r = BuildRig(av);
  if (!rig_r.ok()) return rig_r.status();
  const Rig& rig = rig_r.value();
  const int head = HumanoidRigNode(av, rig, "head");
  if (head < 0) return Status(StatusCode::kUnsupported, "measure: the avatar has no humanoid head bone");
  if (rig.chains.empty()) return Status(StatusCode::kUnsupported, "measure: the avatar has no spring chains");
  for (int f : opt.fps)
    if (f <= 0 || 120 % f != 0 || f % opt.sample_hz != 0)
      return Status(StatusCode::kInvalidInput, "measure: fps " + std::to_string(f) + " must divide 120 and be a multiple of " +
                                                   std::to_string(opt.sample_hz));
  const int hips = HumanoidRigNode(av, rig, "hips");

  // Hair = skinned primitives with weight on a spring joint.
  std::vector<uint8_t> spring_node(rig.node_count(), 0);
  for (int n : rig.joint_node) spring_node[n] = 1;
  MeasureReport report;
  report.avatar = av.source_path;
  report.motion = opt.motion_name;
  report.chains = static_cast<int>(rig.chains.size());
  for (const RigChain& ch : rig.chains) report.chain_names.push_back(av.vrm.springs[ch.source_spring].name);
  std::vector<HairPrim> hair;
  size_t n_edges = 0, n_verts = 0;
  for (const MeshInstance& inst : rig.meshes) {
    if (inst.skin < 0) continue;
    for (const Primitive& p : av.meshes[inst.mesh].primitives) {
      bool is_hair = false;
      for (size_t v = 0; v < p.joints.size() && !is_hair; ++v)
        for (int k = 0; k < 4; ++k)
          if (p.weights[v][k] > 0 && p.joints[v][k] < rig.skins[inst.skin].joints.size() &&
              spring_node[rig.skins[inst.skin].joints[p.joints[v][k]]])
            is_hair = true;
      if (!is_hair || p.mode != 4) continue;
      HairPrim h{&inst, &p, TriangleEdges(p.indices), {}, n_edges, n_verts};
      n_edges += h.edges.size();
      n_verts += p.positions.size();
      hair.push_back(std::move(h));
    }
  }
  report.hair_vertices = static_cast<int>(n_verts);
  report.hair_edges = static_cast<int>(n_edges);

  std::vector<glm::mat4> world(rig.node_count()), body_world(rig.node_count());
  size_t max_joints = 1;
  for (const auto& s : rig.skins) max_joints = std::max(max_joints, s.joints.size());
  std::vector<glm::mat4> palette(max_joints);
  std::vector<std::vector<glm::vec3>> posed(hair.size());
  for (size_t h = 0; h < hair.size(); ++h) {
    posed[h].resize(hair[h].prim->positions.size());
    PosePrimitive(rig, *hair[h].inst, *hair[h].prim, rig.rest_world, palette, posed[h]);
    for (const auto& [a, b] : hair[h].edges) hair[h].rest_len.push_back(glm::length(posed[h][a] - posed[h][b]));
  }

  // The shirt and the front-strand vertices: hair that at rest is in front of the shirt
  // (a ray into the body hits it, nothing of the shirt between the vertex and the viewer).
  const MeshInstance* shirt_inst = nullptr;
  for (const MeshInstance& inst : rig.meshes)
    if (inst.mesh == opt.shirt_mesh) shirt_inst = &inst;
  OcclusionCaster caster;
  std::vector<glm::vec3> shirt_pos;
  std::vector<uint32_t> shirt_idx;
  std::vector<uint8_t> front(n_verts, 0);
  auto pose_shirt = [&](std::span<const glm::mat4> w) {
    shirt_pos.clear();
    shirt_idx.clear();
    for (const Primitive& p : av.meshes[shirt_inst->mesh].primitives) {
      const uint32_t base = static_cast<uint32_t>(shirt_pos.size());
      std::vector<glm::vec3> tmp(p.positions.size());
      PosePrimitive(rig, *shirt_inst, p, w, palette, tmp);
      shirt_pos.insert(shirt_pos.end(), tmp.begin(), tmp.end());
      for (uint32_t i : p.indices) shirt_idx.push_back(base + i);
    }
    caster.SetMesh(shirt_pos, shirt_idx);
  };
  const glm::vec3 to_viewer(0, 0, 1);  // front view: the avatar faces +Z
  if (shirt_inst) {
    pose_shirt(rig.rest_world);
    for (size_t h = 0; h < hair.size(); ++h)
      for (size_t v = 0; v < posed[h].size(); ++v)
        if (caster.DepthBehind(posed[h][v], -to_viewer) >= 0 && caster.DepthBehind(posed[h][v], to_viewer) < 0) {
          front[hair[h].vertex_offset + v] = 1;
          ++report.front_strand_vertices;
        }
  }

  const int runs = static_cast<int>(opt.solvers.size() * opt.fps.size());
  int run_index = 0;
  std::vector<double> max_ratio(n_edges), ratio_now(n_edges);
  std::vector<Transform> body_pose(rig.node_count());
  std::vector<double> sample_ratios;
  sample_ratios.reserve(n_edges);
  for (SolverMode mode : opt.solvers) {
    for (int fps : opt.fps) {
      RunResult r;
      r.solver = mode;
      r.fps = fps;
      SpringConfig cfg;
      cfg.mode = mode;
      cfg.tuned = mode == SolverMode::kArc ? opt.tuned : false;
      cfg.segment_checks = opt.segment_checks;
      auto w = SpringWorld::Create(rig, cfg);
      if (!w.ok()) return w.status();
      SpringWorld& sw = w.value();
      std::unique_ptr<PoseSampler> motion, body_motion;
      if (opt.motion) {
        motion = opt.motion(rig);
        body_motion = opt.motion(rig);
      } else {
        motion = std::make_unique<HeadTurnMotion>(rig, head, hips);
        body_motion = std::make_unique<HeadTurnMotion>(rig, head, hips);
      }
      ClipDriver driver(sw, *motion);
      driver.Reset();
      std::fill(max_ratio.begin(), max_ratio.end(), 1.0);
      r.tip_paths.assign(rig.chains.size(), {});
      std::vector<double> shape_sum(rig.chains.size(), 0.0);
      std::vector<int> shape_n(rig.chains.size(), 0);
      int hidden_max = 0;
      double depth_max = 0.0;
      const int frames = static_cast<int>(std::lround(opt.duration * fps));
      const int stride = fps / opt.sample_hz;
      for (int f = 0; f <= frames; ++f) {
        if (f > 0) {
          const auto t0 = std::chrono::steady_clock::now();
          r.steps.Merge(driver.Advance(1.0 / fps));
          r.frame_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        if (f % stride != 0) continue;
        const double t = static_cast<double>(f) / fps;
        ComputeWorld(rig, driver.pose(), world);
        // Stretch.
        sample_ratios.clear();
        for (size_t h = 0; h < hair.size(); ++h) {
          PosePrimitive(rig, *hair[h].inst, *hair[h].prim, world, palette, posed[h]);
          for (size_t e = 0; e < hair[h].edges.size(); ++e) {
            const float rest = hair[h].rest_len[e];
            if (rest <= 0) continue;
            const double ratio = glm::length(posed[h][hair[h].edges[e].first] - posed[h][hair[h].edges[e].second]) / rest;
            max_ratio[hair[h].edge_offset + e] = std::max(max_ratio[hair[h].edge_offset + e], ratio);
            sample_ratios.push_back(ratio);
          }
        }
        r.sample_times.push_back(t);
        r.stretch_p99_series_pct.push_back(100.0 * (QuantileInPlace(sample_ratios, 0.99) - 1.0));
        // Roots against the body pose computed independently of the solver.
        body_motion->Sample(t, body_pose);
        ComputeWorld(rig, body_pose, body_world);
        for (size_t c = 0; c < rig.chains.size(); ++c) {
          const RigChain& ch = rig.chains[c];
          const int root = rig.joint_node[ch.joint_begin];
          r.root_drift_mm = std::max(r.root_drift_mm, 1000.0 * glm::length(glm::vec3(sw.world()[root][3]) - glm::vec3(body_world[root][3])));
          const glm::vec3 tip = sw.tails()[ch.joint_end - 2];
          r.tip_paths[c].push_back(tip);
          if (t <= HeadTurnMotion::kMoveEnd + 1e-9) ShapeDeviation(rig, sw, static_cast<int>(c), &shape_sum[c], &shape_n[c]);
          // Link-in-capsule penetration beyond the threshold (proxy check, hit radius ignored).
          for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
            const glm::vec3 a(sw.world()[rig.joint_node[j]][3]), b = sw.tails()[j];
            for (int k = ch.collider_begin; k < ch.collider_end; ++k) {
              const int ci = rig.chain_colliders[k];
              const ColliderShape shape = rig.collider_shape[ci];
              if (shape != ColliderShape::kSphere && shape != ColliderShape::kCapsule) continue;
              const glm::mat4& m = world[rig.collider_node[ci]];
              const glm::vec3 h0(m * glm::vec4(rig.collider_offset[ci], 1));
              const glm::vec3 h1 = shape == ColliderShape::kCapsule ? glm::vec3(m * glm::vec4(rig.collider_tail[ci], 1)) : h0;
              const float radius = rig.collider_radius[ci] * glm::length(glm::vec3(m[0]));
              if (LinkPenetration(a, b, h0, h1, radius) > opt.penetration_threshold) ++r.penetration_samples;
            }
          }
        }
        // Clothing occlusion from the front.
        if (shirt_inst) {
          pose_shirt(world);
          int hidden = 0;
          for (size_t h = 0; h < hair.size(); ++h)
            for (size_t v = 0; v < posed[h].size(); ++v) {
              if (!front[hair[h].vertex_offset + v]) continue;
              const float d = caster.DepthBehind(posed[h][v], to_viewer);
              if (d > opt.occlusion_threshold) {
                ++hidden;
                depth_max = std::max(depth_max, 1000.0 * d);
              }
            }
          hidden_max = std::max(hidden_max, hidden);
        }
        r.hashes.push_back(sw.StateHash());
        if (opt.progress) opt.progress((run_index + static_cast<double>(f) / frames) / runs);
      }
      // Settle: tip motion between consecutive samples within the last 2 s.
      size_t first_late = 0;
      while (first_late < r.sample_times.size() && r.sample_times[first_late] < opt.duration - 2.0 - 1e-9) ++first_late;
      for (const auto& path : r.tip_paths)
        if (first_late < path.size())
          r.settle_mm = std::max(r.settle_mm, 1000.0 * MaxStepMotion(std::span(path).subspan(first_late)));
      const StretchSummary s = SummariseStretch(max_ratio);
      r.stretch_p99_pct = s.p99_pct;
      r.stretch_worst_pct = s.worst_pct;
      double shape_total = 0;
      for (size_t c = 0; c < rig.chains.size(); ++c) {
        r.shape_error_per_chain_deg.push_back(shape_n[c] ? shape_sum[c] / shape_n[c] : 0.0);
        shape_total += r.shape_error_per_chain_deg.back();
      }
      r.shape_error_deg = shape_total / rig.chains.size();
      if (shirt_inst) {
        r.occlusion_hidden = hidden_max;
        r.occlusion_max_depth_mm = depth_max;
      }
      r.update_p50_ms = Quantile(r.frame_ms, 0.5);
      r.update_p95_ms = Quantile(r.frame_ms, 0.95);
      report.results.push_back(std::move(r));
      ++run_index;
    }
  }
  // Frame-rate identity: per solver, the same hash sequence at the common 30 Hz samples.
  for (const RunResult& a : report.results)
    for (const RunResult& b : report.results)
      if (a.solver == b.solver && a.hashes != b.hashes) report.fps_identical = false;
  if (opt.progress) opt.progress(1.0);
  return report;
}

std::string MeasureReportJson(const MeasureReport& rep, bool include_series) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["avatar"] = rep.avatar;
  j["motion"] = rep.motion;
  j["chains"] = rep.chains;
  j["chain_names"] = rep.chain_names;
  j["hair_vertices"] = rep.hair_vertices;
  j["hair_edges"] = rep.hair_edges;
  j["front_strand_vertices"] = rep.front_strand_vertices;
  j["fps_identical"] = rep.fps_identical;
  Json results = Json::array();
  for (const RunResult& r : rep.results) {
    Json o;
    o["solver"] = SolverModeName(r.solver);
    o["fps"] = r.fps;
    o["stretch_p99_pct"] = r.stretch_p99_pct;
    o["stretch_worst_pct"] = r.stretch_worst_pct;
    o["root_drift_mm"] = r.root_drift_mm;
    o["settle_mm"] = r.settle_mm;
    o["shape_error_deg"] = r.shape_error_deg;
    o["occlusion_hidden"] = r.occlusion_hidden ? Json(*r.occlusion_hidden) : Json(nullptr);
    o["occlusion_max_depth_mm"] = r.occlusion_max_depth_mm ? Json(*r.occlusion_max_depth_mm) : Json(nullptr);
    // The same measurement after collider fitting, when it was run.
    if (r.after_fit_stretch_p99_pct)
      o["occlusion_after_fit"] = {{"hidden", r.after_fit_occlusion_hidden ? Json(*r.after_fit_occlusion_hidden) : Json(nullptr)},
                                  {"max_depth_mm", r.after_fit_occlusion_max_depth_mm ? Json(*r.after_fit_occlusion_max_depth_mm) : Json(nullptr)},
                                  {"stretch_p99_pct", *r.after_fit_stretch_p99_pct}};
    else
      o["occlusion_after_fit"] = nullptr;
    o["penetration_samples"] = r.penetration_samples;
    o["update_p50_ms"] = r.update_p50_ms;
    o["update_p95_ms"] = r.update_p95_ms;
    o["steps_run"] = r.steps.steps_run;
    o["steps_dropped"] = r.steps.steps_dropped;
    o["teleports"] = r.steps.teleports;
    o["contacts"] = r.steps.contacts;
    o["shape_error_per_chain_deg"] = r.shape_error_per_chain_deg;
    if (include_series) {
      o["sample_times"] = r.sample_times;
      o["stretch_p99_series_pct"] = r.stretch_p99_series_pct;
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
