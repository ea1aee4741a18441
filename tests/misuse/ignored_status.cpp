// Must NOT compile with -Werror=unused-result: Status and Result are [[nodiscard]], so a caller
// cannot drop an error on the floor by accident (tests/CMakeLists.txt, api.nodiscard).
#include "hairswing/io.h"
#include "hairswing/rig.h"

void Misuse(const hairswing::Avatar& avatar) {
  hairswing::SaveAvatar(avatar, "out.glb");  // Status ignored
  hairswing::BuildRig(avatar);               // Result<Rig> ignored
}
