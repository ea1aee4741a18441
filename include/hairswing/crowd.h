// Many characters at once: independent spring worlds stepped side by side over TBB (a room of VRM
// users, a batch of avatars). Each character is fed through the engine-facing input (world
// transforms of its driver nodes in, spring joint rotations out) and gets bitwise the result it
// would get stepped alone: characters share nothing but their read-only rigs.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "hairswing/status.h"

namespace hairswing {

class SpringCrowd {
 public:
  SpringCrowd();
  ~SpringCrowd();
  SpringCrowd(SpringCrowd&&) noexcept;
  SpringCrowd& operator=(SpringCrowd&&) noexcept;

  /// Adds a character on `rig` (which must outlive the crowd; many characters may share one rig)
  /// at rest at the rig's rest pose. Returns its index. All memory is taken here.
  Result<int> Add(const Rig& rig, const SpringConfig& config = {});
  int size() const { return static_cast<int>(characters_.size()); }

  /// The character's driver transforms (its world's driver_nodes(), in that order): the caller
  /// writes them before each Reset/Advance.
  std::span<glm::mat4> drivers(int character);
  /// The character's spring joint local rotations after the last Advance (one per flat joint
  /// index of its rig), and its world (state, hash, tails).
  std::span<const glm::quat> rotations(int character) const;
  SpringWorld& world(int character);
  const SpringWorld& world(int character) const;

  /// Puts every character at rest under its current drivers.
  void Reset();
  /// Threads Advance may use: 0 = TBB's default (all cores), 1 = the caller's thread only, n > 1 =
  /// a TBB arena of n threads (built here, once).
  void SetThreads(int threads);
  /// Every character's frame of `dt` seconds (DrivenFrameDriver), in parallel over TBB. Returns
  /// the merged report; per-character reports are in report(character). Allocates nothing.
  StepReport Advance(double dt);
  const StepReport& report(int character) const;

 private:
  struct Character;
  struct Arena;
  std::vector<std::unique_ptr<Character>> characters_;
  std::unique_ptr<Arena> arena_;  // when SetThreads(n > 1)
  int threads_ = 0;
};

}  // namespace hairswing
