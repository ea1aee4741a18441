// Import of the real files in ../shared/data with exact expected counts. The expected figures
// come from ../shared/data/README.md and from reading the files' JSON by hand, not from our code.
#include "hairswing/io.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "test_util.h"

namespace hairswing {
namespace {

using Json = nlohmann::json;

using test::Shared;

bool AnyWarningContains(const Warnings& w, const std::string& s) {
  for (const auto& x : w)
    if (x.find(s) != std::string::npos) return true;
  return false;
}

size_t JointCount(const Avatar& av) {
  size_t n = 0;
  for (const auto& s : av.vrm.springs) n += s.joints.size();
  return n;
}

TEST(Import, GodetteVrm0) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "avatars/godette.vrm");
  const Avatar& av = loaded.avatar;
  EXPECT_EQ(av.vrm.version, VrmVersion::kV0);
  EXPECT_EQ(av.source_format, "vrm");
  EXPECT_EQ(av.vrm.humanoid.size(), 45u);
  ASSERT_EQ(av.skins.size(), 1u);
  EXPECT_EQ(av.skins[0].joints.size(), 68u);
  // 3 bone groups: 4 front-hair roots, 1 ribbon root, 3 hair-ball roots; each chain is one bone
  // plus its _End node (16 joints counting tips), and the _End leaf gets a 7 cm virtual tail.
  std::set<int> groups;
  std::map<int, int> roots_per_group;
  for (const auto& s : av.vrm.springs) {
    groups.insert(s.source_group);
    roots_per_group[s.source_group]++;
    EXPECT_EQ(s.joints.size(), 2u) << s.name;
    EXPECT_TRUE(s.has_virtual_tail) << s.name;
    EXPECT_NEAR(glm::length(s.virtual_tail), 0.07f, 1e-6f);
    std::string tip = av.nodes[s.joints[1].node].name;  // "FrontHair_L_End", "Ribbon_end"
    std::transform(tip.begin(), tip.end(), tip.begin(), ::tolower);
    EXPECT_NE(tip.find("_end"), std::string::npos) << s.name;
  }
  EXPECT_EQ(groups.size(), 3u);
  EXPECT_EQ(roots_per_group[0], 4);
  EXPECT_EQ(roots_per_group[1], 1);
  EXPECT_EQ(roots_per_group[2], 3);
  EXPECT_EQ(JointCount(av), 16u);
  // Per-group parameters as written in the file (stiffiness, dragForce, colliderGroups).
  for (const auto& s : av.vrm.springs) {
    const SpringJoint& j = s.joints[0];
    if (s.source_group == 0) {
      EXPECT_FLOAT_EQ(j.stiffness, 2.5f);
      EXPECT_FLOAT_EQ(j.drag_force, 0.4f);
      EXPECT_EQ(s.collider_groups, std::vector<int>{1});
    } else if (s.source_group == 1) {
      EXPECT_FLOAT_EQ(j.stiffness, 2.0f);
      EXPECT_EQ(s.collider_groups, std::vector<int>{0});
    } else {
      EXPECT_FLOAT_EQ(j.stiffness, 4.0f);
      EXPECT_FLOAT_EQ(j.drag_force, 0.1f);
      EXPECT_TRUE(s.collider_groups.empty());
    }
    EXPECT_FLOAT_EQ(j.hit_radius, 0.02f);
  }
  ASSERT_EQ(av.vrm.collider_groups.size(), 2u);
  EXPECT_EQ(av.vrm.collider_groups[0].colliders.size(), 2u);
  EXPECT_EQ(av.vrm.collider_groups[1].colliders.size(), 2u);
  ASSERT_EQ(av.vrm.colliders.size(), 4u);
  for (const auto& c : av.vrm.colliders) EXPECT_EQ(c.shape, ColliderShape::kSphere);
  EXPECT_FLOAT_EQ(av.vrm.colliders[0].radius, 0.1f);
  // Raw offset (x, 0.06, -0.04): z negated for VRM 0.x, then x and z negated by the 180 degree
  // turn -> (-x, 0.06, -0.04).
  EXPECT_NEAR(av.vrm.colliders[0].offset.y, 0.06f, 1e-6f);
  EXPECT_NEAR(av.vrm.colliders[0].offset.z, -0.04f, 1e-6f);
  // Meshes: FaceMesh (630 v, 15 morphs) and BodyMesh with primitives Body, GodotLogo, Backpack.
  ASSERT_EQ(av.meshes.size(), 2u);
  EXPECT_EQ(av.meshes[0].name, "FaceMesh");
  EXPECT_EQ(av.meshes[0].primitives[0].positions.size(), 630u);
  EXPECT_EQ(av.meshes[0].primitives[0].targets.size(), 15u);
  ASSERT_EQ(av.meshes[1].primitives.size(), 3u);
  std::vector<std::string> mats;
  for (const auto& p : av.meshes[1].primitives) mats.push_back(av.materials[p.material].name);
  EXPECT_EQ(mats, (std::vector<std::string>{"Body", "GodotLogo", "Backpack"}));
  // The meta is converted to VRM 1.0 fields.
  EXPECT_NE(av.vrm.meta_json.find("\"licenseUrl\""), std::string::npos);
  // CC_BY: credit required, redistribution and modification allowed (VRM 1.0's separate fields).
  const Json meta = Json::parse(av.vrm.meta_json);
  EXPECT_EQ(meta["creditNotation"], "required");
  EXPECT_EQ(meta["allowRedistribution"], true);
  EXPECT_EQ(meta["modification"], "allowModificationRedistribution");
  // The face is converted, not dropped: expressions (presets renamed), lookAt, first person,
  // and the MToon materials (tests/parity/vrm0_convert.mjs checks them against three-vrm).
  EXPECT_FALSE(AnyWarningContains(loaded.warnings, "blendShapeMaster"));
  const Json vrm = Json::parse(av.vrm.vrmc_vrm_json);
  EXPECT_TRUE(vrm["expressions"]["preset"].contains("blink"));
  EXPECT_TRUE(vrm["expressions"]["preset"].contains("happy"));  // v0 "joy"
  EXPECT_EQ(vrm["lookAt"]["type"], "expression");
  EXPECT_TRUE(vrm["firstPerson"]["meshAnnotations"].is_array());
  size_t mtoon = 0;
  for (const auto& m : av.materials)
    mtoon += Json::parse(m.json)["extensions"].contains("VRMC_materials_mtoon");
  EXPECT_GE(mtoon, 2u);
  // What 1.0 has no field for is named, not dropped silently.
  EXPECT_TRUE(AnyWarningContains(loaded.warnings, "_LightColorAttenuation"));
}

