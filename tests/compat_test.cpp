// The compatibility corpus (tests/data/compat, written by make_compat.py; docs/compat.md): each
// deviation that three.js' GLTFLoader or UniVRM accept loads here too, with exactly the warning
// listed in expected.tsv, when its data is really there, and stays a one-line error when it is
// not. A GLB whose buffers[0].byteLength is shorter than its BIN chunk simulates and round-trips
// to a file whose byteLength is right.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hairswing/io.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"
#include "test_util.h"

namespace hairswing {
namespace {

struct CompatCase {
  std::string file, result, expect;
};

std::vector<CompatCase> ReadCompatCases() {
  std::vector<CompatCase> out;
  for (const auto& row : test::ReadTsv("compat/expected.tsv"))
    out.push_back({row.at(0), row.at(1), row.at(2)});
  return out;
}

TEST(Compat, CorpusCoversTheListedDeviations) { EXPECT_GE(ReadCompatCases().size(), 12u); }

TEST(Compat, EachFileLoadsWithItsWarningOrFailsWithItsError) {
  for (const auto& c : ReadCompatCases()) {
    SCOPED_TRACE(c.file);
    auto r = LoadAvatar(test::TestData("compat/" + c.file));
    if (c.result == "error") {  // the bytes are not there
      test::ExpectOneLineError(r.status(), c.file, c.expect);
      continue;
    }
    ASSERT_EQ(c.result, "ok");
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->avatar.vrm.springs.size(), 1u);
    if (c.expect == "-") {
      EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
    } else {
      ASSERT_EQ(r->warnings.size(), 1u);
      EXPECT_EQ(r->warnings[0].rfind(c.file + ": ", 0), 0u) << r->warnings[0];
      EXPECT_NE(r->warnings[0].find(c.expect), std::string::npos) << r->warnings[0];
    }
  }
}

// The GLB's buffer 0 as written: declared byteLength and the BIN chunk's length.
void GlbBufferLengths(const std::vector<uint8_t>& glb, size_t* declared, size_t* chunk) {
  uint32_t json_len, bin_len;
  std::memcpy(&json_len, glb.data() + 12, 4);
  const auto json =
      nlohmann::json::parse(std::string(reinterpret_cast<const char*>(glb.data()) + 20, json_len));
  *declared = json.at("buffers").at(0).at("byteLength").get<size_t>();
  std::memcpy(&bin_len, glb.data() + 20 + json_len, 4);
  *chunk = bin_len;
}

TEST(Compat, ShortByteLengthSimulatesAndRoundTripsToTheRightLength) {
  auto r = LoadAvatar(test::TestData("compat/glb_bytelength_short.glb"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->warnings.size(), 1u);
  // The image in the chunk's tail (bytes 0..63, see make_compat.py) is read in full.
  ASSERT_EQ(r->avatar.images.size(), 1u);
  ASSERT_EQ(r->avatar.images[0].bytes.size(), 64u);
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(r->avatar.images[0].bytes[i], i);
  // It simulates.
  auto rig = BuildRig(r->avatar);
  ASSERT_TRUE(rig.ok()) << rig.status().message();
  auto world = SpringWorld::Create(*rig);
  ASSERT_TRUE(world.ok());
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  world->Reset(pose);
  for (int i = 0; i < 120; ++i) {
    pose[0].translation.x = 0.001f * i;  // the head slides: the hair follows
    world->Step(pose);
  }
  for (const glm::vec3& t : world->tails())
    ASSERT_TRUE(std::isfinite(t.x) && std::isfinite(t.y) && std::isfinite(t.z));
  // Written back: byteLength matches the BIN chunk (up to its 4-byte padding) and reloads cleanly.
  auto glb = EncodeGlb(r->avatar, false);
  ASSERT_TRUE(glb.ok()) << glb.status().message();
  size_t declared = 0, chunk = 0;
  GlbBufferLengths(glb.value(), &declared, &chunk);
  EXPECT_LE(declared, chunk);
  EXPECT_GE(declared + 3, chunk);
  auto again = LoadAvatarFromMemory(glb->data(), glb->size(), "roundtrip.glb", ".");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->warnings.empty()) << again->warnings.front();
  ASSERT_EQ(again->avatar.images.size(), 1u);
  EXPECT_EQ(again->avatar.images[0].bytes, r->avatar.images[0].bytes);
}

}  // namespace
}  // namespace hairswing

