// The few functions of the editable document (include/hairswing/avatar.h).
#include "hairswing/avatar.h"

namespace hairswing {

const char* ColliderShapeName(ColliderShape s) {
  switch (s) {
    case ColliderShape::kSphere:
      return "sphere";
    case ColliderShape::kCapsule:
      return "capsule";
    case ColliderShape::kInsideSphere:
      return "inside_sphere";
    case ColliderShape::kInsideCapsule:
      return "inside_capsule";
    case ColliderShape::kPlane:
      return "plane";
  }
  return "?";
}

const char* JointLimitKindName(JointLimit::Kind k) {
  switch (k) {
    case JointLimit::Kind::kNone:
      return "none";
    case JointLimit::Kind::kCone:
      return "cone";
    case JointLimit::Kind::kHinge:
      return "hinge";
    case JointLimit::Kind::kSpherical:
      return "spherical";
  }
  return "?";
}

}  // namespace hairswing
