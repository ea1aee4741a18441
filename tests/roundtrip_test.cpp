// Load -> write -> load keeps everything we promise; VRM 0.x -> 1.0 keeps collider world
// positions and chain rest shapes. Collider positions are also checked against an independent
// computation straight from the source file's JSON.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "hairswing/io.h"
#include "hairswing/rig.h"
#include "test_util.h"

namespace hairswing {
namespace {

using Json = nlohmann::json;

Result<LoadedAvatar> Reload(const Avatar& av, bool as_vrm, VrmOutput vrm = VrmOutput::kVrm1,
                            std::vector<std::string>* warnings = nullptr) {
  auto bytes = EncodeGlb(av, as_vrm, vrm, warnings);
  if (!bytes.ok()) return bytes.status();
  return LoadAvatarFromMemory(bytes->data(), bytes->size(), "roundtrip.glb", ".");
}

void ExpectSameJson(const std::string& a, const std::string& b, const char* what) {
  if (a.empty() || b.empty()) {
    EXPECT_EQ(a.empty(), b.empty()) << what;
    return;
  }
  EXPECT_EQ(Json::parse(a), Json::parse(b)) << what;
}

// Everything the issue lists: nodes, skins, weights, springs, colliders, constraints, humanoid,
// meta, image bytes, unknown extensions (and meshes, materials, animations).
void ExpectSameAvatar(const Avatar& a, const Avatar& b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    SCOPED_TRACE("node " + std::to_string(i));
    EXPECT_EQ(a.nodes[i].name, b.nodes[i].name);
    EXPECT_EQ(a.nodes[i].parent, b.nodes[i].parent);
    EXPECT_EQ(a.nodes[i].children, b.nodes[i].children);
    EXPECT_EQ(a.nodes[i].translation, b.nodes[i].translation);
    EXPECT_EQ(a.nodes[i].rotation, b.nodes[i].rotation);
    EXPECT_EQ(a.nodes[i].scale, b.nodes[i].scale);
    EXPECT_EQ(a.nodes[i].mesh, b.nodes[i].mesh);
    EXPECT_EQ(a.nodes[i].skin, b.nodes[i].skin);
    ExpectSameJson(a.nodes[i].extensions_json, b.nodes[i].extensions_json, "node extensions");
    ExpectSameJson(a.nodes[i].extras_json, b.nodes[i].extras_json, "node extras");
  }
  EXPECT_EQ(a.scene_roots, b.scene_roots);
  ASSERT_EQ(a.skins.size(), b.skins.size());
  for (size_t i = 0; i < a.skins.size(); ++i) {
    EXPECT_EQ(a.skins[i].joints, b.skins[i].joints);
    EXPECT_EQ(a.skins[i].inverse_bind, b.skins[i].inverse_bind);
  }
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    ASSERT_EQ(a.meshes[m].primitives.size(), b.meshes[m].primitives.size());
    EXPECT_EQ(a.meshes[m].name, b.meshes[m].name);
    for (size_t p = 0; p < a.meshes[m].primitives.size(); ++p) {
      const Primitive& pa = a.meshes[m].primitives[p];
      const Primitive& pb = b.meshes[m].primitives[p];
      EXPECT_EQ(pa.positions, pb.positions);
      EXPECT_EQ(pa.normals, pb.normals);
      EXPECT_EQ(pa.joints, pb.joints);
      EXPECT_EQ(pa.weights, pb.weights);
      EXPECT_EQ(pa.indices, pb.indices);
      EXPECT_EQ(pa.material, pb.material);
      ASSERT_EQ(pa.targets.size(), pb.targets.size());
      for (size_t t = 0; t < pa.targets.size(); ++t)
        EXPECT_EQ(pa.targets[t].positions, pb.targets[t].positions);
      ASSERT_EQ(pa.extra_attributes.size(), pb.extra_attributes.size());
      for (const auto& [name, ea] : pa.extra_attributes)
        EXPECT_EQ(ea.data, pb.extra_attributes.at(name).data) << name;
    }
  }
  ASSERT_EQ(a.materials.size(), b.materials.size());
  for (size_t i = 0; i < a.materials.size(); ++i)
    ExpectSameJson(a.materials[i].json, b.materials[i].json, "material");
  ASSERT_EQ(a.images.size(), b.images.size());
  for (size_t i = 0; i < a.images.size(); ++i) {
    EXPECT_EQ(a.images[i].bytes, b.images[i].bytes) << "image " << i;
    EXPECT_EQ(a.images[i].mime_type, b.images[i].mime_type);
  }
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t i = 0; i < a.animations.size(); ++i) {
    ASSERT_EQ(a.animations[i].channels.size(), b.animations[i].channels.size());
    for (size_t c = 0; c < a.animations[i].channels.size(); ++c) {
      EXPECT_EQ(a.animations[i].channels[c].times, b.animations[i].channels[c].times);
      EXPECT_EQ(a.animations[i].channels[c].values, b.animations[i].channels[c].values);
    }
  }
  EXPECT_EQ(a.vrm.humanoid, b.vrm.humanoid);
  ExpectSameJson(a.vrm.meta_json, b.vrm.meta_json, "meta");
  ExpectSameJson(a.vrm.vrmc_vrm_json, b.vrm.vrmc_vrm_json, "VRMC_vrm rest");
  ASSERT_EQ(a.vrm.springs.size(), b.vrm.springs.size());
  for (size_t s = 0; s < a.vrm.springs.size(); ++s) {
    const Spring& sa = a.vrm.springs[s];
    const Spring& sb = b.vrm.springs[s];
    EXPECT_EQ(sa.name, sb.name);
    EXPECT_EQ(sa.center, sb.center);
    EXPECT_EQ(sa.collider_groups, sb.collider_groups);
    ASSERT_EQ(sa.joints.size(), sb.joints.size());
    for (size_t j = 0; j < sa.joints.size(); ++j) {
      EXPECT_EQ(sa.joints[j].node, sb.joints[j].node);
      EXPECT_EQ(sa.joints[j].hit_radius, sb.joints[j].hit_radius);
      EXPECT_EQ(sa.joints[j].stiffness, sb.joints[j].stiffness);
      EXPECT_EQ(sa.joints[j].gravity_power, sb.joints[j].gravity_power);
      EXPECT_EQ(sa.joints[j].gravity_dir, sb.joints[j].gravity_dir);
      EXPECT_EQ(sa.joints[j].drag_force, sb.joints[j].drag_force);
    }
  }
  ASSERT_EQ(a.vrm.colliders.size(), b.vrm.colliders.size());
  for (size_t c = 0; c < a.vrm.colliders.size(); ++c) {
    const Collider& ca = a.vrm.colliders[c];
    const Collider& cb = b.vrm.colliders[c];
    EXPECT_EQ(ca.node, cb.node);
    EXPECT_EQ(ca.shape, cb.shape);
    EXPECT_EQ(ca.offset, cb.offset);
    EXPECT_EQ(ca.radius, cb.radius);
    EXPECT_EQ(ca.tail, cb.tail);
    EXPECT_EQ(ca.normal, cb.normal);
  }
  ASSERT_EQ(a.vrm.collider_groups.size(), b.vrm.collider_groups.size());
  for (size_t g = 0; g < a.vrm.collider_groups.size(); ++g)
    EXPECT_EQ(a.vrm.collider_groups[g].colliders, b.vrm.collider_groups[g].colliders);
  ASSERT_EQ(a.vrm.constraints.size(), b.vrm.constraints.size());
  for (size_t c = 0; c < a.vrm.constraints.size(); ++c) {
    EXPECT_EQ(a.vrm.constraints[c].node, b.vrm.constraints[c].node);
    EXPECT_EQ(a.vrm.constraints[c].kind, b.vrm.constraints[c].kind);
    EXPECT_EQ(a.vrm.constraints[c].source, b.vrm.constraints[c].source);
    EXPECT_EQ(a.vrm.constraints[c].weight, b.vrm.constraints[c].weight);
    EXPECT_EQ(a.vrm.constraints[c].axis, b.vrm.constraints[c].axis);
  }
  ASSERT_EQ(a.unknown_extensions.size(), b.unknown_extensions.size());
  for (const auto& [k, v] : a.unknown_extensions)
    ExpectSameJson(v, b.unknown_extensions.at(k), k.c_str());
}

