// hairswing batch: reading a manifest into a checked plan of jobs, and what each job's record
// says went in (input files with sha256, options). Nothing here runs a job.
#include <openssl/evp.h>
#include <sys/stat.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "batch.h"
#include "clip_file.h"
#include "hairswing/files.h"
#include "hairswing/fit.h"
#include "hairswing/io.h"
#include "report.h"

namespace hairswing::cli::batch {
namespace fs = std::filesystem;

std::string SafeName(const std::string& name) {
  std::string out;
  for (unsigned char c : name)
    out.push_back(std::isalnum(c) || c == '.' || c == '-' || c == '_' ? static_cast<char>(c) : '_');
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

std::string Sha256(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr);
  static const char* kHex = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < len; ++i) {
    hex.push_back(kHex[md[i] >> 4]);
    hex.push_back(kHex[md[i] & 15]);
  }
  return hex;
}

std::string Sha256File(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = path + ": cannot read";
    return "";
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return Sha256(ss.str());
}

namespace {

// A value per file, computed once per process (several jobs name the same avatar and clip file).
template <typename T, typename Make>
const T& PerFile(const std::string& file, Make make) {
  static std::mutex mu;
  static std::map<std::string, T> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(file); it != cache.end()) return it->second;
  }
  T value = make(file);
  std::lock_guard<std::mutex> lock(mu);
  return cache.emplace(file, std::move(value)).first->second;
}

const std::string& CachedSha256(const std::string& file) {
  return PerFile<std::string>(file, [](const std::string& f) {
    std::string sha = Sha256File(f, nullptr);
    return sha.empty() ? std::string("unreadable") : sha;
  });
}

// A .gltf's external buffers and images (what its bytes alone do not pin down); the ones that
// exist, in the file's order. data: URIs are part of the .gltf already.
std::vector<std::string> ReadGltfExternals(const std::string& file) {
  std::vector<std::string> out;
  std::string ext = fs::path(file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  if (ext != ".gltf") return out;
  auto text = ReadRegularFile(file, kMaxSideFileBytes);
  if (!text.ok() || !JsonNestingError(*text).empty()) return out;
  const OJson j = OJson::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return out;
  auto decode = [](const std::string& uri) {  // %XX escapes, as glTF URIs use them
    std::string s;
    for (size_t i = 0; i < uri.size(); ++i) {
      if (uri[i] == '%' && i + 2 < uri.size() && std::isxdigit(uri[i + 1]) &&
          std::isxdigit(uri[i + 2])) {
        s.push_back(static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16)));
        i += 2;
      } else {
        s.push_back(uri[i]);
      }
    }
    return s;
  };
  for (const char* key : {"buffers", "images"}) {
    if (!j.contains(key) || !j[key].is_array()) continue;
    for (const auto& b : j[key])
      if (b.is_object() && b.contains("uri") && b["uri"].is_string()) {
        const std::string uri = b["uri"].get<std::string>();
        if (uri.rfind("data:", 0) == 0) continue;
        const std::string path = (fs::path(file).parent_path() / decode(uri)).string();
        std::error_code ec;
        if (fs::is_regular_file(path, ec)) out.push_back(path);
      }
  }
  return out;
}

const std::vector<std::string>& GltfExternals(const std::string& file) {
  return PerFile<std::vector<std::string>>(file, ReadGltfExternals);
}

// Options per operation: these defaults are also the list of keys a manifest may set, and their
// JSON types. Ranges are checked in CheckOption.
std::map<std::string, OJson> DefaultOptions() {
  const FitOptions fit;
  const MeasureFlags measure;
  // float defaults as the decimal they were written as (0.08, not 0.07999999821186066)
  std::map<std::string, OJson> d;
  d["fit"] = {{"joints", fit.joints},
              {"segment_length", AsGiven(fit.segment_length)},
              {"root_ramp", AsGiven(fit.root_ramp_segments)},
              {"min_hang", AsGiven(fit.min_hang_length)},
              {"max_flip", AsGiven(fit.max_flip_deg)},
              {"attach", fit.attach}};
  d["fit-colliders"] = OJson::object();
  d["measure"] = {{"solvers", {"arc", "parent", "vrm"}},
                  {"fps", {30, 60, 120}},
                  {"seconds", 12.0},
                  {"match_swing", measure.match_swing},
                  {"plain", measure.plain},
                  {"arc_setting", "article"},
                  {"arc_liveliness", AsGiven(measure.arc_liveliness)},
                  {"report", false}};
  d["validate-clips"] = OJson::object();
  d["bake"] = {{"solver", "arc"},      {"arc_setting", "article"}, {"rate", 30},
               {"max_error_deg", 0.1}, {"max_error_mm", 0.3},      {"settle", 0.0},
               {"cyclic", "auto"},     {"keep_springs", false},    {"keep_body_seam", false},
               {"vrm_version", "keep"}};
  return d;
}

