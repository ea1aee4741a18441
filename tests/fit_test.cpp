// The hair-chain fitter on the demo ponytail (weights erased by the fitter), Quaternius and UBC
// hair, with the robustness cases that apply to chain fitting.
#include "hairswing/fit.h"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <set>

#include "hairswing/anim.h"
#include "hairswing/collide.h"
#include "hairswing/demo.h"
#include "hairswing/io.h"
#include "hairswing/measure.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "test_util.h"

namespace hairswing {
namespace {

// Rest-pose positions of one primitive in world space.
std::vector<glm::vec3> RestWorld(const Avatar& av, int mesh, int prim) {
  auto rig = BuildRig(av);
  if (!rig.ok()) {  // an empty result fails the caller's size comparison cleanly
    ADD_FAILURE() << "BuildRig: " << rig.status().message();
    return {};
  }
  std::vector<glm::mat4> pal(1024);
  const Primitive& p = av.meshes[mesh].primitives[prim];
  std::vector<glm::vec3> out(p.positions.size());
  for (const MeshInstance& inst : rig->meshes())
    if (inst.mesh == mesh) {
      const Status st = PosePrimitive(*rig, inst, p, rig->rest_world(), pal, out);
      if (!st.ok()) {
        ADD_FAILURE() << "PosePrimitive: " << st.message();
        return {};
      }
    }
  return out;
}

int MeshIndex(const Avatar& av, const std::string& name) {
  for (size_t m = 0; m < av.meshes.size(); ++m)
    if (av.meshes[m].name == name) return static_cast<int>(m);
  return -1;
}

TEST(Fit, DemoPonytailGetsOneSwingingChainThatSettlesAndPinsTheRoot) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  const int m = MeshIndex(av, "Ponytail");
  const size_t springs_before = av.vrm.springs.size();
  const auto rest_before = RestWorld(av, m, 0);
  auto sel = SelectHair(av, "Ponytail");
  ASSERT_TRUE(sel.ok());
  auto fit = FitHairChains(av, sel.value(), {});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_EQ(fit->chains, 1);
  // The artist's "ponytail" spring moved this mesh before and moves nothing after the refit: it
  // is removed (and the fitted one added).
  ASSERT_EQ(av.vrm.springs.size(), springs_before);
  for (const auto& sp : av.vrm.springs) EXPECT_NE(sp.name, "ponytail");
  bool reported = false;
  for (const auto& c : fit->changes)
    reported = reported || c.find("removed spring \"ponytail\"") != std::string::npos;
  EXPECT_TRUE(reported);
  EXPECT_EQ(av.vrm.springs.back().joints.size(), 6u);
  // The rest pose is unchanged by the new skin (within 1e-5 m).
  const auto rest_after = RestWorld(av, m, 0);
  ASSERT_EQ(rest_after.size(), rest_before.size());
  for (size_t v = 0; v < rest_before.size(); ++v)
    ASSERT_LT(glm::length(rest_after[v] - rest_before[v]), 1e-5f) << v;

  // Head-turn with arc: the tip moves more than 1 cm, settles, and pinned vertices follow the head.
  auto rig = BuildRig(av);
  auto world = SpringWorld::Create(*rig);
  HeadTurnMotion motion(*rig, HumanoidRigNode(av, *rig, "head"), HumanoidRigNode(av, *rig, "hips"));
  ClipDriver driver(*world, motion);
  driver.Reset();
  const RigChain& ch = rig->chains().back();
  const glm::vec3 tip0 = world->tails()[ch.joint_end - 2];
  const int head = HumanoidRigNode(av, *rig, "head");
  const Primitive& p = av.meshes[m].primitives[0];
  std::vector<glm::mat4> w(rig->node_count()), pal(1024);
  std::vector<glm::vec3> posed(p.positions.size());
  MeshInstance inst;
  for (const MeshInstance& mi : rig->meshes())
    if (mi.mesh == m) inst = mi;
  const RigSkin& rs = rig->skins()[inst.skin];
  float tip_move = 0, settle = 0, pin_dev = 0;
  glm::vec3 prev_tip = tip0;
  for (int f = 1; f <= 12 * 30; ++f) {
    driver.Advance(1.0 / 30.0);
    const glm::vec3 tip = world->tails()[ch.joint_end - 2];
    tip_move = std::max(tip_move, glm::length(tip - tip0));
    if (f > 10 * 30) settle = std::max(settle, glm::length(tip - prev_tip));
    prev_tip = tip;
    if (f % 15 == 0) {
      ComputeWorld(*rig, driver.pose(), w);
      ASSERT_TRUE(PosePrimitive(*rig, inst, p, w, pal, posed).ok());
      const glm::mat4 head_delta = w[head] * glm::inverse(rig->rest_world()[head]);
      for (size_t v = 0; v < p.positions.size(); ++v)
        if (p.weights[v].x == 1.0f && rs.joints[p.joints[v].x] == head)
          pin_dev = std::max(
              pin_dev,
              glm::length(posed[v] - glm::vec3(head_delta * glm::vec4(rest_before[v], 1))));
    }
  }
  std::printf("ponytail fit: tip moved %.1f mm, settle %.2e mm, pinned band deviation %.2e mm\n",
              tip_move * 1000, settle * 1000, pin_dev * 1000);
  EXPECT_GT(tip_move, 0.01f);
  EXPECT_LT(settle * 1000, 0.001f);
  EXPECT_LT(pin_dev * 1000, 0.1f);
}

// Fits av's ponytail, writes and reads it back as `hairswing fit --undo` does, and undoes the
// fit: expects the bytes av had before the fit. Returns the undone avatar.
Avatar FitThroughFileAndUndo(Avatar av) {
  const auto before = EncodeGlb(av, true).value();
  if (!FitHairChains(av, SelectHair(av, "Ponytail").value(), {}).ok()) {
    ADD_FAILURE() << "fit failed";
    return av;
  }
  auto bytes = EncodeGlb(av, true).value();
  auto loaded = LoadAvatarFromMemory(bytes.data(), bytes.size(), "fitted.vrm", ".");
  if (!loaded.ok()) {
    ADD_FAILURE() << loaded.status().message();
    return av;
  }
  Avatar back = loaded->avatar;
  EXPECT_TRUE(UndoFit(back).ok());
  EXPECT_EQ(EncodeGlb(back, true).value(), before);
  return back;
}

TEST(Fit, UndoRestoresTheOriginalExactly) {
  Avatar back = FitThroughFileAndUndo(MakeDemoAvatar(DemoVariant::kPonytail));
  EXPECT_FALSE(UndoFit(back).ok());  // nothing left to undo
}

// A head whose mesh follows a bone below the head bone (a mannequin's egg of a head skinned to
// "Head_End" rather than "Head", as the cryptovoxels mannequin): the fitter takes the head and the
// nodes below it that are not spring joints as one surface. Here every body vertex the demo's head
// bone moved follows a new "Head_End" at the same place; the ponytail touches that surface as it
// touched the head's (before, no vertex followed "Head" itself: "does not touch the head").
TEST(Fit, AHeadSkinnedToABoneBelowTheHeadBoneIsStillTheHead) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  const int head = av.vrm.humanoid.at("head");
  const int end = static_cast<int>(av.nodes.size());
  Node node;
  node.name = "Head_End";
  node.parent = head;
  av.nodes.push_back(node);
  av.nodes[head].children.push_back(end);
  const int hair = MeshIndex(av, "Ponytail");
  int moved = 0;
  for (size_t s = 0; s < av.skins.size(); ++s) {
    Skin& sk = av.skins[s];
    const auto it = std::find(sk.joints.begin(), sk.joints.end(), head);
    if (it == sk.joints.end()) continue;
    const auto from = static_cast<uint16_t>(it - sk.joints.begin());
    sk.joints.push_back(end);
    sk.inverse_bind.push_back(sk.inverse_bind[from]);  // the same place as the head
    const auto to = static_cast<uint16_t>(sk.joints.size() - 1);
    for (const Node& n : av.nodes) {
      if (n.skin != static_cast<int>(s) || n.mesh < 0 || n.mesh == hair) continue;
      for (Primitive& p : av.meshes[n.mesh].primitives)
        for (size_t v = 0; v < p.joints.size(); ++v)
          for (int k = 0; k < 4; ++k)
            if (p.joints[v][k] == from && p.weights[v][k] > 0.0f) p.joints[v][k] = to, ++moved;
    }
  }
  ASSERT_GT(moved, 100);
  auto sel = SelectHair(av, "Ponytail");
  ASSERT_TRUE(sel.ok());
  auto fit = FitHairChains(av, sel.value(), {});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_EQ(fit->chains, 1);
  // The same chain as on the demo avatar itself: rooted under the head, six joints.
  Avatar plain = MakeDemoAvatar(DemoVariant::kPonytail);
  auto plain_sel = SelectHair(plain, "Ponytail");
  ASSERT_TRUE(plain_sel.ok());
  ASSERT_TRUE(FitHairChains(plain, plain_sel.value(), {}).ok());
  ASSERT_EQ(av.vrm.springs.back().joints.size(), plain.vrm.springs.back().joints.size());
  for (size_t j = 0; j < plain.vrm.springs.back().joints.size(); ++j) {
    const int a = av.vrm.springs.back().joints[j].node, b = plain.vrm.springs.back().joints[j].node;
    EXPECT_LT(glm::length(av.nodes[a].translation - plain.nodes[b].translation), 1e-6f) << j;
  }
  EXPECT_EQ(av.nodes[av.vrm.springs.back().joints[0].node].parent, head);
}

