// Error channel for untrusted input: a Status value with a one-line message that names the file
// and the field. No exception escapes the library; programmer errors use HS_ASSERT instead.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace hairswing {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,  ///< the file or argument is malformed (bad JSON, index out of range, NaN...)
  kUnsupported,   ///< well-formed but uses something we do not handle (e.g. a required extension)
  kIoError,       ///< the file system refused (missing file, permission, disk full)
};

/// `text` as one printable line: line breaks and tabs become spaces, other control characters
/// (terminal escapes from a file's names) become \xNN. UTF-8 text is kept.
std::string OneLine(std::string text);

/// Result of an operation on untrusted input. `message` is one line, e.g.
/// "godette.vrm: nodes[12].translation: NaN"; names quoted from a file cannot break it (OneLine).
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(OneLine(std::move(message))) {}
  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

[[noreturn]] void AssertFailed(const char* expr, const char* file, int line);

namespace detail {
/// Result::value() on an error: a programmer error, reported through the assert handler with
/// the error's message (never an exception: none escapes the library).
[[noreturn]] void ValueOfError(const Status& status);
}  // namespace detail

/// A value or the Status explaining why there is none. Reading value() of an error is a
/// programmer error: it calls the assert handler (SetAssertHandler) with the message, then aborts.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & {
    if (!ok()) detail::ValueOfError(std::get<Status>(v_));
    return *std::get_if<T>(&v_);
  }
  const T& value() const& {
    if (!ok()) detail::ValueOfError(std::get<Status>(v_));
    return *std::get_if<T>(&v_);
  }
  T&& value() && {
    if (!ok()) detail::ValueOfError(std::get<Status>(v_));
    return std::move(*std::get_if<T>(&v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

/// Non-fatal findings while reading or checking a file ("image T_Normal.png not found").
using Warnings = std::vector<std::string>;

/// Programmer-error handler (Box2D's b2SetAssertFcn): called when an internal invariant breaks.
/// The default prints and aborts; tests may replace it.
using AssertFn = void (*)(const char* expr, const char* file, int line);
void SetAssertHandler(AssertFn fn);

}  // namespace hairswing

#define HS_ASSERT(cond) \
  ((cond) ? static_cast<void>(0) : ::hairswing::AssertFailed(#cond, __FILE__, __LINE__))
