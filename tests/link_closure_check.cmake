# Fails when the solver's modules (core, rig, collide, spring) link anything but each other and
# glm. LIBS: their LINK_LIBRARIES, ;-separated.
set(_allowed hairswing_core hairswing_rig hairswing_collide hairswing_spring glm::glm)
foreach(_lib IN LISTS LIBS)
  if(_lib STREQUAL "")
    continue()
  endif()
  list(FIND _allowed "${_lib}" _i)
  if(_i LESS 0)
    message(FATAL_ERROR "the solver modules link ${_lib}: spring must build without io, Embree or TBB")
  endif()
endforeach()
message(STATUS "solver link closure: ${LIBS}")
