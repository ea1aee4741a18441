// Loads a file and builds its rig through the installed headers and library.
#include <hairswing/io.h>
#include <hairswing/rig.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  auto loaded = hairswing::LoadAvatar(argv[1]);
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s\n", loaded.status().message().c_str());
    return 1;
  }
  auto rig = hairswing::BuildRig(loaded->avatar);
  if (!rig.ok()) return 1;
  std::printf("nodes %zu chains %zu\n", rig->node_count(), rig->chains().size());
  return rig->chains().size() == 1 ? 0 : 1;
}
