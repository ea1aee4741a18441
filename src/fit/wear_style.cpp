// Wearing a hairstyle on another character (include/hairswing/wear.h, docs/wear.md). All work is
// on rest poses in world space:
//   1. the hairstyle: the selected primitives of the hair file, posed at rest;
//   2. the heads: the vertices that follow each head bone (and its non-spring descendants), a box
//      in the character's axes: its top at the back of the head, centred left-right, is the
//      anchor (a snout or a beak does not move the hair forward), and the widths set the scale. A
//      hair-only file has no head: rays cast from inside the hairstyle find its inner surface and
//      an ellipsoid under that surface stands in for the head it was made for;
//   3. placement: a similarity (the two frames, a uniform scale from the widths, anchor onto
//      anchor);
//   4. scalp fit: rays from the target head's centre over a direction grid measure the target
//      scalp, the source scalp (placed with the hair) and the hairstyle's inner surface; where the
//      hairstyle lay on its own scalp its inner surface goes onto the target's at the clearance,
//      elsewhere it keeps its gap. The per-direction offsets are filled and smoothed over the
//      sphere and every vertex moves along its direction from the centre by the offset there, so
//      a lock keeps its thickness and the outer shape its proportions; three rounds, then any
//      vertex still inside the head is pushed out on its own (counted);
//   5. binding: a new mesh skinned wholly to the target's head, materials and their textures
//      copied; with fit_chains, a head collider when the target has none and FitHairChains.
// What was added is recorded in the root extension HAIRSWING_wear_undo for UndoWear.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <tuple>

#include "fit/joint_record.h"
#include "fit/owned_nodes.h"
#include "hairswing/measure.h"
#include "hairswing/names.h"
#include "hairswing/retarget.h"
#include "hairswing/rig.h"
#include "hairswing/wear.h"

