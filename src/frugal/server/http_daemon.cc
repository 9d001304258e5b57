#include "frugal/server/http_daemon.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "frugal/server/mhd_api.h"

namespace frugal::server {

/// One request in flight: what has been read of it and what will be sent.
struct HttpDaemon::Exchange {
  Request request;
  Response response;
  bool too_large = false;
  bool sent = false;
};

namespace {

MHD_Result AddField(void* cls, MHD_ValueKind, const char* key, size_t key_bytes, const char* value,
                    size_t value_bytes) {
  auto* fields = static_cast<Fields*>(cls);
  fields->emplace_back(std::string(key, key_bytes),
                       value == nullptr ? std::string() : std::string(value, value_bytes));
  return MHD_YES;
}

MHD_Result Access(void* cls, MHD_Connection* connection, const char* url, const char* method,
                  const char* /*version*/, const char* upload, size_t* upload_bytes, void** state) {
  return static_cast<HttpDaemon*>(cls)->OnRequest(connection, url, method, upload, upload_bytes,
                                                  state) != 0
             ? MHD_YES
             : MHD_NO;
}

void Completed(void* /*cls*/, MHD_Connection* /*connection*/, void** state,
               MHD_RequestTerminationCode /*why*/) {
  // Owned from the request's first callback (OnRequest) to here.
  std::unique_ptr<HttpDaemon::Exchange> done(static_cast<HttpDaemon::Exchange*>(*state));
  *state = nullptr;
}

void Connected(void* /*cls*/, MHD_Connection* connection, void** /*socket_context*/,
               MHD_ConnectionNotificationCode code) {
  if (code != MHD_CONNECTION_NOTIFY_STARTED) return;
  // A response must not wait for the client's delayed ACK of the one before.
  const MHD_ConnectionInfo* info =
      Mhd().get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info == nullptr) return;
  int yes = 1;
  ::setsockopt(info->connect_fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
}

/// The connection cap: what the descriptor limit leaves, at most 10,000.
unsigned ConnectionCap(unsigned asked) {
  if (asked > 0) return asked;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 10'000;
  const rlim_t spare = 128;  // for the ledger, the catalog and the files served
  return limit.rlim_cur <= spare * 2
             ? static_cast<unsigned>(limit.rlim_cur / 2)
             : static_cast<unsigned>(std::min<rlim_t>(limit.rlim_cur - spare, 10'000));
}

}  // namespace

Result<std::unique_ptr<HttpDaemon>> HttpDaemon::Bind(const ListenAddress& address,
                                                     HttpLimits limits, HttpHooks hooks) {
  FRUGAL_TRY(LoadMhd());
  const std::string where = address.host + ":" + std::to_string(address.port);
  const auto unavailable = [&where](std::string_view why) {
    return Fail(ErrorCode::kUnavailable, "cannot listen on " + where + ": " + std::string(why) +
                                             " (choose another with --listen)");
  };
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(address.port);
  if (::getaddrinfo(address.host.c_str(), port_text.c_str(), &hints, &found) != 0) {
    return unavailable("the address is not this machine's");
  }
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) continue;
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 1024) != 0) {
      ::close(fd);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t size = sizeof bound;
    int port = address.port;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &size) == 0) {
      port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                               : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    }
    return std::unique_ptr<HttpDaemon>(new HttpDaemon(fd, port, limits, std::move(hooks)));
  }
  return unavailable("the address is taken or not this machine's");
}

HttpDaemon::HttpDaemon(int fd, int port, HttpLimits limits, HttpHooks hooks)
    : listen_fd_(fd), port_(port), limits_(limits), hooks_(std::move(hooks)) {}

HttpDaemon::~HttpDaemon() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