TEST(RoundTrip, Vrm1FixturesAreLossless) {
  for (const char* f :
       {"smoke_spring.vrm", "springbone_collider_sphere_x0p02_r0p1.vrm",
        "springbone_collider_capsule_x0p02_r0p1.vrm", "springbone_extended_isphere_pmed.vrm",
        "springbone_extended_plane_with_base_sphere.vrm"}) {
    SCOPED_TRACE(f);
    HS_LOAD_SHARED_OR_SKIP(a, std::string("fixtures/vrm-conformance/") + f);
    auto b = Reload(a.avatar, true);
    ASSERT_TRUE(b.ok()) << b.status().message();
    ExpectSameAvatar(a.avatar, b->avatar);
  }
}

TEST(RoundTrip, GltfWithoutVrmAndUnknownExtensions) {
  // Add an unknown root extension, an unknown node extension, extras and a node constraint to
  // the hand-made base scene; all must survive.
  std::ifstream in(test::TestData("broken/valid_base.gltf"));
  Json doc = Json::parse(in);
  doc["extensions"]["EXT_hairswing_test"] = {{"answer", 42}, {"list", {1, 2, 3}}};
  doc["nodes"][1]["extensions"]["EXT_node_test"] = {{"flag", true}};
  doc["nodes"][1]["extras"] = {{"note", "kept"}};
  // ... and on a mesh, its primitive and the accessors behind POSITION and the indices.
  doc["meshes"][0]["extensions"]["EXT_mesh_test"] = {{"lod", 2}};
  doc["meshes"][0]["extras"] = {{"targetNames", {"smile"}}};
  Json& prim = doc["meshes"][0]["primitives"][0];
  prim["extensions"]["EXT_primitive_test"] = {{"variant", 1}};
  prim["extras"] = {{"tag", "p0"}};
  doc["accessors"][prim["attributes"]["POSITION"].get<int>()]["extensions"]["EXT_accessor_test"] = {
      {"quantised", false}};
  if (prim.contains("indices"))
    doc["accessors"][prim["indices"].get<int>()]["extensions"]["EXT_index_test"] = {{"k", 3}};
  doc["nodes"][2]["extensions"]["VRMC_node_constraint"] = {
      {"specVersion", "1.0"},
      {"constraint", {{"roll", {{"source", 1}, {"rollAxis", "Y"}, {"weight", 0.5}}}}}};
  doc["nodes"][3]["extensions"]["VRMC_node_constraint"] = {
      {"specVersion", "1.0"}, {"constraint", {{"aim", {{"source", 0}, {"aimAxis", "NegativeZ"}}}}}};
  std::string text = doc.dump();
  auto a = LoadAvatarFromMemory(reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                                "t.gltf", ".");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->avatar.vrm.constraints.size(), 2u);
  EXPECT_EQ(a->avatar.vrm.constraints[0].kind, NodeConstraint::Kind::kRoll);
  EXPECT_FLOAT_EQ(a->avatar.vrm.constraints[0].weight, 0.5f);
  EXPECT_FLOAT_EQ(a->avatar.vrm.constraints[1].weight, 1.0f);  // spec default
  EXPECT_EQ(a->avatar.unknown_extensions.count("EXT_hairswing_test"), 1u);
  auto b = Reload(a->avatar, false);
  ASSERT_TRUE(b.ok()) << b.status().message();
  ExpectSameAvatar(a->avatar, b->avatar);
  EXPECT_EQ(Json::parse(b->avatar.unknown_extensions.at("EXT_hairswing_test"))["answer"], 42);
  // Written out, the mesh, primitive and accessor extensions sit where they were.
  auto bytes = EncodeGlb(b->avatar, false);
  ASSERT_TRUE(bytes.ok());
  const uint32_t len = (*bytes)[12] | (*bytes)[13] << 8 | (*bytes)[14] << 16 | (*bytes)[15] << 24;
  const Json out = Json::parse(std::string(bytes->begin() + 20, bytes->begin() + 20 + len));
  const Json& m = out["meshes"][0];
  EXPECT_EQ(m["extensions"]["EXT_mesh_test"]["lod"], 2);
  EXPECT_EQ(m["extras"]["targetNames"][0], "smile");
  EXPECT_EQ(m["primitives"][0]["extensions"]["EXT_primitive_test"]["variant"], 1);
  EXPECT_EQ(m["primitives"][0]["extras"]["tag"], "p0");
  const int pos = m["primitives"][0]["attributes"]["POSITION"];
  EXPECT_EQ(out["accessors"][pos]["extensions"]["EXT_accessor_test"]["quantised"], false);
  if (prim.contains("indices")) {
    const int ix = m["primitives"][0]["indices"];
    EXPECT_EQ(out["accessors"][ix]["extensions"]["EXT_index_test"]["k"], 3);
  }
  for (const char* e : {"EXT_mesh_test", "EXT_primitive_test", "EXT_accessor_test"})
    EXPECT_NE(std::find(out["extensionsUsed"].begin(), out["extensionsUsed"].end(), e),
              out["extensionsUsed"].end())
        << e;
}

