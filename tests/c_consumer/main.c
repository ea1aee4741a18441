/* Drives an avatar through the C API as an engine would, and checks what it can without C++:
 *   c_consumer AVATAR
 * 1. hs_head_turn_hash for every mode at 30/60/120 fps: one value per mode (printed as
 *    "hash arc XXXXXXXXXXXXXXXX", compared with `hairswing hash` by c_consumer_test.cmake);
 * 2. an engine loop: the head yaws, the engine computes its own world matrices, and a world fed
 *    through the engine-facing input (hs_world_step) ends bitwise where a world fed the whole
 *    pose (hs_world_step_pose) ends, rotation for rotation;
 * 3. frame-driven hs_world_advance runs two steps per 60 fps frame and keeps the roots on the head;
 * 4. errors: garbage bytes, NULL pointers, NaN transforms, bad dt give the right codes and a
 *    message, and leave nothing behind.
 * Exit 0 and "c api: ok" when all hold; otherwise a line naming the failed check, exit 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hairswing/hairswing.h"

static int failures = 0;
#define CHECK(cond, ...)                                       \
  do {                                                         \
    if (!(cond)) {                                             \
      fprintf(stderr, "FAILED %s: ", #cond);                   \
      fprintf(stderr, __VA_ARGS__);                            \
      fprintf(stderr, " (last error: %s)\n", hs_last_error()); \
      ++failures;                                              \
    }                                                          \
  } while (0)

static const char* kModes[] = {"arc", "parent", "vrm"};

/* The engine's own scene graph: world matrices of the pose with the spring joints at rest. */
static void driver_matrices(const hs_avatar* av, const hs_world* w, const float* pose,
                            const float* rest, float* scratch_pose, float* world, float* drivers) {
  const size_t n = hs_avatar_node_count(av);
  memcpy(scratch_pose, pose, n * 10 * sizeof(float));
  for (size_t j = 0; j < hs_world_joint_count(w); ++j) {
    const int32_t node = hs_world_joint_nodes(w)[j];
    memcpy(scratch_pose + 10 * node + 3, rest + 10 * node + 3, 4 * sizeof(float));
  }
  hs_avatar_world_from_pose(av, scratch_pose, world, n);
  for (size_t d = 0; d < hs_world_driver_count(w); ++d)
    memcpy(drivers + 16 * d, world + 16 * hs_world_driver_nodes(w)[d], 16 * sizeof(float));
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_consumer AVATAR\n");
    return 2;
  }
  hs_avatar* av = NULL;
  if (hs_avatar_load_file(argv[1], &av) != HS_OK) {
    fprintf(stderr, "load failed: %s\n", hs_last_error());
    return 1;
  }
  printf("version %s, %zu nodes\n", hs_version(), hs_avatar_node_count(av));

  /* 1. The fingerprint, the same at every frame rate. */
  for (int m = 0; m < 3; ++m) {
    uint64_t h[3];
    const int fps[3] = {30, 60, 120};
    for (int i = 0; i < 3; ++i)
      CHECK(hs_head_turn_hash(av, (hs_mode)m, fps[i], &h[i]) == HS_OK, "hash %s", kModes[m]);
    CHECK(h[0] == h[1] && h[1] == h[2], "%s: hash depends on the frame rate", kModes[m]);
    printf("hash %s %016llx\n", kModes[m], (unsigned long long)h[1]);
  }

  /* 2. Engine-facing input against the whole pose, step by step. */
  const size_t n = hs_avatar_node_count(av);
  const int32_t head = hs_avatar_humanoid_node(av, "head");
  CHECK(head >= 0, "no head");
  float* rest = malloc(n * 10 * sizeof(float));
  float* pose = malloc(n * 10 * sizeof(float));
  float* pose_out = malloc(n * 10 * sizeof(float));
  float* scratch = malloc(n * 10 * sizeof(float));
  float* world = malloc(n * 16 * sizeof(float));
  CHECK(hs_avatar_rest_pose(av, rest, n) == HS_OK, "rest pose");
  for (int m = 0; m < 3 && head >= 0; ++m) {
    hs_config cfg;
    hs_config_default(&cfg);
    cfg.mode = (hs_mode)m;
    hs_world *a = NULL, *b = NULL;
    CHECK(hs_world_create(av, &cfg, &a) == HS_OK && hs_world_create(av, &cfg, &b) == HS_OK,
          "create %s", kModes[m]);
    if (!a || !b) break;
    const size_t nd = hs_world_driver_count(b), nj = hs_world_joint_count(b);
    CHECK(nd > 0 && nd < n, "driver count %zu of %zu nodes", nd, n);
    float* drivers = malloc((nd ? nd : 1) * 16 * sizeof(float));
    float* rot = malloc((nj ? nj : 1) * 4 * sizeof(float));
    memcpy(pose, rest, n * 10 * sizeof(float));
    driver_matrices(av, b, pose, rest, scratch, world, drivers);
    CHECK(hs_world_reset_pose(a, pose) == HS_OK && hs_world_reset(b, drivers) == HS_OK, "reset");
    CHECK(hs_world_state_hash(a) == hs_world_state_hash(b), "%s: reset states differ", kModes[m]);
    int mismatched = 0, contacts = 0;
    for (int s = 1; s <= 480; ++s) {
      const double yaw = 0.9 * sin(s / 120.0 * 3.0) * (s < 240 ? 1.0 : 0.0); /* turn, then stop */
      memcpy(pose, rest, n * 10 * sizeof(float));
      float* q = pose + 10 * head + 3; /* head rotation = yaw about +Y times rest */
      const float rx = q[0], ry = q[1], rz = q[2], rw = q[3];
      const float c = (float)cos(yaw / 2), sn = (float)sin(yaw / 2);
      q[0] = c * rx + sn * rz;
      q[1] = c * ry + sn * rw;
      q[2] = c * rz - sn * rx;
      q[3] = c * rw - sn * ry;
      driver_matrices(av, b, pose, rest, scratch, world, drivers);
      memcpy(pose_out, pose, n * 10 * sizeof(float));
      hs_step_report ra, rb;
      CHECK(hs_world_step_pose(a, pose_out, &ra) == HS_OK, "step_pose");
      CHECK(hs_world_step(b, drivers, rot, &rb) == HS_OK, "step");
      contacts += ra.contacts;
      if (hs_world_state_hash(a) != hs_world_state_hash(b) || ra.flags != rb.flags) ++mismatched;
      for (size_t j = 0; j < nj; ++j)
        if (memcmp(pose_out + 10 * hs_world_joint_nodes(b)[j] + 3, rot + 4 * j, 4 * sizeof(float)))
          ++mismatched;
    }
    CHECK(mismatched == 0, "%s: %d mismatches between driven and whole-pose steps", kModes[m],
          mismatched);
    printf("engine input %s: 480 steps bitwise equal, %d contacts\n", kModes[m], contacts);

    /* 3. Frame-driven: two steps per 60 fps frame; the first joint stays on the head. */
    hs_step_report r;
    memset(&r, 0, sizeof r);
    CHECK(hs_world_advance(b, drivers, 1.0 / 60.0, rot, &r) == HS_OK, "advance");
    CHECK(r.steps_run == 2, "%d steps in a 60 fps frame", r.steps_run);
    float* tails = malloc(nj * 3 * sizeof(float));
    CHECK(hs_world_tails(b, tails, nj) == HS_OK, "tails");
    for (size_t j = 0; j < nj * 3; ++j) CHECK(isfinite(tails[j]), "tail %zu not finite", j / 3);
    CHECK(hs_world_tails(b, tails, nj + 1) == HS_INVALID_ARGUMENT, "wrong count accepted");
    free(tails);

    /* 4a. NaN driver: refused, state unchanged. */
    const uint64_t before = hs_world_state_hash(b);
    drivers[12] = NAN;
    CHECK(hs_world_step(b, drivers, rot, &r) == HS_OK, "NaN step call");
    CHECK((r.flags & HS_STEP_REFUSED_NON_FINITE) && hs_world_state_hash(b) == before,
          "NaN driver not refused");
    CHECK(hs_world_advance(b, drivers, -1.0, rot, &r) == HS_INVALID_ARGUMENT, "negative dt");
    CHECK(strstr(hs_last_error(), "dt") != NULL, "dt message: %s", hs_last_error());
    CHECK(hs_world_set_mode(b, (hs_mode)7) == HS_INVALID_ARGUMENT, "bad mode accepted");
    CHECK(hs_world_set_mode(b, (hs_mode)-1) == HS_INVALID_ARGUMENT, "mode -1 accepted");
    /* 4c. three-vrm's variable step exists in vrm mode only. */
    drivers[12] = 0.0f;
    const hs_status sv = hs_world_step_variable(b, drivers, 1.0 / 60.0, rot, &r);
    CHECK(m == HS_MODE_VRM ? sv == HS_OK && r.steps_run == 1 : sv == HS_INVALID_ARGUMENT,
          "%s: step_variable status %d", kModes[m], (int)sv);
    CHECK(hs_world_set_mode(b, HS_MODE_VRM) == HS_OK, "set mode");
    CHECK(hs_world_step_variable(b, drivers, 0.0, rot, &r) == HS_INVALID_ARGUMENT, "dt 0");
    /* Every joint is a file node or an added end node (-1); out of range gives -2. */
    for (size_t j = 0; j < nj; ++j) {
      const int32_t f = hs_avatar_file_node(av, hs_world_joint_nodes(b)[j]);
      CHECK(f >= -1 && f < (int32_t)n, "joint %zu: file node %d", j, (int)f);
    }
    CHECK(hs_avatar_file_node(av, (int32_t)n) == -2, "out-of-range node");
    /* Colliders: each on a node of the avatar, with a shape the header names. */
    const size_t nc = hs_avatar_collider_count(av);
    CHECK(nc > 0, "the ponytail demo has colliders");
    for (size_t i = 0; i < nc; ++i) {
      hs_collider c;
      CHECK(hs_avatar_collider(av, i, &c) == HS_OK, "collider %zu", i);
      CHECK(c.node >= 0 && c.node < (int32_t)n && c.shape <= HS_SHAPE_PLANE, "collider %zu", i);
    }
    hs_collider none;
    CHECK(hs_avatar_collider(av, nc, &none) == HS_INVALID_ARGUMENT, "collider out of range");
    free(drivers);
    free(rot);
    hs_world_destroy(a);
    hs_world_destroy(b);
  }

  /* 4b. Bad input and NULL pointers. */
  const uint8_t junk[] = "glTF this is not a model at all";
  hs_avatar* bad = (hs_avatar*)&junk; /* must be overwritten with NULL */
  CHECK(hs_avatar_load_memory(junk, sizeof junk, "junk.glb", &bad) == HS_INVALID_INPUT,
        "junk loaded");
  CHECK(bad == NULL, "handle left behind");
  CHECK(strstr(hs_last_error(), "junk.glb") != NULL, "message does not name the file: %s",
        hs_last_error());
  CHECK(hs_avatar_load_file("/nonexistent/x.vrm", &bad) == HS_IO_ERROR, "missing file");
  CHECK(strstr(hs_last_error(), "/nonexistent/x.vrm") != NULL, "message: %s", hs_last_error());
  CHECK(hs_avatar_load_file(NULL, &bad) == HS_INVALID_ARGUMENT, "NULL path");
  CHECK(hs_world_create(NULL, NULL, NULL) == HS_INVALID_ARGUMENT, "NULL world args");
  CHECK(hs_world_step(NULL, NULL, NULL, NULL) == HS_INVALID_ARGUMENT, "NULL step");
  CHECK(hs_avatar_rest_pose(av, rest, n + 1) == HS_INVALID_ARGUMENT, "wrong count accepted");
  uint64_t h;
  /* A value out of range is a bad argument (not bad input: the avatar is fine). */
  CHECK(hs_head_turn_hash(av, HS_MODE_ARC, 5, &h) == HS_INVALID_ARGUMENT, "fps 5 accepted");
  CHECK(hs_head_turn_hash(av, HS_MODE_ARC, 1001, &h) == HS_INVALID_ARGUMENT, "fps 1001 accepted");
  CHECK(hs_head_turn_hash(av, (hs_mode)-1, 60, &h) == HS_INVALID_ARGUMENT, "mode -1 accepted");
  CHECK(hs_head_turn_hash(av, (hs_mode)INT32_MIN, 60, &h) == HS_INVALID_ARGUMENT, "mode INT_MIN");
  hs_world_destroy(NULL);
  hs_avatar_destroy(NULL);

  free(rest);
  free(pose);
  free(pose_out);
  free(scratch);
  free(world);
  hs_avatar_destroy(av);
  if (failures) {
    fprintf(stderr, "c api: %d check(s) failed\n", failures);
    return 1;
  }
  printf("c api: ok\n");
  return 0;
}
