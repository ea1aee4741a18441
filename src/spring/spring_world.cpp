// SpringWorld: construction, parameter mapping, reset and the per-step frame (pose check, world
// matrices, colliders). The per-chain integrators live in arc_solver.cpp and vrm_solver.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/det_math.h"
#include "hairswing/spring.h"
#include "spring/limits.h"
#include "spring/spring_internal.h"

namespace hairswing {

const char* SolverModeName(SolverMode m) {
  switch (m) {
    case SolverMode::kArc:
      return "arc";
    case SolverMode::kParent:
      return "parent";
    case SolverMode::kVrm:
      return "vrm";
  }
  return "?";
}

bool ParseSolverMode(std::string_view s, SolverMode* out) {
  if (s == "arc")
    *out = SolverMode::kArc;
  else if (s == "parent")
    *out = SolverMode::kParent;
  else if (s == "vrm")
    *out = SolverMode::kVrm;
  else
    return false;
  return true;
}

SegmentCoefficients MapVrmParameters(float stiffness, float drag_force, float gravity_power,
                                     const glm::vec3& gravity_dir, float rest_length, bool tuned) {
  // VRM content is authored for one Verlet update per 60 Hz frame: each frame the tail moves by
  // stiffness*dt along the rest axis, gravityPower*dt along gravityDir, and keeps (1-drag) of
  // its last displacement. A constant per-frame displacement D acts like an acceleration D/dt^2;
  // for a small angle the rest-axis push is stiffness*dt*(e/L) for a tail displaced by e. So
  //   k = stiffness / (L * dt_ref),   g = gravityPower / dt_ref * gravityDir.
  // Drag: in steady motion at speed V the Verlet update needs a push of drag*V per frame, so the
  // tail lags by e = drag/dt_ref * V / k: that lag is the author's liveliness. Our step keeps
  // e^(-c h) of the velocity after adding h f, so it lags by (e^(c h) - 1)/h * V / k; c is chosen
  // to make the two equal: c = ln(1 + h drag / dt_ref) / h (21.9 /s for drag 0.4). Matching the
  // free decay instead (c = -ln(1 - drag)/dt_ref, 30.6 /s) made the parent mode swing 20-30 %
  // more than the VRM reference on every file we measured; this way it swings 7-10 % less.
  constexpr float kRefDt = internal::kVrmRefDt;
  const float len = std::max(rest_length, 1e-4f);
  float k = std::max(stiffness, 0.0f) / (len * kRefDt);
  const float drag = std::clamp(drag_force, 0.0f, 0.999f);
  constexpr float kH = static_cast<float>(SpringWorld::kStep);
  const float c = det::LogF(1.0f + kH * drag / kRefDt) / kH;
  // The pull is integrated explicitly: keep h*sqrt(k) <= 1 at h = 1/120 s for stability.
  constexpr float kMaxK = 120.0f * 120.0f;
  k = std::min(k, kMaxK);
  SegmentCoefficients out{k, c, gravity_dir * (std::max(gravity_power, 0.0f) / kRefDt), 0.0f};
  if (tuned) out.c_rel = internal::TunedRelativeDamping(k, c);
  return out;
}

int internal::LaneWidthFor(int requested) {
#if HAIRSWING_LANES8
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return requested != 4 && avx2 ? 8 : 4;
#else
  (void)requested;
  return 4;
#endif
}

bool internal::MergeColliderLists(std::span<const int> list, size_t max_size,
                                  std::vector<int>* merged) {
  auto has_twice = [](std::span<const int> l) {
    std::vector<int> sorted(l.begin(), l.end());
    std::sort(sorted.begin(), sorted.end());
    return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  };
  if (has_twice(list) || has_twice(*merged))
    return std::equal(list.begin(), list.end(), merged->begin(), merged->end());
  std::vector<int> out = *merged;
  size_t next = 0;  // where the next new collider goes: after the last of `list` placed
  for (int c : list) {
    const auto at = std::find(out.begin(), out.end(), c);
    if (at == out.end()) {
      out.insert(out.begin() + static_cast<ptrdiff_t>(next), c);
      ++next;
    } else {
      const size_t i = static_cast<size_t>(at - out.begin());
      if (i < next) return false;  // before a collider that comes earlier in `list`
      next = i + 1;
    }
  }
  if (out.size() > max_size) return false;
  *merged = std::move(out);
  return true;
}

float internal::TunedRelativeDamping(float k, float c) {
  // Tuned: at least 60% of critical damping (2 sqrt(k)) in all, the part the author's drag does
  // not give added as damping relative to the rest target. Drag of the world velocity is what
  // makes hair lag a moving head (quasi-steady lag c V / k); relative damping only removes the
  // oscillation about the target, so raising it never adds lag (an earlier mapping raised c
  // itself, which on 1-3 cm segments doubled or tripled the lag).
  return std::max(0.0f, 1.2f * std::sqrt(std::max(k, 0.0f)) - c);
}

namespace {
// The first chain before `chain` for which `same` holds, else `chain` itself.
template <class Same>
int FirstChainLike(const Rig& rig, int chain, Same same) {
  for (int d = 0; d < chain; ++d)
    if (same(rig.chains()[d])) return d;
  return chain;
}
}  // namespace

bool ApplyArcSetting(std::string_view name, SpringConfig* config) {
  if (name == "article") {
    config->arc_liveliness = 0.0f;
    config->arc_stiffness = 1.6f;
    config->arc_follow = 0.0f;
  } else if (name == "lively") {
    config->arc_liveliness = 1.0f;
    config->arc_stiffness = 1.0f;
    config->arc_follow = 0.0f;
  } else if (name == "follow") {
    config->arc_liveliness = 1.0f;
    config->arc_stiffness = 1.0f;
    config->arc_follow = 0.7f;
  } else {
    return false;
  }
  return true;
}

const std::vector<std::string>& ArcSettingNames() {
  static const std::vector<std::string> names{"article", "lively", "follow"};
  return names;
}

Result<SpringWorld> SpringWorld::Create(const Rig& rig, const SpringConfig& config) {
  if (!config.segment_checks.empty() && config.segment_checks.size() != rig.chains().size())
    return Status(StatusCode::kInvalidInput,
                  "segment_checks has " + std::to_string(config.segment_checks.size()) +
                      " entries, the rig has " + std::to_string(rig.chains().size()) + " chains");
  if (!(config.stiffness_scale > 0.0f) || !std::isfinite(config.stiffness_scale))
    return Status(StatusCode::kInvalidInput, "stiffness_scale must be a positive number");
  if (!(config.arc_liveliness >= 0.0f && config.arc_liveliness <= 1.0f))
    return Status(StatusCode::kInvalidInput, "arc_liveliness must be in [0, 1]");
  if (!(config.arc_follow >= 0.0f && config.arc_follow <= 1.0f))
    return Status(StatusCode::kInvalidInput, "arc_follow must be in [0, 1]");
  if (!(config.arc_stiffness > 0.0f) || !std::isfinite(config.arc_stiffness))
    return Status(StatusCode::kInvalidInput, "arc_stiffness must be a positive number");
  if (!(config.arc_max_lag_deg > 0.0f && config.arc_max_lag_deg <= 180.0f))
    return Status(StatusCode::kInvalidInput, "arc_max_lag_deg must be in (0, 180]");
  if (config.max_steps_per_call < 1)
    return Status(StatusCode::kInvalidInput, "max_steps_per_call must be at least 1");
  if (config.lane_width != 0 && config.lane_width != 4 && config.lane_width != 8)
    return Status(StatusCode::kInvalidInput, "lane_width must be 0 (the widest), 4 or 8");
  SpringWorld w;
  w.rig_ = &rig;
  w.config_ = config;
  w.lane_width_ = internal::LaneWidthFor(config.lane_width);
  w.teleport_cos_ = det::CosF(std::min(config.teleport_angle, 3.14159265f));
  if (config.arc_max_lag_deg < 180.0f) {
    const double a = static_cast<double>(config.arc_max_lag_deg) * 3.14159265358979323846 / 180.0;
    w.lag_cos_ = static_cast<float>(det::Cos(a));
    w.lag_sin_ = static_cast<float>(det::Sin(a));
  }
  if (w.config_.segment_checks.empty())  // default: what each spring asks for (fitted rigs)
    for (const RigChain& ch : rig.chains())
      w.config_.segment_checks.push_back(ch.segment_checks ? 1 : 0);
  const size_t nj = rig.joint_node().size();
  w.tail_.assign(nj, glm::vec3(0));
  w.vel_.assign(nj, glm::vec3(0));
  w.prev_target_.assign(nj, glm::vec3(0));
  w.in_contact_.assign(nj, 0);
  w.vrm_prev_.assign(nj, glm::vec3(0));
  w.vrm_cur_.assign(nj, glm::vec3(0));
  w.stale_child_.assign(nj, glm::vec3(0));
  w.solved_rot_.resize(nj);
  for (size_t j = 0; j < nj; ++j) w.solved_rot_[j] = rig.rest_local()[rig.joint_node()[j]].rotation;
  std::vector<SegmentCoefficients>& coef = w.parent_coef_.coef;
  coef.assign(nj, SegmentCoefficients{0, 0, glm::vec3(0)});
  w.axis_local_.assign(nj, glm::vec3(0));
  w.arc_attach_.assign(nj, glm::vec3(0));
  w.rest_chord_.assign(rig.chains().size(), glm::vec3(0));
  w.arc_lift_.assign(nj, glm::vec3(0));
  w.chain_lift_.assign(rig.chains().size(), glm::vec3(0));
  w.chain_lifted_.assign(rig.chains().size(), 0);
  w.rest_length_.assign(nj, 0.0f);
  w.path_begin_.assign(nj, 0);
  w.path_end_.assign(nj, 0);
  w.chord_guard_.assign(rig.chains().size(), kChordNever);
  size_t longest = 0;
  for (const RigChain& ch : rig.chains())
    longest = std::max(longest, static_cast<size_t>(ch.joint_end - ch.joint_begin));
  w.turn_ends_.assign(longest, glm::vec3(0.0f));
  for (const RigChain& ch : rig.chains()) {
    const glm::mat4 attach_rest = ch.attach >= 0 ? rig.rest_world()[ch.attach] : glm::mat4(1.0f);
    const glm::mat3 attach_inv = glm::inverse(glm::mat3(attach_rest));
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
      const int node = rig.joint_node()[j];
      const int next = rig.joint_node()[j + 1];
      const glm::vec3 p0(rig.rest_world()[node][3]);
      const glm::vec3 p1(rig.rest_world()[next][3]);
      w.rest_length_[j] = glm::length(p1 - p0);
      w.axis_local_[j] = glm::vec3(glm::inverse(rig.rest_world()[node]) * glm::vec4(p1, 1.0f));
      w.arc_attach_[j] = attach_inv * (p1 - p0);
      w.rest_chord_[&ch - rig.chains().data()] += w.arc_attach_[j];
      // Nodes from this joint (exclusive) down to the next joint (inclusive), parents first.
      w.path_begin_[j] = static_cast<int>(w.path_nodes_.size());
      std::vector<int> up;
      for (int n = next; n != -1 && n != node; n = rig.parent()[n]) up.push_back(n);
      if (up.empty() || rig.parent()[up.back()] != node)
        return Status(StatusCode::kInvalidInput,
                      "spring chain " + std::to_string(&ch - rig.chains().data()) + ": joint " +
                          std::to_string(j - ch.joint_begin + 1) +
                          " is not a descendant of the previous joint");
      w.path_nodes_.insert(w.path_nodes_.end(), up.rbegin(), up.rend());
      w.path_end_[j] = static_cast<int>(w.path_nodes_.size());
    }
    // arc's guard on the chord (ChordGuard) is for chains without angle limits (below): always
    // for a curved one, a rest chord shorter than 0.9 of the chain. In a straighter one each
    // segment within its cone keeps the chord within asin(2 sin(a/2) / 0.9) of its own (58 deg
    // at the default 45), as long as no collider holds a link: a held link's segment below
    // drapes from it, and the chain can wrap round the collider (over a head sphere).
    float length = 0.0f;
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) length += glm::length(w.arc_attach_[j]);
    const size_t c = static_cast<size_t>(&ch - rig.chains().data());
    if (ch.joint_end - ch.joint_begin >= 3)
      w.chord_guard_[c] = glm::length(w.rest_chord_[c]) < 0.9f * length ? kChordAlways : kChordHeld;
  }
  w.axis_unit_.assign(nj, glm::vec3(0, 1, 0));
  w.axis_len_.assign(nj, 0.0f);
  for (size_t j = 0; j < nj; ++j) {
    w.axis_len_[j] = glm::length(glm::vec3(w.axis_local_[j]));
    if (w.axis_len_[j] > 0) w.axis_unit_[j] = w.axis_local_[j] / w.axis_len_[j];
  }
  // The flat path (arc_solver.cpp) needs direct parent-child joints with uniform scales in the
  // rest pose (the step also checks the current root matrix and pose). rel_scale_: a joint's
  // world scale relative to its chain root's.
  w.chain_flat_.assign(rig.chains().size(), 1);
  w.rel_scale_.assign(nj, 1.0f);
  for (size_t c = 0; c < rig.chains().size(); ++c) {
    double rel = 1.0;
    for (int j = rig.chains()[c].joint_begin; j < rig.chains()[c].joint_end; ++j) {
      const glm::vec3 sc = rig.rest_local()[rig.joint_node()[j]].scale;
      if (sc.x != sc.y || sc.x != sc.z) w.chain_flat_[c] = 0;
      if (j + 1 < rig.chains()[c].joint_end && w.path_end_[j] - w.path_begin_[j] != 1)
        w.chain_flat_[c] = 0;
      if (j > rig.chains()[c].joint_begin) rel *= sc.x;
      w.rel_scale_[j] = static_cast<float>(rel);
    }
  }
  // Angle limits (limits.h). A limited joint needs its parent's world rotation at every step:
  // the general path has it at hand, the flat path and the SIMD lanes build it down the chain
  // (FlatRotations, as parent mode does).
  w.limit_.assign(nj, internal::PreparedLimit{});
  for (size_t c = 0; c < rig.chains().size(); ++c)
    for (int j = rig.chains()[c].joint_begin; j + 1 < rig.chains()[c].joint_end; ++j)
      if (rig.joint_limit()[j].kind != JointLimit::Kind::kNone) {
        w.limit_[j] = internal::PrepareLimit(rig.joint_limit()[j], w.axis_unit_[j]);
        w.chord_guard_[c] = kChordNever;  // the limits bound its chord, not ChordGuard
      }
  w.cone_axis_parent_.assign(nj, glm::vec3(0, 1, 0));
  for (size_t j = 0; j < nj; ++j)
    w.cone_axis_parent_[j] =
        (rig.rest_local()[rig.joint_node()[j]].rotation * w.limit_[j].local) * glm::vec3(0, 1, 0);
  // A chain whose joint is another chain's attachment must have its joints' world matrices
  // written at every step (the later chain reads them in the same step).
  std::vector<int> chain_of(rig.node_count(), -1);
  for (size_t c = 0; c < rig.chains().size(); ++c)
    for (int j = rig.chains()[c].joint_begin; j < rig.chains()[c].joint_end; ++j)
      chain_of[rig.joint_node()[j]] = static_cast<int>(c);
  w.flat_feeds_.assign(rig.chains().size(), 0);
  for (const RigChain& ch : rig.chains())
    if (ch.attach >= 0 && chain_of[ch.attach] >= 0) w.flat_feeds_[chain_of[ch.attach]] = 1;
  // Chains hanging from the same node that no chain's step moves (the head) see the same
  // attachment matrix now and at the previous step: one teleport check serves them all.
  std::vector<uint8_t> moved(rig.node_count(), 0);
  for (int n : w.path_nodes_) moved[n] = 1;
  for (int n : rig.joint_node()) moved[n] = 1;
  w.teleport_rep_.assign(rig.chains().size(), 0);
  w.teleported_.assign(rig.chains().size(), 0);
  w.attach_still_.assign(rig.chains().size(), 0);
  for (int c = 0; c < static_cast<int>(rig.chains().size()); ++c) {
    const int a = rig.chains()[c].attach;
    w.attach_still_[c] = !(a >= 0 && moved[a]);
    w.teleport_rep_[c] = !w.attach_still_[c] ? c : FirstChainLike(rig, c, [&](const RigChain& o) {
      return o.attach == a;
    });
  }
  w.chain_owned_.assign(rig.chains().size(), 0);
  w.world_lazy_.assign(rig.chains().size(), 0);
  w.root_local_.resize(rig.chains().size());
  for (size_t c = 0; c < rig.chains().size(); ++c)
    w.root_local_[c] = ToMatrix(rig.rest_local()[rig.joint_node()[rig.chains()[c].joint_begin]]);
  w.flat_.assign(rig.chains().size(), FlatChain{});
  w.flat_rot_.assign(nj, glm::quat(1, 0, 0, 0));
  w.chain_reach_.assign(rig.chains().size(), 0.0f);
  for (size_t c = 0; c < rig.chains().size(); ++c)
    for (int j = rig.chains()[c].joint_begin; j + 1 < rig.chains()[c].joint_end; ++j)
      w.chain_reach_[c] += w.rest_length_[j];
  // arc: the author's liveliness (SpringConfig::arc_liveliness). In steady motion a segment lags
  // its target by the angle lambda = c_ss / (k L) per unit of speed (c_ss the drag's steady
  // effect, see MapVrmParameters). A parent-relative chain (VRM, three-vrm, parent mode) adds up
  // the lags of the joints above a segment, so its tip lags by T_parent = sum_i L_i sum_{m<=i}
  // lambda_m, an arc chain's by T_arc = sum_i L_i lambda_i: (n+1)/2 times less for n equal
  // segments. Every arc segment of the chain gets its drag multiplied by the same factor
  // F = T_parent / T_arc, so the chain swings about as far as the one the author tuned, turning
  // rigidly about its root instead of curling. (Giving each segment the parent chain's own lag,
  // by stiffness or by drag, gives back the parent chain's curl: docs/solver.md.)
  // arc's own stiffness (SpringConfig::arc_stiffness, the article's firmer tuning): the same
  // mapping with the stiffness raised; the liveliness factor below compares lags within a chain,
  // which a uniform stiffness factor does not change (up to the stability cap on k).
  w.stiffness_.assign(rig.joint_stiffness().begin(), rig.joint_stiffness().end());
  w.drag_.assign(rig.joint_drag().begin(), rig.joint_drag().end());
  w.gravity_power_.assign(rig.joint_gravity_power().begin(), rig.joint_gravity_power().end());
  w.gravity_dir_.assign(rig.joint_gravity_dir().begin(), rig.joint_gravity_dir().end());
  w.hit_radius_.assign(rig.joint_hit_radius().begin(), rig.joint_hit_radius().end());
  w.arc_coef_.coef = coef;
  w.vrm_keep_fixed_.resize(nj);
  for (int c = 0; c < static_cast<int>(rig.chains().size()); ++c) w.ChainCoefficients(c);
  // Chain c's near slots: its colliders and 4 of padding, one chain after the other (then the
  // lane groups' unions, below; the slot arrays are sized once all are placed).
  w.near_base_.resize(rig.chains().size());
  size_t slots = 0;
  for (size_t c = 0; c < rig.chains().size(); ++c) {
    w.near_base_[c] = static_cast<int>(slots);
    slots += rig.chains()[c].collider_end - rig.chains()[c].collider_begin + 4;
  }
  w.joint_colliders_.resize(rig.chain_colliders().size());
  w.near_share_.resize(rig.chains().size());
  w.near_all_step_.assign(rig.chains().size(), ~uint64_t{0});
  auto colliders_of = [&](const RigChain& ch) {
    return rig.chain_colliders().subspan(ch.collider_begin, ch.collider_end - ch.collider_begin);
  };
  for (int c = 0; c < static_cast<int>(rig.chains().size()); ++c) {
    const auto list = colliders_of(rig.chains()[c]);
    w.near_share_[c] = FirstChainLike(rig, c, [&](const RigChain& o) {
      const auto other = colliders_of(o);
      return std::equal(list.begin(), list.end(), other.begin(), other.end());
    });
  }
  // Lane groups (SolveChainLanes): up to lane_width_ chains solved side by side in the step of the
  // first of them in rig order, their lanes longest chain first (the lanes advance link by link
  // together; a shorter chain's lane idles once it has ended, so chains of like length are put
  // together: each attachment's chains in order of length, none shorter than half the group's
  // longest). Chains on one attachment with the same colliders first; then groups with room
  // merge (below). Colliders: each chain at most kNearAll, and the group's lists
  // merged into one list (its union) of at most kNearAll, in an order that keeps each chain's own
  // order (so a lane filtered to its own colliders meets them in the order it would alone). A
  // group whose chains have the same list reads the chains' shared slots (AllNear); any other its
  // own slots with the union (UnionNear), each lane masked to its chain's colliders (near_bits_).
  // Their order against the chains between them does not matter: they are flat-capable, no
  // chain hangs from them, they hang from a node no chain's step moves, and a chain's step
  // writes only its own state. Their teleport verdict is the one of the first chain hanging from
  // the same node (teleport_rep_), which comes no later than the group's first chain, so it is
  // taken before the group is solved.
  auto lane_ok = [&](int c) {
    const RigChain& ch = rig.chains()[c];
    return w.chain_flat_[c] && !w.flat_feeds_[c] && ch.joint_end - ch.joint_begin >= 2 &&
           ch.collider_end - ch.collider_begin <= internal::kNearAll && w.attach_still_[c];
  };
  w.lane_group_of_.assign(rig.chains().size(), -1);
  auto links_of = [&](int c) {
    return rig.chains()[c].joint_end - rig.chains()[c].joint_begin - 1;
  };
  std::vector<int> candidates;
  for (int c = 0; c < static_cast<int>(rig.chains().size()); ++c)
    if (lane_ok(c)) candidates.push_back(c);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](int a, int b) { return links_of(a) > links_of(b); });
  std::vector<LaneGroup> groups;
  for (int c : candidates) {
    const RigChain& ch = rig.chains()[c];
    auto open = std::find_if(groups.begin(), groups.end(), [&](const LaneGroup& g) {
      const RigChain& first = rig.chains()[g.chains[0]];
      // At least half as long as the group's longest: a lane running alone for long costs
      // more than the chain solved alone (measured: a 5-link chain with three 1-link ones,
      // 7 % slower than the same chain alone).
      return g.n < w.lane_width_ && first.attach == ch.attach &&
             w.near_share_[g.chains[0]] == w.near_share_[c] &&
             2 * links_of(c) >= links_of(g.chains[0]);
    });
    if (open == groups.end()) {
      LaneGroup fresh{};
      std::fill(fresh.chains, fresh.chains + kMaxLanes, c);
      open = groups.insert(groups.end(), fresh);
    }
    open->chains[open->n++] = c;
  }
  // Then groups that are not full join an earlier one with room (longer chains first), also
  // with other colliders or another attachment: a chain alone costs more than a lane, and a lane
  // whose chain has none of a collider only masks it out. Their colliders' union keeps each
  // chain's order. Each chain's teleport verdict must be taken before the merged group begins:
  // its representative is in the group (it begins there first) or comes before all of it.
  std::vector<std::vector<int>> unions;  // per group
  for (const LaneGroup& g : groups) {
    const auto list = colliders_of(rig.chains()[g.chains[0]]);
    unions.emplace_back(list.begin(), list.end());
  }
  auto verdicts_in_time = [&](const LaneGroup& a, const LaneGroup& b) {
    std::vector<int> all(a.chains, a.chains + a.n);
    all.insert(all.end(), b.chains, b.chains + b.n);
    const int first = *std::min_element(all.begin(), all.end());
    return std::all_of(all.begin(), all.end(), [&](int c) {
      const int r = w.teleport_rep_[c];
      return r < first || std::find(all.begin(), all.end(), r) != all.end();
    });
  };
  for (size_t i = 1; i < groups.size(); ++i) {
    LaneGroup& from = groups[i];
    for (size_t k = 0; k < i && from.n > 0 && from.n < w.lane_width_; ++k) {
      LaneGroup& to = groups[k];
      if (to.n == 0 || to.n + from.n > w.lane_width_ ||
          2 * links_of(from.chains[from.n - 1]) < links_of(to.chains[0]) ||
          !verdicts_in_time(to, from))
        continue;
      std::vector<int> merged = unions[k];
      if (!internal::MergeColliderLists(unions[i], internal::kNearAll, &merged)) continue;
      unions[k] = std::move(merged);
      for (int m = 0; m < from.n; ++m) to.chains[to.n++] = from.chains[m];
      std::stable_sort(to.chains, to.chains + to.n,
                       [&](int a, int b) { return links_of(a) > links_of(b); });
      for (int l = to.n; l < kMaxLanes; ++l) to.chains[l] = to.chains[0];
      from.n = 0;
    }
  }
  for (LaneGroup& g : groups) {
    if (g.n == 0) continue;  // merged into another
    for (int l = 0; l < kMaxLanes; ++l) g.links[l] = links_of(g.chains[l]);
    for (int l = 0; l < g.n; ++l) g.order[l] = l;
    std::sort(g.order, g.order + g.n, [&](int a, int b) { return g.chains[a] < g.chains[b]; });
  }
  w.near_bits_.assign(rig.chains().size(), 0);
  for (size_t i = 0; i < groups.size(); ++i) {
    const LaneGroup& g = groups[i];
    if (g.n < 2) continue;  // alone
    const std::vector<int>& uni = unions[i];
    const bool shared = std::all_of(g.chains, g.chains + g.n, [&](int c) {
      return w.near_share_[c] == w.near_share_[g.chains[0]];
    });
    LaneMix mix;
    mix.one_attach = std::all_of(g.chains, g.chains + g.n, [&](int c) {
      return rig.chains()[c].attach == rig.chains()[g.chains[0]].attach;
    });
    if (!shared) {  // its own slots after the chains', the union's colliders in lane_near_
      mix.near_base = static_cast<int>(slots);
      mix.near_list = static_cast<int>(w.lane_near_.size());
      mix.near_n = static_cast<int>(uni.size());
      slots += uni.size() + 4;
      w.lane_near_.insert(w.lane_near_.end(), uni.begin(), uni.end());
      for (int m = 0; m < g.n; ++m) {
        const auto list = colliders_of(rig.chains()[g.chains[m]]);
        for (size_t k = 0; k < uni.size(); ++k)
          if (std::find(list.begin(), list.end(), uni[k]) != list.end())
            w.near_bits_[g.chains[m]] |= static_cast<uint16_t>(1u << k);
      }
    }
    for (int m = 0; m < g.n; ++m)
      w.lane_group_of_[g.chains[m]] = static_cast<int>(w.lane_groups_.size());
    w.lane_groups_.push_back(g);
    w.lane_mix_.push_back(mix);
  }
  w.lane_near_step_.assign(w.lane_groups_.size(), ~uint64_t{0});
  w.near_colliders_.assign(slots, 0);
  for (std::vector<float>* v : {&w.near_x_, &w.near_y_, &w.near_z_, &w.near_r_})
    v->assign(slots, 0.0f);
  w.near_splat_.assign(slots, {});
  w.lane_written_.assign(rig.chains().size(), 0);
  w.lane_write_.assign(w.lane_groups_.size(), 0);
  w.write_left_.assign(rig.chains().size(), 0);
  w.prev_attach_.assign(rig.chains().size(), glm::mat4(1.0f));
  w.prev_center_.assign(rig.chains().size(), glm::mat4(1.0f));
  w.vrm_initial_local_.resize(nj);
  w.vrm_bone_axis_.resize(nj);
  w.vrm_axis_in_parent_.resize(nj);
  for (size_t j = 0; j < nj; ++j) {
    // Constant per joint, computed once exactly as the step used to (three.js'
    // transformDirection normalises after each matrix).
    w.vrm_initial_local_[j] = ToMatrix(rig.rest_local()[rig.joint_node()[j]]);
    w.vrm_bone_axis_[j] = glm::normalize(w.axis_local_[j]);
    w.vrm_axis_in_parent_[j] =
        glm::normalize(glm::mat3(w.vrm_initial_local_[j]) * w.vrm_bone_axis_[j]);
  }
  // Nodes a step needs before solving: every ancestor (inclusive) of a chain's attachment, a
  // collider node or a center node. Rig order is parents first, so a sorted list is too.
  std::vector<uint8_t> need(rig.node_count(), 0);
  auto mark = [&](int n) {
    for (; n >= 0 && !need[n]; n = rig.parent()[n]) need[n] = 1;
  };
  for (const RigChain& ch : rig.chains()) {
    mark(ch.attach);
    mark(ch.center);
  }
  for (int n : rig.collider_node()) mark(n);
  for (int n = 0; n < static_cast<int>(rig.node_count()); ++n)
    if (need[n]) w.world_nodes_.push_back(n);
  // The engine-facing input: only the nodes the step reads directly.
  std::vector<uint8_t> driver(rig.node_count(), 0);
  for (const RigChain& ch : rig.chains()) {
    for (int n : {ch.attach, ch.center, rig.parent()[rig.joint_node()[ch.joint_begin]]})
      if (n >= 0) driver[n] = 1;
  }
  for (int n : rig.collider_node()) driver[n] = 1;
  for (int n = 0; n < static_cast<int>(rig.node_count()); ++n)
    if (driver[n]) w.driver_nodes_.push_back(n);
  w.driven_pose_.assign(rig.rest_local().begin(), rig.rest_local().end());
  w.has_prev_attach_.assign(rig.chains().size(), 0);
  w.prev_root_.assign(rig.chains().size(), glm::vec3(0));
  w.world_.assign(rig.rest_world().begin(), rig.rest_world().end());
  w.colliders_.resize(rig.collider_node().size());
  w.collider_bound_.resize(rig.collider_node().size());
  w.collider_reject_.resize(rig.collider_node().size());
  w.pose_scratch_.assign(rig.rest_local().begin(), rig.rest_local().end());
  w.PackLanes();
  w.UpdateFlatStatic();
  w.Reset(rig.rest_local());
  return w;
}