TEST(RoundTrip, EncodingIsDeterministic) {
  HS_LOAD_SHARED_OR_SKIP(a, "avatars/godette.vrm");
  auto x = EncodeGlb(a.avatar, true);
  auto y = EncodeGlb(a.avatar, true);
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_EQ(x.value(), y.value());
}

TEST(RoundTrip, GodetteImagesAndMetaSurvive) {
  HS_LOAD_SHARED_OR_SKIP(a, "avatars/godette.vrm");
  auto b = Reload(a.avatar, true);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->avatar.vrm.version, VrmVersion::kV1);
  ASSERT_EQ(a.avatar.images.size(), b->avatar.images.size());
  ASSERT_FALSE(a.avatar.images.empty());
  for (size_t i = 0; i < a.avatar.images.size(); ++i)
    EXPECT_EQ(a.avatar.images[i].bytes, b->avatar.images[i].bytes);
  EXPECT_EQ(a.avatar.vrm.humanoid, b->avatar.vrm.humanoid);
  EXPECT_EQ(Json::parse(a.avatar.vrm.meta_json), Json::parse(b->avatar.vrm.meta_json));
  // Converted once, the VRM 1.0 file is a fixed point: a second round trip is lossless.
  auto c = Reload(b->avatar, true);
  ASSERT_TRUE(c.ok());
  ExpectSameAvatar(b->avatar, c->avatar);
}

