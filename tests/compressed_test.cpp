// Compressed geometry (tests/data/compressed, written by make_compressed.py with Debian's
// draco_transcoder and gltfpack): KHR_draco_mesh_compression and EXT_meshopt_compression files
// load with the same mesh as their uncompressed source (within the encoders' quantization),
// write back uncompressed, and a damaged stream is one error line naming the extension.
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "hairswing/io.h"
#include "hairswing/rig.h"
#include "test_util.h"

namespace hairswing {
namespace {

struct CompressedCase {
  std::string file, result, expect;
};

std::vector<CompressedCase> ReadCompressedCases() {
  std::vector<CompressedCase> out;
  for (const auto& row : test::ReadTsv("compressed/expected.tsv"))
    out.push_back({row.at(0), row.at(1), row.at(2)});
  return out;
}

TEST(Compressed, CorpusHasBothEncodingsAndDamagedStreams) {
  size_t ok = 0, errors = 0;
  for (const auto& c : ReadCompressedCases()) (c.result == "ok" ? ok : errors)++;
  EXPECT_GE(ok, 5u);
  EXPECT_GE(errors, 2u);
}

TEST(Compressed, EachFileLoadsOrFailsWithOneLineNamingTheStream) {
  for (const auto& c : ReadCompressedCases()) {
    SCOPED_TRACE(c.file);
    auto r = LoadAvatar(test::TestData("compressed/" + c.file));
    if (c.result == "error") {
      test::ExpectOneLineError(r.status(), c.file, c.expect);
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
    ASSERT_EQ(r->avatar.vrm.springs.size(), 1u);
    EXPECT_EQ(r->avatar.vrm.springs[0].joints.size(), 4u);
  }
}

// One vertex as a viewer sees it at the rest pose: world position, normal, UV (after the
// material's texture transform), weight per joint node name, and the morph target's world move.
struct Vertex {
  glm::vec3 pos, normal, morph;
  glm::vec2 uv;
  std::map<std::string, float> weights;
};

std::vector<Vertex> RestVertices(const Avatar& av) {
  auto rig = BuildRig(av);
  EXPECT_TRUE(rig.ok()) << rig.status().message();
  std::vector<Vertex> out;
  if (!rig.ok()) return out;
  std::vector<glm::mat4> world(rig->rest_world().begin(), rig->rest_world().end());
  std::vector<glm::mat4> palette(256);
  for (const MeshInstance& inst : rig->meshes()) {
    for (const Primitive& prim : av.meshes[inst.mesh].primitives) {
      const size_t n = prim.positions.size();
      std::vector<glm::vec3> posed(n), moved(n);
      std::span<glm::mat4> pal(palette.data(),
                               inst.skin >= 0 ? rig->skins()[inst.skin].joints.size() : 0);
      EXPECT_TRUE(PosePrimitive(*rig, inst, prim, world, pal, posed).ok());
      Primitive shifted = prim;
      if (!prim.targets.empty() && !prim.targets[0].positions.empty())
        for (size_t v = 0; v < n; ++v) shifted.positions[v] += prim.targets[0].positions[v];
      EXPECT_TRUE(PosePrimitive(*rig, inst, shifted, world, pal, moved).ok());
      glm::vec2 uv_scale(1), uv_offset(0);
      if (prim.material >= 0) {
        const auto mat = nlohmann::json::parse(av.materials[prim.material].json);
        const auto* t = mat.contains("pbrMetallicRoughness") &&
                                mat["pbrMetallicRoughness"].contains("baseColorTexture")
                            ? &mat["pbrMetallicRoughness"]["baseColorTexture"]
                            : nullptr;
        if (t && t->contains("extensions") &&
            (*t)["extensions"].contains("KHR_texture_transform")) {
          const auto& tt = (*t)["extensions"]["KHR_texture_transform"];
          if (tt.contains("scale")) uv_scale = {tt["scale"][0], tt["scale"][1]};
          if (tt.contains("offset")) uv_offset = {tt["offset"][0], tt["offset"][1]};
        }
      }
      const auto uv = prim.extra_attributes.find("TEXCOORD_0");
      for (size_t v = 0; v < n; ++v) {
        Vertex x;
        x.pos = posed[v];
        x.morph = moved[v] - posed[v];
        x.normal = prim.normals.empty() ? glm::vec3(0) : glm::normalize(prim.normals[v]);
        x.uv = uv == prim.extra_attributes.end()
                   ? glm::vec2(-1)
                   : uv_offset +
                         uv_scale * glm::vec2(uv->second.data[v * 2], uv->second.data[v * 2 + 1]);
        for (int k = 0; k < 4 && !prim.joints.empty(); ++k) {
          if (prim.weights[v][k] == 0.0f) continue;
          const int node = rig->source_node()[rig->skins()[inst.skin].joints[prim.joints[v][k]]];
          x.weights[av.nodes[node].name] += prim.weights[v][k];
        }
        out.push_back(x);
      }
    }
  }
  return out;
}

size_t Triangles(const Avatar& av) {
  size_t n = 0;
  for (const auto& m : av.meshes)
    for (const auto& p : m.primitives) n += p.indices.size() / 3;
  return n;
}

// Every source vertex has a decoded vertex at its place with the same attributes, within the
// encoders' quantization (draco_transcoder: 11-bit positions over 0.3 m, 8-bit normals, 10-bit
// UVs, 8-bit weights; gltfpack: 14 / 8 / 12 bits).
void ExpectSameMesh(const Avatar& source, const Avatar& decoded) {
  const auto a = RestVertices(source), b = RestVertices(decoded);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a.size(), b.size());
  EXPECT_EQ(Triangles(source), Triangles(decoded));
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("source vertex " + std::to_string(i));
    size_t best = 0;
    for (size_t j = 1; j < b.size(); ++j)
      if (glm::distance(a[i].pos, b[j].pos) < glm::distance(a[i].pos, b[best].pos)) best = j;
    const Vertex& d = b[best];
    EXPECT_LT(glm::distance(a[i].pos, d.pos), 0.5e-3f);
    EXPECT_GT(glm::dot(a[i].normal, d.normal), 0.99f);
    EXPECT_LT(glm::distance(a[i].uv, d.uv), 2e-3f);
    EXPECT_LT(glm::distance(a[i].morph, d.morph), 0.3e-3f);
    // Per joint node, a missing entry counting as 0 (an 8-bit weight of 0.001 becomes 0).
    auto weight = [](const Vertex& x, const std::string& name) {
      const auto it = x.weights.find(name);
      return it == x.weights.end() ? 0.0f : it->second;
    };
    for (const Vertex* x : {&a[i], &d})
      for (const auto& [name, w] : x->weights)
        EXPECT_NEAR(weight(a[i], name), weight(d, name), 2.0f / 255.0f) << name;
  }
}

class CompressedFile : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(CompressedFile, DecodesToTheSourceMesh) {
  const auto [file, source] = GetParam();
  auto src = LoadAvatar(test::TestData(std::string("compressed/") + source));
  auto dec = LoadAvatar(test::TestData(std::string("compressed/") + file));
  ASSERT_TRUE(src.ok()) << src.status().message();
  ASSERT_TRUE(dec.ok()) << dec.status().message();
  ExpectSameMesh(src->avatar, dec->avatar);
  EXPECT_EQ(HairVertexCount(src->avatar, *BuildRig(src->avatar)),
            HairVertexCount(dec->avatar, *BuildRig(dec->avatar)));
}

TEST_P(CompressedFile, WritesBackUncompressedAndTheSame) {
  const auto [file, source] = GetParam();
  auto dec = LoadAvatar(test::TestData(std::string("compressed/") + file));
  ASSERT_TRUE(dec.ok()) << dec.status().message();
  {  // the strip is a glTF with VRMC_springBone: written as such (VRM 1.0 form)
    auto bytes = EncodeGlb(dec->avatar, false, VrmOutput::kVrm1);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    const std::string text(bytes->begin(), bytes->end());
    EXPECT_EQ(text.find("KHR_draco_mesh_compression"), std::string::npos);
    EXPECT_EQ(text.find("EXT_meshopt_compression"), std::string::npos);
    auto back = LoadAvatarFromMemory(bytes->data(), bytes->size(), "back.glb", "");
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_EQ(back->avatar.meshes.size(), dec->avatar.meshes.size());
    for (size_t m = 0; m < back->avatar.meshes.size(); ++m)
      for (size_t p = 0; p < back->avatar.meshes[m].primitives.size(); ++p) {
        const auto& x = dec->avatar.meshes[m].primitives[p];
        const auto& y = back->avatar.meshes[m].primitives[p];
        EXPECT_EQ(x.positions, y.positions);
        EXPECT_EQ(x.indices, y.indices);
        EXPECT_EQ(x.joints, y.joints);
        EXPECT_EQ(x.weights, y.weights);
        ASSERT_EQ(x.targets.size(), y.targets.size());
        for (size_t t = 0; t < x.targets.size(); ++t)
          EXPECT_EQ(x.targets[t].positions, y.targets[t].positions);
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, CompressedFile,
                         ::testing::Values(std::make_pair("strip_draco.glb", "strip_no_morph.glb"),
                                           std::make_pair("strip_meshopt.glb", "strip.glb"),
                                           std::make_pair("strip_meshopt_fallback.glb",
                                                          "strip.glb")),
                         [](const auto& info) {
                           std::string n = info.param.first;
                           return n.substr(6, n.size() - 10);  // "strip_X.glb" -> "X"
                         });

// A few bytes of stream claiming gigabytes (count x byteStride of 1.6 GB) are refused before the
// output is allocated.
TEST(Compressed, AMeshoptViewClaimingGigabytesIsRefused) {
  std::ifstream in(test::TestData("compressed/strip_meshopt.glb"), std::ios::binary);
  std::string glb((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint32_t json_len;
  std::memcpy(&json_len, glb.data() + 12, 4);
  auto doc = nlohmann::json::parse(glb.substr(20, json_len));
  bool changed = false;
  for (auto& v : doc["bufferViews"]) {
    if (!v.contains("extensions") || changed) continue;
    auto& e = v["extensions"]["EXT_meshopt_compression"];
    if (e.value("mode", "") != "ATTRIBUTES") continue;
    e["count"] = 50000000;
    e["byteStride"] = 32;
    e["filter"] = "NONE";
    v["byteLength"] = 1600000000;
    v["byteStride"] = 32;
    changed = true;
  }
  ASSERT_TRUE(changed);
  std::string json = doc.dump();
  while (json.size() % 4) json.push_back(' ');
  const uint32_t new_len = static_cast<uint32_t>(json.size());
  std::string out = glb.substr(0, 12);
  out.append(reinterpret_cast<const char*>(&new_len), 4);
  out.append(glb, 16, 4);
  out += json;
  out.append(glb, 20 + json_len, std::string::npos);
  const uint32_t total = static_cast<uint32_t>(out.size());
  std::memcpy(out.data() + 8, &total, 4);
  auto r = LoadAvatarFromMemory(reinterpret_cast<const uint8_t*>(out.data()), out.size(),
                                "bomb.glb", "");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("1 GiB"), std::string::npos) << r.status().message();
}

// The decoded streams of one file share one budget (LoadOptions::max_decoded_values x 4 bytes):
// a file of many views, each under the 1 GiB of one view, cannot decode to more than that in all.
TEST(Compressed, MeshoptViewsTogetherOverTheDecodedBudgetAreRefused) {
  std::ifstream in(test::TestData("compressed/strip_meshopt.glb"), std::ios::binary);
  std::string glb((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint32_t json_len;
  std::memcpy(&json_len, glb.data() + 12, 4);
  const auto doc = nlohmann::json::parse(glb.substr(20, json_len));
  size_t total = 0, largest = 0, views = 0;
  for (const auto& v : doc["bufferViews"]) {
    if (!v.contains("extensions")) continue;
    const auto& e = v["extensions"]["EXT_meshopt_compression"];
    const size_t bytes = e["count"].get<size_t>() * e["byteStride"].get<size_t>();
    total += bytes;
    largest = std::max(largest, bytes);
    ++views;
  }
  ASSERT_GE(views, 2u);
  ASSERT_EQ(total % 4, 0u);
  // Exactly enough for the streams: they decode, and what stops the load is the accessors
  // reading them again (their own count against the same budget, 2,200 values here).
  LoadOptions enough;
  enough.max_decoded_values = total / 4;
  auto at = LoadAvatar(test::TestData("compressed/strip_meshopt.glb"), enough);
  ASSERT_FALSE(at.ok());
  EXPECT_EQ(at.status().message().find("budget for decoded data"), std::string::npos)
      << at.status().message();
  EXPECT_NE(at.status().message().find("accessors["), std::string::npos) << at.status().message();
  LoadOptions short_by_one;
  short_by_one.max_decoded_values = total / 4 - 1;
  ASSERT_GE(short_by_one.max_decoded_values * 4, largest);  // each view alone would fit
  auto r = LoadAvatar(test::TestData("compressed/strip_meshopt.glb"), short_by_one);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("budget for decoded data"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("EXT_meshopt_compression"), std::string::npos)
      << r.status().message();
}

// A stream that claims more than the budget allows is refused before anything is allocated.
TEST(Compressed, MeshoptCountOverTheBudgetIsRefused) {
  LoadOptions small;
  small.max_elements = 16;  // above the file's array sizes, below its 80 vertices
  auto r = LoadAvatar(test::TestData("compressed/strip_meshopt.glb"), small);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("EXT_meshopt_compression.count"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace hairswing