namespace hairswing {
namespace {

// VRM 0.x index fields where three-vrm or UniVRM read -1 as "none" (docs/compat.md): a file with
// -1 there loads (the field counts as absent), while any other index out of range stays a
// one-line error naming the field. The base is tests/data/broken/valid_base.gltf (buffers as
// data: URIs) with a small VRM 0.x extension that uses every field.
nlohmann::json Vrm0Base() {
  std::ifstream in(test::TestData("broken/valid_base.gltf"));
  nlohmann::json d = nlohmann::json::parse(in);
  d.erase("extensions");
  d["extensionsUsed"] = {"VRM"};
  d["textures"] = nlohmann::json::array();
  d["extensions"]["VRM"] = {
      {"meta", {{"title", "minus one"}}},
      {"humanoid",
       {{"humanBones", {{{"bone", "head"}, {"node", 0}}, {{"bone", "neck"}, {"node", 0}}}}}},
      {"firstPerson",
       {{"firstPersonBone", 0}, {"meshAnnotations", {{{"mesh", 0}, {"firstPersonFlag", "Auto"}}}}}},
      {"blendShapeMaster",
       {{"blendShapeGroups",
         {{{"name", "A"},
           {"presetName", "a"},
           {"binds", {{{"mesh", 0}, {"index", 0}, {"weight", 100}}}}}}}}},
      {"secondaryAnimation",
       {{"boneGroups",
         {{{"bones", {1}}, {"center", 0}, {"colliderGroups", nlohmann::json::array()}}}},
        {"colliderGroups", nlohmann::json::array()}}}};
  return d;
}

Result<LoadedAvatar> LoadJson(const nlohmann::json& d) {
  const std::string text = d.dump();
  return LoadAvatarFromMemory(reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                              "minus_one.gltf", "");
}

struct MinusOneField {
  const char* pointer;  ///< JSON pointer below extensions/VRM
  const char* name;     ///< how the error names the field
};

class MinusOne : public ::testing::TestWithParam<MinusOneField> {};

TEST_P(MinusOne, MeansNoneWhileOtherOutOfRangeIndicesStayErrors) {
  const MinusOneField field = GetParam();
  const nlohmann::json::json_pointer at(std::string("/extensions/VRM") + field.pointer);
  nlohmann::json d = Vrm0Base();
  ASSERT_TRUE(LoadJson(d).ok()) << LoadJson(d).status().message();
  d[at] = -1;
  auto ok = LoadJson(d);
  ASSERT_TRUE(ok.ok()) << field.pointer << ": " << ok.status().message();
  EXPECT_EQ(ok->avatar.vrm.springs.size(), 1u) << "the rest of the file still reads";
  for (int bad : {-2, 99}) {
    d[at] = bad;
    auto err = LoadJson(d);
    ASSERT_FALSE(err.ok()) << field.pointer << " = " << bad;
    EXPECT_NE(err.status().message().find(field.name), std::string::npos) << err.status().message();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Vrm0, MinusOne,
    ::testing::Values(
        MinusOneField{"/meta/texture", "meta.texture"},
        MinusOneField{"/humanoid/humanBones/1/node", "humanBones[1].node"},
        MinusOneField{"/firstPerson/firstPersonBone", "firstPersonBone"},
        MinusOneField{"/firstPerson/meshAnnotations/0/mesh", "meshAnnotations[0].mesh"},
        MinusOneField{"/blendShapeMaster/blendShapeGroups/0/binds/0/mesh", "binds[0].mesh"},
        MinusOneField{"/secondaryAnimation/boneGroups/0/center", "boneGroups[0].center"}),
    [](const ::testing::TestParamInfo<MinusOneField>& info) {
      std::string n = info.param.name;
      for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

// Springs as node lists, for comparing two reads.
std::vector<std::vector<int>> SpringNodes(const Avatar& av) {
  std::vector<std::vector<int>> out;
  for (const Spring& s : av.vrm.springs) {
    out.emplace_back();
    for (const SpringJoint& j : s.joints) out.back().push_back(j.node);
  }
  return out;
}

// Spring names survive a VRM 0.x write: the reader names a spring "COMMENT/NODE" (or "NODE" when
// the group has no comment), so the writer puts the group's comment back, not the first spring's
// name (retargeting godette to .glb turned "FrontHair_R" into "FrontHair_Center_L/FrontHair_R").
TEST(Vrm0Writer, SpringNamesSurviveAWrite) {
  for (const char* comment : {"", "Hair"}) {
    nlohmann::json d = Vrm0Base();
    auto& group = d["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0];
    group["bones"] = {1, 2};
    group["comment"] = comment;
    auto first = LoadJson(d);
    ASSERT_TRUE(first.ok()) << first.status().message();
    auto bytes = EncodeGlb(first->avatar, true, VrmOutput::kVrm0, nullptr);
    ASSERT_TRUE(bytes.ok());
    auto again = LoadAvatarFromMemory(bytes->data(), bytes->size(), "again.vrm", "");
    ASSERT_TRUE(again.ok()) << again.status().message();
    ASSERT_EQ(again->avatar.vrm.springs.size(), first->avatar.vrm.springs.size());
    for (size_t i = 0; i < first->avatar.vrm.springs.size(); ++i)
      EXPECT_EQ(again->avatar.vrm.springs[i].name, first->avatar.vrm.springs[i].name)
          << "comment \"" << comment << "\"";
  }
}

// A VRM 0.x file that lists every bone of a chain as a bone-group root reads as one spring per
// listed root (as three-vrm reads it); written back as VRM 0.x it lists the same roots, so the
// springs survive (the writer used to keep only the outermost root: 2 springs became 1).
TEST(Vrm0Writer, ABoneGroupListingEveryBoneAsARootKeepsEverySpring) {
  for (const nlohmann::json& bones :
       {nlohmann::json{1, 2}, nlohmann::json{1}, nlohmann::json{2, 1}}) {
    nlohmann::json d = Vrm0Base();
    d["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"][0]["bones"] = bones;
    auto first = LoadJson(d);
    ASSERT_TRUE(first.ok()) << first.status().message();
    ASSERT_EQ(first->avatar.vrm.springs.size(), bones.size());
    std::vector<std::string> warnings;
    auto bytes = EncodeGlb(first->avatar, true, VrmOutput::kVrm0, &warnings);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    auto again = LoadAvatarFromMemory(bytes->data(), bytes->size(), "again.vrm", "");
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(SpringNodes(again->avatar), SpringNodes(first->avatar)) << bones.dump();
  }
}

bool HasWarning(const std::vector<std::string>& warnings, const std::string& what) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const std::string& w) { return w.find(what) != std::string::npos; });
}

// Nothing is dropped on write without a warning naming it: VRM 0.x holds colliders only in
// collider groups and has no form for a spring without joints.
TEST(Vrm0Writer, WhatVrm0CannotHoldIsNamedInAWarning) {
  auto first = LoadJson(Vrm0Base());
  ASSERT_TRUE(first.ok()) << first.status().message();
  Avatar av = first->avatar;
  Collider loose;
  loose.node = 0;
  loose.radius = 0.05f;
  av.vrm.colliders.push_back(loose);
  Spring empty;
  empty.name = "Nothing";
  av.vrm.springs.push_back(empty);
  std::vector<std::string> warnings;
  auto bytes = EncodeGlb(av, true, VrmOutput::kVrm0, &warnings);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_TRUE(HasWarning(warnings, "collider " + std::to_string(av.vrm.colliders.size() - 1) +
                                       " on node \"" + av.nodes[0].name +
                                       "\" is in no collider group"));
  EXPECT_TRUE(HasWarning(warnings, "spring \"Nothing\" has no joints"));
  // The control: the file as loaded writes without either warning.
  std::vector<std::string> clean;
  ASSERT_TRUE(EncodeGlb(first->avatar, true, VrmOutput::kVrm0, &clean).ok());
  EXPECT_FALSE(HasWarning(clean, "no collider group"));
  EXPECT_FALSE(HasWarning(clean, "has no joints"));
}

// VRM 0.x -> 1.0: an expression bind that cannot be carried over is named, not lost silently.
TEST(Vrm0Convert, ExpressionBindsThatCannotBeCarriedAreNamed) {
  nlohmann::json d = Vrm0Base();
  d["meshes"].push_back(d["meshes"][0]);  // mesh 1: drawn by no node
  auto& group = d["extensions"]["VRM"]["blendShapeMaster"]["blendShapeGroups"][0];
  group["binds"].push_back({{"mesh", 1}, {"index", 0}, {"weight", 100}});
  group["materialValues"] = {{{"materialName", "NoSuchMaterial"},
                              {"propertyName", "_Color"},
                              {"targetValue", {1, 0, 0, 1}}}};
  auto loaded = LoadJson(d);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(HasWarning(loaded->warnings, "binds[1]: mesh 1 is drawn by no node"));
  EXPECT_TRUE(HasWarning(loaded->warnings, "materialName \"NoSuchMaterial\" names no material"));
  auto plain = LoadJson(Vrm0Base());
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(HasWarning(plain->warnings, "drawn by no node"));
}

}  // namespace
}  // namespace hairswing