namespace hairswing {
namespace {

using Json = nlohmann::json;
constexpr const char* kWearKey = "HAIRSWING_wear_undo";
constexpr float kPi = std::numbers::pi_v<float>;

struct Soup {  // triangles in world space
  std::vector<glm::vec3> pos;
  std::vector<uint32_t> idx;
};

Status Fail(const std::string& m) { return Status(StatusCode::kInvalidInput, m); }

Result<std::vector<glm::vec3>> RestPositions(const Avatar& av, const Rig& rig,
                                             const MeshInstance& inst, const Primitive& prim) {
  std::vector<glm::mat4> palette(inst.skin >= 0 ? rig.skins()[inst.skin].joints.size() : 0);
  std::vector<glm::vec3> out(prim.positions.size());
  Status st = PosePrimitive(rig, inst, prim, rig.rest_world(), palette, out);
  if (!st.ok())
    return Status(st.code(), "mesh \"" + av.meshes[inst.mesh].name + "\": " + st.message());
  for (const glm::vec3& p : out)
    if (!std::isfinite(p.x + p.y + p.z))
      return Fail("mesh \"" + av.meshes[inst.mesh].name +
                  "\" has a vertex that is not finite at rest");
  return out;
}

// The rig node each vertex follows most (the mesh's node when it is rigid).
int DominantNode(const Rig& rig, const MeshInstance& inst, const Primitive& prim, size_t v) {
  if (inst.skin < 0 || prim.joints.size() <= v || prim.weights.size() <= v) return inst.node;
  const RigSkin& sk = rig.skins()[inst.skin];
  int best = -1;
  float bw = 0.0f;
  for (int k = 0; k < 4; ++k)
    if (prim.weights[v][k] > bw && prim.joints[v][k] < sk.joints.size()) {
      bw = prim.weights[v][k];
      best = sk.joints[prim.joints[v][k]];
    }
  return best;
}

bool LooksLikeHead(std::string name) {
  name = ToLower(name);
  const size_t colon = name.find_last_of(":|");
  if (colon != std::string::npos) name = name.substr(colon + 1);
  const size_t at = name.find("head");
  if (at == std::string::npos) return false;
  const auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  if (at > 0 && letter(name[at - 1])) return false;                // "forehead"
  if (at + 4 < name.size() && letter(name[at + 4])) return false;  // "headtop", "headnub"
  // After a separator, a rig's side or layer tag is fine ("Head_M", "head.x", "head_01"); the
  // bones that only mark where the head ends are not ("head_end", "Head_Top", "head_nub").
  std::string word;
  for (size_t i = at + 4; i <= name.size(); ++i) {
    if (i < name.size() && letter(name[i])) {
      word += name[i];
      continue;
    }
    for (const char* end : {"end", "top", "nub", "tip", "tail", "site", "null", "ik", "target"})
      if (word == end) return false;
    word.clear();
  }
  return true;
}

// The character's axes: its root node's, when they keep +Y up within 45 degrees; else world.
glm::mat3 CharacterFrame(const Avatar& av, const Rig& rig, int node, std::string* how) {
  int top = node;
  while (av.nodes[top].parent >= 0) top = av.nodes[top].parent;
  const glm::mat4& w = rig.rest_world()[rig.node_to_rig()[top]];
  glm::vec3 x(w[0]), y(w[1]);
  if (glm::length(x) > 1e-12f && glm::length(y) > 1e-12f) {
    x = glm::normalize(x);
    y = glm::normalize(y - x * glm::dot(x, y));
    const glm::vec3 z = glm::cross(x, y);
    if (std::isfinite(z.x + z.y + z.z) && y.y > 0.7071f) {
      *how = "the axes of root node \"" + av.nodes[top].name + "\"";
      return glm::mat3(x, y, z);
    }
  }
  *how = "world axes";
  return glm::mat3(1.0f);
}

// The order statistic at floor(q * n): no interpolation, unlike core's Quantile (FrameBox's
// figures stay what they were).
float NearestRankQuantile(std::vector<float> v, float q) {
  if (v.empty()) return 0.0f;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<float>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

// Box of points in frame coordinates, robust to a few stray vertices (1 % / 99 %).
void FrameBox(const std::vector<glm::vec3>& pts, const glm::mat3& f, float q, glm::vec3* lo,
              glm::vec3* hi) {
  std::vector<float> c[3];
  for (const glm::vec3& p : pts) {
    const glm::vec3 l = glm::transpose(f) * p;
    for (int k = 0; k < 3; ++k) c[k].push_back(l[k]);
  }
  for (int k = 0; k < 3; ++k) {
    (*lo)[k] = NearestRankQuantile(c[k], q);
    (*hi)[k] = NearestRankQuantile(c[k], 1.0f - q);
  }
}

void SetBox(WearHead* h, const glm::vec3& lo, const glm::vec3& hi) {
  const glm::vec3 mid = 0.5f * (lo + hi);
  h->size = hi - lo;
  h->centre = h->frame * mid;
  h->anchor = h->frame * glm::vec3(mid.x, hi.y, lo.z);
}

// The head's vertices (following the head node or a descendant that is not a spring joint) and
// its triangles whose three corners do.
struct HeadGeometry {
  std::vector<glm::vec3> vertices;
  Soup soup;
};

Result<HeadGeometry> CollectHead(const Avatar& av, const Rig& rig, int head,
                                 const HairSelection* exclude) {
  const std::vector<uint8_t> in_head = fit::RigidPart(rig, rig.node_to_rig()[head]);
  HeadGeometry g;
  std::vector<uint8_t> done(av.meshes.size(), 0);
  for (const MeshInstance& inst : rig.meshes()) {
    if (done[inst.mesh]) continue;  // a mesh drawn twice counts once
    done[inst.mesh] = 1;
    for (size_t pi = 0; pi < av.meshes[inst.mesh].primitives.size(); ++pi) {
      const Primitive& prim = av.meshes[inst.mesh].primitives[pi];
      if (prim.mode != 4) continue;
      if (exclude &&
          std::find(exclude->primitives.begin(), exclude->primitives.end(),
                    std::make_pair(inst.mesh, static_cast<int>(pi))) != exclude->primitives.end())
        continue;
      auto pos = RestPositions(av, rig, inst, prim);
      if (!pos.ok()) return pos.status();
      std::vector<int64_t> at(pos->size(), -1);
      for (size_t v = 0; v < pos->size(); ++v) {
        const int n = DominantNode(rig, inst, prim, v);
        if (n < 0 || !in_head[n]) continue;
        at[v] = static_cast<int64_t>(g.soup.pos.size());
        g.soup.pos.push_back((*pos)[v]);
        g.vertices.push_back((*pos)[v]);
      }
      for (size_t t = 0; t + 2 < prim.indices.size(); t += 3) {
        const uint32_t a = prim.indices[t], b = prim.indices[t + 1], c = prim.indices[t + 2];
        if (a >= at.size() || b >= at.size() || c >= at.size()) continue;
        if (at[a] < 0 || at[b] < 0 || at[c] < 0) continue;
        g.soup.idx.insert(g.soup.idx.end(),
                          {static_cast<uint32_t>(at[a]), static_cast<uint32_t>(at[b]),
                           static_cast<uint32_t>(at[c])});
      }
    }
  }
  if (g.vertices.size() < 20 || g.soup.idx.empty())
    return Fail("no head found: no geometry follows head bone \"" + av.nodes[head].name + "\"");
  return g;
}

// The hairstyle: its primitives, posed at rest.
struct HairPiece {
  int mesh = -1, prim = -1;
  std::vector<glm::vec3> world, normals;
};

Result<std::vector<HairPiece>> CollectHair(const Avatar& av, const Rig& rig,
                                           const HairSelection& sel) {
  std::vector<HairPiece> out;
  for (const auto& [m, p] : sel.primitives) {
    const MeshInstance* inst = nullptr;
    for (const MeshInstance& i : rig.meshes())
      if (i.mesh == m) {
        inst = &i;
        break;
      }
    if (!inst) return Fail("hair mesh \"" + av.meshes[m].name + "\" is not used by any node");
    const Primitive& prim = av.meshes[m].primitives[p];
    if (prim.mode != 4 || prim.indices.size() < 3) continue;
    auto pos = RestPositions(av, rig, *inst, prim);
    if (!pos.ok()) return pos.status();
    HairPiece h{m, p, std::move(*pos), {}};
    h.normals.resize(prim.normals.size());
    std::vector<glm::mat4> palette(inst->skin >= 0 ? rig.skins()[inst->skin].joints.size() : 0);
    if (inst->skin >= 0) ComputeSkinPalette(rig, inst->skin, rig.rest_world(), palette);
    for (size_t v = 0; v < prim.normals.size() && v < h.world.size(); ++v) {
      glm::mat3 m3(rig.rest_world()[inst->node]);
      if (inst->skin >= 0 && v < prim.joints.size() && v < prim.weights.size()) {
        glm::mat4 sum(0.0f);
        for (int k = 0; k < 4; ++k)
          if (prim.joints[v][k] < palette.size())
            sum += prim.weights[v][k] * palette[prim.joints[v][k]];
        m3 = glm::mat3(sum);
      }
      const glm::vec3 n = glm::transpose(glm::inverse(m3)) * prim.normals[v];
      h.normals[v] = glm::length(n) > 1e-20f ? glm::normalize(n) : prim.normals[v];
    }
    out.push_back(std::move(h));
  }
  if (out.empty()) return Fail("the hairstyle has no triangles");
  return out;
}

Soup HairSoup(const std::vector<HairPiece>& hair, const Avatar& av) {
  Soup s;
  for (const HairPiece& h : hair) {
    const uint32_t base = static_cast<uint32_t>(s.pos.size());
    s.pos.insert(s.pos.end(), h.world.begin(), h.world.end());
    const auto& idx = av.meshes[h.mesh].primitives[h.prim].indices;
    for (size_t t = 0; t + 2 < idx.size(); t += 3)
      if (idx[t] < h.world.size() && idx[t + 1] < h.world.size() && idx[t + 2] < h.world.size())
        s.idx.insert(s.idx.end(), {base + idx[t], base + idx[t + 1], base + idx[t + 2]});
  }
  return s;
}

// Evenly spread unit directions (a Fibonacci sphere).
std::vector<glm::vec3> SphereDirections(int n) {
  std::vector<glm::vec3> d;
  const float golden = kPi * (3.0f - std::sqrt(5.0f));
  for (int i = 0; i < n; ++i) {
    const float y = 1.0f - 2.0f * (static_cast<float>(i) + 0.5f) / static_cast<float>(n);
    const float r = std::sqrt(std::max(0.0f, 1.0f - y * y));
    d.emplace_back(r * std::cos(golden * i), y, r * std::sin(golden * i));
  }
  return d;
}

Soup Ellipsoid(const glm::mat3& f, const glm::vec3& centre_local, const glm::vec3& radii) {
  Soup s;
  const int nt = 24, np = 48;
  for (int i = 0; i <= nt; ++i)
    for (int j = 0; j < np; ++j) {
      const float th = kPi * i / nt, ph = 2.0f * kPi * j / np;
      const glm::vec3 u(std::sin(th) * std::cos(ph), std::cos(th), std::sin(th) * std::sin(ph));
      s.pos.push_back(f * (centre_local + u * radii));
    }
  for (int i = 0; i < nt; ++i)
    for (int j = 0; j < np; ++j) {
      const uint32_t a = i * np + j, b = i * np + (j + 1) % np, c = a + np, d = b + np;
      s.idx.insert(s.idx.end(), {a, c, b, b, c, d});
    }
  return s;
}

// A hair-only file: rays from inside the hairstyle find its inner surface; the head it was made
// for is the box under the upper part of that surface, and an ellipsoid in that box stands in
// for its scalp.
Status EstimateHeadFromHair(const Soup& hair, WearHead* head, Soup* scalp) {
  const glm::mat3& f = head->frame;
  glm::vec3 lo, hi;
  FrameBox(hair.pos, f, 0.01f, &lo, &hi);
  const float e = hi.x - lo.x;
  if (!(e > 0.0f)) return Fail("the hairstyle has no width");
  OcclusionCaster caster;
  caster.SetMesh(hair.pos, hair.idx);
  const std::vector<glm::vec3> dirs = SphereDirections(800);
  glm::vec3 c(0.5f * (lo.x + hi.x), hi.y - 0.45f * e, 0.5f * (lo.z + hi.z));
  std::vector<glm::vec3> inner;
  for (int round = 0; round < 2; ++round) {
    inner.clear();
    int upper = 0, hits = 0;
    for (const glm::vec3& d : dirs) {
      const float t = caster.DepthBehind(f * c, f * d);
      if (d.y > 0.3f) {
        ++upper;
        hits += t > 0.0f;
      }
      if (t > 0.0f && d.y > -0.2f) inner.push_back(f * c + t * (f * d));
    }
    if (hits < 0.7f * upper || inner.size() < 50)
      return Fail("the hairstyle has no inner surface (it does not wrap around a head: " +
                  std::to_string(100 * hits / std::max(upper, 1)) +
                  " % of the rays up from inside it meet it); name the character it was made for "
                  "(--source-head)");
    FrameBox(inner, f, 0.02f, &lo, &hi);
    const float w = hi.x - lo.x, dz = hi.z - lo.z;
    c = glm::vec3(0.5f * (lo.x + hi.x), hi.y - 0.6f * 0.5f * (w + dz), 0.5f * (lo.z + hi.z));
  }
  const float w = hi.x - lo.x, dz = hi.z - lo.z, ry = 0.6f * 0.5f * (w + dz);
  const glm::vec3 centre(0.5f * (lo.x + hi.x), hi.y - ry, 0.5f * (lo.z + hi.z));
  *scalp = Ellipsoid(f, centre, glm::vec3(0.5f * w, ry, 0.5f * dz));
  SetBox(head, glm::vec3(lo.x, hi.y - 2.0f * ry, lo.z), hi);
  head->vertices = static_cast<int>(inner.size());
  head->from = "the hairstyle's inner surface (" + std::to_string(inner.size()) +
               " points; no head in the hair file)";
  return Status::Ok();
}

Status HeadFromCharacter(const Avatar& av, const std::string& name, const HairSelection* exclude,
                         WearHead* head, Soup* soup, std::vector<glm::vec3>* vertices) {
  auto rig = BuildRig(av);
  if (!rig.ok()) return rig.status();
  auto node = FindHeadNode(av, name);
  if (!node.ok()) return node.status();
  auto g = CollectHead(av, *rig, *node, exclude);
  if (!g.ok()) return g.status();
  std::string how;
  head->frame = CharacterFrame(av, *rig, *node, &how);
  head->node = *node;
  glm::vec3 lo, hi;
  FrameBox(g->vertices, head->frame, 0.01f, &lo, &hi);
  SetBox(head, lo, hi);
  head->vertices = static_cast<int>(g->vertices.size());
  head->from = "head bone \"" + av.nodes[*node].name + "\" (" + std::to_string(g->vertices.size()) +
               " vertices, " + how + ")";
  *soup = std::move(g->soup);
  if (vertices) *vertices = std::move(g->vertices);
  return Status::Ok();
}

// The share of the opening that a target's own hair closes (when it is its skull) that the new
// hair may leave bare for the own hair to be hidden all the same, by solid angle above the head's
// centre. Measured with the Quaternius haircuts on the soldier and quaternius-casual: the cuts
// that cover the head leave 0-9 % bare (at the edges of the opening), the bun and the mohawk 43-45
// % (docs/wear.md).
constexpr double kOwnHairLeftBare = 0.2;

// Length of the head's open rim in the top quarter of its box, over the head's width: 0 for a
// skull that the skin closes over the crown (the Quaternius men), 1.1-1.6 for skin that stops at
// the hairline, where the character's own hair is the skull (the Quaternius soldier; 0.7 on
// women_SciFi, whose hair raises its head by only 3 %). Corners are welded by position first (0.1
// mm), so that seams of normals or texture coordinates, and the edges between primitives, do not
// read as rims.
float TopRim(const Soup& soup, const WearHead& head) {
  if (!(head.size.x > 0.0f)) return 0.0f;
  const glm::mat3 to_local = glm::transpose(head.frame);
  const float high = (to_local * head.centre).y + 0.25f * head.size.y;
  std::map<std::tuple<int64_t, int64_t, int64_t>, uint32_t> weld;
  std::vector<uint32_t> id(soup.pos.size());
  for (size_t v = 0; v < soup.pos.size(); ++v) {
    const glm::vec3 q = soup.pos[v] * 1e4f;
    const auto key = std::make_tuple(std::llround(q.x), std::llround(q.y), std::llround(q.z));
    id[v] = weld.emplace(key, static_cast<uint32_t>(weld.size())).first->second;
  }
  std::map<std::pair<uint32_t, uint32_t>, std::pair<int, std::pair<uint32_t, uint32_t>>> edges;
  for (size_t t = 0; t + 2 < soup.idx.size(); t += 3)
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = soup.idx[t + k], b = soup.idx[t + (k + 1) % 3];
      auto& e = edges[std::minmax(id[a], id[b])];
      e = {e.first + 1, {a, b}};
    }
  float rim = 0.0f;
  for (const auto& [key, e] : edges) {
    const glm::vec3 a = soup.pos[e.second.first], b = soup.pos[e.second.second];
    if (e.first == 1 && (to_local * a).y > high && (to_local * b).y > high)
      rim += glm::length(b - a);
  }
  return rim / head.size.x;
}

// The direction grid of the scalp fit, in the target's frame around the head's centre.
struct Grid {
  static constexpr int kT = 36, kP = 72;
  glm::mat3 f{1.0f};
  glm::vec3 c{0.0f};
  glm::vec3 Dir(int i, int j) const {
    const float th = kPi * (static_cast<float>(i) + 0.5f) / kT;
    const float ph = -kPi + 2.0f * kPi * (static_cast<float>(j) + 0.5f) / kP;
    return f * glm::vec3(std::sin(th) * std::cos(ph), std::cos(th), std::sin(th) * std::sin(ph));
  }
  // Continuous bin coordinates of a direction.
  void Coords(const glm::vec3& u, float* ti, float* pj) const {
    const glm::vec3 l = glm::transpose(f) * u;
    const float th = std::acos(std::clamp(l.y, -1.0f, 1.0f));
    const float ph = std::atan2(l.z, l.x);
    *ti = th / kPi * kT - 0.5f;
    *pj = (ph + kPi) / (2.0f * kPi) * kP - 0.5f;
  }
  float Sample(const std::vector<float>& g, const glm::vec3& u) const {
    float ti, pj;
    Coords(u, &ti, &pj);
    ti = std::clamp(ti, 0.0f, static_cast<float>(kT - 1));
    const int i0 = std::min(static_cast<int>(ti), kT - 2);
    const float ft = ti - i0;
    const float pf = std::floor(pj);
    const float fp = pj - pf;
    const int j0 = ((static_cast<int>(pf) % kP) + kP) % kP, j1 = (j0 + 1) % kP;
    const auto at = [&](int i, int j) { return g[i * kP + j]; };
    return (1 - ft) * ((1 - fp) * at(i0, j0) + fp * at(i0, j1)) +
           ft * ((1 - fp) * at(i0 + 1, j0) + fp * at(i0 + 1, j1));
  }
  int Nearest(const glm::vec3& u) const {
    float ti, pj;
    Coords(u, &ti, &pj);
    const int i = std::clamp(static_cast<int>(std::lround(ti)), 0, kT - 1);
    const int j = ((static_cast<int>(std::lround(pj)) % kP) + kP) % kP;
    return i * kP + j;
  }
};

// Two passes of blending every cell half with the mean of its four neighbours.
void SmoothCells(std::vector<float>& g) {
  const int nt = Grid::kT, np = Grid::kP;
  std::vector<float> tmp(g.size());
  for (int it = 0; it < 2; ++it) {
    for (int i = 0; i < nt; ++i)
      for (int j = 0; j < np; ++j) {
        const int up = std::max(i - 1, 0), dn = std::min(i + 1, nt - 1);
        tmp[i * np + j] = 0.5f * g[i * np + j] +
                          0.125f * (g[up * np + j] + g[dn * np + j] + g[i * np + (j + 1) % np] +
                                    g[i * np + (j + np - 1) % np]);
      }
    g.swap(tmp);
  }
}

// Fills the unknown cells from the known ones (Laplace, known cells held) and smooths the whole.
void FillAndSmooth(std::vector<float>& g, const std::vector<uint8_t>& known) {
  const int nt = Grid::kT, np = Grid::kP;
  const auto nb = [&](const std::vector<float>& a, int i, int j) {
    const int up = std::max(i - 1, 0), dn = std::min(i + 1, nt - 1);
    return 0.25f * (a[up * np + j] + a[dn * np + j] + a[i * np + (j + 1) % np] +
                    a[i * np + (j + np - 1) % np]);
  };
  std::vector<float> tmp(g.size());
  for (int it = 0; it < 400; ++it) {
    for (int i = 0; i < nt; ++i)
      for (int j = 0; j < np; ++j)
        tmp[i * np + j] = known[i * np + j] ? g[i * np + j] : nb(g, i, j);
    g.swap(tmp);
  }
  SmoothCells(g);
}

// Whether a hair triangle hit along `u` from the centre lies across the ray (its corners within
// 30 degrees of it): pushing its corners out moves the hit out. A triangle along the ray (a strand
// through the head) would only spread sideways, however far its corners moved.
bool FacesCentre(const Soup& hair, int tri, const glm::vec3& c, const glm::vec3& u) {
  if (tri < 0) return false;
  for (int k = 0; k < 3; ++k) {
    const glm::vec3 q = hair.pos[hair.idx[3 * static_cast<size_t>(tri) + k]] - c;
    if (!(glm::dot(q, u) > 0.866f * glm::length(q))) return false;
  }
  return true;
}

// Calls f(direction, excess, triangle) for every head vertex that lies beyond the hair's inner
// surface less the clearance, along its ray from the centre `c` (excess: how far); returns
// whether there was any.
template <class F>
bool ForShowing(const std::vector<glm::vec3>& head, const OcclusionCaster& hair, const glm::vec3& c,
                float clearance, F&& f) {
  bool any = false;
  for (const glm::vec3& h : head) {
    const glm::vec3 d = h - c;
    const float r = glm::length(d);
    if (r < 1e-12f) continue;
    int tri = -1;
    const float t = hair.DepthBehind(c, d / r, &tri);
    if (t > 0.0f && tri >= 0 && r + clearance > t + 1e-5f) {
      f(d / r, r + clearance - t, tri);
      any = true;
    }
  }
  return any;
}

float Outer(const OcclusionCaster& c, const glm::vec3& o, const glm::vec3& u, float far) {
  const float t = c.DepthBehind(o + far * u, -u);
  return t < 0.0f ? -1.0f : far - t;
}

// Hair vertices deep in the target head after placement (nearer its centre `c` than 70 % of the
// scalp in their direction, with an edge spanning more than 15 degrees from there: strand roots
// modelled into the source scalp, the inner layer of a long cut in a flat head) have no meaningful
// direction from the centre: moved out along their own, two corners of one triangle would land on
// opposite sides of the head and the triangle would cut through it (women_SciFi on the frog: 407
// scalp vertices showing through, 537 mm mean move).
// Each such vertex turns, at its distance, into the direction its mesh neighbours give it (a
// harmonic field over the deep vertices held by the ones around them, seams welded), so it follows
// its strand onto the scalp. Returns how many turned by more than a degree.
int RedirectDeepVertices(Soup& hair, const std::vector<uint32_t>& weld, const OcclusionCaster& head,
                         const glm::vec3& c, float far) {
  const size_t n = hair.pos.size();
  std::vector<std::vector<uint32_t>> nb(n);
  for (size_t t = 0; t + 2 < hair.idx.size(); t += 3)
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = weld[hair.idx[t + k]], b = weld[hair.idx[t + (k + 1) % 3]];
      if (a == b) continue;
      nb[a].push_back(b);
      nb[b].push_back(a);
    }
  std::vector<glm::vec3> dir(n, glm::vec3(0.0f)), next;
  for (size_t v = 0; v < n; ++v) {
    const glm::vec3 d = hair.pos[v] - c;
    const float r = glm::length(d);
    if (weld[v] == v && r > 1e-12f) dir[v] = d / r;
  }
  // Deep: inside the inner 70 % of the head and with an edge spanning more than 15 degrees seen
  // from the centre (a fine mesh deep in a head keeps its own directions).
  std::vector<uint8_t> deep(n, 0);
  bool any = false;
  for (size_t v = 0; v < n; ++v) {
    if (weld[v] != v) continue;
    const float r = glm::length(hair.pos[v] - c);
    if (r < 1e-12f) continue;
    const float h = Outer(head, c, dir[v], far);
    if (!(h > 0.0f && r < 0.7f * h)) continue;
    for (uint32_t w : nb[v]) deep[v] |= glm::dot(dir[v], dir[w]) < 0.966f;
    any |= deep[v] != 0;
  }
  if (!any) return 0;
  // Deep vertices with no path to one that is not deep keep their own directions.
  {
    std::vector<uint32_t> stack;
    std::vector<uint8_t> reached(n, 0);
    for (size_t v = 0; v < n; ++v)
      if (weld[v] == v && !deep[v]) reached[v] = 1, stack.push_back(static_cast<uint32_t>(v));
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      for (uint32_t w : nb[v])
        if (!reached[w]) reached[w] = 1, stack.push_back(w);
    }
    for (size_t v = 0; v < n; ++v) deep[v] &= reached[v];
  }
  // Harmonic directions: the vertices that are not deep hold theirs, every deep one takes the
  // mean of its neighbours' (Jacobi rounds), so a deep region spans its rim's directions smoothly.
  for (int it = 0; it < 200; ++it) {
    next = dir;
    for (size_t v = 0; v < n; ++v) {
      if (!deep[v]) continue;
      glm::vec3 sum(0.0f);
      for (uint32_t w : nb[v]) sum += dir[w];
      if (glm::length(sum) > 1e-6f) next[v] = glm::normalize(sum);
    }
    dir.swap(next);
  }
  int turned = 0;
  for (size_t v = 0; v < n; ++v) {
    if (!deep[v]) continue;
    const glm::vec3 d = hair.pos[v] - c;
    const float r = glm::length(d);
    if (r < 1e-12f || glm::length(dir[v]) < 0.5f) continue;
    turned += glm::dot(d / r, dir[v]) < 0.9998f;  // more than a degree
    hair.pos[v] = c + r * dir[v];
  }
  for (size_t v = 0; v < n; ++v) hair.pos[v] = hair.pos[weld[v]];
  return turned;
}

