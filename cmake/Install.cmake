# `cmake --install`: the public headers, the static libraries, the `rocecert` CLI, the docs and
# an exported CMake package, so that another project can write
#   find_package(rocecert CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE rocecert::wire rocecert::model rocecert::conformance)
# tests/install_consumer/ is such a project; tests/contract/ installs and builds it (label
# `install`). Included last by the top-level CMakeLists.txt, once every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ROCECERT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/rocecert"
    CACHE STRING "Where rocecertConfig.cmake is installed, relative to the prefix")

# The libraries: rocecert_conformance and everything it links, directly or not, that this
# project builds. Walking the link graph (private links too: a static library's private
# dependencies are part of its exported link interface) means a library added to the model
# later is installed and exported without another line here.
function(rocecert_library_closure out)
  set(found "")
  set(queue ${ARGN})
  while(queue)
    list(POP_FRONT queue name)
    if(NOT TARGET "${name}" OR name IN_LIST found)
      continue()
    endif()
    get_target_property(imported "${name}" IMPORTED)
    get_target_property(aliased "${name}" ALIASED_TARGET)
    get_target_property(type "${name}" TYPE)
    if(imported OR aliased OR NOT type MATCHES "^(STATIC|SHARED|INTERFACE)_LIBRARY$")
      continue()
    endif()
    list(APPEND found "${name}")
    get_target_property(links "${name}" LINK_LIBRARIES)
    get_target_property(interface_links "${name}" INTERFACE_LINK_LIBRARIES)
    foreach(link IN LISTS links interface_links)
      if(link AND NOT link MATCHES "NOTFOUND$")
        list(APPEND queue "${link}")
      endif()
    endforeach()
  endwhile()
  list(SORT found)
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

rocecert_library_closure(rocecert_libraries rocecert_conformance rocecert_model rocecert_pcap
                         rocecert_wire)

# rocecert_wire is exported as rocecert::wire, rocecert_model as rocecert::model, and so on; the
# same names work inside this tree as aliases.
foreach(lib IN LISTS rocecert_libraries)
  string(REGEX REPLACE "^rocecert_" "" short "${lib}")
  set_target_properties(${lib} PROPERTIES EXPORT_NAME "${short}")
  add_library(rocecert::${short} ALIAS ${lib})
endforeach()

install(TARGETS ${rocecert_libraries}
  EXPORT rocecertTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  # The INSTALL_INTERFACE half of the include directories (the BUILD_INTERFACE half is set
  # beside each library).
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

# Public headers: every library's public include directory holds rocecert/<block>/...; the
# opcode and error-class tables (*.def) are included by the headers.
install(DIRECTORY
    "${PROJECT_SOURCE_DIR}/refmodel/include/"
    "${PROJECT_SOURCE_DIR}/pcap_tools/include/"
    "${PROJECT_SOURCE_DIR}/conformance/include/"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def")

install(TARGETS rocecert RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")

# Documentation, the JSON schemas and the example scenarios.
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/examples")
install(FILES "${PROJECT_SOURCE_DIR}/conformance/scenario/scenario.schema.json"
              "${PROJECT_SOURCE_DIR}/docs/decode.schema.json"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/rocecert")

install(EXPORT rocecertTargets
  NAMESPACE rocecert::
  DESTINATION "${ROCECERT_INSTALL_CMAKEDIR}")
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/rocecertConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/rocecertConfig.cmake"
  INSTALL_DESTINATION "${ROCECERT_INSTALL_CMAKEDIR}")
# 0.x: a new minor version may change the interfaces.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/rocecertConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/rocecertConfig.cmake"
              "${PROJECT_BINARY_DIR}/rocecertConfigVersion.cmake"
        DESTINATION "${ROCECERT_INSTALL_CMAKEDIR}")
