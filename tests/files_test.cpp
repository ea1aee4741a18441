// WriteFileAtomic (include/hairswing/files.h): the one writer behind every output file.
#include "hairswing/files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace hairswing {
namespace {

namespace fs = std::filesystem;

class WriteFileAtomicTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hairswing_files_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string Read(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  static void Write(const fs::path& p, const std::string& s) {
    std::ofstream(p, std::ios::binary) << s;
  }
  // Files in the folder other than the ones named: leftovers of a failed or finished write.
  int OtherFiles(std::initializer_list<std::string> expected) const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) {
      bool known = false;
      for (const auto& x : expected) known = known || e.path().filename() == x;
      n += !known;
    }
    return n;
  }
  fs::path dir_;
};

TEST_F(WriteFileAtomicTest, WritesNewFilesAndRefusesExistingOnesUnlessForced) {
  const fs::path out = dir_ / "out.json";
  ASSERT_TRUE(WriteFileAtomic(out.string(), std::string_view("first"), false).ok());
  EXPECT_EQ(Read(out), "first");
  const Status again = WriteFileAtomic(out.string(), std::string_view("second"), false);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("already exists; pass --force"), std::string::npos)
      << again.message();
  EXPECT_EQ(Read(out), "first");
  ASSERT_TRUE(WriteFileAtomic(out.string(), std::string_view("third"), true).ok());
  EXPECT_EQ(Read(out), "third");
  EXPECT_EQ(OtherFiles({"out.json"}), 0) << "a temporary file was left behind";
}

TEST_F(WriteFileAtomicTest, NeverWritesThroughASymlink) {
  const fs::path victim = dir_ / "victim.txt", link = dir_ / "out.json";
  Write(victim, "precious");
  fs::create_symlink(victim, link);
  EXPECT_FALSE(WriteFileAtomic(link.string(), std::string_view("x"), false).ok());
  // Forced: the link itself is replaced by a file; what it pointed to is untouched.
  ASSERT_TRUE(WriteFileAtomic(link.string(), std::string_view("new"), true).ok());
  EXPECT_EQ(Read(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_EQ(Read(link), "new");
}

TEST_F(WriteFileAtomicTest, ClearErrorsForFoldersDevicesAndMissingFolders) {
  const Status missing =
      WriteFileAtomic((dir_ / "no" / "such" / "x.json").string(), std::string_view("x"), true);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("does not exist"), std::string::npos) << missing.message();
  const Status folder = WriteFileAtomic(dir_.string(), std::string_view("x"), true);
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.message().find("is a directory"), std::string::npos) << folder.message();
  if (fs::exists("/dev/full")) {  // "JSON written" to /dev/full was reported as success before
    const Status dev = WriteFileAtomic("/dev/full", std::string_view("x"), true);
    ASSERT_FALSE(dev.ok());
    EXPECT_NE(dev.message().find("not a regular file"), std::string::npos) << dev.message();
  }
  EXPECT_FALSE(WriteFileAtomic("", std::string_view("x"), true).ok());
  EXPECT_EQ(OtherFiles({}), 0);
}

}  // namespace
}  // namespace hairswing
