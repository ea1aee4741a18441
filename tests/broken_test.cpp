// The broken-input corpus (tests/data/broken, written by make_broken.py): every file fails with
// one line naming the file and the field listed in expected.tsv; nothing crashes.
#include <fstream>
#include <sstream>

#include "hairswing/io.h"
#include "test_util.h"

namespace hairswing {
namespace {

struct BrokenCase {
  std::string file;
  std::string expect;
};

std::vector<BrokenCase> ReadBrokenCases() {
  std::vector<BrokenCase> out;
  for (const auto& row : test::ReadTsv("broken/expected.tsv"))
    out.push_back({row.at(0), row.at(1)});
  return out;
}

TEST(Broken, CorpusHasAtLeastFifteenFiles) { EXPECT_GE(ReadBrokenCases().size(), 15u); }

TEST(Broken, EachFileGivesItsExpectedError) {
  for (const auto& c : ReadBrokenCases()) {
    SCOPED_TRACE(c.file);
    auto r = LoadAvatar(test::TestData("broken/" + c.file));
    test::ExpectOneLineError(r.status(), c.file, c.expect);
  }
}

TEST(Broken, ValidBaseLoads) {
  for (const char* f : {"broken/valid_base.gltf", "broken/valid_base.glb"}) {
    auto r = LoadAvatar(test::TestData(f));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->avatar.nodes.size(), 4u);
    EXPECT_EQ(r->avatar.vrm.springs.size(), 1u);
    EXPECT_TRUE(r->warnings.empty());
  }
}

// Every prefix of a valid GLB (truncation at any byte) is rejected cleanly, never loaded
// half-way or crashed on.
TEST(Broken, EveryTruncationOfAGlbIsRejected) {
  std::ifstream f(test::TestData("broken/valid_base.glb"), std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 100u);
  for (size_t n = 0; n < bytes.size(); n += 7) {
    auto r = LoadAvatarFromMemory(bytes.data(), n, "cut.glb", ".");
    EXPECT_FALSE(r.ok()) << "prefix of " << n << " bytes loaded";
  }
}

// Single-byte corruptions anywhere must never crash (results may be ok or an error).
TEST(Broken, ByteFlipsNeverCrash) {
  std::ifstream f(test::TestData("broken/valid_base.glb"), std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t errors = 0;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    std::vector<uint8_t> copy = bytes;
    copy[i] ^= 0xA5;
    auto r = LoadAvatarFromMemory(copy.data(), copy.size(), "flip.glb", ".");
    if (!r.ok()) {
      ++errors;
      EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
    }
  }
  EXPECT_GT(errors, 0u);
}

TEST(Broken, LoadingNeverTouchesTheInput) {
  std::string src = test::TestData("broken/cyclic_nodes.gltf");
  auto before = std::filesystem::last_write_time(src);
  auto size = std::filesystem::file_size(src);
  EXPECT_FALSE(LoadAvatar(src).ok());
  EXPECT_EQ(std::filesystem::last_write_time(src), before);
  EXPECT_EQ(std::filesystem::file_size(src), size);
}

}  // namespace
}  // namespace hairswing
