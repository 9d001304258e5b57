# Every outside dependency comes from a Debian package (see scripts/setup.sh).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(fmt REQUIRED)
find_package(yaml-cpp REQUIRED)
# SQLite and yaml-cpp are linked from their static archives (libsqlite3-dev, libyaml-cpp-dev):
# every command uses them, and each shared library costs the loader at every start-up
# (bench/startup). No module links either, so the process holds one copy.
find_library(FRUGAL_SQLITE3_ARCHIVE NAMES libsqlite3.a)
if(FRUGAL_SQLITE3_ARCHIVE)
  set(SQLite3_LIBRARY ${FRUGAL_SQLITE3_ARCHIVE})
endif()
find_package(SQLite3 REQUIRED)
find_library(FRUGAL_YAML_CPP_ARCHIVE NAMES libyaml-cpp.a)
if(FRUGAL_YAML_CPP_ARCHIVE)
  add_library(frugal_yaml_cpp INTERFACE)
  target_link_libraries(frugal_yaml_cpp INTERFACE ${FRUGAL_YAML_CPP_ARCHIVE})
  target_include_directories(frugal_yaml_cpp SYSTEM INTERFACE
    $<TARGET_PROPERTY:yaml-cpp,INTERFACE_INCLUDE_DIRECTORIES>)
else()
  add_library(frugal_yaml_cpp ALIAS yaml-cpp)
endif()
find_package(tl-expected REQUIRED)
pkg_check_modules(PQXX IMPORTED_TARGET libpqxx)
# libpq itself too: the ledger asks it to parse a URL before connecting (libpqxx has no call).
pkg_check_modules(PQ IMPORTED_TARGET libpq)
find_package(OpenSSL REQUIRED)
# libcrypto (the checkpoints' SHA-256): the frugal executable links its static archive
# (libssl-dev) to spare the loader a library at every start-up; an executable that loads
# OpenSSL's shared libcrypto anyway (the tests, which link cpp-httplib) links the shared one,
# so that no process holds two. An executable asks for the archive with the target property
# FRUGAL_STATIC_CRYPTO.
find_library(FRUGAL_CRYPTO_ARCHIVE NAMES libcrypto.a)
add_library(frugal_crypto INTERFACE)
if(FRUGAL_CRYPTO_ARCHIVE)
  target_link_libraries(frugal_crypto INTERFACE
    "$<IF:$<BOOL:$<TARGET_PROPERTY:FRUGAL_STATIC_CRYPTO>>,${FRUGAL_CRYPTO_ARCHIVE};${CMAKE_DL_LIBS};Threads::Threads,OpenSSL::Crypto>")
else()
  target_link_libraries(frugal_crypto INTERFACE OpenSSL::Crypto)
endif()
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
# The server's HTTP transport (src/frugal/server/http_daemon.h).
pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
# Checkpoint checksums at memory speed (XXH3's 128-bit hash).
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
