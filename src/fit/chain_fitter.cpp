// The hair-chain fitter (include/hairswing/fit.h, docs/fit.md). Works on the rest pose in world
// space:
//   1. the selected primitives' vertices, welded by position so seams do not split the surface;
//   2. connected clumps (union of triangles); tiny pieces are not hair;
//   3. the root: vertices within root_tolerance of the attachment's surface (the vertices of other
//      meshes skinned to the attachment bone), an error if the hair never comes that close;
//   4. geodesic distance from the root over the mesh graph (Dijkstra on edge lengths); a clump
//      that reaches less than min_hang_length cannot hang and stays rigid on the attachment;
//   5. a centre line through the level sets of that distance (centroids of distance bins),
//      smoothed; a line much longer than the clump's extent leaves the clump (rigid again);
//      the joints go along it by arc length from the end of the pinned band;
//   6. new joint nodes under the attachment; skin weights from the arc length: the pinned band,
//      a fade of the attachment over root_ramp_segments, hat functions between joints, then
//      diffused over the surface;
//   7. a VRM 1.0 spring per clump colliding with the existing colliders clear of it at rest.
// Everything changed is recorded in the root extension HAIRSWING_fit_undo for UndoFit.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <glm/gtc/matrix_transform.hpp>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "core/chain_weights.h"
#include "core/node_tree.h"
#include "fit/body_scale.h"
#include "fit/joint_record.h"
#include "fit/owned_nodes.h"
#include "fit/undo_keys.h"
#include "fit/weight_smoothing.h"
#include "hairswing/collide.h"
#include "hairswing/fit.h"
#include "hairswing/names.h"
#include "hairswing/retarget.h"
#include "hairswing/rig.h"
#include "hairswing/tune.h"

namespace hairswing {
namespace {

using Json = nlohmann::json;
using fit::kFitUndoKey;

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(size_t n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int Find(int x) { return p[x] == x ? x : p[x] = Find(p[x]); }
  void Join(int a, int b) { p[Find(a)] = Find(b); }
};

std::vector<glm::vec3> Resample(const std::vector<glm::vec3>& line, int n) {
  std::vector<float> acc(line.size(), 0.0f);
  for (size_t i = 1; i < line.size(); ++i) acc[i] = acc[i - 1] + glm::length(line[i] - line[i - 1]);
  std::vector<glm::vec3> out;
  for (int k = 0; k < n; ++k) {
    const float s = acc.back() * k / (n - 1);
    size_t i = 1;
    while (i + 1 < line.size() && acc[i] < s) ++i;
    const float seg = acc[i] - acc[i - 1];
    const float t = seg > 0 ? std::clamp((s - acc[i - 1]) / seg, 0.0f, 1.0f) : 0.0f;
    out.push_back(line[i - 1] + (line[i] - line[i - 1]) * t);
  }
  return out;
}

// The polyline without its first `cut` metres of arc length.
std::vector<glm::vec3> CutLine(const std::vector<glm::vec3>& line, float cut) {
  float acc = 0;
  for (size_t i = 1; i < line.size(); ++i) {
    const float seg = glm::length(line[i] - line[i - 1]);
    if (acc + seg > cut) {
      std::vector<glm::vec3> out{line[i - 1] + (line[i] - line[i - 1]) * ((cut - acc) / seg)};
      out.insert(out.end(), line.begin() + i, line.end());
      return out;
    }
    acc += seg;
  }
  return {line[line.size() - 2], line.back()};
}

// A near vertex (GeodesicFromRoot) this far along the clump's extent is at its far end.
constexpr float kLoopEnd = 0.95f;
constexpr float kMaxLineRatio =
    1.5f;  // centre line length / geodesic extent beyond which a clump stays rigid
// A centre line whose far end comes back nearer its start than this share of its furthest
// reach folds back on itself (Folds).
constexpr float kFoldBack = 0.7f;
// Unfold's added edges per clump vertex at most (a shell unfolds at about a tenth of that).
constexpr size_t kMaxExtraEdges = 64;

}  // namespace

void internal::SmoothChainWeights(const std::vector<std::vector<std::pair<int, float>>>& adj,
                                  const std::vector<float>& geo, const std::vector<int>& chain_of,
                                  int chain, float pinned_geo, float segment,
                                  std::vector<std::vector<float>>* weights) {
  // Jacobi diffusion: w <- (w + mean of the neighbours) / 2 on the chain's vertices, the pinned
  // band held at the attachment. Each pass spreads a weight step over about one more edge, so
  // the number of passes follows (spread / edge length)^2 with the spread half a segment.
  std::vector<int> verts;
  double edge_sum = 0;
  size_t edge_n = 0;
  for (size_t w = 0; w < adj.size(); ++w) {
    if (chain_of[w] != chain || geo[w] < 0) continue;
    verts.push_back(static_cast<int>(w));
    for (const auto& [n, len] : adj[w]) {
      edge_sum += len;
      ++edge_n;
    }
  }
  if (verts.empty() || edge_n == 0) return;
  const double mean_edge = std::max(edge_sum / edge_n, 1e-9);
  const int passes =
      std::clamp(static_cast<int>(std::lround(std::pow(0.5 * segment / mean_edge, 2.0))), 4, 400);
  auto& wts = *weights;
  std::vector<std::vector<float>> next(verts.size());
  std::vector<float> mean;
  for (int pass = 0; pass < passes; ++pass) {
    for (size_t i = 0; i < verts.size(); ++i) {
      const int w = verts[i];
      next[i] = wts[w];
      if (geo[w] <= pinned_geo) continue;  // the pinned band stays on the attachment
      mean.resize(wts[w].size());
      // Neighbours weighted by 1 / length^2, so the diffusion follows distances on the surface,
      // not edge counts (a uniform average steepens the weights where edges are short, e.g. where
      // a ponytail is gathered at its tie).
      std::fill(mean.begin(), mean.end(), 0.0f);
      float total = 0.0f;
      for (const auto& [n, len] : adj[w]) {
        if (chain_of[n] != chain || geo[n] < 0 || wts[n].size() != mean.size()) continue;
        const float wn = 1.0f / std::max(len * len, 1e-12f);
        for (size_t k = 0; k < mean.size(); ++k) mean[k] += wn * wts[n][k];
        total += wn;
      }
      if (total <= 0.0f) continue;
      for (size_t k = 0; k < mean.size(); ++k)
        next[i][k] = 0.5f * wts[w][k] + 0.5f * mean[k] / total;
    }
    for (size_t i = 0; i < verts.size(); ++i) wts[verts[i]].swap(next[i]);
  }
}

static Result<HairSelection> SelectOne(const Avatar& av, const std::string& sel) {
  HairSelection out;
  if (sel.rfind("material:", 0) == 0) {
    // The material by name: exact, or ignoring case when that picks one (FindName).
    std::vector<std::string> names;
    for (const Material& mat : av.materials) names.push_back(mat.name);
    auto found = FindName(sel.substr(9), names, "material");
    if (!found.ok())
      return Status(StatusCode::kInvalidInput, "hair selection: " + found.status().message());
    const std::string name = names[*found];
    for (size_t m = 0; m < av.meshes.size(); ++m)
      for (size_t p = 0; p < av.meshes[m].primitives.size(); ++p) {
        const int mat = av.meshes[m].primitives[p].material;
        if (mat >= 0 && av.materials[mat].name == name)
          out.primitives.emplace_back(static_cast<int>(m), static_cast<int>(p));
      }
    if (out.primitives.empty())
      return Status(StatusCode::kInvalidInput,
                    "hair selection: no primitive uses material \"" + name + "\"");
    return out;
  }
  std::string mesh = sel;
  int prim = -1;
  if (auto slash = sel.rfind('/'); slash != std::string::npos) {
    mesh = sel.substr(0, slash);
    try {
      prim = std::stoi(sel.substr(slash + 1));
    } catch (...) {
      return Status(StatusCode::kInvalidInput,
                    "hair selection \"" + sel + "\": expected MESH/INDEX");
    }
  }
  std::vector<std::string> mesh_names;
  for (const Mesh& me : av.meshes) mesh_names.push_back(me.name);
  auto found = FindName(mesh, mesh_names, "mesh");
  if (!found.ok())
    return Status(StatusCode::kInvalidInput, "hair selection: " + found.status().message());
  mesh = mesh_names[*found];
  for (size_t m = 0; m < av.meshes.size(); ++m) {
    if (av.meshes[m].name != mesh) continue;
    const int n = static_cast<int>(av.meshes[m].primitives.size());
    if (prim >= n)
      return Status(StatusCode::kInvalidInput, "hair selection: mesh \"" + mesh + "\" has " +
                                                   std::to_string(n) + " primitives");
    for (int p = 0; p < n; ++p)
      if (prim < 0 || p == prim) out.primitives.emplace_back(static_cast<int>(m), p);
    return out;
  }
  return Status(StatusCode::kInvalidInput, "hair selection: no mesh named \"" + mesh + "\"");
}

// Several selectors separated by commas select the union
// ("material:Hair_Brown,material:Hair_Blond").
Result<HairSelection> SelectHair(const Avatar& av, const std::string& sel) {
  if (sel.find(',') == std::string::npos) return SelectOne(av, sel);
  HairSelection out;
  size_t at = 0;
  while (at <= sel.size()) {
    const size_t comma = std::min(sel.find(',', at), sel.size());
    auto one = SelectOne(av, sel.substr(at, comma - at));
    if (!one.ok()) return one.status();
    for (const auto& p : one->primitives)
      if (std::find(out.primitives.begin(), out.primitives.end(), p) == out.primitives.end())
        out.primitives.push_back(p);
    at = comma + 1;
  }
  return out;
}

namespace {

// One fitted chain: joint positions along the clump's centre line (world, rest), their new nodes
// and rest world matrices. length: arc length of the joints; pinned: arc length of the centre line
// before the first joint (the band pinned to the attachment); full = pinned + the rest of the
// line; gmax: the clump's geodesic extent from its root.
struct FitChain {
  std::vector<int> nodes;
  std::vector<glm::vec3> pts;
  std::vector<glm::mat4> world;
  float length = 0, pinned = 0, full = 0, gmax = 0;
};

// A selected primitive at rest, welded by position (1/100 mm grid at avatar scale): one vertex
// per position, the mesh graph over welded vertices, and its connected pieces.
struct WeldedHair {
  std::vector<glm::vec3> world;                         // per original vertex, rest world position
  std::vector<int> weld;                                // original vertex -> welded vertex
  std::vector<glm::vec3> wpos;                          // welded vertex positions
  std::vector<std::vector<std::pair<int, float>>> adj;  // neighbours and edge lengths
  UnionFind uf{0};
};

// What one FitHairChains call works with, and what it records for UndoFit.
struct FitContext {
  FitContext(Avatar& a, const Rig& r, const FitOptions& o, const HumanoidMap& h, FitResult& res)
      : av(a), rig(r), opt(o), hm(h), result(res) {}
  Avatar& av;
  const Rig& rig;
  const FitOptions& opt;
  const HumanoidMap& hm;
  FitResult& result;
  int attach = -1, attach_rig = -1;
  float unit = 1.0f;               // avatar scale, a 1.7 m person = 1
  std::vector<glm::vec3> surface;  // the attachment's surface (subsampled)
  bool have_surface = false;
  std::vector<glm::mat4> palette = std::vector<glm::mat4>(4096);
  int chain_index = 0;
  // Why clumps did not hang, for the error when none does (NoChainReason): too short (the
  // longest of them, metres), round the head, too small, not touching the attachment (the
  // closest of them, metres).
  struct {
    int too_short = 0, around = 0, small = 0, apart = 0;
    float longest = 0.0f, closest = 1e30f;
  } unhung;
  size_t groups_before = 0;  // collider groups before this fit (the fit's own come after)
  Json children = Json::object(), skin_joints = Json::object(), node_skin = Json::object();
  Json prims = Json::array();

