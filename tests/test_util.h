// Shared helpers for the test suite.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

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

/// Loads a shared file or skips the test with a clear message when ../shared is absent.
#define HS_LOAD_SHARED_OR_SKIP(var, rel)                                              \
  std::string var##_path = ::hairswing::test::Shared(rel);                            \
  if (var##_path.empty()) GTEST_SKIP() << "../shared/data/" << rel << " not present"; \
  auto var##_result = ::hairswing::LoadAvatar(var##_path);                            \
  ASSERT_TRUE(var##_result.ok()) << var##_result.status().message();                  \
  auto& var = var##_result.value()

}  // namespace hairswing::test
