# frugal_module(NAME SOURCES... DEPS ...): a part of an area that needs a heavy library, built
# as a shared object frugal_NAME.so that the area opens the first time it is used
# (src/frugal/core/module.h), so commands that never use it never load that library. Only the
# module's entry points are exported; it calls back into frugal through the symbols the
# executable exports (frugal_exports.list).
function(frugal_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(frugal_${name} MODULE ${ARG_SOURCES})
  set_target_properties(frugal_${name} PROPERTIES PREFIX "" OUTPUT_NAME frugal_${name}
    LIBRARY_OUTPUT_DIRECTORY ${FRUGAL_BUILD_MODULE_DIR}
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_include_directories(frugal_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(frugal_${name} PRIVATE ${ARG_DEPS} tl::expected fmt::fmt
    nlohmann_json::nlohmann_json frugal_warnings)
  install(TARGETS frugal_${name} LIBRARY DESTINATION lib/frugal)
  set_property(GLOBAL APPEND PROPERTY FRUGAL_MODULES frugal_${name})
endfunction()

# An executable that may open a module exports frugal's own functions to it (and nothing else):
# linked into every executable that links frugal_core.
set(FRUGAL_EXPORTS_LIST ${CMAKE_CURRENT_LIST_DIR}/frugal_exports.list)
