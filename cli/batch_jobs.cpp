// hairswing batch: running one job. Jobs of one avatar share its loaded and fitted stages and its
// retargeters (made once per process under the avatar's lock, freed after its last job here);
// every failure becomes the job's record, never the end of the batch.
#include <sys/stat.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "batch.h"
#include "clip_file.h"
#include "commands.h"
#include "hairswing/bake.h"
#include "hairswing/files.h"
#include "hairswing/fit.h"
#include "hairswing/io.h"
#include "hairswing/measure.h"
#include "report.h"
#include "root_ramp.h"

namespace hairswing::cli::batch {
namespace fs = std::filesystem;

// What Runner::Impl holds per avatar: named (not in the anonymous namespace), since a member of a
// class with linkage must not have a type without it.
namespace jobs {

// An avatar after a stage (0 loaded and wearing its "wear" files, 1 fitted, 2 colliders fitted),
// with what the stage reported.
struct Stage {
  Avatar avatar;
  Warnings warnings;
  OJson report;  ///< fit / fit-colliders: changes, warnings and counts
};

// The retargeting of one clip file onto an avatar's final stage.
struct Target {
  std::unique_ptr<Retargeter> rt;  ///< null when it could not be made (error says why)
  std::string error;
  HumanoidMap map;
};

struct Slot {
  std::recursive_mutex mu;
  std::shared_ptr<const Stage> stage[3];
  std::string error[3];
  bool made[3] = {false, false, false};
  std::vector<std::shared_ptr<const Target>> targets;  ///< per clip file, made on first use
  std::atomic<int> remaining{0};                       ///< jobs of this avatar left here
};

}  // namespace jobs
using jobs::Slot;
using jobs::Stage;
using jobs::Target;

namespace {

std::string Ext(const Avatar& av) { return WritesAsVrm(av) ? ".vrm" : ".glb"; }

OJson Strings(const std::vector<std::string>& v) {
  OJson a = OJson::array();
  for (const auto& s : v) a.push_back(OneLine(s));
  return a;
}

}  // namespace

struct Runner::Impl {
  const Plan& plan;
  std::string out;
  InputFiles inputs;
  std::vector<std::unique_ptr<Slot>> slots;

  // The checks before any output is written: its folders below `out` are real folders (no
  // symlink), and it is not one of the batch's inputs.
  Status CheckOutput(const std::string& rel) const {
    const fs::path r(rel);
    if (Status st = MakeFoldersBelow(out, r.parent_path().string()); !st.ok()) return st;
    return NotAnInput((fs::path(out) / rel).string(), inputs);
  }

  // The avatar after `stage` (or the error that stopped it), made once.
  std::shared_ptr<const Stage> Get(int a, int stage, std::string* error) {
    Slot& s = *slots[a];
    std::lock_guard<std::recursive_mutex> lock(s.mu);
    if (!s.made[stage]) {
      s.made[stage] = true;
      // Stays the answer if Make throws (an internal error, recorded by the job that hit it).
      s.error[stage] = "an internal error stopped an earlier job while preparing this avatar";
      s.error[stage] = Make(a, stage, &s.stage[stage]);
    }
    *error = s.error[stage];
    return s.stage[stage];
  }

