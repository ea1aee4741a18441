// WriteFileAtomic (include/hairswing/files.h) with POSIX calls: O_EXCL | O_NOFOLLOW for the
// temporary file, write/fsync/close checked, rename(2) to publish.
#include "hairswing/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace hairswing {

namespace {
std::string Reason(int err) { return std::strerror(err); }
}  // namespace

Status CheckOutputPath(const std::string& path, bool force) {
  namespace fs = std::filesystem;
  if (path.empty()) return Status(StatusCode::kInvalidInput, "output path is empty");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status(StatusCode::kIoError, path + ": is a directory");
    if (!force)
      return Status(StatusCode::kIoError, path + ": already exists; pass --force to overwrite");
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      return Status(StatusCode::kIoError, path + ": not a regular file, not replaced");
  }
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status(StatusCode::kIoError, path + ": folder " + dir.string() + " does not exist");
  return Status::Ok();
}

Status WriteFileAtomic(const std::string& path, std::span<const uint8_t> bytes, bool force) {
  namespace fs = std::filesystem;
  if (Status st = CheckOutputPath(path, force); !st.ok()) return st;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // A name nobody else uses; O_EXCL fails instead of opening what is already there (a file or a
  // symlink planted by someone else), so we never write through it.
  int fd = -1;
  std::string tmp;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = (dir / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + "_" +
                  std::to_string(attempt)))
              .string();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST)
      return Status(StatusCode::kIoError,
                    path + ": cannot create a file in " + dir.string() + ": " + Reason(errno));
  }
  if (fd < 0)
    return Status(StatusCode::kIoError, path + ": cannot create a temporary file beside it");
  auto fail = [&](const std::string& what, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return Status(StatusCode::kIoError, path + ": " + what + ": " + Reason(err));
  };
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("write failed", n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) return fail("write failed", errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return Status(StatusCode::kIoError, path + ": write failed: " + Reason(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return Status(StatusCode::kIoError, path + ": cannot replace it: " + Reason(err));
  }
  return Status::Ok();
}

Result<std::string> ReadRegularFile(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer must not wait; regular files ignore it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status(StatusCode::kIoError, path + ": cannot open: " + Reason(errno));
  struct stat st {};
  std::string text;
  Status status = Status::Ok();
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    status = Status(StatusCode::kInvalidInput, path + ": not a regular file");
  } else if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    status = Status(StatusCode::kInvalidInput, path + ": " + std::to_string(st.st_size) +
                                                   " bytes, more than the " +
                                                   std::to_string(max_bytes) + " allowed");
  } else {
    text.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the file shrank while being read: what is there
      done += static_cast<size_t>(n);
    }
    text.resize(done);
  }
  ::close(fd);
  if (!status.ok()) return status;
  return text;
}

namespace {
// Calls visit(c, i) for every character of JSON text outside strings (escapes skipped) until it
// returns a message; returns that message, or "" at the end.
template <typename Visit>
std::string ScanJson(std::string_view text, Visit visit) {
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (std::string m = visit(c, i); !m.empty()) {
      return m;
    }
  }
  return {};
}
}  // namespace

std::string JsonNestingError(std::string_view text, size_t max_depth) {
  size_t depth = 0;
  return ScanJson(text, [&](char c, size_t i) -> std::string {
    if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return "arrays and objects nested deeper than " + std::to_string(max_depth) +
               " levels (at byte " + std::to_string(i) + ")";
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    return {};
  });
}

std::string JsonValuesError(std::string_view text, size_t max_values) {
  size_t count = 0;
  return ScanJson(text, [&](char c, size_t i) -> std::string {
    if ((c == ',' || c == '[' || c == '{') && ++count > max_values)
      return "more than " + std::to_string(max_values) + " values (at byte " + std::to_string(i) +
             "): refused, parsing would take gigabytes of memory; real avatars and clip "
             "libraries hold far fewer";
    return {};
  });
}

}  // namespace hairswing
