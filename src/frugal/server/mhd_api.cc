#include "frugal/server/mhd_api.h"

#include <type_traits>

#include "frugal/core/module.h"

namespace frugal::server {
namespace {

Result<MhdApi> OpenMhd() {
  void* library = FRUGAL_TRY(SystemLibrary(FRUGAL_MHD_SONAME, "libmicrohttpd12"));
  MhdApi api;
  const auto bind = [&](auto& slot, const char* name) -> Result<void> {
    void* address = FRUGAL_TRY(LibrarySymbol(library, FRUGAL_MHD_SONAME, name));
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(address);
    return {};
  };
  FRUGAL_TRY(bind(api.start_daemon, "MHD_start_daemon"));
  FRUGAL_TRY(bind(api.stop_daemon, "MHD_stop_daemon"));
  FRUGAL_TRY(bind(api.get_connection_info, "MHD_get_connection_info"));
  FRUGAL_TRY(bind(api.get_connection_values_n, "MHD_get_connection_values_n"));
  FRUGAL_TRY(bind(api.create_response_from_buffer, "MHD_create_response_from_buffer"));
  FRUGAL_TRY(
      bind(api.create_response_from_fd_at_offset64, "MHD_create_response_from_fd_at_offset64"));
  FRUGAL_TRY(bind(api.add_response_header, "MHD_add_response_header"));
  FRUGAL_TRY(bind(api.queue_response, "MHD_queue_response"));
  FRUGAL_TRY(bind(api.destroy_response, "MHD_destroy_response"));
  return api;
}

const Result<MhdApi>& LoadedMhd() {
  static const Result<MhdApi> api = OpenMhd();
  return api;
}

}  // namespace

Result<const MhdApi*> LoadMhd() {
  const Result<MhdApi>& api = LoadedMhd();
  if (!api) return Fail(api.error());
  return &*api;
}

const MhdApi& Mhd() {
  const Result<MhdApi>& api = LoadedMhd();
  FRUGAL_CHECK(api.has_value());
  return *api;
}

}  // namespace frugal::server
