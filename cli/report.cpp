// HTML report: summary tables and five plots per avatar (stretch over time, tip trajectories,
// shape error per chain, stretch versus swing, update-time histogram), drawn by uPlot (the
// stretch-versus-swing scatter as inline SVG). The page embeds the library, its CSS and the data,
// so it opens offline from a file.
#include "report.h"

#include <nlohmann/json.hpp>

#include "hairswing/files.h"
#include "report_assets.h"

namespace hairswing::cli {

namespace {

const char* kPageScript = R"JS(
const colors = {arc: '#1f77b4', parent: '#d62728', vrm: '#2ca02c'};
function plotDiv(parent, title) {
  const box = document.createElement('div');
  box.className = 'plot';
  const h = document.createElement('h3');
  h.textContent = title;
  box.appendChild(h);
  parent.appendChild(box);
  return box;
}
function runsAt(rep, fps) { return rep.results.filter(r => r.fps === fps); }
for (const [i, rep] of DATA.entries()) {
  const sec = document.getElementById('avatar-' + i);
  const fps = Math.max(...rep.results.map(r => r.fps));
  const runs = runsAt(rep, fps);
  const width = Math.min(900, window.innerWidth - 60);
  // 1. p99 stretch over time
  {
    const t = runs[0].sample_times;
    const data = [t, ...runs.map(r => r.stretch_p99_series_pct)];
    new uPlot({width, height: 260, title: '',
      scales: {x: {time: false}}, axes: [{label: 'time (s)'}, {label: 'p99 edge stretch (%)'}],
      series: [{label: 't'}, ...runs.map(r => ({label: r.solver, stroke: colors[r.solver], width: 2}))]},
      data, plotDiv(sec, 'Hair mesh stretch over time (p99 of edge length / rest, ' + fps + ' fps)'));
  }
  // 2. tip trajectories: lateral (x) offset of every chain's tip from its start, chain 0 in bold
  {
    const t = runs[0].sample_times;
    const series = [{label: 't'}];
    const data = [t];
    for (const r of runs) {
      const path = r.tip_paths[0];
      data.push(path.map(p => 1000 * (p[0] - path[0][0])));
      series.push({label: r.solver + ' x', stroke: colors[r.solver], width: 2});
      data.push(path.map(p => 1000 * (p[1] - path[0][1])));
      series.push({label: r.solver + ' y', stroke: colors[r.solver], width: 1, dash: [6, 4]});
    }
    new uPlot({width, height: 260, scales: {x: {time: false}},
      axes: [{label: 'time (s)'}, {label: 'tip offset from rest (mm)'}], series}, data,
      plotDiv(sec, 'Tip trajectory of chain "' + rep.chain_names[0] + '" (x solid, y dashed)'));
  }
  // 3. shape error per chain: nested bars (parent widest, arc narrowest) so all stay visible
  {
    const n = rep.chain_names.length;
    const x = [...Array(n).keys()];
    const order = ['parent', 'vrm', 'arc'].map(s => runs.find(r => r.solver === s)).filter(Boolean);
    const widths = {parent: 0.75, vrm: 0.5, arc: 0.28};
    const data = [x, ...order.map(r => r.shape_error_per_chain_deg)];
    new uPlot({width, height: 260, scales: {x: {time: false, range: [-0.5, n - 0.5]}, y: {range: (u, lo, hi) => [0, hi * 1.1]}},
      axes: [{label: 'chain', values: (u, v) => v.map(i => rep.chain_names[i] ?? '')}, {label: 'deviation (deg)'}],
      series: [{label: 'chain'}, ...order.map(r => ({label: r.solver, fill: colors[r.solver] + 'bb', stroke: colors[r.solver],
        paths: uPlot.paths.bars({size: [widths[r.solver], 60]}), points: {show: false}}))]}, data,
      plotDiv(sec, 'Shape error per chain: curl beyond a rigid swing of the first segment, 0-4 s (' + fps + ' fps)'));
  }
  // 4. stretch versus swing: every solver as run, and the other solvers at arc's swing
  {
    const box = plotDiv(sec, 'Stretch versus swing (' + fps + ' fps): p99 edge stretch on welded positions ' +
      'against tip lag rms; hollow marks = stiffness scaled to arc\'s swing');
    const pts = [];
    for (const r of runs) {
      pts.push({x: r.swing_rms_mm, y: r.stretch_p99_welded_pct, s: r.solver, hollow: false});
      if (r.matched) pts.push({x: r.matched.swing_rms_mm, y: r.matched.stretch_p99_pct, s: r.solver, hollow: true,
                               k: r.matched.stiffness_scale});
    }
    // Without skinned hair stretch is n/a (null): nothing to place.
    pts.splice(0, pts.length, ...pts.filter(p => typeof p.y === 'number' && typeof p.x === 'number'));
    if (!pts.length) box.appendChild(document.createTextNode('No skinned hair: stretch is n/a.'));
    const W = Math.min(600, width), H = 300, L = 60, B = 40, T = 10, R = 20;
    const xmax = Math.max(...pts.map(p => p.x)) * 1.15 || 1, ymax = Math.max(...pts.map(p => p.y)) * 1.15 || 1;
    const X = v => L + (W - L - R) * v / xmax, Y = v => H - B - (H - B - T) * v / ymax;
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('width', W); svg.setAttribute('height', H); svg.setAttribute('class', 'scatter');
    const el = (tag, attrs, text) => { const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text !== undefined) e.textContent = text;
      svg.appendChild(e); return e; };
    el('line', {x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: '#333'});
    el('line', {x1: L, y1: T, x2: L, y2: H - B, stroke: '#333'});
    for (let i = 0; i <= 4; ++i) {
      el('text', {x: X(xmax * i / 4), y: H - B + 16, 'font-size': 11, 'text-anchor': 'middle'}, (xmax * i / 4).toFixed(1));
      el('text', {x: L - 6, y: Y(ymax * i / 4) + 4, 'font-size': 11, 'text-anchor': 'end'}, (ymax * i / 4).toFixed(1));
    }
    el('text', {x: (L + W - R) / 2, y: H - 6, 'font-size': 12, 'text-anchor': 'middle'}, 'swing: tip lag rms (mm)');
    el('text', {x: 14, y: (T + H - B) / 2, 'font-size': 12, 'text-anchor': 'middle',
                transform: 'rotate(-90 14 ' + (T + H - B) / 2 + ')'}, 'p99 stretch, welded (%)');
    for (const p of pts) {
      el('circle', {cx: X(p.x), cy: Y(p.y), r: 6, stroke: colors[p.s], 'stroke-width': 2,
                    fill: p.hollow ? 'white' : colors[p.s]});
      // Matched points sit at the same swing: put their labels above and below the mark.
      const dy = !p.hollow ? 4 : p.s === 'vrm' ? 18 : -10;
      el('text', {x: X(p.x) + 9, y: Y(p.y) + dy, 'font-size': 11},
         p.s + (p.hollow ? ' x' + p.k.toFixed(2) : ''));
    }
    box.appendChild(svg);
  }
  // 5. update-time histogram
  {
    const all = rep.results.filter(r => r.fps === 60).length ? rep.results.filter(r => r.fps === 60) : runs;
    const maxMs = Math.max(...all.flatMap(r => r.frame_ms));
    const bins = 30, w = maxMs / bins || 1e-3;
    const x = [...Array(bins).keys()].map(b => (b + 0.5) * w * 1000);
    const data = [x, ...all.map(r => { const h = new Array(bins).fill(0);
      for (const v of r.frame_ms) h[Math.min(bins - 1, Math.floor(v / w))]++; return h; })];
    new uPlot({width, height: 260, scales: {x: {time: false}},
      axes: [{label: 'solver time per frame (us)'}, {label: 'frames'}],
      series: [{label: 'us'}, ...all.map(r => ({label: r.solver + ' ' + r.fps + ' fps', stroke: colors[r.solver], width: 2,
        paths: uPlot.paths.stepped({align: 1})}))]}, data,
      plotDiv(sec, 'Update time histogram (' + all[0].fps + ' fps)'));
  }
}
document.body.dataset.plotsDrawn = String(document.querySelectorAll('.uplot canvas').length);
document.body.dataset.scattersDrawn = String(document.querySelectorAll('svg.scatter circle').length);
)JS";

}  // namespace