Result<void> HttpDaemon::Serve() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return {};
  }
  const unsigned threads = std::max(1U, limits_.threads);
  MHD_Daemon* daemon = Mhd().start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD, 0, nullptr, nullptr, &Access, this, MHD_OPTION_LISTEN_SOCKET,
      static_cast<MHD_socket>(listen_fd_), MHD_OPTION_THREAD_POOL_SIZE, threads,
      MHD_OPTION_CONNECTION_TIMEOUT, std::max(1U, limits_.idle_seconds),
      MHD_OPTION_CONNECTION_LIMIT, ConnectionCap(limits_.connections),
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits_.connections_per_client,
      MHD_OPTION_NOTIFY_COMPLETED, &Completed, nullptr, MHD_OPTION_NOTIFY_CONNECTION, &Connected,
      nullptr, MHD_OPTION_END);
  if (daemon == nullptr) {
    return Fail(ErrorCode::kFailed, "the HTTP listener on port " + std::to_string(port_) +
                                        " could not start its event loop");
  }
  listen_fd_ = -1;  // the daemon closes it when stopped
  {
    std::unique_lock<std::mutex> lock(mu_);
    stop_cv_.wait(lock, [this] { return stop_; });
  }
  Mhd().stop_daemon(daemon);
  return {};
}

void HttpDaemon::Stop() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
}

int HttpDaemon::OnRequest(void* connection, const char* url, const char* method, const char* upload,
                          size_t* upload_bytes, void** state) {
  auto* c = static_cast<MHD_Connection*>(connection);
  auto* x = static_cast<Exchange*>(*state);
  if (x == nullptr) {
    // The headers are in: the exchange lives until Completed().
    auto fresh = std::make_unique<Exchange>();
    fresh->request.method = method;
    fresh->request.path = url;
    Mhd().get_connection_values_n(c, MHD_HEADER_KIND, &AddField, &fresh->request.headers);
    Mhd().get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, &AddField, &fresh->request.params);
    x = fresh.release();
    *state = x;
    if (hooks_.screen && !hooks_.screen(x->request, x->response)) return Send(connection, *x);
    return 1;
  }
  if (x->sent) {
    *upload_bytes = 0;
    return 1;
  }
  if (*upload_bytes > 0) {
    // Past the cap the rest is read and dropped, so the client sees the answer.
    if (!x->too_large && x->request.body.size() + *upload_bytes > limits_.body_bytes) {
      x->too_large = true;
      std::string().swap(x->request.body);
    }
    if (!x->too_large) x->request.body.append(upload, *upload_bytes);
    *upload_bytes = 0;
    return 1;
  }
  if (x->too_large) {
    SetJsonError(
        x->response, 413,
        "the request body is larger than " + std::to_string(limits_.body_bytes >> 20) + " MiB");
    return Send(connection, *x);
  }
  try {
    hooks_.answer(x->request, x->response);
  } catch (const std::exception& e) {
    x->response = Response();
    SetJsonError(x->response, 500, std::string("internal error: ") + e.what());
  }
  return Send(connection, *x);
}

int HttpDaemon::Send(void* connection, Exchange& x) {
  x.sent = true;
  Response& r = x.response;
  MHD_Response* m = nullptr;
  if (!r.file.empty()) {
    const int fd = ::open(r.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      // The daemon owns the descriptor from here and closes it with the response.
      m = Mhd().create_response_from_fd_at_offset64(r.file_length, fd, r.file_offset);
      if (m == nullptr) ::close(fd);
    }
    if (m == nullptr) {
      r.status = 404;
      r.set_content("no such file\n", "text/plain; charset=utf-8");
    }
  }
  if (m == nullptr) {
    m = Mhd().create_response_from_buffer(r.body.size(), r.body.data(), MHD_RESPMEM_MUST_COPY);
  }
  if (m == nullptr) return 0;
  Mhd().add_response_header(m, "Content-Type", r.content_type.c_str());
  for (const auto& [name, value] : r.headers) {
    Mhd().add_response_header(m, name.c_str(), value.c_str());
  }
  const MHD_Result queued = Mhd().queue_response(static_cast<MHD_Connection*>(connection),
                                                 static_cast<unsigned>(r.status), m);
  Mhd().destroy_response(m);
  return queued == MHD_YES ? 1 : 0;
}

}  // namespace frugal::server
