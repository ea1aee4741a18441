// VRM 0.x -> VRM 1.0: the face and the look of an avatar. blendShapeMaster becomes
// VRMC_vrm.expressions, firstPerson becomes VRMC_vrm.lookAt and VRMC_vrm.firstPerson, and the
// MToon 0.x / VRM Unlit materialProperties become VRMC_materials_mtoon 1.0 materials. The mapping
// follows the VRM 1.0 specification and what @pixiv/three-vrm does when it loads a VRM 0.x file
// (its v0 import paths), so that three-vrm shows the converted file as it shows the original;
// tests/parity/vrm0_convert.mjs compares both. Run on the file's JSON, before the axes turn.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "io/read_internal.h"

namespace hairswing::io {
namespace {

// Lenient readers for the 0.x property maps (unlike GetNumber/GetVec, which throw on a wrong
// type): these values only change how the avatar looks, and a malformed one falls back to its
// default as in three-vrm, instead of refusing the whole avatar.
double Num(const Json* obj, const char* key, double def) {
  if (!obj || !obj->is_object()) return def;
  const Json* v = Find(*obj, key);
  return v && v->is_number() ? v->get<double>() : def;
}

// A vector property (v0 stores colours and texture transforms as 4 numbers).
std::vector<double> Vec4(const Json* obj, const char* key, std::vector<double> def) {
  if (!obj || !obj->is_object()) return def;
  const Json* v = Find(*obj, key);
  if (!v || !v->is_array()) return def;
  for (size_t i = 0; i < v->size() && i < def.size(); ++i)
    if ((*v)[i].is_number()) def[i] = (*v)[i].get<double>();
  return def;
}

int TexIndex(const Json* textures, const char* key) {
  if (!textures || !textures->is_object()) return -1;
  const Json* v = Find(*textures, key);
  return v && v->is_number_integer() ? v->get<int>() : -1;
}

double Gamma(double v) { return std::pow(std::max(v, 0.0), 2.2); }  // sRGB-ish -> linear, as v0

bool Keyword(const Json& mp, const char* key) {
  const Json* k = Find(mp, "keywordMap");
  if (!k || !k->is_object()) return false;
  const Json* v = Find(*k, key);
  return v && v->is_boolean() && v->get<bool>();
}

// v0 render queues of transparent materials -> VRM 1.0 renderQueueOffsetNumber, keeping their
// order: transparent ones count down to 0 from -9, with z-write up from 0 to 9.
struct QueueMaps {
  std::map<int, int> transparent, zwrite;
};

bool IsTransparent(const Json& mp, const std::string& shader) {
  const Json* k = Find(mp, "keywordMap");
  return (k && k->is_object() && Find(*k, "_ALPHABLEND_ON")) || shader == "VRM/UnlitTransparent" ||
         shader == "VRM/UnlitTransparentZWrite";
}

bool WritesZ(const Json& mp, const std::string& shader) {
  return Num(Find(mp, "floatProperties"), "_ZWrite", 0) == 1 ||
         shader == "VRM/UnlitTransparentZWrite";
}

QueueMaps BuildQueueMaps(const Json& props) {
  std::set<int> transparent, zwrite;
  for (const Json& mp : props) {
    if (!mp.is_object()) continue;
    const std::string shader = GetString(mp, "shader", "", "");
    const Json* q = Find(mp, "renderQueue");
    if (!IsTransparent(mp, shader) || !q || !q->is_number()) continue;
    (WritesZ(mp, shader) ? zwrite : transparent).insert(q->get<int>());
  }
  QueueMaps m;
  int i = 0;
  for (int q : transparent)
    m.transparent[q] = std::clamp(i++ - static_cast<int>(transparent.size()) + 1, -9, 0);
  i = 0;
  for (int q : zwrite) m.zwrite[q] = std::clamp(i++, 0, 9);
  return m;
}

int QueueOffset(const Json& mp, const std::string& shader, const QueueMaps& maps) {
  const Json* q = Find(mp, "renderQueue");
  if (!IsTransparent(mp, shader) || !q || !q->is_number()) return 0;
  const auto& m = WritesZ(mp, shader) ? maps.zwrite : maps.transparent;
  auto it = m.find(q->get<int>());
  return it == m.end() ? 0 : it->second;
}

// _MainTex_ST (scale xy, offset zw; v0's origin at the bottom) -> KHR_texture_transform.
Json TextureTransform(const Json* vectors) {
  if (!vectors || !Find(*vectors, "_MainTex")) return Json();
  const std::vector<double> st = Vec4(vectors, "_MainTex", {0, 0, 1, 1});
  const double sx = st[2], sy = st[3], ox = st[0], oy = 1.0 - st[3] - st[1];
  return {{"KHR_texture_transform", {{"offset", {ox, oy}}, {"scale", {sx, sy}}}}};
}

Json TexRef(int index, const Json& transform) {
  Json t = {{"index", index}};
  if (!transform.is_null()) t["extensions"] = transform;
  return t;
}

std::vector<double> GammaColour(std::vector<double> c, bool keep_alpha) {
  for (size_t i = 0; i < c.size(); ++i)
    if (!(keep_alpha && i == 3)) c[i] = Gamma(c[i]);
  return c;
}

// The glTF side both shaders share (alpha mode and cutoff), and the MToon extension in place of
// the unlit one the v0 exporters write for old readers.
void SetAlpha(Json& mat, bool transparent, bool cutoff, const Json* floats) {
  mat["alphaMode"] = transparent ? "BLEND" : cutoff ? "MASK" : "OPAQUE";
  if (cutoff) mat["alphaCutoff"] = Num(floats, "_Cutoff", 0.5);
}

Json WithMToon(Json mat, Json mtoon) {
  if (!mat.contains("extensions") || !mat["extensions"].is_object())
    mat["extensions"] = Json::object();
  mat["extensions"].erase("KHR_materials_unlit");
  mat["extensions"]["VRMC_materials_mtoon"] = std::move(mtoon);
  return mat;
}

Json ConvertMToon(const Json& mp, Json mat, const QueueMaps& maps) {
  const Json* f = Find(mp, "floatProperties");
  const Json* v = Find(mp, "vectorProperties");
  const Json* t = Find(mp, "textureProperties");
  const std::string shader = GetString(mp, "shader", "", "");
  const bool transparent = Keyword(mp, "_ALPHABLEND_ON");
  const bool cutoff = Keyword(mp, "_ALPHATEST_ON");
  const Json tt = TextureTransform(v);
  Json pbr = {{"baseColorFactor", GammaColour(Vec4(v, "_Color", {1, 1, 1, 1}), true)}};
  if (int i = TexIndex(t, "_MainTex"); i >= 0) pbr["baseColorTexture"] = TexRef(i, tt);
  mat["pbrMetallicRoughness"] = pbr;
  if (int i = TexIndex(t, "_BumpMap"); i >= 0) {
    mat["normalTexture"] = TexRef(i, tt);
    mat["normalTexture"]["scale"] = Num(f, "_BumpScale", 1.0);
  }
  std::vector<double> emissive = GammaColour(Vec4(v, "_EmissionColor", {0, 0, 0, 1}), false);
  mat["emissiveFactor"] = {emissive[0], emissive[1], emissive[2]};
  if (int i = TexIndex(t, "_EmissionMap"); i >= 0) mat["emissiveTexture"] = TexRef(i, tt);
  SetAlpha(mat, transparent, cutoff, f);
  mat["doubleSided"] = Num(f, "_CullMode", 2) == 0;

  Json m = {{"specVersion", "1.0"},
            {"transparentWithZWrite", transparent && Num(f, "_ZWrite", 0) == 1},
            {"renderQueueOffsetNumber", QueueOffset(mp, shader, maps)}};
  std::vector<double> shade = GammaColour(Vec4(v, "_ShadeColor", {0.97, 0.81, 0.86, 1}), false);
  m["shadeColorFactor"] = {shade[0], shade[1], shade[2]};
  if (int i = TexIndex(t, "_ShadeTexture"); i >= 0) m["shadeMultiplyTexture"] = TexRef(i, tt);
  // v0's shade shift/toony pair, re-expressed for 1.0's formula.
  const double shift0 = Num(f, "_ShadeShift", 0.0);
  const double toony0 = Num(f, "_ShadeToony", 0.9);
  const double toony = toony0 + (1.0 - toony0) * (0.5 + 0.5 * shift0);
  m["shadingToonyFactor"] = toony;
  m["shadingShiftFactor"] = -shift0 - (1.0 - toony);
  const double gi = Num(f, "_IndirectLightIntensity", 0.1);
  if (gi != 0) m["giEqualizationFactor"] = 1.0 - gi;
  if (int i = TexIndex(t, "_SphereAdd"); i >= 0) {
    m["matcapFactor"] = {1.0, 1.0, 1.0};
    m["matcapTexture"] = {{"index", i}};
  }
  m["rimLightingMixFactor"] = Num(f, "_RimLightingMix", 0.0);
  if (int i = TexIndex(t, "_RimTexture"); i >= 0) m["rimMultiplyTexture"] = TexRef(i, tt);
  std::vector<double> rim = GammaColour(Vec4(v, "_RimColor", {0, 0, 0, 1}), false);
  m["parametricRimColorFactor"] = {rim[0], rim[1], rim[2]};
  m["parametricRimFresnelPowerFactor"] = Num(f, "_RimFresnelPower", 1.0);
  m["parametricRimLiftFactor"] = Num(f, "_RimLift", 0.0);
  const int width_mode = static_cast<int>(Num(f, "_OutlineWidthMode", 0));
  m["outlineWidthMode"] = width_mode == 1   ? "worldCoordinates"
                          : width_mode == 2 ? "screenCoordinates"
                                            : "none";
  m["outlineWidthFactor"] = 0.01 * Num(f, "_OutlineWidth", 0.0);  // v0: centimetres
  if (int i = TexIndex(t, "_OutlineWidthTexture"); i >= 0)
    m["outlineWidthMultiplyTexture"] = TexRef(i, tt);
  std::vector<double> outline = GammaColour(Vec4(v, "_OutlineColor", {0, 0, 0, 1}), false);
  m["outlineColorFactor"] = {outline[0], outline[1], outline[2]};
  m["outlineLightingMixFactor"] =
      Num(f, "_OutlineColorMode", 0) == 1 ? Num(f, "_OutlineLightingMix", 1.0) : 0.0;
  if (int i = TexIndex(t, "_UvAnimMaskTexture"); i >= 0)
    m["uvAnimationMaskTexture"] = TexRef(i, tt);
  m["uvAnimationScrollXSpeedFactor"] = Num(f, "_UvAnimScrollX", 0.0);
  m["uvAnimationScrollYSpeedFactor"] = -Num(f, "_UvAnimScrollY", 0.0);  // v0's v axis points up
  m["uvAnimationRotationSpeedFactor"] = Num(f, "_UvAnimRotation", 0.0);
  return WithMToon(std::move(mat), std::move(m));
}

Json ConvertUnlit(const Json& mp, Json mat, const QueueMaps& maps) {
  const Json* f = Find(mp, "floatProperties");
  const Json* v = Find(mp, "vectorProperties");
  const Json* t = Find(mp, "textureProperties");
  const std::string shader = GetString(mp, "shader", "", "");
  const bool zwrite = shader == "VRM/UnlitTransparentZWrite";
  const bool transparent = shader == "VRM/UnlitTransparent" || zwrite;
  const bool cutoff = shader == "VRM/UnlitCutout";
  const Json tt = TextureTransform(v);
  const std::vector<double> colour = GammaColour(Vec4(v, "_Color", {1, 1, 1, 1}), false);
  Json pbr = {{"baseColorFactor", colour}};
  Json m = {{"specVersion", "1.0"},
            {"transparentWithZWrite", zwrite},
            {"renderQueueOffsetNumber", QueueOffset(mp, shader, maps)},
            {"shadeColorFactor", {colour[0], colour[1], colour[2]}}};
  if (int i = TexIndex(t, "_MainTex"); i >= 0) {
    pbr["baseColorTexture"] = TexRef(i, tt);
    m["shadeMultiplyTexture"] = TexRef(i, tt);
  }
  mat["pbrMetallicRoughness"] = pbr;
  SetAlpha(mat, transparent, cutoff, f);
  return WithMToon(std::move(mat), std::move(m));
}

const std::map<std::string, std::string>& PresetNames() {
  static const std::map<std::string, std::string> m = {{"a", "aa"},
                                                       {"e", "ee"},
                                                       {"i", "ih"},
                                                       {"o", "oh"},
                                                       {"u", "ou"},
                                                       {"blink", "blink"},
                                                       {"joy", "happy"},
                                                       {"angry", "angry"},
                                                       {"sorrow", "sad"},
                                                       {"fun", "relaxed"},
                                                       {"lookup", "lookUp"},
                                                       {"lookdown", "lookDown"},
                                                       {"lookleft", "lookLeft"},
                                                       {"lookright", "lookRight"},
                                                       {"blink_l", "blinkLeft"},
                                                       {"blink_r", "blinkRight"},
                                                       {"neutral", "neutral"}};
  return m;
}

const std::map<std::string, std::string>& ColourTypes() {
  static const std::map<std::string, std::string> m = {{"_Color", "color"},
                                                       {"_EmissionColor", "emissionColor"},
                                                       {"_ShadeColor", "shadeColor"},
                                                       {"_RimColor", "rimColor"},
                                                       {"_OutlineColor", "outlineColor"}};
  return m;
}

// MToon 0.x properties the conversion does not carry: what VRM 1.0 has no field for, named so
// the user knows (render-state properties that alphaMode, doubleSided and transparentWithZWrite
// express, and version/debug switches, are not listed).
std::vector<std::string> UnconvertedMToon(const Json& mp) {
  static const std::set<std::string> kFloats = {"_ZWrite",
                                                "_Cutoff",
                                                "_CullMode",
                                                "_BumpScale",
                                                "_ShadeShift",
                                                "_ShadeToony",
                                                "_IndirectLightIntensity",
                                                "_RimLightingMix",
                                                "_RimFresnelPower",
                                                "_RimLift",
                                                "_OutlineWidthMode",
                                                "_OutlineWidth",
                                                "_OutlineColorMode",
                                                "_OutlineLightingMix",
                                                "_UvAnimScrollX",
                                                "_UvAnimScrollY",
                                                "_UvAnimRotation",
                                                "_BlendMode",
                                                "_SrcBlend",
                                                "_DstBlend",
                                                "_AlphaToMask",
                                                "_MToonVersion",
                                                "_DebugMode",
                                                "_OutlineCullMode"};
  static const std::set<std::string> kVectors = {"_Color", "_EmissionColor", "_ShadeColor",
                                                 "_RimColor", "_OutlineColor"};
  static const std::set<std::string> kTextures = {
      "_MainTex",   "_BumpMap",    "_EmissionMap",         "_ShadeTexture",
      "_SphereAdd", "_RimTexture", "_OutlineWidthTexture", "_UvAnimMaskTexture"};
  std::vector<std::string> out;
  const Json* f = Find(mp, "floatProperties");
  const Json* t = Find(mp, "textureProperties");
  const Json* v = Find(mp, "vectorProperties");
  if (f && f->is_object())
    for (auto it = f->begin(); it != f->end(); ++it)
      if (!kFloats.count(it.key()) && it.value().is_number() && it.value().get<double>() != 0.0)
        out.push_back(it.key());
  if (t && t->is_object())
    for (auto it = t->begin(); it != t->end(); ++it)
      if (!kTextures.count(it.key())) out.push_back(it.key());
  if (v && v->is_object())  // a texture's own _ST vector is not a property of its own
    for (auto it = v->begin(); it != v->end(); ++it)
      if (!kVectors.count(it.key()) && !kTextures.count(it.key()) &&
          !(t && t->is_object() && Find(*t, it.key().c_str())) &&
          it.key() != "_ReceiveShadowTexture" && it.key() != "_ShadingGradeTexture")
        out.push_back(it.key());
  return out;
}

}  // namespace

void ConvertVrm0Materials(const Json& vrm, Avatar& av, Warnings& warnings) {
  const Json* props = Find(vrm, "materialProperties");
  if (!props || !props->is_array()) return;
  const QueueMaps maps = BuildQueueMaps(*props);
  for (size_t i = 0; i < props->size() && i < av.materials.size(); ++i) {
    const Json& mp = (*props)[i];
    if (!mp.is_object()) continue;
    const std::string shader =
        GetString(mp, "shader", "", Idx("extensions.VRM.materialProperties", i));
    Json mat = Json::parse(av.materials[i].json);
    if (shader == "VRM/MToon") {
      av.materials[i].json = Dump(ConvertMToon(mp, std::move(mat), maps));
      if (std::vector<std::string> left = UnconvertedMToon(mp); !left.empty()) {
        std::string names;
        for (const std::string& n : left) names += (names.empty() ? "" : ", ") + n;
        warnings.push_back(
            av.source_path + ": " + Idx("extensions.VRM.materialProperties", i) + " (\"" +
            av.materials[i].name +
            "\"): MToon 0.x properties without a VRM 1.0 field, not converted: " + names);
      }
    } else if (shader.rfind("VRM/Unlit", 0) == 0)
      av.materials[i].json = Dump(ConvertUnlit(mp, std::move(mat), maps));
    else if (shader != "VRM_USE_GLTFSHADER" && !shader.empty())
      warnings.push_back(av.source_path + ": " + Idx("extensions.VRM.materialProperties", i) +
                         ".shader \"" + shader + "\" is not converted (kept as the glTF material)");
  }
}

Json ConvertVrm0Face(const Json& vrm, const Json& root, const Avatar& av, Warnings& warnings) {
  Json out = Json::object();
  const std::string base = "extensions.VRM";
  // Nodes showing each mesh (v0 binds and annotations name meshes, 1.0 names nodes).
  std::map<int, std::vector<int>> nodes_of_mesh;
  const Json& nodes = GetArray(root, "nodes", "");
  for (size_t n = 0; n < nodes.size(); ++n)
    if (const Json* m = Find(nodes[n], "mesh"); m && m->is_number_integer())
      nodes_of_mesh[m->get<int>()].push_back(static_cast<int>(n));

  if (const Json* bsm = GetObject(vrm, "blendShapeMaster", base)) {
    Json preset = Json::object(), custom = Json::object();
    const Json& groups = GetArray(*bsm, "blendShapeGroups", base + ".blendShapeMaster");
    for (size_t g = 0; g < groups.size(); ++g) {
      const std::string f = Idx(base + ".blendShapeMaster.blendShapeGroups", g);
      const Json& grp = groups[g];
      if (!grp.is_object()) continue;
      std::string preset_name = GetString(grp, "presetName", "", f);
      std::transform(preset_name.begin(), preset_name.end(), preset_name.begin(), ::tolower);
      auto it = PresetNames().find(preset_name);
      const bool is_preset = it != PresetNames().end();
      const std::string name = is_preset ? it->second : GetString(grp, "name", "", f);
      if (name.empty()) {
        warnings.push_back(av.source_path + ": " + f + " has no name and no preset: dropped");
        continue;
      }
      Json& target = is_preset ? preset : custom;
      if (target.contains(name)) {
        warnings.push_back(av.source_path + ": " + f + ": a second \"" + name + "\" is dropped");
        continue;
      }
      Json e = {{"isBinary", GetBool(grp, "isBinary", false, f)}};
      Json morphs = Json::array(), colours = Json::array(), transforms = Json::array();
      const Json& binds = GetArray(grp, "binds", f);
      for (size_t b = 0; b < binds.size(); ++b) {
        const int mesh = GetIndexOrNone(binds[b], "mesh", av.meshes.size(), Idx(f + ".binds", b));
        const int index = static_cast<int>(GetNumber(binds[b], "index", -1, Idx(f + ".binds", b)));
        if (mesh < 0 || index < 0) continue;
        if (nodes_of_mesh[mesh].empty())
          warnings.push_back(av.source_path + ": " + Idx(f + ".binds", b) + ": mesh " +
                             std::to_string(mesh) +
                             " is drawn by no node, and VRM 1.0 binds morph targets by node: "
                             "dropped");
        for (int node : nodes_of_mesh[mesh])
          morphs.push_back({{"node", node},
                            {"index", index},
                            {"weight", 0.01 * GetNumber(binds[b], "weight", 100, f)}});
      }
      const Json& values = GetArray(grp, "materialValues", f);
      for (size_t k = 0; k < values.size(); ++k) {
        const std::string vf = Idx(f + ".materialValues", k);
        const std::string mname = GetString(values[k], "materialName", "", vf);
        const std::string prop = GetString(values[k], "propertyName", "", vf);
        const std::vector<double> tv = Vec4(&values[k], "targetValue", {0, 0, 0, 1});
        if (std::none_of(av.materials.begin(), av.materials.end(),
                         [&](const Material& m) { return m.name == mname; }))
          warnings.push_back(av.source_path + ": " + vf + ".materialName \"" + mname +
                             "\" names no material: dropped");
        for (size_t m = 0; m < av.materials.size(); ++m) {
          if (av.materials[m].name != mname) continue;
          if (prop == "_MainTex_ST") {
            transforms.push_back({{"material", m},
                                  {"scale", {tv[0], tv[1]}},
                                  {"offset", {tv[2], 1.0 - tv[3] - tv[1]}}});
          } else if (auto c = ColourTypes().find(prop); c != ColourTypes().end()) {
            colours.push_back({{"material", m}, {"type", c->second}, {"targetValue", tv}});
          } else {
            warnings.push_back(av.source_path + ": " + vf + ".propertyName \"" + prop +
                               "\" has no VRM 1.0 equivalent: dropped");
          }
        }
      }
      if (!morphs.empty()) e["morphTargetBinds"] = morphs;
      if (!colours.empty()) e["materialColorBinds"] = colours;
      if (!transforms.empty()) e["textureTransformBinds"] = transforms;
      target[name] = e;
    }
    Json expressions = Json::object();
    if (!preset.empty()) expressions["preset"] = preset;
    if (!custom.empty()) expressions["custom"] = custom;
    out["expressions"] = expressions;  // even empty: the file had a (possibly empty) face
  }

  if (const Json* fp = GetObject(vrm, "firstPerson", base)) {
    const std::string f = base + ".firstPerson";
    const bool expression = GetString(*fp, "lookAtTypeName", "Bone", f) == "BlendShape";
    const double default_scale = expression ? 1.0 : 10.0;
    Json look = {{"type", expression ? "expression" : "bone"}};
    // The offset is in Unity's axes (z flipped against glTF); the file's glTF frame faces -Z and
    // hairswing turns it 180 degrees about Y (NormaliseVrm0Axes), so x and z both change sign
    // relative to (x, y, -z): (-x, y, z).
    const Json* off = Find(*fp, "firstPersonBoneOffset");
    const double ox = Num(off, "x", 0.0), oy = off ? Num(off, "y", 0.06) : 0.06,
                 oz = Num(off, "z", 0.0);
    look["offsetFromHeadBone"] = {-ox, oy, oz};
    for (const auto& [v0, v1] : std::vector<std::pair<const char*, const char*>>{
             {"lookAtHorizontalInner", "rangeMapHorizontalInner"},
             {"lookAtHorizontalOuter", "rangeMapHorizontalOuter"},
             {"lookAtVerticalDown", "rangeMapVerticalDown"},
             {"lookAtVerticalUp", "rangeMapVerticalUp"}}) {
      const Json* map = Find(*fp, v0);
      look[v1] = {{"inputMaxValue", Num(map, "xRange", 90.0)},
                  {"outputScale", Num(map, "yRange", default_scale)}};
      if (map && Find(*map, "curve") &&
          Find(*map, "curve")->dump() != Json::array({0, 0, 0, 1, 1, 1, 1, 0}).dump())
        warnings.push_back(av.source_path + ": " + f + "." + v0 +
                           ".curve is not linear; VRM 1.0 range maps are: converted as linear");
    }
    out["lookAt"] = look;
    Json annotations = Json::array();
    const Json& anns = GetArray(*fp, "meshAnnotations", f);
    for (size_t a = 0; a < anns.size(); ++a) {
      const std::string af = Idx(f + ".meshAnnotations", a);
      const int mesh = GetIndexOrNone(anns[a], "mesh", av.meshes.size(), af);
      const std::string flag = GetString(anns[a], "firstPersonFlag", "Auto", af);
      const std::string type = flag == "Both"              ? "both"
                               : flag == "ThirdPersonOnly" ? "thirdPersonOnly"
                               : flag == "FirstPersonOnly" ? "firstPersonOnly"
                                                           : "auto";
      if (mesh < 0) continue;
      for (int node : nodes_of_mesh[mesh]) annotations.push_back({{"node", node}, {"type", type}});
    }
    if (!annotations.empty()) out["firstPerson"] = {{"meshAnnotations", annotations}};
    const int bone = GetIndexOrNone(*fp, "firstPersonBone", av.nodes.size(), f);
    auto head = av.vrm.humanoid.find("head");
    if (bone >= 0 && head != av.vrm.humanoid.end() && bone != head->second)
      warnings.push_back(av.source_path + ": " + f +
                         ".firstPersonBone is not the head; VRM 1.0 always uses the head");
  }
  return out;
}

}  // namespace hairswing::io
