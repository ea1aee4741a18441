// hairswing wear HAIR --on TARGET -o OUT: put a hairstyle on another character (docs/wear.md);
// hairswing wear --library DIR --on TARGET... --out DIR: every hairstyle on every target, with a
// contact sheet and a table.
#include "hairswing/wear.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "commands.h"
#include "hairswing/anim.h"
#include "hairswing/files.h"
#include "hairswing/io.h"
#include "hairswing/measure.h"
#include "hairswing/names.h"
#include "hairswing/render.h"
#include "hairswing/rig.h"
#include "report.h"

namespace hairswing::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

struct Opts {
  std::string hair_file, hair, head, source_head, out, report, library, vrm_version, preview;
  std::vector<std::string> targets;
  float clearance_mm = 2.0f;
  bool fit_chains = false, undo = false, force = false, no_measure = false, keep_hair = false,
       no_scalp_fit = false;
  int tile = 192;
  FitOptions fit;
};

// One hairstyle of a library: the file, which of its primitives are hair, and (for a hair-only
// file that does not wrap around a head) the character it was made for.
struct Style {
  std::string name, file, hair, source_head;
};

std::string Stem(const std::string& path) {
  std::string s = fs::path(path).filename().string();
  const size_t dot = s.find('.');
  return dot == std::string::npos || dot == 0 ? s : s.substr(0, dot);
}

