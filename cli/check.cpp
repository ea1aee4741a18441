// hairswing check DIR|FILE...: is a whole collection of avatars safe to use? For every .vrm, .glb
// and .gltf found (folders searched recursively): load, build the rig, a short head-turn (2 s) in
// each solver mode, write as VRM 1.0 (GLB when the file has no humanoid) and load that again. In
// parallel (TBB), a progress bar on a terminal, a table and optional JSON; exit 1 when any fails.
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "hairswing/anim.h"
#include "hairswing/files.h"
#include "hairswing/humanoid.h"
#include "hairswing/io.h"
#include "hairswing/motion.h"
#include "hairswing/rig.h"
#include "hairswing/spring.h"

namespace hairswing::cli {
namespace {

namespace fs = std::filesystem;

struct CheckRow {
  std::string file;
  std::string vrm = "-";
  int springs = 0, joints = 0, colliders = 0, hair_vertices = 0;
  std::vector<std::string> warnings;
  bool ok = false;
  std::string result;  // "ok" or what failed
  double seconds = 0;
};

bool IsAvatarFile(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  return ext == ".vrm" || ext == ".glb" || ext == ".gltf";
}

// The avatar's spring layout, for comparing a file with its written copy.
struct Shape {
  int springs, joints, colliders, hair_vertices;
  bool operator==(const Shape&) const = default;
};

Shape ShapeOf(const Avatar& av, const Rig& rig) {
  return {static_cast<int>(av.vrm.springs.size()), static_cast<int>(rig.joint_node().size()),
          static_cast<int>(av.vrm.colliders.size()), HairVertexCount(av, rig)};
}

// A short run per mode: the head-turn's first 2 s when there is a humanoid head, else 1 s with
// the scene root sliding sideways. Every tail must stay finite.
std::string SimulateAllModes(const Avatar& av, const Rig& rig) {
  const int head = HumanoidRigNode(av, rig, "head");
  for (SolverMode mode : {SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm}) {
    SpringConfig cfg;
    cfg.mode = mode;
    auto world = SpringWorld::Create(rig, cfg);
    if (!world.ok()) return std::string(SolverModeName(mode)) + ": " + world.status().message();
    if (head >= 0) {
      HeadTurnMotion motion(rig, head, HumanoidRigNode(av, rig, "hips"), AvatarRight(av, rig));
      ClipDriver driver(*world, motion);
      driver.Reset();
      for (int f = 0; f < 120; ++f) driver.Advance(1.0 / 60.0);
    } else {
      std::vector<Transform> pose(rig.rest_local().begin(), rig.rest_local().end());
      world->Reset(pose);
      for (int s = 0; s < 120; ++s) {
        for (int n = 0; n < static_cast<int>(rig.node_count()); ++n)
          if (rig.parent()[n] < 0)
            pose[n].translation.x = rig.rest_local()[n].translation.x + 0.001f * s;
        world->Step(pose);
      }
    }
    for (const glm::vec3& t : world->tails())
      if (!(std::isfinite(t.x) && std::isfinite(t.y) && std::isfinite(t.z)))
        return std::string(SolverModeName(mode)) + ": a spring joint became NaN/inf";
  }
  return "";
}

CheckRow CheckOne(const std::string& path) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckRow row;
  row.file = path;
  auto finish = [&](bool ok, const std::string& what) {
    row.ok = ok;
    row.result = ok ? "ok" : what;
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return row;
  };
  auto loaded = LoadAvatar(path);
  if (!loaded.ok()) return finish(false, "load: " + loaded.status().message());
  const Avatar& av = loaded->avatar;
  row.vrm = av.vrm.version == VrmVersion::kV0   ? "0.x"
            : av.vrm.version == VrmVersion::kV1 ? "1.0"
                                                : "-";
  row.warnings = loaded->warnings;
  for (const auto& w : CheckAvatar(av)) row.warnings.push_back(w);
  auto rig = BuildRig(av);
  if (!rig.ok()) return finish(false, "rig: " + rig.status().message());
  for (const auto& w : SpringsWithoutMesh(av)) row.warnings.push_back(w);
  const Shape before = ShapeOf(av, rig.value());
  row.springs = before.springs;
  row.joints = before.joints;
  row.colliders = before.colliders;
  row.hair_vertices = before.hair_vertices;
  if (const std::string err = SimulateAllModes(av, rig.value()); !err.empty())
    return finish(false, "simulate " + err);
  // Written as VRM 1.0 (GLB without a humanoid) and, for a VRM 0.x file, also as VRM 0.x: each
  // copy must read back with the same springs, joints, colliders and hair vertices.
  const bool as_vrm = !av.vrm.humanoid.empty();
  std::vector<std::pair<VrmOutput, std::string>> copies{
      {VrmOutput::kVrm1, as_vrm ? "VRM 1.0" : "GLB"}};
  if (av.vrm.version == VrmVersion::kV0) copies.push_back({VrmOutput::kVrm0, "VRM 0.x"});
  for (const auto& [version, label] : copies) {
    std::vector<std::string> write_warnings;
    auto bytes = EncodeGlb(av, as_vrm, version, &write_warnings);
    if (!bytes.ok()) return finish(false, "write as " + label + ": " + bytes.status().message());
    const std::string copy_name = fs::path(path).stem().string() + (as_vrm ? ".vrm" : ".glb");
    auto again = LoadAvatarFromMemory(bytes->data(), bytes->size(), copy_name,
                                      fs::path(path).parent_path().string());
    if (!again.ok())
      return finish(false, "reload of the " + label + " copy: " + again.status().message());
    auto rig2 = BuildRig(again->avatar);
    if (!rig2.ok())
      return finish(false, "rig of the " + label + " copy: " + rig2.status().message());
    const Shape after = ShapeOf(again->avatar, rig2.value());
    if (!(after == before))
      return finish(
          false,
          "the " + label + " copy differs: springs " + std::to_string(before.springs) + "->" +
              std::to_string(after.springs) + ", joints " + std::to_string(before.joints) + "->" +
              std::to_string(after.joints) + ", colliders " + std::to_string(before.colliders) +
              "->" + std::to_string(after.colliders) + ", hair vertices " +
              std::to_string(before.hair_vertices) + "->" + std::to_string(after.hair_vertices));
  }
  return finish(true, "");
}

}  // namespace

