// Small helpers for reading untrusted glTF/VRM JSON with nlohmann::json. Every accessor checks
// the type and throws ReadError with the JSON path of the field; the public entry points catch
// it and turn it into a Status, so no exception leaves the library.
#pragma once

#include <cmath>
#include <glm/glm.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "hairswing/files.h"

namespace hairswing::io {

using Json = nlohmann::json;

/// Thrown inside io only; `field` is a JSON path such as "nodes[3].translation".
struct ReadError : std::runtime_error {
  ReadError(const std::string& field, const std::string& what)
      : std::runtime_error(field + ": " + what) {}
};

// kMaxJsonDepth and JsonNestingError live in hairswing/files.h (the CLI checks manifests too).

/// Whether `d` becomes a float no larger than `limit` in magnitude. Compared after rounding to
/// float, so a value hairswing wrote (a float printed exactly) reads back: 3e38 becomes
/// 3.0000000054977558e38 on the way out and must pass on the way in. (A double beyond the float
/// range is refused before the cast, which would be undefined behaviour.)
inline bool FloatFits(double d, float limit) {
  return std::isfinite(d) && std::fabs(d) <= 3.4e38 && std::fabs(static_cast<float>(d)) <= limit;
}

inline std::string Idx(const std::string& base, size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

inline const Json* Find(const Json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

inline double GetNumber(const Json& obj, const char* key, double def, const std::string& path) {
  const Json* v = Find(obj, key);
  if (!v || v->is_null()) return def;
  if (!v->is_number()) throw ReadError(path + "." + key, "expected a number");
  double d = v->get<double>();
  if (!std::isfinite(d)) throw ReadError(path + "." + key, "not a finite number");
  return d;
}

inline float GetFloat(const Json& obj, const char* key, float def, const std::string& path) {
  double d = GetNumber(obj, key, def, path);
  if (!FloatFits(d, 3.0e38f)) throw ReadError(path + "." + key, "out of float range");
  return static_cast<float>(d);
}

inline bool GetBool(const Json& obj, const char* key, bool def, const std::string& path) {
  const Json* v = Find(obj, key);
  if (!v || v->is_null()) return def;
  if (!v->is_boolean()) throw ReadError(path + "." + key, "expected true or false");
  return v->get<bool>();
}

inline std::string GetString(const Json& obj, const char* key, const std::string& def,
                             const std::string& path) {
  const Json* v = Find(obj, key);
  if (!v || v->is_null()) return def;
  if (!v->is_string()) throw ReadError(path + "." + key, "expected a string");
  return v->get<std::string>();
}

/// An index field that must lie in [0, count); `def` (usually -1) when absent.
inline int GetIndex(const Json& obj, const char* key, int def, size_t count,
                    const std::string& path) {
  const Json* v = Find(obj, key);
  if (!v || v->is_null()) return def;
  if (!v->is_number_integer()) throw ReadError(path + "." + key, "expected an integer index");
  long long i = v->get<long long>();
  if (i < 0 || static_cast<unsigned long long>(i) >= count)
    throw ReadError(path + "." + key, "index " + std::to_string(i) + " out of range (count " +
                                          std::to_string(count) + ")");
  return static_cast<int>(i);
}

/// An index field where -1 means "none", as three-vrm and UniVRM read it in VRM 0.x files
/// (docs/compat.md lists the fields): -1 gives -1, any other value must lie in [0, count).
inline int GetIndexOrNone(const Json& obj, const char* key, size_t count, const std::string& path) {
  const Json* v = Find(obj, key);
  if (v && v->is_number_integer() && v->get<long long>() == -1) return -1;
  return GetIndex(obj, key, -1, count, path);
}

inline int CheckIndex(const Json& v, size_t count, const std::string& path) {
  if (!v.is_number_integer()) throw ReadError(path, "expected an integer index");
  long long i = v.get<long long>();
  if (i < 0 || static_cast<unsigned long long>(i) >= count)
    throw ReadError(
        path, "index " + std::to_string(i) + " out of range (count " + std::to_string(count) + ")");
  return static_cast<int>(i);
}

/// A fixed-size numeric array such as [x,y,z].
template <int N>
inline glm::vec<N, float> GetVec(const Json& obj, const char* key, glm::vec<N, float> def,
                                 const std::string& path) {
  const Json* v = Find(obj, key);
  if (!v || v->is_null()) return def;
  if (!v->is_array() || v->size() != N)
    throw ReadError(path + "." + key, "expected an array of " + std::to_string(N) + " numbers");
  glm::vec<N, float> out;
  for (int i = 0; i < N; ++i) {
    const Json& e = (*v)[i];
    if (!e.is_number()) throw ReadError(Idx(path + "." + key, i), "expected a number");
    double d = e.get<double>();
    if (!FloatFits(d, 3.0e38f))
      throw ReadError(Idx(path + "." + key, i), "not a finite number within float range");
    out[i] = static_cast<float>(d);
  }
  return out;
}

/// VRM 0.x writes vectors as {"x":..,"y":..,"z":..}.
inline glm::vec3 GetXyz(const Json& obj, const char* key, glm::vec3 def, const std::string& path) {
  const Json* v = Find(obj, key);
  if (!v || v->is_null()) return def;
  if (!v->is_object()) throw ReadError(path + "." + key, "expected an {x,y,z} object");
  std::string p = path + "." + key;
  return {GetFloat(*v, "x", 0.0f, p), GetFloat(*v, "y", 0.0f, p), GetFloat(*v, "z", 0.0f, p)};
}

/// A field that, when present, must be a JSON object (`extensions`, `pbrMetallicRoughness`...).
inline const Json* GetObject(const Json& obj, const char* key, const std::string& path) {
  const Json* v = Find(obj, key);
  if (!v || v->is_null()) return nullptr;
  if (!v->is_object()) throw ReadError(path + "." + key, "expected an object");
  return v;
}

inline const Json& GetArray(const Json& obj, const char* key, const std::string& path) {
  static const Json kEmpty = Json::array();
  const Json* v = Find(obj, key);
  if (!v || v->is_null()) return kEmpty;
  if (!v->is_array()) throw ReadError(path + "." + key, "expected an array");
  return *v;
}

inline std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace hairswing::io
