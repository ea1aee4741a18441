// Writing output files safely: every file hairswing writes (avatars, PNGs, JSON, HTML reports)
// goes through WriteFileAtomic, so no command overwrites a file unasked, follows a planted
// symlink, or leaves a truncated file behind. And reading small side files (manifests, records,
// replays) with the same limits as the avatar readers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "hairswing/status.h"

namespace hairswing {

/// The checks WriteFileAtomic makes before writing, on their own: `path` is not a folder or a
/// device, does not exist unless `force`, and its folder exists. A command with several outputs
/// calls it for each before any work, so a refused second output does not leave the first behind.
Status CheckOutputPath(const std::string& path, bool force);

/// Writes `bytes` to `path` atomically:
/// - an existing `path` is refused unless `force` (kIoError: "... already exists; pass --force
///   to overwrite" — the CLI's flag; library callers pass force);
/// - the bytes go to a new temporary file beside it, created exclusively (O_EXCL, never
///   truncating or following an existing file or symlink), every write and the close checked
///   (a full disk is an error, not a short file), flushed to disk, then renamed over `path`;
/// - on any failure the temporary file is removed and `path` is left as it was.
/// Messages name the path and the system's reason ("No space left on device").
Status WriteFileAtomic(const std::string& path, std::span<const uint8_t> bytes, bool force);
inline Status WriteFileAtomic(const std::string& path, std::string_view text, bool force) {
  return WriteFileAtomic(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()),
      force);
}

/// Reads a whole file that must be a regular file of at most `max_bytes`: a FIFO, a device
/// (/dev/zero), a folder or a larger file is refused without blocking or reading it
/// ("PATH: not a regular file", "PATH: 3000000000 bytes, more than the 67108864 allowed").
Result<std::string> ReadRegularFile(const std::string& path, size_t max_bytes);

/// The deepest nesting of JSON arrays and objects hairswing accepts (glTF needs about 8 levels).
/// Parsers, value conversion and printing recurse once per level; 100,000 levels overflow the
/// stack, so deeper input is refused before any parser sees it.
constexpr size_t kMaxJsonDepth = 128;

/// Scans JSON text (strings and escapes skipped): "" when its nesting stays within `max_depth`,
/// else a message naming the byte offset where it went deeper.
std::string JsonNestingError(std::string_view text, size_t max_depth = kMaxJsonDepth);

/// The most JSON values an avatar or clip file may hold, counted as JsonValuesError counts them.
/// A parsed value costs 100-450 bytes of memory (the JSON tree, then tinygltf's model), so 10 MB
/// of `[0,0,0,...]` took 1 GB: without a limit, a file of a few hundred MB dropped into the
/// viewer could take all the memory of the machine. At the limit, parsing takes at most about
/// 1.8 GB. Real files hold far fewer: the UAL clip library about 134,000, the fitted and
/// re-weighted files of scripts/quality at most 83,000 (a re-weighting's undo record holds about
/// 9 per vertex it changed: a hair mesh of 400,000 re-weighted vertices would reach the limit).
constexpr size_t kMaxJsonValues = 4'000'000;

/// Counts the values of JSON text in one scan (strings and escapes skipped) as the commas, `[`
/// and `{` outside strings (each element of an array or member of an object after the first is
/// preceded by a comma; each container adds one): "" when the count stays within `max_values`,
/// else a message naming the byte offset where it passed the limit.
std::string JsonValuesError(std::string_view text, size_t max_values = kMaxJsonValues);

}  // namespace hairswing
