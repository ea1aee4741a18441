// The spring solver: hair chains that follow their attachment a moment late, swing and settle.
//
// Three modes on the same rig, switchable at run time (docs/solver.md has the maths):
//   arc    (default) rest direction of every segment taken from the ORIGINAL arc of the chain,
//          held in the attachment frame (usually the head): r_i = o_i + R_H R_i^0 (s a_i).
//   parent the same integrator, but the rest direction comes from the already bent parent
//          joint (what VRM/three-vrm/UniVRM do): the "previous" solver that curls into tentacles.
//   vrm    the VRMC_springBone 1.0 reference (Verlet), numerically matching three-vrm's
//          VRMSpringBoneJoint; StepVariable() runs it once per caller frame like three-vrm.
//
// Fixed steps of h = 1/120 s. A step takes the pose at the step's time (body animation and node
// constraints already applied) and writes the spring joints' local rotations back into it.
// Step() never allocates; all buffers are sized in Create().
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hairswing/collide.h"
#include "hairswing/rig.h"
#include "hairswing/status.h"

namespace hairswing {

/// A glm::vec3 stored in 16 bytes (the fourth float is unused and holds no value): the solver
/// keeps its per-joint state in these so that its SIMD lanes move a joint's point with one load
/// or store. It is a glm::vec3 (its base): glm's operators and most of its functions take it as
/// one. The glm functions that also take a plain number (glm::length, glm::dot, glm::min, a
/// glm::vec3's +=) take it for that number and fail to compile: pass glm::vec3(p), or use
/// SpringWorld::tail(j) / velocity(j), which return the glm::vec3 itself.
struct alignas(16) PaddedVec3 : glm::vec3 {
  PaddedVec3() = default;
  PaddedVec3(const glm::vec3& v) : glm::vec3(v) {}  // NOLINT(google-explicit-constructor)
};
static_assert(sizeof(PaddedVec3) == 16);

enum class SolverMode { kArc = 0, kParent = 1, kVrm = 2 };
const char* SolverModeName(SolverMode m);  ///< "arc", "parent", "vrm"
bool ParseSolverMode(std::string_view s, SolverMode* out);

struct SpringConfig;
/// arc's named settings (docs/solver.md): "article" (the defaults: arc_liveliness 0,
/// arc_stiffness 1.6, the article's improved solver), "lively" (arc_liveliness 1,
/// arc_stiffness 1: swings about as far as the VRM reference) and "follow" (as lively, with
/// arc_follow 0.7: the first segment carries the lag, the ones below turn with it; curls a fifth
/// to a third as much, bends the root more: pair it with re-weighted roots). False for another
/// name.
bool ApplyArcSetting(std::string_view name, SpringConfig* config);
/// The names ApplyArcSetting knows: "article", "lively", "follow".
const std::vector<std::string>& ArcSettingNames();

struct SpringConfig {
  SolverMode mode = SolverMode::kArc;
  /// arc/parent: the tuned defaults (docs/solver.md): the author's k and drag are kept (so the
  /// author's lag, c V / k, is kept), and relative damping is added until every segment has at
  /// least 60% of critical damping. Relative damping acts on the velocity relative to the moving
  /// rest target, so it settles oscillation without adding lag. false = the plain VRM mapping.
  /// vrm mode ignores this.
  bool tuned = true;
  /// arc only, in [0, 1]: how much of the author's liveliness arc keeps. A parent-relative chain
  /// (VRM, three-vrm) adds up the lags of all joints above a segment, so its tip lags about
  /// (n+1)/2 times as far as an arc chain of n segments with the same parameters. With 1 every
  /// arc segment's air drag is multiplied by the chain's factor T_parent / T_arc (from the
  /// segments' k, drag and lengths), so the tip swings about as far as the author saw it, as a
  /// rigid swing rather than a curl; 0 (default, the article's setting) = the author's drag per
  /// segment: less swing on long chains and less stretch at the root. docs/solver.md has the
  /// measurements and the named settings (ArcSetting).
  float arc_liveliness = 0.0f;
  /// arc only, in [0, 1]: how far the segments below a chain's first turn with the first
  /// segment's swing. Each lower segment's rest direction (the original arc in the attachment
  /// frame) is turned by this fraction of the rotation that takes the first segment's rest
  /// direction to where it is now. With it, the liveliness above goes mostly to the first segment
  /// (its drag raised so that, in steady motion, the tip lags as far as the author's chain; the
  /// segments below keep (1 - arc_follow) F^1.25 of the author's drag, F the chain's lively
  /// factor), so the chain swings from its root and the segments below mostly follow instead of
  /// each lagging on its own: less curl, more bend at the root.
  /// 0 (default) = the original arc. docs/solver.md has the measurements.
  float arc_follow = 0.0f;
  /// arc only: every joint's stiffness x this, on top of stiffness_scale. The article's improved
  /// solver also set the artist rigs "a bit stiffer, with more damping": 1.6 (default) is that
  /// tuning, the smallest factor that gives the article's before/after figures on the demo avatars
  /// (docs/solver.md; the tuned relative damping grows with the stiffness); 1 = the author's.
  float arc_stiffness = 1.6f;
  /// arc only, degrees in (0, 180]: the lag guard. No free segment lags further than this behind
  /// the direction it is pulled towards (its rest target: the arc in the attachment frame, or
  /// what arc_follow and draping make of it, tipped by its gravity, so hair still hangs down when
  /// the head is upside down); an end past it is put back on that cone before its velocity is
  /// rebuilt, like an angle limit. A segment that touched a collider at the last step is left to
  /// the collider (contacts come after the guard), unless its chain is thrown: its chord (root to
  /// last end) more than this angle from its rest chord in the attachment frame. Then it is put
  /// back too and its contacts are checked along the whole link, so it slides over the collider;
  /// kept only where it then lags less than it would have unguarded. A violent roll or jump then
  /// cannot throw hair far behind or over the head, while the head-turn and the walking clips
  /// stay inside the cone. 45 (default); 180 = off. docs/solver.md has the measurements.
  float arc_max_lag_deg = 45.0f;
  /// Multiplies every joint's stiffness (all modes): the swing-matched comparison of `measure`
  /// scales it until two solvers swing alike. 1 = as authored.
  float stiffness_scale = 1.0f;
  int max_steps_per_call = 12;     ///< drivers run at most this many steps per call (0.1 s)
  float teleport_distance = 0.5f;  ///< metres the attachment may jump in one step before reset
  float teleport_angle = 1.5f;     ///< radians the attachment may turn in one step before reset
  /// vrm mode: reproduce three-vrm 3.5.5 exactly, including its bone length taken from the
  /// child's world position as it was at the start of the frame (stale once the parent joint
  /// has moved in the same update, so moving chains stretch). Off (default) = the spec's true
  /// world-space bone length. docs/solver.md lists every known three-vrm difference.
  bool vrm_three_compat = false;
  /// arc/parent: let plain chains (direct parent-child joints, uniform scale, not owned by a
  /// clip) take the flat path, which carries only joint positions through the joint loop and
  /// builds rotations once per caller frame (docs/solver.md, "Two paths"). false = every chain
  /// takes the general path with world matrices: the reference the flat path is tested against
  /// (same physics; results differ in the last bits).
  bool flat_path = true;
  /// Flat path: solve like chains (of similar length, up to 16 colliders) side by side in SIMD
  /// lanes, link depth by link depth, and write their rotations back the same way (docs/solver.md,
  /// "Chains in lanes"). Same operations in each lane as alone: the results are the same bit for
  /// bit. false = one chain after another, the reference the lanes are tested against. Builds
  /// without SIMD (HAIRSWING_SIMD=OFF) always solve one by one.
  bool chain_lanes = true;
  /// How many chains go side by side (SpringWorld::lane_width()): 0 = the widest this processor
  /// runs (8 with AVX2 on x86-64, else 4); 4 or 8 to choose (8 falls back to 4 where it cannot
  /// run). Every width gives the same bits.
  int lane_width = 0;
  /// Per Rig chain: 1 = test the whole link against colliders, 0 = the link's end point only.
  /// Empty = each chain's own RigChain::segment_checks (off for plain VRM rigs, as VRM does).
  std::vector<uint8_t> segment_checks;
};

/// Flags describing what a step did (Jolt's EPhysicsUpdateError style): set bits accumulate.
enum StepFlag : uint32_t {
  kStepRefusedNonFinite = 1u << 0,  ///< the input pose or the frame's dt had NaN/inf: nothing ran
  kStepTeleportReset = 1u << 1,     ///< a chain's attachment jumped; it was reset to its rest arc
  kStepZeroLength = 1u << 2,        ///< a zero-length segment was skipped
  kStepZeroDt = 1u << 3,            ///< dt <= 0: nothing to do
  kStepStepsDropped = 1u << 4,      ///< the driver hit max_steps_per_call and skipped time
  kStepContact = 1u << 5,           ///< at least one contact was resolved
  kStepRepaired = 1u << 6,          ///< a non-finite intermediate was replaced by the rest arc
  kStepLagGuard = 1u << 7,          ///< arc: a segment was held by the lag guard (arc_max_lag_deg)
};

struct StepReport {
  uint32_t flags = 0;
  int steps_run = 0;
  int steps_dropped = 0;
  int teleports = 0;
  int contacts = 0;
  void Merge(const StepReport& o) {
    flags |= o.flags;
    steps_run += o.steps_run;
    steps_dropped += o.steps_dropped;
    teleports += o.teleports;
    contacts += o.contacts;
  }
};

/// Solver coefficients for one segment (docs/solver.md, "From VRM parameters to k, c, g").
struct SegmentCoefficients {
  float k;          ///< restoring coefficient, 1/s^2
  float c;          ///< damping rate of the world velocity (air drag, the author's dragForce), 1/s
  glm::vec3 g;      ///< gravity, m/s^2 (world)
  float c_rel = 0;  ///< damping rate of the velocity relative to the rest target, 1/s
};

/// The mapping from a joint's VRM parameters (and its rest length in metres) to k, c, g.
SegmentCoefficients MapVrmParameters(float stiffness, float drag_force, float gravity_power,
                                     const glm::vec3& gravity_dir, float rest_length, bool tuned);

namespace internal {
/// A joint's angle limit ready for the step (an implementation detail of SpringWorld; the
/// functions using it are in src/spring/limits.h): the shape's constants computed once.
struct PreparedLimit {
  JointLimit::Kind kind = JointLimit::Kind::kNone;
  float cos_a = 1.0f, sin_a = 0.0f;  ///< cone / hinge angle
  float pitch = 0.0f, yaw = 0.0f;    ///< spherical, radians, clamped to [0, pi] and [0, pi/2]
  /// From the joint's rest local frame to the limit's: Rot(+Y -> bone axis) * limit.rotation.
  glm::quat local{1, 0, 0, 0};
};
}  // namespace internal

class SpringWorld {
 public:
  static constexpr double kStep = 1.0 / 120.0;  ///< seconds per fixed step
  /// The longest caller frame the drivers take, seconds (a day): a longer dt counts as this long
  /// (its steps beyond max_steps_per_call are dropped and reported as always), so a caller that
  /// passes a wall-clock time instead of a delta keeps a running solver and sees
  /// kStepStepsDropped instead of a frozen one.
  static constexpr double kMaxFrameDt = 86400.0;

