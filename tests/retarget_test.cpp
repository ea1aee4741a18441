// Humanoid maps, world-space retargeting, BVH and VRMA loading, clip validation facts.
#include "hairswing/retarget.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "hairswing/anim.h"
#include "hairswing/demo.h"
#include "hairswing/io.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"
#include "test_util.h"

namespace hairswing {
namespace {

constexpr const char* kUal = "animations/ual1/AnimationLibrary_Godot_Standard.gltf";

glm::quat WorldRot(const glm::mat4& m) {
  return glm::normalize(
      glm::quat_cast(glm::mat3(glm::normalize(glm::vec3(m[0])), glm::normalize(glm::vec3(m[1])),
                               glm::normalize(glm::vec3(m[2])))));
}

float AngleDeg(const glm::quat& a, const glm::quat& b) {
  float d = std::fabs(glm::dot(a, b));
  return glm::degrees(2.0f * std::acos(std::min(1.0f, d)));
}

std::vector<std::pair<std::string, Avatar>> Targets() {
  std::vector<std::pair<std::string, Avatar>> out;
  for (const char* f :
       {"avatars/godette.vrm", "avatars/quaternius-casual.glb", "avatars/quaternius-soldier.glb",
        "avatars/ubc/Superhero_Female_FullBody.gltf"}) {
    std::string p = test::Shared(f);
    if (p.empty()) continue;
    out.emplace_back(f, LoadAvatar(p)->avatar);
  }
  out.emplace_back("demo ponytail", MakeDemoAvatar(DemoVariant::kPonytail));
  out.emplace_back("demo layered", MakeDemoAvatar(DemoVariant::kLayered));
  return out;
}

TEST(HumanoidMap, BuiltInFamiliesAreMatchedByName) {
  struct Case {
    const char* file;
    const char* family;
  };
  for (const Case& c :
       {Case{kUal, "ual-rigify"}, Case{"avatars/quaternius-casual.glb", "quaternius-modular"},
        Case{"avatars/ubc/Superhero_Female_FullBody.gltf", "ue-mannequin"},
        Case{"avatars/godette.vrm", "vrm"}, Case{"animations/handmade-test.vrma", "vrma"}}) {
    SCOPED_TRACE(c.file);
    HS_LOAD_SHARED_OR_SKIP(loaded, c.file);
    HumanoidMap m = MatchHumanoid(loaded.avatar);
    EXPECT_EQ(m.family, c.family);
    EXPECT_TRUE(m.missing_required.empty());
    EXPECT_GE(m.bones.size(), 15u);
    if (m.family != "vrm" && m.family != "vrma") EXPECT_DOUBLE_EQ(m.confidence, 1.0);
  }
}

TEST(HumanoidMap, AMissingRequiredBoneIsNamedNeverGuessed) {
  HS_LOAD_SHARED_OR_SKIP(ual_loaded, kUal);
  const Avatar& ual = ual_loaded.avatar;
  Avatar renamed = ual;
  for (auto& n : renamed.nodes)
    if (n.name == "DEF-head") n.name = "Kopf";
  HumanoidMap m = MatchHumanoid(renamed);
  ASSERT_EQ(m.missing_required, std::vector<std::string>{"head"});
  auto r = Retargeter::Create(renamed, m, MakeDemoAvatar(DemoVariant::kPonytail),
                              MatchHumanoid(MakeDemoAvatar(DemoVariant::kPonytail)));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("head"), std::string::npos);
  // A map given as data fixes it.
  auto fixed = ApplyHumanoidMapJson(
      renamed, R"({"family":"mine","bones":{"hips":"DEF-hips","spine":"DEF-spine.001",
    "head":"Kopf","leftUpperLeg":"DEF-thigh.L","leftLowerLeg":"DEF-shin.L","leftFoot":"DEF-foot.L","rightUpperLeg":"DEF-thigh.R",
    "rightLowerLeg":"DEF-shin.R","rightFoot":"DEF-foot.R","leftUpperArm":"DEF-upper_arm.L","leftLowerArm":"DEF-forearm.L",
    "leftHand":"DEF-hand.L","rightUpperArm":"DEF-upper_arm.R","rightLowerArm":"DEF-forearm.R","rightHand":"DEF-hand.R"}})");
  ASSERT_TRUE(fixed.ok()) << fixed.status().message();
  EXPECT_TRUE(fixed->missing_required.empty());
  EXPECT_FALSE(ApplyHumanoidMapJson(renamed, R"({"bones":{"tail":"x"}})").ok());
}