void SpringWorld::ChainCoefficients(int c) {
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[c];
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    parent_coef_.coef[j] =
        MapVrmParameters(stiffness_[j] * config_.stiffness_scale, drag_[j], gravity_power_[j],
                         gravity_dir_[j], rest_length_[j], config_.tuned);
    // arc's own stiffness (SpringConfig::arc_stiffness, the article's firmer tuning): the same
    // mapping with the stiffness raised; the liveliness factor below compares lags within a
    // chain, which a uniform stiffness factor does not change (up to the stability cap on k).
    arc_coef_.coef[j] =
        MapVrmParameters(stiffness_[j] * config_.stiffness_scale * config_.arc_stiffness, drag_[j],
                         gravity_power_[j], gravity_dir_[j], rest_length_[j], config_.tuned);
  }
  // arc: the author's liveliness (SpringConfig::arc_liveliness). In steady motion a segment lags
  // its target by the angle lambda = c_ss / (k L) per unit of speed (c_ss the drag's steady
  // effect, see MapVrmParameters). A parent-relative chain (VRM, three-vrm, parent mode) adds up
  // the lags of the joints above a segment, so its tip lags by T_parent = sum_i L_i sum_{m<=i}
  // lambda_m, an arc chain's by T_arc = sum_i L_i lambda_i: (n+1)/2 times less for n equal
  // segments. Every arc segment of the chain gets its drag multiplied by the same factor
  // F = T_parent / T_arc, so the chain swings about as far as the one the author tuned, turning
  // rigidly about its root instead of curling. (Giving each segment the parent chain's own lag,
  // by stiffness or by drag, gives back the parent chain's curl: docs/solver.md.)
  const double live = std::clamp(static_cast<double>(config_.arc_liveliness), 0.0, 1.0);
  constexpr double kH = SpringWorld::kStep;
  auto steady_drag = [&](double cc) { return (det::Exp(cc * kH) - 1.0) / kH; };
  double above = 0.0, t_parent = 0.0, t_arc = 0.0;
  // For arc_follow below: the first segment's length and lag, and the segments below it.
  double l0 = 0.0, lambda0 = 0.0, l_below = 0.0, lag_below = 0.0;
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const double l = std::max(rest_length_[j], 1e-4f);
    const SegmentCoefficients& a = arc_coef_.coef[j];
    const double lambda = a.k > 0 ? steady_drag(a.c) / (a.k * l) : 0.0;
    above += lambda;
    t_parent += l * above;
    t_arc += l * lambda;
    if (j == ch.joint_begin) {
      l0 = l;
      lambda0 = lambda;
    } else {
      l_below += l;
      lag_below += l * lambda;
    }
  }
  const double factor = 1.0 + live * (t_arc > 0 ? std::max(0.0, t_parent / t_arc - 1.0) : 0.0);
  // With arc_follow (beta) the segments below the first turn with it by beta and keep
  // b = (1 - beta) F^1.25 of the author's drag (of their own lag; F = the lively factor above,
  // blended by the liveliness): in steady motion segment i > 0 lags beta theta_0 + b lambda_i,
  // between turning rigidly with the first segment (beta 1) and lagging on its own. The tip lags
  // theta_0 (L_0 + beta sum L_i) + b sum L_i lambda_i; the first segment's drag is raised until
  // that equals T_parent (blended by the liveliness). The share b was measured (docs/solver.md,
  // "The first segment carries the swing"): lower segments with more lag of their own build the
  // chain's lag sooner in a turn (a raised first-segment drag answers a turn slowly) and curl
  // more. (1 - beta) alone left long chains (F 3.7, five segments) at 0.72x the author's swing in
  // the head-turn; (1 - beta) F at 0.78x; F^1.25 gives 0.8x there while the short fitted chains
  // (F 1.5-2.2) curl at most 0.52x the parent chain's; F^1.4 curls 0.60x on the layered demo.
  const double beta = std::clamp(static_cast<double>(config_.arc_follow), 0.0, 1.0);
  constexpr double kFollowBelowExponent = 1.25;
  const double below_factor = (1.0 - beta) * det::Pow(factor, kFollowBelowExponent);
  double first_factor = factor;
  if (beta > 0.0) {
    const double theta0 =
        std::max(0.0, t_parent - below_factor * lag_below) / (l0 + beta * l_below);
    const double full = lambda0 > 0.0 ? std::max(1.0, theta0 / lambda0) : 1.0;
    first_factor = 1.0 + live * (full - 1.0);
  }
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    SegmentCoefficients& cf = arc_coef_.coef[j];
    const double f = beta > 0.0 ? (j == ch.joint_begin ? first_factor : below_factor) : factor;
    cf.c = static_cast<float>(det::Log(1.0 + kH * f * steady_drag(cf.c)) / kH);
    if (config_.tuned) cf.c_rel = internal::TunedRelativeDamping(cf.k, cf.c);
  }
  // arc with gravity: the sideways part of gravity turns the chain's arc as a whole (ArcFrame),
  // the part along each segment stays in its pull (Lifted), so the force carries no gravity.
  // A segment without stiffness keeps gravity as a force: nothing else holds it.
  chain_lift_[c] = glm::vec3(0.0f);
  chain_lifted_[c] = 0;
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    SegmentCoefficients& cf = arc_coef_.coef[j];
    arc_lift_[j] = glm::vec3(0.0f);
    if (cf.k > 0.0f && cf.g != glm::vec3(0.0f)) {
      arc_lift_[j] = cf.g / cf.k;
      cf.g = glm::vec3(0.0f);
      chain_lift_[c] += glm::vec3(arc_lift_[j]);
      chain_lifted_[c] = 1;
    }
  }
  // vrm mode under fixed steps keeps (1 - drag)^(h / dt_ref) of the velocity per step
  // (vrm_solver.cpp), computed here exactly as the step would.
  for (int j = ch.joint_begin; j < ch.joint_end; ++j)
    vrm_keep_fixed_[j] =
        det::PowF(1.0f - drag_[j], static_cast<float>(kStep) / internal::kVrmRefDt);
  parent_coef_.FillStepFactors(ch.joint_begin, ch.joint_end);
  arc_coef_.FillStepFactors(ch.joint_begin, ch.joint_end);
}