// A name that can stand in a file name inside --out: not empty, no folder separators, not "." or
// "..", no control characters.
bool PlainName(const std::string& n) {
  if (n.empty() || n == "." || n == ".." || n.size() > 200) return false;
  return std::none_of(n.begin(), n.end(), [](char c) {
    return c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

// The hair primitives of a whole character: every material whose name says "hair".
std::string HairMaterialSelector(const Avatar& av) {
  std::vector<std::string> names;
  for (const Material& m : av.materials)
    if (ToLower(m.name).find("hair") != std::string::npos &&
        std::find(names.begin(), names.end(), m.name) == names.end())
      names.push_back(m.name);
  std::string sel;
  for (const std::string& n : names) sel += (sel.empty() ? "material:" : ",material:") + n;
  return sel;
}

Result<std::vector<Style>> ReadLibrary(const std::string& where) {
  std::vector<Style> styles;
  std::error_code ec;
  if (fs::is_directory(where, ec)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(where, ec)) {
      const std::string ext = ToLower(e.path().extension().string());
      if (e.is_regular_file() && (ext == ".glb" || ext == ".gltf" || ext == ".vrm"))
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    // Files of the same name in different subfolders get "-2", "-3"... (their worn files are
    // named after them in one folder), skipping a suffix another file's own name has taken.
    std::set<std::string> taken;
    for (const auto& f : files) taken.insert(Stem(f.string()));
    std::set<std::string> used;
    for (const auto& f : files) {
      const std::string stem = Stem(f.string());
      std::string name = stem;
      for (int n = 2; used.count(name) || (name != stem && taken.count(name)); ++n)
        name = stem + "-" + std::to_string(n);
      used.insert(name);
      styles.push_back({name, f.string(), "", ""});
    }
    if (styles.empty())
      return Status(StatusCode::kInvalidInput, where + ": no .glb, .gltf or .vrm");
    return styles;
  }
  auto text = ReadRegularFile(where, 16u << 20);
  if (!text.ok()) return text.status();
  const Json j = Json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("hairstyles") || !j["hairstyles"].is_array())
    return Status(
        StatusCode::kInvalidInput,
        where + ": not a folder and not a manifest ({\"hairstyles\": [{\"file\": ...}]})");
  const fs::path base = fs::path(where).parent_path();
  for (const Json& h : j["hairstyles"]) {
    if (!h.is_object() || !h.contains("file") || !h["file"].is_string())
      return Status(StatusCode::kInvalidInput, where + ": every hairstyle needs a \"file\"");
    for (const char* key : {"name", "hair", "source_head"})
      if (h.contains(key) && !h[key].is_string())
        return Status(StatusCode::kInvalidInput,
                      where + ": a hairstyle's \"" + key + "\" must be a string");
    Style s;
    const auto path = [&](const std::string& p) {
      return fs::path(p).is_absolute() ? p : (base / p).string();
    };
    s.file = path(h["file"].get<std::string>());
    s.name = h.value("name", Stem(s.file));
    s.hair = h.value("hair", "");
    if (h.contains("source_head")) s.source_head = path(h["source_head"].get<std::string>());
    if (!PlainName(s.name))
      return Status(StatusCode::kInvalidInput,
                    where + ": hairstyle name \"" + s.name +
                        "\" is not a plain file name (no folders, \"..\" or control "
                        "characters: the worn files are named after it inside --out)");
    for (const Style& o : styles)
      if (o.name == s.name)
        return Status(StatusCode::kInvalidInput,
                      where + ": two hairstyles are named \"" + s.name +
                          "\" (their worn files would overwrite each other): give one a "
                          "\"name\"");
    styles.push_back(s);
  }
  return styles;
}

// Head-turn figures of a worn avatar (arc, 60 fps): excess stretch and settle.
Json HeadTurnFigures(const Avatar& worn, int head_node) {
  Avatar av = worn;
  if (!av.vrm.humanoid.count("head")) av.vrm.humanoid["head"] = head_node;
  MeasureOptions mo;
  mo.solvers = {SolverMode::kArc};
  mo.fps = {60};
  mo.series = false;
  auto r = Measure(av, mo);
  if (!r.ok() || r->results.empty())
    return {{"error", r.ok() ? "no result" : r.status().message()}};
  const RunResult& a = r->results[0];
  return {{"stretch_p99_excess_pct", a.stretch_p99_excess_pct},
          {"stretch_p99_pct", a.stretch_p99_welded_pct},
          {"settle_mm", a.settle_mm},
          {"swing_rms_mm", a.swing_rms_mm}};
}

Json ReportJson(const WearReport& r) {
  const auto head = [](const WearHead& h) {
    return Json{{"from", h.from},
                {"size_mm", {1000 * h.size.x, 1000 * h.size.y, 1000 * h.size.z}},
                {"anchor", {h.anchor.x, h.anchor.y, h.anchor.z}}};
  };
  return {{"source_head", head(r.source)},
          {"target_head", head(r.target)},
          {"scale", r.scale},
          {"hair_vertices", r.hair_vertices},
          {"inside_after_placement", r.inside_placed},
          {"inside", r.inside},
          {"inside_depth_mm", r.inside_depth_mm},
          {"pushed_alone", r.pushed_alone},
          {"redirected", r.redirected},
          {"grown", r.grown},
          {"covered_head_vertices", r.covered_head_vertices},
          {"show_through", r.show_through},
          {"show_through_mm", r.show_through_mm},
          {"uncovered", r.uncovered},
          {"coverage", r.coverage},
          {"max_move_mm", r.max_move_mm},
          {"mean_move_mm", r.mean_move_mm},
          {"chains", r.chains},
          {"rigid_clumps", r.rigid_clumps},
          {"changes", r.changes},
          {"warnings", r.warnings}};
}

// The worn avatar at rest, framed on the target's head, front and side, into `rgb` at (x, y).
void RenderTiles(const Avatar& av, const WearReport& r, int tile, std::vector<uint8_t>& sheet,
                 int sheet_w, int x0, int y0) {
  auto rig = BuildRig(av);
  if (!rig.ok()) return;
  std::vector<glm::mat4> world(rig->rest_world().begin(), rig->rest_world().end());
  RenderOptions ro;
  ro.width = ro.height = tile;
  // Around the character's own axes (its humanoid, else its root's: +X is its left).
  ro.right = av.vrm.humanoid.empty() ? -r.target.frame[0] : AvatarRight(av, *rig);
  const glm::vec3 up = r.target.frame[1];
  const float s = std::max({r.target.size.x, r.target.size.y, r.target.size.z});
  ro.centre = r.target.centre - 0.35f * s * up;
  ro.metres_per_pixel = 2.6f * s / static_cast<float>(tile);
  // The worn hair in one warm colour, so it reads against any body.
  for (size_t m = 0; m < av.meshes.size(); ++m)
    if (av.meshes[m].name == r.mesh_name) {
      ro.mesh_tints.resize(av.meshes.size());
      ro.mesh_tints[m] = {200, 120, 50, 255};
    }
  for (int v = 0; v < 2; ++v) {
    ro.view = v == 0 ? RenderOptions::View::kFront : RenderOptions::View::kSide;
    const std::vector<uint8_t> img = RenderAvatar(av, *rig, world, ro);
    for (int y = 0; y < tile; ++y) {
      const auto row = static_cast<std::ptrdiff_t>(3) * y * tile;
      std::copy(
          img.begin() + row, img.begin() + row + 3 * tile,
          sheet.begin() + static_cast<std::ptrdiff_t>(3) * ((y0 + y) * sheet_w + x0 + v * tile));
    }
  }
}

void PrintReport(const WearReport& r) {
  std::printf("  source head: %s\n  target head: %s\n", r.source.from.c_str(),
              r.target.from.c_str());
  std::printf(
      "  scale %.3f; hair vertices inside the head: %d after placement (%d deep in it, turned "
      "towards their strands), %d after the scalp fit (%d pushed out one by one)\n",
      r.scale, r.inside_placed, r.redirected, r.inside, r.pushed_alone);
  std::printf(
      "  covered scalp: %d head vertices, %d showing through by > 1 mm (deepest %.1f mm), %d with "
      "no hair over them: coverage %.1f %%\n",
      r.covered_head_vertices, r.show_through, r.show_through_mm, r.uncovered, 100.0 * r.coverage);
  for (const auto& c : r.changes) std::printf("  %s\n", OneLine(c).c_str());
  for (const auto& w : r.warnings) std::printf("  warning: %s\n", OneLine(w).c_str());
}

WearOptions ToOptions(const Opts& o) {
  WearOptions w;
  w.hair = o.hair;
  w.head = o.head;
  w.clearance = o.clearance_mm / 1000.0f;
  w.fit_chains = o.fit_chains;
  w.keep_hair = o.keep_hair;
  w.scalp_fit = !o.no_scalp_fit;
  w.fit = o.fit;
  return w;
}

// A file name as a relative URL (every byte outside the unreserved set percent-encoded).
std::string UrlPath(const std::string& name) {
  std::string o;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      o += static_cast<char>(c);
    } else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      o += b;
    }
  }
  return o;
}

