// hairswing batch MANIFEST: every job of a manifest (avatars x clips x operations) over TBB, or a
// deterministic shard of them; resumable; --merge joins shard summaries. docs/batch.md.
#include "batch.h"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <stdexcept>

#include "commands.h"
#include "hairswing/anim.h"
#include "hairswing/demo.h"
#include "hairswing/files.h"

namespace hairswing::cli {
namespace fs = std::filesystem;
using batch::OJson;

namespace {

constexpr const char* kVersion = "hairswing 0.1.0";

// Which build ran a job: the version and the head-turn hashes of the built-in ponytail avatar in
// every solver mode (they change with any change to what the solver computes). A job whose record
// names another engine is run again.
OJson Engine() {
  const Avatar demo = MakeDemoAvatar(DemoVariant::kPonytail);
  uint64_t h = 1469598103934665603ull;
  for (SolverMode m : {SolverMode::kArc, SolverMode::kParent, SolverMode::kVrm}) {
    auto r = HeadTurnHash(demo, m, 60);
    h = (h ^ (r.ok() ? r.value() : 0)) * 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return {{"version", kVersion}, {"solver_fingerprint", hex}};
}

// A record or shard summary: a regular file (not a FIFO or a device), bounded in size and nesting.
bool ReadJson(const std::string& path, OJson* out) {
  auto text = ReadRegularFile(path, batch::kMaxSideFileBytes);
  if (!text.ok() || !JsonNestingError(*text).empty()) return false;
  *out = OJson::parse(*text, nullptr, false);
  return !out->is_discarded() && out->is_object();
}

// A job is up to date when its last record is intact (its record_sha256 matches), says ok for the
// same inputs (by sha256), options and engine, and lists outputs that are all still there with
// the same bytes.
bool UpToDate(const OJson& rec, const OJson& inputs, const OJson& options, const OJson& engine,
              const std::string& out) {
  if (!rec.contains("record_sha256") || rec["record_sha256"] != batch::RecordHash(rec) ||
      rec.value("status", "") != "ok" || rec.value("inputs", OJson()) != inputs ||
      rec.value("options", OJson()) != options || rec.value("engine", OJson()) != engine ||
      !rec.contains("outputs") || !rec["outputs"].is_array() || rec["outputs"].empty())
    return false;
  for (const auto& o : rec["outputs"]) {
    if (!o.is_object() || !o.contains("path") || !o["path"].is_string()) return false;
    if (!batch::MakeFoldersBelow(out, fs::path(o["path"].get<std::string>()).parent_path().string())
             .ok())
      return false;
    std::string err;
    if (batch::Sha256File((fs::path(out) / o["path"].get<std::string>()).string(), &err) !=
        o.value("sha256", ""))
      return false;
  }
  return true;
}

OJson Counts(const OJson& jobs) {
  int ok = 0, failed = 0;
  for (const auto& j : jobs) (j["status"] == "ok" ? ok : failed)++;
  return {{"jobs", jobs.size()}, {"ok", ok}, {"failed", failed}};
}

std::string SummaryName(int index, int count) {
  return count == 1
             ? "summary.json"
             : "summary.shard-" + std::to_string(index) + "-of-" + std::to_string(count) + ".json";
}

// --merge: the shard summaries in `out` joined in the manifest's job order into summary.json.
int Merge(const batch::Plan& plan, const std::string& out, bool force) {
  const std::regex name(R"(summary\.shard-(\d+)-of-(\d+)\.json)");
  std::map<int, OJson> shards;
  int count = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out, ec)) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    if (!std::regex_match(file, m, name)) continue;
    // Numbers as the batch writes them: a shard index below a count of at most 100,000.
    auto number = [](const std::string& t) {
      int v = -1;
      if (t.size() > 6 || std::from_chars(t.data(), t.data() + t.size(), v).ec != std::errc())
        return -1;
      return v;
    };
    const int index = number(m[1]), n = number(m[2]);
    if (n < 1 || n > 100000 || index < 0 || index >= n) {
      std::fprintf(stderr, "error: %s: not a shard summary this batch writes (shard %s of %s)\n",
                   e.path().string().c_str(), std::string(m[1]).c_str(), std::string(m[2]).c_str());
      return kExitBadInput;
    }
    if (count && n != count) {
      std::fprintf(stderr,
                   "error: %s: shard summaries of %d and of %d shards; remove the old ones\n",
                   out.c_str(), count, n);
      return kExitBadInput;
    }
    count = n;
    OJson s;
    if (!ReadJson(e.path().string(), &s)) {
      std::fprintf(stderr, "error: %s: not a readable summary\n", e.path().string().c_str());
      return kExitBadInput;
    }
    shards[index] = std::move(s);
  }
  if (ec || !count) {
    std::fprintf(stderr, "error: %s: no shard summaries (summary.shard-I-of-N.json) to merge\n",
                 out.c_str());
    return kExitBadInput;
  }
  std::map<std::string, OJson> records;
  OJson engine;
  for (int i = 0; i < count; ++i) {
    if (!shards.count(i)) {
      std::fprintf(stderr, "error: %s: shard %d of %d has no summary (did it run?)\n", out.c_str(),
                   i, count);
      return kExitBadInput;
    }
    const OJson& s = shards[i];
    if (s.value("manifest_sha256", "") != plan.manifest_sha256) {
      std::fprintf(stderr, "error: %s: shard %d ran another version of %s\n", out.c_str(), i,
                   plan.manifest.c_str());
      return kExitBadInput;
    }
    if (i == 0) engine = s.value("engine", OJson());
    if (s.value("engine", OJson()) != engine) {
      std::fprintf(stderr, "error: %s: shards 0 and %d ran different builds of hairswing\n",
                   out.c_str(), i);
      return kExitBadInput;
    }
    for (const auto& r : s.value("jobs", OJson::array()))
      if (r.is_object() && r.contains("id") && r["id"].is_string())
        records[r["id"].get<std::string>()] = r;
  }
  OJson jobs = OJson::array();
  for (const auto& job : plan.jobs) {
    auto it = records.find(job.id);
    if (it == records.end()) {
      std::fprintf(stderr, "error: %s: no shard has a record of job %s\n", out.c_str(),
                   job.id.c_str());
      return kExitBadInput;
    }
    jobs.push_back(it->second);
  }
  OJson summary = {{"manifest", plan.manifest},
                   {"manifest_sha256", plan.manifest_sha256},
                   {"engine", engine},
                   {"counts", Counts(jobs)},
                   {"jobs", jobs}};
  const std::string path = (fs::path(out) / "summary.json").string();
  if (Status st = batch::NotAnInput(path, batch::ListInputFiles(plan)); !st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    return kExitBadInput;
  }
  if (Status st = WriteFileAtomic(path, summary.dump(1) + "\n", force); !st.ok()) {
    std::fprintf(stderr, "error: %s (--force replaces it)\n", st.message().c_str());
    return kExitBadInput;
  }
  const int failed = summary["counts"]["failed"].get<int>();
  std::printf("merged %d shard summaries: %zu jobs, %d failed; wrote %s\n", count, jobs.size(),
              failed, path.c_str());
  return failed ? kExitFailure : kExitOk;
}

}  // namespace

