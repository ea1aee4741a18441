/* hairswing's C API: load an avatar, build its spring world, step it from an engine's transforms.
 *
 * For engines and bindings that speak C (Godot GDExtension, Unity/Unreal plugins, WebAssembly).
 * Opaque handles, integer status codes, and a message naming the file and field of the last
 * failure (hs_last_error). No C++ exception or type crosses this header; every function checks
 * its pointers. Link hairswing::c (the shared library libhairswing_c); it needs nothing else.
 *
 * Units: metres, seconds, radians. Matrices are 16 floats, column-major (glTF, three.js, glm).
 * Quaternions are x, y, z, w. A local transform is 10 floats: translation xyz, rotation xyzw,
 * scale xyz. Node indices are rig nodes: the file's nodes ordered parents before children, plus
 * one added end node per spring with a virtual tail; hs_avatar_file_node maps them to the file.
 *
 * Typical engine loop (the engine-facing input: only the nodes the solver reads):
 *   hs_avatar_load_file("a.vrm", &av);  hs_world_create(av, NULL, &w);
 *   n = hs_world_driver_count(w);  nodes = hs_world_driver_nodes(w);
 *   fill drivers[16*i] with the engine's world matrix of nodes[i];  hs_world_reset(w, drivers);
 *   each frame: fill drivers; hs_world_advance(w, drivers, dt, rotations, NULL);
 *               write rotations[4*j] into the bone hs_world_joint_nodes(w)[j].
 */
#ifndef HAIRSWING_H_
#define HAIRSWING_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define HS_API __declspec(dllexport)
#else
#define HS_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hs_status {
  HS_OK = 0,
  HS_INVALID_INPUT = 1,    /* the file or data is not a usable avatar (message names the field) */
  HS_INVALID_ARGUMENT = 2, /* a NULL pointer, a size or value out of range, a wrong mode */
  HS_OUT_OF_MEMORY = 3,
  HS_INTERNAL = 4,    /* a bug: please report the message */
  HS_UNSUPPORTED = 5, /* well-formed but uses something hairswing does not handle */
  HS_IO_ERROR = 6,    /* the file system refused (missing file, permission) */
  HS_STATUS_MAX_ENUM = 0x7FFFFFFF
} hs_status;

/* HS_MODE_MIN_ENUM and HS_MODE_MAX_ENUM (like Vulkan's *_MAX_ENUM) make every int32, negative
 * ones included, a valid hs_mode value in C++ too, so a wrong number passed from C (say -1) is
 * refused with HS_INVALID_ARGUMENT rather than undefined. */
typedef enum hs_mode {
  HS_MODE_MIN_ENUM = -0x7FFFFFFF - 1,
  HS_MODE_ARC = 0,
  HS_MODE_PARENT = 1,
  HS_MODE_VRM = 2,
  HS_MODE_MAX_ENUM = 0x7FFFFFFF
} hs_mode;

typedef enum hs_collider_shape {
  HS_SHAPE_SPHERE = 0,
  HS_SHAPE_CAPSULE = 1,
  HS_SHAPE_INSIDE_SPHERE = 2, /* VRMC_springBone_extended_collider: keeps joints inside */
  HS_SHAPE_INSIDE_CAPSULE = 3,
  HS_SHAPE_PLANE = 4,
  HS_SHAPE_MAX_ENUM = 0x7FFFFFFF
} hs_collider_shape;

/* A collider as the solver uses it, in its node's local frame (hairswing's axes, see
 * hs_avatar_axes_flipped). radius is in the node's units; unused for planes. */
typedef struct hs_collider {
  int32_t node; /* rig node */
  hs_collider_shape shape;
  float offset[3]; /* sphere centre, capsule head, a point on the plane */
  float tail[3];   /* capsule tail */
  float normal[3]; /* plane normal */
  float radius;
} hs_collider;

/* Step report flags (what happened during the frame or step; bits accumulate). */
enum {
  HS_STEP_REFUSED_NON_FINITE = 1 << 0, /* NaN/inf in the input: nothing changed */
  HS_STEP_TELEPORT_RESET = 1 << 1,     /* a chain's attachment jumped; it was reset */
  HS_STEP_ZERO_LENGTH = 1 << 2,
  HS_STEP_ZERO_DT = 1 << 3,
  HS_STEP_STEPS_DROPPED = 1 << 4, /* the frame was longer than max steps x 1/120 s */
  HS_STEP_CONTACT = 1 << 5,
  HS_STEP_REPAIRED = 1 << 6,
  HS_STEP_LAG_GUARD = 1 << 7 /* arc: a segment was held by the lag guard */
};

