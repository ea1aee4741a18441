// SpringCrowd: a DrivenFrameDriver per character, run over TBB. Characters are independent (own
// world, drivers, rotations, report), so the order TBB runs them in cannot change any result.
#include "hairswing/crowd.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>

namespace hairswing {

struct SpringCrowd::Character {
  explicit Character(SpringWorld w)
      : world(std::move(w)),
        driver(world),
        drivers(world.driver_nodes().size(), glm::mat4(1.0f)),
        rotations(world.rig().joint_node().size(), glm::quat(1, 0, 0, 0)) {}
  SpringWorld world;
  DrivenFrameDriver driver;  // points at `world`: a Character never moves (held by unique_ptr)
  std::vector<glm::mat4> drivers;
  std::vector<glm::quat> rotations;
  StepReport report;
};

struct SpringCrowd::Arena {
  explicit Arena(int threads) : arena(threads) {}
  tbb::task_arena arena;
};

SpringCrowd::SpringCrowd() = default;
SpringCrowd::~SpringCrowd() = default;
SpringCrowd::SpringCrowd(SpringCrowd&&) noexcept = default;
SpringCrowd& SpringCrowd::operator=(SpringCrowd&&) noexcept = default;

Result<int> SpringCrowd::Add(const Rig& rig, const SpringConfig& config) {
  auto w = SpringWorld::Create(rig, config);
  if (!w.ok()) return w.status();
  auto c = std::make_unique<Character>(std::move(w).value());
  // Drivers at the rig's rest pose (spring joints at rest), so a fresh character is at rest.
  for (size_t i = 0; i < c->drivers.size(); ++i)
    c->drivers[i] = rig.rest_world()[c->world.driver_nodes()[i]];
  for (size_t j = 0; j < c->rotations.size(); ++j)
    c->rotations[j] = rig.rest_local()[rig.joint_node()[j]].rotation;
  c->driver.Reset(c->drivers);
  characters_.push_back(std::move(c));
  return size() - 1;
}

std::span<glm::mat4> SpringCrowd::drivers(int i) { return characters_.at(i)->drivers; }
std::span<const glm::quat> SpringCrowd::rotations(int i) const {
  return characters_.at(i)->rotations;
}
SpringWorld& SpringCrowd::world(int i) { return characters_.at(i)->world; }
const SpringWorld& SpringCrowd::world(int i) const { return characters_.at(i)->world; }
const StepReport& SpringCrowd::report(int i) const { return characters_.at(i)->report; }

void SpringCrowd::Reset() {
  for (auto& c : characters_) c->driver.Reset(c->drivers);
}

void SpringCrowd::SetThreads(int threads) {
  threads_ = std::max(threads, 0);
  arena_.reset();
  if (threads_ > 1) {
    arena_ = std::make_unique<Arena>(threads_);
    arena_->arena.initialize();
  }
}

StepReport SpringCrowd::Advance(double dt) {
  auto run = [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i != r.end(); ++i) {
      Character& c = *characters_[i];
      c.report = c.driver.Advance(c.drivers, dt, c.rotations);
    }
  };
  const tbb::blocked_range<size_t> all(0, characters_.size());
  if (threads_ == 1) {
    run(all);
  } else if (arena_) {
    arena_->arena.execute([&] { tbb::parallel_for(all, run); });
  } else {
    tbb::parallel_for(all, run);
  }
  StepReport total;
  for (const auto& c : characters_) total.Merge(c->report);
  return total;
}

}  // namespace hairswing
