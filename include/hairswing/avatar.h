// The editable avatar document: what io reads and writes, what fit edits. Names, tree and
// pass-through JSON live here; the solver never sees this type (it gets a flat Rig).
//
// Conventions (docs/conventions.md): right-handed, +Y up, metres, VRM 1.0 facing +Z. VRM 0.x
// files are rotated 180 degrees about Y on import so every Avatar follows the VRM 1.0 rules.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <map>
#include <string>
#include <vector>

namespace hairswing {

/// A scene node. Local transform as translation/rotation/scale (a glTF `matrix` is decomposed).
struct Node {
  std::string name;
  int parent = -1;              ///< index into Avatar::nodes; -1 for a root
  std::vector<int> children;    ///< indices into Avatar::nodes, in file order
  glm::vec3 translation{0.0f};  ///< metres, in the parent frame
  glm::quat rotation{1, 0, 0,
                     0};  ///< unit, in the parent frame (constructor takes w,x,y,z; stored x,y,z,w)
  glm::vec3 scale{1.0f};  ///< per-axis factor
  int mesh = -1;          ///< index into Avatar::meshes, or -1
  int skin = -1;          ///< index into Avatar::skins, or -1
  std::vector<float> morph_weights;  ///< node-level default morph weights (may be empty)
  std::string extensions_json;  ///< node extensions we do not model, verbatim JSON object or ""
  std::string extras_json;      ///< `extras`, verbatim JSON or ""
};

struct Skin {
  std::string name;
  std::vector<int> joints;              ///< node indices
  std::vector<glm::mat4> inverse_bind;  ///< one per joint (identity when the file has none)
  int skeleton = -1;                    ///< node index or -1
};

/// A morph target: per-vertex deltas; an empty array means the attribute is not morphed.
struct MorphTarget {
  std::vector<glm::vec3> positions;  ///< metres
  std::vector<glm::vec3> normals;
  std::vector<glm::vec3> tangents;
};

/// A vertex attribute we do not interpret (TEXCOORD_n, COLOR_n, TANGENT, JOINTS_1, ...), kept as
/// floats so it can be written back. Normalized integer data is converted to [0,1] / [-1,1].
struct ExtraAttribute {
  int components = 0;       ///< 1..4 (VEC2 -> 2, ...)
  std::vector<float> data;  ///< count * components
};

struct Primitive {
  std::vector<glm::vec3> positions;  ///< metres, mesh space
  std::vector<glm::vec3> normals;    ///< unit, or empty
  std::vector<glm::u16vec4> joints;  ///< JOINTS_0: indices into the skin's joint list, or empty
  std::vector<glm::vec4> weights;    ///< WEIGHTS_0, or empty
  std::vector<uint32_t> indices;     ///< triangle list for mode 4; generated 0..n-1 if absent
  std::map<std::string, ExtraAttribute> extra_attributes;
  std::vector<MorphTarget> targets;
  int material = -1;            ///< index into Avatar::materials, or -1
  int mode = 4;                 ///< glTF primitive mode (4 = triangles)
  std::string extensions_json;  ///< the primitive's extensions, verbatim JSON object or ""
  std::string extras_json;      ///< the primitive's extras, verbatim JSON or ""
  /// Extensions of the accessors behind the attributes ("POSITION", ...) and "indices",
  /// verbatim: the writer puts them on the accessors it makes for the same data.
  std::map<std::string, std::string> accessor_extensions;
};

struct Mesh {
  std::string name;
  std::vector<Primitive> primitives;
  std::vector<float> morph_weights;
  std::string extras_json;      ///< verbatim (often holds morph target names)
  std::string extensions_json;  ///< the mesh's extensions, verbatim JSON object or ""
};

/// Materials, textures and samplers pass through unchanged: we keep their JSON. Texture indices
/// inside them refer to Avatar::textures, which refer to Avatar::images.
struct Material {
  std::string name;
  std::string json;  ///< the whole glTF material object
};

struct Image {
  std::string name;
  std::string mime_type;       ///< "image/png", "image/jpeg", ...
  std::string uri;             ///< original external file name, "" when embedded
  std::vector<uint8_t> bytes;  ///< encoded file bytes, never decoded; empty if missing
};

struct AnimationChannel {
  int node = -1;
  enum class Path { kTranslation, kRotation, kScale, kWeights } path = Path::kTranslation;
  enum class Interp { kStep, kLinear, kCubicSpline } interpolation = Interp::kLinear;
  std::vector<float> times;   ///< seconds, non-decreasing
  std::vector<float> values;  ///< times.size() * components (x3 for cubic spline)
  int components = 3;         ///< 3 for T/S, 4 for R (x,y,z,w), morph count for weights
};

/// The longest animation the readers accept, in seconds (key times must lie within
/// [-kMaxAnimationSeconds, kMaxAnimationSeconds]). Everything downstream samples clips at a fixed
/// rate, so the length is what sets the memory: an hour retargeted at 30 Hz is 108,000 poses.
constexpr double kMaxAnimationSeconds = 3600.0;

struct Animation {
  std::string name;
  std::vector<AnimationChannel> channels;
};

// ---- VRM ------------------------------------------------------------------------------------

enum class VrmVersion { kNone = 0, kV0 = 1, kV1 = 2 };

/// An angle limit on a joint's segment (VRMC_springBone_limit 1.0-draft; docs/tune.md). The
/// limit's frame: the joint's rest rotation under its parent's current rotation, turned so +Y
/// points along the bone at rest, then by `rotation`. The segment's direction is kept inside
/// the shape: a cone of half-angle `angle` around +Y; a hinge (rotation about X only, up to
/// `angle` from +Y); or a spherical range (`angle` = pitch about X up to pi, `yaw` towards X up
/// to pi/2).
struct JointLimit {
  enum class Kind : uint8_t { kNone = 0, kCone, kHinge, kSpherical } kind = Kind::kNone;
  float angle = 0.0f;              ///< radians: cone / hinge angle, spherical pitch
  float yaw = 0.0f;                ///< radians: spherical yaw
  glm::quat rotation{1, 0, 0, 0};  ///< unit, relative to the default orientation
  bool operator==(const JointLimit&) const = default;
};
const char* JointLimitKindName(JointLimit::Kind k);  ///< "none", "cone", "hinge", "spherical"

/// One spring joint with the VRMC_springBone 1.0 parameters (spec defaults below).
struct SpringJoint {
  int node = -1;
  float hit_radius = 0.0f;  ///< node units (metres at scale 1), radius of the segment starting here
  float stiffness = 1.0f;   ///< VRM units (pull towards rest per second)
  float gravity_power = 0.0f;                ///< VRM units (m/s of tail displacement)
  glm::vec3 gravity_dir{0.0f, -1.0f, 0.0f};  ///< world space, unit
  float drag_force = 0.5f;                   ///< [0,1]
  JointLimit limit;  ///< none unless set; never on a spring's last joint (it is only a tail)
};

/// A chain of joints; the last joint is only a tail. VRM 0.x leaf bones have no child node, so
/// their tail is virtual: `virtual_tail` (bone-local offset, 7 cm along the bone's own local
/// translation, as three-vrm does) and the last joint is then simulated too.
struct Spring {
  std::string name;
  std::vector<SpringJoint> joints;
  std::vector<int> collider_groups;  ///< indices into VrmData::collider_groups
  int center = -1;                   ///< node index or -1 (world)
  int source_group = -1;             ///< VRM 0.x boneGroups index it was expanded from, or -1
  bool has_virtual_tail = false;
  glm::vec3 virtual_tail{0.0f};  ///< metres, local to the last joint's node
  /// hairswing: test whole links against colliders (not a VRM field; written to the spring's
  /// extras as "hairswing_segment_checks", which other readers ignore).
  bool segment_checks = false;
  /// hairswing bake: the spring's motion is baked into the avatar's animations, so no runtime
  /// should simulate it (it would overwrite the baked rotations). Written into
  /// VRMC_springBone.extras.hairswing_baked_springs instead of "springs" (same schema, read back
  /// here), and left out of the Rig.
  bool baked = false;
};

enum class ColliderShape { kSphere, kCapsule, kInsideSphere, kInsideCapsule, kPlane };
const char* ColliderShapeName(ColliderShape s);  ///< "sphere", "capsule", "inside_sphere", ...

struct Collider {
  int node = -1;
  ColliderShape shape = ColliderShape::kSphere;
  glm::vec3 offset{0.0f};  ///< node-local metres (sphere centre / capsule head / plane point)
  float radius =
      0.0f;  ///< node units (metres at scale 1; unused for planes), see Rig::collider_radius
  glm::vec3 tail{0.0f};       ///< node-local capsule tail
  glm::vec3 normal{0, 0, 1};  ///< node-local plane normal
  /// Extended shapes (inside/plane) also carry the core-spec fallback shape for old readers.
  bool has_fallback = false;
  ColliderShape fallback_shape = ColliderShape::kSphere;  ///< kSphere or kCapsule
  glm::vec3 fallback_offset{0.0f};
  float fallback_radius = 0.0f;
  glm::vec3 fallback_tail{0.0f};
};

struct ColliderGroup {
  std::string name;
  std::vector<int> colliders;  ///< indices into VrmData::colliders
};

struct NodeConstraint {
  int node = -1;  ///< the constrained (destination) node
  enum class Kind { kAim, kRoll, kRotation } kind = Kind::kRotation;
  int source = -1;      ///< node index
  float weight = 1.0f;  ///< [0,1]
  std::string axis;     ///< aimAxis ("PositiveX"...) or rollAxis ("X"/"Y"/"Z"); "" for rotation
  std::string extensions_json;  ///< the rest of the node's VRMC_node_constraint object, verbatim
};

struct VrmData {
  VrmVersion version = VrmVersion::kNone;
  std::string source_spec_version;      ///< as written in the file ("0.0", "1.0", ...)
  std::map<std::string, int> humanoid;  ///< VRM 1.0 bone name ("head", "leftUpperArm") -> node
  std::string meta_json;                ///< VRM 1.0 meta object (converted from 0.x)
  std::string vrmc_vrm_json;            ///< rest of VRMC_vrm (expressions, lookAt...) or ""
  std::vector<Spring> springs;
  std::vector<Collider> colliders;
  std::vector<ColliderGroup> collider_groups;
  std::vector<NodeConstraint> constraints;
  /// VRM 0.x source: the file's `VRM` extension object and its glTF materials as they were
  /// (before the conversion to VRM 1.0 above), so the avatar can be written back as VRM 0.x.
  std::string vrm0_json;
  std::vector<std::string> vrm0_materials_json;
};

struct Avatar {
  std::string source_path;    ///< file it was loaded from, for messages
  std::string source_format;  ///< "gltf", "glb", "vrm"
  std::vector<Node> nodes;
  std::vector<int> scene_roots;  ///< root nodes of the default scene
  std::vector<Skin> skins;
  std::vector<Mesh> meshes;
  std::vector<Material> materials;
  std::vector<std::string> textures_json;  ///< glTF texture objects, verbatim
  std::vector<std::string> samplers_json;  ///< glTF sampler objects, verbatim
  std::vector<Image> images;
  std::vector<Animation> animations;
  VrmData vrm;
  /// Root-level extensions we do not model, keyed by extension name, value verbatim JSON.
  std::map<std::string, std::string> unknown_extensions;
  std::vector<std::string> extensions_required;  ///< as in the file, minus the ones we consume
  std::string asset_json;  ///< the source `asset` object (generator, copyright)
};

}  // namespace hairswing
