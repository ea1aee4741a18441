// Links against hairswing::spring alone (core, rig, collide, spring; no io, Embree or TBB): the
// WebAssembly and engine builds depend on this staying possible. A hand-built avatar with one
// three-joint chain hanging from a head that turns; the chain must swing and stay finite.
#include <hairswing/rig.h>
#include <hairswing/spring.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "synthetic.h"

int main() {
  using namespace hairswing;
  Avatar av;
  auto add = [&](const char* name, int parent, glm::vec3 t) {
    return test::AddNode(av, name, parent, t);  // tests/synthetic.h (header-only, core types)
  };
  const int head = add("head", -1, {0, 1.5f, 0});
  av.scene_roots.push_back(head);
  int prev = head;
  Spring s;
  s.name = "hair";
  for (int j = 0; j < 4; ++j) {
    prev = add("hair", prev, j == 0 ? glm::vec3(0, 0, -0.1f) : glm::vec3(0, -0.08f, 0));
    SpringJoint sj;
    sj.node = prev;
    sj.stiffness = 1.0f;
    sj.drag_force = 0.4f;
    s.joints.push_back(sj);
  }
  av.vrm.version = VrmVersion::kV1;
  av.vrm.springs.push_back(s);

  auto rig = BuildRig(av);
  if (!rig.ok()) {
    std::fprintf(stderr, "BuildRig: %s\n", rig.status().message().c_str());
    return 1;
  }
  auto world = SpringWorld::Create(*rig);
  if (!world.ok()) {
    std::fprintf(stderr, "Create: %s\n", world.status().message().c_str());
    return 1;
  }
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  world->Reset(pose);
  const glm::vec3 rest_tip = world->tails()[2];
  const int head_rig = rig->node_to_rig()[head];
  float max_move = 0.0f;
  for (int step = 0; step < 240; ++step) {
    const float yaw = 0.8f * std::sin(static_cast<float>(step) * 0.05f);
    pose.assign(rig->rest_local().begin(), rig->rest_local().end());
    pose[head_rig].rotation = glm::angleAxis(yaw, glm::vec3(0, 1, 0));
    world->Step(pose);
    const glm::vec3 tip = world->tails()[2];
    if (!std::isfinite(tip.x + tip.y + tip.z)) {
      std::fprintf(stderr, "non-finite tip at step %d\n", step);
      return 1;
    }
    max_move = std::fmax(max_move, glm::length(tip - rest_tip));
  }
  std::printf("spring alone: tip moved up to %.1f mm, state hash %016llx\n", max_move * 1000.0f,
              static_cast<unsigned long long>(world->StateHash()));
  return max_move > 0.01f ? 0 : 1;  // the head turned 46 degrees: the tip must follow
}