// At most about n characters, cut at a space with an ellipsis (a tile holds a few lines).
std::string Shortened(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  const size_t cut = s.rfind(' ', n);
  return s.substr(0, cut == std::string::npos || cut < n / 2 ? n : cut) + "\u2026";
}

// contact-sheet.html: the sheet's tiles with their names. One row per hairstyle on the sheet, a
// column pair (front, side) per target; each tile is its part of contact-sheet.png, links to the
// worn file and says its figures on hover; under it the chains and the head-turn's excess stretch.
// A failed pair says why. Built from wear.json's rows, columns and pairs only.
std::string ContactSheetHtml(const Json& all, int tile) {
  const Json& rows = all["rows"];
  const Json& cols = all["columns"];
  auto pair_of = [&](const std::string& style, const std::string& target) -> const Json* {
    for (const Json& p : all["pairs"])
      if (p["hairstyle"] == style && p["target"] == target) return &p;
    return nullptr;
  };
  std::string h =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<title>hairswing wear: contact sheet</title>\n<style>\n"
      "body{font:13px system-ui,sans-serif;background:#1e1f22;color:#ddd;margin:16px}\n"
      "h1{font-size:17px;margin:0 0 4px}p{margin:0 0 12px;color:#aaa}\n"
      "table{border-collapse:collapse}th{font-weight:600;padding:3px 6px;white-space:nowrap}\n"
      "th.style{text-align:right;vertical-align:middle}th.view{font-weight:400;color:#999}\n"
      "td{padding:0 1px;vertical-align:top;text-align:center}\n"
      "a.tile{display:block;background-image:url(contact-sheet.png);background-repeat:no-repeat}\n"
      "a.tile:hover{outline:2px solid #e9a25c}\n"
      ".fig{font-size:11px;color:#aaa;padding:1px 0 6px}\n"
      ".failed{display:flex;align-items:center;justify-content:center;background:#2a2a2a;"
      "color:#e88;font-size:11px;padding:4px;box-sizing:border-box;overflow:hidden}\n"
      "</style></head><body>\n<h1>Hairstyles worn on other characters</h1>\n<p>" +
      HtmlEsc(all["library"].get<std::string>()) + ": " + std::to_string(all["worn"].get<int>()) +
      " pairs worn, " + std::to_string(all["failed"].get<int>()) +
      " failed. Each row a hairstyle, two tiles per target (front, side); a tile opens the worn "
      "file, hover it for its figures.";
  if (!all["rows_left_out"].empty()) {
    std::string left;
    for (const Json& n : all["rows_left_out"])
      left += (left.empty() ? "" : ", ") + HtmlEsc(n.get<std::string>());
    h += " Worn on no target, so not on the sheet: " + left + ".";
  }
  h += "</p>\n<table>\n<tr><th></th>";
  for (const Json& c : cols) h += "<th colspan=\"2\">" + HtmlEsc(c.get<std::string>()) + "</th>";
  h += "</tr>\n<tr><th></th>";
  for (size_t t = 0; t < cols.size(); ++t)
    h += "<th class=\"view\">front</th><th class=\"view\">side</th>";
  h += "</tr>\n";
  const std::string px = std::to_string(tile) + "px";
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::string style = rows[r].get<std::string>();
    h += "<tr><th class=\"style\" rowspan=\"2\">" + HtmlEsc(style) + "</th>";
    std::string figures;
    for (size_t t = 0; t < cols.size(); ++t) {
      const Json* p = pair_of(style, cols[t].get<std::string>());
      if (!p || !p->contains("output")) {
        const std::string why = p && p->contains("error") ? (*p)["error"].get<std::string>() : "";
        h += "<td colspan=\"2\"><div class=\"failed\" style=\"width:" + std::to_string(2 * tile) +
             "px;height:" + px + "\" title=\"" + HtmlEsc(why) +
             "\">failed: " + HtmlEsc(Shortened(why, 110)) + "</div></td>";
        figures += "<td colspan=\"2\" class=\"fig\"></td>";
        continue;
      }
      std::string title = HtmlEsc(style + " on " + cols[t].get<std::string>());
      char b[160];
      std::snprintf(b, sizeof b, "\nscale %.2f, scalp coverage %.1f %%",
                    (*p)["scale"].get<double>(), 100.0 * (*p)["coverage"].get<double>());
      title += b;
      const int n = (*p)["chains"].get<int>();
      std::string fig = n == 0 ? "no chains" : std::to_string(n) + (n == 1 ? " chain" : " chains");
      title += ", " + fig;
      if (p->contains("head_turn") && (*p)["head_turn"].contains("stretch_p99_excess_pct")) {
        const double ex = (*p)["head_turn"]["stretch_p99_excess_pct"].get<double>();
        std::snprintf(b, sizeof b, "\nhead-turn (arc): excess stretch p99 %.1f %%", ex);
        title += b;
        std::snprintf(b, sizeof b, ", excess %.1f %%", ex);
        fig += b;
      }
      for (int v = 0; v < 2; ++v)
        h += "<td><a class=\"tile\" href=\"" + UrlPath((*p)["output"].get<std::string>()) +
             "\" title=\"" + title + "\" style=\"width:" + px + ";height:" + px +
             ";background-position:-" + std::to_string((2 * t + v) * tile) + "px -" +
             std::to_string(r * tile) + "px\"></a></td>";
      figures += "<td colspan=\"2\" class=\"fig\">" + fig + "</td>";
    }
    h += "</tr>\n<tr>" + figures + "</tr>\n";
  }
  return h + "</table>\n</body></html>\n";
}

