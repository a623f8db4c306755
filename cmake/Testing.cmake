# rocecert_add_test(NAME SOURCES a.cpp b.cpp LIBS lib1 lib2 [LABELS l1])
# One GoogleTest executable, registered with CTest test by test (gtest_discover_tests), so a
# failure names the exact case. Test data is found through ROCECERT_SOURCE_DIR.
include(GoogleTest)
function(rocecert_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  rocecert_warnings(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    ROCECERT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    ROCECERT_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
