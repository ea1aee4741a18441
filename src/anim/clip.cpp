// Clip sampling (glTF 2.0 animation semantics) and the clip pose sampler.
#include <algorithm>
#include <cmath>

#include "core/det_math.h"
#include "hairswing/anim.h"

namespace hairswing {

namespace {
// Track (rig nodes) and AnimationChannel (Avatar nodes) carry the same keys; the conversions in
// both directions copy them here.
template <typename From, typename To>
void CopyKeys(const From& from, To& to) {
  to.path = from.path;
  to.interpolation = from.interpolation;
  to.times = from.times;
  to.values = from.values;
}
}  // namespace

Result<Clip> Clip::FromAvatar(const Avatar& av, const Rig& rig, int index) {
  if (index < 0 || index >= static_cast<int>(av.animations.size()))
    return Status(StatusCode::kInvalidInput,
                  "animation " + std::to_string(index) + " does not exist");
  const Animation& a = av.animations[index];
  Clip c;
  c.name = a.name;
  for (const AnimationChannel& ch : a.channels) {
    if (ch.path == AnimationChannel::Path::kWeights || ch.times.empty()) continue;
    if (ch.node < 0 || ch.node >= static_cast<int>(rig.node_to_rig().size()))
      return Status(StatusCode::kInvalidInput,
                    "animation \"" + a.name + "\": channel node out of range");
    Track t;
    t.node = rig.node_to_rig()[ch.node];
    CopyKeys(ch, t);
    c.duration = std::max(c.duration, static_cast<double>(ch.times.back()));
    c.tracks.push_back(std::move(t));
  }
  return c;
}

Animation ClipToAnimation(const Clip& clip, const Rig& rig) {
  Animation a;
  a.name = clip.name;
  for (const Track& t : clip.tracks) {
    if (t.node < 0 || rig.source_node()[t.node] < 0) continue;
    AnimationChannel ch;
    ch.node = rig.source_node()[t.node];
    CopyKeys(t, ch);
    ch.components = t.path == AnimationChannel::Path::kRotation ? 4 : 3;
    a.channels.push_back(std::move(ch));
  }
  return a;
}

void SampleTrack(const Track& tr, double t, float* out) {
  const int comps = tr.path == AnimationChannel::Path::kRotation ? 4 : 3;
  const bool cubic = tr.interpolation == AnimationChannel::Interp::kCubicSpline;
  const int stride = cubic ? 3 * comps : comps;
  const int value_offset = cubic ? comps : 0;  // cubic keys: in-tangent, value, out-tangent
  const size_t n = tr.times.size();
  auto value = [&](size_t k, int c) { return tr.values[k * stride + value_offset + c]; };
  // Compare in the keys' own precision: a double just below the last key can round up to it.
  const float tf = static_cast<float>(t);
  if (tf <= tr.times.front() || n == 1) {
    for (int c = 0; c < comps; ++c) out[c] = value(0, c);
    return;
  }
  if (tf >= tr.times.back()) {
    for (int c = 0; c < comps; ++c) out[c] = value(n - 1, c);
    return;
  }
  const size_t k1 =
      std::min(n - 1, static_cast<size_t>(std::upper_bound(tr.times.begin(), tr.times.end(), tf) -
                                          tr.times.begin()));
  const size_t k0 = k1 - 1;
  const double t0 = tr.times[k0], t1 = tr.times[k1];
  const double dt = t1 - t0;
  const float s = dt > 0 ? static_cast<float>((t - t0) / dt) : 0.0f;
  if (tr.interpolation == AnimationChannel::Interp::kStep) {
    for (int c = 0; c < comps; ++c) out[c] = value(k0, c);
    return;
  }
  if (cubic) {
    // p(s) = (2s^3-3s^2+1) v0 + (s^3-2s^2+s) dt b0 + (-2s^3+3s^2) v1 + (s^3-s^2) dt a1
    const float s2 = s * s, s3 = s2 * s;
    const float h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
                h11 = s3 - s2;
    for (int c = 0; c < comps; ++c) {
      const float v0 = value(k0, c), v1 = value(k1, c);
      const float b0 = tr.values[static_cast<size_t>(k0) * stride + static_cast<size_t>(2 * comps) +
                                 c];                                     // out-tangent of k0
      const float a1 = tr.values[static_cast<size_t>(k1) * stride + c];  // in-tangent of k1
      out[c] = h00 * v0 + h10 * static_cast<float>(dt) * b0 + h01 * v1 +
               h11 * static_cast<float>(dt) * a1;
    }
    if (comps == 4) {
      const float l =
          std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
      if (l > 0)
        for (int c = 0; c < 4; ++c) out[c] /= l;
    }
    return;
  }
  if (comps == 4) {
    glm::quat q0(value(k0, 3), value(k0, 0), value(k0, 1), value(k0, 2));
    glm::quat q1(value(k1, 3), value(k1, 0), value(k1, 1), value(k1, 2));
    if (glm::dot(q0, q1) < 0) q1 = -q1;
    const glm::quat q = glm::normalize(det::Slerp(q0, q1, s));
    out[0] = q.x;
    out[1] = q.y;
    out[2] = q.z;
    out[3] = q.w;
    return;
  }
  for (int c = 0; c < comps; ++c) out[c] = value(k0, c) + (value(k1, c) - value(k0, c)) * s;
}

void Clip::Apply(double t, std::span<Transform> pose) const {
  float v[4];
  for (const Track& tr : tracks) {
    SampleTrack(tr, std::clamp(t, 0.0, duration), v);
    Transform& x = pose[tr.node];
    switch (tr.path) {
      case AnimationChannel::Path::kTranslation:
        x.translation = {v[0], v[1], v[2]};
        break;
      case AnimationChannel::Path::kRotation:
        x.rotation = glm::quat(v[3], v[0], v[1], v[2]);
        break;
      case AnimationChannel::Path::kScale:
        x.scale = {v[0], v[1], v[2]};
        break;
      default:
        break;
    }
  }
}

std::vector<uint8_t> Clip::AnimatedNodes(size_t node_count) const {
  std::vector<uint8_t> out(node_count, 0);
  for (const Track& tr : tracks)
    if (tr.node >= 0 && tr.node < static_cast<int>(node_count)) out[tr.node] = 1;
  return out;
}

ClipSampler::ClipSampler(const Rig& rig, const Clip& clip, std::vector<RigConstraint> constraints,
                         Playback playback)
    : rig_(&rig),
      clip_(&clip),
      constraints_(std::move(constraints)),
      playback_(playback),
      world_(rig.node_count()) {}

void ClipSampler::Sample(double t, std::span<Transform> pose) {
  std::copy(rig_->rest_local().begin(), rig_->rest_local().end(), pose.begin());
  double local = t - start_;
  if (local < 0) local = 0;
  if (playback_ == Playback::kLoop && clip_->duration > 0)
    local = std::fmod(local, clip_->duration);
  clip_->Apply(local, pose);
  if (!constraints_.empty()) ApplyConstraints(*rig_, constraints_, pose, world_);
}

}  // namespace hairswing
