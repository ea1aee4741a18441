// Baking hair motion into clips: see include/hairswing/bake.h for what is computed and why.
#include "hairswing/bake.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/det_math.h"
#include "hairswing/motion.h"
#include "hairswing/stats.h"

namespace hairswing {
namespace {

// Angle between two rotations in degrees (deterministic: atan2 of the half-angle's sine and
// cosine, the same bits on every platform).
double AngleDeg(const glm::quat& a, const glm::quat& b) {
  const glm::quat d = glm::conjugate(a) * b;
  const double s = std::sqrt(static_cast<double>(d.x) * d.x + static_cast<double>(d.y) * d.y +
                             static_cast<double>(d.z) * d.z);
  return 2.0 * det::Atan2(s, std::fabs(static_cast<double>(d.w))) *
         (180.0 / 3.14159265358979323846);
}

// One joint's rotation track: samples at shared times, and the keys a reduction kept.
struct JointTrack {
  std::vector<glm::quat> q;  // per frame
  std::vector<int> kept;     // frame indices, first and last always kept

  // The reduced track at frame i (slerp between the kept keys around it).
  glm::quat At(const std::vector<double>& t, size_t i, size_t* seg) const {
    while (*seg + 1 < kept.size() && static_cast<size_t>(kept[*seg + 1]) < i) ++*seg;
    const int a = kept[*seg];
    if (static_cast<size_t>(a) == i || *seg + 1 >= kept.size()) return q[a];
    const int b = kept[*seg + 1];
    if (static_cast<size_t>(b) == i) return q[b];
    const float u = static_cast<float>((t[i] - t[a]) / (t[b] - t[a]));
    return glm::normalize(det::Slerp(q[a], q[b], u));
  }
};

// The longest stretch between two kept keys, in frames (8.5 s at 30 keys/s). Without a bound the
// greedy search below costs the square of a still stretch's length (a 4-minute clip of still hair
// took 83 s, an hour would take hours); with it, bake time grows linearly with clip length, for
// at most one extra key per 256 frames of hair that does not move.
constexpr int kMaxKeySpan = 256;

// Greedy reduction: from each kept key, reach as far as slerp to a later key reproduces every
// frame in between within max_deg (and at most kMaxKeySpan frames).
std::vector<int> Reduce(const std::vector<double>& t, const std::vector<glm::quat>& q,
                        double max_deg) {
  const int m = static_cast<int>(q.size());
  std::vector<int> kept{0};
  if (m <= 1) return kept;
  if (max_deg <= 0.0) {
    for (int i = 1; i < m; ++i) kept.push_back(i);
    return kept;
  }
  auto fits = [&](int a, int c) {
    for (int i = a + 1; i < c; ++i) {
      const float u = static_cast<float>((t[i] - t[a]) / (t[c] - t[a]));
      if (AngleDeg(glm::normalize(det::Slerp(q[a], q[c], u)), q[i]) > max_deg) return false;
    }
    return true;
  };
  int a = 0;
  while (a < m - 1) {
    int b = a + 1;
    while (b + 1 < m && b + 1 - a <= kMaxKeySpan && fits(a, b + 1)) ++b;
    kept.push_back(b);
    a = b;
  }
  return kept;
}

// A loop that ends on `end` where it started on `start`: the rotation to spread over it (shortest
// way), and a rotation at loop fraction u with its share of it applied, so u = 1 gives `start`.
glm::quat LoopMismatch(const glm::quat& start, const glm::quat& end) {
  const glm::quat d = start * glm::conjugate(end);
  return d.w < 0.0f ? -d : d;
}
glm::quat SpreadMismatch(const glm::quat& d, float u, const glm::quat& q) {
  return glm::normalize(det::Slerp(glm::quat(1, 0, 0, 0), d, u) * q);
}

// The body clip made to close: each track's mismatch between its value at T and at 0 is spread
// over the loop, growing linearly from nothing at 0 to the whole mismatch at T, so the pose at T
// is the pose at 0 (rotations by slerp of the difference; cubic keys move with their values).
Clip CloseLoop(const Clip& body) {
  Clip out = body;
  const double T = body.duration;
  for (Track& tr : out.tracks) {
    if (tr.path == AnimationChannel::Path::kWeights || tr.times.empty()) continue;
    const bool rot = tr.path == AnimationChannel::Path::kRotation;
    const int comps = rot ? 4 : 3;
    const bool cubic = tr.interpolation == AnimationChannel::Interp::kCubicSpline;
    float a[4] = {0, 0, 0, 1}, b[4] = {0, 0, 0, 1};
    SampleTrack(tr, 0.0, a);
    SampleTrack(tr, T, b);
    const glm::quat d =
        rot ? LoopMismatch(glm::quat(a[3], a[0], a[1], a[2]), glm::quat(b[3], b[0], b[1], b[2]))
            : glm::quat(1, 0, 0, 0);
    for (size_t k = 0; k < tr.times.size(); ++k) {
      const float u = static_cast<float>(std::clamp(tr.times[k] / T, 0.0, 1.0));
      float* v =
          tr.values.data() + (cubic ? 3 * k + 1 : k) * comps;  // cubic: the value, not tangents
      if (rot) {
        const glm::quat q = SpreadMismatch(d, u, glm::quat(v[3], v[0], v[1], v[2]));
        v[0] = q.x;
        v[1] = q.y;
        v[2] = q.z;
        v[3] = q.w;
      } else {
        for (int c = 0; c < 3; ++c) v[c] += u * (a[c] - b[c]);
      }
    }
  }
  return out;
}

// The largest node distance between a clip's pose at its end and at its start (metres).
double BodySeam(const Rig& rig, const Clip& clip) {
  std::vector<Transform> p0(rig.rest_local().begin(), rig.rest_local().end()), p1 = p0;
  clip.Apply(0.0, p0);
  clip.Apply(clip.duration, p1);
  std::vector<glm::mat4> w0(rig.node_count()), w1(rig.node_count());
  ComputeWorld(rig, p0, w0);
  ComputeWorld(rig, p1, w1);
  double worst = 0.0;
  for (size_t n = 0; n < rig.node_count(); ++n)
    worst = std::max(worst,
                     static_cast<double>(glm::length(glm::vec3(w1[n][3]) - glm::vec3(w0[n][3]))));
  return worst;
}

}  // namespace

Result<BakedClip> BakeClip(const Rig& rig, const Clip& source,
                           std::span<const RigConstraint> constraints, const BakeOptions& opt) {
  const auto started = std::chrono::steady_clock::now();
  if (!(opt.rate >= 1.0 && opt.rate <= 240.0))
    return Status(StatusCode::kInvalidInput, "bake: rate must be in [1, 240] keys per second");
  if (!(opt.max_error_deg >= 0.0f) || !(opt.max_error_m > 0.0f) || !(opt.settle_seconds >= 0.0) ||
      opt.settle_seconds > 3600.0 || opt.max_cycles < 1 || !(opt.periodic_tolerance_m > 0.0f))
    return Status(StatusCode::kInvalidInput, "bake: an option is out of range");
  if (rig.chains().empty())
    return Status(StatusCode::kInvalidInput, "the avatar has no springs to bake");
  const double T = source.duration;
  if (opt.cyclic && !(T > 0.0))
    return Status(StatusCode::kInvalidInput,
                  "clip \"" + source.name +
                      "\" has no duration: a single pose cannot loop (bake it one-shot)");
  if (!(T >= 0.0) || T > 3600.0)
    return Status(StatusCode::kInvalidInput, "clip \"" + source.name + "\": duration out of range");
  // A cyclic bake plays (and writes) the body clip closed, if asked (the default).
  const Clip body = opt.cyclic && opt.close_body_loop ? CloseLoop(source) : source;

  auto world = SpringWorld::Create(rig, opt.spring);
  if (!world.ok()) return world.status();
  world->SetOwnedNodes(body.AnimatedNodes(rig.node_count()));
  ClipSampler sampler(rig, body, std::vector<RigConstraint>(constraints.begin(), constraints.end()),
                      ClipSampler::Playback::kOnce);
  const size_t nn = rig.node_count();
  const size_t nj = rig.joint_node().size();
  const double h = SpringWorld::kStep;
  std::vector<Transform> pose(rig.rest_local().begin(), rig.rest_local().end());

  // Recorded frames: clip time and every joint's local rotation.
  std::vector<double> times;
  std::vector<glm::quat> rot;  // frames x joints
  auto record = [&](double t) {
    times.push_back(t);
    for (size_t j = 0; j < nj; ++j) rot.push_back(pose[rig.joint_node()[j]].rotation);
  };

  BakedClip out;
  BakeReport& rep = out.report;
  rep.clip = body.name;
  rep.cyclic = opt.cyclic;
  if (opt.cyclic) {
    const long n = std::max(1L, std::lround(T / h));
    const double tau = T / static_cast<double>(n);  // clip seconds per step
    auto run_to = [&](long from, long to) {
      for (long k = from + 1; k <= to; ++k) {
        sampler.Sample(static_cast<double>(k) * tau, pose);
        world->Step(pose);
      }
    };
    sampler.Sample(0.0, pose);
    world->Reset(pose);
    rep.settle_before_s = SettleUnderGravity(*world, sampler, pose);  // hair with gravity hangs
    std::vector<glm::vec3> prev_t(world->tails().begin(), world->tails().end());
    std::vector<glm::vec3> prev_v(world->velocities().begin(), world->velocities().end());
    rep.cycles_to_periodic = -1;
    for (int c = 1; c <= opt.max_cycles; ++c) {
      run_to(0, n);
      float dp = 0.0f, dv = 0.0f;
      for (size_t j = 0; j < nj; ++j) {
        dp = std::max(dp, glm::length(world->tails()[j] - prev_t[j]));
        dv = std::max(dv, glm::length(world->velocities()[j] - prev_v[j]));
        prev_t[j] = world->tails()[j];
        prev_v[j] = world->velocities()[j];
      }
      if (dp <= opt.periodic_tolerance_m &&
          dv * static_cast<float>(h) <= opt.periodic_tolerance_m) {
        rep.cycles_to_periodic = c;
        break;
      }
    }
    // One more loop, recorded: frame f at step round(f n / F); frame F closes the loop.
    const long frames = std::max(1L, std::lround(T * opt.rate));
    record(0.0);
    long k = 0;
    for (long f = 1; f <= frames; ++f) {
      const long kf = std::lround(static_cast<double>(f) * static_cast<double>(n) /
                                  static_cast<double>(frames));
      run_to(k, kf);
      k = kf;
      record(f == frames ? T : static_cast<double>(k) * tau);
    }
  } else {
    const double total = T + opt.settle_seconds;
    // (1e-6: 0.8333 s at 30 keys/s is 25.000000000000004 frames, not 26)
    const long frames = std::max(1L, static_cast<long>(std::ceil(total * opt.rate - 1e-6)));
    sampler.Sample(0.0, pose);
    world->Reset(pose);
    // Hair with gravity starts where it hangs, not falling from the rest pose.
    rep.settle_before_s = SettleUnderGravity(*world, sampler, pose);
    record(0.0);
    long k = 0;
    for (long f = 1; f <= frames; ++f) {
      const long kf = std::lround(std::min(static_cast<double>(f) / opt.rate, total) / h);
      for (; k < kf;) {
        ++k;
        sampler.Sample(std::min(static_cast<double>(k) * h, T), pose);
        world->Step(pose);
      }
      if (kf > 0 && static_cast<double>(k) * h <= times.back()) continue;  // no duplicate key
      record(static_cast<double>(k) * h);
    }
  }
  const size_t nf = times.size();
  rep.frames = static_cast<int>(nf);

  // Body pose per frame, and joint world positions for a set of joint rotations.
  std::vector<Transform> frame_pose(nf * nn);
  for (size_t f = 0; f < nf; ++f) {
    sampler.Sample(std::min(times[f], T), pose);
    std::copy(pose.begin(), pose.end(), frame_pose.begin() + static_cast<std::ptrdiff_t>(f * nn));
  }
  // Each joint's chain attachment (its root's parent), whose frame the seam figures use: the
  // body clip itself may not close (UAL's Jog_Fwd_Loop ends 30 mm from where it starts), and the
  // hair's seam is what the hair adds to that.
  std::vector<int> attach_of(nj, -1);
  for (const RigChain& ch : rig.chains())
    for (int j = ch.joint_begin; j < ch.joint_end; ++j) attach_of[j] = ch.attach;
  std::vector<glm::mat4> world_m(nn);
  // Joint world positions (p) and positions in the attachment's frame (rel, may be null).
  auto positions = [&](size_t f, auto rotation_of, glm::vec3* p, glm::vec3* rel) {
    std::copy_n(frame_pose.begin() + static_cast<std::ptrdiff_t>(f * nn), nn, pose.begin());
    for (size_t j = 0; j < nj; ++j) pose[rig.joint_node()[j]].rotation = rotation_of(j);
    ComputeWorld(rig, pose, world_m);
    int inverted = -2;  // a chain's joints are consecutive: one inverse per chain and frame
    glm::mat4 attach_inv(1.0f);
    for (size_t j = 0; j < nj; ++j) {
      p[j] = glm::vec3(world_m[rig.joint_node()[j]][3]);
      if (!rel) continue;
      if (attach_of[j] != inverted) {
        inverted = attach_of[j];
        if (inverted >= 0) attach_inv = glm::inverse(world_m[inverted]);
      }
      rel[j] = inverted < 0 ? p[j] : glm::vec3(attach_inv * glm::vec4(p[j], 1));
    }
  };
  if (opt.cyclic) rep.body_seam_mm = 1000.0 * BodySeam(rig, source);
  out.reference_times = times;
  out.reference_positions.resize(nf * nj);
  std::vector<glm::vec3> sim_rel(nf * nj);
  for (size_t f = 0; f < nf; ++f)
    positions(
        f, [&](size_t j) { return rot[f * nj + j]; }, &out.reference_positions[f * nj],
        &sim_rel[f * nj]);

  // The joints that get a track: every segment start (a chain's last joint only ends a segment)
  // that the clip does not animate itself.
  std::vector<uint8_t> animated = body.AnimatedNodes(nn);
  std::vector<int> track_joint;
  std::vector<int> chain_of(nj, -1);
  for (size_t c = 0; c < rig.chains().size(); ++c) {
    const RigChain& ch = rig.chains()[c];
    for (int j = ch.joint_begin; j < ch.joint_end; ++j) chain_of[j] = static_cast<int>(c);
    for (int j = ch.joint_begin; j + 1 < ch.joint_end; ++j)
      if (!animated[rig.joint_node()[j]]) track_joint.push_back(j);
  }
  std::vector<JointTrack> tracks(nj);
  for (size_t j = 0; j < nj; ++j) {
    tracks[j].q.resize(nf);
    for (size_t f = 0; f < nf; ++f) tracks[j].q[f] = rot[f * nj + j];
  }

  // Cyclic: spread the seam's mismatch over the loop so that the last key equals the first.
  if (opt.cyclic) {
    for (size_t j = 0; j < nj; ++j)
      rep.seam_position_mm = std::max(
          rep.seam_position_mm, 1000.0 * glm::length(sim_rel[(nf - 1) * nj + j] - sim_rel[j]));
    for (int j : track_joint) {
      std::vector<glm::quat>& q = tracks[j].q;
      const glm::quat d = LoopMismatch(q[0], q[nf - 1]);
      for (size_t f = 0; f < nf; ++f)
        q[f] = SpreadMismatch(d, static_cast<float>(times[f] / T), q[f]);
      q[nf - 1] = q[0];
    }
  }

  // How unevenly the hair turns: the error of dropping each interior key alone, median.
  {
    std::vector<double> drop;
    drop.reserve(track_joint.size() * (nf > 2 ? nf - 2 : 0));
    for (int j : track_joint)
      for (size_t f = 1; f + 1 < nf; ++f)
        drop.push_back(AngleDeg(
            glm::normalize(det::Slerp(
                tracks[j].q[f - 1], tracks[j].q[f + 1],
                static_cast<float>((times[f] - times[f - 1]) / (times[f + 1] - times[f - 1])))),
            tracks[j].q[f]));
    if (!drop.empty()) {
      std::nth_element(drop.begin(), drop.begin() + static_cast<std::ptrdiff_t>(drop.size() / 2),
                       drop.end());
      rep.key_drop_median_deg = drop[drop.size() / 2];
    }
  }

  // Reduction, per chain: halve the angle bound until every joint position is within bound.
  std::vector<glm::vec3> full(nf * nj), reduced(nf * nj), reduced_rel(nf * nj);
  for (size_t f = 0; f < nf; ++f)
    positions(
        f, [&](size_t j) { return tracks[j].q[f]; }, &full[f * nj], nullptr);
  std::vector<double> bound(rig.chains().size(), opt.max_error_deg);
  std::vector<uint8_t> redo(rig.chains().size(), 1);
  for (int iteration = 0; iteration < 12; ++iteration) {
    for (int j : track_joint)
      if (redo[chain_of[j]]) tracks[j].kept = Reduce(times, tracks[j].q, bound[chain_of[j]]);
    std::vector<size_t> seg(nj, 0);
    std::vector<double> err(rig.chains().size(), 0.0);
    for (size_t f = 0; f < nf; ++f) {
      positions(
          f,
          [&](size_t j) {
            return tracks[j].kept.empty() ? tracks[j].q[f] : tracks[j].At(times, f, &seg[j]);
          },
          &reduced[f * nj], &reduced_rel[f * nj]);
      for (size_t j = 0; j < nj; ++j)
        err[chain_of[j]] =
            std::max(err[chain_of[j]],
                     static_cast<double>(glm::length(reduced[f * nj + j] - full[f * nj + j])));
    }
    bool again = false;
    for (size_t c = 0; c < err.size(); ++c) {
      redo[c] = err[c] > opt.max_error_m;
      if (!redo[c]) continue;
      again = true;
      bound[c] = bound[c] > 1e-4 ? bound[c] / 2 : 0.0;  // at last: keep every key
    }
    if (!again) break;
  }
  rep.keys_before = track_joint.size() * nf;
  for (int j : track_joint) {
    rep.keys_after += tracks[j].kept.size();
    size_t s = 0;
    for (size_t f = 0; f < nf; ++f)
      rep.reduction_error_deg =
          std::max(rep.reduction_error_deg, AngleDeg(tracks[j].At(times, f, &s), tracks[j].q[f]));
  }
  for (size_t i = 0; i < nf * nj; ++i)
    rep.reduction_error_mm =
        std::max(rep.reduction_error_mm, 1000.0 * glm::length(reduced[i] - full[i]));

  // Seam figures on the written tracks. A jump is visible against how far the joints move per
  // frame on screen (world), and the hair's own jump is its change of step in its attachment's
  // frame (the body clip's own seam, if any, is body_seam_mm): the change of a joint's step
  // across the seam (frame F-1 -> F = 0 -> 1) and, for comparison, inside the clip, over the
  // median world frame-to-frame step of all joints.
  if (nf >= 3) {
    std::vector<double> steps;
    for (size_t f = 0; f + 1 < nf; ++f)
      for (size_t j = 0; j < nj; ++j)
        steps.push_back(glm::length(reduced[(f + 1) * nj + j] - reduced[f * nj + j]));
    const double median = QuantileInPlace(steps, 0.5);
    rep.median_step_mm = 1000.0 * median;
    const std::vector<glm::vec3>& r = reduced_rel;
    double seam = 0.0, interior = 0.0;
    for (size_t j = 0; j < nj; ++j) {
      auto step = [&](size_t f) { return r[(f + 1) * nj + j] - r[f * nj + j]; };
      if (opt.cyclic)
        seam = std::max(seam, static_cast<double>(glm::length(step(0) - step(nf - 2))));
      for (size_t f = 1; f + 1 < nf; ++f)
        interior = std::max(interior, static_cast<double>(glm::length(step(f) - step(f - 1))));
    }
    if (median > 1e-5) {  // 0.01 mm: below that nothing moves and ratios mean nothing
      rep.seam_velocity_ratio = seam / median;
      rep.interior_velocity_ratio = interior / median;
    }
  }

  // The written clip: the body's tracks, then the hair's.
  out.clip = body;
  for (int j : track_joint) {
    Track tr;
    tr.node = rig.joint_node()[j];
    tr.path = AnimationChannel::Path::kRotation;
    tr.interpolation = AnimationChannel::Interp::kLinear;
    for (int f : tracks[j].kept) {
      tr.times.push_back(static_cast<float>(times[f]));
      const glm::quat& q = tracks[j].q[f];
      tr.values.insert(tr.values.end(), {q.x, q.y, q.z, q.w});
    }
    out.clip.tracks.push_back(std::move(tr));
  }
  out.clip.duration = std::max(T, times.back());
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace hairswing
