// hairswing retarget / validate-clips: world-space retargeting of clip files onto avatars, and a
// batch check of every clip x avatar (missing joints, invalid numbers, tracks on hair joints,
// foot height range), in parallel, with optional pose snapshots (PNG).
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>

#include "clip_file.h"
#include "commands.h"
#include "hairswing/anim.h"
#include "hairswing/files.h"
#include "hairswing/io.h"
#include "hairswing/names.h"
#include "hairswing/render.h"
#include "hairswing/retarget.h"

namespace hairswing::cli {

Status ReadClipFile(const std::string& path, ClipFile* out) {
  auto loaded = LoadAvatar(path);
  if (!loaded.ok()) return loaded.status();
  out->path = path;
  out->avatar = std::move(loaded->avatar);
  out->map = MatchHumanoid(out->avatar);
  auto rig = BuildRig(out->avatar);
  if (!rig.ok()) return Status(rig.status().code(), path + ": " + rig.status().message());
  out->rig = std::move(rig).value();
  // A clip without a name (VRMA files usually have none) is called after its file: "walk", and
  // "walk#2", "walk#3" ... for further unnamed clips of the same file.
  const std::string stem = std::filesystem::path(path).stem().string();
  int unnamed = 0;
  for (size_t a = 0; a < out->avatar.animations.size(); ++a) {
    auto c = Clip::FromAvatar(out->avatar, out->rig, static_cast<int>(a));
    if (!c.ok()) continue;
    if (c->name.empty()) c->name = ++unnamed == 1 ? stem : stem + "#" + std::to_string(unnamed);
    out->clips.push_back(std::move(c).value());
  }
  if (out->clips.empty()) return Status(StatusCode::kInvalidInput, path + ": no animations");
  return Status::Ok();
}

Result<std::string> ClipNamed(const ClipFile& file, const std::string& wanted) {
  std::vector<std::string> names;
  names.reserve(file.clips.size());
  for (const Clip& c : file.clips) names.push_back(c.name);
  auto found = FindName(wanted, names, "clip");
  if (!found.ok()) return found.status();
  return names[*found];
}

bool LoadClipFile(const std::string& path, ClipFile* out) {
  if (Status st = ReadClipFile(path, out); !st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    return false;
  }
  return true;
}

std::optional<Retargeter> RetargeterOrReport(const ClipFile& clips, const Avatar& avatar,
                                             const std::string& avatar_path,
                                             const RetargetOptions& options) {
  auto rt = Retargeter::Create(clips.avatar, clips.map, avatar, MatchHumanoid(avatar), options);
  if (!rt.ok()) {
    std::fprintf(stderr, "error: %s onto %s: %s\n", clips.path.c_str(), avatar_path.c_str(),
                 rt.status().message().c_str());
    return std::nullopt;
  }
  return std::move(rt).value();
}

ClipCheck CheckClip(const std::string& avatar_path, const Avatar& avatar, const HumanoidMap& map,
                    const Rig& trig, const ClipFile& cf, const Clip& clip, const Retargeter* rt,
                    const std::string& snapshot_dir, bool force) {
  ClipCheck r;
  r.avatar = std::filesystem::path(avatar_path).filename().string();
  r.clip = clip.name;
  for (const auto& b : map.missing_required) r.missing.push_back(b);
  for (const auto& b : cf.map.missing_required) r.missing.push_back("source:" + b);
  // The avatar's own clips (same file) play as they are; anything else is retargeted.
  std::error_code same_ec;
  const bool own = std::filesystem::equivalent(avatar_path, cf.path, same_ec);
  if (own) r.missing.clear();
  if (!own && (!rt || !r.missing.empty())) {
    r.ok = false;
    return r;
  }
  const Clip& out = own ? clip : rt->Cached(clip);
  std::vector<uint8_t> spring(trig.node_count(), 0);
  for (int n : trig.joint_node()) spring[n] = 1;
  for (const Track& tr : out.tracks) {
    if (spring[tr.node]) ++r.hair_tracks;
    for (float v : tr.values)
      if (!std::isfinite(v)) ++r.invalid;
  }
  // Foot height range over the clip (world y of both feet), sampled at 30 Hz.
  const int lf = map.bones.count("leftFoot") ? trig.node_to_rig()[map.bones.at("leftFoot")] : -1;
  const int rf = map.bones.count("rightFoot") ? trig.node_to_rig()[map.bones.at("rightFoot")] : -1;
  std::vector<Transform> pose(trig.node_count());
  std::vector<glm::mat4> world(trig.node_count());
  r.foot_min = 1e9f;
  r.foot_max = -1e9f;
  const int n = std::max(1, static_cast<int>(out.duration * 30));
  for (int k = 0; k <= n; ++k) {
    std::copy(trig.rest_local().begin(), trig.rest_local().end(), pose.begin());
    out.Apply(out.duration * k / n, pose);
    ComputeWorld(trig, pose, world);
    for (int f : {lf, rf})
      if (f >= 0) {
        const float y = world[f][3].y;
        if (!std::isfinite(y)) ++r.invalid;
        r.foot_min = std::min(r.foot_min, y);
        r.foot_max = std::max(r.foot_max, y);
      }
  }
  static const std::vector<std::string> kSnapshots = {
      "Idle_Loop",  "Walk_Loop",       "Jump_Loop",        "Roll",
      "Dance_Loop", "Crouch_Fwd_Loop", "Sitting_Idle_Loop"};
  if (!snapshot_dir.empty() &&
      std::find(kSnapshots.begin(), kSnapshots.end(), clip.name) != kSnapshots.end()) {
    std::copy(trig.rest_local().begin(), trig.rest_local().end(), pose.begin());
    out.Apply(out.duration * 0.4, pose);
    ComputeWorld(trig, pose, world);
    const std::string stem = std::filesystem::path(avatar_path).stem().string();
    for (auto view : {RenderOptions::View::kFront, RenderOptions::View::kSide}) {
      RenderOptions ro;
      ro.width = 320;
      ro.height = 480;
      ro.view = view;
      ro.right = AvatarRight(avatar, trig);
      FrameAvatar(avatar, trig, world, ro, 1.4f);  // the posed meshes, head and hair included
      const auto rgb = RenderAvatar(avatar, trig, world, ro);
      const std::string png = snapshot_dir + "/" + stem + "-" + clip.name +
                              (view == RenderOptions::View::kFront ? "-front" : "-side") + ".png";
      if (Status st = WritePng(png, ro.width, ro.height, rgb, force); !st.ok() && r.error.empty())
        r.error = st.message();
    }
  }
  r.ok = r.missing.empty() && r.invalid == 0 && r.hair_tracks == 0 && r.error.empty();
  return r;
}

nlohmann::ordered_json ClipCheckJson(const ClipCheck& r) {
  nlohmann::ordered_json j = {{"avatar", r.avatar},
                              {"clip", r.clip},
                              {"missing_joints", r.missing},
                              {"invalid_values", r.invalid},
                              {"hair_tracks", r.hair_tracks},
                              {"foot_height_min_m", r.foot_min},
                              {"foot_height_max_m", r.foot_max},
                              {"ok", r.ok}};
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

namespace {

struct Target {
  std::string path;
  Avatar avatar;
  HumanoidMap map;
};

}  // namespace

void AddValidateClips(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "validate-clips",
      "Retarget every clip of the clip files onto every avatar (world space, humanoid body joints "
      "only) and check each result: required joints present on both skeletons, no NaN/inf in any "
      "sampled value, no track on a hair/spring joint; reports the foot height range per clip. "
      "Runs in parallel. Exit code 1 when any check fails.");
  struct Opts {
    std::vector<std::string> avatars, clips;
    std::string json, snapshots;
    bool force = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("AVATAR", o->avatars, "avatars (.vrm/.glb/.gltf)")->required();
  cmd->add_option("--clips", o->clips,
                  "clip files (glTF/GLB with animations, e.g. the UAL library)")
      ->required();
  cmd->add_option("--json", o->json, "write {\"runs\": [...]} as JSON");
  cmd->add_option("--snapshots", o->snapshots,
                  "write PNG pose snapshots (Idle, Walk, Jump, Roll, Dance, Crouch, Sitting) here");
  cmd->add_flag("--force", o->force, "replace an existing --json file and snapshots");
  cmd->callback([o, &exit_code] {
    if (!OutputsWritable({o->json}, o->force)) {
      exit_code = kExitBadInput;
      return;
    }
    std::vector<ClipFile> files(o->clips.size());
    for (size_t i = 0; i < o->clips.size(); ++i)
      if (!LoadClipFile(o->clips[i], &files[i])) {
        exit_code = kExitBadInput;
        return;
      }
    std::vector<Target> targets;
    for (const auto& a : o->avatars) {
      auto loaded = LoadOrReport(a);
      if (!loaded) {
        exit_code = kExitBadInput;
        return;
      }
      targets.push_back({a, std::move(loaded->avatar), {}});
      targets.back().map = MatchHumanoid(targets.back().avatar);
    }
    if (!o->snapshots.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(o->snapshots, ec);
      if (ec || !std::filesystem::is_directory(o->snapshots, ec)) {
        std::fprintf(stderr, "error: --snapshots %s: cannot create the folder\n",
                     o->snapshots.c_str());
        exit_code = kExitBadInput;
        return;
      }
    }
    // One retargeter per (avatar, clip file); the jobs are (avatar, file, clip).
    struct Job {
      size_t target, file, clip;
    };
    std::vector<Job> jobs;
    std::vector<std::vector<std::unique_ptr<Retargeter>>> rts(targets.size());
    std::vector<Rig> target_rigs;
    for (size_t t = 0; t < targets.size(); ++t) {
      auto rig = BuildRig(targets[t].avatar);
      if (!rig.ok()) {
        std::fprintf(stderr, "error: %s: %s\n", targets[t].path.c_str(),
                     rig.status().message().c_str());
        exit_code = kExitBadInput;
        return;
      }
      target_rigs.push_back(std::move(rig).value());
      for (size_t f = 0; f < files.size(); ++f) {
        auto r =
            Retargeter::Create(files[f].avatar, files[f].map, targets[t].avatar, targets[t].map);
        rts[t].push_back(r.ok() ? std::make_unique<Retargeter>(std::move(r).value()) : nullptr);
        for (size_t c = 0; c < files[f].clips.size(); ++c) jobs.push_back({t, f, c});
      }
    }
    std::vector<ClipCheck> results(jobs.size());
    std::atomic<size_t> done{0};
    std::mutex mu;
    const bool tty = isatty(STDERR_FILENO);
    tbb::parallel_for(size_t(0), jobs.size(), [&](size_t i) {
      const Job& j = jobs[i];
      const Target& t = targets[j.target];
      results[i] = CheckClip(t.path, t.avatar, t.map, target_rigs[j.target], files[j.file],
                             files[j.file].clips[j.clip], rts[j.target][j.file].get(), o->snapshots,
                             o->force);
      const size_t d = ++done;
      if (tty) {
        std::lock_guard<std::mutex> lock(mu);
        std::fprintf(stderr, "\r  validating %zu/%zu", d, jobs.size());
      }
    });
    if (tty) std::fprintf(stderr, "\n");
    int failed = 0;
    std::printf("%-36s %-24s %8s %8s %6s %16s %s\n", "avatar", "clip", "missing", "invalid", "hair",
                "foot y (m)", "ok");
    for (const auto& r : results) {
      if (!r.ok) ++failed;
      std::printf("%-36s %-24s %8zu %8d %6d %7.3f..%-7.3f %s\n", r.avatar.c_str(),
                  OneLine(r.clip).c_str(), r.missing.size(), r.invalid, r.hair_tracks, r.foot_min,
                  r.foot_max, r.ok ? "ok" : "FAIL");
      if (!r.error.empty()) std::printf("  %s\n", OneLine(r.error).c_str());
    }
    std::printf("%zu runs, %d failed\n", results.size(), failed);
    for (size_t t = 0; t < targets.size(); ++t)
      std::printf("  %s: humanoid map %s (confidence %.2f)%s\n", targets[t].path.c_str(),
                  targets[t].map.family.c_str(), targets[t].map.confidence,
                  targets[t].map.missing_required.empty() ? "" : ", missing required bones");
    if (!o->json.empty()) {
      nlohmann::ordered_json j;
      j["runs"] = nlohmann::ordered_json::array();
      for (const auto& r : results) j["runs"].push_back(ClipCheckJson(r));
      if (Status st = WriteFileAtomic(o->json, j.dump(2) + "\n", o->force); !st.ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        exit_code = kExitBadInput;
        return;
      }
    }
    exit_code = failed ? kExitFailure : kExitOk;
  });
}

void AddRetarget(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "retarget",
      "Retarget a clip from a clip file onto an avatar (world space; hips height scaled by leg "
      "length; horizontal root motion removed unless --keep-root-motion) and write the avatar "
      "with the retargeted animation as .glb/.vrm.");
  struct Opts {
    std::string avatar, clips, clip, out, vrm_version;
    bool keep_root = false, force = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("AVATAR", o->avatar, "target avatar")->required();
  cmd->add_option("CLIP-FILE", o->clips, "glTF/GLB holding the clip(s)")->required();
  cmd->add_option("--clip", o->clip, "clip name (default: every clip in the file)");
  cmd->add_option("-o,--output", o->out, "output .glb or .vrm")->required();
  cmd->add_flag("--keep-root-motion", o->keep_root, "keep the hips' horizontal travel");
  AddVrmVersion(cmd, o->vrm_version);
  cmd->add_flag("--force", o->force, "overwrite an existing output");
  cmd->callback([o, &exit_code] {
    ClipFile cf;
    if (!LoadClipFile(o->clips, &cf)) {
      exit_code = kExitBadInput;
      return;
    }
    std::optional<Avatar> loaded = LoadAvatarOrExit(o->avatar, exit_code);
    if (!loaded) return;
    Avatar av = std::move(*loaded);
    RetargetOptions ro;
    ro.remove_horizontal_root_motion = !o->keep_root;
    auto rt = RetargeterOrReport(cf, av, o->avatar, ro);
    if (!rt) {
      exit_code = kExitBadInput;
      return;
    }
    std::string wanted = o->clip;  // by name: exact, or ignoring case when that picks one
    if (!wanted.empty()) {
      auto found = ClipNamed(cf, wanted);
      if (!found.ok()) {
        std::fprintf(stderr, "error: %s: %s\n", o->clips.c_str(), found.status().message().c_str());
        exit_code = kExitBadInput;
        return;
      }
      wanted = *found;
    }
    int written = 0;
    for (const Clip& c : cf.clips) {
      if (!wanted.empty() && c.name != wanted) continue;
      av.animations.push_back(ClipToAnimation(rt->Retarget(c), rt->target_rig()));
      ++written;
    }
    Status st = SaveWithVersion(av, o->out, o->force, o->vrm_version);
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    std::printf("wrote %s with %d retargeted clip(s)\n", o->out.c_str(), written);
  });
}

}  // namespace hairswing::cli