  /// Builds the world for `rig` (which must outlive it). Fails on a config that does not fit the
  /// rig (e.g. segment_checks of the wrong size).
  static Result<SpringWorld> Create(const Rig& rig, const SpringConfig& config = {});
  /// A temporary rig would dangle (`Create(*BuildRig(avatar))`): keep the rig in a variable.
  static Result<SpringWorld> Create(const Rig&& rig, const SpringConfig& config = {}) = delete;

  const Rig& rig() const { return *rig_; }
  const SpringConfig& config() const { return config_; }
  SolverMode mode() const { return config_.mode; }
  /// Switches the mode, carrying positions and velocities over.
  void SetMode(SolverMode mode);
  void SetSegmentChecks(int chain, bool on);
  /// Animation ownership: owned[node] != 0 means the clip animates this rig node; a spring joint
  /// on such a node keeps its authored pose and the solver leaves it alone. Empty = none.
  void SetOwnedNodes(std::span<const uint8_t> owned);

  /// One spring joint's VRM parameters (VRMC_springBone's, three-vrm's joint settings). They
  /// start as the rig's and can be changed while the world runs.
  struct JointSettings {
    float stiffness = 1.0f;                    ///< VRM units (pull back per second)
    float drag_force = 0.4f;                   ///< [0, 1]
    float gravity_power = 0.0f;                ///< VRM units
    glm::vec3 gravity_dir{0.0f, -1.0f, 0.0f};  ///< world, unit
    float hit_radius = 0.02f;                  ///< as Rig::joint_hit_radius
  };
  /// The settings joint `joint` (flat index, rig().joint_node() order) steps with now.
  JointSettings joint_settings(int joint) const;
  /// Changes joint `joint`'s settings from the next step on; positions and velocities carry over
  /// (only the forces change). A chain's last joint is only its tip: its settings are kept and
  /// used by no step. Fails, changing nothing, on an index out of range, a value that is not a
  /// finite number, a negative stiffness, gravity power or hit radius, a drag force outside
  /// [0, 1] or a zero gravity direction (normalised otherwise). Not for every frame: it
  /// recomputes the chain's coefficients (microseconds).
  Status SetJointSettings(int joint, const JointSettings& settings);

