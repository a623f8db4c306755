# The project's warning set, applied to every target of the project (not to dependencies).
function(rocecert_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wswitch-enum
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wdouble-promotion)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wduplicated-cond -Wlogical-op)
  endif()
  if(DEFINED ENV{ROCECERT_WERROR} OR ROCECERT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
