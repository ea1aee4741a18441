// hairswing view: the interactive hair viewer (web/viewer) served on 127.0.0.1 with
// cpp-httplib. The page simulates hair in the browser with the WebAssembly package; this server
// hands it the avatars, retargets clips onto the avatar on show (the UAL library or a dropped
// VRMA/BVH/glTF file) and runs the hair-chain and collider fitters.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "clip_file.h"
#include "commands.h"
#include "hairswing/demo.h"
#include "hairswing/files.h"
#include "hairswing/fit.h"
#include "hairswing/io.h"
#include "hairswing/retarget.h"
#include "hairswing/tune.h"
#include "local_server.h"
#include "report.h"

#ifndef HS_VIEWER_DIR
#define HS_VIEWER_DIR ""
#endif

namespace hairswing::cli {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

struct Shown {
  std::string name;   ///< file name shown in the picker
  std::string path;   ///< "" for a built-in demo avatar
  std::string bytes;  ///< the demo avatar's bytes
};

// JSON text of names that came from files or requests: bytes that are not UTF-8 become U+FFFD
// instead of an exception.
std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

void Error(httplib::Response& res, int status, const std::string& message) {
  JsonError(res, status, OneLine(message));
}

// Removes a folder when it goes out of scope, also when a handler throws.
struct TempFolder {
  fs::path dir;
  ~TempFolder() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

bool ReadAll(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

// The avatar as bytes the browser loads: .vrm (it keeps its VRM version) when it has a humanoid.
Result<std::string> Encode(const Avatar& av) {
  auto bytes = EncodeGlb(av, WritesAsVrm(av), VrmOutput::kKeepInput, nullptr);
  if (!bytes.ok()) return bytes.status();
  return std::string(bytes->begin(), bytes->end());
}

// The list of changes rides along in a header (the body is the avatar); a long list is counted.
void SetChangesHeader(httplib::Response& res, const char* name, const Json& changes) {
  std::string summary = Dump(changes);
  if (summary.size() > 6000)
    summary = Dump(Json::array({std::to_string(changes.size()) + " changes"}));
  res.set_header(name, summary);
}

Result<LoadedAvatar> FromUpload(const httplib::MultipartFormData& file) {
  return LoadAvatarFromMemory(reinterpret_cast<const uint8_t*>(file.content.data()),
                              file.content.size(),
                              file.filename.empty() ? std::string("avatar") : file.filename, "");
}

// A dropped clip file, read through a temporary file (the loader picks the format by extension).
Status ReadUploadedClips(const httplib::MultipartFormData& file, ClipFile* out) {
  std::string ext = fs::path(file.filename).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext != ".vrma" && ext != ".bvh" && ext != ".glb" && ext != ".gltf" && ext != ".vrm")
    return Status(StatusCode::kInvalidInput,
                  file.filename + ": not a clip file (.vrma, .bvh, .glb, .gltf)");
  // In a folder of its own (mkdtemp: new, private), holding nothing but the clip: the files a
  // .gltf clip names by URI are looked up in that folder and cannot lie anywhere else.
  std::string dir_template = (fs::temp_directory_path() / "hairswing-view-XXXXXX").string();
  if (!mkdtemp(dir_template.data()))
    return Status(StatusCode::kIoError, "cannot make a temporary folder for the uploaded clip");
  const TempFolder dir{dir_template};
  const fs::path tmp = dir.dir / ("clip" + ext);
  Status st = WriteFileAtomic(tmp.string(), file.content, false);
  if (st.ok()) st = ReadClipFile(tmp.string(), out);
  if (!st.ok()) {  // name the user's file, not the temporary one
    std::string msg = st.message();
    for (size_t at; (at = msg.find(tmp.string())) != std::string::npos;)
      msg.replace(at, tmp.string().size(), file.filename);
    return Status(st.code(), msg);
  }
  out->path = file.filename;
  return Status::Ok();
}

/// Where the built viewer is: share/hairswing/viewer beside an installed binary
/// (<prefix>/bin/hairswing -> <prefix>/share/hairswing/viewer, what `cmake --install` and the .deb
/// lay out), else the source tree's web/viewer/dist this binary was built from.
std::string DefaultViewerDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "hairswing" / "viewer";
    if (fs::is_regular_file(installed / "index.html", ec)) return installed.string();
  }
  return HS_VIEWER_DIR;
}

}  // namespace

