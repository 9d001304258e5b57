# Warnings apply to frugal's own targets only, never to third-party headers.
add_library(frugal_warnings INTERFACE)
target_compile_options(frugal_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
  -Wnull-dereference -Wimplicit-fallthrough -Wold-style-cast -Wconversion -Wsign-conversion)
if(FRUGAL_WERROR)
  target_compile_options(frugal_warnings INTERFACE -Werror)
endif()

# frugal_area(NAME SOURCES... DEPS ...): one static library per DESIGN.md layer.
function(frugal_area name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(frugal_${name} STATIC ${ARG_SOURCES})
  target_include_directories(frugal_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(frugal_${name} PUBLIC ${ARG_DEPS} PRIVATE frugal_warnings)
  frugal_precompile(frugal_${name})
  frugal_unity(frugal_${name})
endfunction()