TEST(Import, GodetteFacesPlusZAfterNormalisation) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "avatars/godette.vrm");
  // VRM 0.x faces -Z; after import the face mesh (in front of the head) must lie at +Z of the
  // head bone, like every VRM 1.0 avatar. Compare mean face-vertex z with the head joint z.
  const Avatar& av = loaded.avatar;
  int head = av.vrm.humanoid.at("head");
  glm::mat4 w(1.0f);
  for (int n = head; n != -1; n = av.nodes[n].parent) {
    const Node& nd = av.nodes[n];
    glm::mat4 m = glm::mat4_cast(nd.rotation);
    m[0] *= nd.scale.x;
    m[1] *= nd.scale.y;
    m[2] *= nd.scale.z;
    m[3] = glm::vec4(nd.translation, 1);
    w = m * w;
  }
  float head_z = w[3].z;
  double mean_z = 0;
  const auto& face = av.meshes[0].primitives[0].positions;
  for (const auto& p : face) mean_z += p.z;
  mean_z /= face.size();
  EXPECT_GT(mean_z, head_z) << "face is behind the head: not facing +Z";
  int left_hand = av.vrm.humanoid.at("leftHand");
  // The avatar's left is +X when it faces +Z (VRM 1.0): its left hand must have x > 0.
  glm::vec3 lh(0);
  for (int n = left_hand; n != -1; n = av.nodes[n].parent) {
    const Node& nd = av.nodes[n];
    lh = nd.translation + nd.rotation * (nd.scale * lh);
  }
  EXPECT_GT(lh.x, 0.1f);
}

struct ConformanceCase {
  const char* file;
  int colliders;
  ColliderShape shape;
  float radius;
  glm::vec3 offset;
};

