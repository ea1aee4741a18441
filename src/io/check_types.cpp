// JSON types of the core glTF fields, checked before tinygltf reads the document. tinygltf is
// lenient: a translation given as strings, `children: ["1"]`, a mesh index of 0.5 or true, a
// 15-element matrix are dropped or read as 0 without a word, and the avatar loads changed. Here
// each such field must have the type and length the glTF 2.0 schema gives, or the load fails
// naming it. Index ranges are checked later, where the indices are used.
#include <string>

#include "io/gltf_reader.h"

namespace hairswing::io {
namespace {

const char* TypeName(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

std::string Key(const std::string& f, const char* key) { return f.empty() ? key : f + "." + key; }

[[noreturn]] void Wrong(const std::string& f, const char* want, const Json& got) {
  throw ReadError(f, std::string("expected ") + want + ", found " + TypeName(got));
}

// Optional members of `obj`, each checked when present (null counts as present: the schema has
// no nullable fields).
void Int(const Json& obj, const char* key, const std::string& f, long long lo = 0,
         long long hi = 2147483647) {
  const Json* v = Find(obj, key);
  if (!v) return;
  const std::string k = Key(f, key);
  if (!v->is_number_integer()) Wrong(k, "an integer", *v);
  const long long i =
      v->is_number_unsigned() && v->get<unsigned long long>() > 9e18 ? hi + 1 : v->get<long long>();
  if (i < lo || i > hi)
    throw ReadError(
        k, std::to_string(i) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
}

void Str(const Json& obj, const char* key, const std::string& f) {
  if (const Json* v = Find(obj, key); v && !v->is_string()) Wrong(Key(f, key), "a string", *v);
}

void Bool(const Json& obj, const char* key, const std::string& f) {
  if (const Json* v = Find(obj, key); v && !v->is_boolean())
    Wrong(Key(f, key), "true or false", *v);
}

void Obj(const Json& obj, const char* key, const std::string& f) {
  if (const Json* v = Find(obj, key); v && !v->is_object()) Wrong(Key(f, key), "an object", *v);
}

// An array of numbers, of exactly `n` elements when n > 0.
void Nums(const Json& obj, const char* key, const std::string& f, size_t n = 0) {
  const Json* v = Find(obj, key);
  if (!v) return;
  const std::string k = Key(f, key);
  if (!v->is_array()) Wrong(k, "an array of numbers", *v);
  if (n && v->size() != n)
    throw ReadError(
        k, "expected " + std::to_string(n) + " numbers, found " + std::to_string(v->size()));
  for (size_t i = 0; i < v->size(); ++i)
    if (!(*v)[i].is_number()) Wrong(Idx(k, i), "a number", (*v)[i]);
}

void Ints(const Json& obj, const char* key, const std::string& f) {
  const Json* v = Find(obj, key);
  if (!v) return;
  const std::string k = Key(f, key);
  if (!v->is_array()) Wrong(k, "an array of indices", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    const Json& e = (*v)[i];
    if (!e.is_number_integer() || e.get<long long>() < 0 || e.get<long long>() > 2147483647)
      Wrong(Idx(k, i), "a non-negative integer index", e);
  }
}

// Each element of the array `key` must be an object; `each` checks it.
template <typename F>
void Objects(const Json& obj, const char* key, const std::string& f, F each) {
  const Json* v = Find(obj, key);
  if (!v) return;
  const std::string k = f.empty() ? key : f + "." + key;
  if (!v->is_array()) Wrong(k, "an array", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    const Json& e = (*v)[i];
    const std::string ef = Idx(k, i);
    if (!e.is_object()) Wrong(ef, "an object", e);
    Str(e, "name", ef);
    Obj(e, "extensions", ef);
    each(e, ef);
  }
}

void Strings(const Json& obj, const char* key) {
  const Json* v = Find(obj, key);
  if (!v) return;
  if (!v->is_array()) Wrong(key, "an array of strings", *v);
  for (size_t i = 0; i < v->size(); ++i)
    if (!(*v)[i].is_string()) Wrong(Idx(key, i), "a string", (*v)[i]);
}

}  // namespace

void CheckCoreTypes(const Json& root) {
  const std::string none;
  const Json* asset = Find(root, "asset");
  if (!asset) throw ReadError("asset", "missing (every glTF file has one)");
  if (!asset->is_object()) Wrong("asset", "an object", *asset);
  Str(*asset, "version", "asset");
  Obj(root, "extensions", none);
  Strings(root, "extensionsUsed");
  Strings(root, "extensionsRequired");
  Int(root, "scene", "");
  Objects(root, "scenes", none, [](const Json& s, const std::string& f) { Ints(s, "nodes", f); });
  Objects(root, "nodes", none, [](const Json& n, const std::string& f) {
    Nums(n, "translation", f, 3);
    Nums(n, "rotation", f, 4);
    Nums(n, "scale", f, 3);
    Nums(n, "matrix", f, 16);
    Nums(n, "weights", f);
    Ints(n, "children", f);
    for (const char* k : {"mesh", "skin", "camera"}) Int(n, k, f);
    // A matrix together with TRS is outside the schema, but three.js loads it (the matrix wins)
    // and so do we (ReadNodes uses the matrix).
  });
  Objects(root, "meshes", none, [](const Json& m, const std::string& f) {
    Nums(m, "weights", f);
    const Json* prims = Find(m, "primitives");
    if (!prims) throw ReadError(f + ".primitives", "missing");
    if (!prims->is_array() || prims->empty()) Wrong(f + ".primitives", "a non-empty array", *prims);
    Objects(m, "primitives", f, [](const Json& p, const std::string& pf) {
      const Json* attrs = Find(p, "attributes");
      if (!attrs || !attrs->is_object())
        throw ReadError(pf + ".attributes", "expected an object of accessor indices");
      for (auto it = attrs->begin(); it != attrs->end(); ++it)
        Int(*attrs, it.key().c_str(), pf + ".attributes");
      Int(p, "indices", pf);
      Int(p, "material", pf);
      Int(p, "mode", pf, 0, 6);
      if (const Json* t = Find(p, "targets")) {
        if (!t->is_array()) Wrong(pf + ".targets", "an array", *t);
        for (size_t i = 0; i < t->size(); ++i) {
          const Json& tg = (*t)[i];
          if (!tg.is_object()) Wrong(Idx(pf + ".targets", i), "an object", tg);
          for (auto it = tg.begin(); it != tg.end(); ++it)
            Int(tg, it.key().c_str(), Idx(pf + ".targets", i));
        }
      }
    });
  });
  Objects(root, "accessors", none, [](const Json& a, const std::string& f) {
    Int(a, "bufferView", f);
    Int(a, "byteOffset", f);
    Int(a, "count", f);  // 0 is outside the schema, but loaders take it
    Bool(a, "normalized", f);
    Nums(a, "min", f);
    Nums(a, "max", f);
    Obj(a, "sparse", f);
    const Json* ct = Find(a, "componentType");
    if (!ct) throw ReadError(f + ".componentType", "missing");
    Int(a, "componentType", f, 5120, 5126);
    const Json* type = Find(a, "type");
    if (!type) throw ReadError(f + ".type", "missing");
    Str(a, "type", f);
  });
  Objects(root, "bufferViews", none, [](const Json& v, const std::string& f) {
    if (!Find(v, "buffer")) throw ReadError(f + ".buffer", "missing");
    Int(v, "buffer", f);
    Int(v, "byteOffset", f);
    Int(v, "byteLength", f);
    Int(v, "byteStride", f, 1, 252);  // the reader checks it against the element size
    Int(v, "target", f);
  });
  Objects(root, "buffers", none, [](const Json& b, const std::string& f) {
    Int(b, "byteLength", f, 0, 4294967295LL);
    Str(b, "uri", f);
  });
  Objects(root, "skins", none, [](const Json& s, const std::string& f) {
    Ints(s, "joints", f);
    Int(s, "inverseBindMatrices", f);
    Int(s, "skeleton", f);
  });
  Objects(root, "animations", none, [](const Json& a, const std::string& f) {
    Objects(a, "channels", f, [](const Json& c, const std::string& cf) {
      Int(c, "sampler", cf);
      const Json* t = Find(c, "target");
      if (!t || !t->is_object()) throw ReadError(cf + ".target", "expected an object");
      Int(*t, "node", cf + ".target");
      Str(*t, "path", cf + ".target");
    });
    Objects(a, "samplers", f, [](const Json& s, const std::string& sf) {
      Int(s, "input", sf);
      Int(s, "output", sf);
      Str(s, "interpolation", sf);
    });
  });
  Objects(root, "images", none, [](const Json& i, const std::string& f) {
    Str(i, "uri", f);
    Str(i, "mimeType", f);
    Int(i, "bufferView", f);
  });
  Objects(root, "textures", none, [](const Json& t, const std::string& f) {
    Int(t, "source", f);
    Int(t, "sampler", f);
  });
  Objects(root, "samplers", none, [](const Json& s, const std::string& f) {
    for (const char* k : {"magFilter", "minFilter", "wrapS", "wrapT"}) Int(s, k, f);
  });
  // Materials are checked where they are read (read_gltf_passthrough.cpp, CheckMaterial).
  Objects(root, "materials", none, [](const Json&, const std::string&) {});
  Objects(root, "cameras", none, [](const Json&, const std::string&) {});
}

}  // namespace hairswing::io