// How far the fitted chain `spring` moves in half a second of a still body: its ends against
// their rest positions, world metres.
float DriftAtRest(const Avatar& av, const Spring& spring) {
  auto rig = BuildRig(av);
  if (!rig.ok()) {
    ADD_FAILURE() << rig.status().message();
    return 1e9f;
  }
  auto world = SpringWorld::Create(*rig);
  if (!world.ok()) {
    ADD_FAILURE() << world.status().message();
    return 1e9f;
  }
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  for (int i = 0; i < 60; ++i) {
    pose.assign(rig->rest_local().begin(), rig->rest_local().end());
    world->Step(pose);
  }
  float drift = 0;
  for (const SpringJoint& j : spring.joints) {
    const int n = rig->node_to_rig()[j.node];
    drift = std::max(
        drift, glm::length(glm::vec3(world->world()[n][3]) - glm::vec3(rig->rest_world()[n][3])));
  }
  return drift;
}

// A collider that holds the fitted hair inside it at rest (here a 4 cm sphere around the middle of
// the ponytail, in the head's group with the demo's other colliders) would push the hair out at
// every step: the fitted spring leaves it out and keeps the group's other colliders (a new group),
// and the hit radii keep clear of the colliders it keeps, so the hair rests where it was fitted.
TEST(Fit, ChainsLeaveOutAColliderThatHoldsTheirHairAtRest) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  const int m = MeshIndex(av, "Ponytail");
  const auto hair = RestWorld(av, m, 0);
  ASSERT_FALSE(hair.empty());
  glm::vec3 centre(0.0f);
  for (const glm::vec3& p : hair) centre += p;
  centre /= static_cast<float>(hair.size());
  auto rig0 = BuildRig(av);
  ASSERT_TRUE(rig0.ok());
  const int head = av.vrm.humanoid.at("head");
  const glm::mat4 head_world = rig0->rest_world()[rig0->node_to_rig()[head]];
  Collider big;
  big.node = head;
  big.offset = glm::vec3(glm::inverse(head_world) * glm::vec4(centre, 1.0f));
  big.radius = 0.04f;
  av.vrm.colliders.push_back(big);
  const int big_index = static_cast<int>(av.vrm.colliders.size()) - 1;
  ASSERT_EQ(av.vrm.collider_groups.size(), 1u);
  av.vrm.collider_groups[0].colliders.push_back(big_index);
  const size_t groups_before = av.vrm.collider_groups.size();
  const Avatar original = av;

  auto fit = FitHairChains(av, SelectHair(av, "Ponytail").value(), {});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const Spring& sp = av.vrm.springs.back();
  std::set<int> kept;
  for (int g : sp.collider_groups)
    for (int c : av.vrm.collider_groups.at(g).colliders) kept.insert(c);
  EXPECT_EQ(kept.count(big_index), 0u) << "the sphere holding the hair is still on the spring";
  EXPECT_EQ(kept.size(), av.vrm.colliders.size() - 1) << "the group's other colliders are lost";
  EXPECT_EQ(av.vrm.collider_groups.size(), groups_before + 1);
  bool reported = false;
  for (const auto& c : fit->changes)
    reported = reported || c.find("leaves out what holds its hair at rest") != std::string::npos;
  EXPECT_TRUE(reported);

  // No collider the spring keeps touches a joint's end (with its hit radius) at rest.
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  for (size_t k = 0; k + 1 < sp.joints.size(); ++k) {
    const glm::mat4& jw = rig->rest_world()[rig->node_to_rig()[sp.joints[k].node]];
    const glm::vec3 end(rig->rest_world()[rig->node_to_rig()[sp.joints[k + 1].node]][3]);
    const float hit = sp.joints[k].hit_radius * glm::length(glm::vec3(jw[0]));
    for (int c : kept) {
      const Collider& col = av.vrm.colliders[c];
      const WorldCollider wc =
          ColliderToWorld(col.shape, col.offset, col.tail, col.normal, col.radius,
                          rig->rest_world()[rig->node_to_rig()[col.node]], true);
      glm::vec3 n;
      EXPECT_GE(PointContact(wc, end, hit, &n), 0.0f) << "joint " << k << ", collider " << c;
    }
  }

  // The hair rests where it was fitted; with the sphere put back on the spring it is pushed out.
  const float drift = DriftAtRest(av, sp);
  Avatar pushed = av;
  pushed.vrm.springs.back().collider_groups.push_back(0);
  const float pushed_drift = DriftAtRest(pushed, pushed.vrm.springs.back());
  std::printf("fitted under a sphere: drift at rest %.4f mm (with the sphere kept: %.1f mm)\n",
              1000 * drift, 1000 * pushed_drift);
  EXPECT_LT(drift, 1e-5f);
  EXPECT_GT(pushed_drift, 0.01f);

  // The undo drops the new group too: the file is the one before the fit, byte for byte.
  FitThroughFileAndUndo(original);
}