TEST(Import, VrmConformanceFixtures) {
  const ConformanceCase cases[] = {
      {"smoke_spring.vrm", 0, ColliderShape::kSphere, 0, {}},
      {"springbone_collider_sphere_x0p02_r0p1.vrm",
       1,
       ColliderShape::kSphere,
       0.1f,
       {0.02f, -0.1f, 0}},
      {"springbone_collider_capsule_x0p02_r0p1.vrm",
       1,
       ColliderShape::kCapsule,
       0.1f,
       {0.02f, -0.1f, 0}},
      {"springbone_extended_isphere_pmed.vrm",
       1,
       ColliderShape::kInsideSphere,
       0.2f,
       {0, -0.1f, 0}},
      {"springbone_extended_plane_with_base_sphere.vrm",
       1,
       ColliderShape::kPlane,
       0,
       {0, -0.08f, 0}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    std::string path = Shared(std::string("fixtures/vrm-conformance/") + c.file);
    if (path.empty()) GTEST_SKIP() << "../shared/data/fixtures/vrm-conformance not present";
    auto r = LoadAvatar(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Avatar& av = r->avatar;
    EXPECT_EQ(av.vrm.version, VrmVersion::kV1);
    EXPECT_EQ(av.vrm.humanoid.size(), 19u);
    size_t body_vertices = 0;
    for (const auto& m : av.meshes)
      for (const auto& p : m.primitives)
        body_vertices = std::max(body_vertices, p.positions.size());
    EXPECT_EQ(body_vertices, 1225u);
    ASSERT_EQ(av.vrm.springs.size(), 1u);
    EXPECT_EQ(av.vrm.springs[0].joints.size(), 4u);
    EXPECT_FLOAT_EQ(av.vrm.springs[0].joints[0].stiffness, 0.5f);
    EXPECT_FLOAT_EQ(av.vrm.springs[0].joints[0].gravity_power, 0.5f);
    ASSERT_EQ(static_cast<int>(av.vrm.colliders.size()), c.colliders);
    if (c.colliders == 0) continue;
    const Collider& col = av.vrm.colliders[0];
    EXPECT_EQ(col.shape, c.shape);
    EXPECT_NEAR(col.radius, c.radius, 1e-6f);
    EXPECT_NEAR(glm::length(col.offset - c.offset), 0.0f, 1e-6f);
    if (c.shape == ColliderShape::kCapsule) EXPECT_NEAR(col.tail.y, -0.05f, 1e-6f);
    if (c.shape == ColliderShape::kPlane) {
      EXPECT_NEAR(glm::length(col.normal - glm::vec3(0, 1, 0)), 0.0f, 1e-6f);
      EXPECT_TRUE(col.has_fallback);
    }
    // The inside-sphere file has neither specVersion nor a fallback shape; it must still load.
    if (c.shape == ColliderShape::kInsideSphere) EXPECT_FALSE(col.has_fallback);
    EXPECT_EQ(av.nodes[col.node].name, "head");
  }
}

TEST(Import, ThreeVrmFixturesWithMissingDisplayBuffers) {
  struct Case {
    const char* file;
    ColliderShape shape;
    float radius;
  };
  const Case cases[] = {{"sphere-collider.gltf", ColliderShape::kSphere, 0.5f},
                        {"inside-collider.gltf", ColliderShape::kInsideSphere, 1.25f},
                        {"plane-collider.gltf", ColliderShape::kPlane, 0.0f}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    std::string path = Shared(std::string("fixtures/three-vrm/") + c.file);
    if (path.empty()) GTEST_SKIP() << "../shared/data/fixtures/three-vrm not present";
    auto r = LoadAvatar(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Avatar& av = r->avatar;
    // The .bin files only feed display meshes: those are dropped, with a warning naming the file.
    EXPECT_TRUE(AnyWarningContains(r->warnings, "sphere_mesh.bin"));
    EXPECT_TRUE(av.meshes.empty());
    for (const auto& n : av.nodes) EXPECT_EQ(n.mesh, -1);
    ASSERT_EQ(av.nodes.size(), 6u);
    EXPECT_FLOAT_EQ(av.nodes[0].scale.x, 0.25f);
    ASSERT_EQ(av.vrm.springs.size(), 1u);
    const Spring& s = av.vrm.springs[0];
    ASSERT_EQ(s.joints.size(), 5u);
    EXPECT_FLOAT_EQ(s.joints[0].hit_radius, 0.25f);
    EXPECT_FLOAT_EQ(s.joints[0].drag_force, 0.4f);
    // The tip joint is written as {"node": 4}: every parameter takes the spec default.
    EXPECT_FLOAT_EQ(s.joints[4].drag_force, 0.5f);
    EXPECT_FLOAT_EQ(s.joints[4].stiffness, 1.0f);
    EXPECT_FLOAT_EQ(s.joints[4].hit_radius, 0.0f);
    ASSERT_EQ(av.vrm.colliders.size(), 1u);
    EXPECT_EQ(av.vrm.colliders[0].shape, c.shape);
    EXPECT_FLOAT_EQ(av.vrm.colliders[0].radius, c.radius);
    EXPECT_EQ(av.vrm.colliders[0].node, 5);
  }
}

TEST(Import, RealAvatarsAndAnimations) {
  struct Case {
    const char* file;
    size_t skin_joints;
    const char* mesh_material;
    size_t vertices;
    size_t animations;
  };
  const Case cases[] = {
      {"avatars/quaternius-casual.glb", 51, "Hair_Blond", 4320, 0},
      {"avatars/quaternius-soldier.glb", 51, "Hair_Brown", 4974, 0},
      {"avatars/ubc/Superhero_Female_FullBody.gltf", 65, "MI_Superhero_Female", 7376, 0},
      {"avatars/ubc/Hair_Long.gltf", 65, nullptr, 3080, 0},
      {"animations/ual1/AnimationLibrary_Godot_Standard.gltf", 53, nullptr, 0, 46},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    std::string path = Shared(c.file);
    if (path.empty()) GTEST_SKIP() << "../shared/data not present";
    auto r = LoadAvatar(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Avatar& av = r->avatar;
    ASSERT_FALSE(av.skins.empty());
    EXPECT_EQ(av.skins[0].joints.size(), c.skin_joints);
    EXPECT_EQ(av.animations.size(), c.animations);
    if (c.vertices) {
      bool found = false;
      for (const auto& m : av.meshes)
        for (const auto& p : m.primitives) {
          bool mat_ok = !c.mesh_material ||
                        (p.material >= 0 && av.materials[p.material].name == c.mesh_material);
          if (mat_ok && p.positions.size() == c.vertices) found = true;
        }
      EXPECT_TRUE(found) << "no primitive with " << c.vertices << " vertices";
    }
  }
}

TEST(Import, UbcMissingTexturesAreWarnings) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "avatars/ubc/Superhero_Female_FullBody.gltf");
  EXPECT_TRUE(AnyWarningContains(loaded.warnings, "T_Superhero_Female_Normal.png"));
  // Present images are kept as their encoded bytes (PNG signature intact).
  bool found_png = false;
  for (const auto& img : loaded.avatar.images)
    if (img.bytes.size() > 8 && img.bytes[1] == 'P' && img.bytes[2] == 'N' && img.bytes[3] == 'G')
      found_png = true;
  EXPECT_TRUE(found_png);
}

TEST(Import, VrmaKeepsUnknownExtensionAndTracks) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "animations/handmade-test.vrma");
  EXPECT_EQ(loaded.avatar.animations.size(), 1u);
  EXPECT_EQ(loaded.avatar.unknown_extensions.count("VRMC_vrm_animation"), 1u);
}