  std::string Make(int a, int stage, std::shared_ptr<const Stage>* out_stage) {
    const AvatarEntry& e = plan.avatars[a];
    auto st = std::make_shared<Stage>();
    if (stage == 0) {
      auto loaded = LoadAvatar(e.file);
      if (!loaded.ok()) return loaded.status().message();
      st->avatar = std::move(loaded->avatar);
      st->warnings = std::move(loaded->warnings);
      for (size_t w = 0; w < e.wear_file.size(); ++w) {
        auto hair = LoadAvatar(e.wear_file[w]);
        if (!hair.ok()) return "wear: " + hair.status().message();
        auto added = WearHair(st->avatar, hair->avatar, &st->warnings);
        if (!added.ok()) return "wear " + e.wear[w] + ": " + added.status().message();
      }
      *out_stage = st;
      return "";
    }
    std::string err;
    const bool fits = stage == 1 && !e.hair.empty() && plan.options.count("fit");
    auto prev = Get(a, stage - 1, &err);
    if (!prev) return err;
    if (stage == 1 && !fits) {  // nothing to fit: the stage passes the avatar on
      *out_stage = prev;
      return "";
    }
    st->avatar = prev->avatar;
    st->warnings = prev->warnings;
    if (stage == 1) {
      const OJson& o = plan.options.at("fit");
      FitOptions opt;
      opt.joints = o["joints"].get<int>();
      opt.segment_length = o["segment_length"].get<float>();
      opt.min_hang_length = o["min_hang"].get<float>();
      opt.max_flip_deg = o["max_flip"].get<float>();
      opt.attach = o["attach"].get<std::string>();
      auto sel = SelectHair(st->avatar, e.hair);
      if (!sel.ok()) return "hair: " + sel.status().message();
      std::vector<std::string> changes;
      OJson ramp_auto;
      if (o["root_ramp"].is_string()) {  // "auto": chosen by measurement, as fit --root-ramp auto
        auto chosen = ChooseRootRamp(st->avatar, sel.value(), opt, nullptr);
        if (!chosen.ok()) return "fit: root_ramp auto: " + chosen.status().message();
        opt.root_ramp_segments = chosen->ramp;
        ramp_auto = chosen->report;
        changes.push_back(chosen->summary);
      } else {
        opt.root_ramp_segments = o["root_ramp"].get<float>();
      }
      auto fit = FitHairChains(st->avatar, sel.value(), opt);
      if (!fit.ok()) return "fit: " + fit.status().message();
      changes.insert(changes.end(), fit->changes.begin(), fit->changes.end());
      changes.insert(changes.end(), fit->rigid.begin(), fit->rigid.end());
      st->report = {{"changes", Strings(changes)},
                    {"warnings", Strings(fit->warnings)},
                    {"chains", fit->chains},
                    {"rigid_clumps", fit->rigid.size()},
                    {"root_ramp", opt.root_ramp_segments}};
      if (!ramp_auto.is_null()) st->report["root_ramp_auto"] = ramp_auto;
    } else {
      auto cf = FitColliders(st->avatar);
      if (!cf.ok()) return "fit-colliders: " + cf.status().message();
      st->report = {{"changes", Strings(cf->changes)},
                    {"warnings", Strings(cf->warnings)},
                    {"grown", cf->grown},
                    {"added", cf->added},
                    {"segment_chains", cf->segment_chains}};
    }
    *out_stage = st;
    return "";
  }

  // The retargeter of clip file `c` onto avatar `a`'s final stage, made once.
  std::shared_ptr<const Target> GetTarget(int a, int c, const Stage& stage) {
    Slot& s = *slots[a];
    std::lock_guard<std::recursive_mutex> lock(s.mu);
    if (!s.targets[c]) {
      auto t = std::make_shared<Target>();
      t->map = MatchHumanoid(stage.avatar);
      const ClipFile& cf = *plan.clip_files[c];
      auto rt = Retargeter::Create(cf.avatar, cf.map, stage.avatar, t->map);
      if (rt.ok())
        t->rt = std::make_unique<Retargeter>(std::move(rt).value());
      else
        t->error = "retarget " + plan.clips[c].path + ": " + rt.status().message();
      s.targets[c] = t;
    }
    return s.targets[c];
  }

  // Writes a job's output and lists it (path relative to the output folder, sha256, bytes).
  Status Write(const std::string& rel, const std::string& bytes, OJson* outputs) {
    if (Status st = CheckOutput(rel); !st.ok()) return st;
    if (Status st = WriteFileAtomic((fs::path(out) / rel).string(), bytes, true); !st.ok())
      return st;
    outputs->push_back({{"path", rel}, {"sha256", Sha256(bytes)}, {"bytes", bytes.size()}});
    return Status::Ok();
  }
  Status WriteAvatar(const std::string& rel, const Avatar& av, VrmOutput vrm, OJson* outputs,
                     OJson* warnings) {
    std::vector<std::string> w;
    SaveOptions so;
    so.force = true;
    so.vrm = vrm;
    so.warnings = &w;
    if (Status st = CheckOutput(rel); !st.ok()) return st;
    const std::string path = (fs::path(out) / rel).string();
    if (Status st = SaveAvatar(av, path, so); !st.ok()) return st;
    for (const auto& s : w) warnings->push_back(OneLine(s));
    std::string err;
    const std::string sha = Sha256File(path, &err);
    if (sha.empty()) return Status(StatusCode::kIoError, err);
    outputs->push_back({{"path", rel}, {"sha256", sha}, {"bytes", fs::file_size(path)}});
    return Status::Ok();
  }

