// The one translation unit that compiles tinygltf (Debian's libtinygltf-dev header). We build it
// into our static library rather than linking Debian's libtinygltf.so so that sanitizer and
// libFuzzer builds instrument the parser too. Pixel decoding (stb_image) is off: images are kept
// as encoded bytes through our own LoadImageData callback.
#define TINYGLTF_IMPLEMENTATION
#include <tiny_gltf.h>