TEST(Import, EveryFileInSharedDataLoads) {
  std::string root = Shared("");
  if (root.empty()) GTEST_SKIP() << "../shared/data not present";
  int loaded = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    std::string ext = e.path().extension().string();
    if (ext != ".vrm" && ext != ".glb" && ext != ".gltf" && ext != ".vrma") continue;
    auto r = LoadAvatar(e.path().string());
    EXPECT_TRUE(r.ok()) << e.path() << ": " << r.status().message();
    ++loaded;
  }
  EXPECT_GE(loaded, 17);
}

TEST(Import, NoSpringsAvatar) {
  HS_LOAD_SHARED_OR_SKIP(loaded, "avatars/cryptovoxels-nosprings.vrm");
  EXPECT_EQ(loaded.avatar.vrm.version, VrmVersion::kV0);
  EXPECT_EQ(loaded.avatar.vrm.humanoid.size(), 43u);
  EXPECT_TRUE(loaded.avatar.vrm.springs.empty());
  EXPECT_TRUE(loaded.avatar.vrm.colliders.empty());
}

TEST(Check, WarnsAboutNonAncestorJointsAndZeroRadius) {
  auto r = LoadAvatar(test::TestData("broken/valid_base.gltf"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  Avatar av = r->avatar;
  EXPECT_TRUE(CheckAvatar(av).empty()) << CheckAvatar(av)[0];
  av.vrm.springs[0].joints[1].node = 3;  // "Mesh" is a sibling of Hair1, not its descendant
  av.vrm.colliders[0].radius = 0;
  Warnings w = CheckAvatar(av);
  EXPECT_TRUE(AnyWarningContains(w, "not an ancestor"));
  EXPECT_TRUE(AnyWarningContains(w, "radius 0"));
}

}  // namespace
}  // namespace hairswing

