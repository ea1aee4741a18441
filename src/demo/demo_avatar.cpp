// Procedural demo avatars (include/hairswing/demo.h). Everything is built in the bind pose in
// world space (metres, +Y up, facing +Z): skeleton nodes, then meshes whose vertices carry skin
// weights, then the VRM humanoid, springs and colliders.
#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <string>

#include "core/chain_weights.h"
#include "hairswing/demo.h"

namespace hairswing {
namespace {

constexpr float kPi = 3.14159265358979f;

struct Builder {
  Avatar av;
  std::vector<glm::vec3> world;  // rest world position per node (all rotations identity)
  std::vector<int> skin_joints;  // node indices in the skin
  std::vector<int> joint_of_node;

  int Node(const std::string& name, int parent, glm::vec3 t, bool skinned = true) {
    hairswing::Node n;
    n.name = name;
    n.parent = parent;
    n.translation = t;
    av.nodes.push_back(n);
    const int id = static_cast<int>(av.nodes.size()) - 1;
    if (parent >= 0) av.nodes[parent].children.push_back(id);
    world.push_back(parent >= 0 ? world[parent] + t : t);
    joint_of_node.push_back(-1);
    if (skinned) {
      joint_of_node[id] = static_cast<int>(skin_joints.size());
      skin_joints.push_back(id);
    }
    return id;
  }
  glm::vec3 W(int node) const { return world[node]; }
};

// A mesh primitive under construction: vertices with up to two weighted joints.
struct Prim {
  Primitive p;
  void Vertex(const Builder& b, glm::vec3 pos, glm::vec3 normal, int j0, float w0, int j1 = -1,
              float w1 = 0) {
    p.positions.push_back(pos);
    p.normals.push_back(glm::normalize(normal));
    glm::u16vec4 j(static_cast<uint16_t>(b.joint_of_node[j0]), 0, 0, 0);
    glm::vec4 w(w0, 0, 0, 0);
    if (j1 >= 0 && w1 > 0) {
      j[1] = static_cast<uint16_t>(b.joint_of_node[j1]);
      w[1] = w1;
    }
    const float sum = w[0] + w[1];
    p.joints.push_back(j);
    p.weights.push_back(w / sum);
  }
  // Quads between consecutive rings of `sides` vertices starting at `first` (closed rings).
  void Rings(uint32_t first, int rings, int sides, bool closed) {
    const int cols = closed ? sides : sides - 1;
    for (int r = 0; r + 1 < rings; ++r)
      for (int s = 0; s < cols; ++s) {
        const uint32_t a = first + r * sides + s, b = first + r * sides + (s + 1) % sides;
        const uint32_t c = a + sides, d = b + sides;
        p.indices.insert(p.indices.end(), {a, c, b, b, c, d});
      }
  }
};

// An elliptic tube from y0 to y1 around the vertical axis at `centre` (x,z), weighted by height
// to the given joints (blending linearly between neighbouring joint heights).
void Torso(const Builder& b, Prim& m, glm::vec2 centre, float y0, float y1, glm::vec2 radius,
           const std::vector<int>& joints, int rings, int sides) {
  const uint32_t first = static_cast<uint32_t>(m.p.positions.size());
  for (int r = 0; r < rings; ++r) {
    const float y = y0 + (y1 - y0) * r / (rings - 1);
    // Joint whose height range holds y, blended with the next above.
    int k = 0;
    while (k + 1 < static_cast<int>(joints.size()) && b.W(joints[k + 1]).y <= y) ++k;
    float t = 0.0f;
    if (k + 1 < static_cast<int>(joints.size())) {
      const float lo = b.W(joints[k]).y, hi = b.W(joints[k + 1]).y;
      t = std::clamp((y - lo) / (hi - lo), 0.0f, 1.0f);
    }
    for (int s = 0; s < sides; ++s) {
      const float a = 2 * kPi * s / sides;
      const glm::vec3 n(std::sin(a) * radius.y, 0, std::cos(a) * radius.x);
      const glm::vec3 pos(centre.x + std::sin(a) * radius.x, y, centre.y + std::cos(a) * radius.y);
      if (k + 1 < static_cast<int>(joints.size()))
        m.Vertex(b, pos, glm::vec3(n.x, 0, n.z), joints[k], 1 - t, joints[k + 1], t);
      else
        m.Vertex(b, pos, glm::vec3(n.x, 0, n.z), joints[k], 1);
    }
  }
  m.Rings(first, rings, sides, true);
}

// A round tube along a straight bone from a to b, rigidly weighted to `joint`.
void Limb(const Builder& b, Prim& m, glm::vec3 a, glm::vec3 c, float r0, float r1, int joint,
          int rings, int sides) {
  const glm::vec3 axis = glm::normalize(c - a);
  const glm::vec3 ref = std::fabs(axis.y) < 0.9f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
  const glm::vec3 u = glm::normalize(glm::cross(axis, ref)), v = glm::cross(axis, u);
  const uint32_t first = static_cast<uint32_t>(m.p.positions.size());
  for (int r = 0; r < rings; ++r) {
    const float t = static_cast<float>(r) / (rings - 1);
    const glm::vec3 centre = a + (c - a) * t;
    const float rad = r0 + (r1 - r0) * t;
    for (int s = 0; s < sides; ++s) {
      const float ang = 2 * kPi * s / sides;
      const glm::vec3 n = std::cos(ang) * u + std::sin(ang) * v;
      m.Vertex(b, centre + rad * n, n, joint, 1);
    }
  }
  m.Rings(first, rings, sides, true);
}

void Sphere(const Builder& b, Prim& m, glm::vec3 centre, float radius, int joint, int rings,
            int sides) {
  const uint32_t first = static_cast<uint32_t>(m.p.positions.size());
  for (int r = 0; r < rings; ++r) {
    const float phi = kPi * (r + 0.5f) / rings;
    for (int s = 0; s < sides; ++s) {
      const float th = 2 * kPi * s / sides;
      const glm::vec3 n(std::sin(phi) * std::sin(th), std::cos(phi), std::sin(phi) * std::cos(th));
      m.Vertex(b, centre + radius * n, n, joint, 1);
    }
  }
  m.Rings(first, rings, sides, true);
}

// Where along a chain polyline (joint world positions) a distance s falls: segment i, t in [0,1].
void Locate(const std::vector<glm::vec3>& pts, float s, int* seg, float* t) {
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    const float l = glm::length(pts[i + 1] - pts[i]);
    if (s <= l || i + 2 == pts.size()) {
      *seg = static_cast<int>(i);
      *t = std::clamp(s / l, 0.0f, 1.0f);
      return;
    }
    s -= l;
  }
}

float Length(const std::vector<glm::vec3>& pts) {
  float l = 0;
  for (size_t i = 0; i + 1 < pts.size(); ++i) l += glm::length(pts[i + 1] - pts[i]);
  return l;
}

// A tapered tube around a chain: `rings` x `sides` vertices.
void ChainTube(const Builder& b, Prim& m, const std::vector<int>& joints, int attach, float r0,
               float r1, int rings, int sides) {
  std::vector<glm::vec3> pts;
  pts.reserve(joints.size());
  for (int j : joints) pts.push_back(b.W(j));
  const float total = Length(pts);
  const uint32_t first = static_cast<uint32_t>(m.p.positions.size());
  for (int r = 0; r < rings; ++r) {
    const float s = total * r / (rings - 1);
    int seg;
    float t;
    Locate(pts, s, &seg, &t);
    const glm::vec3 centre = pts[seg] + (pts[seg + 1] - pts[seg]) * t;
    const glm::vec3 axis = glm::normalize(pts[seg + 1] - pts[seg]);
    const glm::vec3 u = glm::normalize(glm::cross(axis, glm::vec3(1, 0, 0))),
                    v = glm::cross(axis, u);
    // Gathered at the tie (r0 / 2), full (r0) a little below it, tapering to r1 at the tip.
    const float grow = std::clamp(s / 0.08f, 0.0f, 1.0f);
    const float rad = (0.5f + 0.5f * grow * grow * (3 - 2 * grow)) * (r0 + (r1 - r0) * s / total);
    int j0, j1;
    float w0, w1;
    internal::ChainWeights(joints, pts, attach, s, 0.01f, &j0, &w0, &j1, &w1);
    for (int k = 0; k < sides; ++k) {
      const float a = 2 * kPi * k / sides;
      const glm::vec3 n = std::cos(a) * u + std::sin(a) * v;
      m.Vertex(b, centre + rad * n, n, j0, w0, j1, w1);
    }
  }
  m.Rings(first, rings, sides, true);
}

// A hair sheet along a chain: `rows` along it, `cols` across, `width` metres wide, lying on the
// surface around the head (across direction = horizontal, perpendicular to the outward normal).
void ChainSheet(const Builder& b, Prim& m, const std::vector<int>& joints, int attach,
                glm::vec3 head_centre, float width, int rows, int cols) {
  std::vector<glm::vec3> pts;
  pts.reserve(joints.size());
  for (int j : joints) pts.push_back(b.W(j));
  const float total = Length(pts);
  const uint32_t first = static_cast<uint32_t>(m.p.positions.size());
  for (int r = 0; r < rows; ++r) {
    const float s = total * r / (rows - 1);
    int seg;
    float t;
    Locate(pts, s, &seg, &t);
    const glm::vec3 centre = pts[seg] + (pts[seg + 1] - pts[seg]) * t;
    const glm::vec3 axis = glm::normalize(pts[seg + 1] - pts[seg]);
    glm::vec3 out = centre - head_centre;
    out.y = 0;
    out = glm::length(out) > 1e-4f ? glm::normalize(out) : glm::vec3(0, 0, 1);
    const glm::vec3 across = glm::normalize(glm::cross(axis, out));
    const glm::vec3 normal = glm::normalize(glm::cross(across, axis));
    const float w = width * (1.0f - 0.5f * s / total);  // tapers towards the tip
    int j0, j1;
    float w0, w1;
    internal::ChainWeights(joints, pts, attach, s, 0.015f, &j0, &w0, &j1, &w1);
    for (int c = 0; c < cols; ++c) {
      const float x = (static_cast<float>(c) / (cols - 1) - 0.5f) * w;
      // A slight curl across the sheet so layers read as volume.
      const float bulge = 0.004f * (1.0f - 4.0f * x * x / (w * w));
      m.Vertex(b, centre + across * x + normal * bulge, normal, j0, w0, j1, w1);
    }
  }
  m.Rings(first, rows, cols, false);
}

int AddMaterial(Avatar& av, const std::string& name, glm::vec3 color) {
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "{\"name\":\"%s\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[%.3f,%.3f,%.3f,1.0],"
      "\"metallicFactor\":0.0,\"roughnessFactor\":0.8},\"doubleSided\":true}",
      name.c_str(), color.x, color.y, color.z);
  av.materials.push_back({name, buf});
  return static_cast<int>(av.materials.size()) - 1;
}

