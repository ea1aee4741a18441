// A spring joint as the undo records of fit and tune store it (private to the fit module):
// [node, hitRadius, stiffness, gravityPower, gravityDir x, y, z, dragForce] and, when the joint
// has an angle limit, 7 more numbers [kind, angle, yaw, rotation x, y, z, w]. Floats go through
// JSON as doubles, so they read back bit for bit.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "hairswing/avatar.h"

namespace hairswing::fit {

inline nlohmann::json JointRecord(const SpringJoint& j) {
  nlohmann::json a = {j.node,          j.hit_radius,    j.stiffness,     j.gravity_power,
                      j.gravity_dir.x, j.gravity_dir.y, j.gravity_dir.z, j.drag_force};
  if (j.limit.kind != JointLimit::Kind::kNone)
    for (float v : {static_cast<float>(j.limit.kind), j.limit.angle, j.limit.yaw,
                    j.limit.rotation.x, j.limit.rotation.y, j.limit.rotation.z, j.limit.rotation.w})
      a.push_back(v);
  return a;
}

/// The record comes from a file, so nothing in it is trusted: throws (nlohmann's exceptions or
/// std::runtime_error) on anything that is not a joint record of finite numbers.
inline SpringJoint JointFromRecord(const nlohmann::json& a) {
  auto num = [&a](size_t i) {
    const float v = a.at(i).get<float>();
    if (!std::isfinite(v)) throw std::runtime_error("joint record: not a finite number");
    return v;
  };
  SpringJoint jt;
  jt.node = a.at(0).get<int>();
  jt.hit_radius = num(1);
  jt.stiffness = num(2);
  jt.gravity_power = num(3);
  jt.gravity_dir = {num(4), num(5), num(6)};
  jt.drag_force = num(7);
  if (a.size() >= 15) {
    const int kind = static_cast<int>(num(8));
    if (kind < 0 || kind > static_cast<int>(JointLimit::Kind::kSpherical))
      throw std::runtime_error("joint limit kind out of range");
    jt.limit.kind = static_cast<JointLimit::Kind>(kind);
    jt.limit.angle = num(9);
    jt.limit.yaw = num(10);
    jt.limit.rotation = glm::quat(num(14), num(11), num(12), num(13));
  }
  return jt;
}

/// A whole spring for an undo record (its joints as JointRecord).
inline nlohmann::json SpringRecord(const Spring& s) {
  nlohmann::json joints = nlohmann::json::array();
  for (const SpringJoint& j : s.joints) joints.push_back(JointRecord(j));
  return {{"name", s.name},
          {"joints", joints},
          {"collider_groups", s.collider_groups},
          {"center", s.center},
          {"source_group", s.source_group},
          {"has_virtual_tail", s.has_virtual_tail},
          {"virtual_tail", {s.virtual_tail.x, s.virtual_tail.y, s.virtual_tail.z}},
          {"segment_checks", s.segment_checks}};
}

/// The spring of a SpringRecord; throws like JointFromRecord.
inline Spring SpringFromRecord(const nlohmann::json& j) {
  Spring s;
  s.name = j.at("name").get<std::string>();
  for (const nlohmann::json& a : j.at("joints")) s.joints.push_back(JointFromRecord(a));
  s.collider_groups = j.at("collider_groups").get<std::vector<int>>();
  s.center = j.at("center").get<int>();
  s.source_group = j.at("source_group").get<int>();
  s.has_virtual_tail = j.at("has_virtual_tail").get<bool>();
  const nlohmann::json& t = j.at("virtual_tail");
  s.virtual_tail = {t.at(0).get<float>(), t.at(1).get<float>(), t.at(2).get<float>()};
  s.segment_checks = j.at("segment_checks").get<bool>();
  return s;
}

}  // namespace hairswing::fit