void RunLibrary(const Opts& o, int& exit_code) {
  auto styles = ReadLibrary(o.library);
  if (!styles.ok()) {
    std::fprintf(stderr, "error: %s\n", styles.status().message().c_str());
    exit_code = kExitBadInput;
    return;
  }
  std::error_code ec;
  if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec)) {
    std::fprintf(stderr, "error: --out %s exists and is not a folder\n", o.out.c_str());
    exit_code = kExitBadInput;
    return;
  }
  std::vector<std::pair<std::string, Avatar>> targets;
  for (size_t a = 0; a < o.targets.size(); ++a)
    for (size_t b = a + 1; b < o.targets.size(); ++b)
      if (Stem(o.targets[a]) == Stem(o.targets[b])) {
        std::fprintf(stderr,
                     "error: --on %s and --on %s have the same name \"%s\": their worn files "
                     "would overwrite each other (copy one under another name)\n",
                     o.targets[a].c_str(), o.targets[b].c_str(), Stem(o.targets[a]).c_str());
        exit_code = kExitBadInput;
        return;
      }
  for (const std::string& t : o.targets) {
    auto av = LoadAvatar(t);
    if (!av.ok()) {
      std::fprintf(stderr, "error: %s\n", av.status().message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    targets.emplace_back(t, std::move(av->avatar));
  }
  fs::create_directories(o.out, ec);  // only once the inputs are known to be good
  const int cols = static_cast<int>(targets.size()), rows = static_cast<int>(styles->size());
  const int sheet_w = cols * 2 * o.tile, sheet_h = rows * o.tile;
  std::vector<uint8_t> sheet(3 * static_cast<size_t>(sheet_w) * sheet_h, 40);
  Json table = Json::array();
  int failed = 0, done = 0, with_write_warnings = 0;
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, Avatar> source_heads;
  for (int s = 0; s < rows; ++s) {
    const Style& st = (*styles)[s];
    auto loaded = LoadAvatar(st.file);
    const Avatar* source = nullptr;
    std::string load_error = loaded.ok() ? "" : loaded.status().message();
    if (!st.source_head.empty() && load_error.empty()) {
      if (!source_heads.count(st.source_head)) {
        auto sh = LoadAvatar(st.source_head);
        if (!sh.ok())
          load_error = "source_head: " + sh.status().message();
        else
          source_heads.emplace(st.source_head, std::move(sh->avatar));
      }
      if (load_error.empty()) source = &source_heads.at(st.source_head);
    }
    std::string hair = st.hair;
    if (load_error.empty() && hair.empty() && FindHeadNode(loaded->avatar, "").ok())
      hair = HairMaterialSelector(loaded->avatar);  // a whole character: its "hair" materials
    for (int t = 0; t < cols; ++t) {
      const std::string& tname = Stem(targets[t].first);
      Json row = {{"hairstyle", st.name}, {"target", tname}};
      const auto t0 = std::chrono::steady_clock::now();
      std::string error = load_error;
      Avatar worn = targets[t].second;
      Result<WearReport> r = Status(StatusCode::kInvalidInput, error);
      if (error.empty()) {
        WearOptions w = ToOptions(o);
        w.hair = hair;
        w.source_character = source;
        r = WearHairstyle(worn, loaded->avatar, w);
        if (!r.ok()) error = r.status().message();
      }
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (!error.empty()) {
        ++failed;
        std::printf("  %s on %s: failed: %s\n", st.name.c_str(), tname.c_str(),
                    OneLine(error).c_str());
        row["error"] = error;
        table.push_back(row);
        continue;
      }
      const std::string ext = WritesAsVrm(worn) ? ".vrm" : ".glb";
      const std::string out = (fs::path(o.out) / (st.name + "-on-" + tname + ext)).string();
      std::vector<std::string> write_warnings;  // in wear.json, counted once at the end
      if (Status ws = SaveWithVersion(worn, out, true, o.vrm_version, &write_warnings); !ws.ok()) {
        ++failed;
        row["error"] = ws.message();
        std::printf("  %s on %s: failed: %s\n", st.name.c_str(), tname.c_str(),
                    OneLine(ws.message()).c_str());
        table.push_back(row);
        continue;
      }
      row["output"] = fs::path(out).filename().string();
      if (!write_warnings.empty()) {
        row["write_warnings"] = write_warnings;
        ++with_write_warnings;
      }
      row["fit_ms"] = ms;
      Json rep = ReportJson(*r);
      for (auto it = rep.begin(); it != rep.end(); ++it)
        if (it.key() != "changes" && it.key() != "warnings") row[it.key()] = it.value();
      // What the pair should be read with (an estimated head, the target's own hair kept).
      if (!r->warnings.empty()) row["warnings"] = r->warnings;
      if (o.fit_chains && r->chains > 0 && !o.no_measure)
        row["head_turn"] = HeadTurnFigures(worn, r->target.node);
      RenderTiles(worn, *r, o.tile, sheet, sheet_w, t * 2 * o.tile, s * o.tile);
      ++done;
      std::printf(
          "  %s on %s: scale %.2f, inside %d, show-through %d, coverage %.1f %%, %d "
          "chains, %.0f ms\n",
          st.name.c_str(), tname.c_str(), r->scale, r->inside, r->show_through, 100.0 * r->coverage,
          r->chains, ms);
      std::fflush(stdout);
      table.push_back(row);
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The sheet keeps the rows of hairstyles worn on at least one target (a hairstyle that failed
  // everywhere, such as eyebrows without --source-head, would be a row of empty tiles); a failed
  // pair in a kept row stays a dark tile. wear.json lists the rows left out.
  Json names = {{"rows", Json::array()}, {"left_out", Json::array()}};
  std::string left_out;  // the same names, for the console
  int kept = 0;
  const size_t row_bytes = 3 * static_cast<size_t>(sheet_w) * o.tile;
  for (int s = 0; s < rows; ++s) {
    const std::string& name = (*styles)[s].name;
    const bool any = std::any_of(table.begin(), table.end(), [&](const Json& r) {
      return r["hairstyle"] == name && r.contains("output");
    });
    if (!any) {
      names["left_out"].push_back(name);
      left_out += (left_out.empty() ? "" : ", ") + name;
      continue;
    }
    if (kept != s)
      std::copy_n(sheet.begin() + static_cast<ptrdiff_t>(s * row_bytes), row_bytes,
                  sheet.begin() + static_cast<ptrdiff_t>(kept * row_bytes));
    names["rows"].push_back(name);
    ++kept;
  }
  sheet.resize(static_cast<size_t>(kept) * row_bytes);
  for (const auto& t : targets) names["columns"].push_back(Stem(t.first));
  Json all = {{"library", o.library},
              {"contact_sheet", kept > 0 ? Json("contact-sheet.png") : Json(nullptr)},
              {"contact_sheet_html", kept > 0 ? Json("contact-sheet.html") : Json(nullptr)},
              {"layout",
               "one row per hairstyle worn on at least one target, two tiles (front, "
               "side) per target; a dark tile is a pair that failed"},
              {"rows", names["rows"]},
              {"rows_left_out", names["left_out"]},
              {"columns", names["columns"]},
              {"seconds", secs},
              {"worn", done},
              {"failed", failed},
              {"pairs", table}};
  const std::string sheet_path = (fs::path(o.out) / "contact-sheet.png").string();
  const std::string html_path = (fs::path(o.out) / "contact-sheet.html").string();
  Status ps = kept > 0 ? WritePng(sheet_path, sheet_w, kept * o.tile, sheet, true) : Status::Ok();
  if (ps.ok() && kept > 0) ps = WriteFileAtomic(html_path, ContactSheetHtml(all, o.tile), true);
  Status js = WriteFileAtomic((fs::path(o.out) / "wear.json").string(), all.dump(2) + "\n", true);
  if (!ps.ok() || !js.ok()) {
    std::fprintf(stderr, "error: %s\n", (!ps.ok() ? ps : js).message().c_str());
    exit_code = kExitBadInput;
    return;
  }
  std::printf("%d of %d pairs worn in %.1f s; wrote %s%s\n", done, done + failed, secs,
              kept > 0 ? (sheet_path + " (named in " + html_path + ") and ").c_str() : "",
              (fs::path(o.out) / "wear.json").string().c_str());
  if (!left_out.empty())
    std::printf("  left out of the sheet (worn on no target): %s\n", left_out.c_str());
  if (with_write_warnings > 0)
    std::printf(
        "  %d worn file%s what %s format could not hold as it is (e.g. VRM 0.x keeps the "
        "chains' angle limits only for hairswing): \"write_warnings\" in wear.json\n",
        with_write_warnings, with_write_warnings == 1 ? " has warnings on" : "s have warnings on",
        with_write_warnings == 1 ? "its" : "their");
  if (failed) exit_code = kExitFailure;
}

}  // namespace

void AddWear(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "wear",
      "Put a hairstyle on another character: a rigged or unrigged hairstyle (a hair-only file, or "
      "a whole character with --hair) onto a VRM or glTF humanoid or a creature with a head bone. "
      "The hairstyle is placed by the two heads' axes and sizes (uniform scale from the head "
      "widths, the top of the head at its back onto the same point), then its inner surface is "
      "fitted to the target's "
      "scalp at --clearance (no hair inside the head, no scalp showing through where it covered "
      "its own), then skinned to the target's head; --fit-chains gives it spring chains as fit "
      "does. --library DIR --on T1 --on T2 --out DIR wears every hairstyle on every target and "
      "writes a contact sheet (contact-sheet.png, and contact-sheet.html naming its rows and "
      "columns) and a table (wear.json). --undo restores a worn file exactly.");
  auto o = std::make_shared<Opts>();
  cmd->add_option("HAIR", o->hair_file, "the hairstyle (.glb/.gltf/.vrm)");
  cmd->add_option("--on", o->targets,
                  "the target character (once; with --library, every target; with --undo, the "
                  "worn file)");
  cmd->add_option("-o,--output", o->out, "output .vrm or .glb (with --library: the output folder)");
  cmd->add_option("--out", o->out, "the same as -o");
  cmd->add_option("--hair", o->hair,
                  "which primitives of HAIR are the hairstyle, as fit's --hair (MESH, MESH/INDEX, "
                  "material:NAME); needed when HAIR is a whole character");
  cmd->add_option("--head", o->head,
                  "the target's head node; default: its humanoid head, else the node named like "
                  "\"head\"");
  cmd->add_option("--source-head", o->source_head,
                  "a character the hairstyle sits on as HAIR places it (for a hair-only file that "
                  "does not wrap around a head: a beard, eyebrows)");
  cmd->add_option("--clearance", o->clearance_mm,
                  "mm between the target's scalp and the hair's inner surface where the hairstyle "
                  "lay on its own scalp")
      ->check(FiniteRange(0.0, 100.0))
      ->capture_default_str();
  cmd->add_flag("--fit-chains", o->fit_chains,
                "give the worn hair spring chains (as hairswing fit --hair) and a head collider "
                "when the target has none on its head");
  cmd->add_flag("--no-scalp-fit", o->no_scalp_fit,
                "place the hairstyle only (frames, scale, anchor), without fitting it to the "
                "scalp: to see the placement, or keep a hairstyle exactly as modelled");
  cmd->add_flag("--keep-hair", o->keep_hair,
                "keep the target's own hair (by default it is hidden: meshes whose vertices mostly "
                "follow spring joints or whose material is named like hair, not eyebrows, lashes "
                "or beards; hair that is the skull, where the skin stops at the hairline, only if "
                "the new hair covers it; undone by --undo)");
  cmd->add_option("--joints", o->fit.joints, "with --fit-chains: joints per chain at most")
      ->check(CLI::Range(2, 64))
      ->capture_default_str();
  cmd->add_option("--min-hang", o->fit.min_hang_length,
                  "with --fit-chains: metres at human scale; a clump that reaches less far from "
                  "where it meets the head stays rigid (as fit's --min-hang)")
      ->check(FiniteRange(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--library", o->library,
                  "a folder of hairstyles (searched with its subfolders) or a manifest JSON "
                  "({\"hairstyles\": [{\"file\", "
                  "\"hair\", \"source_head\", \"name\"}]}); a whole character without \"hair\" "
                  "wears its materials named like \"hair\"");
  cmd->add_option("--tile", o->tile, "with --library: contact sheet tile size in pixels")
      ->check(CLI::Range(32, 1024))
      ->capture_default_str();
  cmd->add_flag("--no-measure", o->no_measure,
                "with --library --fit-chains: skip the head-turn figures per pair");
  cmd->add_option("--report", o->report, "write what was measured and changed as JSON");
  cmd->add_option("--preview", o->preview,
                  "write a PNG of the target's head wearing the hairstyle, front and side (the "
                  "worn hair drawn orange)");
  cmd->add_flag("--undo", o->undo, "restore what an earlier wear changed in the --on file");
  cmd->add_flag("--force", o->force, "overwrite an existing output");
  AddVrmVersion(cmd, o->vrm_version);
  cmd->callback([o, &exit_code] {
    auto fail = [&](const std::string& m) {
      std::fprintf(stderr, "error: %s\n", m.c_str());
      exit_code = kExitBadInput;
    };
    if (o->out.empty()) return fail("-o OUT is required");
    if (o->targets.empty()) return fail("--on TARGET is required");
    if (!o->library.empty()) {
      if (!o->hair_file.empty()) return fail("give either HAIR or --library, not both");
      return RunLibrary(*o, exit_code);
    }
    if (o->targets.size() > 1) return fail("--on is given once without --library");
    if (!OutputsWritable({o->out, o->report, o->preview}, o->force)) {
      exit_code = kExitBadInput;
      return;
    }
    std::optional<Avatar> target = LoadAvatarOrExit(o->targets[0], exit_code);
    if (!target) return;
    Json rep = {{"target", o->targets[0]}};
    if (o->undo) {
      if (!o->hair_file.empty()) return fail("--undo takes no HAIR");
      if (Status st = UndoWear(*target); !st.ok()) return fail(o->targets[0] + ": " + st.message());
      std::printf("  restored %s as it was before wear\n", o->targets[0].c_str());
      rep["changes"] = {"restored the target as it was before wear"};
    } else {
      if (o->hair_file.empty()) return fail("HAIR (the hairstyle file) is required");
      std::optional<Avatar> hair = LoadAvatarOrExit(o->hair_file, exit_code);
      if (!hair) return;
      std::optional<Avatar> source;
      WearOptions w = ToOptions(*o);
      if (!o->source_head.empty()) {
        source = LoadAvatarOrExit(o->source_head, exit_code);
        if (!source) return;
        w.source_character = &*source;
      }
      auto r = WearHairstyle(*target, *hair, w);
      if (!r.ok()) return fail(o->hair_file + " on " + o->targets[0] + ": " + r.status().message());
      PrintReport(*r);
      if (!o->preview.empty()) {
        const int tile = 2 * o->tile;
        std::vector<uint8_t> img(3 * static_cast<size_t>(2 * tile) * tile, 40);
        RenderTiles(*target, *r, tile, img, 2 * tile, 0, 0);
        if (Status ps = WritePng(o->preview, 2 * tile, tile, img, o->force); !ps.ok())
          return fail(ps.message());
      }
      rep["hair"] = o->hair_file;
      Json body = ReportJson(*r);
      for (auto it = body.begin(); it != body.end(); ++it) rep[it.key()] = it.value();
    }
    if (Status st = SaveWithVersion(*target, o->out, o->force, o->vrm_version); !st.ok())
      return fail(st.message());
    if (!o->report.empty())
      if (Status rs = WriteFileAtomic(o->report, rep.dump(2) + "\n", o->force); !rs.ok())
        return fail(rs.message());
    std::printf("wrote %s\n", o->out.c_str());
  });
}

}  // namespace hairswing::cli