// A strand that comes about as near the head further down as at its root (the middle of a strand
// lying over the scalp, as a worn hairstyle's scalp fit leaves it) hangs from its root alone:
// here the head gets one more vertex beside the ponytail, 60 % of the way down. Pinned there too,
// the hair between would be held at both ends, and the chain would follow the level sets of two
// roots (women_SciFi worn on godette: worst excess stretch 331 % in every solver). The fitted chain
// and every weight are those of the avatar without that vertex, and the fit says so. With that
// vertex beside the ponytail's tip instead, the strand is held at both ends (a loop, a tucked
// lock, long hair down to a neck the head holds), as the artist placed it: its tip stays pinned.
TEST(Fit, AStrandThatComesNearTheHeadFurtherDownHangsFromItsRootAlone) {
  const Avatar plain = MakeDemoAvatar(DemoVariant::kPonytail);
  const int m = MeshIndex(plain, "Ponytail"), mh = MeshIndex(plain, "Head");
  ASSERT_GE(m, 0);
  ASSERT_GE(mh, 0);
  const auto hair = RestWorld(plain, m, 0);
  ASSERT_FALSE(hair.empty());
  float top = -1e9f, bottom = 1e9f;
  for (const glm::vec3& p : hair) top = std::max(top, p.y), bottom = std::min(bottom, p.y);
  auto at_height = [&](float share) {  // the vertex nearest a share of the way down
    const float y = top - share * (top - bottom);
    size_t v = 0;
    for (size_t i = 0; i < hair.size(); ++i)
      if (std::abs(hair[i].y - y) < std::abs(hair[v].y - y)) v = i;
    return v;
  };
  float d0 = 1e9f;  // how near the root comes to the head's vertices
  for (const glm::vec3& h : RestWorld(plain, mh, 0))
    for (const glm::vec3& p : hair) d0 = std::min(d0, glm::length(h - p));

  // The avatar with one more head vertex 5 mm further from hair vertex v than d0 (within the
  // 1.5 cm that makes hair root), straight out from the strand's axis; skinned to the head
  // alone, mesh space from its bind.
  auto with_touch = [&](size_t v) {
    glm::vec3 axis(0.0f);
    int ring = 0;
    for (const glm::vec3& p : hair)
      if (std::abs(p.y - hair[v].y) < 0.01f) axis += p, ++ring;
    glm::vec3 out = hair[v] - axis / static_cast<float>(ring);
    out.y = 0.0f;
    EXPECT_GT(glm::length(out), 1e-3f);
    const glm::vec3 at = hair[v] + (d0 + 0.005f) * glm::normalize(out);
    Avatar touch = plain;
    int skin = -1;
    for (const Node& n : touch.nodes)
      if (n.mesh == mh) skin = n.skin;
    EXPECT_GE(skin, 0);
    const int head = touch.vrm.humanoid.at("head");
    const Skin& sk = touch.skins.at(skin);
    const auto slot = std::find(sk.joints.begin(), sk.joints.end(), head) - sk.joints.begin();
    auto rig = BuildRig(touch);
    EXPECT_TRUE(rig.ok());
    const glm::mat4 bind = rig->rest_world()[rig->node_to_rig()[head]] * sk.inverse_bind.at(slot);
    Primitive& hp = touch.meshes[mh].primitives[0];
    hp.positions.push_back(glm::vec3(glm::inverse(bind) * glm::vec4(at, 1.0f)));
    if (!hp.normals.empty()) hp.normals.emplace_back(0.0f, 1.0f, 0.0f);
    hp.joints.emplace_back(static_cast<uint16_t>(slot), 0, 0, 0);
    hp.weights.emplace_back(1.0f, 0.0f, 0.0f, 0.0f);
    for (MorphTarget& t : hp.targets) {
      if (!t.positions.empty()) t.positions.emplace_back(0.0f);
      if (!t.normals.empty()) t.normals.emplace_back(0.0f);
    }
    EXPECT_LT(glm::length(RestWorld(touch, mh, 0).back() - at), 1e-5f);
    return touch;
  };
  auto says = [](const FitResult& r, const std::string& what) {
    for (const auto& c : r.changes)
      if (c.find(what) != std::string::npos) return true;
    return false;
  };

  const size_t mid = at_height(0.6f);
  Avatar a = plain, b = with_touch(mid);
  auto fa = FitHairChains(a, SelectHair(a, "Ponytail").value(), {});
  auto fb = FitHairChains(b, SelectHair(b, "Ponytail").value(), {});
  ASSERT_TRUE(fa.ok()) << fa.status().message();
  ASSERT_TRUE(fb.ok()) << fb.status().message();
  const Spring &sa = a.vrm.springs.back(), &sb = b.vrm.springs.back();
  ASSERT_EQ(sa.joints.size(), sb.joints.size());
  for (size_t k = 0; k < sa.joints.size(); ++k)
    EXPECT_LT(glm::length(a.nodes[sa.joints[k].node].translation -
                          b.nodes[sb.joints[k].node].translation),
              1e-6f)
        << "joint " << k;
  const Primitive &pa = a.meshes[m].primitives[0], &pb = b.meshes[m].primitives[0];
  ASSERT_EQ(pa.weights.size(), pb.weights.size());
  for (size_t v = 0; v < pa.weights.size(); ++v) {
    ASSERT_EQ(pa.joints[v], pb.joints[v]) << v;
    ASSERT_LT(glm::length(pa.weights[v] - pb.weights[v]), 1e-6f) << v;
  }
  // The vertex at the touch moves with the chain. Pinned, it would have the head's weight alone.
  auto pinned = [&](const Avatar& av, size_t v) {
    const Primitive& p = av.meshes[m].primitives[0];
    for (const Node& n : av.nodes)
      if (n.mesh == m && n.skin >= 0)
        return av.skins[n.skin].joints.at(p.joints[v][0]) == av.vrm.humanoid.at("head") &&
               p.weights[v] == glm::vec4(1.0f, 0.0f, 0.0f, 0.0f);
    return false;
  };
  EXPECT_FALSE(pinned(b, mid));
  EXPECT_TRUE(says(*fb, "hangs from its root alone"));
  EXPECT_FALSE(says(*fa, "hangs from its root alone"));
  EXPECT_FALSE(says(*fa, "pinned at both ends"));

  // Beside the tip: held at both ends, the tip on the head.
  const size_t tip = at_height(1.0f);
  Avatar c = with_touch(tip);
  auto fc = FitHairChains(c, SelectHair(c, "Ponytail").value(), {});
  ASSERT_TRUE(fc.ok()) << fc.status().message();
  EXPECT_TRUE(says(*fc, "pinned at both ends"));
  EXPECT_FALSE(says(*fc, "hangs from its root alone"));
  EXPECT_TRUE(pinned(c, tip));
  EXPECT_FALSE(pinned(a, tip));  // without the touch it swings
}