typedef struct hs_step_report {
  uint32_t flags;
  int32_t steps_run;
  int32_t steps_dropped;
  int32_t teleports;
  int32_t contacts;
} hs_step_report;

/* Start from hs_config_default (a macro: hs_config_init with the caller's sizeof(hs_config)),
 * which sets every field, struct_size included, then change what you need. struct_size is the
 * size of hs_config as the caller was compiled: hs_world_create refuses 0 (a config that skipped
 * hs_config_default) and any size it does not know, so a caller built against another version of
 * this header gets an error instead of fields read from the wrong place. A later version that
 * adds fields at the end will accept this version's size and give the fields it lacks their
 * defaults; its hs_config_init writes no more than the size it is given. */
typedef struct hs_config {
  uint32_t struct_size; /* sizeof(hs_config), set by hs_config_default */
  hs_mode mode;         /* default HS_MODE_ARC */
  int32_t tuned;        /* arc/parent: 1 = tuned damping (default), 0 = plain VRM mapping */
  /* arc: 0..1 of the author's swing kept as a rigid swing; default 0, the article's setting (the
   * author's drag per segment); 1 = the "lively" setting, swinging about as far as VRM */
  float arc_liveliness;
  float stiffness_scale; /* multiplies every joint's stiffness, default 1 */
  /* vrm: 1 = reproduce three-vrm 3.5.5 exactly, including its bone length measured at the start
   * of the frame; 0 (default) = the spec's true world-space bone length. */
  int32_t vrm_three_compat;
  float teleport_distance; /* metres an attachment may jump in one step before a reset (0.5) */
  float teleport_angle;    /* radians an attachment may turn in one step before a reset (1.5) */
  /* arc: stiffness x this on top of stiffness_scale; default 1.6, the article's firmer tuning;
   * 1 = the author's stiffness (the "lively" setting) */
  float arc_stiffness;
  /* arc: 0..1, how far the segments below a chain's first turn with its swing (the liveliness then
   * goes mostly to the first segment); default 0 = the original arc; 0.7 in the "follow" setting
   * (lively's swing with a third to two thirds of its curl) */
  float arc_follow;
} hs_config;

typedef struct hs_avatar hs_avatar;
typedef struct hs_world hs_world;

/* The message of the last failed call on this thread ("" when it succeeded). Valid until the
 * next call on this thread. */
HS_API const char* hs_last_error(void);
/* "0.1.0" */
HS_API const char* hs_version(void);

/* Loads a .vrm/.glb (bytes) or .vrm/.glb/.gltf (file; external buffers beside it). `name` is used
 * in messages. On failure *out is NULL. The bytes variant reads no file, ever: buffers and images
 * the bytes name by URI count as missing (only the GLB chunk and data: URIs are used); to load a
 * .gltf with files beside it, use hs_avatar_load_file. */
HS_API hs_status hs_avatar_load_memory(const uint8_t* bytes, size_t size, const char* name,
                                       hs_avatar** out);
HS_API hs_status hs_avatar_load_file(const char* path, hs_avatar** out);
HS_API void hs_avatar_destroy(hs_avatar* avatar); /* NULL is fine */
HS_API size_t hs_avatar_node_count(const hs_avatar* avatar);
/* The file's node index (glTF "nodes" array) of a rig node; -1 for an end node hairswing added
 * (a VRM 0.x spring's virtual tail), -2 for an index out of range. */
HS_API int32_t hs_avatar_file_node(const hs_avatar* avatar, int32_t node);
/* 1 when the file is VRM 0.x: hairswing turned it 180 degrees about Y on import, so a caller's
 * world matrix M of a node enters as M * diag(-1, 1, -1, 1), and a local rotation (x, y, z, w)
 * that hairswing writes is (-x, y, -z, w) in the file's axes. 0 otherwise. */
HS_API int32_t hs_avatar_axes_flipped(const hs_avatar* avatar);
/* Rig node of a humanoid bone ("head", "hips", VRM 1.0 names), or -1. */
HS_API int32_t hs_avatar_humanoid_node(const hs_avatar* avatar, const char* bone);
/* Rig parent of a node (-1 for a root), or -2 for an index out of range. */
HS_API int32_t hs_avatar_node_parent(const hs_avatar* avatar, int32_t node);
/* The rest pose: 10 floats per rig node (see the top of this file). */
HS_API hs_status hs_avatar_rest_pose(const hs_avatar* avatar, float* pose10, size_t count);
/* World matrices of a local pose (10 floats per node in, 16 per node out), as an engine's own
 * scene graph computes them. */