// World position of a point given in a node's local frame, from a Rig.
glm::vec3 WorldPoint(const Rig& rig, int rig_node, const glm::vec3& local) {
  return glm::vec3(rig.rest_world()[rig_node] * glm::vec4(local, 1.0f));
}

// Independent reference: compose the raw VRM 0.x JSON node transforms (no code of ours), apply
// the VRM 0.x collider offset convention (z negated) and the 180 degree turn about +Y.
std::vector<glm::vec3> RawVrm0ColliderCentres(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  uint32_t len;
  std::memcpy(&len, bytes.data() + 12, 4);
  Json doc = Json::parse(std::string(bytes.data() + 20, len));
  const Json& nodes = doc["nodes"];
  std::vector<int> parent(nodes.size(), -1);
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& c : nodes[i].value("children", Json::array()))
      parent[c.get<int>()] = static_cast<int>(i);
  auto local = [&](int n) {
    const Json& nd = nodes[n];
    glm::dmat4 m(1.0);
    if (nd.contains("translation"))
      m = glm::translate(
          m, glm::dvec3(nd["translation"][0], nd["translation"][1], nd["translation"][2]));
    if (nd.contains("rotation"))
      m = m * glm::mat4_cast(
                  glm::dquat(nd["rotation"][3].get<double>(), nd["rotation"][0].get<double>(),
                             nd["rotation"][1].get<double>(), nd["rotation"][2].get<double>()));
    if (nd.contains("scale"))
      m = glm::scale(m, glm::dvec3(nd["scale"][0], nd["scale"][1], nd["scale"][2]));
    return m;
  };
  std::vector<glm::vec3> out;
  for (const auto& g : doc["extensions"]["VRM"]["secondaryAnimation"]["colliderGroups"]) {
    int node = g["node"];
    glm::dmat4 w(1.0);
    for (int n = node; n != -1; n = parent[n]) w = local(n) * w;
    for (const auto& c : g["colliders"]) {
      glm::dvec4 p = w * glm::dvec4(c["offset"]["x"].get<double>(), c["offset"]["y"].get<double>(),
                                    -c["offset"]["z"].get<double>(), 1.0);
      out.emplace_back(-p.x, p.y, -p.z);  // 180 degrees about +Y
    }
  }
  return out;
}

