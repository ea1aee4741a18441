// libFuzzer target for the loader: any bytes, as GLB or glTF JSON, must give a result or a
// one-line error, never a crash, hang or sanitizer report. External files resolve against a
// directory that does not exist, so only the bytes under test are read.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hairswing/io.h"
#include "hairswing/rig.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hairswing::LoadOptions opts;
  opts.max_elements = 1'000'000;  // keep single inputs within the fuzzer's memory limit
  opts.max_missing_buffer_bytes = 1u << 20;
  auto r =
      hairswing::LoadAvatarFromMemory(data, size, "fuzz.glb", "/nonexistent-hairswing-fuzz", opts);
  if (r.ok()) {
    // Whatever loads must also build a rig and encode without trouble.
    auto rig = hairswing::BuildRig(r->avatar);
    (void)rig;
    (void)hairswing::CheckAvatar(r->avatar);
    auto bytes = hairswing::EncodeGlb(r->avatar, false);
    (void)bytes;
  }
  // The same bytes as BVH text (the BVH reader is the other untrusted-text parser).
  auto bvh = hairswing::LoadBvhFromText(std::string(reinterpret_cast<const char*>(data), size),
                                        "fuzz.bvh");
  if (bvh.ok()) {
    auto rig = hairswing::BuildRig(bvh->avatar);
    (void)rig;
  }
  return 0;
}
