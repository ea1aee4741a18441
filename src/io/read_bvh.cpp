// BVH (Biovision hierarchy) reader: the skeleton becomes Avatar nodes, the motion one animation.
//   * OFFSET is the joint's rest translation; position channels add to it.
//   * Rotation channels are Euler angles in degrees applied in the order listed: for
//     "Zrotation Xrotation Yrotation" the local rotation is Rz * Rx * Ry.
//   * An End Site becomes a leaf node named "<joint>_end".
//   * Frame k is at k * Frame Time seconds; keys are linear.
#include <cmath>
#include <fstream>
#include <sstream>

#include "hairswing/io.h"

namespace hairswing {
namespace {

struct Parser {
  std::vector<std::string> tok;
  std::vector<int> line_of;
  size_t i = 0;
  std::string file;

  std::string Where() const {
    return file + ": line " +
           std::to_string(i < line_of.size() ? line_of[i] : (line_of.empty() ? 0 : line_of.back()));
  }
  bool Done() const { return i >= tok.size(); }
  const std::string& Peek() const {
    static const std::string kEnd;
    return Done() ? kEnd : tok[i];
  }
  std::string Next(const char* what) {
    if (Done()) throw std::runtime_error(file + ": unexpected end of file (expected " + what + ")");
    return tok[i++];
  }
  void Expect(const std::string& s) {
    const std::string w = Where();
    if (Next(s.c_str()) != s) throw std::runtime_error(w + ": expected \"" + s + "\"");
  }
  double Number(const char* what) {
    const std::string w = Where();
    const std::string t = Next(what);
    char* end = nullptr;
    const double d = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0' || !std::isfinite(d))
      throw std::runtime_error(w + ": " + what + ": \"" + t + "\" is not a number");
    // Offsets and motion values become floats (in centimetres or degrees): beyond 1e30 they
    // would not survive as finite numbers through the skeleton, clip and written file.
    if (std::fabs(d) > 1e30)
      throw std::runtime_error(w + ": " + what + ": " + t + " is out of range (|value| > 1e30)");
    return d;
  }
};

struct Channel {
  int node;
  int kind;
};  // kind: 0..2 position x/y/z, 3..5 rotation x/y/z

void ParseJoint(Parser& p, Avatar& av, int parent, std::vector<Channel>& channels,
                std::vector<std::vector<int>>& rot_order, int depth) {
  if (depth > 256) throw std::runtime_error(p.Where() + ": hierarchy deeper than 256 joints");
  Node n;
  n.name = p.Next("joint name");
  n.parent = parent;
  const int id = static_cast<int>(av.nodes.size());
  av.nodes.push_back(n);
  rot_order.emplace_back();
  if (parent >= 0) av.nodes[parent].children.push_back(id);
  p.Expect("{");
  p.Expect("OFFSET");
  for (int k = 0; k < 3; ++k) av.nodes[id].translation[k] = static_cast<float>(p.Number("OFFSET"));
  if (p.Peek() == "CHANNELS") {
    p.Next("CHANNELS");
    const std::string w = p.Where();
    const double count = p.Number("channel count");
    if (count < 0 || count > 6 || count != std::floor(count))
      throw std::runtime_error(w + ": channel count must be 0..6");
    for (int c = 0; c < static_cast<int>(count); ++c) {
      const std::string w2 = p.Where();
      const std::string name = p.Next("channel");
      static const char* kNames[] = {"Xposition", "Yposition", "Zposition",
                                     "Xrotation", "Yrotation", "Zrotation"};
      int kind = -1;
      for (int k = 0; k < 6; ++k)
        if (name == kNames[k]) kind = k;
      if (kind < 0) throw std::runtime_error(w2 + ": unknown channel \"" + name + "\"");
      channels.push_back({id, kind});
      if (kind >= 3) rot_order[id].push_back(kind - 3);
    }
  }
  while (p.Peek() != "}") {
    const std::string w = p.Where();
    const std::string t = p.Next("JOINT, End or }");
    if (t == "JOINT") {
      ParseJoint(p, av, id, channels, rot_order, depth + 1);
    } else if (t == "End") {
      p.Expect("Site");
      p.Expect("{");
      p.Expect("OFFSET");
      Node e;
      e.name = av.nodes[id].name + "_end";
      e.parent = id;
      for (int k = 0; k < 3; ++k) e.translation[k] = static_cast<float>(p.Number("OFFSET"));
      p.Expect("}");
      av.nodes[id].children.push_back(static_cast<int>(av.nodes.size()));
      av.nodes.push_back(e);
      rot_order.emplace_back();
    } else {
      throw std::runtime_error(w + ": expected JOINT, End Site or }, got \"" + t + "\"");
    }
  }
  p.Expect("}");
}

}  // namespace

Result<LoadedAvatar> LoadBvhFromText(const std::string& text, const std::string& name) {
  Parser p;
  p.file = name;
  {
    std::istringstream in(text);
    std::string line;
    int ln = 0;
    while (std::getline(in, line)) {
      ++ln;
      std::istringstream ls(line);
      std::string t;
      while (ls >> t) {
        // "Frame Time:" and "Frames:" keep their colon attached; split "{" glued to names.
        p.tok.push_back(t);
        p.line_of.push_back(ln);
      }
    }
  }
  LoadedAvatar out;
  Avatar& av = out.avatar;
  av.source_path = name;
  av.source_format = "bvh";
  try {
    p.Expect("HIERARCHY");
    p.Expect("ROOT");
    std::vector<Channel> channels;
    std::vector<std::vector<int>> rot_order;
    ParseJoint(p, av, -1, channels, rot_order, 0);
    av.scene_roots = {0};
    p.Expect("MOTION");
    p.Expect("Frames:");
    const std::string wf = p.Where();
    const double frames = p.Number("Frames");
    if (frames < 1 || frames > 1e7 || frames != std::floor(frames))
      throw std::runtime_error(wf + ": Frames must be 1..10000000");
    p.Expect("Frame");
    p.Expect("Time:");
    const std::string wt = p.Where();
    const double dt = p.Number("Frame Time");
    if (!(dt > 0) || dt > 10)
      throw std::runtime_error(wt + ": Frame Time must be in (0, 10] seconds");
    if (frames * dt > kMaxAnimationSeconds)
      throw std::runtime_error(wt + ": " + std::to_string(static_cast<long long>(frames)) +
                               " frames of " + std::to_string(dt) + " s last past the limit of " +
                               std::to_string(static_cast<int>(kMaxAnimationSeconds)) +
                               " s for a clip");
    const size_t nf = static_cast<size_t>(frames), nc = channels.size();
    if (p.tok.size() - p.i != nf * nc)
      throw std::runtime_error(name + ": MOTION has " + std::to_string(p.tok.size() - p.i) +
                               " values, expected " + std::to_string(nf) + " frames x " +
                               std::to_string(nc) + " channels");
    std::vector<double> values(nf * nc);
    for (size_t k = 0; k < values.size(); ++k) values[k] = p.Number("motion value");
    Animation anim;
    anim.name = "bvh";
    std::vector<float> times(nf);
    for (size_t f = 0; f < nf; ++f) times[f] = static_cast<float>(f * dt);
    for (size_t n = 0; n < av.nodes.size(); ++n) {
      std::vector<int> pos_idx(3, -1), rot_idx(3, -1);
      for (size_t c = 0; c < nc; ++c)
        if (channels[c].node == static_cast<int>(n))
          (channels[c].kind < 3 ? pos_idx[channels[c].kind] : rot_idx[channels[c].kind - 3]) =
              static_cast<int>(c);
      const bool has_pos = pos_idx[0] >= 0 || pos_idx[1] >= 0 || pos_idx[2] >= 0;
      if (has_pos) {
        AnimationChannel ch;
        ch.node = static_cast<int>(n);
        ch.path = AnimationChannel::Path::kTranslation;
        ch.times = times;
        for (size_t f = 0; f < nf; ++f)
          for (int k = 0; k < 3; ++k)
            ch.values.push_back(
                av.nodes[n].translation[k] +
                (pos_idx[k] >= 0 ? static_cast<float>(values[f * nc + pos_idx[k]]) : 0.0f));
        anim.channels.push_back(std::move(ch));
      }
      if (!rot_order[n].empty()) {
        AnimationChannel ch;
        ch.node = static_cast<int>(n);
        ch.path = AnimationChannel::Path::kRotation;
        ch.components = 4;
        ch.times = times;
        for (size_t f = 0; f < nf; ++f) {
          glm::quat q(1, 0, 0, 0);
          for (int axis : rot_order[n]) {
            glm::vec3 a(0);
            a[axis] = 1;
            q = q *
                glm::angleAxis(static_cast<float>(glm::radians(values[f * nc + rot_idx[axis]])), a);
          }
          q = glm::normalize(q);
          ch.values.insert(ch.values.end(), {q.x, q.y, q.z, q.w});
        }
        anim.channels.push_back(std::move(ch));
      }
    }
    av.animations.push_back(std::move(anim));
  } catch (const std::exception& e) {
    return Status(StatusCode::kInvalidInput, e.what());
  }
  return out;
}

}  // namespace hairswing
