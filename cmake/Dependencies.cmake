# Every dependency is a Debian 12 package (scripts/install-deps.sh installs them).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBPCAP REQUIRED IMPORTED_TARGET libpcap)
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
if(NOT ROCECERT_FUZZ)
  find_package(CLI11 2.1 REQUIRED)
  find_package(GTest REQUIRED)
  # No Z3 yet: nothing links it. The proofs (proofs/, planned) will add it when they do.
  if(ROCECERT_BENCH AND NOT ROCECERT_SANITIZE)
    find_package(benchmark REQUIRED)
  endif()
endif()
