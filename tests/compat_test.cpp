// The compatibility corpus (tests/data/compat, written by make_compat.py; docs/compat.md): each
// deviation that three.js' GLTFLoader or UniVRM accept loads here too, with exactly the warning
// listed in expected.tsv, when its data is really there, and stays a one-line error when it is
// not. A GLB whose buffers[0].byteLength is shorter than its BIN chunk simulates and round-trips
// to a file whose byteLength is right.
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

std::vector<CompatCase> ReadCases() {
  std::vector<CompatCase> out;
  std::ifstream f(test::TestData("compat/expected.tsv"));
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
    out.push_back({line.substr(0, t1), line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)});
  }
  return out;
}

TEST(Compat, CorpusCoversTheListedDeviations) { EXPECT_GE(ReadCases().size(), 12u); }

TEST(Compat, EachFileLoadsWithItsWarningOrFailsWithItsError) {
  for (const auto& c : ReadCases()) {
    SCOPED_TRACE(c.file);
    auto r = LoadAvatar(test::TestData("compat/" + c.file));
    if (c.result == "error") {
      ASSERT_FALSE(r.ok()) << "loaded although the bytes are not there";
      const std::string& msg = r.status().message();
      EXPECT_EQ(msg.rfind(c.file + ": ", 0), 0u) << msg;
      EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
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
