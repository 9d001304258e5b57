#pragma once
// The functions of libmicrohttpd the HTTP daemon calls, opened by soname the first time a
// server binds (core/module.h), so that the commands that serve nothing never load it (nor
// GnuTLS and the libraries behind it).

#include <microhttpd.h>

#include "frugal/core/error.h"

namespace frugal::server {

struct MhdApi {
  decltype(&MHD_start_daemon) start_daemon = nullptr;
  decltype(&MHD_stop_daemon) stop_daemon = nullptr;
  decltype(&MHD_get_connection_info) get_connection_info = nullptr;
  decltype(&MHD_get_connection_values_n) get_connection_values_n = nullptr;
  decltype(&MHD_create_response_from_buffer) create_response_from_buffer = nullptr;
  decltype(&MHD_create_response_from_fd_at_offset64) create_response_from_fd_at_offset64 = nullptr;
  decltype(&MHD_add_response_header) add_response_header = nullptr;
  decltype(&MHD_queue_response) queue_response = nullptr;
  decltype(&MHD_destroy_response) destroy_response = nullptr;
};

/// libmicrohttpd's functions, loaded once per process. kBadInput naming the library and its
/// Debian package when it is missing.
[[nodiscard]] Result<const MhdApi*> LoadMhd();

/// The loaded functions; only after LoadMhd() succeeded.
[[nodiscard]] const MhdApi& Mhd();

}  // namespace frugal::server