void AddView(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "view",
      "Serve the interactive hair viewer on 127.0.0.1 and print its URL, which carries a session "
      "token (other pages in the browser and other users cannot use the server without it): "
      "three.js + three-vrm "
      "rendering, hair simulated in the browser by the WebAssembly solver (previous / improved / "
      "VRM reference, switchable while running), the 46 UAL clips retargeted onto the avatar, "
      "drag-and-drop of your own .vrm/.glb and of VRMA/BVH clips, the standard head-turn, "
      "the fitters, timing and a live chart of stretch and tip lag. Without AVATAR it shows the "
      "two demo avatars and godette (from $HAIRSWING_DATA, else ../shared/data, when present). "
      "Ctrl-C stops it.");
  struct Opts {
    std::vector<std::string> avatars;
    int port = 8720;
    std::string app_dir = DefaultViewerDir(), clips;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("AVATAR", o->avatars, "avatars to offer (.vrm/.glb/.gltf)");
  cmd->add_option("--port", o->port, "TCP port on 127.0.0.1 (0 = any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--clips", o->clips,
                  "clip library offered in the picker (default: the UAL library in "
                  "$HAIRSWING_DATA, else ../shared/data, when present)");
  cmd->add_option("--app", o->app_dir,
                  "the built viewer: share/hairswing/viewer beside an installed hairswing, else "
                  "web/viewer/dist of the source tree it was built from")
      ->capture_default_str();
  cmd->callback([o, &exit_code] {
    if (!fs::is_regular_file(fs::path(o->app_dir) / "index.html")) {
      std::fprintf(stderr,
                   "error: the viewer app is not built in %s (scripts/build-viewer builds it)\n",
                   o->app_dir.c_str());
      exit_code = kExitBadInput;
      return;
    }
    std::vector<Shown> shown;
    if (o->avatars.empty()) {
      for (DemoVariant v : {DemoVariant::kPonytail, DemoVariant::kLayered}) {
        auto bytes = Encode(MakeDemoAvatar(v));
        if (!bytes.ok()) {
          std::fprintf(stderr, "error: demo avatar: %s\n", bytes.status().message().c_str());
          exit_code = kExitFailure;
          return;
        }
        shown.push_back({std::string("demo-") + DemoVariantName(v) + ".vrm", "", *bytes});
      }
      const std::string godette = SharedDataDir() + "/avatars/godette.vrm";
      if (fs::is_regular_file(godette)) shown.push_back({"godette.vrm", godette, ""});
    }
    for (const std::string& a : o->avatars) {
      if (!fs::is_regular_file(a)) {
        std::fprintf(stderr, "error: %s: no such file\n", a.c_str());
        exit_code = kExitBadInput;
        return;
      }
      shown.push_back({fs::path(a).filename().string(), a, ""});
    }
    std::string clips_path = o->clips;
    if (clips_path.empty()) {
      const std::string ual =
          SharedDataDir() + "/animations/ual1/AnimationLibrary_Godot_Standard.gltf";
      if (fs::is_regular_file(ual)) clips_path = ual;
    }
    auto library = std::make_shared<ClipFile>();
    if (!clips_path.empty())
      if (Status st = ReadClipFile(clips_path, library.get()); !st.ok()) {
        std::fprintf(stderr, "error: --clips: %s\n", st.message().c_str());
        exit_code = kExitBadInput;
        return;
      }

    LocalServer server;
    server.set_payload_max_length(size_t(1) << 30);  // avatars of a few hundred MB still load
    if (!server.set_mount_point("/", o->app_dir)) {
      std::fprintf(stderr, "error: %s: cannot serve this folder\n", o->app_dir.c_str());
      exit_code = kExitBadInput;
      return;
    }
    // Cross-origin isolation: the page's performance.now() then has microsecond resolution
    // (100 us without), so the timing readout can show the solver's time per frame.
    server.set_default_headers({{"Cross-Origin-Opener-Policy", "same-origin"},
                                {"Cross-Origin-Embedder-Policy", "require-corp"}});
    server.set_file_extension_and_mimetype_mapping("mjs", "text/javascript");
    server.set_file_extension_and_mimetype_mapping("wasm", "application/wasm");

    server.Get("/api/avatars", [&](const httplib::Request&, httplib::Response& res) {
      Json list = Json::array();
      for (size_t i = 0; i < shown.size(); ++i)
        list.push_back({{"name", shown[i].name}, {"url", "/api/avatar/" + std::to_string(i)}});
      Json clips = Json::array();
      for (const Clip& c : library->clips) clips.push_back(c.name);
      res.set_content(Dump(Json{{"avatars", list},
                                {"library", fs::path(clips_path).filename().string()},
                                {"clips", clips}}),
                      "application/json");
    });
    server.Get(R"(/api/avatar/(\d+))", [&](const httplib::Request& req, httplib::Response& res) {
      const std::string digits = req.matches[1];
      size_t i = 0;
      if (std::from_chars(digits.data(), digits.data() + digits.size(), i).ec != std::errc() ||
          i >= shown.size())
        return Error(res, 404, "no avatar " + digits);
      std::string bytes = shown[i].bytes;
      if (!shown[i].path.empty() && !ReadAll(shown[i].path, &bytes))
        return Error(res, 500, shown[i].path + ": cannot read");
      res.set_header("X-Avatar-Name", shown[i].name);
      res.set_content(std::move(bytes), "model/gltf-binary");
    });
    // The avatar (form field "avatar") with clips retargeted onto it, as one .vrm/.glb whose
    // animations the page plays: the library's, or those of a dropped file (field "clips").
    server.Post("/api/clips", [&](const httplib::Request& req, httplib::Response& res) {
      if (!req.has_file("avatar")) return Error(res, 400, "no avatar in the request");
      auto loaded = FromUpload(req.get_file_value("avatar"));
      if (!loaded.ok()) return Error(res, 400, loaded.status().message());
      ClipFile dropped;
      const ClipFile* source = library.get();
      if (req.has_file("clips")) {
        if (Status st = ReadUploadedClips(req.get_file_value("clips"), &dropped); !st.ok())
          return Error(res, 400, st.message());
        source = &dropped;
      }
      if (source->clips.empty()) return Error(res, 404, "no clip library (hairswing view --clips)");
      Avatar av = std::move(loaded->avatar);
      auto rt = Retargeter::Create(source->avatar, source->map, av, MatchHumanoid(av));
      if (!rt.ok())
        return Error(res, 400, source->path + " onto this avatar: " + rt.status().message());
      av.animations.clear();
      for (const Clip& c : source->clips)
        av.animations.push_back(ClipToAnimation(rt->Retarget(c), rt->target_rig()));
      auto bytes = Encode(av);
      if (!bytes.ok()) return Error(res, 500, bytes.status().message());
      res.set_content(std::move(*bytes), "model/gltf-binary");
    });
    // The fitters on the avatar (field "avatar"): "hair" = a selector (MESH, MESH/INDEX or
    // material:NAME) for the chain fitter, "colliders" = "1" for the collider fitter.
    server.Post("/api/fit", [&](const httplib::Request& req, httplib::Response& res) {
      if (!req.has_file("avatar")) return Error(res, 400, "no avatar in the request");
      auto loaded = FromUpload(req.get_file_value("avatar"));
      if (!loaded.ok()) return Error(res, 400, loaded.status().message());
      Avatar av = std::move(loaded->avatar);
      const std::string hair = req.has_file("hair") ? req.get_file_value("hair").content : "";
      const bool colliders =
          req.has_file("colliders") && req.get_file_value("colliders").content == "1";
      if (hair.empty() && !colliders) return Error(res, 400, "choose hair or colliders to fit");
      Json changes = Json::array();
      if (!hair.empty()) {
        auto sel = SelectHair(av, hair);
        if (!sel.ok()) return Error(res, 400, sel.status().message());
        auto fit = FitHairChains(av, sel.value(), FitOptions{});
        if (!fit.ok()) return Error(res, 400, fit.status().message());
        for (const auto& c : fit->changes) changes.push_back(OneLine(c));
        for (const auto& c : fit->rigid) changes.push_back(OneLine(c));
      }
      if (colliders) {
        auto cf = FitColliders(av);
        if (!cf.ok()) return Error(res, 400, cf.status().message());
        for (const auto& c : cf->changes) changes.push_back(OneLine(c));
      }
      auto bytes = Encode(av);
      if (!bytes.ok()) return Error(res, 500, bytes.status().message());
      SetChangesHeader(res, "X-Fit-Changes", changes);
      res.set_content(std::move(*bytes), "model/gltf-binary");
    });

    // The springs of the avatar (field "avatar") with their settings, for the tune panel: each
    // spring's name, its joints' glTF nodes and its first joint's settings (the panel sets a chain
    // as a whole).
    server.Post("/api/springs", [&](const httplib::Request& req, httplib::Response& res) {
      if (!req.has_file("avatar")) return Error(res, 400, "no avatar in the request");
      auto loaded = FromUpload(req.get_file_value("avatar"));
      if (!loaded.ok()) return Error(res, 400, loaded.status().message());
      const Avatar& av = loaded->avatar;
      Json list = Json::array();
      for (size_t i = 0; i < av.vrm.springs.size(); ++i) {
        const Spring& sp = av.vrm.springs[i];
        if (sp.joints.empty()) continue;
        Json nodes = Json::array();
        for (const SpringJoint& j : sp.joints) nodes.push_back(j.node);
        const SpringJoint& j = sp.joints[0];
        list.push_back({{"index", i},
                        {"name", sp.name},
                        {"nodes", nodes},
                        {"stiffness", j.stiffness},
                        {"drag_force", j.drag_force},
                        {"gravity_power", j.gravity_power},
                        {"gravity_dir", {j.gravity_dir.x, j.gravity_dir.y, j.gravity_dir.z}},
                        {"hit_radius", j.hit_radius},
                        {"limit", FormatLimit(j.limit)}});
      }
      Json presets = Json::array();
      for (const TunePreset& p : BuiltinPresets())
        presets.push_back({{"name", p.name}, {"description", p.description}});
      res.set_content(Dump(Json{{"springs", list}, {"presets", presets}}), "application/json");
    });
    // Per-chain settings into the avatar (field "avatar"; field "tune" = JSON list of {spring,
    // stiffness, drag_force, gravity_power, gravity_dir, hit_radius, limit, preset}, every field
    // but spring optional), through hairswing tune's own code (its undo record included): the
    // page's Save and Apply.
    server.Post("/api/tune", [&](const httplib::Request& req, httplib::Response& res) {
      if (!req.has_file("avatar")) return Error(res, 400, "no avatar in the request");
      if (!req.has_file("tune")) return Error(res, 400, "no tune in the request");
      auto loaded = FromUpload(req.get_file_value("avatar"));
      if (!loaded.ok()) return Error(res, 400, loaded.status().message());
      Avatar av = std::move(loaded->avatar);
      const Json edits = Json::parse(req.get_file_value("tune").content, nullptr, false);
      if (!edits.is_array()) return Error(res, 400, "tune: expected a JSON list");
      Json changes = Json::array();
      for (const Json& e : edits) {
        if (!e.is_object() || !e.contains("spring") || !e["spring"].is_number_integer())
          return Error(res, 400, "tune: each entry needs a spring index");
        const int i = e["spring"].get<int>();
        if (i < 0 || i >= static_cast<int>(av.vrm.springs.size()))
          return Error(res, 400, "tune: spring " + std::to_string(i) + " out of range");
        TuneSettings s;
        if (e.contains("preset")) {
          auto p = FindPreset(e.value("preset", ""));
          if (!p.ok()) return Error(res, 400, "tune: " + p.status().message());
          s = p->settings;
        }
        auto num = [&](const char* key, std::optional<float>* out, float lo, float hi) {
          if (!e.contains(key)) return true;
          if (!e[key].is_number()) return false;
          const double v = e[key].get<double>();
          if (!(v >= lo && v <= hi)) return false;
          *out = static_cast<float>(v);
          return true;
        };
        if (!num("stiffness", &s.stiffness, 0, 1e6) || !num("drag_force", &s.drag_force, 0, 1) ||
            !num("gravity_power", &s.gravity_power, 0, 1e6) ||
            !num("hit_radius", &s.hit_radius, 0, 1e3))
          return Error(res, 400, "tune: spring " + std::to_string(i) + ": a value out of range");
        if (e.contains("gravity_dir")) {
          const Json& g = e["gravity_dir"];
          if (!g.is_array() || g.size() != 3 || !g[0].is_number() || !g[1].is_number() ||
              !g[2].is_number())
            return Error(res, 400, "tune: gravity_dir must be [x, y, z]");
          s.gravity_dir = glm::vec3(g[0].get<float>(), g[1].get<float>(), g[2].get<float>());
        }
        if (e.contains("limit")) {
          auto l = ParseLimit(e.value("limit", ""));
          if (!l.ok()) return Error(res, 400, "tune: limit: " + l.status().message());
          s.limit = l.value();
          s.max_flip_deg.reset();
        }
        auto r = TuneSprings(av, {i}, s);
        if (!r.ok()) return Error(res, 400, "tune: " + r.status().message());
        for (const auto& c : r->changes) changes.push_back(OneLine(c));
      }
      auto bytes = Encode(av);
      if (!bytes.ok()) return Error(res, 500, bytes.status().message());
      SetChangesHeader(res, "X-Tune-Changes", changes);
      res.set_content(std::move(*bytes), "model/gltf-binary");
    });

    const int port = server.Bind(o->port);
    if (port <= 0) {
      std::fprintf(
          stderr,
          "error: --port %d: cannot listen on 127.0.0.1 (in use? --port 0 picks a free one)\n",
          o->port);
      exit_code = kExitBadInput;
      return;
    }
    std::printf(
        "hairswing view: open %s in a browser (%zu avatar(s), %zu clips; the token in the URL "
        "keeps other pages and users out; Ctrl-C stops)\n"
        "hairswing view: the app is served from %s\n",
        server.Url().c_str(), shown.size(), library->clips.size(), o->app_dir.c_str());
    std::fflush(stdout);
    if (!server.listen_after_bind()) exit_code = kExitFailure;
  });
}

}  // namespace hairswing::cli