TEST(RoundTrip, Vrm0ToVrm1KeepsColliderWorldPositionsAndChainShape) {
  HS_LOAD_SHARED_OR_SKIP(v0, "avatars/godette.vrm");
  auto v1 = Reload(v0.avatar, true);
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  auto rig0 = BuildRig(v0.avatar);
  auto rig1 = BuildRig(v1->avatar);
  ASSERT_TRUE(rig0.ok() && rig1.ok());

  std::vector<glm::vec3> reference = RawVrm0ColliderCentres(v0_path);
  ASSERT_EQ(reference.size(), v1->avatar.vrm.colliders.size());
  for (size_t c = 0; c < reference.size(); ++c) {
    const Collider& col0 = v0.avatar.vrm.colliders[c];
    const Collider& col1 = v1->avatar.vrm.colliders[c];
    glm::vec3 p0 = WorldPoint(*rig0, rig0->node_to_rig()[col0.node], col0.offset);
    glm::vec3 p1 = WorldPoint(*rig1, rig1->node_to_rig()[col1.node], col1.offset);
    EXPECT_LT(glm::length(p0 - reference[c]), 1e-5f) << "collider " << c << " import";
    EXPECT_LT(glm::length(p1 - reference[c]), 1e-5f) << "collider " << c << " after VRM 1.0 write";
    EXPECT_EQ(col0.radius, col1.radius);
  }
  // Chain rest shape: the same joint world positions, virtual tails now real end nodes.
  ASSERT_EQ(rig0->chains().size(), rig1->chains().size());
  for (size_t c = 0; c < rig0->chains().size(); ++c) {
    const RigChain& a = rig0->chains()[c];
    const RigChain& b = rig1->chains()[c];
    ASSERT_EQ(a.joint_end - a.joint_begin, b.joint_end - b.joint_begin) << "chain " << c;
    EXPECT_EQ(a.joint_end - a.joint_begin, 3);  // bone, _End, tail
    for (int j = 0; j < a.joint_end - a.joint_begin; ++j) {
      glm::vec3 pa(rig0->rest_world()[rig0->joint_node()[a.joint_begin + j]][3]);
      glm::vec3 pb(rig1->rest_world()[rig1->joint_node()[b.joint_begin + j]][3]);
      EXPECT_LT(glm::length(pa - pb), 1e-6f) << "chain " << c << " joint " << j;
    }
  }
  for (const auto& s : v1->avatar.vrm.springs) {
    EXPECT_FALSE(s.has_virtual_tail);
    EXPECT_EQ(s.joints.size(), 3u);
  }
}

// VRM 0.x written back as VRM 0.x (the default for 0.x input): the file's own VRM extension and
// materials, the axes turned back, and springs/colliders as secondaryAnimation that read back to
// the same chains and the same collider world positions. A spring of its own (as the fitter
// makes) becomes a bone group of its own; a capsule becomes a row of spheres, with a warning.
TEST(RoundTrip, Vrm0StaysVrm0WithItsFaceAndSprings) {
  HS_LOAD_SHARED_OR_SKIP(v0, "avatars/godette.vrm");
  auto back = Reload(v0.avatar, true, VrmOutput::kKeepInput);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const Avatar& a = v0.avatar;
  const Avatar& b = back->avatar;
  EXPECT_EQ(b.vrm.version, VrmVersion::kV0);
  EXPECT_EQ(Json::parse(a.vrm.vrm0_json)["blendShapeMaster"],
            Json::parse(b.vrm.vrm0_json)["blendShapeMaster"]);
  EXPECT_EQ(Json::parse(a.vrm.vrm0_json)["materialProperties"],
            Json::parse(b.vrm.vrm0_json)["materialProperties"]);
  EXPECT_EQ(a.vrm.vrm0_materials_json.size(), b.vrm.vrm0_materials_json.size());
  for (size_t i = 0; i < a.vrm.vrm0_materials_json.size(); ++i)
    EXPECT_EQ(Json::parse(a.vrm.vrm0_materials_json[i]), Json::parse(b.vrm.vrm0_materials_json[i]));
  EXPECT_EQ(a.vrm.humanoid, b.vrm.humanoid);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t n = 0; n < a.nodes.size(); ++n) {
    EXPECT_LT(glm::length(a.nodes[n].translation - b.nodes[n].translation), 1e-6f) << n;
    EXPECT_GT(std::fabs(glm::dot(a.nodes[n].rotation, b.nodes[n].rotation)), 1.0f - 1e-6f) << n;
  }
  ASSERT_EQ(a.vrm.springs.size(), b.vrm.springs.size());
  for (size_t s = 0; s < a.vrm.springs.size(); ++s) {
    ASSERT_EQ(a.vrm.springs[s].joints.size(), b.vrm.springs[s].joints.size()) << s;
    for (size_t j = 0; j < a.vrm.springs[s].joints.size(); ++j) {
      const SpringJoint &x = a.vrm.springs[s].joints[j], &y = b.vrm.springs[s].joints[j];
      EXPECT_EQ(x.node, y.node);
      EXPECT_FLOAT_EQ(x.stiffness, y.stiffness);
      EXPECT_LT(glm::length(x.gravity_dir - y.gravity_dir), 1e-6f);
    }
  }
  ASSERT_EQ(a.vrm.colliders.size(), b.vrm.colliders.size());
  for (size_t c = 0; c < a.vrm.colliders.size(); ++c) {
    EXPECT_EQ(a.vrm.colliders[c].node, b.vrm.colliders[c].node);
    EXPECT_LT(glm::length(a.vrm.colliders[c].offset - b.vrm.colliders[c].offset), 1e-6f);
  }

  // A spring of its own and a capsule collider.
  Avatar fitted = a;
  Spring own = fitted.vrm.springs[0];
  own.name = "fitted";
  own.source_group = -1;
  own.has_virtual_tail = false;
  own.joints.pop_back();
  Collider cap = fitted.vrm.colliders[0];
  cap.shape = ColliderShape::kCapsule;
  cap.tail = cap.offset + glm::vec3(0, 0.1f, 0);
  own.collider_groups = {static_cast<int>(fitted.vrm.collider_groups.size())};
  fitted.vrm.collider_groups.push_back(
      {"capsule", {static_cast<int>(fitted.vrm.colliders.size())}});
  fitted.vrm.colliders.push_back(cap);
  fitted.vrm.springs.push_back(own);
  std::vector<std::string> warnings;
  auto f = Reload(fitted, true, VrmOutput::kVrm0, &warnings);
  ASSERT_TRUE(f.ok()) << f.status().message();
  bool warned = false;
  for (const auto& w : warnings) warned = warned || w.find("no capsules") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_GT(f->avatar.vrm.colliders.size(), a.vrm.colliders.size() + 1);  // the capsule's spheres
  // The springs come back in their order: the file's first, then the one of its own.
  ASSERT_GT(f->avatar.vrm.springs.size(), a.vrm.springs.size());
  for (size_t i = 0; i < a.vrm.springs.size(); ++i)
    EXPECT_EQ(f->avatar.vrm.springs[i].joints.front().node, a.vrm.springs[i].joints.front().node)
        << i;
  bool found = false;  // its own bone group, named by its comment
  for (const Spring& sp : f->avatar.vrm.springs)
    found = found ||
            (sp.name.rfind("fitted/", 0) == 0 && sp.joints.front().node == own.joints.front().node);
  EXPECT_TRUE(found);
  // VRM 1.0 input cannot be written as VRM 0.x.
  Avatar v1 = b;
  v1.vrm.version = VrmVersion::kV1;
  EXPECT_FALSE(EncodeGlb(v1, true, VrmOutput::kVrm0).ok());
}

