// Wearing a hairstyle on another character (docs/wear.md): place a rigged or unrigged hairstyle
// by the two heads' frames and sizes, fit its inner surface to the target's scalp, bind it to the
// target's head, and optionally give it spring chains. The scalp fit is its own step, separate
// from the physics; everything it adds to the target can be undone exactly.
#pragma once

#include <glm/glm.hpp>
#include <string>
#include <vector>

#include "hairswing/avatar.h"
#include "hairswing/fit.h"
#include "hairswing/status.h"

namespace hairswing {

struct WearOptions {
  /// Which primitives of the hair file are the hairstyle, as fit's --hair ("MESH", "MESH/INDEX",
  /// "material:NAME"); "" = every primitive (a file that holds only the hairstyle).
  std::string hair;
  /// The target's head node by name; "" = its humanoid head, else the one node named "head"
  /// (ignoring case, also "Head_01", "mixamorig:Head" and the like).
  std::string head;
  /// The same for the hair file, when it is a whole character.
  std::string source_head;
  /// A character the hairstyle sits on as the hair file places it (for a hair-only file such as a
  /// beard, whose own shape says nothing about the head under it); nullptr = none.
  const Avatar* source_character = nullptr;
  /// Metres between the target's scalp and the hairstyle's inner surface where the hairstyle lay
  /// closer than this on its own head.
  float clearance = 0.002f;
  /// Fit the hairstyle's inner surface to the target's scalp after placing it; false = place
  /// only (the figures are then those of the placed hairstyle).
  bool scalp_fit = true;
  /// Keep the target's own hair (by default it is hidden: meshes and primitives whose vertices
  /// mostly follow spring joints or whose material is named like hair and that reach the top
  /// quarter of the head, but not eyebrows, lashes or beards; springs that moved only them are set
  /// aside like baked springs; all of it undone by UndoWear). Hair that is the target's skull (its
  /// skin stops at the hairline) is hidden only when the new hair covers the opening it closes,
  /// else kept with a warning.
  bool keep_hair = false;
  /// Give the worn hair spring chains and colliders (FitHairChains on the new mesh, a head
  /// collider when the target has none on its head).
  bool fit_chains = false;
  FitOptions fit;
};

/// One head as the placement saw it.
struct WearHead {
  std::string from;        ///< what it was taken from, in words
  int node = -1;           ///< Avatar node of the head bone, -1 when estimated from the hair
  glm::mat3 frame{1.0f};   ///< the character's axes (x right, y up, z forward), world
  glm::vec3 anchor{0.0f};  ///< world: top of the head at its back, centred left-right
  glm::vec3 centre{0.0f};  ///< world: centre of the head's box
  glm::vec3 size{0.0f};    ///< metres along the frame's axes (width, height, depth)
  int vertices = 0;        ///< head vertices used
};

struct WearReport {
  WearHead source, target;
  float scale = 1.0f;  ///< uniform scale from the hairstyle's head to the target's (widths)
  int hair_vertices = 0;
  int inside_placed = 0;  ///< hair vertices inside the target head after placement alone
  int inside = 0;         ///< ... after the scalp fit (the figure that must be 0)
  float inside_depth_mm = 0;
  /// When the fit left covered scalp showing, the factor the hairstyle was grown by about the
  /// head's centre to cover it (1 = not grown).
  float grown = 1.0f;
  int pushed_alone = 0;  ///< vertices the smooth fit left inside, pushed out one by one
  /// Hair vertices that lay deep in the target head after placement (nearer its centre than 70 %
  /// of the scalp in their direction, on an edge spanning more than 15 degrees from there) and
  /// were turned towards their strand before the fit.
  int redirected = 0;
  /// Target head vertices under the region the hairstyle covered on its own head (where it lay
  /// within a tenth of the head's width of the scalp), and of those the ones showing through the
  /// hairstyle's inner surface by more than 1 mm, and the ones with no hair over them at all.
  int covered_head_vertices = 0;
  int show_through = 0;
  float show_through_mm = 0;  ///< the deepest of them
  int uncovered = 0;
  double coverage = 0;    ///< share of covered_head_vertices with hair over them and not showing
  float max_move_mm = 0;  ///< the scalp fit's largest displacement of a vertex
  float mean_move_mm = 0;
  int chains = 0;
  int rigid_clumps = 0;
  std::string mesh_name;  ///< the new mesh in the target
  std::vector<std::string> changes, warnings;
};

/// Puts the hairstyle from `hair` on `target` (in place). Errors name the reason: no head in the
/// target, no hairstyle selected, a hair-only file that does not wrap around a head (give
/// source_character), a target already wearing a hairstyle from this function.
Result<WearReport> WearHairstyle(Avatar& target, const Avatar& hair, const WearOptions& options);

/// Restores the target as it was before WearHairstyle (and its chain fit), bit for bit; fails if
/// the avatar carries no wear record.
Status UndoWear(Avatar& target);

/// The target's head node as WearHairstyle finds it ("" = humanoid head, then by name), or an
/// error saying why there is none.
Result<int> FindHeadNode(const Avatar& avatar, const std::string& name);

/// True for a mesh or material name that marks facial hair (eyebrows, lashes, a beard, a
/// moustache), which WearHairstyle keeps even under a hair material. Compared word by word, so a
/// colour is not a brow: "EyeBrows", "MI_Eyebrows_2" and "Beard" are facial hair; "Hair_Brown" is
/// not.
bool NamedLikeFacialHair(const std::string& name);

}  // namespace hairswing
