# Every outside dependency comes from a Debian package (see scripts/setup.sh).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(fmt REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(tl-expected REQUIRED)
pkg_check_modules(PQXX IMPORTED_TARGET libpqxx)
# libpq itself too: the ledger asks it to parse a URL before connecting (libpqxx has no call).
pkg_check_modules(PQ IMPORTED_TARGET libpq)
find_package(OpenSSL REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
# The server's HTTP transport (src/frugal/server/http_daemon.h).
pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
# Checkpoint checksums at memory speed (XXH3's 128-bit hash).
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