// The JSON chunk of a GLB, and a GLB with it replaced (the binary chunk kept): to edit a written
// file as another tool would.
Json GlbJson(const std::vector<uint8_t>& glb) {
  uint32_t len = 0;
  std::memcpy(&len, glb.data() + 12, 4);
  return Json::parse(glb.begin() + 20, glb.begin() + 20 + len);
}
std::vector<uint8_t> WithGlbJson(const std::vector<uint8_t>& glb, const Json& j) {
  uint32_t old_len = 0;
  std::memcpy(&old_len, glb.data() + 12, 4);
  std::string text = j.dump();
  text.resize((text.size() + 3) / 4 * 4, ' ');
  std::vector<uint8_t> out(glb.begin(), glb.begin() + 12);
  const uint32_t len = static_cast<uint32_t>(text.size()), type = 0x4E4F534A;  // "JSON"
  out.insert(out.end(), reinterpret_cast<const uint8_t*>(&len),
             reinterpret_cast<const uint8_t*>(&len) + 4);
  out.insert(out.end(), reinterpret_cast<const uint8_t*>(&type),
             reinterpret_cast<const uint8_t*>(&type) + 4);
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), glb.begin() + 20 + old_len, glb.end());
  const uint32_t total = static_cast<uint32_t>(out.size());
  std::memcpy(out.data() + 8, &total, 4);
  return out;
}

