// hairswing render AVATAR -o OUT.png: a quick look at an avatar, at rest or during the head-turn.
#include "hairswing/render.h"

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "hairswing/anim.h"
#include "hairswing/io.h"
#include "hairswing/motion.h"
#include "hairswing/spring.h"

namespace hairswing::cli {

void AddRender(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "render",
      "Render an avatar to PNG (orthographic, flat shaded) at rest, or at a time of the standard "
      "head-turn with a given solver. Spring joints can be drawn as dots (--joints).");
  struct Opts {
    std::string file, out, view = "front", solver = "arc";
    double time = -1;
    int size = 512;
    bool joints = false, force = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("AVATAR", o->file, "a .vrm, .glb or .gltf file")->required();
  cmd->add_option("-o,--output", o->out, "output PNG (the only format written: .png)")
      ->required()
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            std::string ext = std::filesystem::path(path).extension().string();
            for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return ext == ".png" ? "" : path + ": render writes PNG only; name the file .png";
          },
          "FILE.png"));
  cmd->add_flag("--force", o->force, "replace an existing output");
  cmd->add_option("--view", o->view,
                  "front (at the avatar's face, whichever way it faces; not mirrored), side (at "
                  "its left) or back")
      ->check(CLI::IsMember({"front", "side", "back"}))
      ->capture_default_str();
  cmd->add_option("--head-turn", o->time,
                  "pose at this time (s) of the head-turn test motion (0..60; it is still after "
                  "12 s); default: rest")
      ->check(FiniteRange(0.0, 60.0));
  cmd->add_option("--solver", o->solver, "arc, parent or vrm (with --head-turn)")
      ->check(CLI::IsMember({"arc", "parent", "vrm"}))
      ->capture_default_str();
  cmd->add_option("--size", o->size, "image width in pixels (height is 1.5x), 16..4096")
      ->check(CLI::Range(16, 4096))
      ->capture_default_str();
  cmd->add_flag("--joints", o->joints, "mark spring joints (red) and colliders' centres (blue)");
  cmd->callback([o, &exit_code] {
    auto loaded = LoadOrReport(o->file);
    if (!loaded) {
      exit_code = kExitBadInput;
      return;
    }
    const Avatar& av = loaded->avatar;
    auto rig = BuildRig(av);
    if (!rig.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", o->file.c_str(), rig.status().message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    std::vector<Transform> pose(rig->rest_local().begin(), rig->rest_local().end());
    if (o->time >= 0) {
      const int head = HumanoidRigNode(av, *rig, "head");
      if (head < 0) {
        std::fprintf(stderr, "error: %s: no humanoid head for the head-turn motion\n",
                     o->file.c_str());
        exit_code = kExitBadInput;
        return;
      }
      SpringConfig cfg;
      ParseSolverMode(o->solver, &cfg.mode);
      auto world = SpringWorld::Create(*rig, cfg);
      if (!world.ok()) {  // e.g. a chain whose joints are not parent-first: no abort, one line
        std::fprintf(stderr, "error: %s: %s\n", o->file.c_str(), world.status().message().c_str());
        exit_code = kExitBadInput;
        return;
      }
      HeadTurnMotion motion(*rig, head, HumanoidRigNode(av, *rig, "hips"), AvatarRight(av, *rig));
      ClipDriver driver(*world, motion);
      driver.Reset();
      while (driver.time() + 1e-9 < o->time) driver.Advance(SpringWorld::kStep);
      pose.assign(driver.pose().begin(), driver.pose().end());
    }
    std::vector<glm::mat4> world(rig->node_count());
    ComputeWorld(*rig, pose, world);
    RenderOptions ro;
    ro.width = o->size;
    ro.height = o->size * 3 / 2;
    ro.right = AvatarRight(av, *rig);  // front: at the avatar's face, whichever way it faces
    ro.view = o->view == "side"   ? RenderOptions::View::kSide
              : o->view == "back" ? RenderOptions::View::kBack
                                  : RenderOptions::View::kFront;
    FrameAvatar(av, *rig, world, ro);  // the whole avatar as drawn, head and hair included
    if (o->joints) {
      for (int n : rig->joint_node()) {
        ro.markers.push_back(glm::vec3(world[n][3]));
        ro.marker_colors.push_back({220, 30, 30});
      }
      for (size_t c = 0; c < rig->collider_node().size(); ++c) {
        ro.markers.push_back(
            glm::vec3(world[rig->collider_node()[c]] * glm::vec4(rig->collider_offset()[c], 1)));
        ro.marker_colors.push_back({30, 60, 230});
      }
    }
    auto rgb = RenderAvatar(av, *rig, world, ro);
    Status st = WritePng(o->out, ro.width, ro.height, rgb, o->force);
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    std::printf("wrote %s\n", o->out.c_str());
  });
}

}  // namespace hairswing::cli
