// The module frugal_metadata: the metadata notices' HTTP requests on cpp-httplib.

#include "frugal/run/metadata_http.h"

#include <httplib.h>

extern "C" void frugal_metadata_request(frugal::run::MetadataExchange* exchange) {
  httplib::Client client(exchange->endpoint);
  client.set_connection_timeout(1, 0);
  client.set_read_timeout(2, 0);
  httplib::Headers headers(exchange->headers.begin(), exchange->headers.end());
  httplib::Result response = exchange->method == "PUT"
                                 ? client.Put(exchange->path, headers, "", "text/plain")
                                 : client.Get(exchange->path, headers);
  exchange->answered = static_cast<bool>(response);
  if (!response) {
    exchange->error = httplib::to_string(response.error());
    return;
  }
  exchange->status = response->status;
  exchange->body = response->body;
}