// A VRM 0.x bone group has one set of parameters and no angle limits; what a spring has beyond
// that (per-joint stiffness, drag, gravity and hit radius, cone and hinge limits with their
// rotations, whole-link checks: what fit, wear and tune give) is kept in the group's extras and
// read back exactly by hairswing. A group whose values were edited by another tool that kept
// the extras, or extras that do not match the chain, fall back to the group's values with a
// warning; a group with nothing beyond its values gets no extras.
TEST(RoundTrip, Vrm0KeepsPerJointSettingsAndLimitsInItsBoneGroupsExtras) {
  HS_LOAD_SHARED_OR_SKIP(v0, "avatars/godette.vrm");
  Avatar a = v0.avatar;
  size_t si = 0;  // the longest spring; its last joint swings too (a VRM 0.x virtual tail)
  for (size_t i = 0; i < a.vrm.springs.size(); ++i)
    if (a.vrm.springs[i].joints.size() > a.vrm.springs[si].joints.size()) si = i;
  Spring& sp = a.vrm.springs[si];
  ASSERT_GE(sp.joints.size(), 2u);
  ASSERT_TRUE(sp.has_virtual_tail);
  for (size_t k = 0; k < sp.joints.size(); ++k) {
    SpringJoint& j = sp.joints[k];
    const float f = static_cast<float>(k);
    j.stiffness = 0.5f + 0.25f * f;
    j.drag_force = 0.1f + 0.1f * f;
    j.gravity_power = 0.05f * f;
    j.hit_radius = 0.01f + 0.001f * f;
    j.gravity_dir = glm::normalize(glm::vec3(0.1f * f, -1.0f, 0.2f));
  }
  sp.joints[0].limit.kind = JointLimit::Kind::kCone;
  sp.joints[0].limit.angle = 0.5f;
  sp.joints[0].limit.rotation = glm::angleAxis(0.3f, glm::normalize(glm::vec3(1, 2, 3)));
  sp.joints[1].limit.kind = JointLimit::Kind::kHinge;
  sp.joints[1].limit.angle = 0.7f;
  sp.joints[1].limit.rotation = glm::angleAxis(0.2f, glm::vec3(0, 0, 1));
  sp.segment_checks = true;
  const Spring want = sp;

  auto bytes = EncodeGlb(a, true, VrmOutput::kVrm0);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto back = LoadAvatarFromMemory(bytes->data(), bytes->size(), "x.vrm", ".");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->avatar.vrm.springs.size(), a.vrm.springs.size());
  const Spring& got = back->avatar.vrm.springs[si];
  ASSERT_EQ(got.joints.size(), want.joints.size());
  EXPECT_TRUE(got.segment_checks);
  for (size_t k = 0; k < want.joints.size(); ++k) {
    SCOPED_TRACE("joint " + std::to_string(k));
    EXPECT_EQ(got.joints[k].stiffness, want.joints[k].stiffness);
    EXPECT_EQ(got.joints[k].drag_force, want.joints[k].drag_force);
    EXPECT_EQ(got.joints[k].gravity_power, want.joints[k].gravity_power);
    EXPECT_EQ(got.joints[k].hit_radius, want.joints[k].hit_radius);
    EXPECT_LT(glm::length(got.joints[k].gravity_dir - want.joints[k].gravity_dir), 1e-6f);
    EXPECT_TRUE(got.joints[k].limit == want.joints[k].limit);
  }
  // Only that group has extras: the others say everything with their one set of values.
  const Json groups = GlbJson(*bytes)["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"];
  int with_extras = 0;
  for (const Json& g : groups) with_extras += g.contains("extras") ? 1 : 0;
  EXPECT_EQ(with_extras, 1);

  // Another tool edits that group's stiffness and keeps the extras: the group's value stands.
  auto edited = [&](const std::function<void(Json&)>& edit, const std::string& warning) {
    Json j = GlbJson(*bytes);
    for (Json& g : j["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"])
      if (g.contains("extras")) edit(g);
    const std::vector<uint8_t> glb = WithGlbJson(*bytes, j);
    auto r = LoadAvatarFromMemory(glb.data(), glb.size(), "x.vrm", ".");
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) return;
    const Spring& s = r->avatar.vrm.springs[si];
    for (const SpringJoint& jt : s.joints) {
      EXPECT_EQ(jt.limit.kind, JointLimit::Kind::kNone) << warning;
      EXPECT_EQ(jt.stiffness, s.joints[0].stiffness) << warning;
    }
    bool warned = false;
    for (const std::string& w : r->warnings)
      warned = warned || w.find(warning) != std::string::npos;
    EXPECT_TRUE(warned) << warning;
  };
  edited([](Json& g) { g["stiffiness"] = 2.0; }, "the group was edited");
  edited([](Json& g) { g["extras"]["hairswing_springs"]["springs"][0]["joints"].erase(0); },
         "joints for a chain of");
  edited([](Json& g) { g["extras"]["hairswing_springs"]["springs"][0]["joints"][0]["node"] = 0; },
         "not the chain's joint");
  edited([](Json& g) { g["extras"]["hairswing_springs"] = "not an object"; }, "expected an object");
  edited(
      [](Json& g) {
        g["extras"]["hairswing_springs"]["springs"][0]["joints"][0]["VRMC_springBone_limit"]
         ["limit"]["cone"]
             .erase("angle");
      },
      "angle: missing");
}

