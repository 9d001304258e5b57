# Precompiled headers: a fresh build spends about half its time parsing the standard library,
# fmt and nlohmann/json again in every source file (2.3 s of a 5.9 s compile, measured on
# plan_json.cc), and the tests GoogleTest besides. Each library precompiles its own; the tests
# share one (frugal_test_pch in tests/CMakeLists.txt). FRUGAL_PCH=OFF builds without them
# (clang-tidy reads the sources without them in any case: scripts/lint.sh).
option(FRUGAL_PCH "Precompile the headers most sources include" ON)

set(FRUGAL_PCH_HEADERS
  <algorithm> <chrono> <cmath> <cstdint> <filesystem> <functional> <map> <memory> <optional>
  <set> <string> <string_view> <utility> <vector> <fmt/format.h> <nlohmann/json.hpp>)

# frugal_precompile(TARGET [EXTRA HEADERS...]): TARGET precompiles the common headers and EXTRA.
function(frugal_precompile target)
  if(FRUGAL_PCH)
    target_precompile_headers(${target} PRIVATE ${FRUGAL_PCH_HEADERS} ${ARGN})
  endif()
endfunction()

# frugal_precompile_from(TARGET FROM): TARGET uses FROM's precompiled header (same flags).
function(frugal_precompile_from target from)
  if(FRUGAL_PCH)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()

# Unity builds: a library's sources compiled a few at a time as one, so the templates they share
# (nlohmann/json, fmt) are instantiated and emitted once per batch, not once per file.
option(FRUGAL_UNITY "Compile each library's sources in batches (unity build)" ON)
function(frugal_unity target)
  if(FRUGAL_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 6)
  endif()
endfunction()