namespace hairswing {
namespace {

// A file from a stranger may not make us read files beside its folder (issue 16: an image URI
// "../../etc/passwd" was read and embedded in convert's output).
class UriConfinement : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("hairswing_uri_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "asset" / "sub");
    Write(root_ / "secret.bin", std::string(64, 'S'));
    Write(root_ / "secret.png", std::string("\x89PNG\r\n\x1a\nSECRET-IMAGE"));
    Write(root_ / "asset" / "inside.bin", std::string(64, 'I'));
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  static void Write(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
  }
  // A minimal glTF in asset/ with one node, one buffer and optionally one image.
  Result<LoadedAvatar> Load(const std::string& buffer_uri, const std::string& image_uri = "") {
    std::string json =
        R"({"asset":{"version":"2.0"},"nodes":[{"name":"n"}],"scenes":[{"nodes":[0]}],)"
        R"("buffers":[{"uri":")" +
        buffer_uri + R"(","byteLength":64}])";
    if (!image_uri.empty()) json += R"(,"images":[{"uri":")" + image_uri + R"("}])";
    json += "}";
    const auto path = root_ / "asset" / "a.gltf";
    Write(path, json);
    return LoadAvatar(path.string());
  }
  std::filesystem::path root_;
};

TEST_F(UriConfinement, ABufferOutsideTheFolderIsAnErrorNamingTheField) {
  for (const char* uri : {"../secret.bin", "%2e%2e/secret.bin", "sub/../../secret.bin"}) {
    auto r = Load(uri);
    ASSERT_FALSE(r.ok()) << uri << " was read";
    EXPECT_NE(r.status().message().find("buffers[0].uri"), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find("outside the asset's folder"), std::string::npos)
        << r.status().message();
  }
  // Inside the folder, also through a detour, loads.
  for (const char* uri : {"inside.bin", "sub/../inside.bin"}) {
    auto r = Load(uri);
    EXPECT_TRUE(r.ok()) << uri << ": " << r.status().message();
  }
}

TEST_F(UriConfinement, ASymlinkInTheFolderDoesNotLeadOut) {
  // The red team's second try: a link inside the folder, pointing at a file outside it.
  std::filesystem::create_symlink(root_ / "secret.bin", root_ / "asset" / "link.bin");
  auto r = Load("link.bin");
  ASSERT_FALSE(r.ok()) << "the link was followed out of the folder";
  EXPECT_NE(r.status().message().find("outside the asset's folder"), std::string::npos)
      << r.status().message();
  // A link that stays inside is fine.
  std::filesystem::create_symlink(root_ / "asset" / "inside.bin", root_ / "asset" / "alias.bin");
  auto ok = Load("alias.bin");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
}