  /// Puts every chain on its rest arc under `pose` (rig.node_count() transforms), at rest.
  void Reset(std::span<const Transform> pose);

  // The steps below (and DrivenFrameDriver::Advance) neither allocate nor throw once the world
  // is built (tests/robustness_test.cpp counts allocations), and say so with noexcept: a caller
  // inside a try block then calls them directly. That matters in the WebAssembly build, whose
  // C++ exceptions go through JavaScript: a call that might throw inside the C API's try block
  // became a round trip through a JavaScript trampoline on every frame.

  /// One fixed step of kStep seconds. `pose` holds the local transforms at the step's time; the
  /// spring joints' rotations are written back. A pose with NaN/inf is refused unchanged.
  StepReport Step(std::span<Transform> pose) noexcept;

  /// vrm mode only: one step of `dt` seconds, exactly like three-vrm's update(delta) per frame.
  StepReport StepVariable(std::span<Transform> pose, float dt) noexcept;

  // Engine-facing input: an engine keeps its own skeleton and should not copy or scan all of it
  // every step. It hands over only the world transforms the solver reads and gets back only the
  // spring joints' local rotations. Spring joints (and the nodes between two joints) keep their
  // rest translation and scale. Given the same world transforms, StepDriven computes bitwise
  // what Step computes on a whole pose (tests/spring_test.cpp checks it).

  /// The rig nodes whose world transforms StepDriven and ResetDriven read, in rig order (parents
  /// first): every chain's attachment, centre node and root joint's parent, and every collider
  /// node. World transforms are those of the animated pose with the spring joints at rest.
  std::span<const int> driver_nodes() const { return driver_nodes_; }
  /// Reset() from the driver nodes' world transforms (driver_world[i] for driver_nodes()[i]).
  void ResetDriven(std::span<const glm::mat4> driver_world);
  /// One fixed step from the driver nodes' world transforms. `rotations` (one per flat joint
  /// index, rig().joint_node()) receives every spring joint's local rotation; for a joint owned
  /// by the animation (SetOwnedNodes) it is read instead, as the clip's rotation. Transforms with
  /// NaN/inf are refused unchanged.
  StepReport StepDriven(std::span<const glm::mat4> driver_world,
                        std::span<glm::quat> rotations) noexcept;
  /// vrm mode only: StepDriven with a step of `dt` seconds, exactly like three-vrm's
  /// update(delta) per frame (StepVariable's engine-facing form).
  StepReport StepDrivenVariable(std::span<const glm::mat4> driver_world,
                                std::span<glm::quat> rotations, float dt) noexcept;

