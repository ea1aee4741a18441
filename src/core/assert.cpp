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

std::string OneLine(std::string text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() &&  // U+0080..U+009F: C1 controls (CSI...)
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (c == '\n' || c == '\r' || c == '\t') {
      out.push_back(' ');
    } else if (c < 0x20 || c == 0x7F || c1) {
      static const char* kHex = "0123456789abcdef";
      const unsigned char v = c1 ? static_cast<unsigned char>(text[++i]) : c;
      out += "\\x";
      out.push_back(kHex[v >> 4]);
      out.push_back(kHex[v & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

namespace detail {
void ValueOfError(const Status& status) {
  const std::string what = "Result::value() called on an error: " + status.message();
  AssertFailed(what.c_str(), __FILE__, __LINE__);
}
}  // namespace detail

}  // namespace hairswing
