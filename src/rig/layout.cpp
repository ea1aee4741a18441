// The memory layout the C and WebAssembly views rely on (docs/conventions.md): glm 0.9.9 stores a
// quaternion as x, y, z, w and a Transform as 10 tightly packed floats. A glm upgrade or a
// GLM_FORCE_QUAT_DATA_WXYZ elsewhere in the build would break those views silently; here it
// breaks the build instead.
#include <cstddef>

#include "hairswing/rig.h"

namespace hairswing {

static_assert(sizeof(glm::quat) == 4 * sizeof(float));
static_assert(offsetof(glm::quat, x) == 0 && offsetof(glm::quat, y) == 4 &&
                  offsetof(glm::quat, z) == 8 && offsetof(glm::quat, w) == 12,
              "glm::quat must be stored x, y, z, w");
static_assert(sizeof(Transform) == 10 * sizeof(float));
static_assert(offsetof(Transform, translation) == 0 && offsetof(Transform, rotation) == 12 &&
              offsetof(Transform, scale) == 28);

}  // namespace hairswing