  /// World position of each joint's segment end (the next joint), per flat joint index.
  std::span<const PaddedVec3> tails() const { return tail_; }
  /// Velocity of each segment end, m/s.
  std::span<const PaddedVec3> velocities() const { return vel_; }
  /// tails()[j] and velocities()[j] as plain glm::vec3.
  const glm::vec3& tail(int j) const { return tail_[j]; }
  const glm::vec3& velocity(int j) const { return vel_[j]; }
  /// World matrices after the last step of the nodes the solver works with: spring joints, the
  /// nodes between them, and every ancestor of a chain, a collider or a center node. Other nodes
  /// are not updated; build them from the output pose with ComputeWorld when needed.
  std::span<const glm::mat4> world() const {
    if (world_lazy_any_) FinishWorld();  // after a driven frame: the joints' matrices now
    return world_;
  }
  /// How many chains took the flat path in the last step (SpringConfig::flat_path).
  int flat_chains() const { return flat_chains_; }
  /// How many of them were solved side by side in SIMD lanes (SpringConfig::chain_lanes).
  int lane_chains() const { return lane_chains_; }
  /// Chains per lane group at most: 4 or 8 (SpringConfig::lane_width).
  int lane_width() const { return lane_width_; }
  /// FNV-1a hash of the positions and velocities (bitwise determinism checks).
  uint64_t StateHash() const;
  /// Per segment coefficients in use (index = flat joint index; the tail joint's entry unused).
  std::span<const SegmentCoefficients> coefficients() const {
    return Coefficients(config_.mode == SolverMode::kArc).coef;
  }

