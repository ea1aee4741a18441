// Per-chain tuning (include/hairswing/tune.h): selection by name and glob, the limit syntax, set
// and scale, the root-only limit, and the undo record (bit-exact, refused when tampered with).
#include "hairswing/tune.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hairswing/io.h"
#include "synthetic.h"

namespace hairswing {
namespace {

Avatar ThreeChains() {
  test::ChainSpec cs;
  cs.joints = 4;
  Avatar av = test::MakeHairAvatar({cs, cs, cs});
  av.vrm.springs[0].name = "Bangs_Left";
  av.vrm.springs[1].name = "bangs_right";
  av.vrm.springs[2].name = "Ponytail";
  return av;
}

std::vector<uint8_t> Bytes(const Avatar& av) {
  auto b = EncodeGlb(av, false, VrmOutput::kVrm1);
  EXPECT_TRUE(b.ok());
  return b.ok() ? b.value() : std::vector<uint8_t>{};
}

TEST(Tune, SelectsByGlobAndNameIgnoringCase) {
  const Avatar av = ThreeChains();
  auto bangs = SelectSprings(av, {"BANGS_*"});
  ASSERT_TRUE(bangs.ok());
  EXPECT_EQ(bangs.value(), (std::vector<int>{0, 1}));
  auto pony = SelectSprings(av, {"ponytail", "bangs_right"});
  ASSERT_TRUE(pony.ok());
  EXPECT_EQ(pony.value(), (std::vector<int>{1, 2}));
  auto typo = SelectSprings(av, {"ponytial"});
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("Ponytail"), std::string::npos) << typo.status().message();
}

TEST(Tune, LimitSyntaxReadsBackFromItsOwnFormat) {
  for (const char* text : {"none", "cone:30", "hinge:45", "hinge:45:90", "spherical:60,20"}) {
    auto l = ParseLimit(text);
    ASSERT_TRUE(l.ok()) << text << ": " << l.status().message();
    EXPECT_EQ(FormatLimit(l.value()), text);
  }
  auto z = ParseLimit("hinge:45:z");
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(FormatLimit(z.value()), "hinge:45:90");
  EXPECT_NEAR(ParseLimit("cone:90")->angle, 1.5707963f, 1e-6f);
  for (const char* bad : {"cone", "cone:-5", "cone:200", "cone:nan", "hinge:30:y", "spherical:30",
                          "spherical:30,95", "twist:10", "cone:30deg"})
    EXPECT_FALSE(ParseLimit(bad).ok()) << bad;
}

TEST(Tune, SetsScalesAndLimitsOnlyTheChosenChains) {
  Avatar av = ThreeChains();
  TuneSettings s;
  s.stiffness = 2.5f;
  s.limit = ParseLimit("cone:20").value();
  ASSERT_TRUE(TuneSprings(av, {0, 1}, s).ok());
  TuneSettings scale;
  scale.multiply = true;
  scale.drag_force = 4.0f;  // 0.4 x 4 = 1.6: kept at 1
  scale.stiffness = 0.5f;
  scale.limit = ParseLimit("hinge:30").value();
  scale.limit_root_only = true;
  ASSERT_TRUE(TuneSprings(av, {1}, scale).ok());
  const auto& j0 = av.vrm.springs[0].joints;
  const auto& j1 = av.vrm.springs[1].joints;
  const auto& j2 = av.vrm.springs[2].joints;
  EXPECT_EQ(j0[0].stiffness, 2.5f);
  EXPECT_EQ(j0[1].limit.kind, JointLimit::Kind::kCone);
  EXPECT_EQ(j0.back().limit.kind, JointLimit::Kind::kNone) << "the tail joint never has one";
  EXPECT_EQ(j1[0].stiffness, 1.25f);
  EXPECT_EQ(j1[0].drag_force, 1.0f);
  EXPECT_EQ(j1[0].limit.kind, JointLimit::Kind::kHinge);
  EXPECT_EQ(j1[1].limit.kind, JointLimit::Kind::kNone);
  EXPECT_EQ(j2[0].stiffness, 1.0f);
  EXPECT_EQ(j2[0].limit.kind, JointLimit::Kind::kNone);
}

TEST(Tune, UndoAfterSeveralTunesRestoresTheFileBitForBit) {
  const Avatar original = ThreeChains();
  const std::vector<uint8_t> before = Bytes(original);
  // Through a file and back between the tunes, as the command line does.
  Avatar av = original;
  TuneSettings a;
  a.gravity_power = 0.3f;
  a.gravity_dir = glm::vec3(1, -1, 0);
  ASSERT_TRUE(TuneSprings(av, {0}, a).ok());
  auto b1 = Bytes(av);
  auto r1 = LoadAvatarFromMemory(b1.data(), b1.size(), "t1.glb", "");
  ASSERT_TRUE(r1.ok());
  Avatar av2 = r1->avatar;
  TuneSettings b;
  b.hit_radius = 0.05f;
  b.limit = ParseLimit("spherical:40,10").value();
  ASSERT_TRUE(TuneSprings(av2, {0, 2}, b).ok());
  EXPECT_NE(Bytes(av2), before);
  ASSERT_TRUE(UndoTune(av2).ok());
  EXPECT_EQ(Bytes(av2), before);
  EXPECT_FALSE(UndoTune(av2).ok()) << "nothing left to undo";
}

TEST(Tune, ATamperedRecordIsRefusedAndChangesNothing) {
  Avatar av = ThreeChains();
  TuneSettings s;
  s.stiffness = 3.0f;
  ASSERT_TRUE(TuneSprings(av, {2}, s).ok());
  for (const char* record :
       {"{\"springs\":{\"7\":{\"joints\":[]}}}", "{\"springs\":{\"2\":{\"joints\":[1,2]}}}",
        "not json", "{\"springs\":{\"2\":{\"joints\":[{\"node\":1}]}}}"}) {
    Avatar copy = av;
    copy.unknown_extensions["HAIRSWING_tune_undo"] = record;
    EXPECT_FALSE(UndoTune(copy).ok()) << record;
    EXPECT_EQ(copy.unknown_extensions.at("HAIRSWING_tune_undo"), record);
    for (size_t i = 0; i < av.vrm.springs.size(); ++i)
      for (size_t k = 0; k < av.vrm.springs[i].joints.size(); ++k)
        EXPECT_EQ(copy.vrm.springs[i].joints[k].stiffness, av.vrm.springs[i].joints[k].stiffness)
            << record;
  }
}

// Every file in data/presets comes out of the compiled-in list with the values the file holds
// (read here with nlohmann from the source tree, independently of the embedding).
TEST(Tune, EveryPresetFileIsBuiltInWithItsValues) {
  const std::string dir = std::string(HS_PRESETS_DIR);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    ++files;
    std::ifstream in(e.path());
    const nlohmann::json j = nlohmann::json::parse(in);
    auto p = FindPreset(e.path().stem().string());
    ASSERT_TRUE(p.ok()) << e.path() << ": " << p.status().message();
    EXPECT_FALSE(p->description.empty());
    EXPECT_EQ(p->settings.stiffness, j["stiffness"].get<float>()) << e.path();
    EXPECT_EQ(p->settings.drag_force, j["drag_force"].get<float>()) << e.path();
    EXPECT_EQ(p->settings.gravity_power, j["gravity_power"].get<float>()) << e.path();
    EXPECT_EQ(p->settings.max_flip_deg, j["max_flip_deg"].get<float>()) << e.path();
  }
  EXPECT_GE(files, 7);
  EXPECT_EQ(static_cast<int>(BuiltinPresets().size()), files) << "a preset file did not parse";
  EXPECT_FALSE(FindPreset("pony-tail").ok());
  EXPECT_TRUE(FindPreset("PONYTAIL").ok());
}

// A flip budget gives each chain cones sized by its own length: a = 0.85 x 2 x budget / (n + 1).
TEST(Tune, FlipBudgetSizesTheConesPerChain) {
  test::ChainSpec short_chain, long_chain;
  short_chain.joints = 3;  // 2 swinging joints
  long_chain.joints = 7;   // 6
  Avatar av = test::MakeHairAvatar({short_chain, long_chain});
  TuneSettings s = FindPreset("bob")->settings;  // 45 degrees
  ASSERT_TRUE(TuneSprings(av, {0, 1}, s).ok());
  const float deg = 3.14159265f / 180.0f;
  EXPECT_NEAR(av.vrm.springs[0].joints[0].limit.angle, 0.85f * 2 * 45 * deg / 3, 1e-6f);
  EXPECT_NEAR(av.vrm.springs[1].joints[5].limit.angle, 0.85f * 2 * 45 * deg / 7, 1e-6f);
  EXPECT_EQ(av.vrm.springs[1].joints[6].limit.kind, JointLimit::Kind::kNone);
  EXPECT_EQ(av.vrm.springs[0].joints[0].stiffness, 1.2f);
}

}  // namespace
}  // namespace hairswing