void AddMesh(Builder& b, const std::string& name, Prim& prim, int material) {
  prim.p.material = material;
  Mesh mesh;
  mesh.name = name;
  mesh.primitives.push_back(std::move(prim.p));
  b.av.meshes.push_back(std::move(mesh));
  const int node = b.Node(name, -1, glm::vec3(0), false);
  b.av.nodes[node].mesh = static_cast<int>(b.av.meshes.size()) - 1;
  b.av.nodes[node].skin = 0;
  b.av.scene_roots.push_back(node);
}

Spring MakeSpring(const std::string& name, const std::vector<int>& joints, float stiffness,
                  float drag, float gravity, float hit) {
  Spring s;
  s.name = name;
  for (int n : joints) {
    SpringJoint j;
    j.node = n;
    j.stiffness = stiffness;
    j.drag_force = drag;
    j.gravity_power = gravity;
    j.hit_radius = hit;
    s.joints.push_back(j);
  }
  s.collider_groups = {0};
  return s;
}

void AddCollider(Avatar& av, int node, ColliderShape shape, glm::vec3 offset, float radius,
                 glm::vec3 tail = glm::vec3(0)) {
  Collider c;
  c.node = node;
  c.shape = shape;
  c.offset = offset;
  c.radius = radius;
  c.tail = shape == ColliderShape::kCapsule ? tail : offset;
  av.vrm.colliders.push_back(c);
  av.vrm.collider_groups[0].colliders.push_back(static_cast<int>(av.vrm.colliders.size()) - 1);
}

}  // namespace

