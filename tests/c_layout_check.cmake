# hairswing.h's fixed layouts (hs_collider, hs_step_report, hs_joint_settings, hs_joint_limit):
# the header compiles as C89, C11 and C++11 as it is, and a copy of it with a field added to one
# of those structs stops compiling in each of them, naming the struct. That is what keeps a
# later edit of the header from changing memory the library fills without a size.
set(work ${CMAKE_CURRENT_BINARY_DIR}/c_layout_work)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work}/ok/hairswing ${work}/grown/hairswing)
file(READ ${INCLUDE}/hairswing/hairswing.h header)
file(WRITE ${work}/ok/hairswing/hairswing.h "${header}")
string(REPLACE "  float yaw;         /* radians, spherical only */"
               "  float yaw;         /* radians, spherical only */\n  float added;" grown "${header}")
if(grown STREQUAL header)
  message(FATAL_ERROR "hs_joint_limit's yaw field not found: update c_layout_check.cmake")
endif()
file(WRITE ${work}/grown/hairswing/hairswing.h "${grown}")
file(WRITE ${work}/use.c "#include \"hairswing/hairswing.h\"\nint main(void) { return 0; }\n")
file(WRITE ${work}/use.cpp "#include \"hairswing/hairswing.h\"\nint main() { return 0; }\n")
foreach(lang c89 c11 c++11)
  if(lang STREQUAL "c++11")
    set(compiler ${CXX})
    set(src ${work}/use.cpp)
  else()
    set(compiler ${CC})
    set(src ${work}/use.c)
  endif()
  execute_process(COMMAND ${compiler} -std=${lang} -pedantic-errors -fsyntax-only -I${work}/ok ${src}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "hairswing.h does not compile as ${lang}:\n${err}")
  endif()
  execute_process(COMMAND ${compiler} -std=${lang} -fsyntax-only -I${work}/grown ${src}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "a field added to hs_joint_limit compiled as ${lang}: the layout check is missing")
  endif()
  string(FIND "${err}" "unexpected layout of hs_joint_limit" at)
  string(FIND "${err}" "hs_layout_of_hs_joint_limit" at89)  # C89: the negative-size array
  if(at EQUAL -1 AND at89 EQUAL -1)
    message(FATAL_ERROR "${lang}: the grown header failed for another reason:\n${err}")
  endif()
endforeach()
message(STATUS "hairswing.h compiles as C89, C11 and C++11; a grown hs_joint_limit is refused in each")