SpringWorld::JointSettings SpringWorld::joint_settings(int joint) const {
  HS_ASSERT(joint >= 0 && joint < static_cast<int>(stiffness_.size()));
  return {stiffness_[joint], drag_[joint], gravity_power_[joint], gravity_dir_[joint],
          hit_radius_[joint]};
}

Status SpringWorld::SetJointSettings(int joint, const JointSettings& s) {
  if (joint < 0 || joint >= static_cast<int>(stiffness_.size()))
    return Status(StatusCode::kInvalidInput, "joint " + std::to_string(joint) + " out of range (" +
                                                 std::to_string(stiffness_.size()) + " joints)");
  auto finite = [](float v) { return std::isfinite(v); };
  if (!finite(s.stiffness) || s.stiffness < 0.0f)
    return Status(StatusCode::kInvalidInput, "stiffness must be a number >= 0");
  if (!finite(s.drag_force) || s.drag_force < 0.0f || s.drag_force > 1.0f)
    return Status(StatusCode::kInvalidInput, "dragForce must be a number in [0, 1]");
  if (!finite(s.gravity_power) || s.gravity_power < 0.0f)
    return Status(StatusCode::kInvalidInput, "gravityPower must be a number >= 0");
  if (!finite(s.hit_radius) || s.hit_radius < 0.0f)
    return Status(StatusCode::kInvalidInput, "hitRadius must be a number >= 0");
  const glm::vec3 g = s.gravity_dir;
  const float glen = glm::length(g);
  if (!finite(g.x) || !finite(g.y) || !finite(g.z) || !(glen > 1e-6f) || !std::isfinite(glen))
    return Status(StatusCode::kInvalidInput, "gravityDir must be a non-zero direction");
  stiffness_[joint] = s.stiffness;
  drag_[joint] = s.drag_force;
  gravity_power_[joint] = s.gravity_power;
  // The rig's directions are unit vectors already: kept as given when they are, so settings read
  // back and written again change no bit.
  gravity_dir_[joint] = std::fabs(glen - 1.0f) < 1e-6f ? g : g / glen;
  hit_radius_[joint] = s.hit_radius;
  for (int c = 0; c < static_cast<int>(rig_->chains().size()); ++c)
    if (joint >= rig_->chains()[c].joint_begin && joint < rig_->chains()[c].joint_end) {
      ChainCoefficients(c);
      break;
    }
  PackLanes();  // the lanes' copy of the coefficients
  return Status::Ok();
}