 private:
  SpringWorld() = default;
  StepReport Run(std::span<Transform> pose, float h, bool variable, bool write);
  StepReport Solve(std::span<Transform> pose, float h, bool variable, bool check_pose,
                   StepReport rep);
  StepReport RunDriven(std::span<const glm::mat4> driver_world, std::span<glm::quat> rotations,
                       float h, bool variable, bool write);
  void ComputeStaleChildren(std::span<Transform> pose, bool whole_pose);
  void SetDriverWorld(std::span<const glm::mat4> driver_world);
  void PrepareWorld(std::span<Transform> pose);
  void ResolveColliders(bool scale_radius);
  void UpdateRootWorld(const RigChain& ch, std::span<const Transform> pose);
  // world_[node] = its parent's world matrix x the node's local transform.
  void UpdateNodeWorld(int node, const Transform& local);
  void UpdateNodeWorld(int node, const glm::mat4& local);  // local: the node's local matrix
  bool CheckTeleport(int chain);
  void ResetChain(int chain, std::span<Transform> pose);
  void UpdateWorldPath(int joint, std::span<const Transform> pose);
  struct ModeCoefficients;
  // What one arc/parent link step needs besides the joint (arc_solver.cpp).
  struct NearRange {
    int begin, end;  // slots of the near_* arrays
  };
  struct LinkContext {
    const ModeCoefficients* mc;
    glm::mat3 attach;  // rotation x scale of the attachment's world frame
    float h, inv_h;
    bool fixed;      // h is kStep: the per-step factors are precomputed
    bool arc;        // arc mode (else parent)
    bool segment;    // whole-link contact
    NearRange near;  // the chain's colliders that passed the broad phase
    int chain;       // the chain and its root joint this step (ChainThrown)
    glm::vec3 root;
  };
  // Whether lc's chain is thrown: the chord from its root (this step) to its last end (the last
  // step's: the end is stored after every test of the step) more than arc_max_lag_deg from its
  // rest chord in the attachment frame. Asked only when the lag guard meets a link a collider
  // held at the last step (rare): arc's guard then holds that link too.
  bool ChainThrown(const LinkContext& lc) const;
  // The same with the chain's arc frame at hand (ArcFrame of its attachment frame).
  bool ChainThrown(const LinkContext& lc, const glm::mat3& arc_frame) const;
  // arc's lag guard on the chord, after a chain's step: a chain of two or more links and no
  // angle limit, curved or held by a collider (chord_guard_), whose chord (root to last end) is
  // more than arc_max_lag_deg from its target chord is turned about its root onto that cone; a
  // held chain's ends are then put back out of its colliders, link by link. The move is taken
  // out of the velocities. Returns whether it turned the chain (its joints' rotations are then
  // to be rebuilt from the ends).
  // `frame`: the chain's arc frame this step (the attachment's, turned by gravity: ArcFrame).
  bool ChordGuard(int chain, const glm::vec3& root, const glm::mat3& frame, float inv_h);
  // Its test and turn, for a chain ChordGuarded already admitted.
  bool ChordOutside(int chain, const glm::vec3& root, const glm::mat3& frame, float inv_h);
  // Whether ChordGuard looks at the chain this step: a curved chain without angle limits, or a
  // straighter one while a collider holds one of its links (chord_guard_).
  bool ChordGuarded(int chain) const;
  // Whether a collider held one of the chain's links this step (in_contact_).
  bool ChainHeld(int chain) const;
  // ChordGuard on the chains of a lane group after its step (arc); a chain with gravity in the
  // arc frame the step built for its lane (lane_frames_). held: the lanes whose chain a collider
  // holds (SolveChainLanes' answer, for ChordGuarded).
  void GuardChords(const int* chains, int n, int held, float h, StepReport& rep);
  // Its rare part: chord c past the cone around target r (|c|^2 = cc, |r|^2 = rr).
  bool TurnChord(int chain, const glm::vec3& root, const glm::vec3& c, const glm::vec3& r, float cc,
                 float rr, float inv_h);
  // A held chain's links after the turn: each end moved with the link above, out of the chain's
  // colliders (end points, two passes) and back at its link's length, its velocities turned
  // with it. Made only when no end is left cutting into a collider and the chord's cosine to
  // the target (unit ru) then beats cs; returns whether.
  bool TurnHeldChain(int chain, const glm::vec3& root, const glm::mat3& turn, float cs,
                     const glm::vec3& ru);
  // A lane group's context (its first chain's) for the chain of one lane, rooted at `root`.
  static LinkContext LaneContext(const LinkContext& lc, int chain, const glm::vec3& root) {
    LinkContext own = lc;
    own.chain = chain;
    own.root = root;
    return own;
  }
  // arc's lag guard acts on this chain's links (arc mode, SpringConfig::arc_max_lag_deg < 180).
  bool LagGuardOn(const LinkContext& lc) const { return lc.arc && lag_cos_ >= -1.0f; }
  NearRange NearColliders(int chain, const glm::vec3& root, float scale, float h);
  NearRange AllNear(int chain);
  // The colliders of lane group g whose chains have different lists: their union, in the
  // group's own slots (filled once per step). With `lane_has`, per slot the lanes (of chains
  // chains[0..3]) whose chain has that collider.
  NearRange UnionNear(int g, const int* chains, uint8_t* lane_has);
  // The colliders of a lane group's chain solved alone: `near` (the group's), or its own list
  // when the group's chains have different ones.
  NearRange LaneOwnNear(int chain, const NearRange& near);
  // LaneContext for a lane group whose chains have different colliders: with the chain's own.
  LinkContext LaneOwnContext(const LinkContext& lc, int chain, const glm::vec3& root);
  void AddNear(int k, int collider);
  int EndNear(int near_end);
  int NarrowLink(int near_begin, int near_end, const glm::vec3& o, float reach_r);
  // The scalar build's reject of near slot k for a ball (o, reach_r) (the SIMD one: NearBlock).
  bool NearSlotClear(int k, const glm::vec3& o, float reach_r) const;
  // NarrowLink's test as a bit mask over the slots (bit i: near_begin + i), at most 64 of them.
  uint64_t NearMask(int near_begin, int near_end, const glm::vec3& o, float reach_r) const;
  // limit_frame: the joint's angle limit frame in world, or null when it has no limit.
  bool IntegrateLink(const LinkContext& lc, int j, const glm::vec3& o, const glm::vec3& rest_vec,
                     float len, float joint_scale, StepReport& rep,
                     const glm::quat* limit_frame = nullptr);
  // IntegrateLink's second half: contacts with the colliders `cand` (the link's narrowed list),
  // the velocity's radial part, the repair of non-finite values; stores the end and velocity.
  bool ResolveLink(const LinkContext& lc, int j, const glm::vec3& o, const glm::vec3& rest_vec,
                   float len, float hit, glm::vec3 xh, glm::vec3 vs, const int* cand, int n_cand,
                   StepReport& rep, const glm::quat* limit_frame = nullptr);
  // The loop body of Solve for one chain before its links: root, teleport check, path. Returns
  // true when the chain is to be solved flat (else it was reset or solved on the general path).
  bool BeginChain(int chain, std::span<Transform> pose, float h, bool variable, bool check_pose,
                  StepReport& rep);
  struct LaneGroup;
  // BeginChain for every chain of a lane group with group_plain_ on the driven input, in one
  // loop: true when they all go flat (none teleported); false leaves nothing Solve must undo.
  bool BeginPlainGroup(const LaneGroup& group);
  // Chain c's teleport verdict this step (teleported_[c]): its own check, or the one of the
  // chain it shares it with (teleport_rep_), which began before it.
  bool TeleportVerdict(int c);
  // Returns the lanes (bit l: chains[l]) whose chain a collider holds after the step, as
  // ChainHeld would tell.
  int SolveChainLanes(const int* chains, int n, float h, StepReport& rep);
  // Its code for W lanes (arc_lanes.inc; SolveChainLanes picks the width for the chains' count,
  // LaneGroupWidth); so for the other lane functions below.
  template <int W>
  int SolveChainLanesW(const int* chains, int n, float h, StepReport& rep);
  void SolveChainArc(int chain, std::span<Transform> pose, float h, StepReport& rep);
  bool ChainIsFlat(int chain, std::span<const Transform> pose, bool check_pose);
  void UpdateFlatStatic();  // flat_static_ from the chains, the config and the clip's ownership
  // with_near false: no broad phase (near left empty), for lanes that test a group's union.
  LinkContext MakeLinkContext(int chain, const glm::vec3& root, float root_scale, float h,
                              bool with_near = true);
  LinkContext FlatBegin(int chain, float h);
  void FlatRoot(int chain);  // FlatBegin's root frame (flat_[chain]) without the link context
  // The lane groups' constants packed for the SIMD lanes (arc_solver.cpp): lane_pack_ from
  // lane_pack_at_[group], kLaneFields x LaneGroupWidth floats per link depth. PackLane fills one
  // lane of one depth (`width` lanes) from joint j.
  void PackLanes();
  void PackLane(float* block, int width, int lane, int j) const;
  // The constants of a lane group's link depth `d`, `width` lanes (lane_pack_).
  const float* LanePackAt(int g, int d, int width) const;
  std::vector<float> lane_pack_;
  std::vector<size_t> lane_pack_at_;
  void SolveChainFlat(int chain, float h, StepReport& rep);
  // A flat chain's link j: its rest vector (s = the joint's world scale, len = the link's
  // length; below_contact: a link above touched a collider) and its step.
  glm::vec3 FlatRestVector(const LinkContext& lc, int chain, int j, float s, float len,
                           bool below_contact);
  bool FlatLink(const LinkContext& lc, int j, const glm::vec3& o, const glm::vec3& rest_vec,
                float s, float len, StepReport& rep, const glm::quat* limit_frame = nullptr);
  void EndChain(int chain);
  // arc and parent: the spring's center node (VRM's "center") moved since the previous step by
  // D = C_now C_prev^-1: the chain's ends, velocities and previous targets move with it, so the
  // hair answers motion relative to the center only (a center on the hips: walking carries the
  // hair along, as vrm mode and three-vrm do).
  void FollowCenter(int chain);
  void FlatRotations(int chain, int upto);
  // world: write the joints' world matrices too (else the chain's are left to FinishWorld).
  void WriteFlatChain(int chain, std::span<Transform> pose, bool world = true);
  // WriteFlatChain for the chains of the lane groups `groups` (all solved flat), in SIMD lanes
  // (same bits): `count` groups of four lanes, then `count8` of eight.
  void WriteLaneGroups(const int* groups, int count, int count8, std::span<Transform> pose,
                       bool world);
  template <int W>
  void WriteLaneGroupsW(const int* groups, int count, std::span<Transform> pose, bool world);
  // Deferred write-back (the drivers): a step leaves the flat chains' joint rotations and world
  // matrices unwritten; WriteBack writes them once, after the caller frame's last step. The
  // state a step computes does not depend on them, so the result is the same as writing after
  // every step.
  friend class ClipDriver;
  friend class FrameDriver;
  friend class DrivenFrameDriver;
  StepReport StepDeferred(std::span<Transform> pose);
  StepReport StepDrivenDeferred(std::span<const glm::mat4> driver_world,
                                std::span<glm::quat> rotations);
  void WriteBack(std::span<Transform> pose, bool world = true);
  // A driven frame's output is the joints' rotations: WriteBackDriven leaves the flat chains'
  // joint world matrices to be built from the solved state (flat_rot_, the root frames, the
  // ends) when world() is next read. Every other writer of those matrices clears the chain's
  // mark. (world() is const, its lazily written matrices mutable: like the other accessors it
  // is not to be called while another thread steps or reads the same world.)
  void FinishWorld() const;
  void FlatWorld(int chain) const;  // one flat chain's joint world matrices (clears its mark)
  mutable std::vector<uint8_t> world_lazy_;  // per chain
  mutable bool world_lazy_any_ = false;
  void WriteBackDriven(std::span<glm::quat> rotations);
  void SolveChainVrm(int chain, std::span<Transform> pose, float h, bool variable, StepReport& rep);
  // vrm mode's contacts of joint j's end `next` (bone_length from `pos`) in the chain's order,
  // `limit(next)` after each push (vrm_solver.cpp).
  template <class Limit>
  void VrmContacts(const NearRange& near, int j, const glm::vec3& pos, float bone_length,
                   glm::vec3& next, StepReport& rep, Limit limit);
  // vrm mode on the flat path (vrm_solver.cpp): positions and quaternions instead of matrices.
  void SolveChainVrmFlat(int chain, float h, bool variable, StepReport& rep);
  // Its joint j: `pos` (the joint's position) and `above` (the world rotation of the joint
  // above) move on to this joint's end and world rotation. scale: the chain root's world scale.
  void VrmFlatLink(int j, float scale, const NearRange& near, float h, bool variable,
                   glm::vec3& pos, glm::quat& above, StepReport& rep);
  // vrm mode's velocity kept per step at joint j (spring_internal.h).
  float VrmKeep(int j, float dt, bool variable) const;
  // The chains of a lane group in vrm mode, side by side in SIMD lanes (arc_lanes.inc),
  // a fixed step or one of the caller's dt (`variable`): lane by lane the operations of
  // VrmFlatLink, so the same bits.
  void SolveChainVrmLanes(const int* chains, int n, float dt, bool variable, StepReport& rep);
  template <int W>
  void SolveChainVrmLanesW(const int* chains, int n, float dt, bool variable, StepReport& rep);
  // vrm mode: a cone limit's axis in the joint's parent frame, (rest rotation * limit frame) * +Y
  // (limits.h, ConeClearly).
  std::vector<glm::vec3> cone_axis_parent_;

