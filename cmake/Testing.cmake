# rocecert_add_test(NAME SOURCES a.cpp b.cpp LIBS lib1 lib2 [LABELS l1])
# One GoogleTest executable, registered with CTest test by test (gtest_discover_tests), so a
# failure names the exact case. Test data is found through ROCECERT_SOURCE_DIR.
include(GoogleTest)

# Build time: GoogleTest and nlohmann/json are most of what each test source costs to compile.
# They are parsed once, into a precompiled header that every test executable reuses
# (REUSE_FROM needs the same compiler flags: this donor is an executable like the tests, since
# GCC refuses a -fPIC header in a -fPIE compile).
if(rocecert_pch)
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/rocecert_test_pch.cpp
       CONTENT "int main() { return 0; }\n")
  add_executable(rocecert_test_pch ${PROJECT_BINARY_DIR}/rocecert_test_pch.cpp)
  rocecert_warnings(rocecert_test_pch)
  target_link_libraries(rocecert_test_pch PRIVATE nlohmann_json::nlohmann_json GTest::gtest
                        GTest::gmock)
  target_compile_definitions(rocecert_test_pch PRIVATE
    ROCECERT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    ROCECERT_BINARY_DIR="${PROJECT_BINARY_DIR}")
  target_precompile_headers(rocecert_test_pch PRIVATE
    <gtest/gtest.h> <nlohmann/json.hpp>
    <algorithm> <cstdint> <cstdio> <filesystem> <fstream> <functional> <map> <optional> <set>
    <sstream> <string> <string_view> <vector>)
endif()

function(rocecert_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  rocecert_warnings(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    ROCECERT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    ROCECERT_BINARY_DIR="${PROJECT_BINARY_DIR}")
  if(rocecert_pch)
    target_precompile_headers(${name} REUSE_FROM rocecert_test_pch)
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