void SpringWorld::ModeCoefficients::FillStepFactors(int begin, int end) {
  damp.resize(coef.size());
  damp_rel.resize(coef.size());
  for (int j = begin; j < end; ++j) {
    damp[j] = det::ExpF(-coef[j].c * static_cast<float>(kStep));
    damp_rel[j] = det::ExpF(-coef[j].c_rel * static_cast<float>(kStep));
  }
}

void SpringWorld::SetSegmentChecks(int chain, bool on) {
  HS_ASSERT(chain >= 0 && chain < static_cast<int>(config_.segment_checks.size()));
  config_.segment_checks[chain] = on ? 1 : 0;
}

void SpringWorld::SetOwnedNodes(std::span<const uint8_t> owned) {
  HS_ASSERT(owned.empty() || owned.size() == rig_->node_count());
  owned_.assign(owned.begin(), owned.end());
  const Rig& rig = *rig_;
  for (size_t c = 0; c < rig.chains().size(); ++c) {
    chain_owned_[c] = 0;
    for (int j = rig.chains()[c].joint_begin; j < rig.chains()[c].joint_end; ++j)
      if (!owned_.empty() && owned_[rig.joint_node()[j]]) chain_owned_[c] = 1;
  }
  UpdateFlatStatic();
}

void SpringWorld::SetMode(SolverMode mode) {
  if (mode == config_.mode) return;
  // Carry state across: the Verlet pair (prev, cur) and (tail, velocity) describe the same
  // motion with prev = cur - v*h, in center space for vrm mode.
  const float h = static_cast<float>(kStep);
  for (const RigChain& ch : rig_->chains()) {
    const glm::mat4 to_center = ch.center >= 0 ? glm::inverse(world_[ch.center]) : glm::mat4(1.0f);
    const glm::mat4 from_center = ch.center >= 0 ? world_[ch.center] : glm::mat4(1.0f);
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
      if (mode == SolverMode::kVrm) {
        vrm_cur_[j] = glm::vec3(to_center * glm::vec4(tail_[j], 1.0f));
        vrm_prev_[j] = glm::vec3(to_center * glm::vec4(tail_[j] - vel_[j] * h, 1.0f));
      } else if (config_.mode == SolverMode::kVrm) {
        glm::vec3 cur(from_center * glm::vec4(vrm_cur_[j], 1.0f));
        glm::vec3 prev(from_center * glm::vec4(vrm_prev_[j], 1.0f));
        tail_[j] = cur;
        vel_[j] = (cur - prev) / h;
        prev_target_[j] = cur;  // no target history: the first step damps against a still target
      }
    }
  }
  config_.mode = mode;
  UpdateFlatStatic();
}