// A hair shell: game hair is often an outer and an inner layer joined along its lower edge. The
// demo ponytail (a tube of 50 rings x 32 sides, root ring first) gets an inner tube at 0.7 of its
// radius from its last ring back up to its middle, joined to the outer tube at the bottom. Walked
// over the surface from the root, the inner layer comes after the outer one, so a centre line
// through those distances turns round at the bottom (a U of joints) and the two layers would be
// skinned to different joints. The fitter joins the layers through the hair's thickness: one
// straight chain to the bottom, each inner vertex on the joints of the outer one beside it.
TEST(Fit, AHairShellFoldedAtItsLowerEdgeGetsOneChainDownBothLayers) {
  constexpr int kRings = 50, kSides = 32, kFrom = 25;  // the inner tube: rings 49 .. 25
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  const int m = MeshIndex(av, "Ponytail");
  ASSERT_GE(m, 0);
  Primitive& p = av.meshes[m].primitives[0];
  ASSERT_EQ(p.positions.size(), static_cast<size_t>(kRings * kSides));
  ASSERT_TRUE(p.targets.empty());
  const uint32_t inner0 = static_cast<uint32_t>(p.positions.size());
  auto inner = [&](int ring, int side) {  // inner ring 0 lies inside outer ring kRings - 1
    return inner0 + static_cast<uint32_t>((kRings - 1 - ring) * kSides + side % kSides);
  };
  for (int r = kRings - 1; r >= kFrom; --r) {
    glm::vec3 c(0.0f);
    for (int k = 0; k < kSides; ++k) c += p.positions[r * kSides + k];
    c /= static_cast<float>(kSides);
    for (int k = 0; k < kSides; ++k) {
      const size_t o = r * kSides + k;
      p.positions.push_back(c + 0.7f * (p.positions[o] - c));
      if (!p.normals.empty()) p.normals.push_back(-p.normals[o]);
      p.joints.push_back(p.joints[o]);
      p.weights.push_back(p.weights[o]);
    }
  }
  auto quad = [&](uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    p.indices.insert(p.indices.end(), {a, b, c, a, c, d});
  };
  for (int k = 0; k < kSides; ++k) {
    const uint32_t o = (kRings - 1) * kSides;  // the lower edge: outer last ring to inner first
    quad(o + k, o + (k + 1) % kSides, inner(kRings - 1, k + 1), inner(kRings - 1, k));
    for (int r = kRings - 1; r > kFrom; --r)
      quad(inner(r, k), inner(r, k + 1), inner(r - 1, k + 1), inner(r - 1, k));
  }
  const auto world = RestWorld(av, m, 0);
  ASSERT_EQ(world.size(), p.positions.size());
  float bottom = 1e9f;
  for (const glm::vec3& w : world) bottom = std::min(bottom, w.y);

  auto fit = FitHairChains(av, SelectHair(av, "Ponytail").value(), {});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  bool said = false;
  for (const auto& c : fit->changes) said |= c.find("folds back on itself") != std::string::npos;
  EXPECT_TRUE(said);
  auto rig = BuildRig(av);
  ASSERT_TRUE(rig.ok());
  const Spring& sp = av.vrm.springs.back();
  std::vector<glm::vec3> joints;
  for (const SpringJoint& j : sp.joints)
    joints.emplace_back(rig->rest_world()[rig->node_to_rig()[j.node]][3]);
  ASSERT_GE(joints.size(), 3u);
  // No U: every joint bends less than 45 deg, and the chain ends at the bottom of the hair, not
  // back up at the inner layer's top (the middle of the ponytail).
  for (size_t k = 1; k + 1 < joints.size(); ++k)
    EXPECT_LT(glm::degrees(std::acos(std::clamp(glm::dot(glm::normalize(joints[k] - joints[k - 1]),
                                                         glm::normalize(joints[k + 1] - joints[k])),
                                                -1.0f, 1.0f))),
              45.0f)
        << "joint " << k;
  const float length = glm::length(joints.front() - joints.back());
  EXPECT_LT(joints.back().y - bottom, 0.15f * length);
  // Each inner vertex follows the joint the outer vertex beside it follows most.
  const Primitive& q = av.meshes[m].primitives[0];
  int same = 0, total = 0;
  for (int r = kRings - 1; r >= kFrom; --r)
    for (int k = 0; k < kSides; k += 4) {
      const size_t o = r * kSides + k, i = inner(r, k);
      auto top = [&](size_t v) {
        int best = 0;
        for (int c = 1; c < 4; ++c)
          if (q.weights[v][c] > q.weights[v][best]) best = c;
        return q.joints[v][best];
      };
      same += top(o) == top(i) ? 1 : 0;
      ++total;
    }
  EXPECT_GE(same, total * 9 / 10) << same << " of " << total;
}

// The fitter's cone limits: a = 0.85 x 2 x max_flip / (n + 1) on each swinging joint, none on
// the tip; a sideways pull that throws the free chain past 90 degrees leaves the limited one's
// chord within max_flip of its rest direction (the flip figure, computed here from positions).
TEST(Fit, FittedChainsGetConeLimitsThatBoundTheFlip) {
  auto chord_turn = [](FitOptions opt) {
    Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
    EXPECT_TRUE(FitHairChains(av, SelectHair(av, "Ponytail").value(), opt).ok());
    const Spring& sp = av.vrm.springs.back();
    const size_t n = sp.joints.size() - 1;
    for (size_t k = 0; k < sp.joints.size(); ++k) {
      const JointLimit& l = sp.joints[k].limit;
      if (opt.max_flip_deg > 0 && k < n) {
        EXPECT_EQ(l.kind, JointLimit::Kind::kCone);
        EXPECT_NEAR(l.angle, 0.85 * 2 * opt.max_flip_deg * M_PI / 180 / (n + 1), 1e-6) << k;
      } else {
        EXPECT_EQ(l.kind, JointLimit::Kind::kNone) << k;
      }
    }
    for (SpringJoint& j : av.vrm.springs.back().joints) {
      j.gravity_power = 6.0f;  // up and sideways: over the head
      j.gravity_dir = glm::normalize(glm::vec3(1, 1, 0));
    }
    auto rig = BuildRig(av);
    const RigChain& ch = rig->chains().back();
    auto world = SpringWorld::Create(*rig);
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    world->Reset(pose);
    const glm::vec3 root(rig->rest_world()[rig->joint_node()[ch.joint_begin]][3]);
    const glm::vec3 rest_tip(rig->rest_world()[rig->joint_node()[ch.joint_end - 1]][3]);
    float worst = 0;
    for (int i = 0; i < 240; ++i) {
      pose.assign(rig->rest_local().begin(), rig->rest_local().end());
      world->Step(pose);
      const glm::vec3 tip = world->tails()[ch.joint_end - 2];
      worst = std::max(
          worst,
          std::acos(std::clamp(
              glm::dot(glm::normalize(tip - root), glm::normalize(rest_tip - root)), -1.0f, 1.0f)));
    }
    return worst * 180.0f / static_cast<float>(M_PI);
  };
  FitOptions free;
  free.max_flip_deg = 0;
  const float thrown = chord_turn(free);
  ASSERT_GT(thrown, 90.0f) << "the pull must throw the free chain";
  EXPECT_LE(chord_turn({}), 60.0f);
  FitOptions tight;
  tight.max_flip_deg = 30;
  EXPECT_LE(chord_turn(tight), 30.0f);
}

// A spring that had an angle limit before the fit (an artist's bang) gets it back on undo.
TEST(Fit, UndoRestoresJointLimitsToo) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  for (SpringJoint& j : av.vrm.springs[0].joints)
    j.limit = {JointLimit::Kind::kSpherical, 0.7f, 0.2f, glm::normalize(glm::quat(1, 0.2f, 0, 0))};
  av.vrm.springs[0].joints.back().limit = {};
  FitThroughFileAndUndo(av);
}

TEST(Fit, RenamedBonesAndScaleGiveTheSameResult) {
  auto joints_of = [](const Avatar& av) {
    auto rig = BuildRig(av);
    std::vector<glm::vec3> out;
    for (int j = rig->chains().back().joint_begin; j < rig->chains().back().joint_end; ++j)
      out.push_back(glm::vec3(rig->rest_world()[rig->joint_node()[j]][3]));
    return out;
  };
  Avatar base = MakeDemoAvatar(DemoVariant::kPonytail);
  ASSERT_TRUE(FitHairChains(base, SelectHair(base, "Ponytail").value(), {}).ok());
  const auto ref = joints_of(base);
  // Renamed: every node gets a meaningless name; the VRM humanoid still says which is the head.
  Avatar renamed = MakeDemoAvatar(DemoVariant::kPonytail);
  for (size_t n = 0; n < renamed.nodes.size(); ++n)
    renamed.nodes[n].name = "n" + std::to_string(n * 7919 % 1000);
  ASSERT_TRUE(FitHairChains(renamed, SelectHair(renamed, "Ponytail").value(), {}).ok());
  const auto r = joints_of(renamed);
  ASSERT_EQ(r.size(), ref.size());
  for (size_t i = 0; i < r.size(); ++i) EXPECT_LT(glm::length(r[i] - ref[i]), 1e-6f);
  // Scaled by 0.01 and by 100 at the root: the same joints, scaled.
  for (float s : {0.01f, 100.0f}) {
    SCOPED_TRACE(s);
    Avatar scaled = MakeDemoAvatar(DemoVariant::kPonytail);
    for (int root : scaled.scene_roots) scaled.nodes[root].scale *= s;
    for (int root : scaled.scene_roots) scaled.nodes[root].translation *= s;
    ASSERT_TRUE(FitHairChains(scaled, SelectHair(scaled, "Ponytail").value(), {}).ok());
    const auto j = joints_of(scaled);
    ASSERT_EQ(j.size(), ref.size());
    for (size_t i = 0; i < j.size(); ++i) EXPECT_LT(glm::length(j[i] / s - ref[i]), 1e-4f) << i;
  }
}

