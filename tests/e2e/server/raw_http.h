#pragma once
// HTTP/1.1 over a plain loopback socket, byte for byte as a test writes it: for requests a
// well-behaved client library would never send (thousands of ranges, no body and no length, a
// foreign Host) and for clients that connect and say nothing, or trickle their headers.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>

namespace frugal::server_test {

/// One TCP connection to 127.0.0.1:port, closed when destroyed.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  [[nodiscard]] bool ok() const { return fd_ >= 0; }

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  struct Reply {
    int status = 0;
    std::string head;  ///< status line and headers
    std::string body;
  };
  /// Reads one response (its Content-Length's worth of body) waiting at most `limit` for each
  /// piece; nullopt when the server closed first or went quiet that long.
  std::optional<Reply> Read(std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    std::string data;
    size_t head_end = std::string::npos;
    size_t want = 0;
    while (true) {
      if (head_end == std::string::npos) {
        head_end = data.find("\r\n\r\n");
        if (head_end != std::string::npos) want = head_end + 4 + ContentLength(data, head_end);
      }
      if (head_end != std::string::npos && data.size() >= want) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) return std::nullopt;
      char buf[65536];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      data.append(buf, static_cast<size_t>(n));
    }
    Reply r;
    r.head = data.substr(0, head_end);
    r.body = data.substr(head_end + 4, want - head_end - 4);
    if (r.head.size() > 12) r.status = std::atoi(r.head.c_str() + 9);
    return r;
  }

  /// Sends a request and reads its response.
  std::optional<Reply> Exchange(std::string_view request) {
    if (!Send(request)) return std::nullopt;
    return Read();
  }

 private:
  static size_t ContentLength(const std::string& data, size_t head_end) {
    std::string head = data.substr(0, head_end);
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const size_t at = head.find("\r\ncontent-length:");
    if (at == std::string::npos) return 0;
    return static_cast<size_t>(std::stoull(head.substr(at + 17)));
  }

  int fd_ = -1;
};

}  // namespace frugal::server_test