bool internal::PoseIsFinite(std::span<const Transform> pose) {
  for (const Transform& t : pose) {
    const glm::vec3& a = t.translation;
    const glm::quat& q = t.rotation;
    const glm::vec3& s = t.scale;
    if (!(std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z) && std::isfinite(q.x) &&
          std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w) && std::isfinite(s.x) &&
          std::isfinite(s.y) && std::isfinite(s.z)))
      return false;
  }
  return true;
}

void SpringWorld::PrepareWorld(std::span<Transform> pose) {
  // Spring joints start every step from their rest rotation (unless a clip owns them), so a
  // caller who feeds the last output pose back in gets the same result as one who resamples.
  const Rig& rig = *rig_;
  for (int j = 0; j < static_cast<int>(rig.joint_node().size()); ++j) {
    const int node = rig.joint_node()[j];
    if (owned_.empty() || !owned_[node]) pose[node].rotation = rig.rest_local()[node].rotation;
  }
  for (int n : world_nodes_) {
    UpdateNodeWorld(n, pose[n]);
  }
}

namespace {
#if HAIRSWING_SIMD && defined(__SSE2__)
// ColliderToWorld for a sphere or capsule with the node matrix's columns in SSE lanes: the same
// operations in the same order as its glm code, component by component, so the same bits (the
// fourth lane is never read). ResolveColliders runs it for every collider at every step: 151
// instructions per collider there under callgrind against 212 with the scalar code.
inline WorldCollider OutsideColliderToWorld(ColliderShape shape, const glm::vec3& offset,
                                            const glm::vec3& tail, float radius, const glm::mat4& m,
                                            bool scale_radius) {
  const __m128 c0 = _mm_loadu_ps(&m[0][0]), c1 = _mm_loadu_ps(&m[1][0]),
               c2 = _mm_loadu_ps(&m[2][0]), c3 = _mm_loadu_ps(&m[3][0]);
  // (m0 x + m1 y) + (m2 z + m3)
  const __m128 head4 = _mm_add_ps(
      _mm_add_ps(_mm_mul_ps(c0, _mm_set1_ps(offset.x)), _mm_mul_ps(c1, _mm_set1_ps(offset.y))),
      _mm_add_ps(_mm_mul_ps(c2, _mm_set1_ps(offset.z)), c3));
  __m128 tail4 = head4;
  if (shape == ColliderShape::kCapsule) {  // head + mat3(m) * (tail - offset): (m0 x + m1 y) + m2 z
    const glm::vec3 d = tail - offset;
    tail4 = _mm_add_ps(head4, _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, _mm_set1_ps(d.x)),
                                                    _mm_mul_ps(c1, _mm_set1_ps(d.y))),
                                         _mm_mul_ps(c2, _mm_set1_ps(d.z))));
  }
  alignas(16) float h[4], t[4];
  _mm_store_ps(h, head4);
  _mm_store_ps(t, tail4);
  WorldCollider wc;
  wc.shape = shape;
  wc.head = glm::vec3(h[0], h[1], h[2]);
  wc.tail = glm::vec3(t[0], t[1], t[2]);
  wc.radius = radius * (scale_radius ? glm::length(glm::vec3(m[0])) : 1.0f);
  return wc;
}
#endif
}  // namespace

