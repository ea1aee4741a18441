// Structure-aware libFuzzer target for the glTF reader: inputs are glTF JSON documents, and the
// custom mutator edits them as JSON (replace a value by another type, resize an array, change a
// number to an extreme, copy one subtree over another, delete a key) instead of flipping bytes,
// so mutants stay parseable and reach the checks behind the parser. Seeds: valid .gltf files
// (tests/data/broken/valid_base.gltf and friends). Run by scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "hairswing/io.h"
#include "hairswing/rig.h"

using Json = nlohmann::json;

namespace {

// Every value in the document, parents before children (pointers stay valid until an edit).
void Collect(Json& j, std::vector<Json*>& out) {
  out.push_back(&j);
  if (j.is_object() || j.is_array())
    for (auto& c : j) Collect(c, out);
}

Json Extreme(std::mt19937& rng) {
  static const Json kValues[] = {0,
                                 -1,
                                 1,
                                 2,
                                 3,
                                 4,
                                 255,
                                 65535,
                                 65536,
                                 4294967295.0,
                                 4294967296.0,
                                 -2147483648.0,
                                 1e30,
                                 -1e30,
                                 3e38,
                                 1e-45,
                                 0.5,
                                 1e20,
                                 nullptr,
                                 true,
                                 "",
                                 "x",
                                 Json::array(),
                                 Json::object(),
                                 Json::array({0, 0}),
                                 Json::array({1e30, 0, 0, 0}),
                                 "data:,",
                                 "../x.bin"};
  return kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Json doc = Json::parse(data, data + size, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return 0;  // only JSON documents are mutated
  std::mt19937 rng(seed);
  for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
    std::vector<Json*> all;
    Collect(doc, all);
    Json* v = all[rng() % all.size()];
    switch (rng() % 6) {
      case 0:
        *v = Extreme(rng);
        break;
      case 1:  // resize an array (shorter, longer, or much longer)
        if (v->is_array()) {
          const size_t n = rng() % 3 == 0 ? 1000 : rng() % (v->size() + 2);
          while (v->size() > n) v->erase(v->size() - 1);
          while (v->size() < n) v->push_back(v->empty() ? Json(0) : (*v)[0]);
        }
        break;
      case 2:  // copy one subtree over another
        *v = *all[rng() % all.size()];
        break;
      case 3:  // delete a key
        if (v->is_object() && !v->empty()) {
          auto it = v->begin();
          std::advance(it, rng() % v->size());
          v->erase(it);
        }
        break;
      case 4:  // a number nudged
        if (v->is_number()) *v = v->get<double>() * (rng() % 2 ? -1.0 : 1e10) + 1;
        break;
      default:  // wrap in an array
        *v = Json::array({*v});
        break;
    }
  }
  const std::string out = doc.dump();
  if (out.size() > max_size) return 0;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hairswing::LoadOptions opts;
  opts.max_elements = 1'000'000;
  opts.max_missing_buffer_bytes = 1u << 20;
  opts.max_decoded_values = 4'000'000;
  auto r = hairswing::LoadAvatarFromMemory(data, size, "fuzz.gltf", "/nonexistent-fuzz", opts);
  if (r.ok()) {
    auto rig = hairswing::BuildRig(r->avatar);
    (void)rig;
    auto bytes = hairswing::EncodeGlb(r->avatar, false);
    if (bytes.ok()) {
      // What we write must load again (the round-trip promise of SaveAvatar).
      auto again = hairswing::LoadAvatarFromMemory(bytes->data(), bytes->size(), "again.glb",
                                                   "/nonexistent-fuzz", opts);
      if (!again.ok()) __builtin_trap();
    }
  }
  return 0;
}
