#include <cstdio>
#include <cstdlib>
#include <string>

#include "hairswing/status.h"

namespace hairswing {
namespace {
void DefaultAssert(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "hairswing: internal error: %s (%s:%d)\n", expr, file, line);
}
AssertFn g_assert = &DefaultAssert;
}  // namespace

void SetAssertHandler(AssertFn fn) { g_assert = fn ? fn : &DefaultAssert; }

void AssertFailed(const char* expr, const char* file, int line) {
  g_assert(expr, file, line);
  std::abort();
}

namespace detail {
void ValueOfError(const Status& status) {
  const std::string what = "Result::value() called on an error: " + status.message();
  AssertFailed(what.c_str(), __FILE__, __LINE__);
}
}  // namespace detail

}  // namespace hairswing