void SpringWorld::ResolveColliders(bool scale_radius) {
  // three-vrm (and so vrm mode) ignores node scale for radii; arc/parent work in world units.
  const Rig& rig = *rig_;
  // Written field by field from values in registers: a whole WorldCollider assigned from a
  // temporary went through the stack as narrow stores read back as wide loads, which the
  // processor cannot forward (a stall of the order of ten cycles per collider and step).
  for (size_t c = 0; c < colliders_.size(); ++c) {
    const ColliderShape shape = rig.collider_shape()[c];
    const glm::mat4& m = world_[rig.collider_node()[c]];
#if HAIRSWING_SIMD && defined(__SSE2__)
    const WorldCollider w =
        shape == ColliderShape::kSphere || shape == ColliderShape::kCapsule
            ? OutsideColliderToWorld(shape, rig.collider_offset()[c], rig.collider_tail()[c],
                                     rig.collider_radius()[c], m, scale_radius)
            : ColliderToWorld(shape, rig.collider_offset()[c], rig.collider_tail()[c],
                              rig.collider_normal()[c], rig.collider_radius()[c], m, scale_radius);
#else
    const WorldCollider w =
        ColliderToWorld(shape, rig.collider_offset()[c], rig.collider_tail()[c],
                        rig.collider_normal()[c], rig.collider_radius()[c], m, scale_radius);
#endif
    const glm::vec3 head = w.head, tail = w.tail;
    const float radius = w.radius;
    WorldCollider& wc = colliders_[c];
    wc.shape = w.shape;
    wc.head = head;
    wc.tail = tail;
    wc.normal = w.normal;
    wc.radius = radius;
    const bool outside = w.shape == ColliderShape::kSphere || w.shape == ColliderShape::kCapsule;
    collider_bound_[c] =
        outside ? glm::vec4(0.5f * (head + tail), 0.5f * glm::length(tail - head) + radius)
                : glm::vec4(0, 0, 0, -1);
    CapsuleReject& cr = collider_reject_[c];
    const glm::vec3 axis = w.shape == ColliderShape::kCapsule ? tail - head : glm::vec3(0.0f);
    const float len2 = glm::dot(axis, axis);
    cr.head = head;
    cr.axis = axis;
    cr.inv_len2 = len2 > 0.0f ? 1.0f / len2 : 0.0f;
    cr.radius = radius;
  }
}

void SpringWorld::UpdateWorldPath(int joint, std::span<const Transform> pose) {
  const Rig& rig = *rig_;
  const int node = rig.joint_node()[joint];
  UpdateNodeWorld(node, pose[node]);
  for (int p = path_begin_[joint]; p < path_end_[joint]; ++p)
    UpdateNodeWorld(path_nodes_[p], pose[path_nodes_[p]]);
}

void SpringWorld::ResetChain(int chain, std::span<Transform> pose) {
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  const glm::mat4 to_center = ch.center >= 0 ? glm::inverse(world_[ch.center]) : glm::mat4(1.0f);
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    const int node = rig.joint_node()[j];
    if (owned_.empty() || !owned_[node]) pose[node].rotation = rig.rest_local()[node].rotation;
    UpdateWorldPath(j, pose);
    tail_[j] = glm::vec3(world_[rig.joint_node()[j + 1]][3]);
    vel_[j] = glm::vec3(0.0f);
    prev_target_[j] = tail_[j];
    in_contact_[j] = 0;
    vrm_cur_[j] = vrm_prev_[j] = glm::vec3(to_center * glm::vec4(tail_[j], 1.0f));
    solved_rot_[j] = pose[node].rotation;
  }
  prev_attach_[chain] = ch.attach >= 0 ? world_[ch.attach] : glm::mat4(1.0f);
  has_prev_attach_[chain] = 1;
  if (ch.center >= 0) prev_center_[chain] = world_[ch.center];
  prev_root_[chain] = glm::vec3(world_[rig.joint_node()[ch.joint_begin]][3]);
  flat_[chain].pending = 0;  // written here, at rest
  world_lazy_[chain] = 0;
}

void SpringWorld::Reset(std::span<const Transform> pose) {
  HS_ASSERT(pose.size() == rig_->node_count());
  std::copy(pose.begin(), pose.end(), pose_scratch_.begin());
  PrepareWorld(pose_scratch_);
  for (int c = 0; c < static_cast<int>(rig_->chains().size()); ++c) ResetChain(c, pose_scratch_);
}

bool SpringWorld::CheckTeleport(int chain) {
  const RigChain& ch = rig_->chains()[chain];
  if (!has_prev_attach_[chain]) return false;
  const glm::mat4 a = ch.attach >= 0 ? world_[ch.attach] : glm::mat4(1.0f);
  const glm::mat4& b = prev_attach_[chain];
  const glm::vec3 d = glm::vec3(a[3]) - glm::vec3(b[3]);
  if (glm::dot(d, d) > config_.teleport_distance * config_.teleport_distance) return true;
  // Turned more than teleport_angle: some rotated axis moved by more than the angle, i.e.
  // cos(axis_now, axis_before) < cos(angle). Compared without square roots or acos.
  const float c = teleport_cos_;
  for (int i = 0; i < 3; ++i) {
    const glm::vec3 x(a[i]), y(b[i]);
    const float dot = glm::dot(x, y), xx = glm::dot(x, x), yy = glm::dot(y, y);
    // dot / sqrt(xx yy) < c, written without the square root (mind the signs).
    if (c >= 0.0f ? (dot < 0.0f || dot * dot < c * c * xx * yy)
                  : (dot < 0.0f && dot * dot > c * c * xx * yy))
      return true;
  }
  return false;
}

