// The hair-chain fitter (the "selected clump" workflow): the user names which mesh or
// primitive is hair; the fitter erases its skin weights, finds where it meets the head, walks the
// connected hair surface outward, places N joints along its centre line, skins it with smooth
// weights between neighbouring joints, pins a narrow band at the root to the head and adds a
// VRM 1.0 spring per clump. Everything it changes can be undone exactly.
#pragma once

#include <string>
#include <vector>

#include "hairswing/avatar.h"
#include "hairswing/status.h"

namespace hairswing {

/// Which primitives are hair: "MESH" (every primitive of the mesh named MESH), "MESH/INDEX" (one
/// primitive) or "material:NAME" (every primitive using material NAME).
struct HairSelection {
  std::vector<std::pair<int, int>> primitives;  ///< (mesh, primitive)
};
Result<HairSelection> SelectHair(const Avatar& avatar, const std::string& selector);

struct FitOptions {
  int joints = 6;  ///< joints per chain at most, tip included
  float segment_length =
      0.08f;  ///< metres per segment at human scale (shorter clumps get fewer joints)
  std::string attach = "head";  ///< VRM humanoid bone the hair hangs from
  /// The node the hair hangs from, overriding `attach` (a creature with no humanoid bones): an
  /// index into Avatar::nodes, or -1 to use `attach`.
  int attach_node = -1;
  /// The avatar's scale in units of a 1.7 m person, overriding the humanoid's height (needed with
  /// attach_node when the avatar has no humanoid bones); 0 = from the humanoid.
  float unit = 0.0f;
  float root_tolerance = 0.015f;    ///< metres: hair this close to the attachment's surface is root
  float pin_fraction = 0.06f;       ///< share of the hair length from the root pinned to the head
  float root_ramp_segments = 1.0f;  ///< segments over which the head's weight fades after the pin
  /// remove artist springs that moved the refitted mesh before and move nothing after the fit
  /// (recorded in the undo record, restored by UndoFit)
  bool remove_orphan_springs = true;
  int min_triangles = 8;  ///< smaller connected pieces are not hair clumps
  /// metres at human scale: a clump that reaches less far from its root (a bun, a scalp cap)
  /// cannot hang and stays rigid on the attachment
  float min_hang_length = 0.04f;
  /// degrees: each new chain gets cone angle limits (VRMC_springBone_limit) on its joints so
  /// its root-to-tip chord cannot turn further than this from its rest direction (hair thrown
  /// over or through the head in a jump or a roll); 0 = no limits
  float max_flip_deg = 60.0f;
};

struct FitResult {
  int chains = 0;
  std::vector<std::string> changes;   ///< one line per change, for the report
  std::vector<std::string> warnings;  ///< unsupported transforms, kept creator settings
  std::vector<int> chain_vertices;    ///< hair vertices per new chain
  std::vector<std::string> rigid;     ///< clumps kept rigid on the attachment, and why
};

/// Fits chains to the selected hair in place. The original settings are stored in the avatar
/// (root extension "HAIRSWING_fit_undo") so UndoFit can restore them exactly. Errors: no
/// attachment bone, hair that does not touch it, a clump too small to be hair.
Result<FitResult> FitHairChains(Avatar& avatar, const HairSelection& selection,
                                const FitOptions& options);

/// Restores what FitColliders and FitHairChains changed (collider fit first, then chains); fails
/// if the avatar holds no undo record.
Status UndoFit(Avatar& avatar);

}  // namespace hairswing

namespace hairswing {

/// Puts a separate hair file on a body that shares its armature (skin joints matched by node
/// name, the hair's own bind matrices kept): the hair's skinned meshes and materials are added to
/// `body` (texture references dropped, with a warning). Returns the names of the added meshes.
Result<std::vector<std::string>> WearHair(Avatar& body, const Avatar& hair,
                                          std::vector<std::string>* warnings);

}  // namespace hairswing

namespace hairswing {

struct ColliderFitOptions {
  float max_growth = 2.0f;          ///< a radius may grow to at most this factor of the original
  float max_radius = 0.25f;         ///< ... and at most this many metres per 1.5 m of body height
  float segment_min_length = 0.2f;  ///< chains at least this long (per 1.5 m of height) whose rest
                                    ///< shape reaches below the neck get whole-link checks
};

struct ColliderFitResult {
  std::vector<std::string> changes;
  std::vector<std::string> warnings;
  int grown = 0;
  int added = 0;
  int segment_chains = 0;
};

/// The shared collider-fitting pass: measures the visible body and clothing geometry
/// (everything skinned or attached that is not hair, not hidden) around each sphere/capsule and
/// grows its radius to cover it, within limits from body size; adds a torso capsule when no
/// collider covers the trunk; turns on whole-link checks for chains whose reach and position need
/// them. Colliders on a chain's attachment (the head) and short chains keep their settings. No
/// rule looks at a name. Undone by UndoFit.
Result<ColliderFitResult> FitColliders(Avatar& avatar, const ColliderFitOptions& options = {});

/// Restores what FitColliders changed (UndoFit calls it too).
Status UndoColliderFit(Avatar& avatar);

struct ReweightOptions {
  /// The head-to-first-joint blend is widened to this many first-segment lengths when narrower.
  float blend_segments = 1.0f;
};

struct ReweightResult {
  struct Chain {
    std::string name;
    float blend_m = 0;   ///< width of the blend before, along the first segment (metres)
    float target_m = 0;  ///< what it is widened to (blend_segments x the first segment)
    int vertices = 0;    ///< vertices whose weights changed
    int skipped = 0;     ///< vertices left alone (no free influence slot for the head)
    /// What a bend of the first joint costs the mesh, from the weights: the largest first-order
    /// edge length change at the chain's vertices, % per degree, before and after.
    double cost_before = 0, cost_after = 0;
    /// The head's mean share (0..1) of the weight of the chain's vertices (head plus chain),
    /// before and after: the part of the hair that moves with the head instead of the joints.
    /// Widening the blend lowers the bend's cost by letting the head carry more of the hair, so
    /// the mesh swings less than the joints at the same joint motion.
    double head_share_before = 0, head_share_after = 0;
    /// The same for every joint with a segment, root first, from the weights the file keeps
    /// (after): a joint's bend turns the joints below with it. Where the root costs no less
    /// than the costliest joint below, a chain swinging from its root stretches more than the
    /// usual solver's curve at the same swing (docs/solver.md, the user's whole path).
    std::vector<double> joint_cost;
  };
  std::vector<Chain> chains;
  std::vector<std::string> changes;  ///< one line per chain, for the report
};

/// Widens, per chain, a skin blend from the attachment (head) to the first joint that is
/// narrower than `blend_segments` first segments: along the first segment's direction, the
/// attachment's share of each chain vertex fades linearly from 1 at the chain's highest vertex to
/// 0 one segment lower (never lowered). Only vertices already skinned to the chain change; the
/// original JOINTS_0 / WEIGHTS_0 of each are recorded bit for bit (root extension
/// "HAIRSWING_reweight_undo") for UndoReweight / UndoFit. Spreads the root bend over a segment,
/// so every runtime stretches the mesh less there. A chain is changed only when that lowers the
/// root bend's cost computed from the weights (ReweightResult::Chain::cost_*) by 10 % or more.
Result<ReweightResult> ReweightRoots(Avatar& avatar, const ReweightOptions& options = {});

/// Restores the skin weights ReweightRoots changed, bit for bit (UndoFit calls it too).
Status UndoReweight(Avatar& avatar);

}  // namespace hairswing