int CopyTexture(Avatar& dst, const Avatar& src, int tex, std::map<int, int>& done) {
  if (tex < 0 || tex >= static_cast<int>(src.textures_json.size())) return -1;
  if (auto it = done.find(tex); it != done.end()) return it->second;
  Json t = Json::parse(src.textures_json[tex], nullptr, false);
  if (!t.is_object()) return -1;
  t.erase("extensions");
  if (t.contains("source") && t["source"].is_number_integer()) {
    const int img = t["source"].get<int>();
    if (img < 0 || img >= static_cast<int>(src.images.size())) return -1;
    dst.images.push_back(src.images[img]);
    t["source"] = dst.images.size() - 1;
  }
  if (t.contains("sampler") && t["sampler"].is_number_integer()) {
    const int s = t["sampler"].get<int>();
    if (s >= 0 && s < static_cast<int>(src.samplers_json.size())) {
      dst.samplers_json.push_back(src.samplers_json[s]);
      t["sampler"] = dst.samplers_json.size() - 1;
    } else {
      t.erase("sampler");
    }
  }
  dst.textures_json.push_back(t.dump());
  return done[tex] = static_cast<int>(dst.textures_json.size()) - 1;
}

// Every {"index": i} under a key ending in "Texture" is a texture reference.
void RemapTextures(Json& j, Avatar& dst, const Avatar& src, std::map<int, int>& done) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end();) {
    const std::string& k = it.key();
    if (k.size() >= 7 && ToLower(k.substr(k.size() - 7)) == "texture" && it->is_object()) {
      const int idx = it->contains("index") && (*it)["index"].is_number_integer()
                          ? CopyTexture(dst, src, (*it)["index"].get<int>(), done)
                          : -1;
      if (idx < 0) {
        it = j.erase(it);
        continue;
      }
      (*it)["index"] = idx;
    } else {
      RemapTextures(*it, dst, src, done);
    }
    ++it;
  }
}