// Every avatar file the tests and ../shared/data hold that loads (a property, not a list of
// fixtures): written in its own VRM version it reads back as the same avatar (ExpectSameAvatar:
// nodes, skins, meshes, springs, colliders, constraints, humanoid, meta, images, extensions);
// a VRM 0.x file written as VRM 1.0 reads back with the same springs, joints (each 0.x chain
// gains its tip node), colliders and hair vertices.
std::vector<std::string> AvatarFilesUnder(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return out;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if (it->is_regular_file() && (ext == ".vrm" || ext == ".glb" || ext == ".gltf"))
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Counts {
  size_t springs = 0, joints = 0, colliders = 0;
  int hair_vertices = 0;
  bool operator==(const Counts&) const = default;
};

Counts CountsOf(const Avatar& av) {
  Counts c;
  c.springs = av.vrm.springs.size();
  for (const auto& s : av.vrm.springs) c.joints += s.joints.size() + (s.has_virtual_tail ? 1 : 0);
  c.colliders = av.vrm.colliders.size();
  auto rig = BuildRig(av);
  c.hair_vertices = rig.ok() ? HairVertexCount(av, *rig) : -1;
  return c;
}

TEST(RoundTripProperty, EveryAvatarFileReadsBackTheSame) {
  std::vector<std::string> files;
  for (const char* dir : {"compat", "compressed"})
    for (auto& f : AvatarFilesUnder(test::TestData(dir))) files.push_back(f);
  const size_t local = files.size();
  for (auto& f : AvatarFilesUnder(test::Shared(""))) files.push_back(f);
  if (files.size() == local) std::cout << "[ note ] ../shared/data absent: tests/data only\n";
  size_t checked = 0, vrm0 = 0;
  for (const std::string& path : files) {
    auto loaded = LoadAvatar(path);
    if (!loaded.ok()) continue;  // the corpora's error cases (their own tests check them)
    SCOPED_TRACE(path);
    const Avatar& av = loaded->avatar;
    const bool as_vrm = !av.vrm.humanoid.empty();
    const bool is_vrm0 = av.vrm.version == VrmVersion::kV0;
    auto same = Reload(av, as_vrm, is_vrm0 ? VrmOutput::kVrm0 : VrmOutput::kVrm1);
    ASSERT_TRUE(same.ok()) << same.status().message();
    ExpectSameAvatar(av, same->avatar);
    if (is_vrm0) {
      ++vrm0;
      auto v1 = Reload(av, as_vrm, VrmOutput::kVrm1);
      ASSERT_TRUE(v1.ok()) << v1.status().message();
      EXPECT_TRUE(CountsOf(av) == CountsOf(v1->avatar));
    }
    ++checked;
  }
  std::cout << "[ note ] " << checked << " avatar files round-tripped (" << vrm0
            << " VRM 0.x, also as VRM 1.0)\n";
  EXPECT_GE(checked, 20u);
}

TEST(Save, AtomicAndNeverOverwritesWithoutForce) {
  auto a = LoadAvatar(test::TestData("broken/valid_base.gltf"));
  ASSERT_TRUE(a.ok());
  std::string dir = ::testing::TempDir() + "/hs_save_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string out = dir + "/o.glb";
  ASSERT_TRUE(SaveAvatar(a->avatar, out).ok());
  auto size1 = std::filesystem::file_size(out);
  { std::ofstream(out) << "x"; }
  Status st = SaveAvatar(a->avatar, out);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--force"), std::string::npos);
  EXPECT_EQ(std::filesystem::file_size(out), 1u);
  EXPECT_TRUE(SaveAvatar(a->avatar, out, {true}).ok());
  EXPECT_EQ(std::filesystem::file_size(out), size1);
  EXPECT_FALSE(SaveAvatar(a->avatar, dir + "/o.txt").ok());
  // A .vrm needs a humanoid; this scene has none.
  Status no_humanoid = SaveAvatar(a->avatar, dir + "/o.vrm");
  EXPECT_FALSE(no_humanoid.ok());
  EXPECT_FALSE(std::filesystem::exists(dir + "/o.vrm"));
  size_t files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) (void)e, ++files;
  EXPECT_EQ(files, 1u) << "a temporary file was left behind";
}

}  // namespace
}  // namespace hairswing