StepReport SpringWorld::Run(std::span<Transform> pose, float h, bool variable, bool write) {
  StepReport rep;
  HS_ASSERT(pose.size() == rig_->node_count());
  if (!internal::PoseIsFinite(pose) || std::isnan(h) || std::isinf(h)) {
    rep.flags |= kStepRefusedNonFinite;
    return rep;
  }
  if (!(h > 0.0f)) {
    rep.flags |= kStepZeroDt;
    return rep;
  }
  if (config_.mode == SolverMode::kVrm && config_.vrm_three_compat) {
    std::copy(pose.begin(), pose.end(), pose_scratch_.begin());
    ComputeStaleChildren(pose_scratch_, true);
  }
  PrepareWorld(pose);
  rep = Solve(pose, h, variable, true, rep);
  if (write) WriteBack(pose);
  return rep;
}

void SpringWorld::ComputeStaleChildren(std::span<Transform> pose, bool whole_pose) {
  // three-vrm measures a bone from the child's world matrix as of the start of the frame:
  // the current body pose with last frame's solved spring rotations.
  const Rig& rig = *rig_;
  for (size_t j = 0; j < solved_rot_.size(); ++j)
    pose[rig.joint_node()[j]].rotation = solved_rot_[j];
  if (whole_pose) {
    ComputeWorld(rig, pose, world_);
  } else {  // driver nodes set: build each chain from its root's parent
    for (const RigChain& ch : rig.chains()) {
      UpdateRootWorld(ch, pose);
      for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) UpdateWorldPath(j, pose);
    }
  }
  for (size_t j = 0; j + 1 < rig.joint_node().size(); ++j)
    stale_child_[j] = glm::vec3(world_[rig.joint_node()[j + 1]][3]);
}

void SpringWorld::UpdateFlatStatic() {
  // What decides ChainIsFlat apart from this step's pose: the chain's shape (chain_flat_), the
  // config, the clip's ownership and, in vrm mode, the spec's bone length in world space
  // (three-vrm's stale child length and a centre space take the general path).
  const Rig& rig = *rig_;
  flat_static_.resize(rig.chains().size());
  for (size_t c = 0; c < rig.chains().size(); ++c)
    flat_static_[c] = config_.flat_path && chain_flat_[c] && !chain_owned_[c] &&
                      !(config_.mode == SolverMode::kVrm &&
                        (config_.vrm_three_compat || rig.chains()[c].center >= 0));
  group_plain_.resize(lane_groups_.size());
  for (size_t g = 0; g < lane_groups_.size(); ++g) {
    const LaneGroup& group = lane_groups_[g];
    group_plain_[g] = std::all_of(group.chains, group.chains + group.n, [&](int c) {
      return flat_static_[c] && rig.chains()[c].center < 0;
    });
  }
}

inline bool SpringWorld::ChainIsFlat(int chain, std::span<const Transform> pose, bool check_pose) {
  const Rig& rig = *rig_;
  const RigChain& ch = rig.chains()[chain];
  if (!flat_static_[chain]) return false;
  const int root = rig.joint_node()[ch.joint_begin];
  if (!check_pose) {
    // The driven input: the root keeps its rest local transform (a similarity: chain_flat_ asks
    // for a uniform scale), so its world matrix is a similarity when its parent's is. Chains on
    // one node (the head) share the verdict, once per step.
    const int parent = rig.parent()[root];
    if (parent != sim_cache_node_) {
      sim_cache_node_ = parent;
      sim_cache_ = parent < 0 || internal::IsSimilarity(world_[parent]);
    }
    return sim_cache_;
  }
  // Below the root, joints must sit where the rest pose puts them (an animated translation or
  // scale of a spring joint goes through the general path).
  for (int j = ch.joint_begin + 1; j < ch.joint_end; ++j) {
    const int node = rig.joint_node()[j];
    if (pose[node].translation != rig.rest_local()[node].translation ||
        pose[node].scale != rig.rest_local()[node].scale)
      return false;
  }
  return internal::IsSimilarity(world_[root]);
}

StepReport SpringWorld::Solve(std::span<Transform> pose, float h, bool variable, bool check_pose,
                              StepReport rep) {
  ResolveColliders(config_.mode != SolverMode::kVrm);
  ++step_id_;  // the colliders moved: every chain's near slots are out of date
  rot_cache_node_ = sim_cache_node_ = -2;
  flat_chains_ = lane_chains_ = 0;
#if HAIRSWING_SIMD && defined(__SSE2__)
  // Fixed steps in every mode; vrm mode's variable steps (three-vrm's stepping) too.
  const bool lanes = config_.chain_lanes &&
                     (variable ? config_.mode == SolverMode::kVrm : h == static_cast<float>(kStep));
#else
  const bool lanes = false;
#endif
  const bool vrm = config_.mode == SolverMode::kVrm;
  auto flat_alone = [&](int c) {
    if (vrm)
      SolveChainVrmFlat(c, h, variable, rep);
    else
      SolveChainFlat(c, h, rep);
  };
  const int chains = static_cast<int>(rig_->chains().size());
  for (int c = 0; c < chains; ++c) {
    const int g = lanes ? lane_group_of_[c] : -1;
    if (g < 0) {  // alone
      if (BeginChain(c, pose, h, variable, check_pose, rep)) {
        flat_alone(c);
        ++flat_chains_;
      }
      if (!teleported_[c]) EndChain(c);  // a reset chain's frame was kept by ResetChain
      continue;
    }
    // A lane group, at its first chain in rig order: each chain begins in rig order (a chain's
    // teleport verdict may be an earlier one's); those that go flat with the same contact kind
    // are solved side by side in the group's lane order (the rest alone).
    const LaneGroup& group = lane_groups_[g];
    if (group.chains[group.order[0]] != c) continue;  // solved with its group
    int flat[kMaxLanes], n = 0;
    const bool plain = !check_pose && group_plain_[g] && BeginPlainGroup(group);
    if (plain) {  // the usual case: all go flat
      std::copy(group.chains, group.chains + kMaxLanes, flat);
      n = group.n;
    } else {
      bool goes_flat[kMaxLanes] = {};
      for (int i = 0; i < group.n; ++i) {
        const int m = group.order[i];
        goes_flat[m] = BeginChain(group.chains[m], pose, h, variable, check_pose, rep);
      }
      for (int m = 0; m < group.n; ++m)
        if (goes_flat[m]) flat[n++] = group.chains[m];
      for (int l = n; n > 0 && l < kMaxLanes; ++l) flat[l] = flat[0];  // padding, as LaneGroup's
    }
    // vrm mode tests end points only: the contact kind does not matter there.
    const bool same_kind = vrm || std::all_of(flat, flat + n, [&](int m) {
                             return config_.segment_checks[m] == config_.segment_checks[flat[0]];
                           });
    if (n >= 2 && same_kind) {
      for (int l = 0; l < n; ++l) FlatRoot(flat[l]);  // the root frames the lanes start from
      if (vrm)
        SolveChainVrmLanes(flat, n, h, variable, rep);
      else {
        const int held = SolveChainLanes(flat, n, h, rep);
        GuardChords(flat, n, held, h, rep);
      }
      lane_chains_ += n;
    } else {
      for (int i = 0; i < n; ++i) flat_alone(flat[i]);
    }
    flat_chains_ += n;
    for (int m = 0; m < group.n; ++m)
      if (!teleported_[group.chains[m]]) EndChain(group.chains[m]);
  }
  rep.steps_run = 1;
  return rep;
}