bool ParseDemoVariant(std::string_view s, DemoVariant* out) {
  if (s == "ponytail")
    *out = DemoVariant::kPonytail;
  else if (s == "layered")
    *out = DemoVariant::kLayered;
  else
    return false;
  return true;
}

const char* DemoVariantName(DemoVariant v) {
  return v == DemoVariant::kPonytail ? "ponytail" : "layered";
}

Avatar MakeDemoAvatar(DemoVariant variant) {
  Builder b;
  // ---- skeleton (T-pose, all local rotations identity) ----
  const int hips = b.Node("Hips", -1, {0, 0.95f, 0});
  const int spine = b.Node("Spine", hips, {0, 0.10f, 0});
  const int chest = b.Node("Chest", spine, {0, 0.15f, 0});
  const int neck = b.Node("Neck", chest, {0, 0.22f, 0});
  const int head = b.Node("Head", neck, {0, 0.08f, 0});
  int side_nodes[2][7];
  for (int s = 0; s < 2; ++s) {
    const float x = s == 0 ? 1.0f : -1.0f;  // left is +X (facing +Z)
    const std::string p = s == 0 ? "Left" : "Right";
    side_nodes[s][0] = b.Node(p + "Shoulder", chest, {0.04f * x, 0.17f, 0});
    side_nodes[s][1] = b.Node(p + "UpperArm", side_nodes[s][0], {0.10f * x, 0, 0});
    side_nodes[s][2] = b.Node(p + "LowerArm", side_nodes[s][1], {0.26f * x, 0, 0});
    side_nodes[s][3] = b.Node(p + "Hand", side_nodes[s][2], {0.24f * x, 0, 0});
    side_nodes[s][4] = b.Node(p + "UpperLeg", hips, {0.09f * x, -0.05f, 0});
    side_nodes[s][5] = b.Node(p + "LowerLeg", side_nodes[s][4], {0, -0.42f, 0});
    side_nodes[s][6] = b.Node(p + "Foot", side_nodes[s][5], {0, -0.40f, 0});
  }
  b.av.scene_roots = {hips};
  const glm::vec3 head_centre = b.W(head) + glm::vec3(0, 0.10f, 0.01f);

  // ---- hair skeleton ----
  std::vector<std::vector<int>> chains;
  std::vector<std::string> chain_names;
  std::vector<int> bang_roots;
  if (variant == DemoVariant::kPonytail) {
    std::vector<int> p;
    int parent = head;
    const glm::vec3 offs[6] = {{0, 0.16f, -0.12f},  {0, -0.05f, -0.06f}, {0, -0.08f, -0.03f},
                               {0, -0.09f, -0.01f}, {0, -0.09f, 0.0f},   {0, -0.08f, 0.01f}};
    for (int i = 0; i < 6; ++i) {
      parent = b.Node("Ponytail_" + std::to_string(i), parent, offs[i]);
      p.push_back(parent);
    }
    chains.push_back(p);
    chain_names.push_back("ponytail");
    for (int k = 0; k < 7; ++k) {
      const float a = (k - 3) * 0.28f;  // spread across the forehead
      const glm::vec3 root =
          head_centre + glm::vec3(0.10f * std::sin(a), 0.06f, 0.10f * std::cos(a)) - b.W(head);
      const int r = b.Node("Bang_" + std::to_string(k), head, root);
      const int e = b.Node("Bang_" + std::to_string(k) + "_end", r,
                           {0.01f * std::sin(a), -0.07f, 0.025f}, false);
      chains.push_back({r, e});
      chain_names.push_back("bang_" + std::to_string(k));
      bang_roots.push_back(r);
    }
  } else {
    for (int k = 0; k < 12; ++k) {
      // Around the head from the back (ring 0) to the sides (ring 4); ring 5 (chains 10 and 11)
      // starts at the temples and comes forward over the shoulders onto the chest.
      const float sign = (k % 2 == 0) ? 1.0f : -1.0f;
      const int ring = k / 2;
      const bool front = ring == 5;
      const float a = sign * (front ? 2.05f : 0.2f + ring * 0.25f);  // angle from -Z around +Y
      const glm::vec3 dir(std::sin(a), 0, -std::cos(a));
      const glm::vec3 root =
          head_centre + dir * 0.09f + glm::vec3(0, front ? 0.03f : 0.07f, 0) - b.W(head);
      std::vector<int> c;
      int parent = b.Node("Hair_" + std::to_string(k) + "_0", head, root);
      c.push_back(parent);
      for (int j = 1; j < 6; ++j) {
        // Back and side strands fall behind the shoulders (clear of the shoulder spheres and arm
        // capsules at rest); the two front strands come forward over the shoulders onto the chest.
        glm::vec3 step;
        if (front)
          step = j == 1 ? dir * 0.05f + glm::vec3(0, -0.06f, 0.01f)
                        : glm::vec3(0.01f * sign, -0.095f, 0.035f);
        else
          step = j == 1 ? dir * 0.06f + glm::vec3(0, -0.05f, 0)
                        : glm::vec3(dir.x * 0.006f, -0.085f, -0.025f);
        parent = b.Node("Hair_" + std::to_string(k) + "_" + std::to_string(j), parent, step);
        c.push_back(parent);
      }
      chains.push_back(c);
      chain_names.push_back("hair_" + std::to_string(k) + (front ? "_front" : ""));
    }
  }

  // ---- meshes ----
  const int m_body = AddMaterial(b.av, "Body", {0.93f, 0.80f, 0.70f});
  const int m_shirt = AddMaterial(b.av, "Shirt", {0.25f, 0.45f, 0.80f});
  const int m_hair = AddMaterial(b.av, "Hair", {0.35f, 0.20f, 0.12f});

  Prim body;
  Torso(b, body, {0, 0}, 0.85f, 1.40f, {0.14f, 0.10f}, {hips, spine, chest}, 24, 32);
  Limb(b, body, b.W(neck), b.W(head) + glm::vec3(0, 0.02f, 0), 0.05f, 0.05f, neck, 6, 16);
  for (int s = 0; s < 2; ++s) {
    Limb(b, body, b.W(side_nodes[s][0]), b.W(side_nodes[s][2]), 0.05f, 0.04f, side_nodes[s][1], 8,
         16);
    Limb(b, body, b.W(side_nodes[s][2]), b.W(side_nodes[s][3]), 0.04f, 0.03f, side_nodes[s][2], 8,
         16);
    Limb(b, body, b.W(side_nodes[s][4]), b.W(side_nodes[s][5]), 0.07f, 0.05f, side_nodes[s][4], 10,
         16);
    Limb(b, body, b.W(side_nodes[s][5]), b.W(side_nodes[s][6]), 0.05f, 0.04f, side_nodes[s][5], 10,
         16);
  }
  AddMesh(b, "Body", body, m_body);
  Prim headmesh;
  Sphere(b, headmesh, head_centre, 0.105f, head, 20, 32);
  AddMesh(b, "Head", headmesh, m_body);

  // The shirt: a separate skinned layer 1.5 cm over the chest and shoulders, with short sleeves.
  Prim shirt;
  Torso(b, shirt, {0, 0}, 0.88f, 1.38f, {0.155f, 0.115f}, {hips, spine, chest}, 26, 40);
  for (int s = 0; s < 2; ++s)
    Limb(b, shirt, b.W(side_nodes[s][0]) - glm::vec3(s == 0 ? 0.03f : -0.03f, 0, 0),
         b.W(side_nodes[s][1]) + (b.W(side_nodes[s][2]) - b.W(side_nodes[s][1])) * 0.4f, 0.065f,
         0.055f, side_nodes[s][1], 8, 20);
  AddMesh(b, "Shirt", shirt, m_shirt);

  Prim hair;
  if (variant == DemoVariant::kPonytail) {
    ChainTube(b, hair, chains[0], head, 0.032f, 0.010f, 50, 32);  // 1,600 vertices
    AddMesh(b, "Ponytail", hair, m_hair);
    Prim bangs;
    for (size_t k = 1; k < chains.size(); ++k) {
      // A small strip from the bang root to its end node, weighted to the bang bone (the end
      // node is not a skinned bone).
      const glm::vec3 a = b.W(chains[k][0]), e = b.W(chains[k][1]);
      const uint32_t first = static_cast<uint32_t>(bangs.p.positions.size());
      for (int r = 0; r < 8; ++r) {
        const float t = r / 7.0f;
        for (int c = 0; c < 3; ++c) {
          const glm::vec3 pos = a + (e - a) * t + glm::vec3((c - 1) * 0.008f, 0, 0);
          bangs.Vertex(b, pos, {0, 0, 1}, r == 0 ? head : chains[k][0], 1);
        }
      }
      bangs.Rings(first, 8, 3, false);
    }
    AddMesh(b, "Bangs", bangs, m_hair);
  } else {
    for (size_t k = 0; k < chains.size(); ++k)
      ChainSheet(b, hair, chains[k], head, head_centre, 0.085f, 43, 25);
    AddMesh(b, "HairLayers", hair, m_hair);  // 12 x 43 x 25 = 12,900 vertices
  }

  // ---- skin ----
  Skin skin;
  skin.name = "Armature";
  skin.joints = b.skin_joints;
  for (int j : b.skin_joints) skin.inverse_bind.push_back(glm::translate(glm::mat4(1.0f), -b.W(j)));
  b.av.skins.push_back(skin);

  // ---- VRM ----
  VrmData& vrm = b.av.vrm;
  vrm.version = VrmVersion::kV1;
  vrm.source_spec_version = "1.0";
  vrm.humanoid = {
      {"hips", hips}, {"spine", spine}, {"chest", chest}, {"neck", neck}, {"head", head}};
  const char* side_bones[7] = {"Shoulder", "UpperArm", "LowerArm", "Hand",
                               "UpperLeg", "LowerLeg", "Foot"};
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 7; ++i)
      vrm.humanoid[std::string(s == 0 ? "left" : "right") + side_bones[i]] = side_nodes[s][i];
  vrm.meta_json =
      std::string("{\"name\":\"hairswing demo (") + DemoVariantName(variant) +
      ")\",\"version\":\"1\",\"authors\":[\"hairswing\"],\"licenseUrl\":\"https://vrm.dev/licenses/"
      "1.0/\","
      "\"avatarPermission\":\"everyone\",\"commercialUsage\":\"corporation\","
      "\"allowRedistribution\":true,"
      "\"modification\":\"allowModificationRedistribution\",\"creditNotation\":\"unnecessary\"}";
  vrm.collider_groups.push_back({"body", {}});
  // Head sphere a little inside the scalp, so hair roots (11 cm from the centre) start clear of it.
  AddCollider(b.av, head, ColliderShape::kSphere, head_centre - b.W(head), 0.09f);
  AddCollider(b.av, neck, ColliderShape::kCapsule, {0, 0, 0}, 0.045f, {0, 0.08f, 0});
  // Artists' chest capsule: a little inside the shirt (the fitter issue grows it).
  AddCollider(b.av, chest, ColliderShape::kCapsule, {-0.05f, 0.02f, 0}, 0.10f, {0.05f, 0.02f, 0});
  for (int s = 0; s < 2; ++s) {
    AddCollider(b.av, side_nodes[s][0], ColliderShape::kSphere, {0, 0, 0}, 0.055f);
    const glm::vec3 arm = b.W(side_nodes[s][2]) - b.W(side_nodes[s][1]);
    AddCollider(b.av, side_nodes[s][1], ColliderShape::kCapsule, {0, 0, 0}, 0.045f, arm * 0.9f);
  }
  for (size_t k = 0; k < chains.size(); ++k) {
    const bool bang = chain_names[k].rfind("bang", 0) == 0;
    // No gravity: the modelled shape is the rest shape (as most VRM hair rigs are authored).
    vrm.springs.push_back(MakeSpring(chain_names[k], chains[k], bang ? 2.0f : 1.0f, 0.4f, 0.0f,
                                     bang ? 0.01f : 0.02f));
  }
  b.av.asset_json = "{\"version\":\"2.0\",\"generator\":\"hairswing make-demo-avatar\"}";
  b.av.source_format = "vrm";
  return std::move(b.av);
}

}  // namespace hairswing