  const Rig* rig_ = nullptr;
  SpringConfig config_;
  float teleport_cos_ = -1.0f;  // cos(config_.teleport_angle), fixed at Create
  // arc's lag guard (SpringConfig::arc_max_lag_deg), fixed at Create; cos < -1: off.
  float lag_cos_ = -2.0f, lag_sin_ = 0.0f;
  std::vector<uint8_t> owned_;  // per rig node

  // Per joint (flat, parallel to rig.joint_node). Segment j runs from joint j to joint j+1.
  std::vector<PaddedVec3> tail_;         // hot: segment end, world
  std::vector<PaddedVec3> vel_;          // hot: m/s
  std::vector<PaddedVec3> prev_target_;  // hot (arc/parent): rest target at the previous step
  std::vector<uint8_t> in_contact_;      // arc: the segment touched a collider in the last step
  std::vector<PaddedVec3> vrm_prev_;     // hot (vrm): previous tail, center space
  std::vector<PaddedVec3> vrm_cur_;      // hot (vrm): current tail, center space
  std::vector<glm::quat> solved_rot_;    // vrm compat: last solved local rotation per joint
  std::vector<glm::vec3> stale_child_;   // vrm compat: child position at the start of the frame
  // Per joint coefficients of one mode and their per-step factors for the fixed step h.
  struct ModeCoefficients {
    std::vector<SegmentCoefficients> coef;
    std::vector<float> damp;                   // e^(-c h)
    std::vector<float> damp_rel;               // e^(-c_rel h)
    void FillStepFactors(int begin, int end);  ///< joints [begin, end)
  };
  const ModeCoefficients& Coefficients(bool arc) const { return arc ? arc_coef_ : parent_coef_; }
  // The joints' VRM parameters as the steps use them (the rig's until SetJointSettings).
  std::vector<float> stiffness_, drag_, gravity_power_, hit_radius_;
  std::vector<PaddedVec3> gravity_dir_;
  // Chain c's coefficients (parent, arc with its liveliness factor and its gravity as lifts,
  // vrm's fixed-step keep) from the parameters above; then the step factors of every joint.
  void ChainCoefficients(int c);
  ModeCoefficients parent_coef_;       // parent (and the VRM parameters as mapped)
  ModeCoefficients arc_coef_;          // arc: drag raised by the chain's liveliness factor
  std::vector<float> vrm_keep_fixed_;  // vrm: velocity kept per fixed step, (1 - drag)^(h / dt_ref)
  std::vector<glm::mat4> vrm_initial_local_;    // vrm: the joint's rest local matrix
  std::vector<glm::vec3> vrm_bone_axis_;        // vrm: normalize(axis_local_), as three-vrm
  std::vector<glm::vec3> vrm_axis_in_parent_;   // vrm: the bone axis in the parent's frame
  std::vector<PaddedVec3> axis_local_;          // child offset in the joint's rest local frame
  std::vector<PaddedVec3> axis_unit_;           // the same, normalised
  std::vector<float> axis_len_;                 // its length (local units)
  std::vector<internal::PreparedLimit> limit_;  // angle limit of each joint's segment (limits.h)
  std::vector<uint8_t> chain_flat_;             // chain may take the flat path (see arc_solver.cpp)
  std::vector<uint8_t> chain_owned_;   // per chain: the clip owns one of its joints (SetOwnedNodes)
  std::vector<uint8_t> flat_static_;   // per chain: ChainIsFlat's verdict apart from the pose
  std::vector<uint8_t> group_plain_;   // per lane group: flat_static_ and no center, every chain
  std::vector<glm::mat4> root_local_;  // per chain: its root joint's rest local matrix
  std::vector<float> rel_scale_;       // joint's world scale / its chain root's, at rest (flat)
  std::vector<glm::vec3> arc_attach_;  // rest segment vector in the attachment's local frame
  std::vector<glm::vec3> rest_chord_;  // per chain: root to last end at rest, attachment frame
  // Per chain: when ChordGuard applies (two or more links, no angle limit): kChordAlways for a
  // curved chain, kChordHeld for a straighter one (only while a collider holds one of its links).
  enum : uint8_t { kChordNever = 0, kChordHeld = 1, kChordAlways = 2 };
  std::vector<uint8_t> chord_guard_;
  // TurnHeldChain's scratch: a chain's ends, turned (sized once, to the longest chain).
  std::vector<glm::vec3> turn_ends_;
  // arc with gravity (ArcFrame, Lifted): per joint, the displacement gravity gives its end
  // against the stiffness (g / k, world metres; the arc coefficient's g is then 0); per chain,
  // the sum over its joints.
  std::vector<PaddedVec3> arc_lift_;
  std::vector<glm::vec3> chain_lift_;
  std::vector<uint8_t> chain_lifted_;  // per chain: a joint has a lift (ArcFrame, Lifted apply)
  // Chain c's attachment frame this step (rotation x scale), and that frame turned as gravity
  // turns the chain's arc as a whole (arc mode; for a chain with chain_lifted_).
  glm::mat3 AttachFrame(int c) const;
  glm::mat3 ArcFrame(int c, const glm::mat3& attach) const;
  std::vector<float> rest_length_;          // metres at rest
  std::vector<int> path_begin_, path_end_;  // nodes from joint (excl.) to the next joint (incl.)
  std::vector<int> path_nodes_;