  std::string Cm(float metres) const {  // a length at human scale, for messages
    char b[32];
    std::snprintf(b, sizeof b, "%.1f cm", 100.0f * metres / unit);
    return b;
  }
};

bool Selected(const HairSelection& sel, int m, int p) {
  return std::find(sel.primitives.begin(), sel.primitives.end(), std::make_pair(m, p)) !=
         sel.primitives.end();
}

// The attachment's surface: rest positions of other primitives' vertices skinned mostly to it
// (to it and the nodes below it that are not spring joints).
Status FindAttachmentSurface(FitContext& cx, const HairSelection& sel) {
  const Rig& rig = cx.rig;
  // One rigid part: a mannequin's egg of a head follows "Head_End" more than "Head".
  const std::vector<uint8_t> part = fit::RigidPart(rig, cx.attach_rig);
  for (const MeshInstance& inst : rig.meshes()) {
    if (inst.skin < 0) continue;
    const RigSkin& sk = rig.skins()[inst.skin];
    for (size_t p = 0; p < cx.av.meshes[inst.mesh].primitives.size(); ++p) {
      if (Selected(sel, inst.mesh, static_cast<int>(p))) continue;
      const Primitive& prim = cx.av.meshes[inst.mesh].primitives[p];
      if (prim.joints.empty()) continue;
      std::vector<glm::vec3> posed(prim.positions.size());
      if (sk.joints.size() > cx.palette.size()) cx.palette.resize(sk.joints.size());
      if (Status st = PosePrimitive(rig, inst, prim, rig.rest_world(), cx.palette, posed); !st.ok())
        return Status(st.code(), "mesh \"" + cx.av.meshes[inst.mesh].name + "\" primitive " +
                                     std::to_string(p) + ": " + st.message());
      for (size_t v = 0; v < posed.size(); ++v) {
        float w = 0.0f;  // the part's share of the vertex
        for (int k = 0; k < 4; ++k)
          if (prim.joints[v][k] < sk.joints.size() && part[sk.joints[prim.joints[v][k]]])
            w += prim.weights[v][k];
        if (w > 0.5f) cx.surface.push_back(posed[v]);
      }
    }
  }
  cx.have_surface = !cx.surface.empty();
  if (cx.surface.size() > 3000) {  // a regular subsample is plenty for distances at cm tolerance
    std::vector<glm::vec3> sub;
    const size_t stride = cx.surface.size() / 3000 + 1;
    for (size_t i = 0; i < cx.surface.size(); i += stride) sub.push_back(cx.surface[i]);
    cx.surface.swap(sub);
  }
  if (!cx.have_surface) cx.surface.emplace_back(cx.rig.rest_world()[cx.attach_rig][3]);
  return Status::Ok();
}

WeldedHair WeldHair(std::vector<glm::vec3> world, const Primitive& prim, float unit) {
  WeldedHair wh;
  wh.world = std::move(world);
  std::map<std::tuple<long long, long long, long long>, int> grid;
  wh.weld.resize(wh.world.size());
  const double q = 1e-5 * unit;
  for (size_t v = 0; v < wh.world.size(); ++v) {
    const glm::vec3& p = wh.world[v];
    auto key = std::make_tuple(std::llround(p.x / q), std::llround(p.y / q), std::llround(p.z / q));
    auto [it, fresh] = grid.emplace(key, static_cast<int>(wh.wpos.size()));
    if (fresh) wh.wpos.push_back(p);
    wh.weld[v] = it->second;
  }
  const size_t nw = wh.wpos.size();
  wh.adj.resize(nw);
  wh.uf = UnionFind(nw);
  for (size_t t = 0; t + 2 < prim.indices.size(); t += 3)
    for (int k = 0; k < 3; ++k) {
      const int a = wh.weld[prim.indices[t + k]], b = wh.weld[prim.indices[t + (k + 1) % 3]];
      if (a == b) continue;
      const float len = glm::length(wh.wpos[a] - wh.wpos[b]);
      wh.adj[a].emplace_back(b, len);
      wh.adj[b].emplace_back(a, len);
      wh.uf.Join(a, b);
    }
  return wh;
}

// Extra edges of a clump's graph (Unfold): per welded vertex, neighbours and lengths.
using ExtraEdges = std::vector<std::vector<std::pair<int, float>>>;

// Geodesic distance over the clump's mesh graph (and `extra`'s edges, when given) from the
// sources, multi-source Dijkstra on edge lengths: geo[] of every vertex of the clump, -1 where
// the sources do not reach.
void Geodesic(const WeldedHair& wh, const ExtraEdges* extra, const std::vector<int>& verts,
              const std::vector<int>& sources, std::vector<float>& geo) {
  using Item = std::pair<float, int>;
  for (int w : verts) geo[w] = -1.0f;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
  for (int w : sources) {
    geo[w] = 0.0f;
    pq.emplace(0.0f, w);
  }
  auto relax = [&](float g, int n, float len) {
    if (geo[n] < 0 || g + len < geo[n]) {
      geo[n] = g + len;
      pq.emplace(geo[n], n);
    }
  };
  while (!pq.empty()) {
    auto [g, w] = pq.top();
    pq.pop();
    if (g > geo[w]) continue;
    for (auto [n, len] : wh.adj[w]) relax(g, n, len);
    if (extra)
      for (auto [n, len] : (*extra)[w]) relax(g, n, len);
  }
}

// The largest geodesic distance over the clump (its extent from the sources).
float Extent(const std::vector<int>& verts, const std::vector<float>& geo) {
  float g = 0.0f;
  for (int w : verts) g = std::max(g, geo[w]);
  return g;
}

// Geodesic distance from the root band, multi-source Dijkstra on edge lengths. Writes geo[] of
// the clump; returns the largest distance, in left_out the near vertices not in the band and in
// both_ends whether the band is every near vertex because one is at the clump's far end.
// Near: within `tol` of the clump's closest approach to the attachment surface. The band: the
// closest vertex and the near vertices the surface reaches from it, band vertex to band vertex,
// each within `reach` of the band grown so far (over the clump).
// Other near vertices are places further along the strand that come as close to the head (the
// middle or the tip of a strand lying over the scalp, where a worn hairstyle's scalp fit put
// it): pinned there too, the hair between would be held at both ends and torn by every swing,
// and the centre line would run through the level sets of two roots.
float GeodesicFromRoot(const WeldedHair& wh, const std::vector<int>& verts,
                       const std::vector<float>& dist, float dmin, float tol, float reach,
                       std::vector<float>& geo, int* left_out, bool* both_ends) {
  // The band grows from the closest near vertex, by the near vertices within `reach` of it.
  std::vector<int> near;
  size_t closest = 0;
  for (size_t i = 0; i < verts.size(); ++i) {
    if (dist[i] < dist[closest]) closest = i;
    if (dist[i] <= dmin + tol) near.push_back(static_cast<int>(i));
  }
  std::vector<uint8_t> in_band(verts.size(), 0);
  std::vector<int> band{verts[closest]};
  in_band[closest] = 1;
  for (bool grew = true; grew;) {
    Geodesic(wh, nullptr, verts, band, geo);
    grew = false;
    for (int i : near)
      if (!in_band[i] && geo[verts[i]] >= 0.0f && geo[verts[i]] <= reach) {
        in_band[i] = 1;
        band.push_back(verts[i]);
        grew = true;
      }
  }
  *left_out = static_cast<int>(near.size() - band.size());  // the closest is near
  // A clump whose far end comes as near the head as its root (a loop, a lock tucked back
  // against the head, long hair down to a neck the head's weights hold) is held at both ends, as
  // the artist placed it: every near vertex is root, as before this rule.
  float far_touch = 0.0f;
  for (int i : near)
    if (!in_band[i]) far_touch = std::max(far_touch, geo[verts[i]]);
  const float from_band = Extent(verts, geo);
  *both_ends = *left_out > 0 && far_touch >= kLoopEnd * from_band;
  if (!*both_ends) return from_band;
  std::vector<int> all(near.size());
  for (size_t k = 0; k < near.size(); ++k) all[k] = verts[near[k]];
  Geodesic(wh, nullptr, verts, all, geo);
  *left_out = 0;
  return Extent(verts, geo);
}

float LineLength(const std::vector<glm::vec3>& l) {
  float len = 0;
  for (size_t i = 1; i < l.size(); ++i) len += glm::length(l[i] - l[i - 1]);
  return len;
}

// The centroids of the clump's level sets of geodesic distance (max(12, 4 joints) bins over
// [0, gmax]; empty bins left out), root first.
std::vector<glm::vec3> LevelSetCentroids(const WeldedHair& wh, const std::vector<int>& verts,
                                         const std::vector<float>& geo, float gmax, int joints) {
  const int bins = std::max(12, 4 * joints);
  std::vector<glm::vec3> sum(bins, glm::vec3(0));
  std::vector<int> count(bins, 0);
  for (int w : verts) {
    const float f = gmax > 0 ? geo[w] / gmax * static_cast<float>(bins) : 0.0f;
    const int b = f >= 0 ? std::min(bins - 1, static_cast<int>(std::min(f, 1e9f))) : 0;
    sum[b] += wh.wpos[w];
    ++count[b];
  }
  std::vector<glm::vec3> line;
  for (int b = 0; b < bins; ++b)
    if (count[b]) line.push_back(sum[b] / static_cast<float>(count[b]));
  return line;
}

// Centre line through the level sets of the geodesic distance (centroids of distance bins). The
// centroids zig-zag on coarse cards and cut through the head on pieces that wrap around it (their
// bands are rings), so the line is smoothed (ends kept) while it is much longer than the clump.
std::vector<glm::vec3> CentreLine(const WeldedHair& wh, const std::vector<int>& verts,
                                  const std::vector<float>& geo, float gmax, int joints) {
  std::vector<glm::vec3> line = LevelSetCentroids(wh, verts, geo, gmax, joints);
  for (int pass = 0; pass < 8 && line.size() > 2 && LineLength(line) > 1.1f * gmax; ++pass) {
    std::vector<glm::vec3> sm = line;
    for (size_t i = 1; i + 1 < line.size(); ++i)
      sm[i] = 0.25f * line[i - 1] + 0.5f * line[i] + 0.25f * line[i + 1];
    line.swap(sm);
  }
  return line;
}

// Whether a clump folds back on itself: the far end of its level sets' centroid line comes back
// nearer the first centroid than kFoldBack of the line's furthest reach from it. A hair shell -
// an inner and an outer layer joined along the hair's lower edge, as game hair is often
// modelled - is walked down one layer, round the edge and up the other: its level sets beyond
// the edge climb back towards the head, and a centre line through them turns round at the edge
// (a U of joints: 147 deg at one joint for the UBC long hair worn on godette), so the layers
// would be skinned to different joints and pulled apart by every bend. A curl at the tip that
// comes back less than that keeps its line.
bool Folds(const WeldedHair& wh, const std::vector<int>& verts, const std::vector<float>& geo,
           float gmax, int joints) {
  const std::vector<glm::vec3> line = LevelSetCentroids(wh, verts, geo, gmax, joints);
  if (line.size() < 3) return false;
  float reach = 0.0f;
  for (const glm::vec3& c : line) reach = std::max(reach, glm::length(c - line.front()));
  return glm::length(line.back() - line.front()) < kFoldBack * reach;
}

// The geodesic distance of a clump that folds back on itself (Folds) measured again with the
// surface joined through the hair's thickness: every pair of its vertices closer than r gets an
// edge of their straight distance, so a layer's level set at a depth reaches the layer beside it
// at that depth instead of round the lower edge. r starts at 1.5 median edge lengths and grows
// by half while the line still folds, up to a fifth of the clump's extent or kMaxExtraEdges
// edges per vertex (UBC Hair_Long worn on godette unfolds at the first r, 12.5 per vertex); the
// sources are the root band (distance 0). Writes geo and *gmax and returns true when an r
// unfolded the clump; otherwise leaves them as they were and returns false.
bool Unfold(const WeldedHair& wh, const std::vector<int>& verts, std::vector<float>& geo,
            float* gmax, int joints) {
  std::vector<float> lengths;
  for (int w : verts)
    for (auto [n, len] : wh.adj[w])
      if (n > w) lengths.push_back(len);
  if (lengths.empty()) return false;
  std::nth_element(lengths.begin(), lengths.begin() + lengths.size() / 2, lengths.end());
  const float median = lengths[lengths.size() / 2];
  std::vector<int> sources;
  for (int w : verts)
    if (geo[w] == 0.0f) sources.push_back(w);
  std::vector<float> trial(geo.size());
  for (float r = 1.5f * median; r <= 0.2f * *gmax; r *= 1.5f) {
    // Pairs closer than r, from a grid of cells r wide (the 27 cells round each vertex; the
    // cell's three indices packed into one key, 21 bits each: a key two far cells share only
    // costs distance tests).
    auto key = [&](const glm::vec3& p, int dx, int dy, int dz) {
      const auto bits = [](float v, int d) {
        return static_cast<uint64_t>(static_cast<int64_t>(std::floor(v)) + d) & 0x1FFFFFu;
      };
      return bits(p.x / r, dx) << 42 | bits(p.y / r, dy) << 21 | bits(p.z / r, dz);
    };
    std::unordered_map<uint64_t, std::vector<int>> grid;
    for (int w : verts) grid[key(wh.wpos[w], 0, 0, 0)].push_back(w);
    ExtraEdges extra(wh.wpos.size());
    size_t edges = 0;
    for (int w : verts) {
      // A dense mesh has many vertices within a few edge lengths: past kMaxExtraEdges per vertex
      // (r about 3.5 median edges on an even surface) the clump keeps its line rather than the
      // fit taking minutes and gigabytes.
      if (edges > kMaxExtraEdges * verts.size()) return false;
      for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dz = -1; dz <= 1; ++dz) {
            const auto it = grid.find(key(wh.wpos[w], dx, dy, dz));
            if (it == grid.end()) continue;
            for (int n : it->second) {
              const float d = glm::length(wh.wpos[n] - wh.wpos[w]);
              if (n != w && d < r) extra[w].emplace_back(n, d), ++edges;
            }
          }
    }
    Geodesic(wh, &extra, verts, sources, trial);
    const float extent = Extent(verts, trial);
    if (!Folds(wh, verts, trial, extent, joints)) {
      for (int w : verts) geo[w] = trial[w];
      *gmax = extent;
      return true;
    }
  }
  return false;
}

// New joint nodes under the attachment at the chain's points (translations in each parent's
// frame); fills ch.nodes and ch.world (rest world, keeping the armature's scale).
void AddJointNodes(FitContext& cx, FitChain& ch) {
  Avatar& av = cx.av;
  glm::mat4 parent_world = cx.rig.rest_world()[cx.attach_rig];
  int parent = cx.attach;
  if (!cx.children.contains(std::to_string(cx.attach)))
    cx.children[std::to_string(cx.attach)] = av.nodes[cx.attach].children;
  for (size_t j = 0; j < ch.pts.size(); ++j) {
    Node n;
    n.name = "HairFit_" + std::to_string(cx.chain_index) + "_" + std::to_string(j);
    n.parent = parent;
    n.translation = glm::vec3(glm::inverse(parent_world) * glm::vec4(ch.pts[j], 1.0f));
    const int id = static_cast<int>(av.nodes.size());
    av.nodes[parent].children.push_back(id);
    av.nodes.push_back(n);
    parent_world = parent_world * glm::translate(glm::mat4(1.0f), n.translation);
    ch.world.push_back(parent_world);
    ch.nodes.push_back(id);
    parent = id;
  }
}

// Steps 2-6a for one primitive: every clump either gets a chain (joint nodes added to the avatar,
// its welded vertices marked in chain_of, geodesic distances in geo) or stays rigid (geo -1).
Status PlaceChains(FitContext& cx, const WeldedHair& wh, const Primitive& prim,
                   std::vector<float>& geo, std::vector<int>& chain_of,
                   std::vector<FitChain>* chains) {
  const FitOptions& opt = cx.opt;
  FitResult& result = cx.result;
  std::map<int, std::vector<int>> clumps;
  std::map<int, int> clump_triangles;
  UnionFind uf = wh.uf;
  for (size_t t = 0; t + 2 < prim.indices.size(); t += 3)
    clump_triangles[uf.Find(wh.weld[prim.indices[t]])]++;
  for (size_t w = 0; w < wh.wpos.size(); ++w)
    if (!wh.adj[w].empty()) clumps[uf.Find(static_cast<int>(w))].push_back(static_cast<int>(w));
  std::string first_error;  // a clump that cannot hang: an error when it is the only one
  for (auto& [root_id, verts] : clumps) {
    if (clump_triangles[root_id] < opt.min_triangles) {
      if (clumps.size() == 1)
        return Status(StatusCode::kInvalidInput, "the selected hair has only " +
                                                     std::to_string(clump_triangles[root_id]) +
                                                     " triangle(s): too small to fit a chain");
      ++cx.unhung.small;
      result.warnings.push_back("skipped a piece of " + std::to_string(clump_triangles[root_id]) +
                                " triangle(s): too small for a chain");
      continue;
    }
    // 3. Root: closest to the attachment surface.
    std::vector<float> dist(verts.size());
    float dmin = 1e30f;
    for (size_t i = 0; i < verts.size(); ++i) {
      float d = 1e30f;
      for (const glm::vec3& s : cx.surface) d = std::min(d, glm::length(wh.wpos[verts[i]] - s));
      dist[i] = d;
      dmin = std::min(dmin, d);
    }
    const float tol = opt.root_tolerance * cx.unit;
    const float touch = cx.have_surface ? 2.0f * tol : 0.25f * cx.unit;
    if (dmin > touch) {
      const std::string e = "the selected hair does not touch the " + opt.attach + " (closest " +
                            std::to_string(static_cast<int>(std::lround(1000 * dmin / cx.unit))) +
                            " mm at avatar scale)";
      if (first_error.empty()) first_error = e;
      ++cx.unhung.apart;
      cx.unhung.closest = std::min(cx.unhung.closest, dmin);
      result.warnings.push_back("skipped a clump of " + std::to_string(verts.size()) +
                                " vertices: " + e);
      continue;
    }
    // 4. Geodesic distance from the root band.
    int left_out = 0;
    bool both_ends = false;
    float gmax = GeodesicFromRoot(wh, verts, dist, dmin, tol, opt.segment_length * cx.unit, geo,
                                  &left_out, &both_ends);
    // A clump that folds back on itself (Folds): its layers are walked one after the other.
    // The distance along the hair is measured again with the layers joined through the hair's
    // thickness (Unfold), so both are one level set at each depth and the line ends at the fold.
    float folded = -1.0f;  // the extent there and back, when unfolded
    if (!both_ends && Folds(wh, verts, geo, gmax, opt.joints)) {
      const float there_and_back = gmax;
      if (Unfold(wh, verts, geo, &gmax, opt.joints)) folded = there_and_back;
    }
    // A piece that reaches only a few cm from where it meets the head (a bun, a scalp cap, a
    // hair tie) cannot hang: a chain would only bend it through the skull. It stays rigid on
    // the attachment, as the artist made it.
    const std::vector<int>& clump = verts;  // clang 14 cannot capture a structured binding
    auto keep_rigid = [&](const std::string& why) {
      result.rigid.push_back("kept a clump of " + std::to_string(clump.size()) +
                             " vertices rigid on the " + opt.attach + ": " + why);
      for (int w : clump) geo[w] = -1.0f;
    };
    if (gmax < opt.min_hang_length * cx.unit) {
      ++cx.unhung.too_short;
      cx.unhung.longest = std::max(cx.unhung.longest, gmax);
      keep_rigid("it reaches only " + cx.Cm(gmax) + " from its root (less than " +
                 cx.Cm(opt.min_hang_length * cx.unit) + " cannot hang)");
      continue;
    }
    // 5. Centre line; if it is still much longer than the clump's own geodesic extent it does not
    // run along the clump.
    const std::vector<glm::vec3> line = CentreLine(wh, verts, geo, gmax, opt.joints);
    if (line.size() < 2)
      return Status(StatusCode::kInvalidInput, "the selected hair has no length to follow");
    if (LineLength(line) > kMaxLineRatio * gmax) {
      ++cx.unhung.around;
      keep_rigid("its centre line (" + cx.Cm(LineLength(line)) +
                 ") would leave the clump (geodesic extent " + cx.Cm(gmax) + ")");
      continue;
    }
    // Joint count from the clump's length (its geodesic extent: the centroid line itself
    // zig-zags): about one segment per 8 cm at human scale, at least 3 joints, at most
    // FitOptions::joints. Many very short segments get very stiff (k grows as 1/L) and bend in
    // alternating kinks.
    const int n_joints =
        std::clamp(static_cast<int>(std::lround(gmax / (opt.segment_length * cx.unit))) + 1, 3,
                   std::max(3, opt.joints));
    // The first joint sits where the pinned band ends: the hair pivots where it starts to move,
    // not inside the band that stays on the head.
    FitChain ch;
    ch.full = LineLength(line);
    ch.pinned = opt.pin_fraction * ch.full;
    ch.pts = Resample(CutLine(line, ch.pinned), n_joints);
    for (int w : verts) chain_of[w] = static_cast<int>(chains->size());
    ch.gmax = gmax;
    ch.length = LineLength(ch.pts);
    // 6a. Joint nodes.
    AddJointNodes(cx, ch);
    result.changes.push_back(
        "added chain " + std::to_string(cx.chain_index) + ": " + std::to_string(n_joints) +
        " joints under \"" + cx.av.nodes[cx.attach].name + "\", " + std::to_string(verts.size()) +
        " hair vertices, length " + cx.Cm(ch.length) + " (geodesic extent " + cx.Cm(gmax) + ")");
    if (folded > 0.0f)
      result.changes.push_back("chain " + std::to_string(cx.chain_index) +
                               " folds back on itself (the layers of a shell joined at its lower "
                               "edge, or a curl): its far side shares the joints at the same "
                               "depth, " +
                               cx.Cm(gmax) + " of hair instead of a line of " + cx.Cm(folded) +
                               " there and back");
    if (both_ends)
      result.changes.push_back("chain " + std::to_string(cx.chain_index) +
                               " is pinned at both ends: its far end comes as near the \"" +
                               cx.av.nodes[cx.attach].name + "\" as its root");
    if (left_out > 0)
      result.changes.push_back("chain " + std::to_string(cx.chain_index) +
                               " hangs from its root alone: " + std::to_string(left_out) +
                               (left_out == 1 ? " vertex" : " vertices") +
                               " further along it, as near the \"" + cx.av.nodes[cx.attach].name +
                               "\", not pinned there");
    result.chain_vertices.push_back(static_cast<int>(verts.size()));
    chains->push_back(std::move(ch));
    ++cx.chain_index;
  }
  // A primitive whose clumps all stay rigid is skinned to the attachment; it is an error only
  // when nothing in the whole selection can hang (checked by the caller, which names the reason
  // recorded here).
  if (chains->empty() && result.rigid.empty())
    result.rigid.push_back(
        "kept a primitive rigid on the " + opt.attach + ": " +
        (first_error.empty() ? "no hair clump large enough to fit" : first_error));
  return Status::Ok();
}

// Skin weights on the welded surface: the attachment fading out after the pinned band, hat
// functions of the arc length between the joints, then diffusion over the mesh (the pinned band
// fixed), so the weight changes gradually across every edge even where the geodesic distance
// kinks. Per welded vertex: [attach, joint 0, joint 1, ...].
std::vector<std::vector<float>> ChainWeights(const FitOptions& opt, const WeldedHair& wh,
                                             const std::vector<float>& geo,
                                             const std::vector<int>& chain_of,
                                             const std::vector<FitChain>& chains) {
  std::vector<std::vector<float>> wts(wh.wpos.size());
  for (size_t c = 0; c < chains.size(); ++c) {
    const FitChain& ch = chains[c];
    const size_t n_inf = ch.nodes.size() + 1;
    // Root ramp: the attachment's weight fades over root_ramp_segments after the pinned band
    // (the arc solver turns a chain about its root, and the stretch at the root is about the
    // turn times the strand's width over the width of this fade); the joints share the rest
    // with hat functions. Measured alternatives are in docs/fit.md.
    const float ramp = ch.length / static_cast<float>(ch.nodes.size() - 1) * opt.root_ramp_segments;
    for (size_t w = 0; w < wh.wpos.size(); ++w) {
      if (chain_of[w] != static_cast<int>(c) || geo[w] < 0) continue;
      wts[w].assign(n_inf, 0.0f);
      // Arc length along the centre line, from the first joint (negative inside the pinned band).
      const float s = geo[w] / ch.gmax * ch.full - ch.pinned;
      internal::FadedChainWeights(ch.pts, s, 0.0f, ramp, &wts[w]);
    }
    internal::SmoothChainWeights(wh.adj, geo, chain_of, static_cast<int>(c),
                                 ch.pinned / ch.full * ch.gmax,
                                 ch.length / static_cast<float>(ch.nodes.size() - 1), &wts);
  }
  return wts;
}

// 6b. The mesh node's skin gains the attachment and the new joints; the primitive's old weights
// (and positions, when it was rigid) go to the undo record; every vertex gets its four largest
// influences, renormalised (vertices of rigid clumps: the attachment alone).
void SkinPrimitive(FitContext& cx, int mesh_index, int prim_index, const MeshInstance& inst,
                   const WeldedHair& wh, const std::vector<float>& geo,
                   const std::vector<int>& chain_of, const std::vector<FitChain>& chains) {
  Avatar& av = cx.av;
  const Rig& rig = cx.rig;
  Primitive& prim = av.meshes[mesh_index].primitives[prim_index];
  const int node_index = rig.source_node()[inst.node];
  Node& mesh_node = av.nodes[node_index];
  if (!cx.node_skin.contains(std::to_string(node_index)))
    cx.node_skin[std::to_string(node_index)] = mesh_node.skin;
  if (mesh_node.skin < 0) {
    Skin s;
    s.name = "HairFit";
    av.skins.push_back(s);
    mesh_node.skin = static_cast<int>(av.skins.size()) - 1;
    cx.result.changes.push_back("mesh \"" + av.meshes[mesh_index].name +
                                "\" was rigid: it is now skinned");
  }
  Skin& skin = av.skins[mesh_node.skin];
  if (!cx.skin_joints.contains(std::to_string(mesh_node.skin)))
    cx.skin_joints[std::to_string(mesh_node.skin)] = skin.joints.size();
  // Vertex positions are in the mesh's bind space, which need not be world space (e.g. a
  // centimetre armature under a scaled, rotated root): B maps bind space to the rest world, as
  // any existing joint's world * inverse bind does at rest. New joints get inverse(world) * B.
  glm::mat4 bind_to_world(1.0f);
  if (!skin.joints.empty() && skin.joints[0] < static_cast<int>(rig.node_to_rig().size()))
    bind_to_world = rig.rest_world()[rig.node_to_rig()[skin.joints[0]]] * skin.inverse_bind[0];
  auto joint_slot = [&](int node, const glm::mat4& world) {
    for (size_t i = 0; i < skin.joints.size(); ++i)
      if (skin.joints[i] == node) return static_cast<int>(i);
    skin.joints.push_back(node);
    skin.inverse_bind.push_back(glm::inverse(world) * bind_to_world);
    return static_cast<int>(skin.joints.size()) - 1;
  };
  const int attach_slot = joint_slot(cx.attach, rig.rest_world()[cx.attach_rig]);
  std::vector<std::vector<int>> slots(chains.size());
  for (size_t c = 0; c < chains.size(); ++c)
    for (size_t j = 0; j < chains[c].nodes.size(); ++j)
      slots[c].push_back(joint_slot(chains[c].nodes[j], chains[c].world[j]));
  // Record the primitive's old weights and positions, then erase and re-skin.
  Json rec = {
      {"mesh", mesh_index}, {"primitive", prim_index}, {"had_weights", !prim.joints.empty()}};
  Json jj = Json::array(), ww = Json::array(), pp = Json::array();
  for (const auto& j : prim.joints) jj.insert(jj.end(), {j.x, j.y, j.z, j.w});
  for (const auto& w : prim.weights) ww.insert(ww.end(), {w.x, w.y, w.z, w.w});
  rec["joints"] = jj;
  rec["weights"] = ww;
  const bool was_rigid = cx.node_skin[std::to_string(node_index)].get<int>() < 0;
  if (was_rigid) {
    for (const auto& p : prim.positions) pp.insert(pp.end(), {p.x, p.y, p.z});
    rec["positions"] = pp;
    prim.positions = wh.world;  // bind pose = rest world for the new skin
  }
  cx.prims.push_back(rec);
  const std::vector<std::vector<float>> wts = ChainWeights(cx.opt, wh, geo, chain_of, chains);
  prim.joints.assign(prim.positions.size(), glm::u16vec4(0));
  prim.weights.assign(prim.positions.size(), glm::vec4(0));
  for (size_t v = 0; v < prim.positions.size(); ++v) {
    const int w = wh.weld[v];
    const int c = chain_of[w];
    if (c < 0 || geo[w] < 0) {  // not part of a fitted clump: stays on the attachment
      prim.joints[v] = glm::u16vec4(attach_slot, 0, 0, 0);
      prim.weights[v] = glm::vec4(1, 0, 0, 0);
      continue;
    }
    std::vector<int> order(wts[w].size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + std::min<size_t>(4, order.size()), order.end(),
                      [&](int a, int b) { return wts[w][a] > wts[w][b]; });
    float total = 0;
    for (size_t k = 0; k < 4 && k < order.size(); ++k) total += wts[w][order[k]];
    for (size_t k = 0; k < 4 && k < order.size(); ++k) {
      const int inf = order[k];
      const float wt = total > 0 ? wts[w][inf] / total : (k == 0 ? 1.0f : 0.0f);
      if (wt <= 0.0f) continue;
      prim.joints[v][k] = static_cast<uint16_t>(inf == 0 ? attach_slot : slots[c][inf - 1]);
      prim.weights[v][k] = wt;
    }
  }
  cx.result.changes.push_back("erased and refitted the skin weights of " +
                              av.meshes[mesh_index].name + "/" + std::to_string(prim_index) + " (" +
                              std::to_string(prim.positions.size()) + " vertices)");
}

// The avatar's colliders at rest in world space (arc's convention: radii times the node's scale).
std::vector<WorldCollider> RestColliders(const FitContext& cx) {
  std::vector<WorldCollider> out;
  for (const Collider& c : cx.av.vrm.colliders) {
    const int rn = c.node >= 0 && static_cast<size_t>(c.node) < cx.rig.node_to_rig().size()
                       ? cx.rig.node_to_rig()[c.node]
                       : -1;
    const glm::mat4 m = rn >= 0 ? cx.rig.rest_world()[rn] : glm::mat4(1.0f);
    out.push_back(ColliderToWorld(c.shape, c.offset, c.tail, c.normal, c.radius, m, true));
  }
  return out;
}

// 7. A VRM 1.0 spring per chain, colliding with the existing colliders that are clear of it at
// rest. A collider that holds one of the chain's joints inside it at rest (an artist's oversized
// head sphere, a sphere meant to press another character's fringe down) would push the hair out
// at every step, in every runtime: the hair never rests where it was fitted and stretches. Such a
// collider is left out for that chain (VRM gives colliders per spring through groups, so a group
// that holds it is replaced, for that chain, by a new group of its other members), and a joint
// whose rest end lies within the default hit radius of a collider it keeps gets a hit radius that
// clears it.
void AddSprings(FitContext& cx, const std::vector<FitChain>& chains) {
  const std::vector<WorldCollider> cols = RestColliders(cx);
  const float default_hit = 0.015f * cx.unit;  // 1.5 cm at human scale, world metres
  for (size_t c = 0; c < chains.size(); ++c) {
    const FitChain& fc = chains[c];
    Spring s;
    s.name = "hairfit_" + std::to_string(cx.result.chains + static_cast<int>(c));
    JointLimit cone;
    cone.kind = JointLimit::Kind::kCone;
    cone.angle = FlipBudgetCone(static_cast<int>(fc.nodes.size()) - 1, cx.opt.max_flip_deg);
    // The end of the segment from each joint at rest: the next joint; in a VRM 0.x file the last
    // joint swings too, towards a virtual tail 7 cm along its own bone (the reader's rule, as in
    // three-vrm and UniVRM), so that tail counts as well.
    const size_t n = fc.nodes.size();
    std::vector<glm::vec3> ends;
    for (size_t k = 1; k < n; ++k) ends.emplace_back(fc.world[k][3]);
    const bool vrm0 = cx.av.vrm.version == VrmVersion::kV0;
    if (vrm0 && n >= 2) {
      const glm::vec3 t(glm::inverse(fc.world[n - 2]) * fc.world[n - 1][3]);
      const float len = glm::length(t);
      ends.emplace_back(fc.world[n - 1] *
                        glm::vec4(len > 0.0f ? t / len * 0.07f : glm::vec3(0.0f), 1.0f));
    }
    // Each collider's separation from those ends (bare, no hit radius).
    std::vector<float> sep(cols.size(), std::numeric_limits<float>::max());
    std::vector<std::vector<float>> end_sep(ends.size());
    for (size_t e = 0; e < ends.size(); ++e)
      for (size_t i = 0; i < cols.size(); ++i) {
        glm::vec3 unused;
        end_sep[e].push_back(PointContact(cols[i], ends[e], 0.0f, &unused));
        sep[i] = std::min(sep[i], end_sep[e][i]);
      }
    // The chain's root too, against a collider on a part of the body that moves against the
    // hair's attachment (a chest sphere around the nape under a head that turns): no swing
    // takes the root out of it, and the moving collider squeezes the first segment. A collider
    // that rides with the attachment (the head, its children) may hold the root: the ends'
    // tests above keep the hair out of it.
    const int attach = cx.av.nodes[fc.nodes[0]].parent;
    auto round_root = [&](size_t i) {
      glm::vec3 unused;
      if (!(PointContact(cols[i], glm::vec3(fc.world[0][3]), 0.0f, &unused) < 0.0f)) return false;
      const int node = cx.av.vrm.colliders[i].node;  // riding with the attachment: not counted
      return node < 0 || !(node == attach || internal::IsAncestor(cx.av, attach, node));
    };
    std::vector<uint8_t> held(cols.size(), 0);
    std::string left_out;
    for (size_t i = 0; i < cols.size(); ++i) {
      held[i] = sep[i] < 0.0f || round_root(i);
      if (!held[i]) continue;
      const Collider& col = cx.av.vrm.colliders[i];
      char radius[48] = "";
      if (col.shape != ColliderShape::kPlane)
        std::snprintf(radius, sizeof radius, " of radius %.3g m", col.radius);
      left_out += (left_out.empty() ? "" : ", ") + std::string(ColliderShapeName(col.shape)) +
                  radius + " on \"" +
                  (col.node >= 0 ? cx.av.nodes[col.node].name : std::string("?")) + "\" (" +
                  (sep[i] < 0.0f ? cx.Cm(-sep[i]) + " deep)" : "round the root)");
    }
    // Each segment's hit radius keeps a tenth of its end's rest clearance to every collider the
    // chain keeps, so none touches it at rest. VRM 0.x has one hit radius per spring: the least.
    std::vector<float> hit(n, default_hit);
    for (size_t e = 0; e < ends.size(); ++e)
      for (size_t i = 0; i < cols.size(); ++i)
        if (!held[i]) hit[e] = std::min(hit[e], std::max(0.0f, 0.9f * end_sep[e][i]));
    if (vrm0) std::fill(hit.begin(), hit.end(), *std::min_element(hit.begin(), hit.end()));
    int lowered = 0;
    float lowest = default_hit;
    for (size_t k = 0; k < n; ++k) {
      SpringJoint j;
      j.node = fc.nodes[k];
      j.stiffness = 1.0f;
      j.drag_force = 0.4f;
      j.gravity_power = 0.0f;
      if (hit[k] < default_hit) {
        ++lowered;
        lowest = std::min(lowest, hit[k]);
      }
      // Stored in the joint's local units (armatures may be scaled).
      j.hit_radius = hit[k] / std::max(glm::length(glm::vec3(fc.world[k][0])), 1e-9f);
      // A cone on every swinging joint, so the chain's chord cannot turn more than
      // max_flip_deg from its rest direction (FlipBudgetCone, docs/fit.md).
      if (cx.opt.max_flip_deg > 0.0f && k + 1 < n) j.limit = cone;
      s.joints.push_back(j);
    }
    const size_t groups = cx.av.vrm.collider_groups.size();
    for (size_t g = 0; g < groups; ++g) {
      const ColliderGroup& grp = cx.av.vrm.collider_groups[g];
      std::vector<int> kept;
      for (int i : grp.colliders)
        if (i < 0 || static_cast<size_t>(i) >= held.size() || !held[i]) kept.push_back(i);
      if (kept.size() == grp.colliders.size()) {
        s.collider_groups.push_back(static_cast<int>(g));
        continue;
      }
      if (kept.empty()) continue;
      // The same members as a group made for an earlier chain of this fit: that one.
      int same = -1;
      for (size_t h = cx.groups_before; h < cx.av.vrm.collider_groups.size() && same < 0; ++h)
        if (cx.av.vrm.collider_groups[h].colliders == kept) same = static_cast<int>(h);
      if (same < 0) {
        cx.av.vrm.collider_groups.push_back({grp.name + " (clear of fitted hair)", kept});
        same = static_cast<int>(cx.av.vrm.collider_groups.size()) - 1;
      }
      s.collider_groups.push_back(same);
    }
    if (!left_out.empty())
      cx.result.changes.push_back("spring \"" + s.name +
                                  "\" leaves out what holds its hair at rest: " + left_out +
                                  " (it would push the hair out at every step)");
    if (lowered > 0)
      cx.result.changes.push_back("spring \"" + s.name + "\": hit radius lowered on " +
                                  std::to_string(lowered) + " joint(s), to " + cx.Cm(lowest) +
                                  " at least, so that no collider touches it at rest");
    cx.av.vrm.springs.push_back(std::move(s));
  }
  cx.result.chains += static_cast<int>(chains.size());
}

// Steps 1-7 for one selected primitive.
Status FitPrimitive(FitContext& cx, int mesh_index, int prim_index) {
  const Rig& rig = cx.rig;
  const Primitive& prim = cx.av.meshes[mesh_index].primitives[prim_index];
  const MeshInstance* inst = nullptr;
  for (const MeshInstance& mi : rig.meshes())
    if (mi.mesh == mesh_index) inst = &mi;
  const std::string name = cx.av.meshes[mesh_index].name;
  if (!inst)
    return Status(StatusCode::kInvalidInput, "mesh \"" + name + "\" is not used by any node");
  if (prim.mode != 4 || prim.indices.size() < 3)
    return Status(StatusCode::kInvalidInput, "mesh \"" + name + "\" primitive " +
                                                 std::to_string(prim_index) + " has no triangles");
  std::vector<glm::vec3> world(prim.positions.size());
  if (inst->skin >= 0 && rig.skins()[inst->skin].joints.size() > cx.palette.size())
    cx.palette.resize(rig.skins()[inst->skin].joints.size());
  if (Status st = PosePrimitive(rig, *inst, prim, rig.rest_world(), cx.palette, world); !st.ok())
    return Status(st.code(), "mesh \"" + name + "\" primitive " + std::to_string(prim_index) +
                                 ": " + st.message());
  // Hair is fitted in metres at human scale; a vertex a thousand body heights away (finite, but
  // 1e20 m) would make distances overflow to infinity and the binning below meaningless.
  const float reach = 1000.0f * std::max(cx.unit, 1e-3f);
  for (size_t v = 0; v < world.size(); ++v)
    if (!(glm::length(world[v] - glm::vec3(rig.rest_world()[cx.attach_rig][3])) < reach))
      return Status(StatusCode::kInvalidInput,
                    "mesh \"" + name + "\" primitive " + std::to_string(prim_index) + ": vertex " +
                        std::to_string(v) + " lies more than " + std::to_string(reach) +
                        " m from the " + cx.opt.attach + " at rest");
  const WeldedHair wh = WeldHair(std::move(world), prim, cx.unit);
  std::vector<float> geo(wh.wpos.size(), -1.0f);
  std::vector<int> chain_of(wh.wpos.size(), -1);
  std::vector<FitChain> chains;
  if (Status st = PlaceChains(cx, wh, prim, geo, chain_of, &chains); !st.ok()) return st;
  SkinPrimitive(cx, mesh_index, prim_index, *inst, wh, geo, chain_of, chains);
  AddSprings(cx, chains);
  return Status::Ok();
}

// Artist springs that moved this mesh before and move nothing now (their hair was refitted):
// removed, so they neither cost time nor count in the measurement (kept in the undo record).
Json RemoveOrphanSprings(FitContext& cx, size_t old_springs,
                         const std::vector<uint8_t>& owned_before) {
  Json removed = Json::array();
  const std::vector<uint8_t> owned_after = fit::NodesOwningVertices(cx.av);
  std::vector<Spring> kept;
  for (size_t i = 0; i < cx.av.vrm.springs.size(); ++i) {
    const Spring& sp = cx.av.vrm.springs[i];
    if (i < old_springs && fit::SpringMovesMesh(sp, owned_before) &&
        !fit::SpringMovesMesh(sp, owned_after)) {
      removed.push_back({{"index", i}, {"spring", fit::SpringRecord(sp)}});
      cx.result.changes.push_back("removed spring \"" + sp.name +
                                  "\": the refitted hair no longer follows its joints");
      continue;
    }
    kept.push_back(sp);
  }
  cx.av.vrm.springs.swap(kept);
  return removed;
}

// The error when no clump of the selection hangs: the one reason, or with several clumps how
// many failed for which reason, with the figure and the option that decide it.
std::string NoChainReason(const FitContext& cx) {
  const auto& u = cx.unhung;
  const int total = u.too_short + u.around + u.small + u.apart;
  // PlaceChains records a reason in result.rigid whenever nothing hangs.
  HS_ASSERT(!cx.result.rigid.empty());
  if (total <= 1) return "no clump of the selected hair can hang (" + cx.result.rigid.back() + ")";
  std::vector<std::string> parts;
  auto count = [](int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  if (u.too_short)
    parts.push_back(count(u.too_short, "reaches", "reach") + " less than " +
                    cx.Cm(cx.opt.min_hang_length * cx.unit) + " from the head (the longest " +
                    cx.Cm(u.longest) + "; --min-hang sets that length)");
  if (u.around)
    parts.push_back(count(u.around, "runs", "run") + " round the head (a line through " +
                    (u.around == 1 ? "it" : "them") + " would leave the hair)");
  if (u.small)
    parts.push_back(count(u.small, "has", "have") + " fewer than " +
                    std::to_string(cx.opt.min_triangles) + " triangles");
  if (u.apart)
    parts.push_back(count(u.apart, "does", "do") + " not touch the " + cx.opt.attach +
                    " (the closest " + cx.Cm(u.closest) + " from it)");
  std::string why;
  for (size_t i = 0; i < parts.size(); ++i)
    why += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return "no clump of the selected hair can hang: of its " + std::to_string(total) + " clumps, " +
         why;
}

}  // namespace

Result<FitResult> FitHairChains(Avatar& av, const HairSelection& sel, const FitOptions& opt) {
  if (av.unknown_extensions.count(kFitUndoKey))
    return Status(StatusCode::kUnsupported,
                  "this avatar was already fitted (it carries the fitter's undo record); undo that "
                  "fit first");
  if (opt.joints < 2 || opt.joints > 64)
    return Status(StatusCode::kInvalidInput,
                  "FitOptions::joints is " + std::to_string(opt.joints) + ", must be 2..64");
  auto rig_r = BuildRig(av);
  if (!rig_r.ok()) return rig_r.status();
  const Rig& rig = rig_r.value();
  const HumanoidMap hm = MatchHumanoid(av);
  FitOptions o = opt;
  int attach = opt.attach_node;
  if (attach >= 0) {
    if (attach >= static_cast<int>(av.nodes.size()))
      return Status(StatusCode::kInvalidInput,
                    "FitOptions::attach_node " + std::to_string(attach) + " is not a node");
    o.attach = "\"" + av.nodes[attach].name + "\"";
  } else {
    auto attach_it = hm.bones.find(opt.attach);
    if (attach_it == hm.bones.end())
      return Status(StatusCode::kUnsupported, "missing humanoid role \"" + opt.attach +
                                                  "\" (no VRM humanoid or known skeleton names)");
    attach = attach_it->second;
  }
  if (!(opt.unit >= 0.0f) || (opt.unit == 0.0f && hm.bones.size() < 2))
    return Status(StatusCode::kInvalidInput,
                  "the avatar has no humanoid bones to measure its size by (FitOptions::unit)");
  FitResult result;
  FitContext cx(av, rig, o, hm, result);
  cx.attach = attach;
  cx.attach_rig = rig.node_to_rig()[cx.attach];
  cx.unit = opt.unit > 0.0f ? opt.unit : internal::HumanoidUnit(hm, rig);
  cx.groups_before = av.vrm.collider_groups.size();
  if (Status st = FindAttachmentSurface(cx, sel); !st.ok()) return st;

  const std::vector<uint8_t> owned_before = fit::NodesOwningVertices(av);
  Json undo = {{"nodes_before", av.nodes.size()},
               {"skins_before", av.skins.size()},
               {"springs_before", av.vrm.springs.size()},
               {"collider_groups_before", av.vrm.collider_groups.size()},
               {"vrm_version_before", static_cast<int>(av.vrm.version)},
               {"humanoid_was_empty", av.vrm.humanoid.empty()}};
  for (const auto& [mesh_index, prim_index] : sel.primitives)
    if (Status st = FitPrimitive(cx, mesh_index, prim_index); !st.ok()) return st;
  if (result.chains == 0) return Status(StatusCode::kInvalidInput, NoChainReason(cx));
  if (av.vrm.version == VrmVersion::kNone) av.vrm.version = VrmVersion::kV1;
  if (av.vrm.humanoid.empty()) {
    av.vrm.humanoid = hm.bones;
    result.changes.push_back("VRM humanoid taken from the \"" + hm.family +
                             "\" name map (needed to write .vrm)");
  }
  if (!cx.have_surface)
    result.warnings.push_back("no geometry is skinned to \"" + av.nodes[cx.attach].name +
                              "\": the root was taken as the hair nearest to the bone itself");
  undo["removed_springs"] =
      opt.remove_orphan_springs
          ? RemoveOrphanSprings(cx, undo["springs_before"].get<size_t>(), owned_before)
          : Json::array();
  undo["children"] = cx.children;
  undo["skin_joints"] = cx.skin_joints;
  undo["node_skin"] = cx.node_skin;
  undo["primitives"] = cx.prims;
  av.unknown_extensions[kFitUndoKey] = undo.dump();
  return result;
}

Status UndoFit(Avatar& av) {
  bool undone = false;
  if (av.unknown_extensions.count(fit::kReweightUndoKey)) {
    Status st = UndoReweight(av);
    if (!st.ok()) return st;
    undone = true;
  }
  if (av.unknown_extensions.count(fit::kColliderUndoKey)) {
    Status st = UndoColliderFit(av);
    if (!st.ok()) return st;
    undone = true;
  }
  auto it = av.unknown_extensions.find(kFitUndoKey);
  if (it == av.unknown_extensions.end())
    return undone ? Status::Ok()
                  : Status(StatusCode::kInvalidInput, "no fit to undo in this avatar");
  const Json u = Json::parse(it->second, nullptr, false);
  if (u.is_discarded())
    return Status(StatusCode::kInvalidInput, std::string(kFitUndoKey) + ": not valid JSON");
  // The record comes from a file, so nothing in it is trusted: every index and length is
  // checked against the avatar (an undo only ever shrinks it back), and the work is done on a
  // copy that replaces the avatar only when all of it succeeded.
  Avatar out = av;
  auto fail = [](const std::string& what) { throw std::runtime_error(what); };
  try {
    const size_t nodes = u.at("nodes_before").get<size_t>();
    const size_t skins_before = u.at("skins_before").get<size_t>();
    if (nodes > out.nodes.size()) fail("nodes_before: more nodes than the avatar has");
    if (skins_before > out.skins.size()) fail("skins_before: more skins than the avatar has");
    for (auto c = u.at("children").begin(); c != u.at("children").end(); ++c) {
      auto kids = c.value().get<std::vector<int>>();
      for (int k : kids)
        if (k < 0 || static_cast<size_t>(k) >= nodes) fail("children: node index out of range");
      out.nodes.at(std::stoul(c.key())).children = std::move(kids);
    }
    for (auto p = u.at("primitives").rbegin(); p != u.at("primitives").rend(); ++p) {
      Primitive& prim = out.meshes.at(p->at("mesh").get<size_t>())
                            .primitives.at(p->at("primitive").get<size_t>());
      const size_t nv = prim.positions.size();
      const auto j = p->at("joints").get<std::vector<uint16_t>>();
      const auto w = p->at("weights").get<std::vector<float>>();
      // Either 4 joints and weights per vertex, or none: hair that was not skinned before.
      const size_t had = j.empty() && w.empty() ? 0 : nv;
      if (j.size() != 4 * had || w.size() != 4 * had)
        fail("primitives: joints/weights do not have 4 values per vertex");
      prim.joints.resize(had);
      prim.weights.resize(had);
      for (size_t v = 0; v < had; ++v) {
        prim.joints[v] = {j[4 * v], j[4 * v + 1], j[4 * v + 2], j[4 * v + 3]};
        prim.weights[v] = {w[4 * v], w[4 * v + 1], w[4 * v + 2], w[4 * v + 3]};
        if (!std::isfinite(glm::dot(prim.weights[v], prim.weights[v])))
          fail("primitives: a weight is not finite");
      }
      if (p->contains("positions")) {
        const auto pos = p->at("positions").get<std::vector<float>>();
        if (pos.size() != 3 * nv) fail("primitives: positions do not have 3 values per vertex");
        for (size_t v = 0; v < nv; ++v)
          prim.positions[v] = {pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]};
      }
    }
    for (auto s = u.at("skin_joints").begin(); s != u.at("skin_joints").end(); ++s) {
      Skin& skin = out.skins.at(std::stoul(s.key()));
      const size_t n = s.value().get<size_t>();
      if (n > skin.joints.size()) fail("skin_joints: more joints than the skin has");
      skin.joints.resize(n);
      skin.inverse_bind.resize(n);
    }
    for (auto s = u.at("node_skin").begin(); s != u.at("node_skin").end(); ++s) {
      const int skin = s.value().get<int>();
      if (skin < -1 || skin >= static_cast<int>(skins_before))
        fail("node_skin: skin index out of range");
      out.nodes.at(std::stoul(s.key())).skin = skin;
    }
    out.skins.resize(skins_before);
    out.nodes.resize(nodes);
    // Drop the fitted springs, then put the removed artist springs back at their places.
    const Json no_removed = Json::array();
    const Json& removed = u.contains("removed_springs") ? u.at("removed_springs") : no_removed;
    const size_t before = u.at("springs_before").get<size_t>();
    if (removed.size() > before) fail("removed_springs: more than there were");
    if (before - removed.size() > out.vrm.springs.size())
      fail("springs_before: more springs than the avatar has");
    out.vrm.springs.resize(before - removed.size());
    // The groups the fit made for its chains (records from before it made any have no count).
    if (u.contains("collider_groups_before")) {
      const size_t groups = u.at("collider_groups_before").get<size_t>();
      if (groups > out.vrm.collider_groups.size())
        fail("collider_groups_before: more groups than the avatar has");
      out.vrm.collider_groups.resize(groups);
      for (const Spring& sp : out.vrm.springs)
        for (int g : sp.collider_groups)
          if (g < 0 || static_cast<size_t>(g) >= groups)
            fail("collider_groups_before: a kept spring uses a group the undo removes");
    }
    for (const Json& r : removed) {
      const size_t at = r.at("index").get<size_t>();
      if (at > out.vrm.springs.size()) fail("removed_springs: index out of range");
      Spring sp = fit::SpringFromRecord(r.at("spring"));
      for (const SpringJoint& jt : sp.joints)
        if (jt.node < 0 || static_cast<size_t>(jt.node) >= nodes)
          fail("removed_springs: joint node out of range");
      for (int g : sp.collider_groups)
        if (g < 0 || static_cast<size_t>(g) >= out.vrm.collider_groups.size())
          fail("removed_springs: collider group out of range");
      if (sp.center < -1 || sp.center >= static_cast<int>(nodes))
        fail("removed_springs: center out of range");
      out.vrm.springs.insert(out.vrm.springs.begin() + static_cast<long>(at), std::move(sp));
    }
    const int version = u.at("vrm_version_before").get<int>();
    if (version < 0 || version > 2) fail("vrm_version_before: not 0, 1 or 2");
    out.vrm.version = static_cast<VrmVersion>(version);
    if (u.at("humanoid_was_empty").get<bool>()) out.vrm.humanoid.clear();
    // What the restored avatar references must exist in it.
    for (const Node& n : out.nodes)
      if (n.skin >= static_cast<int>(out.skins.size()) ||
          n.mesh >= static_cast<int>(out.meshes.size()))
        fail("a node refers to a skin or mesh that the undo removes");
    for (const Skin& sk : out.skins)
      for (int jn : sk.joints)
        if (jn < 0 || static_cast<size_t>(jn) >= out.nodes.size())
          fail("a skin joint refers to a node that the undo removes");
    for (const auto& [role, node] : out.vrm.humanoid)
      if (node < 0 || static_cast<size_t>(node) >= out.nodes.size())
        fail("humanoid bone \"" + role + "\" refers to a node that the undo removes");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidInput, std::string(kFitUndoKey) + ": " + e.what());
  }
  out.unknown_extensions.erase(kFitUndoKey);
  av = std::move(out);
  return Status::Ok();
}

}  // namespace hairswing