std::string FileStem(const std::string& path) {
  std::string s = path.substr(path.find_last_of("/\\") + 1);
  const size_t dot = s.find('.');
  return dot == std::string::npos || dot == 0 ? s : s.substr(0, dot);
}

}  // namespace

bool NamedLikeFacialHair(const std::string& name) {
  // Words: runs of letters, also split where a lower-case letter meets an upper-case one
  // ("EyeBrows", "MI_Eyebrows_2", "eye.lash"), each compared in lower case.
  std::vector<std::string> words(1);
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (!std::isalpha(c)) {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    if (i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(name[i - 1])))
      words.emplace_back();
    words.back() += static_cast<char>(std::tolower(c));
  }
  const auto has = [](const std::string& w, const char* part) {
    return w.find(part) != std::string::npos;
  };
  for (const std::string& w : words) {
    // A brow ("Brows", "eyebrow", "unibrow"), but not the colour ("Hair_Brown", "BrownHair").
    for (size_t at = w.find("brow"); at != std::string::npos; at = w.find("brow", at + 1))
      if (at + 4 == w.size() || w[at + 4] != 'n') return true;
    // Lashes ("Lashes", "EyeLash", "eyelashes"), but not a flash or a splash.
    if (w.rfind("lash", 0) == 0 || has(w, "eyelash")) return true;
    if (has(w, "beard") || has(w, "mustache") || has(w, "moustache") || has(w, "goatee"))
      return true;
  }
  return false;
}

namespace {

// The target's own hair: primitives whose vertices mostly follow spring joints (or nodes below
// one), or whose material is named like hair and that reach the top quarter of `head` (the
// target's head with its hair); facial hair (NamedLikeFacialHair) stays.
std::vector<std::pair<int, int>> OwnHair(const Avatar& av, const Rig& rig, const WearHead& head) {
  const glm::mat3 to_local = glm::transpose(head.frame);
  const float crown_band = (to_local * head.centre).y + 0.25f * head.size.y;
  std::vector<uint8_t> spring(rig.node_count(), 0);
  for (int j : rig.joint_node()) spring[j] = 1;
  for (size_t r = 0; r < rig.node_count(); ++r)
    if (rig.parent()[r] >= 0 && spring[rig.parent()[r]]) spring[r] = 1;
  std::vector<std::pair<int, int>> out;
  std::vector<uint8_t> done(av.meshes.size(), 0);
  for (const MeshInstance& inst : rig.meshes()) {
    if (done[inst.mesh]) continue;
    done[inst.mesh] = 1;
    for (size_t p = 0; p < av.meshes[inst.mesh].primitives.size(); ++p) {
      const Primitive& prim = av.meshes[inst.mesh].primitives[p];
      size_t on_springs = 0;
      for (size_t v = 0; v < prim.positions.size(); ++v) {
        const int n = DominantNode(rig, inst, prim, v);
        on_springs += n >= 0 && spring[n];
      }
      const std::string material =
          prim.material >= 0 && prim.material < static_cast<int>(av.materials.size())
              ? av.materials[prim.material].name
              : std::string();
      // Facial hair shares hair materials (the UBC eyebrows use MI_Hair_2) but is not what a
      // hairstyle replaces.
      if (NamedLikeFacialHair(av.meshes[inst.mesh].name) || NamedLikeFacialHair(material)) continue;
      if (2 * on_springs > prim.positions.size()) {
        out.emplace_back(inst.mesh, static_cast<int>(p));
        continue;
      }
      if (ToLower(material).find("hair") == std::string::npos) continue;
      // Named like hair and rigid on the head: a hairstyle reaches the top quarter of the head;
      // eyebrows or a beard under a hair material do not (women_Punk's brows are Hair_Brown,
      // like the soldier's hair).
      auto pos = RestPositions(av, rig, inst, prim);
      bool crown = !pos.ok() || !(head.size.y > 0.0f);
      if (pos.ok())
        for (const glm::vec3& v : *pos) crown = crown || (to_local * v).y > crown_band;
      if (crown) out.emplace_back(inst.mesh, static_cast<int>(p));
    }
  }
  return out;
}

// Takes the target's own hair out of view, recorded in `undo` so UndoWear puts it back bit for
// bit: a mesh that is all hair is detached from its nodes; a hair primitive of a mesh that also
// holds the head moves to a mesh no node shows.
void HideOwnHair(Avatar& av, const std::vector<std::pair<int, int>>& hair, Json& undo,
                 std::vector<std::string>* changes) {
  std::map<int, std::vector<int>> by_mesh;
  for (const auto& [m, p] : hair) by_mesh[m].push_back(p);
  Json detached = Json::array(), parked = Json::array();
  int parked_mesh = -1;
  for (auto& [m, prims] : by_mesh) {
    if (prims.size() == av.meshes[m].primitives.size()) {
      for (size_t n = 0; n < av.nodes.size(); ++n)
        if (av.nodes[n].mesh == m) {
          detached.push_back({n, m, av.nodes[n].skin});
          av.nodes[n].mesh = -1;
          av.nodes[n].skin = -1;
        }
      changes->push_back("hid the target's own hair: mesh \"" + av.meshes[m].name + "\"");
      continue;
    }
    if (parked_mesh < 0) {
      av.meshes.push_back(Mesh{});
      parked_mesh = static_cast<int>(av.meshes.size()) - 1;
      av.meshes.back().name = "hidden by wear";
    }
    std::sort(prims.rbegin(), prims.rend());
    for (int p : prims) {
      parked.push_back({m, p});
      av.meshes[parked_mesh].primitives.push_back(std::move(av.meshes[m].primitives[p]));
      av.meshes[m].primitives.erase(av.meshes[m].primitives.begin() + p);
      changes->push_back("hid the target's own hair: mesh \"" + av.meshes[m].name +
                         "\" primitive " + std::to_string(p));
    }
  }
  undo["detached"] = detached;
  undo["parked"] = parked;
  undo["parked_mesh"] = parked_mesh;
}
}  // namespace