  // Per chain.
  std::vector<glm::mat4> prev_attach_;  // attachment world at the previous step
  std::vector<uint8_t> has_prev_attach_;
  // arc and parent, a chain with a center node: the center's world at the previous step
  // (FollowCenter).
  std::vector<glm::mat4> prev_center_;
  // The chain whose teleport verdict this one shares: the first with the same attachment node
  // when no chain's step moves that node (so both compare the same matrices), else itself.
  std::vector<int> teleport_rep_;
  std::vector<uint8_t> teleported_;   // this step's verdict per chain
  std::vector<glm::vec3> prev_root_;  // chain root position at the previous step
  // Flat chains: the root frame of the last step (what WriteBack builds the rotations from).
  struct FlatChain {
    glm::vec3 root{0.0f};              // root joint position, world
    float scale = 1.0f;                // root joint's uniform world scale
    glm::quat parent_rot{1, 0, 0, 0};  // world rotation of the root joint's parent
    int q_done = 0;                    // flat_rot_ holds this step's rotations below this joint
    uint8_t pending = 0;               // solved flat in the last step: WriteBack writes it
  };
  std::vector<FlatChain> flat_;
  std::vector<uint8_t> flat_feeds_;  // a later chain hangs from one of this chain's joints
  int flat_chains_ = 0;              // chains solved flat in the last step
  int lane_chains_ = 0;              // ... of them side by side in SIMD lanes
  static constexpr int kMaxLanes = 8;
  int lane_width_ = 4;  // chains per lane group at most: 4 or 8 (SpringConfig::lane_width)
  // The lanes a group of n chains is solved in: eight for more than four (only where lane_width_
  // is 8), else four (arc_solver.cpp, SolveChainLanes).
  static int LaneGroupWidth(int n) { return n > 4 ? 8 : 4; }
  // Lane groups of 2 to lane_width_ chains (Create, SolveChainLanes) and each chain's group (-1:
  // alone).
  struct LaneGroup {
    int chains[kMaxLanes];  // longest chain first (then rig order); entries past n repeat
                            // chains[0]
    int n;
    int links[kMaxLanes];  // per lane, its chain's links (joints - 1); not increasing
    // The lanes in use in rig order of their chains: the group is solved at the turn of
    // chains[order[0]], and its chains begin in this order.
    int order[kMaxLanes];
  };
  std::vector<LaneGroup> lane_groups_;
  // Per lane group and link depth (from lane_depth_at_[group]; PackLanes), for the whole group in
  // its order: each lane's joint (a lane past its chain's end and a padding lane: the first
  // chain's; depth 0 holds the chains' first joints), and the lanes in use there whose joint has
  // an angle limit, and a cone.
  struct LaneDepth {
    int j[kMaxLanes] = {};
    int limited = 0, cones = 0;
  };
  std::vector<LaneDepth> lane_depth_;
  std::vector<size_t> lane_depth_at_;
  // Depth d of lanes whose chains begin at `begin` (nd of them reach it; the other lanes repeat
  // lane 0's), `width` lanes: its joints and limit masks into *out and its constants into `pack`
  // (kLaneFields x width floats). PackLanes makes every group's this way; the lanes make a part
  // of a group's (a chain of it reset or on the general path) at each step.
  void MakeLaneDepth(const int* begin, int nd, int width, int d, LaneDepth* out, float* pack) const;
  // Per lane group (PackLanes), for the whole group in its order: the lanes whose chain has
  // gravity (chain_lifted_; padding lanes as the first chain).
  std::vector<int> lane_lifted_;
  // Per lane group whose chains have different collider lists (PackLanes; kNearAll per group):
  // for each collider of the union, the lanes whose chain has it (LaneColliderMasks of the whole
  // group in its order).
  std::vector<uint8_t> lane_has_;
  // For each collider of group g's union, the lanes of `chains` (lane_width_ of them) whose chain
  // has it.
  void LaneColliderMasks(int g, const int* chains, uint8_t* has) const;
  // Per lane group, what its chains do not share (kept apart from LaneGroup, which the hot
  // loops read): with different collider lists the union's slots (near_base; -1 when the chains
  // share one list, read through AllNear) and its colliders (lane_near_[near_list ..
  // near_list + near_n)); with different attachments one_attach false (the lanes take each
  // chain's frame).
  struct LaneMix {
    int near_base = -1, near_list = 0, near_n = 0;
    bool one_attach = true;
  };
  std::vector<LaneMix> lane_mix_;
  std::vector<int> lane_near_;            // the unions of lane groups' collider lists
  std::vector<uint64_t> lane_near_step_;  // per group: the step its union slots were filled
  std::vector<uint16_t> near_bits_;       // per chain in such a group: its colliders, as bits
                                          // over the union (bit k: union collider k)
  std::vector<int> lane_group_of_;
  std::vector<uint8_t> attach_still_;  // per chain: it hangs from a node no chain's step moves
  std::vector<uint8_t> lane_written_;  // WriteBack scratch: the chain was written in lanes
  glm::mat3 lane_frames_[kMaxLanes];   // SolveChainLanes with gravity: each lane's arc frame
  std::vector<int> lane_write_;        // WriteBack scratch: the lane groups to write
  std::vector<int> write_left_;        // WriteBack scratch: the flat chains written one by one
  int rot_cache_node_ = -2;            // this step: the node whose world rotation rot_cache_ holds
  glm::quat rot_cache_{1, 0, 0, 0};
  int sim_cache_node_ = -2;  // this step: the node whose world matrix sim_cache_ judged
  bool sim_cache_ = false;   // ... a similarity (internal::IsSimilarity)