std::string HtmlEsc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else if (c == '\'')
      o += "&#39;";
    else
      o += c;
  }
  return o;
}

std::string HtmlNum(const nlohmann::json& v, int prec) {
  if (v.is_null()) return "&ndash;";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v.get<double>());
  return b;
}

Status WriteHtmlReport(const std::vector<MeasureReport>& reports, const std::string& path,
                       bool force, const std::string& intro_html) {
  nlohmann::json data = nlohmann::json::array();
  for (const auto& r : reports) data.push_back(nlohmann::json::parse(MeasureReportJson(r, true)));
  std::string html;
  html +=
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>hairswing "
      "measurement report</title>\n<style>";
  html += kUplotCss;
  html += R"CSS(
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f3f3f3} td:first-child{text-align:left}
.plot{margin:10px 0 24px} .plot h3{font-size:14px;margin:4px 0}
.note{color:#555;font-size:13px}
)CSS";
  html += "</style></head><body>\n<h1>hairswing measurement report</h1>\n";
  html +=
      "<p class=\"note\">Standard head-turn: 12 s (4 s of head yaw 50&deg; and pitch 15&deg; with "
      "3 cm hip sway, then 8 s "
      "still). Simulation at 120 Hz, mesh sampled at 30 Hz. <b>arc</b> = hairswing (rest direction "
      "from the original arc), "
      "<b>parent</b> = the usual solver (rest direction from the bent parent), <b>vrm</b> = "
      "VRMC_springBone 1.0 reference. "
      "Read stretch next to swing (tip lag): less motion always means less stretch. Shape error is "
      "the curl "
      "beyond a rigid swing (the tentacle). The equal-swing table compares the other solvers at "
      "arc's swing "
      "(docs/measure.md).</p>\n";
  html += intro_html;
  for (size_t i = 0; i < reports.size(); ++i) {
    const nlohmann::json& d = data[i];
    html += "<section id=\"avatar-" + std::to_string(i) + "\"><h2>" +
            HtmlEsc(d["avatar"].get<std::string>()) + "</h2>\n";
    html += "<p class=\"note\">" + std::to_string(d["chains"].get<int>()) + " chains, " +
            std::to_string(d["hair_vertices"].get<int>()) + " hair vertices, " +
            std::to_string(d["hair_edges"].get<int>()) + " hair edges, " +
            std::to_string(d["front_strand_vertices"].get<int>()) +
            " front-strand vertices. Frame-rate identity (30/60/120 fps): <b>" +
            (d["fps_identical"].get<bool>() ? "identical" : "different") + "</b>.</p>\n";
    html +=
        "<table><tr><th>solver</th><th>fps</th><th>swing rms mm</th><th>swing max mm</th>"
        "<th>mesh swing rms mm</th><th>p99 stretch %</th>"
        "<th>p99 welded %</th><th>worst edge %</th><th>excess p99 %</th><th>excess worst %</th>"
        "<th>flip &deg;</th><th>root drift mm</th>"
        "<th>settle mm</th><th>shape error &deg;</th><th>hidden by shirt (&gt;1 mm)</th><th>max "
        "depth mm</th>"
        "<th>after collider fit: hidden / depth mm / p99 %</th>"
        "<th>penetration samples</th><th>update p50 ms</th><th>update p95 ms</th></tr>\n";
    for (const auto& r : d["results"]) {
      html +=
          "<tr><td>" + r["solver"].get<std::string>() + "</td><td>" +
          std::to_string(r["fps"].get<int>()) + "</td><td>" + HtmlNum(r["swing_rms_mm"], 2) +
          "</td><td>" + HtmlNum(r["swing_max_mm"], 1) + "</td><td>" +
          HtmlNum(r.value("swing_mesh_rms_mm", nlohmann::json()), 2) + "</td><td>" +
          HtmlNum(r["stretch_p99_pct"], 2) + "</td><td>" + HtmlNum(r["stretch_p99_welded_pct"], 2) +
          "</td><td>" + HtmlNum(r["stretch_worst_pct"], 2) + "</td><td>" +
          HtmlNum(r["stretch_p99_excess_pct"], 2) + "</td><td>" +
          HtmlNum(r["stretch_worst_excess_pct"], 2) + "</td><td>" + HtmlNum(r["flip_deg"], 1) +
          "</td><td>" + HtmlNum(r["root_drift_mm"], 6) + "</td><td>" + HtmlNum(r["settle_mm"], 6) +
          "</td><td>" + HtmlNum(r["shape_error_deg"], 2) + "</td><td>" +
          (r["occlusion_hidden"].is_null() ? "&ndash;"
                                           : std::to_string(r["occlusion_hidden"].get<int>())) +
          "</td><td>" + HtmlNum(r["occlusion_max_depth_mm"], 1) + "</td><td>" +
          (r["occlusion_after_fit"].is_null()
               ? std::string("not run")
               : (r["occlusion_after_fit"]["hidden"].is_null()
                      ? std::string("&ndash;")
                      : std::to_string(r["occlusion_after_fit"]["hidden"].get<int>())) +
                     " / " + HtmlNum(r["occlusion_after_fit"]["max_depth_mm"], 1) + " / " +
                     HtmlNum(r["occlusion_after_fit"]["stretch_p99_pct"], 2)) +
          "</td><td>" + std::to_string(r["penetration_samples"].get<int>()) + "</td><td>" +
          HtmlNum(r["update_p50_ms"], 4) + "</td><td>" + HtmlNum(r["update_p95_ms"], 4) +
          "</td></tr>\n";
    }
    html += "</table>\n";
    // The swing-matched comparison, when it was run.
    std::string matched;
    for (const auto& r : d["results"]) {
      if (!r.contains("matched")) continue;
      const auto& m = r["matched"];
      matched += "<tr><td>" + r["solver"].get<std::string>() + "</td><td>" +
                 std::to_string(r["fps"].get<int>()) + "</td><td>" +
                 HtmlNum(m["stiffness_scale"], 3) + "</td><td>" +
                 HtmlNum(m["target_swing_rms_mm"], 2) + "</td><td>" +
                 HtmlNum(m["swing_rms_mm"], 2) + "</td><td>" + HtmlNum(m["stretch_p99_pct"], 2) +
                 "</td><td>" + HtmlNum(m["shape_error_deg"], 2) + "</td><td>" +
                 (m["reached"].get<bool>() ? "yes" : "no") + "</td></tr>\n";
    }
    if (!matched.empty())
      html +=
          "<p class=\"note\">At equal swing: each other solver's stiffness scaled (bisection) "
          "until its tip lag rms "
          "equals arc's at the same frame "
          "rate.</p><table><tr><th>solver</th><th>fps</th><th>stiffness &times;</th>"
          "<th>arc's swing mm</th><th>swing mm</th><th>p99 welded %</th><th>shape error "
          "&deg;</th><th>reached</th></tr>\n" +
          matched + "</table>\n";
    html += "</section>\n";
  }
  html += "<script>";
  html += kUplotJs;
  html += "</script>\n<script>const DATA = ";
  std::string json = data.dump();
  // Keep "</script>" out of the inline JSON.
  for (size_t p = 0; (p = json.find("</", p)) != std::string::npos; p += 3)
    json.replace(p, 2, "<\\/");
  html += json;
  html += ";\n";
  html += kPageScript;
  html += "</script>\n</body></html>\n";
  return WriteFileAtomic(path, html, force);
}

}  // namespace hairswing::cli