Result<int> FindHeadNode(const Avatar& av, const std::string& name) {
  if (!name.empty()) {
    std::vector<std::string> names;
    for (const Node& n : av.nodes) names.push_back(n.name);
    auto r = FindName(name, names, "node");
    if (!r.ok()) return r.status();
    return static_cast<int>(*r);
  }
  const HumanoidMap hm = MatchHumanoid(av);
  if (auto it = hm.bones.find("head"); it != hm.bones.end()) return it->second;
  std::vector<uint8_t> joint(av.nodes.size(), 0);
  for (const Skin& s : av.skins)
    for (int j : s.joints)
      if (j >= 0 && j < static_cast<int>(joint.size())) joint[j] = 1;
  std::vector<int> found;
  for (int pass = 0; pass < 2 && found.empty(); ++pass)  // skin joints first
    for (size_t n = 0; n < av.nodes.size(); ++n)
      if ((pass == 1 || joint[n]) && av.nodes[n].mesh < 0 && LooksLikeHead(av.nodes[n].name))
        found.push_back(static_cast<int>(n));
  if (found.size() == 1) return found[0];
  if (found.empty())
    return Fail("no head found: no humanoid head and no node named like \"head\" (give --head)");
  std::string list;
  for (int n : found) list += (list.empty() ? "\"" : ", \"") + av.nodes[n].name + "\"";
  return Fail("no head found: several nodes could be the head (" + list + "); give --head");
}