void AddCheck(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "check",
      "Check a collection of avatars before trusting the tool with it: for every .vrm, .glb and "
      ".gltf "
      "(folders are searched recursively) load it, build the rig, run a short head-turn in the "
      "arc, "
      "parent and vrm solvers, write it as VRM 1.0 (GLB without a humanoid) - and a VRM 0.x file "
      "also as VRM 0.x - and load each copy again, comparing springs, joints, colliders and hair "
      "vertices. Runs in parallel; prints a table "
      "(and "
      "--json). Exit code 1 when any file fails, 2 when nothing was found.");
  struct Opts {
    std::vector<std::string> paths;
    std::string json;
    bool verbose = false, force = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("PATH", o->paths, "avatar files or folders")->required();
  cmd->add_option("--json", o->json, "write {\"files\": [...]} as JSON (one record per file)");
  cmd->add_flag("-v,--verbose", o->verbose, "print every warning under its file");
  cmd->add_flag("--force", o->force, "replace an existing --json file");
  cmd->callback([o, &exit_code] {
    std::vector<std::string> files;
    for (const auto& p : o->paths) {
      std::error_code ec;
      if (fs::is_directory(p, ec)) {
        for (auto it = fs::recursive_directory_iterator(
                 p, fs::directory_options::skip_permission_denied, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec))
          if (!ec && it->is_regular_file(ec) && IsAvatarFile(it->path()))
            files.push_back(it->path().string());
      } else if (fs::exists(p, ec)) {
        files.push_back(p);
      } else {
        std::fprintf(stderr, "error: %s: no such file or folder\n", p.c_str());
        exit_code = kExitBadInput;
        return;
      }
    }
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    if (files.empty()) {
      std::fprintf(stderr, "error: no .vrm, .glb or .gltf file found\n");
      exit_code = kExitBadInput;
      return;
    }
    std::vector<CheckRow> rows(files.size());
    std::atomic<size_t> done{0};
    std::mutex mu;
    const bool tty = isatty(STDERR_FILENO);
    tbb::parallel_for(size_t(0), files.size(), [&](size_t i) {
      rows[i] = CheckOne(files[i]);
      const size_t d = ++done;
      if (tty) {
        std::lock_guard<std::mutex> lock(mu);
        const int bar = static_cast<int>(30 * d / files.size());
        std::fprintf(stderr, "\r  checking [%.*s%*s] %zu/%zu", bar,
                     "==============================", 30 - bar, "", d, files.size());
      }
    });
    if (tty) std::fprintf(stderr, "\n");
    int failed = 0;
    std::printf("%-48s %4s %7s %6s %9s %7s %8s  %s\n", "file", "VRM", "springs", "joints",
                "colliders", "hair v", "warnings", "result");
    for (const auto& r : rows) {
      if (!r.ok) ++failed;
      std::string name = r.file;
      if (name.size() > 48) name = "..." + name.substr(name.size() - 45);
      std::printf("%-48s %4s %7d %6d %9d %7d %8zu  %s\n", OneLine(name).c_str(), r.vrm.c_str(),
                  r.springs, r.joints, r.colliders, r.hair_vertices, r.warnings.size(),
                  r.ok ? "ok" : ("FAIL: " + r.result).c_str());
      if (o->verbose)
        for (const auto& w : r.warnings) std::printf("    - %s\n", OneLine(w).c_str());
    }
    std::printf("%zu files, %d failed\n", rows.size(), failed);
    if (!o->json.empty()) {
      nlohmann::ordered_json j;
      j["files"] = nlohmann::ordered_json::array();
      for (const auto& r : rows)
        j["files"].push_back({{"file", r.file},
                              {"vrm_version", r.vrm == "-" ? nlohmann::ordered_json(nullptr)
                                                           : nlohmann::ordered_json(r.vrm)},
                              {"springs", r.springs},
                              {"joints", r.joints},
                              {"colliders", r.colliders},
                              {"hair_vertices", r.hair_vertices},
                              {"warnings", r.warnings},
                              {"ok", r.ok},
                              {"result", r.result},
                              {"seconds", r.seconds}});
      if (Status st = WriteFileAtomic(o->json, j.dump(2) + "\n", o->force); !st.ok()) {
        std::fprintf(stderr, "error: %s\n", st.message().c_str());
        exit_code = kExitBadInput;
        return;
      }
    }
    exit_code = failed ? kExitFailure : kExitOk;
  });
}

}  // namespace hairswing::cli