TEST(Fit, ClearErrors) {
  // Missing head role: a plain skeleton with no humanoid and no known names.
  Avatar no_head = MakeDemoAvatar(DemoVariant::kPonytail);
  no_head.vrm.humanoid.clear();
  for (auto& n : no_head.nodes) n.name = "x" + n.name;
  auto e1 = FitHairChains(no_head, SelectHair(no_head, "Ponytail").value(), {});
  ASSERT_FALSE(e1.ok());
  EXPECT_NE(e1.status().message().find("\"head\""), std::string::npos) << e1.status().message();
  // Hair that does not touch the head: the ponytail moved 1 m away in bind space.
  Avatar far = MakeDemoAvatar(DemoVariant::kPonytail);
  for (auto& p : far.meshes[MeshIndex(far, "Ponytail")].primitives[0].positions)
    p += glm::vec3(1, 0, 0);
  auto e2 = FitHairChains(far, SelectHair(far, "Ponytail").value(), {});
  ASSERT_FALSE(e2.ok());
  EXPECT_NE(e2.status().message().find("does not touch"), std::string::npos)
      << e2.status().message();
  // A one-triangle hair.
  Avatar tiny = MakeDemoAvatar(DemoVariant::kPonytail);
  Primitive& p = tiny.meshes[MeshIndex(tiny, "Ponytail")].primitives[0];
  p.indices.resize(3);
  auto e3 = FitHairChains(tiny, SelectHair(tiny, "Ponytail").value(), {});
  ASSERT_FALSE(e3.ok());
  EXPECT_NE(e3.status().message().find("1 triangle"), std::string::npos) << e3.status().message();
  // Selectors.
  EXPECT_FALSE(SelectHair(tiny, "NoSuchMesh").ok());
  EXPECT_FALSE(SelectHair(tiny, "Ponytail/3").ok());
  EXPECT_FALSE(SelectHair(tiny, "material:Nope").ok());
  EXPECT_TRUE(SelectHair(tiny, "Ponytail/0").ok());
  EXPECT_TRUE(SelectHair(tiny, "material:Hair").ok());
}

// When no clump of a selection can hang, the error counts the clumps and says why each group
// failed, with the longest reach and the option that decides it (it named only the last clump's
// reason: a worn cut of 36 clumps read as "a clump of 45 vertices reaches only 2.7 cm").
TEST(Fit, NoClumpHangsSaysHowManyFailedAndWhy) {
  Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  const HairSelection sel = SelectHair(av, "HairLayers").value();
  Avatar fitted = av;
  auto ok = FitHairChains(fitted, sel, {});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  const int clumps = ok->chains;  // every clump hangs at the defaults
  ASSERT_GE(clumps, 2);
  FitOptions o;
  o.min_hang_length = 1.0f;  // nothing on the demo reaches 1 m
  auto e = FitHairChains(av, sel, o);
  ASSERT_FALSE(e.ok());
  const std::string& m = e.status().message();
  const std::string n = std::to_string(clumps);
  EXPECT_NE(m.find("of its " + n + " clumps, " + n + " reach less than 100.0 cm"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("(the longest "), std::string::npos) << m;
  EXPECT_NE(m.find("--min-hang"), std::string::npos) << m;
}

TEST(Fit, RealHairOnQuaternius) {
  HS_LOAD_SHARED_OR_SKIP(casual, "avatars/quaternius-casual.glb");
  auto sel = SelectHair(casual.avatar, "material:Hair_Blond");
  ASSERT_TRUE(sel.ok());
  const auto [m, p] = sel->primitives[0];
  const auto before = RestWorld(casual.avatar, m, p);
  auto fit = FitHairChains(casual.avatar, sel.value(), {});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_GE(fit->chains, 1);
  // Centimetre geometry under a scaled, rotated root: the new joints' bind matrices must keep the
  // rest pose exactly where it was.
  const auto after = RestWorld(casual.avatar, m, p);
  ASSERT_EQ(after.size(), before.size());
  for (size_t v = 0; v < before.size(); ++v)
    ASSERT_LT(glm::length(after[v] - before[v]), 1e-4f) << v;
}

// UBC's long hair worn on its body: figures, not only "it runs". Bounds are stated from what the
// hair is (a long cut that hangs from the head), not copied from a run.
TEST(Fit, UbcLongHairHangsKeepsItsRestPoseAndSwings) {
  HS_LOAD_SHARED_OR_SKIP(body, "avatars/ubc/Superhero_Female_FullBody.gltf");
  HS_LOAD_SHARED_OR_SKIP(hair, "avatars/ubc/Hair_Long.gltf");
  std::vector<std::string> warnings;
  auto worn = WearHair(body.avatar, hair.avatar, &warnings);
  ASSERT_TRUE(worn.ok()) << worn.status().message();
  auto sel = SelectHair(body.avatar, "Hair_Long");
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  const auto [m, p] = sel->primitives[0];
  const auto before = RestWorld(body.avatar, m, p);
  const size_t springs_before = body.avatar.vrm.springs.size();
  auto fit = FitHairChains(body.avatar, sel.value(), {});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  ASSERT_GE(fit->chains, 1);
  ASSERT_EQ(body.avatar.vrm.springs.size(), springs_before + fit->chains);
  // The new skin keeps the rest pose (bind matrices of the new joints are right) to 0.1 mm.
  const auto after = RestWorld(body.avatar, m, p);
  ASSERT_EQ(after.size(), before.size());
  for (size_t v = 0; v < before.size(); ++v)
    ASSERT_LT(glm::length(after[v] - before[v]), 1e-4f) << v;
  // Every vertex has valid, normalised weights.
  const Primitive& prim = body.avatar.meshes[m].primitives[p];
  int skin_index = -1;
  for (const Node& n : body.avatar.nodes)
    if (n.mesh == m) skin_index = n.skin;
  ASSERT_GE(skin_index, 0) << "the fitted hair is skinned";
  const Skin& skin = body.avatar.skins[skin_index];
  for (size_t v = 0; v < prim.positions.size(); ++v) {
    const glm::vec4 w = prim.weights[v];
    ASSERT_NEAR(w.x + w.y + w.z + w.w, 1.0f, 1e-4f) << v;
    for (int k = 0; k < 4; ++k) ASSERT_LT(prim.joints[v][k], skin.joints.size()) << v;
  }
  // Each fitted chain hangs: its tip is below its root and it is at least the fitter's minimum
  // hanging length (4 cm) long; a long cut is shorter than 60 cm.
  auto rig = BuildRig(body.avatar);
  ASSERT_TRUE(rig.ok()) << rig.status().message();
  for (const RigChain& ch : rig->chains().subspan(rig->chains().size() - fit->chains)) {
    const glm::vec3 root(rig->rest_world()[rig->joint_node()[ch.joint_begin]][3]);
    const glm::vec3 tip(rig->rest_world()[rig->joint_node()[ch.joint_end - 1]][3]);
    EXPECT_LT(tip.y, root.y);
    EXPECT_GT(glm::length(tip - root), 0.04f);
    EXPECT_LT(glm::length(tip - root), 0.60f);
  }
  // Head-turn at 60 fps: the hair swings (tip lag rms over 2 mm), the arc solver stretches the
  // mesh less than the VRM reference (the point of the arc solver), and neither tears it (p99
  // edge stretch under 30 %).
  MeasureOptions mo;
  mo.fps = {60};
  mo.solvers = {SolverMode::kArc, SolverMode::kVrm};
  auto rep = Measure(body.avatar, mo);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  ASSERT_EQ(rep->results.size(), 2u);
  const RunResult& arc = rep->results[0];
  const RunResult& vrm = rep->results[1];
  ASSERT_EQ(arc.solver, SolverMode::kArc);
  std::printf(
      "UBC Hair_Long: %d chain(s), arc swing %.1f mm, p99 stretch arc %.1f %% vrm %.1f %%\n",
      fit->chains, arc.swing_rms_mm, arc.stretch_p99_welded_pct, vrm.stretch_p99_welded_pct);
  EXPECT_GT(arc.swing_rms_mm, 2.0);
  EXPECT_LT(arc.stretch_p99_welded_pct, vrm.stretch_p99_welded_pct);
  EXPECT_LT(arc.stretch_p99_welded_pct, 30.0);
  EXPECT_LT(arc.settle_mm, 0.01);
  auto bytes = EncodeGlb(body.avatar, true);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
}

}  // namespace
}  // namespace hairswing