Result<WearReport> WearHairstyle(Avatar& original, const Avatar& hair_file,
                                 const WearOptions& opt) {
  if (original.unknown_extensions.count(kWearKey))
    return Status(StatusCode::kUnsupported,
                  "the target already wears a hairstyle put on by wear; undo that first");
  if (!(opt.clearance >= 0.0f && opt.clearance < 1.0f))
    return Fail("clearance must be in [0, 1) m");
  WearReport rep;
  // 1. The hairstyle.
  auto hair_rig = BuildRig(hair_file);
  if (!hair_rig.ok())
    return Status(hair_rig.status().code(), "hair file: " + hair_rig.status().message());
  HairSelection sel;
  if (opt.hair.empty()) {
    auto head = FindHeadNode(hair_file, opt.source_head);
    if (head.ok() && CollectHead(hair_file, *hair_rig, *head, nullptr).ok()) {
      std::string mats;
      for (const Material& m : hair_file.materials) mats += (mats.empty() ? "" : ", ") + m.name;
      return Fail("the hair file is a whole character (head bone \"" + hair_file.nodes[*head].name +
                  "\"); name its hair with --hair, e.g. material:NAME (materials: " + mats + ")");
    }
    for (const MeshInstance& inst : hair_rig->meshes())
      for (size_t p = 0; p < hair_file.meshes[inst.mesh].primitives.size(); ++p)
        if (std::find(sel.primitives.begin(), sel.primitives.end(),
                      std::make_pair(inst.mesh, static_cast<int>(p))) == sel.primitives.end())
          sel.primitives.emplace_back(inst.mesh, static_cast<int>(p));
  } else {
    auto s = SelectHair(hair_file, opt.hair);
    if (!s.ok()) return Status(s.status().code(), "--hair: " + s.status().message());
    sel = *s;
  }
  auto pieces = CollectHair(hair_file, *hair_rig, sel);
  if (!pieces.ok()) return pieces.status();
  Soup hair = HairSoup(*pieces, hair_file);
  rep.hair_vertices = static_cast<int>(hair.pos.size());

  // The work is done on a copy that replaces the target only when all of it succeeded.
  Avatar target = original;
  Json undo = {{"nodes", target.nodes.size()},
               {"meshes", target.meshes.size()},
               {"skins", target.skins.size()},
               {"materials", target.materials.size()},
               {"textures", target.textures_json.size()},
               {"images", target.images.size()},
               {"samplers", target.samplers_json.size()},
               {"scene_roots", target.scene_roots.size()},
               {"colliders", target.vrm.colliders.size()},
               {"collider_groups", target.vrm.collider_groups.size()},
               {"fitted", false}};
  // The target's own hair, hidden (with the springs that moved only it) by hide_own_hair.
  std::vector<std::pair<int, int>> own_hair;
  WearHead with_hair;  // the target's head with its own hair
  Soup with_hair_soup;
  std::vector<glm::vec3> with_hair_vertices;
  if (!opt.keep_hair) {
    auto rig = BuildRig(target);
    if (!rig.ok()) return Status(rig.status().code(), "target: " + rig.status().message());
    if (Status st = HeadFromCharacter(target, opt.head, nullptr, &with_hair, &with_hair_soup,
                                      &with_hair_vertices);
        !st.ok())
      return Status(st.code(), "target: " + st.message());
    own_hair = OwnHair(target, *rig, with_hair);
  }
  const auto hide_own_hair = [&]() {
    const std::vector<uint8_t> owned_before = fit::NodesOwningVertices(target);
    HideOwnHair(target, own_hair, undo, &rep.changes);
    const std::vector<uint8_t> owned_after = fit::NodesOwningVertices(target);
    Json removed = Json::array();
    std::vector<Spring> kept;
    for (size_t i = 0; i < target.vrm.springs.size(); ++i) {
      const Spring& sp = target.vrm.springs[i];
      if (!sp.baked && fit::SpringMovesMesh(sp, owned_before) &&
          !fit::SpringMovesMesh(sp, owned_after)) {
        removed.push_back({{"index", i}, {"spring", fit::SpringRecord(sp)}});
        rep.changes.push_back("removed spring \"" + sp.name + "\": it moved only the hidden hair");
        continue;
      }
      kept.push_back(sp);
    }
    target.vrm.springs.swap(kept);
    undo["removed_springs"] = removed;
  };

  // 2. The two heads. The target's is taken without its own hair, unless its skin stops at the
  // hairline: an open rim round the top of the head that its own hair covered and raised (the
  // Quaternius soldier, whose skin ends about 7 cm below the top its hair makes). Its hair is then
  // the skull, and the head is measured with it; measured without it, the new hair was anchored
  // at the hairline and hung over the face. Such hair is hidden only if the new hair covers it
  // (after the scalp fit, below); hidden where the new hair does not reach, it leaves the head
  // open there.
  Soup src_scalp, tgt_head, bare_head;  // bare_head: the skin alone, when the hair is the skull
  std::vector<glm::vec3> tgt_vertices;
  bool hair_is_skull = false;
  const HairSelection own_selection{own_hair};  // the head is measured without these
  if (Status st = HeadFromCharacter(target, opt.head, &own_selection, &rep.target, &tgt_head,
                                    &tgt_vertices);
      !st.ok())
    return Status(st.code(), "target: " + st.message());
  if (!own_hair.empty() && rep.target.size.y > 0.0f) {
    const float raised =
        glm::dot(with_hair.anchor - rep.target.anchor, rep.target.frame[1]) / rep.target.size.y;
    const float rim = TopRim(tgt_head, rep.target);
    if (raised > 0.15f && rim > 1.0f) {
      hair_is_skull = true;
      rep.target = with_hair;
      bare_head = std::move(tgt_head);
      tgt_head = std::move(with_hair_soup);
      tgt_vertices = std::move(with_hair_vertices);
      rep.target.from += "; its skin stops at the hairline, so its own hair is its skull";
      char line[256];
      std::snprintf(line, sizeof line,
                    "the target's skin is open above its hairline (a rim %.1f head widths long; "
                    "its own hair raises the top of the head by %.0f %%): the head is measured "
                    "with that hair",
                    rim, 100.0f * raised);
      rep.changes.push_back(line);
    }
  }
  if (!hair_is_skull && !opt.keep_hair) hide_own_hair();

  if (opt.source_character) {
    if (Status st = HeadFromCharacter(*opt.source_character, opt.source_head, nullptr, &rep.source,
                                      &src_scalp, nullptr);
        !st.ok())
      return Status(st.code(), "source head: " + st.message());
    rep.source.from += " of the source character";
    rep.source.node = -1;
  } else if (Status st = HeadFromCharacter(hair_file, opt.source_head, &sel, &rep.source,
                                           &src_scalp, nullptr);
             !st.ok()) {
    if (!opt.source_head.empty()) return Status(st.code(), "hair file: " + st.message());
    std::string how;
    rep.source.frame = CharacterFrame(hair_file, *hair_rig,
                                      hair_rig->source_node()[hair_rig->meshes()[0].node], &how);
    if (Status e = EstimateHeadFromHair(hair, &rep.source, &src_scalp); !e.ok()) return e;
    // The estimate reads the inner surface as the scalp: hair that stands off the head at the
    // sides reads as a wider head and is worn too small (UBC Hair_Long on its own body: 0.913).
    rep.warnings.push_back(
        "the head the hairstyle was made for is estimated from the hair's inner surface (the scale "
        "can be off by several percent where the hair stands off the head); name the character "
        "it was made for with --source-head for the exact size");
  }
  const WearHead& S = rep.source;
  const WearHead& T = rep.target;
  if (!(S.size.x > 0 && S.size.z > 0 && T.size.x > 0 && T.size.z > 0))
    return Fail("a head has no width or depth");

  // 3. Placement: frames, a uniform scale from the widths (what a hairstyle wraps around), anchor
  // onto anchor.
  rep.scale = T.size.x / S.size.x;
  const glm::mat3 rot = T.frame * glm::transpose(S.frame);
  const auto place = [&](const glm::vec3& p) {
    return T.anchor + rep.scale * (rot * (p - S.anchor));
  };
  for (glm::vec3& p : hair.pos) p = place(p);
  for (glm::vec3& p : src_scalp.pos) p = place(p);

  // 4. Scalp fit.
  Grid grid;
  grid.f = T.frame;
  grid.c = T.centre;
  float far = 0.0f;
  for (const glm::vec3& p : hair.pos) far = std::max(far, glm::length(p - grid.c));
  for (const glm::vec3& p : tgt_head.pos) far = std::max(far, glm::length(p - grid.c));
  for (const glm::vec3& p : src_scalp.pos) far = std::max(far, glm::length(p - grid.c));
  far = 2.0f * far + 1.0f;
  OcclusionCaster head_t, head_s, hair_c;
  head_t.SetMesh(tgt_head.pos, tgt_head.idx);
  head_s.SetMesh(src_scalp.pos, src_scalp.idx);
  const int cells = Grid::kT * Grid::kP;
  std::vector<float> ht(cells), hs(cells), desired(cells, 0.0f);
  std::vector<uint8_t> covered(cells, 0);
  for (int i = 0; i < Grid::kT; ++i)
    for (int j = 0; j < Grid::kP; ++j) {
      const glm::vec3 u = grid.Dir(i, j);
      ht[i * Grid::kP + j] = Outer(head_t, grid.c, u, far);
      hs[i * Grid::kP + j] = Outer(head_s, grid.c, u, far);
    }
  const auto inside_count = [&](const std::vector<glm::vec3>& pts, float* depth) {
    int n = 0;
    for (const glm::vec3& p : pts) {
      const glm::vec3 d = p - grid.c;
      const float r = glm::length(d);
      if (r < 1e-12f) continue;
      const float h = Outer(head_t, grid.c, d / r, far);
      if (h > 0.0f && r < h) {
        ++n;
        if (depth) *depth = std::max(*depth, 1000.0f * (h - r));
      }
    }
    return n;
  };
  rep.inside_placed = inside_count(hair.pos, nullptr);
  const float cover_gap = 0.1f * T.size.x;
  const std::vector<glm::vec3> placed = hair.pos;
  std::vector<uint32_t> weld(hair.pos.size());  // the first vertex at each position
  {
    std::map<std::tuple<float, float, float>, uint32_t> at;
    for (size_t v = 0; v < hair.pos.size(); ++v)
      weld[v] = at.emplace(std::make_tuple(hair.pos[v].x, hair.pos[v].y, hair.pos[v].z),
                           static_cast<uint32_t>(v))
                    .first->second;
  }
  if (opt.scalp_fit) rep.redirected = RedirectDeepVertices(hair, weld, head_t, grid.c, far);
  for (int round = 0; round < 6; ++round) {
    hair_c.SetMesh(hair.pos, hair.idx);
    std::vector<float> delta(cells, 0.0f);
    std::vector<uint8_t> known(cells, 0);
    for (int c = 0; c < cells; ++c) {
      const float rin = hair_c.DepthBehind(grid.c, grid.Dir(c / Grid::kP, c % Grid::kP));
      if (round == 0 && ht[c] > 0 && hs[c] > 0 && rin > 0) {
        const float gap = rin - hs[c];
        desired[c] = ht[c] + std::max(gap, opt.clearance);
        covered[c] = gap < cover_gap;
      }
      if (ht[c] > 0 && hs[c] > 0 && rin > 0 && desired[c] > 0) {
        known[c] = 1;
        // The first round moves the inner surface where it should be; later rounds only take
        // up what smoothing left, outwards and a little at a time (a layer pushed past another
        // would otherwise swap which one is inner and start a runaway).
        delta[c] = round == 0 ? std::clamp(desired[c] - rin, -T.size.x, T.size.x)
                              : std::clamp(desired[c] - rin, 0.0f, 0.05f * T.size.x);
      }
    }
    if (std::none_of(known.begin(), known.end(), [](uint8_t k) { return k != 0; })) {
      if (round == 0)
        rep.warnings.push_back(
            "the hairstyle and the target's head never face each other from "
            "the head's centre: placed, not fitted");
      break;
    }
    if (!opt.scalp_fit) break;  // placement only: the figures below are of the placed hair
    FillAndSmooth(delta, known);
    for (size_t v = 0; v < hair.pos.size(); ++v) {
      const glm::vec3 d = hair.pos[v] - grid.c;
      const float r = glm::length(d);
      if (r < 1e-12f) continue;
      const float nr = std::max(r + grid.Sample(delta, d / r), 0.05f * r);
      hair.pos[v] = grid.c + d * (nr / r);
    }
  }
  if (opt.scalp_fit) {
    // Head vertices showing through the inner surface (an ear, a brow ridge between two hair
    // vertices): more offset in their directions, widened by a cell so the peak survives smoothing.
    for (int round = 0; round < 10; ++round) {
      hair_c.SetMesh(hair.pos, hair.idx);
      std::vector<float> need(cells, 0.0f);
      const bool any = ForShowing(tgt_vertices, hair_c, grid.c, opt.clearance,
                                  [&](const glm::vec3& u, float excess, int tri) {
                                    if (!FacesCentre(hair, tri, grid.c, u)) return;
                                    float& n = need[grid.Nearest(u)];
                                    n = std::max(n, std::min(excess, 0.1f * T.size.x));
                                  });
      if (!any) break;
      std::vector<float> wide(need);
      for (int i = 0; i < Grid::kT; ++i)
        for (int j = 0; j < Grid::kP; ++j)
          for (int di = -1; di <= 1; ++di)
            for (int dj = -1; dj <= 1; ++dj) {
              const int ii = std::clamp(i + di, 0, Grid::kT - 1),
                        jj = (j + dj + Grid::kP) % Grid::kP;
              wide[i * Grid::kP + j] = std::max(wide[i * Grid::kP + j], need[ii * Grid::kP + jj]);
            }
      SmoothCells(wide);
      for (glm::vec3& p : hair.pos) {
        const glm::vec3 d = p - grid.c;
        const float r = glm::length(d);
        if (r < 1e-12f) continue;
        p = grid.c + d * ((r + grid.Sample(wide, d / r)) / r);
      }
    }
    // What the smooth field left showing: the hair triangle in front of such a head vertex moves
    // out along its corners' directions, as far as that vertex needs (at most a twentieth of the
    // head's width a round).
    // Vertices at one position (split at a UV seam) move together, so no crack opens.
    for (int round = 0; round < 6; ++round) {
      hair_c.SetMesh(hair.pos, hair.idx);
      std::vector<float> need(hair.pos.size(), 0.0f);
      const bool any = ForShowing(tgt_vertices, hair_c, grid.c, opt.clearance,
                                  [&](const glm::vec3&, float excess, int tri) {
                                    for (int k = 0; k < 3; ++k) {
                                      float& n =
                                          need[weld[hair.idx[3 * static_cast<size_t>(tri) + k]]];
                                      n = std::max(n, std::min(excess, 0.05f * T.size.x));
                                    }
                                  });
      if (!any) break;
      for (size_t v = 0; v < hair.pos.size(); ++v) {
        const float n = need[weld[v]];
        if (n <= 0.0f) continue;
        const glm::vec3 d = hair.pos[v] - grid.c;
        const float r = glm::length(d);
        if (r > 1e-12f) hair.pos[v] = grid.c + d * ((r + n) / r);
      }
    }
    // A hairstyle these steps could not bring over the scalp (a voluminous cut on a wide, flat
    // head): grown about the head's centre, a step at a time, until no covered head vertex shows
    // through (at most 1.5 times; reported).
    const auto showing = [&](const std::vector<glm::vec3>& pos) {
      hair_c.SetMesh(pos, hair.idx);
      int n = 0;
      for (const glm::vec3& h : tgt_vertices) {
        const glm::vec3 d = h - grid.c;
        const float r = glm::length(d);
        if (r < 1e-12f || !covered[grid.Nearest(d / r)]) continue;
        const float t = hair_c.DepthBehind(grid.c, d / r);
        n += t > 0.0f && r > t + 0.001f;
      }
      return n;
    };
    if (showing(hair.pos) > 0)
      for (float k : {1.05f, 1.1f, 1.2f, 1.35f, 1.5f}) {
        std::vector<glm::vec3> grown(hair.pos);
        for (glm::vec3& p : grown) p = grid.c + k * (p - grid.c);
        if (showing(grown) > 0) continue;
        hair.pos.swap(grown);
        rep.grown = k;
        rep.warnings.push_back(
            "the scalp fit left the scalp showing through; the hairstyle was "
            "grown " +
            std::to_string(k).substr(0, 4) + " times about the head's centre to cover it");
        break;
      }
    // Anything still inside goes out on its own.
    const float push = std::max(opt.clearance, 1e-4f);
    for (glm::vec3& p : hair.pos) {
      const glm::vec3 d = p - grid.c;
      const float r = glm::length(d);
      if (r < 1e-12f) continue;
      const float h = Outer(head_t, grid.c, d / r, far);
      if (h > 0.0f && r < h + 0.5f * opt.clearance) {
        p = grid.c + d * ((h + push) / r);
        ++rep.pushed_alone;
      }
    }
  }
  rep.inside = inside_count(hair.pos, &rep.inside_depth_mm);
  double sum_move = 0;
  for (size_t v = 0; v < hair.pos.size(); ++v) {
    const float m = 1000.0f * glm::length(hair.pos[v] - placed[v]);
    rep.max_move_mm = std::max(rep.max_move_mm, m);
    sum_move += m;
  }
  rep.mean_move_mm = hair.pos.empty() ? 0.0f : static_cast<float>(sum_move / hair.pos.size());
  // Coverage of the scalp the hairstyle covered on its own head.
  hair_c.SetMesh(hair.pos, hair.idx);
  for (const glm::vec3& h : tgt_vertices) {
    const glm::vec3 d = h - grid.c;
    const float r = glm::length(d);
    if (r < 1e-12f || !covered[grid.Nearest(d / r)]) continue;
    ++rep.covered_head_vertices;
    const float t = hair_c.DepthBehind(grid.c, d / r);
    if (t < 0.0f) {
      ++rep.uncovered;
    } else if (r > t + 0.001f) {
      ++rep.show_through;
      rep.show_through_mm = std::max(rep.show_through_mm, 1000.0f * (r - t));
    }
  }
  rep.coverage =
      rep.covered_head_vertices == 0
          ? 0.0
          : static_cast<double>(rep.covered_head_vertices - rep.uncovered - rep.show_through) /
                rep.covered_head_vertices;
  // The target's own hair when it is its skull (step 2): hidden if the new hair covers the
  // opening it closed (the directions from the head's centre in which the skin alone has no
  // surface and the own hair has), else kept, since hidden it would leave the head open there.
  if (hair_is_skull) {
    OcclusionCaster skin;
    skin.SetMesh(bare_head.pos, bare_head.idx);
    double opening = 0.0, bare = 0.0;  // solid angle, by cell
    for (int i = 0; i < Grid::kT; ++i)
      for (int j = 0; j < Grid::kP; ++j) {
        const glm::vec3 u = grid.Dir(i, j);
        if (glm::dot(u, T.frame[1]) < 0.2f || !(ht[i * Grid::kP + j] > 0.0f) ||
            Outer(skin, grid.c, u, far) > 0.0f)
          continue;
        const double w = std::sin(kPi * (i + 0.5) / Grid::kT);
        opening += w;
        if (hair_c.DepthBehind(grid.c, u) < 0.0f) bare += w;
      }
    const double share = opening > 0.0 ? bare / opening : 0.0;
    const bool hide = share <= kOwnHairLeftBare;
    if (hide) hide_own_hair();
    if (share > 0.01) {
      char line[320];
      std::snprintf(line, sizeof line,
                    hide ? "hid the target's own hair, which is the skull under it: the new hair "
                           "leaves %.0f %% of the opening it closed bare, where the head may show "
                           "open at its edges (--keep-hair keeps the own hair)"
                         : "kept the target's own hair: it is the skull under it, and the new "
                           "hair leaves %.0f %% of the opening it closes bare, where hiding it "
                           "would open the head (--keep-hair keeps it always)",
                    100.0 * share);
      rep.warnings.push_back(line);
    }
  }

  // 5. Binding: a new mesh skinned to the target's head.
  const std::string stem = FileStem(hair_file.source_path.empty() ? "hair" : hair_file.source_path);
  Mesh mesh;
  mesh.name = stem + " (worn)";
  std::map<int, int> material_map, texture_map;
  bool dropped_morphs = false;
  const glm::mat3 nrot = rot;  // normals turn with the placement (the fit only offsets)
  size_t base = 0;
  for (const HairPiece& pc : *pieces) {
    const Primitive& src = hair_file.meshes[pc.mesh].primitives[pc.prim];
    Primitive p;
    p.mode = 4;
    p.indices = src.indices;
    p.positions.assign(hair.pos.begin() + static_cast<long>(base),
                       hair.pos.begin() + static_cast<long>(base + pc.world.size()));
    base += pc.world.size();
    for (const glm::vec3& n : pc.normals) p.normals.push_back(glm::normalize(nrot * n));
    p.joints.assign(p.positions.size(), glm::u16vec4(0));
    p.weights.assign(p.positions.size(), glm::vec4(1, 0, 0, 0));
    for (const auto& [k, a] : src.extra_attributes) {
      if (k.rfind("JOINTS_", 0) == 0 || k.rfind("WEIGHTS_", 0) == 0) continue;
      ExtraAttribute e = a;
      if (k == "TANGENT" && e.components == 4)
        for (size_t v = 0; v + 3 < e.data.size(); v += 4) {
          const glm::vec3 t = nrot * glm::vec3(e.data[v], e.data[v + 1], e.data[v + 2]);
          const glm::vec3 tn = glm::length(t) > 1e-20f ? glm::normalize(t) : t;
          e.data[v] = tn.x, e.data[v + 1] = tn.y, e.data[v + 2] = tn.z;
        }
      p.extra_attributes.emplace(k, std::move(e));
    }
    dropped_morphs |= !src.targets.empty();
    p.extras_json = src.extras_json;
    if (src.material >= 0 && src.material < static_cast<int>(hair_file.materials.size())) {
      auto m = material_map.find(src.material);
      if (m == material_map.end()) {
        Json j = Json::parse(hair_file.materials[src.material].json, nullptr, false);
        if (!j.is_object()) j = Json::object();
        RemapTextures(j, target, hair_file, texture_map);
        target.materials.push_back({hair_file.materials[src.material].name, j.dump()});
        m = material_map.emplace(src.material, static_cast<int>(target.materials.size()) - 1).first;
      }
      p.material = m->second;
    }
    mesh.primitives.push_back(std::move(p));
  }
  if (dropped_morphs)
    rep.warnings.push_back(
        "the hairstyle's morph targets were dropped (they do not fit the new head)");
  auto tgt_rig = BuildRig(target);
  if (!tgt_rig.ok()) return tgt_rig.status();
  const glm::mat4 head_world = tgt_rig->rest_world()[tgt_rig->node_to_rig()[T.node]];
  target.meshes.push_back(std::move(mesh));
  Skin skin;
  skin.name = stem + " (worn)";
  skin.joints = {T.node};
  skin.inverse_bind = {glm::inverse(head_world)};
  target.skins.push_back(std::move(skin));
  Node node;
  node.name = stem + " (worn)";
  node.mesh = static_cast<int>(target.meshes.size()) - 1;
  node.skin = static_cast<int>(target.skins.size()) - 1;
  target.nodes.push_back(std::move(node));
  target.scene_roots.push_back(static_cast<int>(target.nodes.size()) - 1);
  rep.mesh_name = target.meshes.back().name;
  char line[256];
  std::snprintf(line, sizeof line,
                "wore \"%s\" (%d vertices) on \"%s\": scale %.3f, scalp fit moved vertices up to "
                "%.1f mm (mean %.1f), %d inside the head before the fit, %d after",
                stem.c_str(), rep.hair_vertices, target.nodes[T.node].name.c_str(), rep.scale,
                rep.max_move_mm, rep.mean_move_mm, rep.inside_placed, rep.inside);
  rep.changes.push_back(line);
  target.unknown_extensions[kWearKey] = undo.dump();

  if (opt.fit_chains) {
    Avatar fitted = target;
    bool head_collider = false;
    for (const Collider& c : fitted.vrm.colliders) head_collider |= c.node == T.node;
    if (!head_collider) {
      // A sphere inside the head: the nearest scalp over the upper half, from the centre.
      float r = far;
      for (int c = 0; c < cells / 2; ++c)
        if (ht[c] > 0) r = std::min(r, ht[c]);
      const glm::mat4 inv = glm::inverse(head_world);
      Collider col;
      col.node = T.node;
      col.shape = ColliderShape::kSphere;
      col.offset = glm::vec3(inv * glm::vec4(T.centre, 1.0f));
      col.radius = 0.9f * r / std::max(glm::length(glm::vec3(head_world[0])), 1e-12f);
      fitted.vrm.colliders.push_back(col);
      fitted.vrm.collider_groups.push_back(
          {"head (wear)", {static_cast<int>(fitted.vrm.colliders.size()) - 1}});
      std::snprintf(line, sizeof line, "added a head collider: sphere of %.1f mm radius",
                    900.0f * r);
    }
    FitOptions fo = opt.fit;
    fo.attach_node = T.node;
    // The chain fitter's lengths are at human scale: a full humanoid gives its height, anything
    // else (a creature whose bone names match a few humanoid ones) its head width against a
    // person's 15.5 cm.
    if (!MatchHumanoid(fitted).missing_required.empty()) fo.unit = T.size.x / 0.155f;
    HairSelection worn;
    for (size_t p = 0; p < fitted.meshes.back().primitives.size(); ++p)
      worn.primitives.emplace_back(static_cast<int>(fitted.meshes.size()) - 1, static_cast<int>(p));
    auto fr = FitHairChains(fitted, worn, fo);
    if (fr.ok()) {
      if (!head_collider) rep.changes.push_back(line);  // kept only with the chains
      rep.chains = fr->chains;
      rep.rigid_clumps = static_cast<int>(fr->rigid.size());
      for (const auto& c : fr->changes) rep.changes.push_back(c);
      for (const auto& c : fr->rigid) rep.changes.push_back(c);
      for (const auto& w : fr->warnings) rep.warnings.push_back(w);
      undo["fitted"] = true;
      fitted.unknown_extensions[kWearKey] = undo.dump();
      target = std::move(fitted);
    } else if (fr.status().message().find("can hang") != std::string::npos) {
      rep.warnings.push_back("no chains: " + fr.status().message() + "; the hair stays rigid");
    } else {
      return Status(fr.status().code(), "fitting chains: " + fr.status().message());
    }
  }
  original = std::move(target);
  return rep;
}

