# Generates a header with every DIR/*.json as a C++ raw string, sorted by file name:
#   humanoid_maps_data.h (data/humanoid_maps: kHumanoidMaps of EmbeddedMap, the default) and
#   tune_presets_data.h (data/presets: -DARRAY=kTunePresets -DSTRUCT=EmbeddedPreset).
if(NOT DEFINED ARRAY)
  set(ARRAY kHumanoidMaps)
  set(STRUCT EmbeddedMap)
endif()
file(GLOB files ${DIR}/*.json)
list(SORT files)
get_filename_component(dirname ${DIR} NAME)
file(WRITE ${OUT} "// Generated from data/${dirname} by cmake/embed_maps.cmake. Do not edit.\n#pragma once\n")
file(APPEND ${OUT} "struct ${STRUCT} { const char* name; const char* json; };\nstatic const ${STRUCT} ${ARRAY}[] = {\n")
foreach(f ${files})
  get_filename_component(name ${f} NAME_WE)
  file(READ ${f} text)
  file(APPEND ${OUT} "  {\"${name}\", R\"HSMAP(${text})HSMAP\"},\n")
endforeach()
file(APPEND ${OUT} "};\n")
