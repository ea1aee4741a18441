// The measurement run (docs/measure.md): head-turn per solver x fps, the mesh sampled at 30 Hz.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "hairswing/anim.h"
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

// Hair edges on welded vertices: vertices at the same rest position are one vertex.
struct WeldedEdges {
  std::vector<std::pair<uint32_t, uint32_t>> rep;  // welded vertex -> (hair primitive, vertex)
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<float> rest_len;
  std::vector<int> chain;                           // per edge, -1 = no spring weight
};

glm::mat3 RotationOnly(const glm::mat4& m) {
  return glm::mat3(glm::normalize(glm::vec3(m[0])), glm::normalize(glm::vec3(m[1])), glm::normalize(glm::vec3(m[2])));
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

void ShapeDeviation(const Rig& rig, const SpringWorld& w, int chain, ShapeAcc* acc) {
  const RigChain& ch = rig.chains()[chain];
  const auto world = w.world();
  const glm::mat3 a_now = ch.attach >= 0 ? RotationOnly(world[ch.attach]) : glm::mat3(1.0f);
  const glm::mat3 a_rest = ch.attach >= 0 ? RotationOnly(rig.rest_world()[ch.attach]) : glm::mat3(1.0f);
  const glm::mat3 inv_now = glm::transpose(a_now), inv_rest = glm::transpose(a_rest);
  glm::mat3 first_swing(1.0f);
  bool have_first = false;
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const glm::vec3 rest = inv_rest * (glm::vec3(rig.rest_world()[rig.joint_node()[j + 1]][3]) -
                                       glm::vec3(rig.rest_world()[rig.joint_node()[j]][3]));
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

}  // namespace

Result<MeasureReport> Measure(const Avatar& av, const MeasureOptions& opt) {
  auto rig_r = BuildRig(av);
  if (!rig_r.ok()) return rig_r.status();
  const Rig& rig = rig_r.value();
  const int head = HumanoidRigNode(av, rig, "head");
  if (head < 0) return Status(StatusCode::kUnsupported, "measure: the avatar has no humanoid head bone");
  if (rig.chains().empty()) return Status(StatusCode::kUnsupported, "measure: the avatar has no spring chains");
  for (int f : opt.fps)
    if (f <= 0 || 120 % f != 0 || f % opt.sample_hz != 0)
      return Status(StatusCode::kInvalidInput, "measure: fps " + std::to_string(f) + " must divide 120 and be a multiple of " +
                                                   std::to_string(opt.sample_hz));
  const bool has_arc = std::find(opt.solvers.begin(), opt.solvers.end(), SolverMode::kArc) != opt.solvers.end();
  if (opt.match_swing && !has_arc)
    return Status(StatusCode::kInvalidInput, "measure: the swing-matched comparison needs the arc solver in the run");
  const int hips = HumanoidRigNode(av, rig, "hips");

  // Hair = skinned primitives with weight on a spring joint.
  std::vector<int> node_chain(rig.node_count(), -1);
  for (size_t c = 0; c < rig.chains().size(); ++c)
    for (int j = rig.chains()[c].joint_begin; j < rig.chains()[c].joint_end; ++j) node_chain[rig.joint_node()[j]] = static_cast<int>(c);
  MeasureReport report;
  report.avatar = av.source_path;
  report.motion = opt.motion_name;
  report.chains = static_cast<int>(rig.chains().size());
  for (const RigChain& ch : rig.chains()) report.chain_names.push_back(av.vrm.springs[ch.source_spring].name);
  std::vector<HairPrim> hair;
  size_t n_edges = 0, n_verts = 0;
  // The chain holding a vertex's largest spring weight, -1 if none.
  auto vertex_chain = [&](const MeshInstance& inst, const Primitive& p, size_t v) {
    int best = -1;
    float best_w = 0;
    for (int k = 0; k < 4; ++k) {
      if (!(p.weights[v][k] > best_w) || p.joints[v][k] >= rig.skins()[inst.skin].joints.size()) continue;
      const int c = node_chain[rig.skins()[inst.skin].joints[p.joints[v][k]]];
      if (c < 0) continue;
      best = c;
      best_w = p.weights[v][k];
    }
    return best;
  };
  for (const MeshInstance& inst : rig.meshes()) {
    if (inst.skin < 0) continue;
    for (const Primitive& p : av.meshes[inst.mesh].primitives) {
      bool is_hair = false;
      for (size_t v = 0; v < p.joints.size() && !is_hair; ++v) is_hair = vertex_chain(inst, p, v) >= 0;
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
  for (const auto& s : rig.skins()) max_joints = std::max(max_joints, s.joints.size());
  std::vector<glm::mat4> palette(max_joints);
  std::vector<std::vector<glm::vec3>> posed(hair.size());
  for (size_t h = 0; h < hair.size(); ++h) {
    posed[h].resize(hair[h].prim->positions.size());
    Status st = PosePrimitive(rig, *hair[h].inst, *hair[h].prim, rig.rest_world(), palette, posed[h]);
    if (!st.ok()) return st;
    for (const auto& [a, b] : hair[h].edges) hair[h].rest_len.push_back(glm::length(posed[h][a] - posed[h][b]));
  }

  // Welding: one vertex per rest position (a 0.01 mm grid), one edge per welded vertex pair.
  WeldedEdges welded;
  {
    std::map<std::tuple<long long, long long, long long>, uint32_t> grid;
    std::vector<std::vector<uint32_t>> weld(hair.size());
    std::vector<int> rep_chain;
    constexpr double kGrid = 1e-5;
    for (size_t h = 0; h < hair.size(); ++h)
      for (size_t v = 0; v < posed[h].size(); ++v) {
        const glm::vec3& p = posed[h][v];
        auto key = std::make_tuple(std::llround(p.x / kGrid), std::llround(p.y / kGrid), std::llround(p.z / kGrid));
        auto [it, fresh] = grid.emplace(key, static_cast<uint32_t>(welded.rep.size()));
        if (fresh) {
          welded.rep.emplace_back(static_cast<uint32_t>(h), static_cast<uint32_t>(v));
          rep_chain.push_back(vertex_chain(*hair[h].inst, *hair[h].prim, v));
        } else if (rep_chain[it->second] < 0) {
          rep_chain[it->second] = vertex_chain(*hair[h].inst, *hair[h].prim, v);
        }
        weld[h].push_back(it->second);
      }
    std::vector<std::pair<uint32_t, uint32_t>> all;
    for (size_t h = 0; h < hair.size(); ++h)
      for (const auto& [a, b] : hair[h].edges) {
        uint32_t wa = weld[h][a], wb = weld[h][b];
        if (wa == wb) continue;
        all.emplace_back(std::min(wa, wb), std::max(wa, wb));
      }
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    for (const auto& [a, b] : all) {
      const auto [ha, va] = welded.rep[a];
      const auto [hb, vb] = welded.rep[b];
      const float len = glm::length(posed[ha][va] - posed[hb][vb]);
      if (!(len > 0)) continue;
      welded.edges.emplace_back(a, b);
      welded.rest_len.push_back(len);
      welded.chain.push_back(rep_chain[a] >= 0 ? rep_chain[a] : rep_chain[b]);
    }
  }
  report.hair_edges_welded = static_cast<int>(welded.edges.size());
  report.skinned_hair = !welded.edges.empty();

  // The shirt and the front-strand vertices: hair that at rest is in front of the shirt
  // (a ray into the body hits it, nothing of the shirt between the vertex and the viewer).
  const MeshInstance* shirt_inst = nullptr;
  for (const MeshInstance& inst : rig.meshes())
    if (inst.mesh == opt.shirt_mesh) shirt_inst = &inst;
  OcclusionCaster caster;
  std::vector<glm::vec3> shirt_pos;
  std::vector<uint32_t> shirt_idx;
  std::vector<uint8_t> front(n_verts, 0);
  auto pose_shirt = [&](std::span<const glm::mat4> w) -> Status {
    shirt_pos.clear();
    shirt_idx.clear();
    for (const Primitive& p : av.meshes[shirt_inst->mesh].primitives) {
      const uint32_t base = static_cast<uint32_t>(shirt_pos.size());
      std::vector<glm::vec3> tmp(p.positions.size());
      Status st = PosePrimitive(rig, *shirt_inst, p, w, palette, tmp);
      if (!st.ok()) return st;
      shirt_pos.insert(shirt_pos.end(), tmp.begin(), tmp.end());
      for (uint32_t i : p.indices) shirt_idx.push_back(base + i);
    }
    caster.SetMesh(shirt_pos, shirt_idx);
    return Status::Ok();
  };
  const glm::vec3 to_viewer(0, 0, 1);  // front view: the avatar faces +Z
  if (shirt_inst) {
    if (Status st = pose_shirt(rig.rest_world()); !st.ok()) return st;
    for (size_t h = 0; h < hair.size(); ++h)
      for (size_t v = 0; v < posed[h].size(); ++v)
        if (caster.DepthBehind(posed[h][v], -to_viewer) >= 0 && caster.DepthBehind(posed[h][v], to_viewer) < 0) {
          front[hair[h].vertex_offset + v] = 1;
          ++report.front_strand_vertices;
        }
  }

  const int runs = static_cast<int>(opt.solvers.size() * opt.fps.size());
  int run_index = 0;
  std::vector<double> max_ratio(n_edges), max_welded(welded.edges.size());
  std::vector<Transform> body_pose(rig.node_count());
  std::vector<double> sample_ratios;
  sample_ratios.reserve(n_edges);

  // One run of `mode` at `fps` with stiffness x `scale`. `full` = skin the mesh (stretch,
  // occlusion); otherwise only the solver quantities (swing, shape) are measured.
  auto run_one = [&](SolverMode mode, int fps, float scale, bool full, RunResult* out) -> Status {
    RunResult& r = *out;
    r.solver = mode;
    r.fps = fps;
    SpringConfig cfg;
    cfg.mode = mode;
    cfg.tuned = opt.tuned;  // identical k, c, g for arc and parent
    cfg.arc_liveliness = opt.arc_liveliness;
    cfg.stiffness_scale = scale;
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
    std::fill(max_welded.begin(), max_welded.end(), 1.0);
    r.tip_paths.assign(rig.chains().size(), {});
    std::vector<std::vector<glm::vec3>> tip_local(rig.chains().size());
    std::vector<ShapeAcc> shape(rig.chains().size());
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
      r.sample_times.push_back(t);
      for (size_t c = 0; c < rig.chains().size(); ++c) {
        const RigChain& ch = rig.chains()[c];
        const glm::vec3 tip = sw.tails()[ch.joint_end - 2];
        r.tip_paths[c].push_back(tip);
        const glm::mat4& a = ch.attach >= 0 ? sw.world()[ch.attach] : glm::mat4(1.0f);
        tip_local[c].push_back(glm::transpose(RotationOnly(a)) * (tip - glm::vec3(a[3])));
        if (t <= HeadTurnMotion::kMoveEnd + 1e-9) ShapeDeviation(rig, sw, static_cast<int>(c), &shape[c]);
      }
      r.hashes.push_back(sw.StateHash());
      if (full) {
        ComputeWorld(rig, driver.pose(), world);
        // Stretch.
        sample_ratios.clear();
        for (size_t h = 0; h < hair.size(); ++h) {
          Status st = PosePrimitive(rig, *hair[h].inst, *hair[h].prim, world, palette, posed[h]);
          if (!st.ok()) return st;
          for (size_t e = 0; e < hair[h].edges.size(); ++e) {
            const float rest = hair[h].rest_len[e];
            if (rest <= 0) continue;
            const double ratio = glm::length(posed[h][hair[h].edges[e].first] - posed[h][hair[h].edges[e].second]) / rest;
            max_ratio[hair[h].edge_offset + e] = std::max(max_ratio[hair[h].edge_offset + e], ratio);
            sample_ratios.push_back(ratio);
          }
        }
        for (size_t e = 0; e < welded.edges.size(); ++e) {
          const auto [ha, va] = welded.rep[welded.edges[e].first];
          const auto [hb, vb] = welded.rep[welded.edges[e].second];
          max_welded[e] = std::max(max_welded[e], glm::length(posed[ha][va] - posed[hb][vb]) / static_cast<double>(welded.rest_len[e]));
        }
        r.stretch_p99_series_pct.push_back(100.0 * (QuantileInPlace(sample_ratios, 0.99) - 1.0));
        // Roots against the body pose computed independently of the solver.
        body_motion->Sample(t, body_pose);
        ComputeWorld(rig, body_pose, body_world);
        for (size_t c = 0; c < rig.chains().size(); ++c) {
          const RigChain& ch = rig.chains()[c];
          const int root = rig.joint_node()[ch.joint_begin];
          r.root_drift_mm = std::max(r.root_drift_mm, 1000.0 * glm::length(glm::vec3(sw.world()[root][3]) - glm::vec3(body_world[root][3])));
          // Link-in-capsule penetration beyond the threshold (proxy check, hit radius ignored).
          for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
            const glm::vec3 a(sw.world()[rig.joint_node()[j]][3]), b = sw.tails()[j];
            for (int k = ch.collider_begin; k < ch.collider_end; ++k) {
              const int ci = rig.chain_colliders()[k];
              const ColliderShape shape_kind = rig.collider_shape()[ci];
              if (shape_kind != ColliderShape::kSphere && shape_kind != ColliderShape::kCapsule) continue;
              const glm::mat4& m = world[rig.collider_node()[ci]];
              const glm::vec3 h0(m * glm::vec4(rig.collider_offset()[ci], 1));
              const glm::vec3 h1 = shape_kind == ColliderShape::kCapsule ? glm::vec3(m * glm::vec4(rig.collider_tail()[ci], 1)) : h0;
              const float radius = rig.collider_radius()[ci] * glm::length(glm::vec3(m[0]));
              if (LinkPenetration(a, b, h0, h1, radius) > opt.penetration_threshold) ++r.penetration_samples;
            }
          }
        }
        // Clothing occlusion from the front.
        if (shirt_inst) {
          if (Status st = pose_shirt(world); !st.ok()) return st;
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
        if (opt.progress) opt.progress((run_index + static_cast<double>(f) / frames) / runs);
      }
    }
    // Swing: tip lag in the attachment frame against where the tip rests at the end of the run.
    const size_t samples = r.sample_times.size();
    r.swing_series_mm.assign(samples, 0.0);
    double sq_total = 0;
    for (size_t c = 0; c < rig.chains().size(); ++c) {
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
    for (double& v : r.swing_series_mm) v = std::sqrt(v / rig.chains().size());
    r.swing_rms_mm = std::sqrt(sq_total / (samples * rig.chains().size()));
    // Shape.
    double curl_total = 0, arc_total = 0;
    int curl_chains = 0;
    for (size_t c = 0; c < rig.chains().size(); ++c) {
      r.shape_error_per_chain_deg.push_back(shape[c].curl_n ? shape[c].curl_sum / shape[c].curl_n : 0.0);
      if (shape[c].curl_n) {
        curl_total += r.shape_error_per_chain_deg.back();
        ++curl_chains;
      }
      arc_total += shape[c].arc_n ? shape[c].arc_sum / shape[c].arc_n : 0.0;
    }
    r.shape_error_deg = curl_chains ? curl_total / curl_chains : 0.0;
    r.arc_deviation_deg = arc_total / rig.chains().size();
    if (!full) return Status::Ok();
    // Settle: tip motion between consecutive samples within the last 2 s.
    size_t first_late = 0;
    while (first_late < r.sample_times.size() && r.sample_times[first_late] < opt.duration - 2.0 - 1e-9) ++first_late;
    for (const auto& path : r.tip_paths)
      if (first_late < path.size())
        r.settle_mm = std::max(r.settle_mm, 1000.0 * MaxStepMotion(std::span(path).subspan(first_late)));
    const StretchSummary s = SummariseStretch(max_ratio);
    r.stretch_p99_pct = s.p99_pct;
    r.stretch_worst_pct = s.worst_pct;
    const StretchSummary sw_all = SummariseStretch(max_welded);
    r.stretch_p99_welded_pct = sw_all.p99_pct;
    r.stretch_worst_welded_pct = sw_all.worst_pct;
    std::vector<std::vector<double>> per_chain(rig.chains().size());
    for (size_t e = 0; e < welded.edges.size(); ++e)
      if (welded.chain[e] >= 0) per_chain[welded.chain[e]].push_back(max_welded[e]);
    for (auto& v : per_chain)
      r.stretch_p99_per_chain_pct.push_back(v.empty() ? std::nan("") : SummariseStretch(v).p99_pct);
    if (shirt_inst) {
      r.occlusion_hidden = hidden_max;
      r.occlusion_max_depth_mm = depth_max;
    }
    r.update_p50_ms = Quantile(r.frame_ms, 0.5);
    r.update_p95_ms = Quantile(r.frame_ms, 0.95);
    return Status::Ok();
  };

  for (SolverMode mode : opt.solvers) {
    for (int fps : opt.fps) {
      RunResult r;
      if (Status st = run_one(mode, fps, 1.0f, true, &r); !st.ok()) return st;
      report.results.push_back(std::move(r));
      ++run_index;
    }
  }
  // Frame-rate identity: per solver, the same hash sequence at the common 30 Hz samples.
  for (const RunResult& a : report.results)
    for (const RunResult& b : report.results)
      if (a.solver == b.solver && a.hashes != b.hashes) report.fps_identical = false;

  // Equal swing: scale the other solvers' stiffness until their tip lag rms equals arc's. Swing
  // falls as stiffness rises, so bisect the scale in log space between 1/64 and 64.
  if (opt.match_swing) {
    for (RunResult& r : report.results) {
      if (r.solver == SolverMode::kArc) continue;
      const RunResult* arc = nullptr;
      for (const RunResult& a : report.results)
        if (a.solver == SolverMode::kArc && a.fps == r.fps) arc = &a;
      if (!arc) continue;
      RunResult::Matched m;
      m.target_swing_rms_mm = arc->swing_rms_mm;
      // The same solver at another frame rate already matched: fps identity gives the same answer.
      for (const RunResult& done : report.results)
        if (&done != &r && done.solver == r.solver && done.matched && report.fps_identical) m = *done.matched;
      if (m.iterations == 0) {
        double lo = std::log(1.0 / 64.0), hi = std::log(64.0), best_err = 1e30, best = 0.0;
        RunResult probe;
        for (int it = 0; it < 40; ++it) {
          const double mid = 0.5 * (lo + hi);
          probe = RunResult{};
          if (Status st = run_one(r.solver, r.fps, static_cast<float>(std::exp(mid)), false, &probe); !st.ok()) return st;
          ++m.iterations;
          const double err = probe.swing_rms_mm / std::max(m.target_swing_rms_mm, 1e-12) - 1.0;
          if (std::fabs(err) < best_err) {
            best_err = std::fabs(err);
            best = mid;
          }
          if (std::fabs(err) <= opt.match_tolerance) break;
          if (err > 0) lo = mid;  // swings too much: stiffer
          else hi = mid;
        }
        RunResult full_run;
        m.stiffness_scale = std::exp(best);
        if (Status st = run_one(r.solver, r.fps, static_cast<float>(m.stiffness_scale), true, &full_run); !st.ok()) return st;
        m.swing_rms_mm = full_run.swing_rms_mm;
        m.stretch_p99_pct = full_run.stretch_p99_welded_pct;
        m.shape_error_deg = full_run.shape_error_deg;
        m.reached = std::fabs(m.swing_rms_mm / std::max(m.target_swing_rms_mm, 1e-12) - 1.0) <= opt.match_tolerance;
      }
      r.matched = m;
    }
  }
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
  j["hair_edges_welded"] = rep.hair_edges_welded;
  j["front_strand_vertices"] = rep.front_strand_vertices;
  j["fps_identical"] = rep.fps_identical;
  j["skinned_hair"] = rep.skinned_hair;
  // Stretch of hair that no skinned vertex follows is not 0 %: it is not measurable.
  auto stretch = [&](double v) { return rep.skinned_hair && std::isfinite(v) ? Json(v) : Json(nullptr); };
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
    o["stretch_p99_welded_pct"] = stretch(r.stretch_p99_welded_pct);
    o["stretch_worst_welded_pct"] = stretch(r.stretch_worst_welded_pct);
    Json per_chain = Json::array();
    for (double v : r.stretch_p99_per_chain_pct) per_chain.push_back(stretch(v));
    o["stretch_p99_per_chain_pct"] = per_chain;
    if (r.matched)
      o["matched"] = {{"stiffness_scale", r.matched->stiffness_scale},
                      {"target_swing_rms_mm", r.matched->target_swing_rms_mm},
                      {"swing_rms_mm", r.matched->swing_rms_mm},
                      {"stretch_p99_pct", stretch(r.matched->stretch_p99_pct)},
                      {"shape_error_deg", r.matched->shape_error_deg},
                      {"iterations", r.matched->iterations},
                      {"reached", r.matched->reached}};
    o["occlusion_hidden"] = r.occlusion_hidden ? Json(*r.occlusion_hidden) : Json(nullptr);
    o["occlusion_max_depth_mm"] = r.occlusion_max_depth_mm ? Json(*r.occlusion_max_depth_mm) : Json(nullptr);
    // The same measurement after collider fitting, when it was run.
    if (r.after_fit_stretch_p99_pct)
      o["occlusion_after_fit"] = {{"hidden", r.after_fit_occlusion_hidden ? Json(*r.after_fit_occlusion_hidden) : Json(nullptr)},
                                  {"max_depth_mm", r.after_fit_occlusion_max_depth_mm ? Json(*r.after_fit_occlusion_max_depth_mm) : Json(nullptr)},
                                  {"stretch_p99_pct", stretch(*r.after_fit_stretch_p99_pct)}};
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
