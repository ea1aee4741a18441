// VRM extension readers: VRM 1.0 (VRMC_vrm, VRMC_springBone, its extended collider,
// VRMC_node_constraint) and VRM 0.x (`VRM`: humanoid, meta, secondaryAnimation), both into the
// VRM 1.0 shaped VrmData of the Avatar.
#include <algorithm>
#include <set>

#include "io/read_internal.h"

namespace hairswing {

namespace io {
namespace {

// Reads a core-spec {"sphere":{...}} or {"capsule":{...}} shape.
bool ReadCoreShape(const Json& shape, const std::string& f, ColliderShape* kind, glm::vec3* offset,
                   float* radius, glm::vec3* tail) {
  if (const Json* s = Find(shape, "sphere")) {
    *kind = ColliderShape::kSphere;
    *offset = GetVec<3>(*s, "offset", glm::vec3(0), f + ".sphere");
    *radius = GetFloat(*s, "radius", 0.0f, f + ".sphere");
    return true;
  }
  if (const Json* c = Find(shape, "capsule")) {
    *kind = ColliderShape::kCapsule;
    *offset = GetVec<3>(*c, "offset", glm::vec3(0), f + ".capsule");
    *radius = GetFloat(*c, "radius", 0.0f, f + ".capsule");
    *tail = GetVec<3>(*c, "tail", glm::vec3(0), f + ".capsule");
    return true;
  }
  return false;
}

// A joint's VRMC_springBone_limit (1.0-draft): exactly one of cone, hinge, spherical. Angles
// are clamped to their ranges as the draft tells implementations to; a malformed limit is
// dropped with a warning rather than refusing the avatar (the draft may still change).
JointLimit ReadJointLimit(const Json& ext, const std::string& f, Warnings& warnings,
                          const std::string& file) {
  JointLimit out;
  const std::string ver = GetString(ext, "specVersion", "", f);
  if (ver != "1.0-draft" && ver != "1.0")
    warnings.push_back(file + ": " + f + ".specVersion \"" + ver +
                       "\" is unknown; read as 1.0-draft");
  const Json* limit = GetObject(ext, "limit", f);
  if (!limit) {
    warnings.push_back(file + ": " + f + ": no \"limit\"; ignored");
    return out;
  }
  const std::string lf = f + ".limit";
  static constexpr std::pair<const char*, JointLimit::Kind> kKinds[] = {
      {"cone", JointLimit::Kind::kCone},
      {"hinge", JointLimit::Kind::kHinge},
      {"spherical", JointLimit::Kind::kSpherical}};
  const Json* shape = nullptr;
  std::string name;
  for (const auto& [key, kind] : kKinds) {
    const Json* v = GetObject(*limit, key, lf);
    if (!v) continue;
    if (shape) {
      warnings.push_back(file + ": " + lf + " has both \"" + name + "\" and \"" + key +
                         "\"; the first is used");
      continue;
    }
    shape = v;
    name = key;
    out.kind = kind;
  }
  if (!shape) {
    warnings.push_back(file + ": " + lf + " has no cone, hinge or spherical; ignored");
    return JointLimit{};
  }
  const std::string sf = lf + "." + name;
  constexpr float kPi = 3.14159265358979f;
  auto angle = [&](const char* key, float max) {
    if (!Find(*shape, key)) throw ReadError(sf + "." + key, "missing");
    const float a = GetFloat(*shape, key, 0.0f, sf);
    if (a < 0.0f) warnings.push_back(file + ": " + sf + "." + key + " is negative; read as 0");
    return std::clamp(a, 0.0f, max);
  };
  if (out.kind == JointLimit::Kind::kSpherical) {
    out.angle = angle("pitch", kPi);
    out.yaw = angle("yaw", 0.5f * kPi);
  } else {
    out.angle = angle("angle", kPi);
  }
  const glm::vec4 q = GetVec<4>(*shape, "rotation", glm::vec4(0, 0, 0, 1), sf);
  const float len = glm::length(q);
  if (!(len > 1e-6f)) {
    warnings.push_back(file + ": " + sf + ".rotation is not a rotation; identity used");
  } else {
    if (std::fabs(len - 1.0f) > 1e-3f)
      warnings.push_back(file + ": " + sf + ".rotation is not a unit quaternion; normalised");
    out.rotation = glm::quat(q.w / len, q.x / len, q.y / len, q.z / len);
  }
  return out;
}

void ReadSpringBone1(const Json& sb, Avatar& av, Warnings& warnings, const std::string& file) {
  const size_t n_nodes = av.nodes.size();
  const std::string base = "extensions.VRMC_springBone";
  const Json& colliders = GetArray(sb, "colliders", base);
  for (size_t i = 0; i < colliders.size(); ++i) {
    const std::string f = Idx(base + ".colliders", i);
    const Json& jc = colliders[i];
    Collider c;
    c.node = GetIndex(jc, "node", -1, n_nodes, f);
    if (c.node < 0) throw ReadError(f + ".node", "missing");
    const Json* shape = Find(jc, "shape");
    bool has_core =
        shape && ReadCoreShape(*shape, f + ".shape", &c.shape, &c.offset, &c.radius, &c.tail);
    const Json* ext = nullptr;
    if (const Json* exts = Find(jc, "extensions"))
      ext = Find(*exts, "VRMC_springBone_extended_collider");
    if (ext) {
      // The extended shape wins; the core shape is only the fallback for old readers. A missing
      // specVersion or missing fallback is tolerated (three-vrm 3.5.5 rejects such files).
      const std::string ef = f + ".extensions.VRMC_springBone_extended_collider";
      std::string ver = GetString(*ext, "specVersion", "", ef);
      if (!ver.empty() && ver != "1.0")
        warnings.push_back(file + ": " + ef + ".specVersion \"" + ver +
                           "\" is unknown; read as 1.0");
      if (has_core) {
        c.has_fallback = true;
        c.fallback_shape = c.shape;
        c.fallback_offset = c.offset;
        c.fallback_radius = c.radius;
        c.fallback_tail = c.tail;
      }
      const Json* es = Find(*ext, "shape");
      if (!es) throw ReadError(ef + ".shape", "missing");
      if (const Json* s = Find(*es, "sphere")) {
        c.shape = GetBool(*s, "inside", false, ef + ".shape.sphere") ? ColliderShape::kInsideSphere
                                                                     : ColliderShape::kSphere;
        c.offset = GetVec<3>(*s, "offset", glm::vec3(0), ef + ".shape.sphere");
        c.radius = GetFloat(*s, "radius", 0.0f, ef + ".shape.sphere");
      } else if (const Json* cp = Find(*es, "capsule")) {
        c.shape = GetBool(*cp, "inside", false, ef + ".shape.capsule")
                      ? ColliderShape::kInsideCapsule
                      : ColliderShape::kCapsule;
        c.offset = GetVec<3>(*cp, "offset", glm::vec3(0), ef + ".shape.capsule");
        c.radius = GetFloat(*cp, "radius", 0.0f, ef + ".shape.capsule");
        c.tail = GetVec<3>(*cp, "tail", glm::vec3(0), ef + ".shape.capsule");
      } else if (const Json* pl = Find(*es, "plane")) {
        c.shape = ColliderShape::kPlane;
        c.offset = GetVec<3>(*pl, "offset", glm::vec3(0), ef + ".shape.plane");
        c.normal = GetVec<3>(*pl, "normal", glm::vec3(0, 0, 1), ef + ".shape.plane");
        float len = glm::length(c.normal);
        if (!(len > 1e-12f)) throw ReadError(ef + ".shape.plane.normal", "zero length");
        c.normal /= len;
        c.radius = 0.0f;
      } else {
        throw ReadError(ef + ".shape", "expected sphere, capsule or plane");
      }
    } else if (!has_core) {
      throw ReadError(f + ".shape", "expected sphere or capsule");
    }
    if (c.radius < 0) throw ReadError(f + ".shape", "negative radius");
    av.vrm.colliders.push_back(c);
  }
  const Json& groups = GetArray(sb, "colliderGroups", base);
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string f = Idx(base + ".colliderGroups", i);
    ColliderGroup g;
    g.name = GetString(groups[i], "name", "", f);
    const Json& cs = GetArray(groups[i], "colliders", f);
    for (size_t k = 0; k < cs.size(); ++k)
      g.colliders.push_back(CheckIndex(cs[k], av.vrm.colliders.size(), Idx(f + ".colliders", k)));
    av.vrm.collider_groups.push_back(std::move(g));
  }
  // Springs, then the ones hairswing bake moved aside (same schema, not simulated).
  auto read_springs = [&](const Json& springs, const std::string& where, bool baked) {
    for (size_t i = 0; i < springs.size(); ++i) {
      const std::string f = Idx(where, i);
      const Json& js = springs[i];
      Spring s;
      s.baked = baked;
      s.name = GetString(js, "name", "", f);
      s.center = GetIndex(js, "center", -1, n_nodes, f);
      if (const Json* ex = Find(js, "extras"))
        s.segment_checks = GetBool(*ex, "hairswing_segment_checks", false, f + ".extras");
      const Json& cg = GetArray(js, "colliderGroups", f);
      for (size_t k = 0; k < cg.size(); ++k)
        s.collider_groups.push_back(
            CheckIndex(cg[k], av.vrm.collider_groups.size(), Idx(f + ".colliderGroups", k)));
      const Json& joints = GetArray(js, "joints", f);
      for (size_t k = 0; k < joints.size(); ++k) {
        const std::string jf = Idx(f + ".joints", k);
        const Json& jj = joints[k];
        SpringJoint j;  // spec defaults come from the struct initialisers
        j.node = GetIndex(jj, "node", -1, n_nodes, jf);
        if (j.node < 0) throw ReadError(jf + ".node", "missing");
        j.hit_radius = GetFloat(jj, "hitRadius", j.hit_radius, jf);
        j.stiffness = GetFloat(jj, "stiffness", j.stiffness, jf);
        j.gravity_power = GetFloat(jj, "gravityPower", j.gravity_power, jf);
        j.gravity_dir = GetVec<3>(jj, "gravityDir", j.gravity_dir, jf);
        j.drag_force = GetFloat(jj, "dragForce", j.drag_force, jf);
        const Json* exts = GetObject(jj, "extensions", jf);
        if (const Json* lim = exts ? Find(*exts, "VRMC_springBone_limit") : nullptr) {
          const std::string lf = jf + ".extensions.VRMC_springBone_limit";
          if (!lim->is_object()) {
            warnings.push_back(file + ": " + lf + ": expected an object; ignored");
          } else if (k + 1 == joints.size()) {  // the last joint is only a tail: the draft says
            warnings.push_back(file + ": " + lf + " is on the spring's last joint; ignored");
          } else {
            // A malformed limit loses the limit, never the file: the joint swings free, as in a
            // runtime that does not know the extension.
            try {
              j.limit = ReadJointLimit(*lim, lf, warnings, file);
            } catch (const ReadError& e) {
              warnings.push_back(file + ": " + e.what() + "; the limit is ignored");
              j.limit = JointLimit{};
            }
          }
        }
        s.joints.push_back(j);
      }
      av.vrm.springs.push_back(std::move(s));
    }
  };
  read_springs(GetArray(sb, "springs", base), base + ".springs", false);
  if (const Json* ex = Find(sb, "extras"))
    read_springs(GetArray(*ex, "hairswing_baked_springs", base + ".extras"),
                 base + ".extras.hairswing_baked_springs", true);
}

void ReadConstraints(const Json& root, Avatar& av) {
  const Json& nodes = GetArray(root, "nodes", "");
  for (size_t i = 0; i < nodes.size() && i < av.nodes.size(); ++i) {
    const Json* exts = Find(nodes[i], "extensions");
    const Json* nc = exts ? Find(*exts, "VRMC_node_constraint") : nullptr;
    if (!nc) continue;
    const std::string f = Idx("nodes", i) + ".extensions.VRMC_node_constraint";
    const Json* c = Find(*nc, "constraint");
    if (!c || !c->is_object()) throw ReadError(f + ".constraint", "missing");
    NodeConstraint out;
    out.node = static_cast<int>(i);
    const Json* body = nullptr;
    std::string bf;
    if ((body = Find(*c, "aim"))) {
      out.kind = NodeConstraint::Kind::kAim;
      bf = f + ".constraint.aim";
      out.axis = GetString(*body, "aimAxis", "", bf);
      static const std::set<std::string> kAxes = {"PositiveX", "NegativeX", "PositiveY",
                                                  "NegativeY", "PositiveZ", "NegativeZ"};
      if (!kAxes.count(out.axis)) throw ReadError(bf + ".aimAxis", "invalid \"" + out.axis + "\"");
    } else if ((body = Find(*c, "roll"))) {
      out.kind = NodeConstraint::Kind::kRoll;
      bf = f + ".constraint.roll";
      out.axis = GetString(*body, "rollAxis", "", bf);
      if (out.axis != "X" && out.axis != "Y" && out.axis != "Z")
        throw ReadError(bf + ".rollAxis", "invalid \"" + out.axis + "\"");
    } else if ((body = Find(*c, "rotation"))) {
      out.kind = NodeConstraint::Kind::kRotation;
      bf = f + ".constraint.rotation";
    } else {
      throw ReadError(f + ".constraint", "expected aim, roll or rotation");
    }
    out.source = GetIndex(*body, "source", -1, av.nodes.size(), bf);
    if (out.source < 0) throw ReadError(bf + ".source", "missing");
    out.weight = GetFloat(*body, "weight", 1.0f, bf);
    Json rest = *nc;
    rest.erase("constraint");
    rest.erase("specVersion");
    if (!rest.empty()) out.extensions_json = Dump(rest);
    av.vrm.constraints.push_back(std::move(out));
  }
}

// VRM 0.x thumb names shift by one joint in VRM 1.0; everything else keeps its name.
std::string HumanBoneName0To1(const std::string& b) {
  static const std::map<std::string, std::string> kRename = {
      {"leftThumbProximal", "leftThumbMetacarpal"},
      {"leftThumbIntermediate", "leftThumbProximal"},
      {"rightThumbProximal", "rightThumbMetacarpal"},
      {"rightThumbIntermediate", "rightThumbProximal"}};
  auto it = kRename.find(b);
  return it == kRename.end() ? b : it->second;
}

Json ConvertMeta0(const Json& m, const Avatar& av, const Json& root) {
  Json out = Json::object();
  const std::string f = "extensions.VRM.meta";
  out["name"] = GetString(m, "title", "", f);
  if (out["name"] == "") out["name"] = "Untitled";
  std::string ver = GetString(m, "version", "", f);
  if (!ver.empty()) out["version"] = ver;
  std::string author = GetString(m, "author", "", f);
  out["authors"] = Json::array({author.empty() ? "Unknown" : author});
  std::string contact = GetString(m, "contactInformation", "", f);
  if (!contact.empty()) out["contactInformation"] = contact;
  std::string ref = GetString(m, "reference", "", f);
  if (!ref.empty()) out["references"] = Json::array({ref});
  int tex = GetIndexOrNone(m, "texture", av.textures_json.size(), f);
  if (tex >= 0) {
    const Json& t = GetArray(root, "textures", "")[tex];
    int src = GetIndex(t, "source", -1, av.images.size(), Idx("textures", tex));
    if (src >= 0) out["thumbnailImage"] = src;
  }
  std::string user = GetString(m, "allowedUserName", "", f);
  out["avatarPermission"] = user == "Everyone"                   ? "everyone"
                            : user == "ExplicitlyLicensedPerson" ? "onlySeparatelyLicensedPerson"
                                                                 : "onlyAuthor";
  out["allowExcessivelyViolentUsage"] = GetString(m, "violentUssageName", "", f) == "Allow";
  out["allowExcessivelySexualUsage"] = GetString(m, "sexualUssageName", "", f) == "Allow";
  out["commercialUsage"] = GetString(m, "commercialUssageName", "", f) == "Allow"
                               ? "personalProfit"
                               : "personalNonProfit";
  out["licenseUrl"] = "https://vrm.dev/licenses/1.0/";
  std::string other = GetString(m, "otherLicenseUrl", "", f);
  if (!other.empty()) out["otherLicenseUrl"] = other;
  // licenseName carries what 1.0 says in separate fields (CC_BY_NC_ND: credit required, no
  // commercial use, no derivatives); "Other" and unknown names grant nothing beyond the rest.
  std::string lic = GetString(m, "licenseName", "", f);
  const bool cc = lic == "CC0" || lic.rfind("CC_BY", 0) == 0;
  out["creditNotation"] = lic.rfind("CC_BY", 0) == 0 ? "required" : "unnecessary";
  out["allowRedistribution"] = cc;
  out["modification"] = !cc || lic.find("_ND") != std::string::npos
                            ? "prohibited"
                            : "allowModificationRedistribution";
  if (lic.find("_NC") != std::string::npos) out["commercialUsage"] = "personalNonProfit";
  // What 1.0 has no field for stays readable in the meta's extras.
  Json extras = Json::object();
  if (!lic.empty()) extras["vrm0LicenseName"] = lic;
  if (std::string perm = GetString(m, "otherPermissionUrl", "", f); !perm.empty())
    extras["vrm0OtherPermissionUrl"] = perm;
  if (!extras.empty()) out["extras"] = extras;
  return out;
}

}  // namespace

void ReadVrm1(const Json& root, Avatar& av, Warnings& warnings) {
  const std::string file = av.source_path;
  const Json* exts = Find(root, "extensions");
  const Json* vrm = exts ? Find(*exts, "VRMC_vrm") : nullptr;
  const Json* sb = exts ? Find(*exts, "VRMC_springBone") : nullptr;
  bool has_constraints = false;
  for (const auto& n : GetArray(root, "nodes", ""))
    if (const Json* e = Find(n, "extensions"); e && Find(*e, "VRMC_node_constraint"))
      has_constraints = true;
  if (!vrm && !sb && !has_constraints) return;
  av.vrm.version = VrmVersion::kV1;
  if (vrm) {
    if (!vrm->is_object()) throw ReadError("extensions.VRMC_vrm", "expected an object");
    const std::string f = "extensions.VRMC_vrm";
    av.vrm.source_spec_version = GetString(*vrm, "specVersion", "1.0", f);
    // Objects by the schema: a humanoid given as an array is an error, not an empty humanoid.
    if (const Json* meta = GetObject(*vrm, "meta", f)) av.vrm.meta_json = Dump(*meta);
    if (const Json* hum = GetObject(*vrm, "humanoid", f)) {
      const Json* bones = GetObject(*hum, "humanBones", f + ".humanoid");
      if (bones)
        for (auto it = bones->begin(); it != bones->end(); ++it) {
          int node = GetIndex(it.value(), "node", -1, av.nodes.size(),
                              f + ".humanoid.humanBones." + it.key());
          if (node < 0)
            throw ReadError(f + ".humanoid.humanBones." + it.key() + ".node", "missing");
          av.vrm.humanoid[it.key()] = node;
        }
    }
    Json rest = *vrm;
    rest.erase("meta");
    rest.erase("humanoid");
    rest.erase("specVersion");
    if (!rest.empty()) av.vrm.vrmc_vrm_json = Dump(rest);
  }
  if (sb) {
    if (!sb->is_object()) throw ReadError("extensions.VRMC_springBone", "expected an object");
    ReadSpringBone1(*sb, av, warnings, file);
  }
  ReadConstraints(root, av);
}

// hairswing's per-joint parameters, angle limits and whole-link checks of one VRM 0.x bone group
// (written by hairswing to the group's "extras": what the group's one set of values cannot hold),
// applied to the springs the group was read as. Taken only when they still describe this group:
// the values they were written under equal the group's own (a tool that edited the group and
// kept the extras made them stale), the springs and their joints are the same in number and
// node. Otherwise, or when malformed, they are ignored with a warning: the group's values stand,
// as in any other runtime.
void ReadVrm0SpringExtras(const Json& hs, const Json& bg, const std::string& f, size_t first,
                          Avatar& av, Warnings& warnings, const std::string& file) {
  std::vector<Spring> springs(av.vrm.springs.begin() + static_cast<long>(first),
                              av.vrm.springs.end());
  try {
    if (!hs.is_object()) throw ReadError(f, "expected an object");
    const Json* group = GetObject(hs, "group", f);
    if (!group) throw ReadError(f + ".group", "missing");
    for (const char* key : {"stiffiness", "gravityPower", "gravityDir", "dragForce", "hitRadius"})
      if (!Find(*group, key) || !Find(bg, key) || *Find(*group, key) != *Find(bg, key)) {
        warnings.push_back(file + ": " + f + ": written for other group values (\"" + key +
                           "\" differs; the group was edited): the group's values are used");
        return;
      }
    const Json& js = GetArray(hs, "springs", f);
    if (js.size() != springs.size())
      throw ReadError(f + ".springs", std::to_string(js.size()) + " springs for a group read as " +
                                          std::to_string(springs.size()));
    for (size_t i = 0; i < springs.size(); ++i) {
      const std::string sf = Idx(f + ".springs", i);
      Spring& s = springs[i];
      s.segment_checks = GetBool(js[i], "segmentChecks", false, sf);
      const Json& joints = GetArray(js[i], "joints", sf);
      if (joints.size() != s.joints.size())
        throw ReadError(sf + ".joints", std::to_string(joints.size()) + " joints for a chain of " +
                                            std::to_string(s.joints.size()));
      for (size_t k = 0; k < joints.size(); ++k) {
        const std::string jf = Idx(sf + ".joints", k);
        SpringJoint& j = s.joints[k];
        if (GetIndex(joints[k], "node", -1, av.nodes.size(), jf) != j.node)
          throw ReadError(jf + ".node", "not the chain's joint");
        j.stiffness = GetFloat(joints[k], "stiffness", j.stiffness, jf);
        j.gravity_power = GetFloat(joints[k], "gravityPower", j.gravity_power, jf);
        const glm::vec3 g = GetXyz(joints[k], "gravityDir", glm::vec3(0, -1, 0), jf);
        j.gravity_dir = glm::vec3(-g.x, g.y, g.z);  // as the group's gravityDir
        j.drag_force = GetFloat(joints[k], "dragForce", j.drag_force, jf);
        j.hit_radius = GetFloat(joints[k], "hitRadius", j.hit_radius, jf);
        if (j.hit_radius < 0) throw ReadError(jf + ".hitRadius", "negative");
        const Json* lim = Find(joints[k], "VRMC_springBone_limit");
        if (!lim) continue;
        const std::string lf = jf + ".VRMC_springBone_limit";
        if (!lim->is_object()) throw ReadError(lf, "expected an object");
        if (k + 1 == joints.size() && !s.has_virtual_tail) {
          warnings.push_back(file + ": " + lf + " is on the spring's last joint; ignored");
          continue;
        }
        j.limit = ReadJointLimit(*lim, lf, warnings, file);
        j.limit.rotation = Vrm0TurnedRotation(j.limit.rotation);  // the file's axes -> ours
      }
    }
  } catch (const ReadError& e) {
    warnings.push_back(file + ": " + e.what() + "; hairswing's per-joint values are ignored");
    return;
  }
  std::move(springs.begin(), springs.end(), av.vrm.springs.begin() + static_cast<long>(first));
}

void ReadVrm0(const Json& root, Avatar& av, Warnings& warnings) {
  const std::string file = av.source_path;
  const Json& vrm = *Find(*Find(root, "extensions"), "VRM");
  if (!vrm.is_object()) throw ReadError("extensions.VRM", "expected an object");
  av.vrm.version = VrmVersion::kV0;
  const std::string base = "extensions.VRM";
  av.vrm.source_spec_version = GetString(vrm, "specVersion", "0.0", base);
  if (const Json* hum = GetObject(vrm, "humanoid", base)) {
    const Json& bones = GetArray(*hum, "humanBones", base + ".humanoid");
    for (size_t i = 0; i < bones.size(); ++i) {
      const std::string f = Idx(base + ".humanoid.humanBones", i);
      std::string bone = GetString(bones[i], "bone", "", f);
      int node = GetIndexOrNone(bones[i], "node", av.nodes.size(), f);
      if (bone.empty() || node < 0) continue;
      av.vrm.humanoid[HumanBoneName0To1(bone)] = node;
    }
  }
  if (const Json* meta = GetObject(vrm, "meta", base))
    av.vrm.meta_json = Dump(ConvertMeta0(*meta, av, root));
  // Kept as they are for writing VRM 0.x back; converted for VRM 1.0: the face and the look
  // (expressions, lookAt, firstPerson, MToon; io/vrm0_convert.cpp).
  av.vrm.vrm0_json = Dump(vrm);
  for (const Material& m : av.materials) av.vrm.vrm0_materials_json.push_back(m.json);
  ConvertVrm0Materials(vrm, av, warnings);
  if (Json face = ConvertVrm0Face(vrm, root, av, warnings); !face.empty())
    av.vrm.vrmc_vrm_json = Dump(face);

  const Json* sa = GetObject(vrm, "secondaryAnimation", base);
  if (!sa) return;
  const std::string sf = base + ".secondaryAnimation";
  // Collider groups: each VRM 0.x group is one node with spheres; offsets are stored with z
  // negated relative to glTF (Unity's left-handed frame), as three-vrm also reads them.
  const Json& groups = GetArray(*sa, "colliderGroups", sf);
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string f = Idx(sf + ".colliderGroups", i);
    int node = GetIndex(groups[i], "node", -1, av.nodes.size(), f);
    if (node < 0) throw ReadError(f + ".node", "missing");
    ColliderGroup g;
    g.name = av.nodes[node].name;
    const Json& cs = GetArray(groups[i], "colliders", f);
    for (size_t k = 0; k < cs.size(); ++k) {
      const std::string cf = Idx(f + ".colliders", k);
      Collider c;
      c.node = node;
      c.shape = ColliderShape::kSphere;
      glm::vec3 o = GetXyz(cs[k], "offset", glm::vec3(0), cf);
      c.offset = glm::vec3(o.x, o.y, -o.z);
      c.radius = GetFloat(cs[k], "radius", 0.0f, cf);
      if (c.radius < 0) throw ReadError(cf + ".radius", "negative");
      g.colliders.push_back(static_cast<int>(av.vrm.colliders.size()));
      av.vrm.colliders.push_back(c);
    }
    av.vrm.collider_groups.push_back(std::move(g));
  }
  // Bone groups: every node below each root is a joint. A chain follows the first child; other
  // children start chains of their own. A leaf gets a virtual tail 7 cm along its own local
  // translation (three-vrm's rule), so the leaf itself still swings.
  const Json& bone_groups = GetArray(*sa, "boneGroups", sf);
  for (size_t gi = 0; gi < bone_groups.size(); ++gi) {
    const std::string f = Idx(sf + ".boneGroups", gi);
    const Json& bg = bone_groups[gi];
    SpringJoint proto;
    proto.stiffness = GetFloat(bg, "stiffiness", 1.0f, f);
    proto.gravity_power = GetFloat(bg, "gravityPower", 0.0f, f);
    glm::vec3 gdir = GetXyz(bg, "gravityDir", glm::vec3(0, -1, 0), f);
    // Unity world -> glTF (z negated) -> VRM 1.0 facing (x,z negated): x negated overall.
    proto.gravity_dir = glm::vec3(-gdir.x, gdir.y, gdir.z);
    proto.drag_force = GetFloat(bg, "dragForce", 0.4f, f);
    proto.hit_radius = GetFloat(bg, "hitRadius", 0.02f, f);
    int center = GetIndexOrNone(bg, "center", av.nodes.size(), f);
    std::vector<int> cgroups;
    const Json& cg = GetArray(bg, "colliderGroups", f);
    for (size_t k = 0; k < cg.size(); ++k)
      cgroups.push_back(
          CheckIndex(cg[k], av.vrm.collider_groups.size(), Idx(f + ".colliderGroups", k)));
    const Json& roots = GetArray(bg, "bones", f);
    std::string comment = GetString(bg, "comment", "", f);
    const size_t group_first_spring = av.vrm.springs.size();
    for (size_t ri = 0; ri < roots.size(); ++ri) {
      int root_node = CheckIndex(roots[ri], av.nodes.size(), Idx(f + ".bones", ri));
      const std::vector<std::vector<int>> chains = Vrm0BoneGroupChains(av, root_node);
      if (chains.empty()) throw ReadError(f, "bone hierarchy loops");
      for (const std::vector<int>& chain : chains) {
        Spring s;
        const int first = chain.front();
        s.name = (comment.empty() ? av.nodes[first].name : comment + "/" + av.nodes[first].name);
        s.center = center;
        s.source_group = static_cast<int>(gi);
        s.collider_groups = cgroups;
        for (int node : chain) {
          SpringJoint j = proto;
          j.node = node;
          s.joints.push_back(j);
        }
        const int leaf = chain.back();
        if (av.nodes[leaf].children.empty()) {
          glm::vec3 t = av.nodes[leaf].translation;
          float len = glm::length(t);
          s.has_virtual_tail = true;
          s.virtual_tail = len > 0 ? t / len * 0.07f : glm::vec3(0);
          if (len == 0)
            warnings.push_back(file + ": " + f + ": leaf bone \"" + av.nodes[leaf].name +
                               "\" has no offset from its parent; its virtual tail has length 0");
        }
        av.vrm.springs.push_back(std::move(s));
      }
    }
    if (const Json* ex = Find(bg, "extras"); ex && ex->is_object())
      if (const Json* hs = Find(*ex, "hairswing_springs"))
        ReadVrm0SpringExtras(*hs, bg, f + ".extras.hairswing_springs", group_first_spring, av,
                             warnings, file);
  }
}

std::vector<std::vector<int>> Vrm0BoneGroupChains(const Avatar& av, int root) {
  std::vector<std::vector<int>> chains;
  std::vector<int> starts{root};
  size_t guard = 0;
  while (!starts.empty()) {
    int node = starts.back();
    starts.pop_back();
    std::vector<int>& chain = chains.emplace_back();
    while (node >= 0) {
      if (++guard > av.nodes.size()) return {};
      chain.push_back(node);
      const auto& ch = av.nodes[node].children;
      for (size_t c = ch.size(); c-- > 1;) starts.push_back(ch[c]);
      node = ch.empty() ? -1 : ch[0];
    }
  }
  return chains;
}

}  // namespace io
}  // namespace hairswing
