#include "hairswing/humanoid.h"

#include <array>

namespace hairswing {
namespace {
constexpr std::array<std::string_view, 55> kBones = {"hips",
                                                     "spine",
                                                     "chest",
                                                     "upperChest",
                                                     "neck",
                                                     "head",
                                                     "leftEye",
                                                     "rightEye",
                                                     "jaw",
                                                     "leftUpperLeg",
                                                     "leftLowerLeg",
                                                     "leftFoot",
                                                     "leftToes",
                                                     "rightUpperLeg",
                                                     "rightLowerLeg",
                                                     "rightFoot",
                                                     "rightToes",
                                                     "leftShoulder",
                                                     "leftUpperArm",
                                                     "leftLowerArm",
                                                     "leftHand",
                                                     "rightShoulder",
                                                     "rightUpperArm",
                                                     "rightLowerArm",
                                                     "rightHand",
                                                     "leftThumbMetacarpal",
                                                     "leftThumbProximal",
                                                     "leftThumbDistal",
                                                     "leftIndexProximal",
                                                     "leftIndexIntermediate",
                                                     "leftIndexDistal",
                                                     "leftMiddleProximal",
                                                     "leftMiddleIntermediate",
                                                     "leftMiddleDistal",
                                                     "leftRingProximal",
                                                     "leftRingIntermediate",
                                                     "leftRingDistal",
                                                     "leftLittleProximal",
                                                     "leftLittleIntermediate",
                                                     "leftLittleDistal",
                                                     "rightThumbMetacarpal",
                                                     "rightThumbProximal",
                                                     "rightThumbDistal",
                                                     "rightIndexProximal",
                                                     "rightIndexIntermediate",
                                                     "rightIndexDistal",
                                                     "rightMiddleProximal",
                                                     "rightMiddleIntermediate",
                                                     "rightMiddleDistal",
                                                     "rightRingProximal",
                                                     "rightRingIntermediate",
                                                     "rightRingDistal",
                                                     "rightLittleProximal",
                                                     "rightLittleIntermediate",
                                                     "rightLittleDistal"};
constexpr std::array<std::string_view, 15> kRequired = {
    "hips",         "spine",         "head",          "leftUpperLeg",  "leftLowerLeg",
    "leftFoot",     "rightUpperLeg", "rightLowerLeg", "rightFoot",     "leftUpperArm",
    "leftLowerArm", "leftHand",      "rightUpperArm", "rightLowerArm", "rightHand"};
}  // namespace

std::span<const std::string_view> HumanBoneNames() { return kBones; }
std::span<const std::string_view> RequiredHumanBoneNames() { return kRequired; }

}  // namespace hairswing
