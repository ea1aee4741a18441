#!/usr/bin/env python3
"""A humanoid BVH clip of any length for bake benchmarks: 30 frames/s, legs and arms still, the
head turning. `still`: the head turns for 2 s, then the body holds still (the hair settles: the
case whose key reduction used to cost the square of the length); `moving`: the head turns all
the time, alternating large and small swings every 7 s.

    make_long_clip.py SECONDS still|moving OUT.bvh
"""
import math
import sys

seconds, kind, out = float(sys.argv[1]), sys.argv[2], sys.argv[3]
fps = 30
frames = int(seconds * fps)
lines = ["HIERARCHY"]
channels = []


def joint(name, offset, children, depth=0, root=False):
    pad = "  " * depth
    lines.extend([pad + ("ROOT " if root else "JOINT ") + name, pad + "{",
                  pad + "  OFFSET %g %g %g" % offset])
    if root:
        lines.append(pad + "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation")
    else:
        lines.append(pad + "  CHANNELS 3 Zrotation Xrotation Yrotation")
    channels.append((name, 6 if root else 3))
    for child in children:
        joint(*child, depth=depth + 1)
    if not children:
        lines.extend([pad + "  End Site", pad + "  {", pad + "    OFFSET 0 0.1 0", pad + "  }"])
    lines.append(pad + "}")


def leg(side, s):
    return (side + "UpLeg", (s * 0.1, -0.05, 0),
            [(side + "Leg", (0, -0.45, 0), [(side + "Foot", (0, -0.45, 0), [])])])


def arm(side, s):
    return (side + "Arm", (s * 0.15, 0.25, 0),
            [(side + "ForeArm", (s * 0.28, 0, 0), [(side + "Hand", (s * 0.25, 0, 0), [])])])


joint("Hips", (0, 1.0, 0), [leg("Left", 1), leg("Right", -1), (
    "Spine", (0, 0.2, 0), [("Chest", (0, 0.15, 0), [arm("Left", 1), arm("Right", -1), (
        "Neck", (0, 0.3, 0), [("Head", (0, 0.1, 0), [])])])])], root=True)
lines += ["MOTION", "Frames: %d" % frames, "Frame Time: %.9f" % (1.0 / fps)]
for f in range(frames):
    t = f / fps
    values = []
    for name, count in channels:
        if count == 6:
            values += [0, 1.0, 0, 0, 0, 0]
        elif name != "Head":
            values += [0, 0, 0]
        elif kind == "still":
            values += [0, 0, 30 * min(t, 2.0)]
        else:
            values += [0, 10 * math.sin(t), 60 * math.sin(1.3 * t) * (1 if int(t / 7) % 2 else 0.3)]
    lines.append(" ".join("%.4f" % v for v in values))
with open(out, "w") as fh:
    fh.write("\n".join(lines) + "\n")
