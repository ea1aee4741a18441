// The C API (include/hairswing/hairswing.h) over the C++ library: handles own the C++ objects,
// every entry point checks its pointers and catches everything, failures set a per-thread
// message. The engine-facing calls copy the caller's flat float arrays into the world's own
// buffers (sized at hs_world_create), so a frame allocates nothing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "hairswing/anim.h"
#include "hairswing/hairswing.h"
#include "hairswing/io.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"

struct hs_avatar {
  hairswing::Avatar avatar;
  hairswing::Rig rig;
};

struct hs_world {
  hs_world(const hs_avatar* a, hairswing::SpringWorld w)
      : avatar(a), world(std::move(w)), driver(world) {}
  const hs_avatar* avatar;
  hairswing::SpringWorld world;
  hairswing::DrivenFrameDriver driver;  // points at `world`; an hs_world never moves
  std::vector<int32_t> driver_nodes, joint_nodes;
  std::vector<glm::mat4> drivers;
  std::vector<glm::quat> rotations;
  std::vector<hairswing::Transform> pose;
};

namespace {

using hairswing::Transform;

// The C enums are the C++ ones by value (the API casts between them).
static_assert(static_cast<int>(hairswing::ColliderShape::kSphere) == HS_SHAPE_SPHERE &&
              static_cast<int>(hairswing::ColliderShape::kCapsule) == HS_SHAPE_CAPSULE &&
              static_cast<int>(hairswing::ColliderShape::kInsideSphere) == HS_SHAPE_INSIDE_SPHERE &&
              static_cast<int>(hairswing::ColliderShape::kInsideCapsule) ==
                  HS_SHAPE_INSIDE_CAPSULE &&
              static_cast<int>(hairswing::ColliderShape::kPlane) == HS_SHAPE_PLANE);
static_assert(static_cast<int>(hairswing::JointLimit::Kind::kCone) == 1 &&
              static_cast<int>(hairswing::JointLimit::Kind::kHinge) == 2 &&
              static_cast<int>(hairswing::JointLimit::Kind::kSpherical) == 3);
static_assert(static_cast<int>(hairswing::SolverMode::kArc) == HS_MODE_ARC &&
              static_cast<int>(hairswing::SolverMode::kParent) == HS_MODE_PARENT &&
              static_cast<int>(hairswing::SolverMode::kVrm) == HS_MODE_VRM);

thread_local std::string g_error;

namespace {
// The first `capacity` of `items` into out, their number into *count.
template <typename Ints>
void FillIndices(const Ints& items, int32_t* out, size_t capacity, size_t* count) {
  const size_t n = std::min(capacity, static_cast<size_t>(items.size()));
  for (size_t k = 0; k < n; ++k) out[k] = static_cast<int32_t>(items[k]);
  *count = items.size();
}
}  // namespace

hs_status Fail(hs_status code, std::string message) {
  g_error = hairswing::OneLine(std::move(message));
  return code;
}

hs_status Ok() {
  g_error.clear();
  return HS_OK;
}

// Runs `body` (which returns hs_status) with every C++ exception turned into a status.
template <class Body>
hs_status Guard(Body body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(HS_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return Fail(HS_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return Fail(HS_INTERNAL, "internal error");
  }
}

hs_status FromStatus(const hairswing::Status& st) {
  switch (st.code()) {
    case hairswing::StatusCode::kInvalidInput:
      return Fail(HS_INVALID_INPUT, st.message());
    case hairswing::StatusCode::kUnsupported:
      return Fail(HS_UNSUPPORTED, st.message());
    case hairswing::StatusCode::kIoError:
      return Fail(HS_IO_ERROR, st.message());
    case hairswing::StatusCode::kOk:
      break;
  }
  return Fail(HS_INTERNAL, "internal error: a failed call without a status: " + st.message());
}

bool ValidMode(int m) { return m >= HS_MODE_ARC && m <= HS_MODE_VRM; }

Transform ReadTransform(const float* p) {
  Transform t;
  t.translation = {p[0], p[1], p[2]};
  t.rotation = glm::quat(p[6], p[3], p[4], p[5]);  // glm: (w, x, y, z)
  t.scale = {p[7], p[8], p[9]};
  return t;
}

void WriteTransform(const Transform& t, float* p) {
  const float v[10] = {t.translation.x, t.translation.y, t.translation.z, t.rotation.x,
                       t.rotation.y,    t.rotation.z,    t.rotation.w,    t.scale.x,
                       t.scale.y,       t.scale.z};
  std::memcpy(p, v, sizeof v);
}

void ReadMatrices(const float* src, std::vector<glm::mat4>& dst) {
  std::memcpy(static_cast<void*>(dst.data()), src, dst.size() * sizeof(glm::mat4));
}

void WriteRotations(const std::vector<glm::quat>& q, float* out) {
  for (size_t j = 0; j < q.size(); ++j) {
    out[4 * j + 0] = q[j].x;
    out[4 * j + 1] = q[j].y;
    out[4 * j + 2] = q[j].z;
    out[4 * j + 3] = q[j].w;
  }
}

void WriteReport(const hairswing::StepReport& r, hs_step_report* out) {
  if (!out) return;
  out->flags = r.flags;
  out->steps_run = r.steps_run;
  out->steps_dropped = r.steps_dropped;
  out->teleports = r.teleports;
  out->contacts = r.contacts;
}

hs_status Adopt(hairswing::Result<hairswing::LoadedAvatar> loaded, hs_avatar** out) {
  if (!loaded.ok()) return FromStatus(loaded.status());
  auto av = std::make_unique<hs_avatar>();
  av->avatar = std::move(loaded->avatar);
  auto rig = hairswing::BuildRig(av->avatar);
  if (!rig.ok()) return FromStatus(rig.status());
  av->rig = std::move(rig).value();
  *out = av.release();
  return Ok();
}

}  // namespace

extern "C" {

const char* hs_last_error(void) { return g_error.c_str(); }
const char* hs_version(void) { return "0.1.0"; }

hs_status hs_avatar_load_memory(const uint8_t* bytes, size_t size, const char* name,
                                hs_avatar** out) {
  return Guard([&] {
    if (out) *out = nullptr;
    if (!bytes || !out) return Fail(HS_INVALID_ARGUMENT, "hs_avatar_load_memory: NULL argument");
    const std::string n = name ? name : "memory";
    return Adopt(hairswing::LoadAvatarFromMemory(bytes, size, n, ""), out);
  });
}

hs_status hs_avatar_load_file(const char* path, hs_avatar** out) {
  return Guard([&] {
    if (out) *out = nullptr;
    if (!path || !out) return Fail(HS_INVALID_ARGUMENT, "hs_avatar_load_file: NULL argument");
    return Adopt(hairswing::LoadAvatar(path), out);
  });
}

void hs_avatar_destroy(hs_avatar* avatar) { delete avatar; }

size_t hs_avatar_node_count(const hs_avatar* a) { return a ? a->rig.node_count() : 0; }
int32_t hs_avatar_file_node(const hs_avatar* a, int32_t node) {
  if (!a || node < 0 || static_cast<size_t>(node) >= a->rig.node_count()) return -2;
  return a->rig.source_node()[node];
}
int32_t hs_avatar_axes_flipped(const hs_avatar* a) {
  return a && a->avatar.vrm.version == hairswing::VrmVersion::kV0 ? 1 : 0;
}

int32_t hs_avatar_humanoid_node(const hs_avatar* a, const char* bone) {
  if (!a || !bone) return -1;
  return hairswing::HumanoidRigNode(a->avatar, a->rig, bone);
}

int32_t hs_avatar_node_parent(const hs_avatar* a, int32_t node) {
  if (!a || node < 0 || static_cast<size_t>(node) >= a->rig.node_count()) return -2;
  return a->rig.parent()[node];
}

hs_status hs_avatar_rest_pose(const hs_avatar* a, float* pose10, size_t count) {
  return Guard([&] {
    if (!a || !pose10) return Fail(HS_INVALID_ARGUMENT, "hs_avatar_rest_pose: NULL argument");
    if (count != a->rig.node_count())
      return Fail(HS_INVALID_ARGUMENT, "hs_avatar_rest_pose: count " + std::to_string(count) +
                                           " is not the node count " +
                                           std::to_string(a->rig.node_count()));
    for (size_t n = 0; n < count; ++n) WriteTransform(a->rig.rest_local()[n], pose10 + 10 * n);
    return Ok();
  });
}

hs_status hs_avatar_world_from_pose(const hs_avatar* a, const float* pose10, float* world16,
                                    size_t count) {
  return Guard([&] {
    if (!a || !pose10 || !world16)
      return Fail(HS_INVALID_ARGUMENT, "hs_avatar_world_from_pose: NULL argument");
    if (count != a->rig.node_count())
      return Fail(HS_INVALID_ARGUMENT, "hs_avatar_world_from_pose: count " + std::to_string(count) +
                                           " is not the node count " +
                                           std::to_string(a->rig.node_count()));
    std::vector<Transform> local(count);
    for (size_t n = 0; n < count; ++n) local[n] = ReadTransform(pose10 + 10 * n);
    std::vector<glm::mat4> world(count);
    hairswing::ComputeWorld(a->rig, local, world);
    std::memcpy(world16, static_cast<const void*>(world.data()), count * sizeof(glm::mat4));
    return Ok();
  });
}

size_t hs_avatar_collider_count(const hs_avatar* a) {
  return a ? a->rig.collider_node().size() : 0;
}

hs_status hs_avatar_collider(const hs_avatar* a, size_t index, hs_collider* out) {
  return Guard([&] {
    if (!a || !out) return Fail(HS_INVALID_ARGUMENT, "hs_avatar_collider: NULL argument");
    const hairswing::Rig& r = a->rig;
    if (index >= r.collider_node().size())
      return Fail(HS_INVALID_ARGUMENT,
                  "hs_avatar_collider: index " + std::to_string(index) + " out of range (" +
                      std::to_string(r.collider_node().size()) + " colliders)");
    hs_collider c{};
    c.node = r.collider_node()[index];
    c.shape = static_cast<hs_collider_shape>(r.collider_shape()[index]);
    for (int k = 0; k < 3; ++k) {
      c.offset[k] = r.collider_offset()[index][k];
      c.tail[k] = r.collider_tail()[index][k];
      c.normal[k] = r.collider_normal()[index][k];
    }
    c.radius = r.collider_radius()[index];
    *out = c;
    return Ok();
  });
}

size_t hs_avatar_collider_group_count(const hs_avatar* a) {
  return a ? a->avatar.vrm.collider_groups.size() : 0;
}

const char* hs_avatar_collider_group_name(const hs_avatar* a, size_t group) {
  if (!a || group >= a->avatar.vrm.collider_groups.size()) return nullptr;
  return a->avatar.vrm.collider_groups[group].name.c_str();
}

hs_status hs_avatar_collider_group(const hs_avatar* a, size_t group, int32_t* out, size_t capacity,
                                   size_t* count) {
  return Guard([&] {
    if (!a || !count || (!out && capacity > 0))
      return Fail(HS_INVALID_ARGUMENT, "hs_avatar_collider_group: NULL argument");
    const auto& groups = a->avatar.vrm.collider_groups;
    if (group >= groups.size())
      return Fail(HS_INVALID_ARGUMENT, "hs_avatar_collider_group: group " + std::to_string(group) +
                                           " out of range (" + std::to_string(groups.size()) +
                                           " groups)");
    FillIndices(groups[group].colliders, out, capacity, count);
    return Ok();
  });
}

hs_status hs_head_turn_hash(const hs_avatar* a, hs_mode mode, int32_t fps, uint64_t* out) {
  return Guard([&] {
    if (!a || !out) return Fail(HS_INVALID_ARGUMENT, "hs_head_turn_hash: NULL argument");
    if (!ValidMode(mode)) return Fail(HS_INVALID_ARGUMENT, "hs_head_turn_hash: unknown mode");
    if (fps < 10 || fps > 1000)
      return Fail(HS_INVALID_ARGUMENT,
                  "hs_head_turn_hash: fps " + std::to_string(fps) + " is outside 10..1000");
    auto h = hairswing::HeadTurnHash(a->avatar, static_cast<hairswing::SolverMode>(mode), fps);
    if (!h.ok()) return FromStatus(h.status());
    *out = *h;
    return Ok();
  });
}

void hs_config_init(hs_config* config, size_t size) {
  // Never more than the caller's `size` bytes: a caller built against an older, smaller
  // hs_config gets the fields it has, and one built against a newer header keeps its extra bytes
  // (hs_world_create then refuses that size by name rather than ignore them).
  if (!config || size < sizeof(uint32_t)) return;
  const hairswing::SpringConfig d;
  hs_config c;
  c.struct_size = static_cast<uint32_t>(std::min<size_t>(size, UINT32_MAX));
  c.mode = HS_MODE_ARC;
  c.tuned = d.tuned ? 1 : 0;
  c.arc_liveliness = d.arc_liveliness;
  c.stiffness_scale = d.stiffness_scale;
  c.vrm_three_compat = d.vrm_three_compat ? 1 : 0;
  c.teleport_distance = d.teleport_distance;
  c.teleport_angle = d.teleport_angle;
  c.arc_stiffness = d.arc_stiffness;
  c.arc_follow = d.arc_follow;
  std::memcpy(config, &c, std::min(size, sizeof(hs_config)));
}

hs_status hs_config_arc_setting(hs_config* c, const char* name) {
  return Guard([&] {
    if (!c || !name) return Fail(HS_INVALID_ARGUMENT, "hs_config_arc_setting: NULL argument");
    hairswing::SpringConfig s;
    if (!hairswing::ApplyArcSetting(name, &s))
      return Fail(HS_INVALID_ARGUMENT, std::string("hs_config_arc_setting: unknown setting \"") +
                                           name + "\" (article, lively or follow)");
    c->arc_liveliness = s.arc_liveliness;
    c->arc_stiffness = s.arc_stiffness;
    c->arc_follow = s.arc_follow;
    return Ok();
  });
}

hs_status hs_world_create(const hs_avatar* a, const hs_config* config, hs_world** out) {
  return Guard([&] {
    if (out) *out = nullptr;
    if (!a || !out) return Fail(HS_INVALID_ARGUMENT, "hs_world_create: NULL argument");
    hs_config c;
    hs_config_default(&c);
    if (config) {
      // The caller's layout, by its size: this version knows one (a later one that adds fields
      // at the end copies the sizes it knows and keeps the defaults of the fields past them).
      const uint32_t size = config->struct_size;
      if (size == 0)
        return Fail(HS_INVALID_ARGUMENT,
                    "hs_world_create: config->struct_size is 0: start from hs_config_default, "
                    "which sets it to sizeof(hs_config)");
      if (size != sizeof(hs_config))
        return Fail(size < sizeof(hs_config) ? HS_INVALID_ARGUMENT : HS_UNSUPPORTED,
                    "hs_world_create: config->struct_size is " + std::to_string(size) +
                        " bytes; this hairswing (" + hs_version() + ") knows hs_config as " +
                        std::to_string(sizeof(hs_config)) +
                        " bytes: rebuild against its hairswing.h");
      c = *config;
    }
    if (!ValidMode(c.mode)) return Fail(HS_INVALID_ARGUMENT, "hs_world_create: unknown mode");
    if (!(c.arc_liveliness >= 0.0f && c.arc_liveliness <= 1.0f))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_create: arc_liveliness must be in [0, 1]");
    if (!(c.stiffness_scale > 0.0f && std::isfinite(c.stiffness_scale)))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_create: stiffness_scale must be positive");
    if (!(c.arc_stiffness > 0.0f && std::isfinite(c.arc_stiffness)))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_create: arc_stiffness must be positive");
    if (!(c.arc_follow >= 0.0f && c.arc_follow <= 1.0f))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_create: arc_follow must be in [0, 1]");
    if (!(c.teleport_distance > 0.0f) || !(c.teleport_angle > 0.0f))
      return Fail(HS_INVALID_ARGUMENT,
                  "hs_world_create: teleport_distance and teleport_angle must be positive");
    hairswing::SpringConfig cfg;
    cfg.mode = static_cast<hairswing::SolverMode>(c.mode);
    cfg.tuned = c.tuned != 0;
    cfg.arc_liveliness = c.arc_liveliness;
    cfg.stiffness_scale = c.stiffness_scale;
    cfg.arc_stiffness = c.arc_stiffness;
    cfg.arc_follow = c.arc_follow;
    cfg.vrm_three_compat = c.vrm_three_compat != 0;
    cfg.teleport_distance = c.teleport_distance;
    cfg.teleport_angle = c.teleport_angle;
    auto w = hairswing::SpringWorld::Create(a->rig, cfg);
    if (!w.ok()) return FromStatus(w.status());
    auto h = std::make_unique<hs_world>(a, std::move(w).value());
    const auto& dn = h->world.driver_nodes();
    h->driver_nodes.assign(dn.begin(), dn.end());
    const auto& jn = a->rig.joint_node();
    h->joint_nodes.assign(jn.begin(), jn.end());
    h->drivers.assign(dn.size(), glm::mat4(1.0f));
    h->rotations.resize(jn.size());
    for (size_t j = 0; j < jn.size(); ++j) h->rotations[j] = a->rig.rest_local()[jn[j]].rotation;
    h->pose.assign(a->rig.rest_local().begin(), a->rig.rest_local().end());
    *out = h.release();
    return Ok();
  });
}

void hs_world_destroy(hs_world* w) { delete w; }

hs_status hs_world_set_mode(hs_world* w, hs_mode mode) {
  return Guard([&] {
    if (!w) return Fail(HS_INVALID_ARGUMENT, "hs_world_set_mode: NULL world");
    if (!ValidMode(mode)) return Fail(HS_INVALID_ARGUMENT, "hs_world_set_mode: unknown mode");
    w->world.SetMode(static_cast<hairswing::SolverMode>(mode));
    return Ok();
  });
}

size_t hs_world_driver_count(const hs_world* w) { return w ? w->driver_nodes.size() : 0; }
const int32_t* hs_world_driver_nodes(const hs_world* w) {
  return w ? w->driver_nodes.data() : nullptr;
}
size_t hs_world_joint_count(const hs_world* w) { return w ? w->joint_nodes.size() : 0; }
const int32_t* hs_world_joint_nodes(const hs_world* w) {
  return w ? w->joint_nodes.data() : nullptr;
}

namespace {
hairswing::SpringWorld::JointSettings FromC(const hs_joint_settings& c) {
  return {c.stiffness, c.drag_force, c.gravity_power,
          glm::vec3(c.gravity_dir[0], c.gravity_dir[1], c.gravity_dir[2]), c.hit_radius};
}
hs_joint_settings ToC(const hairswing::SpringWorld::JointSettings& s) {
  return {s.stiffness,
          s.drag_force,
          s.gravity_power,
          {s.gravity_dir.x, s.gravity_dir.y, s.gravity_dir.z},
          s.hit_radius};
}
bool Same(const hairswing::SpringWorld::JointSettings& a,
          const hairswing::SpringWorld::JointSettings& b) {
  return a.stiffness == b.stiffness && a.drag_force == b.drag_force &&
         a.gravity_power == b.gravity_power && a.gravity_dir == b.gravity_dir &&
         a.hit_radius == b.hit_radius;
}
}  // namespace

hs_status hs_world_joint_settings(const hs_world* w, size_t first, size_t count,
                                  hs_joint_settings* out) {
  return Guard([&] {
    if (!w || (!out && count > 0))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_joint_settings: NULL argument");
    const size_t n = w->joint_nodes.size();
    if (first > n || count > n - first)
      return Fail(HS_INVALID_ARGUMENT, "hs_world_joint_settings: joints " + std::to_string(first) +
                                           ".." + std::to_string(first + count) + " of " +
                                           std::to_string(n));
    for (size_t k = 0; k < count; ++k)
      out[k] = ToC(w->world.joint_settings(static_cast<int>(first + k)));
    return Ok();
  });
}

hs_status hs_world_set_joint_settings(hs_world* w, size_t first, size_t count,
                                      const hs_joint_settings* in) {
  return Guard([&] {
    if (!w || (!in && count > 0))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_set_joint_settings: NULL argument");
    const size_t n = w->joint_nodes.size();
    if (first > n || count > n - first)
      return Fail(HS_INVALID_ARGUMENT,
                  "hs_world_set_joint_settings: joints " + std::to_string(first) + ".." +
                      std::to_string(first + count) + " of " + std::to_string(n));
    // All or nothing: the joints changed so far are put back when one is refused.
    std::vector<std::pair<int, hairswing::SpringWorld::JointSettings>> changed;
    for (size_t k = 0; k < count; ++k) {
      const int j = static_cast<int>(first + k);
      const auto now = w->world.joint_settings(j);
      const auto next = FromC(in[k]);
      if (Same(now, next)) continue;
      if (hairswing::Status st = w->world.SetJointSettings(j, next); !st.ok()) {
        for (auto it = changed.rbegin(); it != changed.rend(); ++it)
          (void)w->world.SetJointSettings(it->first, it->second);
        return Fail(HS_INVALID_ARGUMENT, "hs_world_set_joint_settings: joint " + std::to_string(j) +
                                             ": " + st.message());
      }
      changed.emplace_back(j, now);
    }
    return Ok();
  });
}

namespace {
// The rig chain holding joint j (joints are chain by chain), or nullptr.
const hairswing::RigChain* ChainOfJoint(const hairswing::Rig& rig, size_t j) {
  for (const hairswing::RigChain& ch : rig.chains())
    if (static_cast<int>(j) >= ch.joint_begin && static_cast<int>(j) < ch.joint_end) return &ch;
  return nullptr;
}
}  // namespace

hs_status hs_world_joint_collider_groups(const hs_world* w, size_t joint, int32_t* out,
                                         size_t capacity, size_t* count) {
  return Guard([&] {
    if (!w || !count || (!out && capacity > 0))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_joint_collider_groups: NULL argument");
    const hairswing::RigChain* ch = ChainOfJoint(w->avatar->rig, joint);
    if (joint >= w->joint_nodes.size() || !ch)
      return Fail(HS_INVALID_ARGUMENT, "hs_world_joint_collider_groups: joint " +
                                           std::to_string(joint) + " of " +
                                           std::to_string(w->joint_nodes.size()));
    FillIndices(w->avatar->avatar.vrm.springs[ch->source_spring].collider_groups, out, capacity,
                count);
    return Ok();
  });
}

hs_status hs_world_joint_limit(const hs_world* w, size_t joint, hs_joint_limit* out) {
  return Guard([&] {
    if (!w || !out) return Fail(HS_INVALID_ARGUMENT, "hs_world_joint_limit: NULL argument");
    const auto limits = w->avatar->rig.joint_limit();
    if (joint >= w->joint_nodes.size() || joint >= limits.size())
      return Fail(HS_INVALID_ARGUMENT, "hs_world_joint_limit: joint " + std::to_string(joint) +
                                           " of " + std::to_string(w->joint_nodes.size()));
    const hairswing::JointLimit& l = limits[joint];
    *out = hs_joint_limit{static_cast<int32_t>(l.kind),
                          l.angle,
                          l.yaw,
                          {l.rotation.x, l.rotation.y, l.rotation.z, l.rotation.w}};
    return Ok();
  });
}

hs_status hs_world_reset(hs_world* w, const float* drivers16) {
  return Guard([&] {
    if (!w || (!drivers16 && !w->drivers.empty()))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_reset: NULL argument");
    if (!w->drivers.empty()) ReadMatrices(drivers16, w->drivers);
    w->driver.Reset(w->drivers);
    return Ok();
  });
}

hs_status hs_world_advance(hs_world* w, const float* drivers16, double dt, float* rotations4,
                           hs_step_report* report) {
  return Guard([&] {
    if (!w || (!drivers16 && !w->drivers.empty()) || (!rotations4 && !w->rotations.empty()))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_advance: NULL argument");
    if (!(dt >= 0.0) || !std::isfinite(dt))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_advance: dt must be a finite number >= 0");
    if (!w->drivers.empty()) ReadMatrices(drivers16, w->drivers);
    const hairswing::StepReport r = w->driver.Advance(w->drivers, dt, w->rotations);
    WriteRotations(w->rotations, rotations4);
    WriteReport(r, report);
    return Ok();
  });
}

hs_status hs_world_step_variable(hs_world* w, const float* drivers16, double dt, float* rotations4,
                                 hs_step_report* report) {
  return Guard([&] {
    if (!w || (!drivers16 && !w->drivers.empty()) || (!rotations4 && !w->rotations.empty()))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_step_variable: NULL argument");
    if (w->world.mode() != hairswing::SolverMode::kVrm)
      return Fail(HS_INVALID_ARGUMENT,
                  "hs_world_step_variable: only vrm mode steps by the caller's dt (arc and parent "
                  "run fixed 1/120 s steps: hs_world_advance)");
    if (!(dt > 0.0 && dt <= 1.0))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_step_variable: dt must be in (0, 1] seconds");
    if (!w->drivers.empty()) ReadMatrices(drivers16, w->drivers);
    const hairswing::StepReport r =
        w->world.StepDrivenVariable(w->drivers, w->rotations, static_cast<float>(dt));
    WriteRotations(w->rotations, rotations4);
    WriteReport(r, report);
    return Ok();
  });
}

hs_status hs_world_step(hs_world* w, const float* drivers16, float* rotations4,
                        hs_step_report* report) {
  return Guard([&] {
    if (!w || (!drivers16 && !w->drivers.empty()) || (!rotations4 && !w->rotations.empty()))
      return Fail(HS_INVALID_ARGUMENT, "hs_world_step: NULL argument");
    if (!w->drivers.empty()) ReadMatrices(drivers16, w->drivers);
    const hairswing::StepReport r = w->world.StepDriven(w->drivers, w->rotations);
    WriteRotations(w->rotations, rotations4);
    WriteReport(r, report);
    return Ok();
  });
}

hs_status hs_world_reset_pose(hs_world* w, const float* pose10) {
  return Guard([&] {
    if (!w || !pose10) return Fail(HS_INVALID_ARGUMENT, "hs_world_reset_pose: NULL argument");
    for (size_t n = 0; n < w->pose.size(); ++n) w->pose[n] = ReadTransform(pose10 + 10 * n);
    bool finite = true;
    for (size_t n = 0; n < 10 * w->pose.size(); ++n) finite = finite && std::isfinite(pose10[n]);
    if (!finite) return Fail(HS_INVALID_ARGUMENT, "hs_world_reset_pose: NaN or inf in the pose");
    w->world.Reset(w->pose);
    return Ok();
  });
}

hs_status hs_world_step_pose(hs_world* w, float* pose10, hs_step_report* report) {
  return Guard([&] {
    if (!w || !pose10) return Fail(HS_INVALID_ARGUMENT, "hs_world_step_pose: NULL argument");
    for (size_t n = 0; n < w->pose.size(); ++n) w->pose[n] = ReadTransform(pose10 + 10 * n);
    const hairswing::StepReport r = w->world.Step(w->pose);
    for (int32_t node : w->joint_nodes)
      WriteTransform(w->pose[node], pose10 + static_cast<ptrdiff_t>(10) * node);
    WriteReport(r, report);
    return Ok();
  });
}

hs_status hs_world_tails(const hs_world* w, float* xyz, size_t joint_count) {
  return Guard([&] {
    if (!w || !xyz) return Fail(HS_INVALID_ARGUMENT, "hs_world_tails: NULL argument");
    const auto tails = w->world.tails();
    if (joint_count != tails.size())
      return Fail(HS_INVALID_ARGUMENT, "hs_world_tails: joint_count " +
                                           std::to_string(joint_count) + " is not " +
                                           std::to_string(tails.size()));
    for (size_t j = 0; j < tails.size(); ++j) {
      xyz[3 * j + 0] = tails[j].x;
      xyz[3 * j + 1] = tails[j].y;
      xyz[3 * j + 2] = tails[j].z;
    }
    return Ok();
  });
}

uint64_t hs_world_state_hash(const hs_world* w) { return w ? w->world.StateHash() : 0; }

}  // extern "C"