HS_API hs_status hs_avatar_world_from_pose(const hs_avatar* avatar, const float* pose10,
                                           float* world16, size_t count);
/* The colliders of the avatar's springs (for overlays and engines that draw or reuse them). */
HS_API size_t hs_avatar_collider_count(const hs_avatar* avatar);
HS_API hs_status hs_avatar_collider(const hs_avatar* avatar, size_t index, hs_collider* out);
/* The collider groups as the file has them (VRM 0.x: one per secondaryAnimation collider group). */
HS_API size_t hs_avatar_collider_group_count(const hs_avatar* avatar);
/* A group's name (UTF-8, "" when unnamed; valid while the avatar lives), NULL when out of range. */
HS_API const char* hs_avatar_collider_group_name(const hs_avatar* avatar, size_t group);
/* A group's colliders (indices for hs_avatar_collider): the first `capacity` into out (NULL is
 * fine with capacity 0), how many there are into *count. */
HS_API hs_status hs_avatar_collider_group(const hs_avatar* avatar, size_t group, int32_t* out,
                                          size_t capacity, size_t* count);
/* State hash after the 12 s standard head-turn, clip-driven at fps frames per second (10..1000):
 * what `hairswing hash` prints. */
HS_API hs_status hs_head_turn_hash(const hs_avatar* avatar, hs_mode mode, int32_t fps,
                                   uint64_t* out);

/* Fills the first `size` bytes of *config with the defaults (this version's fields that fit) and
 * sets struct_size to `size`; writes nothing when `size` cannot hold struct_size. Bindings in
 * other languages call it with their struct's size; C and C++ use the macro below. */
HS_API void hs_config_init(hs_config* config, size_t size);
#define hs_config_default(config) hs_config_init((config), sizeof(hs_config))
/* Sets arc's named setting in *config (arc_liveliness, arc_stiffness, arc_follow; the other fields
 * are left alone): "article" (the defaults: the article's improved solver, calm and least
 * stretch), "lively" (swings about as far as the VRM reference, as a rigid swing) or "follow"
 * (lively's swing from the chain's root, the segments below turning with it: a third to two
 * thirds of the curl). Another name: HS_INVALID_ARGUMENT and *config unchanged. */
HS_API hs_status hs_config_arc_setting(hs_config* config, const char* name);
/* A spring world for the avatar (which must outlive it); config NULL = defaults. */
HS_API hs_status hs_world_create(const hs_avatar* avatar, const hs_config* config, hs_world** out);
HS_API void hs_world_destroy(hs_world* world); /* NULL is fine */
/* Switches the mode at run time, carrying positions and velocities over. */
HS_API hs_status hs_world_set_mode(hs_world* world, hs_mode mode);

/* The engine-facing input: the rig nodes whose world matrices the world reads, and the spring
 * joints (rig nodes) whose local rotations it writes, in the order of the arrays below. */
HS_API size_t hs_world_driver_count(const hs_world* world);
HS_API const int32_t* hs_world_driver_nodes(const hs_world* world);
HS_API size_t hs_world_joint_count(const hs_world* world);
HS_API const int32_t* hs_world_joint_nodes(const hs_world* world);

/* One spring joint's VRM parameters, as VRMC_springBone holds them (three-vrm's joint settings):
 * 7 floats, no padding. gravity_dir is a world direction (normalised when set). */
typedef struct hs_joint_settings {
  float stiffness;      /* >= 0 */
  float drag_force;     /* [0, 1] */
  float gravity_power;  /* >= 0 */
  float gravity_dir[3]; /* not zero */
  float hit_radius;     /* >= 0, in the joint node's units */
} hs_joint_settings;

/* Joints [first, first + count) in the order of hs_world_joint_nodes: their settings now. */
HS_API hs_status hs_world_joint_settings(const hs_world* world, size_t first, size_t count,
                                         hs_joint_settings* out);
/* Changes those joints' settings from the next step on (positions and velocities carry over;
 * entries equal to the current settings cost nothing). All or nothing: a value out of range is
 * HS_INVALID_ARGUMENT naming the joint and field, and no joint changes. Not meant for every
 * frame: each changed joint recomputes its chain's coefficients (microseconds). */
HS_API hs_status hs_world_set_joint_settings(hs_world* world, size_t first, size_t count,
                                             const hs_joint_settings* settings);

/* The collider groups a joint collides with (its spring's; indices for hs_avatar_collider_group),
 * filled as hs_avatar_collider_group fills colliders. */
