// hairswing batch: avatar x clip libraries as one manifest of jobs (docs/batch.md). The plan (what
// jobs a manifest makes, checked before any work), the job runner and the summary are separate
// files; this header is what they share.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "hairswing/status.h"

namespace hairswing::cli {
struct ClipFile;
}

namespace hairswing::cli::batch {

using OJson = nlohmann::ordered_json;

/// The operations a manifest may list, in the order they run for an avatar.
inline const std::vector<std::string>& Operations() {
  static const std::vector<std::string> kOps = {"fit", "fit-colliders", "measure", "validate-clips",
                                                "bake"};
  return kOps;
}

struct AvatarEntry {
  std::string path;               ///< as written in the manifest (relative to it)
  std::string file;               ///< the path to open
  std::string key;                ///< folder name in the output tree ("name", else the file's stem)
  std::string hair;               ///< hair selector for fit ("" = the avatar is not fitted)
  std::string shirt;              ///< clothing mesh for measure's occlusion figure
  std::vector<std::string> wear;  ///< hair files put on first (as written)
  std::vector<std::string> wear_file;  ///< ... and the paths to open
};

struct ClipEntry {
  std::string path, file, key;  ///< as written, to open, folder name (the file's stem)
  std::string clip;             ///< one clip by name ("" = every clip of the file)
};

/// One unit of work: an operation on an avatar, or on an avatar and one clip.
struct Job {
  std::string id;  ///< also its folder under the output folder: AVATAR/OP or AVATAR/FILE/CLIP/OP
  std::string op;
  int avatar = -1;
  int clip_file = -1;  ///< index into Plan::clips, -1 for avatar jobs
  std::string clip;    ///< clip name for clip jobs
};

struct Plan {
  std::string manifest;         ///< the path as given on the command line
  std::string manifest_sha256;  ///< of its bytes
  std::string dir;              ///< the manifest's folder (paths in it are relative to it)
  std::vector<AvatarEntry> avatars;
  std::vector<ClipEntry> clips;
  std::vector<std::string> ops;  ///< listed operations, in Operations() order
  /// Options per operation with every default filled in (what the records show).
  std::map<std::string, OJson> options;
  std::vector<Job> jobs;
  /// Clip names per clip entry (the named clip, or every clip of the file).
  std::vector<std::vector<std::string>> clip_names;
  /// The clip files as read while planning (shared, read-only, by the jobs).
  std::vector<std::shared_ptr<const ClipFile>> clip_files;
};

/// Reads and checks a manifest and lists its jobs. Everything that can be known without running
/// a job is checked here (JSON, unknown keys and operations, option types and ranges, missing
/// files, hair selectors on the avatars that load, clip names, two jobs writing to one folder);
/// the message is one line naming the manifest and the field.
Result<Plan> MakePlan(const std::string& manifest_path);

/// The stage an avatar's downstream jobs (measure, validate-clips, bake) see: 0 as loaded (with
/// its "wear" files on), 1 after fit, 2 after fit-colliders.
int FinalStage(const Plan& plan, int avatar);

/// What a job's record says about what went in: input files with their sha256 (a .gltf with its
/// external buffers and images), the options of every stage it depends on.
OJson JobInputs(const Plan& plan, const Job& job);
OJson JobOptions(const Plan& plan, const Job& job);

/// Files by device and inode (ListInputFiles).
using InputFiles = std::set<std::pair<uint64_t, uint64_t>>;

/// Runs jobs; holds the loaded avatars, fitted stages and clip files that several jobs share
/// (each made once per process, freed when the last job of its avatar here is done).
class Runner {
 public:
  /// `jobs`: the indices into plan.jobs this process runs (its shard, minus skipped ones).
  Runner(const Plan& plan, std::string out_dir, const std::vector<size_t>& jobs, InputFiles inputs);
  ~Runner();
  /// Runs plan.jobs[index], writes its outputs under out_dir/ID/ and returns its record fields
  /// status, error, outputs, figures, warnings (never throws).
  OJson Run(size_t index);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The most avatar entries, and the most clip entries, a manifest may list.
constexpr size_t kMaxManifestEntries = 10000;

/// The largest manifest, record or .gltf JSON the batch reads (64 MiB).
constexpr size_t kMaxSideFileBytes = size_t(64) << 20;

/// Makes the folders of `rel` below `out` one at a time, never through a symlink: a component
/// that is a symlink or not a folder is refused, naming it, so no output lands outside `out`.
Status MakeFoldersBelow(const std::string& out, const std::string& rel);

/// The files a batch reads (manifest, avatars, wear files, clip files, and the buffers and
/// images beside a .gltf among them), by device and inode.
InputFiles ListInputFiles(const Plan& plan);
/// Refuses to write `path` when it is one of the batch's inputs (an input placed at an output
/// path, or a manifest named OUT/summary.json).
Status NotAnInput(const std::string& path, const InputFiles& inputs);

/// sha256 of a record's text without its own "record_sha256" field: a record whose hash does
/// not match (edited, truncated) is not trusted and its job runs again.
std::string RecordHash(const OJson& record);

/// sha256 of a file's bytes as 64 hex digits; "" with `error` set when it cannot be read.
std::string Sha256File(const std::string& path, std::string* error);
std::string Sha256(const std::string& bytes);

/// Folder-safe name: letters, digits, '.', '-' and '_' kept, anything else '_'.
std::string SafeName(const std::string& name);

}  // namespace hairswing::cli::batch