TEST(Retarget, TPoseLeavesEveryMappedBoneAtTheAvatarsRest) {
  HS_LOAD_SHARED_OR_SKIP(ual_loaded, kUal);
  const Avatar& ual = ual_loaded.avatar;
  const HumanoidMap sm = MatchHumanoid(ual);
  int tpose = -1;
  for (size_t a = 0; a < ual.animations.size(); ++a)
    if (ual.animations[a].name == "A_TPose") tpose = static_cast<int>(a);
  ASSERT_GE(tpose, 0);
  for (auto& [name, av] : Targets()) {
    SCOPED_TRACE(name);
    const HumanoidMap tm = MatchHumanoid(av);
    auto r = Retargeter::Create(ual, sm, av, tm);
    ASSERT_TRUE(r.ok()) << r.status().message();
    Clip out = r->Retarget(Clip::FromAvatar(ual, r->source_rig(), tpose).value());
    const Rig& rig = r->target_rig();
    std::vector<Transform> pose(rig.rest_local().begin(), rig.rest_local().end());
    out.Apply(0.0, pose);
    std::vector<glm::mat4> world(rig.node_count());
    ComputeWorld(rig, pose, world);
    for (const auto& [bone, node] : tm.bones) {
      const int n = rig.node_to_rig()[node];
      EXPECT_LT(AngleDeg(WorldRot(world[n]), WorldRot(rig.rest_world()[n])), 3.0f) << bone;
    }
  }
}

TEST(Retarget, AllUalClipsValidateOnEveryAvatar) {
  HS_LOAD_SHARED_OR_SKIP(ual_loaded, kUal);
  const Avatar& ual = ual_loaded.avatar;
  const HumanoidMap sm = MatchHumanoid(ual);
  int runs = 0;
  for (auto& [name, av] : Targets()) {
    SCOPED_TRACE(name);
    const HumanoidMap tm = MatchHumanoid(av);
    ASSERT_TRUE(tm.missing_required.empty());
    auto r = Retargeter::Create(ual, sm, av, tm);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Rig& rig = r->target_rig();
    std::vector<uint8_t> spring(rig.node_count(), 0);
    for (int n : rig.joint_node()) spring[n] = 1;
    for (size_t a = 0; a < ual.animations.size(); ++a) {
      Clip out = r->Retarget(Clip::FromAvatar(ual, r->source_rig(), static_cast<int>(a)).value());
      int invalid = 0, hair = 0;
      for (const Track& t : out.tracks) {
        hair += spring[t.node];
        for (float v : t.values) invalid += !std::isfinite(v);
      }
      EXPECT_EQ(invalid, 0) << out.name;
      EXPECT_EQ(hair, 0) << out.name;
      ++runs;
      if (a == 0) {  // the cache retargets once per clip and returns the same result
        const Clip src = Clip::FromAvatar(ual, r->source_rig(), 0).value();
        const Clip& c1 = r->Cached(src);
        const Clip& c2 = r->Cached(src);
        EXPECT_EQ(&c1, &c2);
        EXPECT_EQ(c1.tracks.size(), out.tracks.size());
        EXPECT_EQ(c1.tracks[0].values, out.tracks[0].values);
      }
    }
  }
  EXPECT_GE(runs, 46 * 2);
}

TEST(Retarget, AClipTrackOnAHairJointIsOwnedByTheClip) {
  // A hand-made clip on the demo ponytail animating a hair joint: it is flagged as a hair track,
  // and with it the solver leaves that joint to the clip.
  Avatar av = MakeDemoAvatar(DemoVariant::kPonytail);
  const int hair_node = av.vrm.springs[0].joints[2].node;
  Animation a;
  a.name = "hair wave";
  AnimationChannel ch;
  ch.node = hair_node;
  ch.path = AnimationChannel::Path::kRotation;
  ch.components = 4;
  ch.times = {0, 1};
  const glm::quat q = glm::angleAxis(0.6f, glm::vec3(1, 0, 0));
  ch.values = {0, 0, 0, 1, q.x, q.y, q.z, q.w};
  a.channels.push_back(ch);
  av.animations.push_back(a);
  auto rig = BuildRig(av);
  auto clip = Clip::FromAvatar(av, *rig, 0);
  ASSERT_TRUE(clip.ok());
  int hair_tracks = 0;
  for (const Track& t : clip->tracks)
    for (int j : rig->joint_node()) hair_tracks += t.node == j;
  EXPECT_EQ(hair_tracks, 1);
  auto world = SpringWorld::Create(*rig);
  world->SetOwnedNodes(clip->AnimatedNodes(rig->node_count()));
  ClipSampler sampler(*rig, clip.value(), {}, ClipSampler::Playback::kOnce);
  ClipDriver driver(*world, sampler);
  driver.Reset();
  for (int f = 0; f < 60; ++f) driver.Advance(1.0 / 60.0);
  std::vector<Transform> expect(rig->rest_local().begin(), rig->rest_local().end());
  clip->Apply(1.0, expect);
  const int n = rig->node_to_rig()[hair_node];
  EXPECT_LT(AngleDeg(driver.pose()[n].rotation, expect[n].rotation), 1e-3f);
}

