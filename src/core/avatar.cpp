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

}  // namespace hairswing
