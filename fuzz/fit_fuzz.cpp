// libFuzzer target for the fitters on a hostile mesh: the fuzzer's bytes replace the ponytail
// demo avatar's hair (first a vertex count, then float positions and 16-bit triangle indices),
// then the chain fitter, the collider fitter and the undo run. They must fit, or fail with a
// Status, for any positions (huge, equal, degenerate) and any triangles.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hairswing/demo.h"
#include "hairswing/fit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hairswing;
  static const Avatar base = MakeDemoAvatar(DemoVariant::kPonytail);
  if (size < 2) return 0;
  Avatar av = base;
  int hair = -1;
  for (size_t m = 0; m < av.meshes.size(); ++m)
    if (av.meshes[m].name == "Ponytail") hair = static_cast<int>(m);
  if (hair < 0) return 0;
  Primitive& prim = av.meshes[hair].primitives[0];
  const size_t nv = std::min<size_t>(1 + data[0] + 256u * (data[1] & 3), (size - 2) / 12);
  if (nv < 3) return 0;
  const uint8_t* p = data + 2;
  prim.positions.resize(nv);
  std::memcpy(prim.positions.data(), p, nv * 12);
  for (const auto& v : prim.positions)
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
      return 0;  // loader rejects
  p += nv * 12;
  const size_t rest = (data + size - p) / 6;
  prim.indices.clear();
  for (size_t t = 0; t < rest; ++t)
    for (int k = 0; k < 3; ++k) {
      uint16_t i;
      std::memcpy(&i, p + 6 * t + 2 * k, 2);
      prim.indices.push_back(i % nv);  // the loader checks indices against the vertex count
    }
  prim.normals.assign(nv, glm::vec3(0, 1, 0));
  prim.joints.assign(nv, glm::u16vec4(0));
  prim.weights.assign(nv, glm::vec4(1, 0, 0, 0));
  auto sel = SelectHair(av, "Ponytail");
  if (!sel.ok()) return 0;
  FitOptions opt;
  auto fit = FitHairChains(av, sel.value(), opt);
  auto cols = FitColliders(av);
  if (fit.ok() || cols.ok()) (void)UndoFit(av);
  return 0;
}