TEST(Bvh, TwoRotationOrdersAndARootOffsetLoadToHandComputedAngles) {
  // Root with an offset and position channels, ZXY rotation; a child with XYZ rotation; an end
  // site.
  const std::string text = R"(HIERARCHY
ROOT Hips
{
  OFFSET 1.0 2.0 3.0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0 10 0
    CHANNELS 3 Xrotation Yrotation Zrotation
    End Site
    {
      OFFSET 0 5 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
0 0 0 0 0 0 0 0 0
4 5 6 90 0 0 0 90 0
)";
  auto r = LoadBvhFromText(text, "hand.bvh");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Avatar& av = r->avatar;
  ASSERT_EQ(av.nodes.size(), 3u);
  EXPECT_EQ(av.nodes[2].name, "Chest_end");
  EXPECT_EQ(av.nodes[1].translation, glm::vec3(0, 10, 0));
  auto rig = BuildRig(av);
  auto clip = Clip::FromAvatar(av, *rig, 0);
  ASSERT_TRUE(clip.ok());
  EXPECT_DOUBLE_EQ(clip->duration, 0.5);
  std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
  clip->Apply(0.5, pose);
  // Root translation = OFFSET + channels = (5, 7, 9).
  EXPECT_LT(glm::length(pose[rig->node_to_rig()[0]].translation - glm::vec3(5, 7, 9)), 1e-5f);
  // Root: Z 90 degrees (Rz * Rx(0) * Ry(0)): +X turns to +Y.
  EXPECT_LT(
      glm::length(pose[rig->node_to_rig()[0]].rotation * glm::vec3(1, 0, 0) - glm::vec3(0, 1, 0)),
      1e-5f);
  // Chest: Y 90 degrees: +Z turns to +X.
  EXPECT_LT(
      glm::length(pose[rig->node_to_rig()[1]].rotation * glm::vec3(0, 0, 1) - glm::vec3(1, 0, 0)),
      1e-5f);
  // Halfway (t = 0.25): root Z rotation 45 degrees by slerp.
  clip->Apply(0.25, pose);
  EXPECT_NEAR(glm::degrees(glm::angle(pose[rig->node_to_rig()[0]].rotation)), 45.0f, 1e-3f);
  auto bad = LoadBvhFromText("HIERARCHY\nROOT A\n{\nOFFSET 0 0\n}\n", "bad.bvh");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.bvh: line"), std::string::npos);
  auto short_motion = LoadBvhFromText(text.substr(0, text.size() - 10), "short.bvh");
  ASSERT_FALSE(short_motion.ok());
  EXPECT_NE(short_motion.status().message().find("expected"), std::string::npos);
}

TEST(Bvh, RotationOrderIsTheListedOrder) {
  // Xrotation 90 then Zrotation 90 (listed X Z) = Rx * Rz: +Y -> Rz(+Y) = -X -> Rx(-X) = -X.
  // Listed Z X instead gives Rz * Rx: +Y -> Rx(+Y) = +Z -> Rz(+Z) = +Z.
  auto make = [](const std::string& order) {
    return "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 2 " + order +
           "\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n90 90\n";
  };
  auto xz = LoadBvhFromText(make("Xrotation Zrotation"), "xz.bvh");
  auto zx = LoadBvhFromText(make("Zrotation Xrotation"), "zx.bvh");
  ASSERT_TRUE(xz.ok() && zx.ok());
  auto rot = [](const LoadedAvatar& l) {
    const auto& v = l.avatar.animations[0].channels[0].values;
    return glm::quat(v[3], v[0], v[1], v[2]);
  };
  EXPECT_LT(glm::length(rot(*xz) * glm::vec3(0, 1, 0) - glm::vec3(-1, 0, 0)), 1e-5f);
  EXPECT_LT(glm::length(rot(*zx) * glm::vec3(0, 1, 0) - glm::vec3(0, 0, 1)), 1e-5f);
}

TEST(Vrma, LoadsWithHumanoidTracks) {
  HS_LOAD_SHARED_OR_SKIP(vrma_loaded, "animations/handmade-test.vrma");
  const Avatar& vrma = vrma_loaded.avatar;
  HumanoidMap m = MatchHumanoid(vrma);
  EXPECT_EQ(m.family, "vrma");
  EXPECT_TRUE(m.missing_required.empty());
  ASSERT_EQ(vrma.animations.size(), 1u);
  auto rig = BuildRig(vrma);
  auto clip = Clip::FromAvatar(vrma, *rig, 0);
  ASSERT_TRUE(clip.ok());
  EXPECT_NEAR(clip->duration, 3.0, 0.05);
  // The file maps 51 humanoid bones (README: "on 51 humanoid bones") and animates a few of them.
  EXPECT_EQ(m.bones.size(), 51u);
  int humanoid_tracks = 0;
  for (const Track& t : clip->tracks)
    for (const auto& [bone, node] : m.bones) humanoid_tracks += rig->node_to_rig()[node] == t.node;
  EXPECT_GE(humanoid_tracks, 1);
}

}  // namespace
}  // namespace hairswing