  // The work of one job; returns the error ("" = done) and fills outputs, figures, warnings.
  std::string Work(const Job& job, OJson* outputs, OJson* figures, OJson* warnings) {
    const std::string dir = job.id;
    if (Status st = MakeFoldersBelow(out, dir); !st.ok()) return st.message();
    const int a = job.avatar;
    const int stage_no = job.op == "fit" ? 1 : job.op == "fit-colliders" ? 2 : FinalStage(plan, a);
    std::string err;
    auto stage = Get(a, stage_no, &err);
    if (!stage) return err;
    for (const auto& w : stage->warnings) warnings->push_back(OneLine(w));

    if (job.op == "fit" || job.op == "fit-colliders") {
      for (const auto& w : stage->report.value("warnings", OJson::array())) warnings->push_back(w);
      OJson rep = stage->report;
      rep["avatar"] = plan.avatars[a].path;
      if (Status st = WriteAvatar(dir + "/avatar" + Ext(stage->avatar), stage->avatar,
                                  VrmOutput::kKeepInput, outputs, warnings);
          !st.ok())
        return st.message();
      if (Status st = Write(dir + "/" + job.op + ".json", rep.dump(2) + "\n", outputs); !st.ok())
        return st.message();
      for (const auto& [k, v] : stage->report.items())
        if (v.is_number()) (*figures)[k] = v;
      (*figures)["changes"] = stage->report.value("changes", OJson::array()).size();
      return "";
    }

    if (job.op == "measure") {
      const OJson& o = plan.options.at("measure");
      MeasureOptions opt;
      opt.solvers.clear();
      for (const auto& s : o["solvers"]) {
        SolverMode mode;
        ParseSolverMode(s.get<std::string>(), &mode);
        opt.solvers.push_back(mode);
      }
      opt.fps = o["fps"].get<std::vector<int>>();
      opt.duration = o["seconds"].get<double>();
      opt.match_swing = o["match_swing"].get<bool>();
      opt.tuned = !o["plain"].get<bool>();
      SpringConfig arc;  // the named setting, then the liveliness as the plan has it
      ApplyArcSetting(o["arc_setting"].get<std::string>(), &arc);
      opt.arc_stiffness = arc.arc_stiffness;
      opt.arc_follow = arc.arc_follow;
      opt.arc_liveliness = o["arc_liveliness"].get<float>();
      const std::string& shirt = plan.avatars[a].shirt;
      for (size_t m = 0; m < stage->avatar.meshes.size() && !shirt.empty(); ++m)
        if (stage->avatar.meshes[m].name == shirt || std::to_string(m) == shirt)
          opt.shirt_mesh = static_cast<int>(m);
      auto rep = Measure(stage->avatar, opt);
      if (!rep.ok()) return rep.status().message();
      if (const std::string bad = FirstNonFiniteFigure(rep.value()); !bad.empty())
        return "measure: " + bad + " is not finite";
      rep->avatar = plan.avatars[a].path;  // as in the manifest: the same on every machine
      // Timings differ from run to run: they stay out of the output (the record has seconds),
      // so that a rerun or another shard writes the same bytes.
      OJson j = OJson::parse(MeasureReportJson(rep.value(), false));
      for (auto& r : j["results"]) {
        r.erase("update_p50_ms");
        r.erase("update_p95_ms");
      }
      if (Status st = Write(dir + "/measure.json", j.dump(2) + "\n", outputs); !st.ok())
        return st.message();
      if (o["report"].get<bool>()) {
        const std::string html = (fs::path(out) / dir / "report.html").string();
        if (Status st = WriteHtmlReport({rep.value()}, html, true); !st.ok()) return st.message();
        outputs->push_back({{"path", dir + "/report.html"},
                            {"sha256", Sha256File(html, nullptr)},
                            {"bytes", fs::file_size(html)}});
      }
      OJson runs = OJson::array();
      for (const RunResult& r : rep->results)
        runs.push_back({{"solver", SolverModeName(r.solver)},
                        {"fps", r.fps},
                        {"swing_rms_mm", r.swing_rms_mm},
                        {"stretch_p99_pct", rep->skinned_hair ? OJson(r.stretch_p99_pct) : OJson()},
                        {"shape_error_deg", r.shape_error_deg},
                        {"settle_mm", r.settle_mm}});
      (*figures)["chains"] = rep->chains;
      (*figures)["fps_identical"] = rep->fps_identical;
      (*figures)["runs"] = runs;
      return "";
    }

    // Clip jobs.
    const ClipFile& cf = *plan.clip_files[job.clip_file];
    const Clip* clip = nullptr;
    for (const Clip& c : cf.clips)
      if (c.name == job.clip) clip = &c;
    if (!clip) return "no clip named \"" + job.clip + "\" in " + plan.clips[job.clip_file].path;
    auto target = GetTarget(a, job.clip_file, *stage);

    if (job.op == "validate-clips") {
      const Rig* rig = target->rt ? &target->rt->target_rig() : nullptr;
      std::optional<Rig> own;
      if (!rig) {  // the check still reports what is missing, on the avatar's own rig
        auto r = BuildRig(stage->avatar);
        if (!r.ok()) return r.status().message();
        own = std::move(r).value();
        rig = &*own;
      }
      const ClipCheck check = CheckClip(plan.avatars[a].file, stage->avatar, target->map, *rig, cf,
                                        *clip, target->rt.get(), "", false);
      OJson j = ClipCheckJson(check);
      j["avatar"] = plan.avatars[a].path;
      if (Status st = Write(dir + "/validate.json", j.dump(2) + "\n", outputs); !st.ok())
        return st.message();
      *figures = j;
      figures->erase("avatar");
      figures->erase("clip");
      if (check.ok) return "";
      std::string why;
      if (!target->error.empty()) why += target->error + "; ";
      if (!check.missing.empty()) {
        why += "missing joints:";
        for (const auto& b : check.missing) why += " " + b;
        why += "; ";
      }
      if (check.invalid) why += std::to_string(check.invalid) + " non-finite values; ";
      if (check.hair_tracks)
        why += std::to_string(check.hair_tracks) + " tracks on spring joints; ";
      if (!check.error.empty()) why += check.error + "; ";
      return "check failed: " + why.substr(0, why.size() - 2);
    }

    // bake
    if (!target->rt) return target->error;
    const OJson& o = plan.options.at("bake");
    const Rig& rig = target->rt->target_rig();
    auto constraints = BuildConstraints(stage->avatar, rig);
    if (!constraints.ok()) return constraints.status().message();
    BakeOptions opt;
    ParseSolverMode(o["solver"].get<std::string>(), &opt.spring.mode);
    ApplyArcSetting(o["arc_setting"].get<std::string>(), &opt.spring);
    opt.rate = o["rate"].get<double>();
    opt.max_error_deg = o["max_error_deg"].get<float>();
    opt.max_error_m = static_cast<float>(o["max_error_mm"].get<double>() / 1000.0);
    opt.settle_seconds = o["settle"].get<double>();
    opt.close_body_loop = !o["keep_body_seam"].get<bool>();
    const std::string cyclic = o["cyclic"].get<std::string>();
    opt.cyclic = cyclic == "cyclic" || (cyclic == "auto" && LooksCyclic(clip->name));
    auto baked = BakeClip(rig, target->rt->Cached(*clip), *constraints, opt);
    if (!baked.ok()) return baked.status().message();
    Avatar av = stage->avatar;
    PutBakedClip(av, baked->clip, rig, o["keep_springs"].get<bool>());
    const std::string v = o["vrm_version"].get<std::string>();
    const VrmOutput vrm = v == "0"   ? VrmOutput::kVrm0
                          : v == "1" ? VrmOutput::kVrm1
                                     : VrmOutput::kKeepInput;
    if (Status st = WriteAvatar(dir + "/baked" + Ext(av), av, vrm, outputs, warnings); !st.ok())
      return st.message();
    OJson j = BakeReportJson(baked->report, o["solver"].get<std::string>(), false);
    j["arc_setting"] = o["arc_setting"];
    if (Status st = Write(dir + "/bake.json", j.dump(2) + "\n", outputs); !st.ok())
      return st.message();
    *figures = j;
    figures->erase("clip");
    return "";
  }
};

Runner::Runner(const Plan& plan, std::string out_dir, const std::vector<size_t>& jobs,
               InputFiles inputs)
    : impl_(new Impl{plan, std::move(out_dir), std::move(inputs), {}}) {
  for (size_t a = 0; a < plan.avatars.size(); ++a) {
    impl_->slots.push_back(std::make_unique<Slot>());
    impl_->slots.back()->targets.resize(plan.clips.size());
  }
  for (size_t j : jobs) ++impl_->slots[plan.jobs[j].avatar]->remaining;
}

Runner::~Runner() = default;

Status MakeFoldersBelow(const std::string& out, const std::string& rel) {
  fs::path at(out);
  for (const fs::path& part : fs::path(rel)) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return Status(StatusCode::kIoError, rel + ": leaves the output folder");
    at /= part;
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0) {
      if (::mkdir(at.c_str(), 0755) != 0 && errno != EEXIST)
        return Status(StatusCode::kIoError,
                      at.string() + ": cannot create the folder: " + std::strerror(errno));
      if (::lstat(at.c_str(), &st) != 0)
        return Status(StatusCode::kIoError, at.string() + ": " + std::strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
      return Status(StatusCode::kIoError,
                    at.string() +
                        ": is a symlink inside the output folder; outputs are never "
                        "written through one (remove it)");
    if (!S_ISDIR(st.st_mode))
      return Status(StatusCode::kIoError, at.string() + ": in the way of an output folder");
  }
  return Status::Ok();
}

Status NotAnInput(const std::string& path, const InputFiles& inputs) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 &&
      inputs.count({static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)}))
    return Status(StatusCode::kIoError,
                  path +
                      ": is one of the batch's inputs (the manifest, an avatar, a clip file or a "
                      "file beside a .gltf that it reads); not replaced - choose another --out");
  return Status::Ok();
}