HS_API hs_status hs_world_joint_collider_groups(const hs_world* world, size_t joint, int32_t* out,
                                                size_t capacity, size_t* count);

/* A joint's angle limit (VRMC_springBone_limit), as the solver applies it: kind 0 none, 1 cone
 * (angle), 2 hinge (angle), 3 spherical (angle = pitch, yaw); rotation (x y z w) turns the
 * limit's frame from the default one. 28 bytes, no padding. Read-only here: `hairswing tune
 * --limit` writes limits into the file. */
typedef struct hs_joint_limit {
  int32_t kind;
  float angle;       /* radians */
  float yaw;         /* radians, spherical only */
  float rotation[4]; /* unit quaternion x y z w */
} hs_joint_limit;
HS_API hs_status hs_world_joint_limit(const hs_world* world, size_t joint, hs_joint_limit* out);

/* Puts the hair at rest under these driver world matrices (16 floats per driver). */
HS_API hs_status hs_world_reset(hs_world* world, const float* drivers16);
/* One caller frame of dt seconds: the fixed 1/120 s steps it covers run with the drivers
 * interpolated between the previous frame and this one. rotations4 (4 floats per joint, x y z w)
 * receives the joints' local rotations; report may be NULL. */
HS_API hs_status hs_world_advance(hs_world* world, const float* drivers16, double dt,
                                  float* rotations4, hs_step_report* report);
/* vrm mode only: one step of dt seconds (0 < dt <= 1) at these driver matrices, as three-vrm's
 * update(delta) does once per frame. Other modes: HS_INVALID_ARGUMENT (they run fixed steps). */
HS_API hs_status hs_world_step_variable(hs_world* world, const float* drivers16, double dt,
                                        float* rotations4, hs_step_report* report);
/* One fixed 1/120 s step at exactly these driver matrices (no interpolation). */
HS_API hs_status hs_world_step(hs_world* world, const float* drivers16, float* rotations4,
                               hs_step_report* report);

/* The whole-pose convenience: the full local pose (10 floats per rig node) in; the spring joints'
 * rotations written back into it. */
HS_API hs_status hs_world_reset_pose(hs_world* world, const float* pose10);
HS_API hs_status hs_world_step_pose(hs_world* world, float* pose10, hs_step_report* report);

/* World position of each joint's segment end (3 floats per joint), after the last step. */
HS_API hs_status hs_world_tails(const hs_world* world, float* xyz, size_t joint_count);
/* FNV-1a hash of positions and velocities (bitwise determinism checks). */
HS_API uint64_t hs_world_state_hash(const hs_world* world);

/* Fixed layouts. hs_collider, hs_step_report, hs_joint_settings and hs_joint_limit are filled by
 * the library into the caller's memory (or, for hs_joint_settings, read from it) with no size
 * passed, so they never change: no field is added, removed or moved in any later version. A
 * version that needs more adds a new struct and new functions beside these, which keep working.
 * (hs_config, which does grow, carries its size in struct_size.) A compiler that lays them out
 * otherwise stops here instead of exchanging garbage with the library. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define HS_LAYOUT(cond, s) static_assert(cond, "hairswing.h: unexpected layout of " #s)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define HS_LAYOUT(cond, s) _Static_assert(cond, "hairswing.h: unexpected layout of " #s)
#else /* C89/C99: an array of negative size when the layout differs */
#define HS_LAYOUT(cond, s) typedef char hs_layout_of_##s[(cond) ? 1 : -1]
#endif
HS_LAYOUT(sizeof(hs_collider) == 48 && offsetof(hs_collider, shape) == 4 &&
              offsetof(hs_collider, offset) == 8 && offsetof(hs_collider, tail) == 20 &&
              offsetof(hs_collider, normal) == 32 && offsetof(hs_collider, radius) == 44,
          hs_collider);
HS_LAYOUT(sizeof(hs_step_report) == 20 && offsetof(hs_step_report, steps_run) == 4 &&
              offsetof(hs_step_report, contacts) == 16,
          hs_step_report);
HS_LAYOUT(sizeof(hs_joint_settings) == 28 && offsetof(hs_joint_settings, gravity_dir) == 12 &&
              offsetof(hs_joint_settings, hit_radius) == 24,
          hs_joint_settings);
HS_LAYOUT(sizeof(hs_joint_limit) == 28 && offsetof(hs_joint_limit, angle) == 4 &&
              offsetof(hs_joint_limit, rotation) == 12,
          hs_joint_limit);
#undef HS_LAYOUT

#ifdef __cplusplus
}
#endif

#endif /* HAIRSWING_H_ */