void AddBatch(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "batch",
      "Run a manifest of avatars x clips x operations (fit, fit-colliders, measure, "
      "validate-clips, bake) as independent jobs over all cores, writing OUT/AVATAR/OP/ and "
      "OUT/AVATAR/CLIPFILE/CLIP/OP/ and one record per job in OUT/summary.json (inputs with "
      "sha256, options, outputs, figures, status, error, seconds). A failing job is recorded and "
      "the others go on; exit code 1 when any failed. Jobs whose outputs are up to date (same "
      "input bytes, options and solver) are skipped, so an interrupted batch resumes. --shard I/N "
      "runs a deterministic share for a cluster engine (Slurm, Kubernetes: docs/batch.md); "
      "--merge joins the shards' summaries.");
  struct Opts {
    std::string manifest, out, shard = "0/1";
    int threads = 0;
    bool merge = false, force = false, list = false, quiet = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("MANIFEST", o->manifest,
                  "JSON: {\"avatars\": [...], \"clips\": [...], \"operations\": [...], "
                  "\"options\": {...}}; paths relative to it (docs/batch.md)")
      ->required();
  cmd->add_option("--out", o->out, "output folder (default: MANIFEST without .json, plus -out)");
  cmd->add_option("--shard", o->shard,
                  "I/N: run only the jobs whose index modulo N is I (0 <= I < N); the summary "
                  "goes to OUT/summary.shard-I-of-N.json")
      ->check([](const std::string& s) -> std::string {
        int i = -1, n = 0;
        char tail = 0;
        if (std::sscanf(s.c_str(), "%d/%d%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n)
          return "expected I/N with 0 <= I < N, e.g. 0/4";
        return {};
      })
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "worker threads (0 = one per core)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_flag("--merge", o->merge,
                "join OUT/summary.shard-*-of-N.json (all N present) into OUT/summary.json");
  cmd->add_flag("--list", o->list, "print the jobs (with their shard under --shard) and stop");
  cmd->add_flag("--force", o->force,
                "run every job even when up to date, and replace an existing merged summary");
  cmd->add_flag("-q,--quiet", o->quiet, "no line per job (the summary line and errors stay)");
  cmd->callback([o, &exit_code] {
    int shard = 0, shards = 1;
    std::sscanf(o->shard.c_str(), "%d/%d", &shard, &shards);
    auto planned = batch::MakePlan(o->manifest);
    if (!planned.ok()) {
      std::fprintf(stderr, "error: %s\n", OneLine(planned.status().message()).c_str());
      exit_code = kExitBadInput;
      return;
    }
    const batch::Plan& plan = planned.value();
    std::string out = o->out;
    if (out.empty()) {
      fs::path p(o->manifest);
      out = (p.parent_path() / (p.stem().string() + "-out")).string();
    }
    std::vector<size_t> mine;
    for (size_t i = 0; i < plan.jobs.size(); ++i)
      if (static_cast<int>(i % shards) == shard) mine.push_back(i);
    if (o->list) {
      for (size_t i = 0; i < plan.jobs.size(); ++i)
        if (shards == 1 || static_cast<int>(i % shards) == shard)
          std::printf("%s\n", plan.jobs[i].id.c_str());
      std::printf("%zu of %zu jobs%s\n", mine.size(), plan.jobs.size(),
                  shards > 1 ? (" in shard " + o->shard).c_str() : "");
      return;
    }
    std::error_code ec;
    fs::create_directories(out, ec);
    if (ec || !fs::is_directory(out, ec)) {
      std::fprintf(stderr, "error: --out %s: cannot create the folder\n", out.c_str());
      exit_code = kExitBadInput;
      return;
    }
    if (o->merge) {
      exit_code = Merge(plan, out, o->force);
      return;
    }
    std::unique_ptr<tbb::global_control> limit;
    if (o->threads > 0)
      limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                    o->threads);
    // An internal invariant that breaks inside a job (HS_ASSERT) fails that job instead of
    // aborting the batch: the handler throws, Runner::Run records it.
    SetAssertHandler([](const char* expr, const char* file, int line) {
      throw std::runtime_error(std::string("assertion failed: ") + expr + " (" + file + ":" +
                               std::to_string(line) + ")");
    });
    const auto started = std::chrono::steady_clock::now();
    const OJson engine = Engine();

    // Each job's record starts with what went in; an up-to-date job keeps its last record.
    std::vector<OJson> records(mine.size());
    std::vector<uint8_t> skip(mine.size(), 0);
    tbb::parallel_for(size_t(0), mine.size(), [&](size_t k) {
      const batch::Job& job = plan.jobs[mine[k]];
      const batch::AvatarEntry& a = plan.avatars[job.avatar];
      OJson r = {{"id", job.id}, {"operation", job.op}};
      r["avatar"] = {{"path", a.path}, {"name", a.key}};
      if (job.clip_file >= 0)
        r["clip"] = {{"file", plan.clips[job.clip_file].path}, {"name", job.clip}};
      r["inputs"] = batch::JobInputs(plan, job);
      r["options"] = batch::JobOptions(plan, job);
      r["engine"] = engine;
      OJson last;
      if (!o->force && ReadJson((fs::path(out) / job.id / "job.json").string(), &last) &&
          UpToDate(last, r["inputs"], r["options"], engine, out)) {
        records[k] = std::move(last);
        skip[k] = 1;
      } else {
        records[k] = std::move(r);
      }
    });
    std::vector<size_t> todo;
    for (size_t k = 0; k < mine.size(); ++k)
      if (!skip[k]) todo.push_back(mine[k]);
    const size_t skipped = mine.size() - todo.size();

    const batch::InputFiles inputs = batch::ListInputFiles(plan);
    const std::string path = (fs::path(out) / SummaryName(shard, shards)).string();
    if (Status st = batch::NotAnInput(path, inputs); !st.ok()) {  // before any work
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    batch::Runner runner(plan, out, todo, inputs);
    std::atomic<size_t> done{0};
    std::mutex mu;
    const bool tty = !o->quiet && isatty(STDERR_FILENO);
    if (skipped && !o->quiet)
      std::printf("%zu of %zu jobs up to date (skipped)\n", skipped, mine.size());
    std::vector<size_t> slot_of(plan.jobs.size());
    for (size_t k = 0; k < mine.size(); ++k) slot_of[mine[k]] = k;
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, todo.size(), 1),
        [&](const tbb::blocked_range<size_t>& range) {
          for (size_t t = range.begin(); t != range.end(); ++t) {
            const size_t index = todo[t];
            const batch::Job& job = plan.jobs[index];
            OJson& r = records[slot_of[index]];
            const std::string record_path = (fs::path(out) / job.id / "job.json").string();
            Status record_ok = batch::MakeFoldersBelow(out, job.id);
            if (record_ok.ok()) record_ok = batch::NotAnInput(record_path, inputs);
            std::error_code rm_ec;  // the old record is stale until this run ends
            if (record_ok.ok()) fs::remove(record_path, rm_ec);
            const auto t0 = std::chrono::steady_clock::now();
            OJson result = runner.Run(index);
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            for (const auto& [k, v] : result.items()) r[k] = v;
            r["seconds"] = std::round(seconds * 1000.0) / 1000.0;
            r["record_sha256"] = batch::RecordHash(r);
            if (Status st = record_ok.ok() ? WriteFileAtomic(record_path, r.dump(1) + "\n", true)
                                           : record_ok;
                !st.ok()) {
              if (r["status"] == "ok") r["error"] = "cannot write its record: " + st.message();
              r["status"] = "failed";
              r.erase("record_sha256");
            }
            const bool ok = r["status"] == "ok";
            const size_t d = ++done;
            std::lock_guard<std::mutex> lock(mu);
            if (tty) std::fprintf(stderr, "\r%*s\r", 100, "");
            if (!ok)
              std::fprintf(stderr, "  FAILED %s: %s\n", job.id.c_str(),
                           r["error"].get<std::string>().c_str());
            else if (!o->quiet && !tty)
              std::printf("  ok %7.2f s  %s\n", seconds, job.id.c_str());
            if (tty) {
              const int width = 30, filled = static_cast<int>(width * d / todo.size());
              std::fprintf(stderr, "  batch [%.*s%*s] %zu/%zu %-40.40s", filled,
                           "##############################", width - filled, "", d, todo.size(),
                           job.id.c_str());
            }
          }
        },
        tbb::simple_partitioner());
    if (tty && !todo.empty()) std::fprintf(stderr, "\n");

    OJson jobs = OJson::array();
    for (auto& r : records) jobs.push_back(std::move(r));
    OJson summary = {
        {"manifest", plan.manifest}, {"manifest_sha256", plan.manifest_sha256}, {"engine", engine}};
    if (shards > 1) summary["shard"] = {{"index", shard}, {"count", shards}};
    summary["counts"] = Counts(jobs);
    summary["jobs"] = jobs;
    if (Status st = WriteFileAtomic(path, summary.dump(1) + "\n", true); !st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const int nfailed = summary["counts"]["failed"].get<int>();
    std::printf("%zu jobs%s: %zu run, %zu up to date, %d failed, %.2f s; summary: %s\n",
                mine.size(), shards > 1 ? (" (shard " + o->shard + ")").c_str() : "", todo.size(),
                skipped, nfailed, wall, path.c_str());
    exit_code = nfailed ? kExitFailure : kExitOk;
  });
}

}  // namespace hairswing::cli