namespace hairswing {
namespace {

int ShirtMesh(const Avatar& av) {
  for (size_t m = 0; m < av.meshes.size(); ++m)
    if (av.meshes[m].name == "Shirt") return static_cast<int>(m);
  return -1;
}

std::vector<float> Radii(const Avatar& av) {
  std::vector<float> r;
  for (const auto& c : av.vrm.colliders) r.push_back(c.radius);
  return r;
}

TEST(ColliderFit, LayeredDemoHasNoHiddenFrontStrandsAfterFitting) {
  Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  MeasureOptions opt;
  opt.fps = {120};
  opt.solvers = {SolverMode::kArc, SolverMode::kParent};
  opt.shirt_mesh = ShirtMesh(av);
  auto before = Measure(av, opt);
  ASSERT_TRUE(before.ok());
  auto cf = FitColliders(av);
  ASSERT_TRUE(cf.ok()) << cf.status().message();
  EXPECT_GT(cf->grown, 0);
  EXPECT_EQ(cf->added, 1);           // the demo has no collider on the lower trunk
  EXPECT_EQ(cf->segment_chains, 2);  // the two front strands, nothing behind the body
  auto after = Measure(av, opt);
  ASSERT_TRUE(after.ok());
  std::printf(
      "layered, arc: hidden front-strand vertices %d -> %d (max depth %.1f -> %.1f mm), p99 "
      "stretch %.2f -> %.2f %%\n",
      *before->results[0].occlusion_hidden, *after->results[0].occlusion_hidden,
      *before->results[0].occlusion_max_depth_mm, *after->results[0].occlusion_max_depth_mm,
      before->results[0].stretch_p99_pct, after->results[0].stretch_p99_pct);
  EXPECT_GT(*before->results[0].occlusion_hidden, 0);
  EXPECT_EQ(*after->results[0].occlusion_hidden, 0);
  // Pushing the front strands out of the shirt bends them around larger colliders, which costs
  // stretch (the two front strands swing around the grown torso capsule). Measured with the
  // default arc: 18.0 -> 31.1 %, parent 25.7 -> 43.4 % (arc's lively setting: 50.5 -> 54.9 %).
  // Bounded here: arc stays below the parent solver after fitting too, and below twice its p99
  // before.
  EXPECT_LT(after->results[0].stretch_p99_pct, after->results[1].stretch_p99_pct);
  EXPECT_LE(after->results[0].stretch_p99_pct, 2.0 * before->results[0].stretch_p99_pct);
  EXPECT_LT(after->results[0].settle_mm, 0.001);
}

TEST(ColliderFit, UndoAfterChainAndColliderFitIsBitExact) {
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  const auto before = EncodeGlb(av, true).value();
  ASSERT_TRUE(FitHairChains(av, SelectHair(av, "Ponytail").value(), {}).ok());
  ASSERT_TRUE(FitColliders(av).ok());
  auto bytes = EncodeGlb(av, true).value();
  auto loaded = LoadAvatarFromMemory(bytes.data(), bytes.size(), "fitted.vrm", ".");
  ASSERT_TRUE(loaded.ok());
  // The fitted file keeps the grown radii and the added torso capsule through the round trip.
  EXPECT_EQ(Radii(loaded->avatar), Radii(av));
  EXPECT_GT(av.vrm.colliders.size(), MakeDemoAvatar(DemoVariant::kPonytail).vrm.colliders.size());
  Avatar back = loaded->avatar;
  ASSERT_TRUE(UndoFit(back).ok());
  EXPECT_EQ(EncodeGlb(back, true).value(), before);
}

TEST(ColliderFit, ThickerShirtGrowsTheCollidersHiddenAccessoryAddsNothing) {
  Avatar plain = MakeDemoAvatar(DemoVariant::kLayered);
  Avatar thick = MakeDemoAvatar(DemoVariant::kLayered);
  // The shirt 1 cm thicker: every vertex 1 cm further from the vertical axis of the body.
  for (auto& p : thick.meshes[ShirtMesh(thick)].primitives[0].positions) {
    glm::vec2 h(p.x, p.z);
    if (glm::length(h) > 1e-6f) h += glm::normalize(h) * 0.01f;
    p.x = h.x;
    p.z = h.y;
  }
  ASSERT_TRUE(FitColliders(plain).ok());
  ASSERT_TRUE(FitColliders(thick).ok());
  const auto rp = Radii(plain), rt = Radii(thick);
  ASSERT_EQ(rp.size(), rt.size());
  float grown = 0;
  for (size_t i = 0; i < rp.size(); ++i) {
    EXPECT_GE(rt[i], rp[i] - 1e-6f) << "collider " << i;
    grown = std::max(grown, rt[i] - rp[i]);
  }
  EXPECT_GT(grown, 0.005f);  // about the added centimetre
  // A hidden accessory (fully transparent, on the spine, far out) changes nothing.
  Avatar acc = MakeDemoAvatar(DemoVariant::kLayered);
  Primitive box = acc.meshes[ShirtMesh(acc)].primitives[0];
  for (auto& p : box.positions) p *= glm::vec3(3.0f, 1.0f, 3.0f);
  acc.materials.push_back(
      {"Invisible",
       R"({"name":"Invisible","alphaMode":"BLEND","pbrMetallicRoughness":{"baseColorFactor":[1,1,1,0]}})"});
  box.material = static_cast<int>(acc.materials.size()) - 1;
  Mesh mesh;
  mesh.name = "Accessory";
  mesh.primitives.push_back(box);
  acc.meshes.push_back(mesh);
  Node n;
  n.name = "Accessory";
  n.mesh = static_cast<int>(acc.meshes.size()) - 1;
  n.skin = 0;
  acc.nodes.push_back(n);
  acc.scene_roots.push_back(static_cast<int>(acc.nodes.size()) - 1);
  ASSERT_TRUE(FitColliders(acc).ok());
  EXPECT_EQ(Radii(acc), rp);
}

TEST(ColliderFit, NoNameRulesScaleAndMissingRoles) {
  Avatar base = MakeDemoAvatar(DemoVariant::kLayered);
  ASSERT_TRUE(FitColliders(base).ok());
  Avatar renamed = MakeDemoAvatar(DemoVariant::kLayered);
  for (size_t i = 0; i < renamed.nodes.size(); ++i)
    renamed.nodes[i].name = "bone" + std::to_string(i);
  for (size_t i = 0; i < renamed.vrm.springs.size(); ++i)
    renamed.vrm.springs[i].name = "s" + std::to_string(i);
  for (auto& m : renamed.meshes) m.name = "m";
  ASSERT_TRUE(FitColliders(renamed).ok());
  EXPECT_EQ(Radii(renamed), Radii(base));
  for (size_t i = 0; i < base.vrm.springs.size(); ++i)
    EXPECT_EQ(renamed.vrm.springs[i].segment_checks, base.vrm.springs[i].segment_checks);
  for (float s : {0.01f, 100.0f}) {
    Avatar scaled = MakeDemoAvatar(DemoVariant::kLayered);
    for (int r : scaled.scene_roots) {
      scaled.nodes[r].scale *= s;
      scaled.nodes[r].translation *= s;
    }
    ASSERT_TRUE(FitColliders(scaled).ok());
    const auto a = Radii(scaled), b = Radii(base);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(a[i], b[i], 1e-3f * b[i]) << "scale " << s << " collider " << i;
  }
  Avatar no_roles = MakeDemoAvatar(DemoVariant::kLayered);
  no_roles.vrm.humanoid.erase("leftFoot");
  const auto r0 = Radii(no_roles);
  auto res = FitColliders(no_roles);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(Radii(no_roles), r0);
  ASSERT_FALSE(res->warnings.empty());
  EXPECT_NE(res->warnings[0].find("leftFoot"), std::string::npos);
}

TEST(ColliderFit, AvatarWithoutChainsIsToldSo) {
  // No chains and no colliders (a character before its hair is fitted): nothing to do, and the
  // fitter says so instead of a silent success. With colliders but no chains: fitted, and told
  // that nothing collides with them yet.
  Avatar bare = MakeDemoAvatar(DemoVariant::kLayered);
  bare.vrm.springs.clear();
  bare.vrm.colliders.clear();
  bare.vrm.collider_groups.clear();
  auto res = FitColliders(bare);
  ASSERT_TRUE(res.ok()) << res.status().message();
  EXPECT_TRUE(res->changes.empty());
  ASSERT_EQ(res->warnings.size(), 1u);
  EXPECT_NE(res->warnings[0].find("nothing fitted"), std::string::npos) << res->warnings[0];
  Avatar colliders_only = MakeDemoAvatar(DemoVariant::kLayered);
  colliders_only.vrm.springs.clear();
  res = FitColliders(colliders_only);
  ASSERT_TRUE(res.ok()) << res.status().message();
  EXPECT_FALSE(res->changes.empty());
  ASSERT_FALSE(res->warnings.empty());
  EXPECT_NE(res->warnings.back().find("no spring chains"), std::string::npos);
  // With chains, no such warning.
  Avatar with_chains = MakeDemoAvatar(DemoVariant::kLayered);
  res = FitColliders(with_chains);
  ASSERT_TRUE(res.ok());
  for (const std::string& w : res->warnings) EXPECT_EQ(w.find("spring chains"), std::string::npos);
}

}  // namespace
}  // namespace hairswing