// "" when `v` is an acceptable value for option `op`.`key`, else why not.
std::string CheckOption(const std::string& op, const std::string& key, const OJson& v) {
  auto in = [&](double lo, double hi, bool integer = false) -> std::string {
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi || (integer && x != std::floor(x))) {
      std::ostringstream s;
      s << "must be " << (integer ? "an integer" : "a number") << " in [" << lo << ", " << hi
        << "]";
      return s.str();
    }
    return "";
  };
  auto one_of = [&](const std::string& s, const std::vector<std::string>& allowed) {
    std::string list;
    for (const std::string& a : allowed) {
      if (s == a) return std::string();
      list += (list.empty() ? "" : ", ") + a;
    }
    return "\"" + s + "\" is not one of " + list;
  };
  if (op == "fit") {
    if (key == "joints") return in(2, 64, true);
    if (key == "segment_length") return in(0.01, 1.0);
    if (key == "root_ramp")  // a number, or "auto" (chosen by measurement, as fit --root-ramp)
      return v.is_string() ? (v == "auto" ? "" : "must be a number in [0.25, 4] or \"auto\"")
                           : in(0.25, 4.0);
    if (key == "max_flip") return in(0.0, 180.0);
    if (key == "min_hang") return in(0.0, 1.0);
    if (key == "attach" && v.get<std::string>().empty()) return "must name a humanoid bone";
  } else if (op == "measure") {
    if (key == "seconds") return in(2, 600);
    if (key == "arc_liveliness") return in(0, 1);
    if (key == "arc_setting") return one_of(v.get<std::string>(), ArcSettingNames());
    if (key == "solvers" || key == "fps") {
      if (v.empty()) return "must list at least one";
      std::set<std::string> seen;
      for (const auto& e : v) {
        if (key == "solvers" &&
            (!e.is_string() || !one_of(e.get<std::string>(), {"arc", "parent", "vrm"}).empty()))
          return "lists " + e.dump() + ": each must be one of arc, parent, vrm";
        if (key == "fps" && (!e.is_number_integer() || (e != 30 && e != 60 && e != 120)))
          return "lists " + e.dump() + ": each must be 30, 60 or 120";
        if (!seen.insert(e.dump()).second) return "lists " + e.dump() + " twice";
      }
    }
  } else if (op == "bake") {
    if (key == "solver") return one_of(v.get<std::string>(), {"arc", "parent", "vrm"});
    if (key == "arc_setting") return one_of(v.get<std::string>(), ArcSettingNames());
    if (key == "rate" && v != 30 && v != 60) return "must be 30 or 60";
    if (key == "max_error_deg") return in(0, 10);
    if (key == "max_error_mm") return in(0.001, 100);
    if (key == "settle") return in(0, 600);
    if (key == "cyclic") return one_of(v.get<std::string>(), {"auto", "cyclic", "one-shot"});
    if (key == "vrm_version") return one_of(v.get<std::string>(), {"keep", "0", "1"});
  }
  return "";
}

bool SameType(const OJson& a, const OJson& b) {
  return a.type() == b.type() || (a.is_number() && b.is_number());
}

Status Bad(const std::string& manifest, const std::string& what) {
  return Status(StatusCode::kInvalidInput, manifest + ": " + what);
}

// The path to open for a manifest path: relative paths are relative to the manifest's folder.
std::string Resolve(const std::string& dir, const std::string& path) {
  return fs::path(path).is_absolute() ? path : (fs::path(dir) / path).lexically_normal().string();
}

// A string field or nothing; anything else is an error.
bool StringField(const OJson& obj, const char* key, std::string* out, std::string* err,
                 const std::string& where) {
  if (!obj.contains(key)) return true;
  if (!obj[key].is_string() || obj[key].get<std::string>().empty()) {
    *err = where + "." + key + ": expected a non-empty string";
    return false;
  }
  *out = obj[key].get<std::string>();
  return true;
}