Status UndoWear(Avatar& av) {
  auto it = av.unknown_extensions.find(kWearKey);
  if (it == av.unknown_extensions.end()) return Fail("no worn hairstyle to undo in this avatar");
  const Json u = Json::parse(it->second, nullptr, false);
  if (!u.is_object()) return Fail(std::string(kWearKey) + ": not a JSON object");
  Avatar out = av;
  try {
    if (u.at("fitted").get<bool>())
      if (Status st = UndoFit(out); !st.ok()) return st;
    if (u.contains("removed_springs"))
      for (const Json& r : u.at("removed_springs")) {
        const size_t at = r.at("index").get<size_t>();
        if (at > out.vrm.springs.size())
          throw std::runtime_error("removed_springs: index out of range");
        Spring sp = fit::SpringFromRecord(r.at("spring"));
        for (const SpringJoint& jt : sp.joints)
          if (jt.node < 0 || static_cast<size_t>(jt.node) >= out.nodes.size())
            throw std::runtime_error("removed_springs: joint node out of range");
        out.vrm.springs.insert(out.vrm.springs.begin() + static_cast<long>(at), std::move(sp));
      }
    if (u.contains("parked") && !u.at("parked").empty()) {
      Mesh& parked = out.meshes.at(u.at("parked_mesh").get<size_t>());
      const Json& list = u.at("parked");
      if (list.size() != parked.primitives.size())
        throw std::runtime_error("parked: not the primitives the hidden mesh holds");
      for (size_t k = list.size(); k-- > 0;) {
        Mesh& m = out.meshes.at(list[k].at(0).get<size_t>());
        const size_t at = list[k].at(1).get<size_t>();
        if (at > m.primitives.size()) throw std::runtime_error("parked: primitive out of range");
        m.primitives.insert(m.primitives.begin() + static_cast<long>(at),
                            std::move(parked.primitives[k]));
      }
      parked.primitives.clear();
    }
    if (u.contains("detached"))
      for (const Json& d : u.at("detached")) {
        Node& n = out.nodes.at(d.at(0).get<size_t>());
        n.mesh = d.at(1).get<int>();
        n.skin = d.at(2).get<int>();
      }
    const auto shrink = [&](auto& v, const char* key) {
      const size_t n = u.at(key).get<size_t>();
      if (n > v.size()) throw std::runtime_error(std::string(key) + ": more than the avatar has");
      v.resize(n);
    };
    shrink(out.nodes, "nodes");
    shrink(out.meshes, "meshes");
    shrink(out.skins, "skins");
    shrink(out.materials, "materials");
    shrink(out.textures_json, "textures");
    shrink(out.images, "images");
    shrink(out.samplers_json, "samplers");
    shrink(out.scene_roots, "scene_roots");
    shrink(out.vrm.colliders, "colliders");
    shrink(out.vrm.collider_groups, "collider_groups");
    const int nn = static_cast<int>(out.nodes.size());
    for (const Node& n : out.nodes) {
      if (n.mesh >= static_cast<int>(out.meshes.size()) ||
          n.skin >= static_cast<int>(out.skins.size()))
        throw std::runtime_error("a node refers to a mesh or skin the undo removes");
      for (int c : n.children)
        if (c >= nn) throw std::runtime_error("a node's child is a node the undo removes");
    }
    for (int r : out.scene_roots)
      if (r < 0 || r >= nn) throw std::runtime_error("a scene root is a node the undo removes");
    for (const Spring& s : out.vrm.springs)
      for (int g : s.collider_groups)
        if (g >= static_cast<int>(out.vrm.collider_groups.size()))
          throw std::runtime_error("a spring uses a collider group the undo removes");
    for (const ColliderGroup& g : out.vrm.collider_groups)
      for (int c : g.colliders)
        if (c >= static_cast<int>(out.vrm.colliders.size()))
          throw std::runtime_error("a collider group holds a collider the undo removes");
  } catch (const std::exception& e) {
    return Fail(std::string(kWearKey) + ": " + e.what());
  }
  out.unknown_extensions.erase(kWearKey);
  av = std::move(out);
  return Status::Ok();
}

}  // namespace hairswing
