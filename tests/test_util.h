// Shared helpers for the test suite.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hairswing/io.h"

namespace hairswing::test {

/// Path inside ../shared/data (the real files); empty when the folder is absent.
inline std::string Shared(const std::string& rel) {
  std::string p = std::string(HS_SHARED_DATA) + "/" + rel;
  return std::filesystem::exists(p) ? p : std::string();
}

inline std::string TestData(const std::string& rel) {
  return std::string(HS_TEST_DATA) + "/" + rel;
}

/// The rows of a corpus' expected.tsv (tests/data/*/expected.tsv): tab-separated fields, '#'
/// lines and blank lines skipped.
inline std::vector<std::vector<std::string>> ReadTsv(const std::string& rel) {
  std::vector<std::vector<std::string>> out;
  std::ifstream f(TestData(rel));
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> row;
    for (size_t at = 0;;) {
      const size_t tab = line.find('\t', at);
      row.push_back(line.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
      if (tab == std::string::npos) break;
      at = tab + 1;
    }
    out.push_back(std::move(row));
  }
  return out;
}

/// A corpus error: one line that starts with the file's name and contains `expect`.
inline void ExpectOneLineError(const Status& status, const std::string& file,
                               const std::string& expect) {
  ASSERT_FALSE(status.ok()) << file << " loaded";
  const std::string& msg = status.message();
  EXPECT_EQ(msg.rfind(file + ": ", 0), 0u) << "does not start with the file name: " << msg;
  EXPECT_NE(msg.find(expect), std::string::npos) << "does not name '" << expect << "': " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

/// Loads a shared file or skips the test with a clear message when ../shared is absent.
#define HS_LOAD_SHARED_OR_SKIP(var, rel)                                              \
  std::string var##_path = ::hairswing::test::Shared(rel);                            \
  if (var##_path.empty()) GTEST_SKIP() << "../shared/data/" << rel << " not present"; \
  auto var##_result = ::hairswing::LoadAvatar(var##_path);                            \
  ASSERT_TRUE(var##_result.ok()) << var##_result.status().message();                  \
  auto& var = var##_result.value()

}  // namespace hairswing::test