inline bool SpringWorld::BeginChain(int c, std::span<Transform> pose, float h, bool variable,
                                    bool check_pose, StepReport& rep) {
  // A branch hangs from a joint solved earlier in this step: refresh its first joint. The
  // driven input holds the root joint at its rest transform unless the clip owns it: its local
  // matrix is then the one made in Create.
  const RigChain& ch = rig_->chains()[c];
  const int root = rig_->joint_node()[ch.joint_begin];
  if (!check_pose && (owned_.empty() || !owned_[root]))
    UpdateNodeWorld(root, root_local_[c]);
  else
    UpdateRootWorld(ch, pose);
  if (TeleportVerdict(c)) {
    ResetChain(c, pose);
    rep.flags |= kStepTeleportReset;
    ++rep.teleports;
    return false;
  }
  if (ch.center >= 0 && config_.mode != SolverMode::kVrm) FollowCenter(c);
  if (ChainIsFlat(c, pose, check_pose)) return true;
  flat_[c].pending = 0;
  world_lazy_[c] = 0;    // the general path writes its joints' world matrices
  driven_rest_ = false;  // and their rotations into the pose
  if (config_.mode == SolverMode::kVrm)
    SolveChainVrm(c, pose, h, variable, rep);
  else
    SolveChainArc(c, pose, h, rep);
  return false;
}

bool SpringWorld::BeginPlainGroup(const LaneGroup& group) {
  // BeginChain for each chain of a plain group (group_plain_: every chain flat-capable, none
  // with a center node) on the driven input, in one loop: each root's world matrix from its
  // rest local one, the teleport verdict, the similarity of the root's parent. False as soon as
  // a chain teleported or its parent's matrix is no similarity: Solve then begins the chains
  // one by one, which computes the same matrices and verdicts again and acts on them. True:
  // every chain goes flat.
  for (int i = 0; i < group.n; ++i) {
    const int c = group.chains[group.order[i]];
    UpdateNodeWorld(rig_->joint_node()[rig_->chains()[c].joint_begin], root_local_[c]);
    if (TeleportVerdict(c) || !ChainIsFlat(c, {}, false)) return false;
  }
  return true;
}

inline bool SpringWorld::TeleportVerdict(int c) {
  const int shared = teleport_rep_[c];
  teleported_[c] = shared == c ? CheckTeleport(c) : teleported_[shared];
  return teleported_[c];
}

void SpringWorld::FollowCenter(int chain) {
  const RigChain& ch = rig_->chains()[chain];
  const glm::mat4& now = world_[ch.center];
  if (now == prev_center_[chain]) return;
  const glm::mat4 d = now * glm::inverse(prev_center_[chain]);
  prev_center_[chain] = now;
  for (int c = 0; c < 4; ++c)  // a degenerate center (zero scale): the hair stays in the world
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(d[c][r])) return;
  const glm::mat3 turn(d);
  for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j) {
    tail_[j] = glm::vec3(d * glm::vec4(tail_[j], 1.0f));
    prev_target_[j] = glm::vec3(d * glm::vec4(prev_target_[j], 1.0f));
    vel_[j] = turn * vel_[j];
  }
}

inline void SpringWorld::EndChain(int chain) {
  const RigChain& ch = rig_->chains()[chain];
  if (teleport_rep_[chain] == chain) {  // the only ones whose attachment CheckTeleport reads
    prev_attach_[chain] = ch.attach >= 0 ? world_[ch.attach] : glm::mat4(1.0f);
    has_prev_attach_[chain] = 1;
  }
  prev_root_[chain] = glm::vec3(world_[rig_->joint_node()[ch.joint_begin]][3]);
}

namespace {
bool MatricesFinite(std::span<const glm::mat4> m) {
  // x - x is 0 for a finite x and NaN for an infinite or NaN one, and a sum with a NaN stays NaN:
  // one test at the end instead of a branch per element (this runs on every step's input).
  glm::vec4 acc(0.0f);
  for (const glm::mat4& x : m)
    for (int c = 0; c < 4; ++c) acc += x[c] - x[c];
  return acc.x == 0.0f && acc.y == 0.0f && acc.z == 0.0f && acc.w == 0.0f;
}
}  // namespace

void SpringWorld::SetDriverWorld(std::span<const glm::mat4> driver_world) {
  HS_ASSERT(driver_world.size() == driver_nodes_.size());
  for (size_t i = 0; i < driver_nodes_.size(); ++i) world_[driver_nodes_[i]] = driver_world[i];
}

void SpringWorld::ResetDriven(std::span<const glm::mat4> driver_world) {
  const Rig& rig = *rig_;
  for (int node : rig.joint_node()) driven_pose_[node] = rig.rest_local()[node];
  SetDriverWorld(driver_world);
  for (int c = 0; c < static_cast<int>(rig.chains().size()); ++c) ResetChain(c, driven_pose_);
  driven_rest_ = false;
}

StepReport SpringWorld::StepDriven(std::span<const glm::mat4> driver_world,
                                   std::span<glm::quat> rotations) noexcept {
  return RunDriven(driver_world, rotations, static_cast<float>(kStep), false, true);
}

StepReport SpringWorld::StepDrivenDeferred(std::span<const glm::mat4> driver_world,
                                           std::span<glm::quat> rotations) {
  return RunDriven(driver_world, rotations, static_cast<float>(kStep), false, false);
}

void SpringWorld::WriteBackDriven(std::span<glm::quat> rotations) {
  const Rig& rig = *rig_;
  HS_ASSERT(rotations.size() == rig.joint_node().size());
  WriteBack(driven_pose_, false);  // the joints' world matrices when world() is read
  driven_rest_ = false;
  for (size_t j = 0; j < rotations.size(); ++j)
    rotations[j] = driven_pose_[rig.joint_node()[j]].rotation;
}

StepReport SpringWorld::StepDrivenVariable(std::span<const glm::mat4> driver_world,
                                           std::span<glm::quat> rotations, float dt) noexcept {
  HS_ASSERT(config_.mode == SolverMode::kVrm);
  return RunDriven(driver_world, rotations, dt, true, true);
}

StepReport SpringWorld::RunDriven(std::span<const glm::mat4> driver_world,
                                  std::span<glm::quat> rotations, float h, bool variable,
                                  bool write) {
  StepReport rep;
  const Rig& rig = *rig_;
  HS_ASSERT(rotations.size() == rig.joint_node().size());
  if (!MatricesFinite(driver_world) || std::isnan(h) || std::isinf(h)) {
    rep.flags |= kStepRefusedNonFinite;
    return rep;
  }
  if (!(h > 0.0f)) {
    rep.flags |= kStepZeroDt;
    return rep;
  }
  if (config_.mode == SolverMode::kVrm && config_.vrm_three_compat) {
    SetDriverWorld(driver_world);
    ComputeStaleChildren(driven_pose_, false);
    driven_rest_ = false;
  }
  // As PrepareWorld: every joint starts from its rest rotation unless the clip owns it (the
  // second step of a frame finds them so, unless the first took the general path).
  if (!driven_rest_ || !owned_.empty()) {
    for (size_t j = 0; j < rotations.size(); ++j) {
      const int node = rig.joint_node()[j];
      driven_pose_[node].rotation =
          owned_.empty() || !owned_[node] ? rig.rest_local()[node].rotation : rotations[j];
    }
    driven_rest_ = owned_.empty();
  }
  SetDriverWorld(driver_world);
  rep = Solve(driven_pose_, h, variable, false, rep);
  if (write) WriteBackDriven(rotations);
  return rep;
}

void SpringWorld::UpdateRootWorld(const RigChain& ch, std::span<const Transform> pose) {
  const int node = rig_->joint_node()[ch.joint_begin];
  UpdateNodeWorld(node, pose[node]);
}

void SpringWorld::UpdateNodeWorld(int node, const Transform& local) {
  UpdateNodeWorld(node, ToMatrix(local));
}

inline void SpringWorld::UpdateNodeWorld(int node, const glm::mat4& local) {
  const int parent = rig_->parent()[node];
  if (parent >= 0)
    internal::MulAffineTo(world_[parent], local, &world_[node]);
  else
    world_[node] = local;
}

StepReport SpringWorld::Step(std::span<Transform> pose) noexcept {
  return Run(pose, static_cast<float>(kStep), false, true);
}

StepReport SpringWorld::StepDeferred(std::span<Transform> pose) {
  return Run(pose, static_cast<float>(kStep), false, false);
}

StepReport SpringWorld::StepVariable(std::span<Transform> pose, float dt) noexcept {
  HS_ASSERT(config_.mode == SolverMode::kVrm);
  return Run(pose, dt, true, true);
}

uint64_t SpringWorld::StateHash() const {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ull;
    }
  };
  // x, y and z of each point in order (not the padding of PaddedVec3).
  for (const auto* state : {&tail_, &vel_, &vrm_cur_, &vrm_prev_})
    for (const PaddedVec3& v : *state) mix(&v.x, sizeof(glm::vec3));
  return h;
}

}  // namespace hairswing