namespace hairswing {
namespace {

// The demo avatar's humanoid nodes renamed through a built-in family's map (`prefix` before each
// name), its VRM humanoid dropped: a plain glTF skeleton of that family.
Avatar RenamedAs(const char* family, const std::string& prefix) {
  Avatar av = MakeDemoAvatar(DemoVariant::kLayered);
  nlohmann::json bones;
  for (const auto& [name, text] : BuiltinHumanoidMaps())
    if (name == family) bones = nlohmann::json::parse(text)["bones"];
  EXPECT_FALSE(bones.empty()) << family;
  for (const auto& [bone, node] : av.vrm.humanoid)
    if (bones.contains(bone)) av.nodes[node].name = prefix + bones[bone].get<std::string>();
  // A finger, as these skeletons have (the demo has none).
  Node finger;
  finger.name = prefix + bones["leftIndexProximal"].get<std::string>();
  finger.parent = av.vrm.humanoid.at("leftHand");
  finger.translation = glm::vec3(0.05f, 0, 0);
  av.nodes.push_back(finger);
  av.nodes[finger.parent].children.push_back(static_cast<int>(av.nodes.size()) - 1);
  av.vrm.humanoid.clear();
  return av;
}

TEST(HumanoidMap, MixamoVroidAndHumanoidNamedSkeletonsAreMatchedWithOrWithoutANamespace) {
  // Mixamo and Ready Player Me characters (Hips, Spine1, LeftUpLeg...; Mixamo's FBX files put
  // "mixamorig:" before every name), VRoid's own J_Bip_* names and bones named as the humanoid
  // (Unity exports: Hips, Chest, LeftUpperArm) were not matched at all: retargeting and fitting
  // refused them for missing bones.
  const Avatar demo = MakeDemoAvatar(DemoVariant::kLayered);
  for (const auto& [family, prefix] :
       {std::pair{"mixamo", std::string("mixamorig:")}, std::pair{"mixamo", std::string()},
        std::pair{"mixamo", std::string("mixamorig1:")}, std::pair{"vroid", std::string()},
        std::pair{"humanoid-names", std::string()}}) {
    SCOPED_TRACE(std::string(family) + " " + prefix);
    const Avatar av = RenamedAs(family, prefix);
    const HumanoidMap m = MatchHumanoid(av);
    // (cmu-bvh's names are a subset of mixamo's: the finger tells them apart.)
    EXPECT_EQ(m.family, family);
    EXPECT_TRUE(m.missing_required.empty());
    for (const auto& [bone, node] : m.bones)
      if (bone != "leftIndexProximal") EXPECT_EQ(demo.vrm.humanoid.at(bone), node) << bone;
    EXPECT_EQ(m.bones.at("leftIndexProximal"), static_cast<int>(av.nodes.size()) - 1);
    EXPECT_GE(m.bones.size(), 15u);
  }
}

}  // namespace
}  // namespace hairswing
