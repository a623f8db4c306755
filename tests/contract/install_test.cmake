# The `install` test (cmake -P): installs this build into a fresh prefix, checks that nothing in
# the installed package points back into the source or build tree, then configures, builds and
# runs tests/install_consumer against it with the build's compiler and generator.
# Inputs (-D): SOURCE_DIR BUILD_DIR WORK_DIR GENERATOR MAKE_PROGRAM CXX_COMPILER CXX_LAUNCHER
# CXX_FLAGS.
cmake_minimum_required(VERSION 3.25)

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${step} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK_DIR}/prefix")
set(consumer "${WORK_DIR}/consumer")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

run("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")

file(GLOB_RECURSE package_files "${prefix}/*.cmake")
list(FILTER package_files INCLUDE REGEX "/cmake/rocecert/[^/]*\\.cmake$")
list(LENGTH package_files count)
if(count LESS 3)
  message(FATAL_ERROR "install test: no rocecert CMake package under ${prefix}")
endif()
foreach(f IN LISTS package_files)
  file(READ "${f}" text)
  foreach(tree "${SOURCE_DIR}" "${BUILD_DIR}")
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "install test: ${f} refers to ${tree}")
    endif()
  endforeach()
endforeach()

set(configure_args
  -S "${SOURCE_DIR}/tests/install_consumer" -B "${consumer}" -G "${GENERATOR}"
  "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_BUILD_TYPE=Release" "-DCMAKE_PREFIX_PATH=${prefix}"
  "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF")
if(CXX_LAUNCHER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER}")
endif()
if(CXX_FLAGS)
  # A sanitizer build installs instrumented libraries: the consumer needs the same runtime.
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
       "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}")
endif()
run("configure the consumer" "${CMAKE_COMMAND}" ${configure_args})

# The package must come from the prefix, not from anywhere else on the machine.
file(STRINGS "${consumer}/CMakeCache.txt" found REGEX "^rocecert_DIR:")
string(FIND "${found}" "=${prefix}/" at)
if(at EQUAL -1)
  message(FATAL_ERROR "install test: rocecert was not found in ${prefix}: ${found}")
endif()

run("build the consumer" "${CMAKE_COMMAND}" --build "${consumer}")
run("run the consumer" "${consumer}/consumer"
    "${prefix}/share/doc/rocecert/examples/rc_basic.json" "${WORK_DIR}/frame.pcap")
message(STATUS "${last_output}")

# The installed CLI runs and decodes a real capture.
run("run the installed rocecert" "${prefix}/bin/rocecert" decode --count 1
    "${SOURCE_DIR}/vectors/real/rc_ops_mtu4096.pcap")
if(NOT last_output MATCHES "RC_SEND_ONLY")
  message(FATAL_ERROR "install test: unexpected rocecert decode output: ${last_output}")
endif()