namespace hairswing {
namespace {

TEST(Reweight, WidensNarrowRootBlendsStretchesLessForEverySolverAndUndoesBitExact) {
  // The layered demo's artist weights blend the head into each chain's first joint over 1 cm of a
  // 7.8 cm segment: the root bend is the expensive one (docs/fit.md).
  Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  const auto before_bytes = EncodeGlb(av, true).value();
  const Avatar original = av;
  auto rw = ReweightRoots(av);
  ASSERT_TRUE(rw.ok()) << rw.status().message();
  ASSERT_EQ(rw->chains.size(), 12u);
  for (const auto& c : rw->chains) {
    SCOPED_TRACE(c.name);
    EXPECT_LT(c.blend_m, 0.02f);
    EXPECT_GT(c.vertices, 100);
    EXPECT_LT(c.cost_after, 0.6 * c.cost_before);  // measured 3.0 -> 1.2-1.3 % per degree
  }
  // Weights still add up to what they did, per vertex.
  for (size_t m = 0; m < av.meshes.size(); ++m)
    for (size_t p = 0; p < av.meshes[m].primitives.size(); ++p)
      for (size_t v = 0; v < av.meshes[m].primitives[p].weights.size(); ++v) {
        const glm::vec4 a = av.meshes[m].primitives[p].weights[v];
        const glm::vec4 b = original.meshes[m].primitives[p].weights[v];
        ASSERT_NEAR(a.x + a.y + a.z + a.w, b.x + b.y + b.z + b.w, 1e-5f);
      }
  // Every runtime stretches the mesh less on the re-weighted file (head-turn, p99 of the stretch
  // the hair adds), with the same motion: the solvers do not see skin weights.
  MeasureOptions opt;
  opt.fps = {60};
  auto a = Measure(original, opt);
  auto b = Measure(av, opt);
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < a->results.size(); ++i) {
    SCOPED_TRACE(SolverModeName(a->results[i].solver));
    std::printf("%s: p99 excess %.2f -> %.2f %%\n", SolverModeName(a->results[i].solver),
                a->results[i].stretch_p99_excess_pct, b->results[i].stretch_p99_excess_pct);
    EXPECT_LT(b->results[i].stretch_p99_excess_pct, a->results[i].stretch_p99_excess_pct);
    EXPECT_EQ(b->results[i].swing_rms_mm, a->results[i].swing_rms_mm);
  }
  // Through a file and back, then undone: the original bytes.
  auto bytes = EncodeGlb(av, true).value();
  auto loaded = LoadAvatarFromMemory(bytes.data(), bytes.size(), "reweighted.vrm", ".");
  ASSERT_TRUE(loaded.ok());
  EXPECT_FALSE(ReweightRoots(loaded->avatar).ok()) << "a second re-weighting is refused";
  ASSERT_TRUE(UndoFit(loaded->avatar).ok());
  EXPECT_EQ(EncodeGlb(loaded->avatar, true).value(), before_bytes);
}

TEST(Reweight, AWiderBlendLowersTheRootCostAndTheLivelyStretchFurther) {
  // fit --reweight-segments 2: the blend over two first-segment lengths. On the layered demo every
  // root gets cheaper than with one segment, and the lively arc setting (the author's swing)
  // stretches less: 29.9 -> 24.8 % p99 excess (parent on the original file: 26.1).
  Avatar one = MakeDemoAvatar(DemoVariant::kLayered), two = one;
  ReweightOptions wide;
  wide.blend_segments = 2.0f;
  auto r1 = ReweightRoots(one);
  auto r2 = ReweightRoots(two, wide);
  ASSERT_TRUE(r1.ok() && r2.ok());
  ASSERT_EQ(r1->chains.size(), r2->chains.size());
  for (size_t c = 0; c < r1->chains.size(); ++c) {
    SCOPED_TRACE(r2->chains[c].name);
    EXPECT_NEAR(r2->chains[c].target_m, 2.0f * r1->chains[c].target_m, 1e-5f);
    EXPECT_LT(r2->chains[c].cost_after, r1->chains[c].cost_after);
  }
  MeasureOptions opt;
  opt.fps = {60};
  opt.solvers = {SolverMode::kArc};
  SpringConfig lively;
  ASSERT_TRUE(ApplyArcSetting("lively", &lively));
  opt.arc_liveliness = lively.arc_liveliness;
  opt.arc_stiffness = lively.arc_stiffness;
  auto a = Measure(one, opt), b = Measure(two, opt);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_LT(b->results[0].stretch_p99_excess_pct, a->results[0].stretch_p99_excess_pct);
  EXPECT_EQ(b->results[0].swing_rms_mm, a->results[0].swing_rms_mm);
  // The price: the head carries more of the hair, so the mesh swings less at the same joint
  // motion. The report says how much per chain, and the mesh swing figure sees it where the
  // joints' swing does not (measured: 34.6 -> 34.1 mm with lively; the head's share of the
  // chains' vertex weight 3 -> 11 -> 21 %).
  for (size_t c = 0; c < r1->chains.size(); ++c) {
    SCOPED_TRACE(r2->chains[c].name);
    EXPECT_GT(r1->chains[c].head_share_after, r1->chains[c].head_share_before);
    EXPECT_GT(r2->chains[c].head_share_after, r1->chains[c].head_share_after);
    EXPECT_LT(r2->chains[c].head_share_after, 1.0);
  }
  EXPECT_GT(b->results[0].swing_mesh_rms_mm, 0.0);
  EXPECT_LT(b->results[0].swing_mesh_rms_mm, a->results[0].swing_mesh_rms_mm);
  ReweightOptions bad;
  bad.blend_segments = 0.0f;
  EXPECT_FALSE(ReweightRoots(two = MakeDemoAvatar(DemoVariant::kLayered), bad).ok());
}

TEST(Reweight, KeepsAChainWhereWideningWouldNotPay) {
  // The ponytail demo's tube hangs from a tie right at its joint: spreading its blend over the
  // segment would move vertices farther from the joint and cost more per degree, so it is kept.
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  auto rw = ReweightRoots(av);
  ASSERT_TRUE(rw.ok());
  bool found = false;
  for (const auto& c : rw->chains)
    if (c.name == "chain \"ponytail\"") {
      found = true;
      EXPECT_EQ(c.vertices, 0);
      EXPECT_EQ(c.cost_after, c.cost_before);
      // A kept chain reports its head share as it is (the tube's blend at the tie), unchanged.
      EXPECT_GT(c.head_share_before, 0.0);
      EXPECT_LT(c.head_share_before, 0.5);
      EXPECT_EQ(c.head_share_after, c.head_share_before);
    }
  EXPECT_TRUE(found);
  const Avatar fresh = MakeDemoAvatar(DemoVariant::kPonytail);
  for (size_t m = 0; m < av.meshes.size(); ++m)
    if (av.meshes[m].name == "Ponytail")
      EXPECT_EQ(av.meshes[m].primitives[0].weights, fresh.meshes[m].primitives[0].weights);
}

TEST(Reweight, ReportsEveryJointsBendCostAsTheMeshStretchesWhenTheJointTurns) {
  // ReweightResult::Chain::joint_cost is a first-order figure from the weights. Checked here
  // against the mesh itself: each joint of the ponytail demo's chain (and the joints below it)
  // turned by 0.1 deg about two axes across its segment, the mesh skinned at that pose, the
  // largest edge length change at the chain, in % per degree (measured 0.90, 1.27, 1.18, 0.48,
  // 0.37: the root is not the costliest joint there, docs/solver.md).
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  auto rig_r = BuildRig(av);
  ASSERT_TRUE(rig_r.ok());
  const Rig& rig = *rig_r;
  Avatar work = av;
  auto rw = ReweightRoots(work);
  ASSERT_TRUE(rw.ok());
  const ReweightResult::Chain* rc = nullptr;
  for (const auto& c : rw->chains)
    if (c.name == "chain \"ponytail\"") rc = &c;
  ASSERT_NE(rc, nullptr);
  const RigChain* ch = nullptr;
  for (const RigChain& c : rig.chains())
    if (av.vrm.springs[c.source_spring].name == "ponytail") ch = &c;
  ASSERT_NE(ch, nullptr);
  ASSERT_EQ(rc->joint_cost.size(), static_cast<size_t>(ch->joint_end - ch->joint_begin - 1));
  EXPECT_EQ(rc->joint_cost[0], rc->cost_after);  // the root's figure is the one reported before
  // The skinned rest positions, and the same at a pose.
  auto skin_all = [&](std::span<const glm::mat4> world) {
    std::vector<std::vector<glm::vec3>> out;
    std::vector<glm::mat4> palette;
    for (const MeshInstance& inst : rig.meshes()) {
      if (inst.skin < 0) continue;
      palette.resize(std::max(palette.size(), rig.skins()[inst.skin].joints.size()));
      for (const Primitive& p : av.meshes[inst.mesh].primitives) {
        std::vector<glm::vec3> pos(p.positions.size());
        EXPECT_TRUE(PosePrimitive(rig, inst, p, world, palette, pos).ok());
        out.push_back(std::move(pos));
      }
    }
    return out;
  };
  const auto rest = skin_all(rig.rest_world());
  constexpr float kDeg = 0.1f;
  for (int k = 0; k < static_cast<int>(rc->joint_cost.size()); ++k) {
    SCOPED_TRACE("joint " + std::to_string(k));
    const int node = rig.joint_node()[ch->joint_begin + k];
    const glm::vec3 a(rig.rest_world()[node][3]);
    const glm::vec3 b(rig.rest_world()[rig.joint_node()[ch->joint_begin + k + 1]][3]);
    const glm::vec3 dir = glm::normalize(b - a);
    const glm::vec3 any = std::fabs(dir.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    const glm::vec3 ax1 = glm::normalize(glm::cross(dir, any)), ax2 = glm::cross(dir, ax1);
    double worst = 0;
    for (const glm::vec3& axis : {ax1, ax2}) {
      // The joint's world rotation turned about `axis` (its position stays): in its parent's
      // frame, conj(parent) * turn * parent * local.
      std::vector<Transform> local(rig.rest_local().begin(), rig.rest_local().end());
      const glm::quat parent =
          glm::quat_cast(glm::mat3(rig.rest_world()[rig.parent()[node]]));  // unit scale here
      const glm::quat turn = glm::angleAxis(glm::radians(kDeg), axis);
      local[node].rotation = glm::conjugate(parent) * turn * parent * local[node].rotation;
      std::vector<glm::mat4> world(local.size());
      ComputeWorld(rig, local, world);
      const auto posed = skin_all(world);
      size_t pi = 0;
      for (const MeshInstance& inst : rig.meshes()) {
        if (inst.skin < 0) continue;
        for (const Primitive& p : av.meshes[inst.mesh].primitives) {
          const auto &r = rest[pi], &q = posed[pi];
          ++pi;
          if (p.mode != 4) continue;
          for (size_t t = 0; t + 2 < p.indices.size(); t += 3)
            for (int e = 0; e < 3; ++e) {
              const uint32_t u = p.indices[t + e], v = p.indices[t + (e + 1) % 3];
              const double l0 = glm::length(r[v] - r[u]), l1 = glm::length(q[v] - q[u]);
              if (l0 > 1e-7) worst = std::max(worst, 100.0 * std::fabs(l1 - l0) / l0 / kDeg);
            }
        }
      }
    }
    EXPECT_NEAR(worst, rc->joint_cost[k], 0.03 * rc->joint_cost[k] + 1e-3);
  }
}

}  // namespace
}  // namespace hairswing