bool SelectorSyntaxOk(const std::string& s) {
  if (s.rfind("material:", 0) == 0) return s.size() > 9;
  return !s.empty() && s.front() != '/' && s.back() != '/';
}

}  // namespace

int FinalStage(const Plan& plan, int avatar) {
  auto has = [&](const char* op) {
    return std::find(plan.ops.begin(), plan.ops.end(), op) != plan.ops.end();
  };
  if (has("fit-colliders")) return 2;
  return has("fit") && !plan.avatars[avatar].hair.empty() ? 1 : 0;
}

Result<Plan> MakePlan(const std::string& manifest_path) {
  Plan plan;
  plan.manifest = manifest_path;
  const std::string& m = manifest_path;
  auto text = ReadRegularFile(manifest_path, kMaxSideFileBytes);
  if (!text.ok()) return Status(StatusCode::kInvalidInput, text.status().message());
  if (const std::string deep = JsonNestingError(*text); !deep.empty()) return Bad(m, deep);
  if (const std::string many = JsonValuesError(*text); !many.empty()) return Bad(m, many);
  plan.manifest_sha256 = Sha256(*text);
  plan.dir = fs::path(manifest_path).parent_path().string();
  if (plan.dir.empty()) plan.dir = ".";
  OJson j;
  try {
    j = OJson::parse(*text);
  } catch (const OJson::parse_error& e) {
    return Bad(m, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) return Bad(m, "expected a JSON object with avatars, clips, operations");
  for (const auto& [key, value] : j.items())
    if (key != "avatars" && key != "clips" && key != "operations" && key != "options" &&
        key != "description")
      return Bad(m,
                 "unknown key \"" + key + "\" (avatars, clips, operations, options, description)");

  // Operations: known names, each once; kept in the order they run.
  if (!j.contains("operations") || !j["operations"].is_array() || j["operations"].empty())
    return Bad(m,
               "operations: expected a non-empty list (fit, fit-colliders, measure, "
               "validate-clips, bake)");
  std::set<std::string> listed;
  for (size_t i = 0; i < j["operations"].size(); ++i) {
    const OJson& op = j["operations"][i];
    const auto& all = Operations();
    if (!op.is_string() || std::find(all.begin(), all.end(), op.get<std::string>()) == all.end())
      return Bad(m, "operations[" + std::to_string(i) + "]: unknown operation " + op.dump() +
                        " (fit, fit-colliders, measure, validate-clips, bake)");
    if (!listed.insert(op.get<std::string>()).second)
      return Bad(m, "operations[" + std::to_string(i) + "]: " + op.dump() + " is listed twice");
  }
  for (const auto& op : Operations())
    if (listed.count(op)) plan.ops.push_back(op);
  const bool clip_ops = listed.count("validate-clips") || listed.count("bake");

  // Options: per listed operation, known keys of the default's type, in range.
  plan.options = DefaultOptions();
  if (j.contains("options")) {
    if (!j["options"].is_object()) return Bad(m, "options: expected an object keyed by operation");
    for (const auto& [op, given] : j["options"].items()) {
      if (!plan.options.count(op)) return Bad(m, "options." + op + ": unknown operation");
      if (!listed.count(op))
        return Bad(m, "options." + op + ": the operation is not in operations");
      if (!given.is_object()) return Bad(m, "options." + op + ": expected an object");
      OJson& eff = plan.options[op];
      for (const auto& [key, v] : given.items()) {
        if (!eff.contains(key)) {
          std::string keys;
          for (const auto& [k, unused] : eff.items()) keys += (keys.empty() ? "" : ", ") + k;
          return Bad(m, "options." + op + "." + key + ": unknown option" +
                            (keys.empty() ? " (this operation has none)" : " (" + keys + ")"));
        }
        const bool auto_ramp = op == "fit" && key == "root_ramp" && v.is_string();
        if (!auto_ramp && !SameType(eff[key], v))
          return Bad(m, "options." + op + "." + key + ": expected " + eff[key].type_name() +
                            ", got " + v.dump());
        if (std::string why = CheckOption(op, key, v); !why.empty())
          return Bad(m, "options." + op + "." + key + ": " + why);
        eff[key] = v;
      }
      // measure: a named arc setting brings its liveliness unless the manifest gives one.
      if (op == "measure" && given.contains("arc_setting") && !given.contains("arc_liveliness")) {
        SpringConfig c;
        ApplyArcSetting(eff["arc_setting"].get<std::string>(), &c);
        eff["arc_liveliness"] = static_cast<double>(c.arc_liveliness);
      }
    }
  }
  for (auto it = plan.options.begin(); it != plan.options.end();)
    it = listed.count(it->first) ? std::next(it) : plan.options.erase(it);

  // Avatars: a path, or an object with path and optional name, hair, shirt, wear.
  if (!j.contains("avatars") || !j["avatars"].is_array() || j["avatars"].empty())
    return Bad(m, "avatars: expected a non-empty list of paths or {\"path\": ...} objects");
  if (j["avatars"].size() > kMaxManifestEntries)
    return Bad(m, "avatars: " + std::to_string(j["avatars"].size()) + " entries, more than the " +
                      std::to_string(kMaxManifestEntries) + " a manifest may list");
  for (size_t i = 0; i < j["avatars"].size(); ++i) {
    const std::string where = "avatars[" + std::to_string(i) + "]";
    OJson e = j["avatars"][i];
    if (e.is_string()) e = {{"path", e}};
    if (!e.is_object()) return Bad(m, where + ": expected a path or an object");
    for (const auto& [key, unused] : e.items())
      if (key != "path" && key != "name" && key != "hair" && key != "shirt" && key != "wear")
        return Bad(m, where + ": unknown key \"" + key + "\" (path, name, hair, shirt, wear)");
    AvatarEntry a;
    std::string err, name;
    if (!e.contains("path")) return Bad(m, where + ".path: missing");
    if (!StringField(e, "path", &a.path, &err, where) ||
        !StringField(e, "name", &name, &err, where) ||
        !StringField(e, "hair", &a.hair, &err, where) ||
        !StringField(e, "shirt", &a.shirt, &err, where))
      return Bad(m, err);
    if (!a.hair.empty() && !SelectorSyntaxOk(a.hair))
      return Bad(m, where + ".hair: \"" + a.hair +
                        "\" is not a selector (MESH, MESH/INDEX or material:NAME)");
    if (e.contains("wear")) {
      OJson w = e["wear"].is_string() ? OJson::array({e["wear"]}) : e["wear"];
      if (!w.is_array()) return Bad(m, where + ".wear: expected a path or a list of paths");
      for (const auto& p : w) {
        if (!p.is_string() || p.get<std::string>().empty())
          return Bad(m, where + ".wear: expected paths, got " + p.dump());
        a.wear.push_back(p.get<std::string>());
        a.wear_file.push_back(Resolve(plan.dir, a.wear.back()));
      }
    }
    a.file = Resolve(plan.dir, a.path);
    a.key = SafeName(name.empty() ? fs::path(a.path).stem().string() : name);
    std::error_code ec;
    if (!fs::is_regular_file(a.file, ec)) return Bad(m, where + ".path: no such file: " + a.file);
    for (size_t w = 0; w < a.wear_file.size(); ++w)
      if (!fs::is_regular_file(a.wear_file[w], ec))
        return Bad(m, where + ".wear[" + std::to_string(w) + "]: no such file: " + a.wear_file[w]);
    plan.avatars.push_back(std::move(a));
  }

  // Clip files: a path, or an object with path and optional clip and name.
  if (j.contains("clips") && !j["clips"].is_array())
    return Bad(m, "clips: expected a list of paths or {\"path\": ..., \"clip\": ...} objects");
  if (clip_ops && (!j.contains("clips") || j["clips"].empty()))
    return Bad(m, "clips: validate-clips and bake need at least one clip file");
  if (j.contains("clips") && j["clips"].size() > kMaxManifestEntries)
    return Bad(m, "clips: " + std::to_string(j["clips"].size()) + " entries, more than the " +
                      std::to_string(kMaxManifestEntries) + " a manifest may list");
  if (j.contains("clips") && clip_ops)
    for (size_t i = 0; i < j["clips"].size(); ++i) {
      const std::string where = "clips[" + std::to_string(i) + "]";
      OJson e = j["clips"][i];
      if (e.is_string()) e = {{"path", e}};
      if (!e.is_object()) return Bad(m, where + ": expected a path or an object");
      for (const auto& [key, unused] : e.items())
        if (key != "path" && key != "clip" && key != "name")
          return Bad(m, where + ": unknown key \"" + key + "\" (path, clip, name)");
      ClipEntry c;
      std::string err, name;
      if (!e.contains("path")) return Bad(m, where + ".path: missing");
      if (!StringField(e, "path", &c.path, &err, where) ||
          !StringField(e, "clip", &c.clip, &err, where) ||
          !StringField(e, "name", &name, &err, where))
        return Bad(m, err);
      c.file = Resolve(plan.dir, c.path);
      c.key = SafeName(name.empty() ? fs::path(c.path).stem().string() : name);
      std::error_code ec;
      if (!fs::is_regular_file(c.file, ec)) return Bad(m, where + ".path: no such file: " + c.file);
      plan.clips.push_back(std::move(c));
    }

  // What needs opening to check: clip files (their clip names), avatars with a hair selector or a
  // shirt (does it name something?). In parallel; an avatar that does not load is not a manifest
  // error: its jobs fail and say why.
  std::vector<std::string> clip_errors(plan.clips.size()), avatar_errors(plan.avatars.size());
  plan.clip_names.resize(plan.clips.size());
  plan.clip_files.resize(plan.clips.size());
  // Each clip file is read once, however many entries name it (20,000 entries of one library
  // used to read it 20,000 times).
  std::map<std::string, size_t> distinct;
  std::vector<std::string> files;
  std::vector<size_t> file_of(plan.clips.size());
  for (size_t k = 0; k < plan.clips.size(); ++k) {
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(plan.clips[k].file, ec);
    const std::string key = ec ? plan.clips[k].file : canon.string();
    auto [it, fresh] = distinct.emplace(key, files.size());
    if (fresh) files.push_back(plan.clips[k].file);
    file_of[k] = it->second;
  }
  std::vector<std::shared_ptr<const ClipFile>> read(files.size());
  std::vector<std::string> read_errors(files.size());
  tbb::parallel_for(size_t(0), files.size(), [&](size_t f) {
    auto file = std::make_shared<ClipFile>();
    if (Status st = ReadClipFile(files[f], file.get()); !st.ok())
      read_errors[f] = st.message();
    else
      read[f] = std::move(file);
  });
  tbb::parallel_for(size_t(0), plan.clips.size() + plan.avatars.size(), [&](size_t k) {
    if (k < plan.clips.size()) {
      if (!read[file_of[k]]) {
        clip_errors[k] = read_errors[file_of[k]];
        return;
      }
      plan.clip_files[k] = read[file_of[k]];
      const ClipFile& cf = *plan.clip_files[k];
      if (plan.clips[k].clip.empty()) {
        for (const Clip& c : cf.clips) plan.clip_names[k].push_back(c.name);
        return;
      }
      // One clip by name: exact, or ignoring case when that picks one.
      if (auto found = ClipNamed(cf, plan.clips[k].clip); found.ok())
        plan.clip_names[k].push_back(*found);
      else
        clip_errors[k] = found.status().message() + " in " + plan.clips[k].file;
      return;
    }
    const AvatarEntry& a = plan.avatars[k - plan.clips.size()];
    const bool needs_fit = listed.count("fit") && !a.hair.empty();
    const bool needs_shirt = listed.count("measure") && !a.shirt.empty();
    if (!needs_fit && !needs_shirt) return;
    auto loaded = LoadAvatar(a.file);
    if (!loaded.ok()) return;
    for (const std::string& w : a.wear_file) {
      auto hair = LoadAvatar(w);
      if (!hair.ok()) return;
      std::vector<std::string> warnings;
      if (!WearHair(loaded->avatar, hair->avatar, &warnings).ok()) return;
    }
    std::string& err = avatar_errors[k - plan.clips.size()];
    if (needs_fit)
      if (auto sel = SelectHair(loaded->avatar, a.hair); !sel.ok())
        err = "hair: " + sel.status().message();
    if (needs_shirt && err.empty()) {
      bool found = false;
      for (size_t i = 0; i < loaded->avatar.meshes.size(); ++i)
        found |= loaded->avatar.meshes[i].name == a.shirt || std::to_string(i) == a.shirt;
      if (!found) err = "shirt: no mesh named \"" + a.shirt + "\" in " + a.file;
    }
  });
  for (size_t k = 0; k < clip_errors.size(); ++k)
    if (!clip_errors[k].empty())
      return Bad(m, "clips[" + std::to_string(k) + "]: " + clip_errors[k]);
  for (size_t k = 0; k < avatar_errors.size(); ++k)
    if (!avatar_errors[k].empty())
      return Bad(m, "avatars[" + std::to_string(k) + "]." + avatar_errors[k]);

  // The jobs, avatar by avatar; two jobs with one folder would overwrite each other's outputs.
  std::map<std::string, std::string> origin;
  auto add = [&](Job job, const std::string& from) -> Status {
    if (auto [it, fresh] = origin.emplace(job.id, from); !fresh)
      return Bad(m, it->second + " and " + from + " would both write to " + job.id +
                        " (give one of them a different \"name\")");
    plan.jobs.push_back(std::move(job));
    return Status::Ok();
  };
  for (size_t a = 0; a < plan.avatars.size(); ++a) {
    const std::string from = "avatars[" + std::to_string(a) + "]";
    const std::string& key = plan.avatars[a].key;
    for (const std::string& op : plan.ops) {
      if (op == "validate-clips" || op == "bake") continue;
      if (op == "fit" && plan.avatars[a].hair.empty()) continue;  // nothing selected to fit
      if (Status st = add({key + "/" + op, op, static_cast<int>(a), -1, ""}, from); !st.ok())
        return st;
    }
    for (size_t c = 0; c < plan.clips.size(); ++c)
      for (const std::string& name : plan.clip_names[c])
        for (const std::string& op : plan.ops) {
          if (op != "validate-clips" && op != "bake") continue;
          const std::string id = key + "/" + plan.clips[c].key + "/" + SafeName(name) + "/" + op;
          const std::string cfrom =
              from + " with clips[" + std::to_string(c) + "] \"" + name + "\"";
          if (Status st = add({id, op, static_cast<int>(a), static_cast<int>(c), name}, cfrom);
              !st.ok())
            return st;
        }
  }
  if (plan.jobs.empty())
    return Bad(m,
               "no jobs: fit needs avatars with a \"hair\" selector, the other operations "
               "need avatars (and clips)");
  return plan;
}

OJson JobInputs(const Plan& plan, const Job& job) {
  OJson inputs = OJson::array();
  auto file = [&](const std::string& shown, const std::string& path) {
    inputs.push_back({{"path", shown}, {"sha256", CachedSha256(path)}});
    for (const std::string& ext : GltfExternals(path)) {
      const std::string rel =
          (fs::path(shown).parent_path() / fs::path(ext).filename()).generic_string();
      inputs.push_back({{"path", rel}, {"sha256", CachedSha256(ext)}});
    }
  };
  const AvatarEntry& a = plan.avatars[job.avatar];
  file(a.path, a.file);
  for (size_t w = 0; w < a.wear.size(); ++w) file(a.wear[w], a.wear_file[w]);
  if (job.clip_file >= 0) file(plan.clips[job.clip_file].path, plan.clips[job.clip_file].file);
  return inputs;
}

OJson JobOptions(const Plan& plan, const Job& job) {
  const AvatarEntry& a = plan.avatars[job.avatar];
  OJson o;
  OJson avatar = OJson::object();
  if (!a.hair.empty()) avatar["hair"] = a.hair;
  if (!a.wear.empty()) avatar["wear"] = a.wear;
  if (!a.shirt.empty() && job.op == "measure") avatar["shirt"] = a.shirt;
  o["avatar"] = avatar;
  // The stages this job's avatar went through, then the job's own operation.
  const int stage = job.op == "fit"             ? 1
                    : job.op == "fit-colliders" ? 2
                                                : FinalStage(plan, job.avatar);
  if (stage >= 1 && plan.options.count("fit") && !a.hair.empty()) o["fit"] = plan.options.at("fit");
  if (stage >= 2) o["fit-colliders"] = plan.options.at("fit-colliders");
  o[job.op] = plan.options.at(job.op);
  if (job.clip_file >= 0) o["clip"] = job.clip;
  return o;
}

InputFiles ListInputFiles(const Plan& plan) {
  InputFiles files;
  auto add = [&](const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
      files.insert({static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)});
  };
  add(plan.manifest);
  // A .gltf's buffers and images beside it are inputs too.
  auto add_file = [&](const std::string& path) {
    add(path);
    for (const std::string& ext : GltfExternals(path)) add(ext);
  };
  for (const AvatarEntry& a : plan.avatars) {
    add_file(a.file);
    for (const std::string& w : a.wear_file) add_file(w);
  }
  for (const ClipEntry& c : plan.clips) add_file(c.file);
  return files;
}

}  // namespace hairswing::cli::batch