TEST_F(UriConfinement, AnImageOutsideTheFolderIsNotReadNorWritten) {
  for (const char* uri : {"../secret.png", "%2E%2E/secret.png"}) {
    auto r = Load("inside.bin", uri);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->avatar.images.size(), 1u);
    EXPECT_TRUE(r->avatar.images[0].bytes.empty()) << uri << ": the outside file was read";
    bool warned = false;
    for (const auto& w : r->warnings) warned = warned || w.find("secret.png") != std::string::npos;
    EXPECT_TRUE(warned) << "no warning names the image";
    auto bytes = EncodeGlb(r->avatar, false);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    const std::string out(bytes->begin(), bytes->end());
    EXPECT_EQ(out.find("SECRET-IMAGE"), std::string::npos) << "the outside file was embedded";
  }
}

}  // namespace
}  // namespace hairswing

namespace hairswing {
namespace {

TEST_F(UriConfinement, FoldersFifosAndDevicesAreNamedNotOpened) {
  auto dir = LoadAvatar((root_ / "asset").string());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("is a directory"), std::string::npos)
      << dir.status().message();
  const auto fifo = root_ / "asset" / "pipe.bin";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO blocks until a writer comes: it must be refused, as a file and as a buffer.
  auto direct = LoadAvatar(fifo.string());
  ASSERT_FALSE(direct.ok());
  EXPECT_NE(direct.status().message().find("not a regular file"), std::string::npos)
      << direct.status().message();
  auto buffer = Load("pipe.bin");
  EXPECT_FALSE(buffer.ok()) << "a FIFO was read as a buffer";
  if (std::filesystem::exists("/dev/zero")) {
    auto dev = LoadAvatar("/dev/zero");
    ASSERT_FALSE(dev.ok());
    EXPECT_NE(dev.status().message().find("not a regular file"), std::string::npos);
  }
}

}  // namespace
}  // namespace hairswing

namespace hairswing {
namespace {

// An asset given as bytes without a folder (an upload to `hairswing view`, the C API's
// hs_avatar_load_memory, the WebAssembly package) names files by URI: none is read, whatever lies
// in the process's working folder. Given a folder, the same bytes read the files inside it.
TEST(Import, BytesWithoutAFolderReadNoFileTheAssetNames) {
  const std::string bin = "hs_probe_secret.bin", png = "hs_probe_secret.png";
  {
    std::ofstream b(bin, std::ios::binary);
    const std::string secret(36, 'Z');  // 0x5A bytes: floats of 1.5e16
    b << secret;
    std::ofstream p(png, std::ios::binary);
    p << "\x89PNG-secret-bytes";
  }
  const std::string gltf = R"({"asset":{"version":"2.0"},
    "buffers":[{"uri":"hs_probe_secret.bin","byteLength":36}],
    "bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36}],
    "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}],
    "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
    "images":[{"uri":"hs_probe_secret.png"}],
    "nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0})";
  const auto* bytes = reinterpret_cast<const uint8_t*>(gltf.data());
  auto none = LoadAvatarFromMemory(bytes, gltf.size(), "upload.gltf", "");
  ASSERT_TRUE(none.ok()) << none.status().message();
  ASSERT_EQ(none->avatar.images.size(), 1u);
  EXPECT_TRUE(none->avatar.images[0].bytes.empty());
  for (const Mesh& m : none->avatar.meshes)
    for (const Primitive& p : m.primitives)
      for (const glm::vec3& v : p.positions) EXPECT_NE(v.x, 0x1.b4b4b4p+53f) << "secret bytes read";
  std::string warnings;
  for (const auto& w : none->warnings) warnings += w + "\n";
  EXPECT_NE(warnings.find("hs_probe_secret.bin"), std::string::npos) << warnings;
  // The same bytes with the working folder given: the files are read (so the check above can
  // fail when the loader reads them).
  auto here = LoadAvatarFromMemory(bytes, gltf.size(), "upload.gltf", ".");
  ASSERT_TRUE(here.ok()) << here.status().message();
  ASSERT_EQ(here->avatar.images.size(), 1u);
  EXPECT_FALSE(here->avatar.images[0].bytes.empty());
  ASSERT_EQ(here->avatar.meshes.size(), 1u);
  EXPECT_EQ(here->avatar.meshes[0].primitives[0].positions[0].x, 0x1.b4b4b4p+53f);
  std::remove(bin.c_str());
  std::remove(png.c_str());
}

}  // namespace
}  // namespace hairswing