std::string RecordHash(const OJson& record) {
  OJson copy = record;
  if (copy.is_object()) copy.erase("record_sha256");
  return Sha256(copy.dump());
}

OJson Runner::Run(size_t index) {
  const Job& job = impl_->plan.jobs[index];
  OJson outputs = OJson::array(), figures = OJson::object(), warnings = OJson::array();
  std::string error;
  // Isolated: a job that waits for its avatar's stage must not pick up another job meanwhile
  // (it could wait on itself). Anything thrown is this job's failure, not the batch's.
  tbb::this_task_arena::isolate([&] {
    try {
      error = impl_->Work(job, &outputs, &figures, &warnings);
    } catch (const std::exception& e) {
      error = std::string("internal error: ") + e.what();
    } catch (...) {
      error = "internal error: unknown exception";
    }
  });
  Slot& slot = *impl_->slots[job.avatar];
  if (--slot.remaining == 0) {  // the last job of this avatar here: free what it held
    std::lock_guard<std::recursive_mutex> lock(slot.mu);
    for (int k = 0; k < 3; ++k) {
      slot.stage[k].reset();
      slot.made[k] = false;
    }
    for (auto& t : slot.targets) t.reset();
  }
  OJson r;
  r["status"] = error.empty() ? "ok" : "failed";
  if (!error.empty()) r["error"] = OneLine(error);
  r["outputs"] = outputs;
  r["figures"] = figures;
  r["warnings"] = warnings;
  return r;
}

}  // namespace hairswing::cli::batch
