// Hostile-input fixes of issue 16, one root cause per test, on the broken corpus' valid base
// scene edited in memory (the CLI-level corpus is tests/hostile, run by ctest hostile.corpus).
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hairswing/demo.h"
#include "hairswing/files.h"
#include "hairswing/fit.h"
#include "hairswing/io.h"
#include "test_util.h"

namespace hairswing {
namespace {

using Json = nlohmann::json;

Json Base() {
  std::ifstream f(test::TestData("broken/valid_base.gltf"));
  std::stringstream ss;
  ss << f.rdbuf();
  return Json::parse(ss.str());
}

Result<LoadedAvatar> LoadText(const std::string& text) {
  return LoadAvatarFromMemory(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "h.gltf",
                              "/nonexistent");
}
Result<LoadedAvatar> LoadJson(const Json& j) { return LoadText(j.dump()); }

void ExpectRejected(const Json& j, const std::string& field) {
  auto r = LoadJson(j);
  ASSERT_FALSE(r.ok()) << "loaded; expected an error naming " << field;
  EXPECT_NE(r.status().message().find(field), std::string::npos) << r.status().message();
}

TEST(Hostile, DeepNestingIsRefusedBeforeParsing) {
  Json j = Base();
  j["nodes"][0]["extras"] = "@";
  std::string text = j.dump();
  const std::string deep = std::string(100000, '[') + "0" + std::string(100000, ']');
  text.replace(text.find("\"@\""), 3, deep);
  auto r = LoadText(text);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nested deeper than 128"), std::string::npos)
      << r.status().message();
  // 100 levels are fine (the limit is not in the way of real extras).
  j["nodes"][0]["extras"] = Json::parse(std::string(100, '[') + std::string(100, ']'));
  EXPECT_TRUE(LoadJson(j).ok());
}

TEST(Hostile, AMemoryBombOfSmallValuesIsRefusedBeforeParsing) {
  // 10 MB of `[0,0,...]` in an extras took 1 GB to parse (about 100 bytes per value): refused by
  // its count before any parser sees it, with the byte where it passed the limit.
  Json j = Base();
  const size_t base_count = [&] {
    const std::string t = j.dump();
    return static_cast<size_t>(
        std::count_if(t.begin(), t.end(), [](char c) { return c == ',' || c == '[' || c == '{'; }));
  }();
  j["nodes"][0]["extras"] = "@";
  std::string text = j.dump();
  auto zeros = [](size_t n) {  // n values counted: the '[' and n - 1 commas
    std::string z = "[0";
    z.reserve(2 * n + 1);
    for (size_t i = 1; i < n; ++i) z += ",0";
    return z + "]";
  };
  std::string bomb = text;
  bomb.replace(bomb.find("\"@\""), 3, zeros(kMaxJsonValues - base_count + 1));
  auto r = LoadText(bomb);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than 4000000 values"), std::string::npos)
      << r.status().message();
  // Exactly at the limit the count passes (parsing 4 million values is left out: 400 MB).
  std::string at = text;
  at.replace(at.find("\"@\""), 3, zeros(kMaxJsonValues - base_count));
  EXPECT_EQ(JsonValuesError(at), "");
  EXPECT_NE(JsonValuesError(bomb), "");
}

TEST(Hostile, JsonValuesAreCountedOutsideStringsOnly) {
  EXPECT_EQ(JsonValuesError(R"({"a": [1, 2], "b": {}})", 5), "");  // { [ , , {
  EXPECT_NE(JsonValuesError(R"({"a": [1, 2], "b": {}})", 4), "");
  // Commas, brackets and escaped quotes inside strings are not values.
  EXPECT_EQ(JsonValuesError(R"({"a": ",,,[[{{\",,"})", 1), "");
  EXPECT_NE(JsonValuesError(R"({"a": ",,,[[{{\",,", "b": 1})", 1), "");
}

TEST(Hostile, WrongJsonTypesAreRejectedNotDropped) {
  auto with = [](auto edit) {
    Json j = Base();
    edit(j);
    return j;
  };
  ExpectRejected(with([](Json& j) {
                   j["nodes"][1]["translation"] = {"a", "b", "c"};
                 }),
                 "nodes[1].translation[0]");
  ExpectRejected(with([](Json& j) {
                   j["nodes"][1]["translation"] = {1, 2};
                 }),
                 "nodes[1].translation");
  ExpectRejected(with([](Json& j) { j["nodes"][1]["rotation"] = {0, 0, 0}; }), "nodes[1].rotation");
  ExpectRejected(with([](Json& j) {
                   j["nodes"][1]["matrix"] = Json::array({1, 0, 0});
                 }),
                 "nodes[1].matrix");
  ExpectRejected(with([](Json& j) { j["nodes"][0]["children"] = {"1"}; }), "nodes[0].children[0]");
  ExpectRejected(with([](Json& j) { j["nodes"][3]["mesh"] = 0.5; }), "nodes[3].mesh");
  ExpectRejected(with([](Json& j) { j["nodes"][3]["mesh"] = true; }), "nodes[3].mesh");
  ExpectRejected(with([](Json& j) { j["nodes"][3]["mesh"] = 4294967296.0; }), "nodes[3].mesh");
  ExpectRejected(with([](Json& j) { j["extensions"] = {1}; }), "extensions");
  ExpectRejected(with([](Json& j) { j["extensionsRequired"] = {"EXT_made_up"}; }), "EXT_made_up");
  ExpectRejected(with([](Json& j) {
                   j["materials"] = {{{"alphaMode", 5}}};
                 }),
                 "materials[0].alphaMode");
  ExpectRejected(
      with([](Json& j) {
        j["materials"] = {{{"pbrMetallicRoughness", {{"baseColorFactor", {1, 1, 1, "x"}}}}}};
      }),
      "baseColorFactor[3]");
  ExpectRejected(with([](Json& j) {
                   j["materials"] = {{{"pbrMetallicRoughness", 5}}};
                 }),
                 "materials[0].pbrMetallicRoughness");
  ExpectRejected(with([](Json& j) { j.erase("asset"); }), "asset");
  // A required extension that only adds material data passes through.
  EXPECT_TRUE(LoadJson(with([](Json& j) {
                j["extensionsRequired"] = {"KHR_materials_unlit"};
                j["extensionsUsed"].push_back("KHR_materials_unlit");
              })).ok());
}

TEST(Hostile, ValuesSurviveTheRoundTrip) {
  // Each was accepted on read and then written as something the reader refused.
  Json j = Base();
  j["nodes"][1]["translation"] = {0, 1e30, 0};
  j["nodes"][2]["rotation"] = {1e20, 0, 0, 0};
  j["extensions"]["VRMC_springBone"]["colliders"][0]["shape"]["sphere"]["radius"] = 3e38;
  auto r = LoadJson(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FLOAT_EQ(r->avatar.nodes[2].rotation.x, 1.0f);  // normalised in double, not zeroed
  auto bytes = EncodeGlb(r->avatar, false);
  ASSERT_TRUE(bytes.ok());
  auto again = LoadAvatarFromMemory(bytes->data(), bytes->size(), "again.glb", "/nonexistent");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->avatar.nodes[1].translation.y, r->avatar.nodes[1].translation.y);
  EXPECT_EQ(again->avatar.vrm.colliders[0].radius, r->avatar.vrm.colliders[0].radius);
}

TEST(Hostile, MemoryBudgetsNameTheField) {
  // One 5M-element accessor without a bufferView (zeros) drawn by 8 primitives: 120M values.
  Json j = Base();
  j["accessors"].push_back({{"componentType", 5126}, {"count", 5000000}, {"type", "VEC3"}});
  const int acc = static_cast<int>(j["accessors"].size()) - 1;
  Json prims = Json::array();
  for (int i = 0; i < 8; ++i) prims.push_back({{"attributes", {{"POSITION", acc}}}});
  j["meshes"].push_back({{"primitives", prims}});
  j["nodes"].push_back({{"mesh", 1}});
  LoadOptions small;
  small.max_decoded_values = 40'000'000;
  const std::string text = j.dump();
  auto r = LoadAvatarFromMemory(reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                                "h.gltf", "/nonexistent", small);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("max_decoded_values"), std::string::npos)
      << r.status().message();
  // Missing buffers: each small enough, together too much.
  Json m = Base();
  for (int i = 0; i < 40; ++i)
    m["buffers"].push_back({{"uri", "gone" + std::to_string(i) + ".bin"}, {"byteLength", 8 << 20}});
  LoadOptions few;
  few.max_missing_buffer_bytes = 64u << 20;
  const std::string mt = m.dump();
  auto mr = LoadAvatarFromMemory(reinterpret_cast<const uint8_t*>(mt.data()), mt.size(), "h.gltf",
                                 "/nonexistent", few);
  ASSERT_FALSE(mr.ok());
  EXPECT_NE(mr.status().message().find("add up to more"), std::string::npos)
      << mr.status().message();
}

TEST(Hostile, ClipLengthIsLimited) {
  const std::string bvh =
      "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Xposition Yposition Zposition\n"
      "End Site\n{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: 2\nFrame Time: 9\n0 0 0\n1 1 1\n";
  EXPECT_TRUE(LoadBvhFromText(bvh, "ok.bvh").ok());
  std::string long_bvh = bvh;
  long_bvh.replace(long_bvh.find("Frames: 2"), 9, "Frames: 401");
  for (int k = 0; k < 399; ++k) long_bvh += "0 0 0\n";
  auto r = LoadBvhFromText(long_bvh, "long.bvh");  // 401 x 9 s > 3600 s
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("3600 s"), std::string::npos) << r.status().message();
}

TEST(Hostile, JointsPastTheSkinAreRefusedUnlessWeightless) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  auto bytes = EncodeGlb(av, true);
  ASSERT_TRUE(bytes.ok());
  auto ok = LoadAvatarFromMemory(bytes->data(), bytes->size(), "a.vrm", "/nonexistent");
  ASSERT_TRUE(ok.ok());
  // Find a skinned primitive and point one influence past the skin.
  for (float w : {0.0f, 0.5f}) {
    Avatar bad = ok->avatar;
    Primitive* prim = nullptr;
    for (Mesh& m : bad.meshes)
      if (!m.primitives.empty() && !m.primitives[0].joints.empty()) prim = &m.primitives[0];
    ASSERT_NE(prim, nullptr);
    prim->joints[0][3] = 60000;
    prim->weights[0] = glm::vec4(1.0f - w, 0, 0, w);
    auto enc = EncodeGlb(bad, true);
    ASSERT_TRUE(enc.ok());
    auto r = LoadAvatarFromMemory(enc->data(), enc->size(), "b.vrm", "/nonexistent");
    if (w == 0.0f) {
      EXPECT_TRUE(r.ok()) << r.status().message();
    } else {
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.status().message().find("JOINTS_0"), std::string::npos) << r.status().message();
    }
  }
}

TEST(Hostile, TamperedUndoRecordFailsAndChangesNothing) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  auto sel = SelectHair(av, "material:Hair");
  ASSERT_TRUE(sel.ok());
  ASSERT_TRUE(FitHairChains(av, sel.value(), FitOptions{}).ok());
  Json undo = Json::parse(av.unknown_extensions.at("HAIRSWING_fit_undo"));
  for (auto edit : {+[](Json& u) {
                      u["primitives"][0]["joints"] = {1, 2};
                    },
                    +[](Json& u) { u["nodes_before"] = 1e12; },
                    +[](Json& u) { u["removed_springs"][0]["spring"]["joints"][0][0] = 99999; },
                    +[](Json& u) {
                      u["node_skin"] = {{"0", 99}};
                    }}) {
    Avatar tampered = av;
    Json u = undo;
    edit(u);
    tampered.unknown_extensions["HAIRSWING_fit_undo"] = u.dump();
    const Avatar before = tampered;
    Status st = UndoFit(tampered);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("HAIRSWING_fit_undo"), std::string::npos) << st.message();
    EXPECT_EQ(tampered.nodes.size(), before.nodes.size());
    EXPECT_EQ(tampered.vrm.springs.size(), before.vrm.springs.size());
  }
  EXPECT_TRUE(UndoFit(av).ok());  // the untouched record still undoes
}

TEST(Hostile, UndoStillRestoresHairThatWasNotSkinned) {
  // The undo checks must accept the record of rigid hair (no joints or weights before the fit).
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  for (Node& n : av.nodes)
    if (n.mesh >= 0 && av.meshes[n.mesh].name == "Ponytail") {
      n.skin = -1;
      for (Primitive& p : av.meshes[n.mesh].primitives) {
        p.joints.clear();
        p.weights.clear();
      }
    }
  const Avatar before = av;
  auto sel = SelectHair(av, "Ponytail");
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  auto fit = FitHairChains(av, sel.value(), FitOptions{});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  Status st = UndoFit(av);
  ASSERT_TRUE(st.ok()) << st.message();
  for (size_t m = 0; m < av.meshes.size(); ++m)
    for (size_t p = 0; p < av.meshes[m].primitives.size(); ++p) {
      EXPECT_EQ(av.meshes[m].primitives[p].joints.size(),
                before.meshes[m].primitives[p].joints.size());
      EXPECT_EQ(av.meshes[m].primitives[p].positions, before.meshes[m].primitives[p].positions);
    }
}

}  // namespace
}  // namespace hairswing