  // Per step scratch (sized once).
  mutable std::vector<glm::mat4> world_;  // (mutable: FinishWorld)
  std::vector<WorldCollider> colliders_;
  // Per collider per step: a sphere holding an outside sphere or capsule (centre, radius; radius
  // < 0 for planes and inside shapes), for a reject without division before the exact test.
  std::vector<glm::vec4> collider_bound_;
  // Per sphere or capsule collider per step, for the contact loop's reject: start, axis (end -
  // start; zero for a sphere), 1 / |axis|^2 (0 for a sphere), radius.
  struct CapsuleReject {
    glm::vec3 head{0.0f};
    float inv_len2 = 0.0f;
    glm::vec3 axis{0.0f};
    float radius = 0.0f;
  };
  std::vector<CapsuleReject> collider_reject_;
  std::vector<Transform> pose_scratch_;
  std::vector<int> near_colliders_;   // broad phase: colliders that can reach the chain (slots)
  std::vector<int> joint_colliders_;  // ... and of those, the ones that can reach one link
  // The near colliders' bounding spheres as flat arrays (centre x, y, z, radius), parallel to
  // near_colliders_. Chain c owns the slots from near_base_[c], as many as it has colliders plus
  // 4 (the SIMD loop's padding). Chains with the same colliders in the same order (near_share_:
  // the first of them) read one copy of all of them per step; near_all_step_[c] is the step in
  // which chain c's slots last received all its colliders.
  std::vector<float> near_x_, near_y_, near_z_, near_r_;
  // The same values for the lanes (NearBall4), each four times. The lanes test one slot against
  // four joints at a time and read the slot as four vectors instead of broadcasting four scalars
  // at every link depth.
  struct alignas(16) NearSplat {
    float x[4], y[4], z[4], r[4];
  };
  std::vector<NearSplat> near_splat_;
  std::vector<int> near_base_, near_share_;
  std::vector<uint64_t> near_all_step_;
  uint64_t step_id_ = 0;
  std::vector<float> chain_reach_;  // rest length of each chain, metres (unscaled)
  std::vector<int> world_nodes_;    // nodes whose world matrix a step needs, parents first
  std::vector<int> driver_nodes_;   // what StepDriven reads (see driver_nodes())
  // Whether driven_pose_'s spring joints hold their rest rotations (then RunDriven need not set
  // them again): false after anything wrote a rotation there (the write-back, the general path,
  // three-vrm's stale children).
  bool driven_rest_ = false;
  std::vector<Transform> driven_pose_;  // StepDriven's local pose: rest, joints solved
  std::vector<glm::quat> flat_rot_;     // flat chains: joint world rotations (scratch, per step)
};

}  // namespace hairswing
