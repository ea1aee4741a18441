// libFuzzer target for the clip path: bytes loaded as a clip file (glTF/GLB/VRMA JSON, or BVH
// text when they start with "HIERARCHY"), every animation turned into a Clip and retargeted onto
// the ponytail demo avatar, then sampled. Whatever loads must retarget to finite poses or fail
// with a Status; never crash, hang or allocate without bound.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "hairswing/anim.h"
#include "hairswing/demo.h"
#include "hairswing/io.h"
#include "hairswing/retarget.h"
#include "hairswing/rig.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hairswing;
  static const Avatar target = MakeDemoAvatar(DemoVariant::kPonytail);
  static const HumanoidMap target_map = MatchHumanoid(target);
  LoadOptions opts;
  opts.max_elements = 1'000'000;
  opts.max_missing_buffer_bytes = 1u << 20;
  opts.max_decoded_values = 4'000'000;
  const bool bvh = size >= 9 && std::memcmp(data, "HIERARCHY", 9) == 0;
  auto loaded =
      bvh ? LoadBvhFromText(std::string(reinterpret_cast<const char*>(data), size), "fuzz.bvh")
          : LoadAvatarFromMemory(data, size, "fuzz.vrma", "/nonexistent-fuzz", opts);
  if (!loaded.ok()) return 0;
  const Avatar& src = loaded->avatar;
  auto rt = Retargeter::Create(src, MatchHumanoid(src), target, target_map);
  if (!rt.ok()) return 0;
  for (size_t a = 0; a < src.animations.size() && a < 4; ++a) {
    auto clip = Clip::FromAvatar(src, rt->source_rig(), static_cast<int>(a));
    if (!clip.ok()) continue;
    const Clip out = rt->Retarget(clip.value());
    std::vector<Transform> pose(rt->target_rig().rest_local().begin(),
                                rt->target_rig().rest_local().end());
    out.Apply(out.duration * 0.5, pose);
  }
  return 0;
}
