// LocalServer: cpp-httplib's request handling behind a socket stream with budgets, and the Host,
// Origin and token checks (local_server.h says why).
#include "local_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

namespace hairswing::cli {
namespace {

using Clock = std::chrono::steady_clock;

// When the worker's current connection was accepted (set by StampedPool before it runs the
// connection): a connection's head budget starts there, so time spent waiting in the queue
// behind slow clients counts against the slow clients, not in their favour.
thread_local Clock::time_point accepted_at = Clock::now();

class StampedPool final : public httplib::TaskQueue {
 public:
  explicit StampedPool(size_t workers) : pool_(workers) {}
  void enqueue(std::function<void()> fn) override {
    pool_.enqueue([fn = std::move(fn), at = Clock::now()] {
      accepted_at = at;
      fn();
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
};

// One connection's bytes, read through an 8 KiB buffer. While a request head is being read it
// counts lines and bytes and holds the head to its deadline; a body must keep up a minimum rate.
// A read that breaks a budget fails (httplib then drops the connection); a head that breaks one
// gets a short 408 or 431 reply first.
class GuardedStream final : public httplib::Stream {
 public:
  GuardedStream(socket_t sock, const LocalServer::Limits& limits) : sock_(sock), limits_(limits) {}

  // Waits up to `seconds` for the first byte of the next request.
  // Not after a read failed (httplib may still have answered the broken request with a 400).
  bool WaitForNext(int seconds) {
    return !broken_ && (pos_ < len_ || Poll(POLLIN, seconds * 1000) > 0);
  }

  // A request starts: its head budget runs from `start` (the connection's accept time for the first
  // request, now for later ones on the same connection).
  void StartRequest(Clock::time_point start) {
    in_head_ = true;
    head_bytes_ = 0;
    head_lines_ = 0;
    line_len_ = 0;
    body_bytes_ = 0;
    start_ = start;
  }

  bool is_readable() const override { return pos_ < len_ || Poll(POLLIN, WaitMs()) > 0; }
  bool is_writable() const override { return Poll(POLLOUT, limits_.idle_seconds * 1000) > 0; }

  ssize_t read(char* ptr, size_t size) override {
    if (pos_ == len_ && !Fill()) return -1;
    size_t n = std::min(size, len_ - pos_);
    if (in_head_) {
      for (size_t i = 0; i < n; ++i) {
        const char c = buf_[pos_ + i];
        ++head_bytes_;
        if (c == '\n') {
          const bool end = line_len_ == 0 && head_lines_ > 0;
          ++head_lines_;
          line_len_ = 0;
          if (end) {  // the empty line: the head is complete, the body (if any) follows
            in_head_ = false;
            body_start_ = Clock::now();
            n = i + 1;
            break;
          }
        } else if (c != '\r') {
          ++line_len_;
        }
        if (head_bytes_ > limits_.head_bytes || head_lines_ > limits_.head_lines) {
          Refuse("431 Request Header Fields Too Large");
          broken_ = true;
          return -1;
        }
      }
    } else {
      body_bytes_ += n;
    }
    std::memcpy(ptr, buf_ + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (Poll(POLLOUT, limits_.idle_seconds * 1000) <= 0) return -1;
    return ::send(sock_, ptr, size, MSG_NOSIGNAL);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    Address(getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    Address(getsockname, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  // Milliseconds the next read may wait: the idle limit, cut by the head's deadline or by the
  // body's minimum rate (10 s of grace, then body_bytes_per_second on average).
  int WaitMs() const {
    const Clock::time_point deadline =
        in_head_
            ? start_ + std::chrono::seconds(limits_.head_seconds)
            : body_start_ + std::chrono::seconds(limits_.head_seconds) +
                  std::chrono::milliseconds(static_cast<long long>(
                      1000.0 * static_cast<double>(body_bytes_) / limits_.body_bytes_per_second));
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, limits_.idle_seconds * 1000LL));
  }

  int Poll(short events, int ms) const {
    pollfd p{sock_, events, 0};
    int r;
    while ((r = ::poll(&p, 1, ms)) < 0 && errno == EINTR) {
    }
    return r;
  }

  // Past the deadline only bytes already waiting are read (a whole head that sat in the queue
  // still gets in; a client that sent half of one does not).
  bool Fill() {
    if (Poll(POLLIN, WaitMs()) <= 0) {
      if (in_head_ && head_bytes_ > 0) Refuse("408 Request Timeout");
      broken_ = true;
      return false;
    }
    const ssize_t got = ::recv(sock_, buf_, sizeof buf_, 0);
    if (got <= 0) {
      broken_ = true;
      return false;
    }
    pos_ = 0;
    len_ = static_cast<size_t>(got);
    return true;
  }

  void Refuse(const char* status) {
    const std::string reply =
        std::string("HTTP/1.1 ") + status + "\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
    (void)::send(sock_, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  }

  template <class F>
  void Address(F get, std::string& ip, int& port) const {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ip.clear();
    port = 0;
    if (get(sock_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (addr.ss_family == AF_INET) {
      const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
      inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
      port = ntohs(a->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
      inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
      port = ntohs(a->sin6_port);
    }
    ip = text;
  }

  socket_t sock_;
  const LocalServer::Limits& limits_;
  char buf_[8192];
  size_t pos_ = 0, len_ = 0;
  bool in_head_ = true;
  bool broken_ = false;
  size_t head_bytes_ = 0;
  int head_lines_ = 0;
  size_t line_len_ = 0;
  size_t body_bytes_ = 0;
  Clock::time_point start_ = Clock::now(), body_start_ = Clock::now();
};

// Compares in time independent of where the strings differ.
bool SameSecret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

void JsonError(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(nlohmann::json{{"error", message}}.dump(-1, ' ', false,
                                                          nlohmann::json::error_handler_t::replace),
                  "application/json");
}

LocalServer::LocalServer() : LocalServer(Limits{}) {}

LocalServer::LocalServer(const Limits& limits) : limits_(limits) {
  new_task_queue = [n = limits_.workers] { return new StampedPool(static_cast<size_t>(n)); };
  set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return Admit(req, res); });
  // A handler that throws (out of memory on a huge upload, a bug) answers with a JSON error
  // instead of an empty 500.
  set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr e) {
    std::string what = "unknown error";
    try {
      if (e) std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      what = "out of memory";
    } catch (const std::exception& ex) {
      what = ex.what();
    } catch (...) {
    }
    JsonError(res, 500, "the server could not handle this request: " + what);
  });
}

int LocalServer::Bind(int port) {
  // SO_REUSEADDR only: cpp-httplib's default also sets SO_REUSEPORT, with which a second server
  // on the same port would start and share the connections instead of failing.
  set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  port_ = port == 0 ? bind_to_any_port("127.0.0.1") : bind_to_port("127.0.0.1", port) ? port : -1;
  if (port_ <= 0) return port_ = -1;
  // cpp-httplib listens with a backlog of 5: beyond that the kernel holds connections back by
  // SYN retries for up to half a minute, queueing a real request behind slow clients it never
  // sees. Linux takes a new backlog from a second listen().
  ::listen(svr_sock_, SOMAXCONN);
  std::random_device random;  // the kernel's generator (getrandom) on Linux
  static const char kHex[] = "0123456789abcdef";
  token_.clear();
  for (int i = 0; i < 32; ++i) {
    const unsigned byte = random() & 0xFFu;
    token_ += kHex[byte >> 4];
    token_ += kHex[byte & 15];
  }
  return port_;
}

std::string LocalServer::Url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/?token=" + token_;
}

httplib::Server::HandlerResponse LocalServer::Admit(const httplib::Request& req,
                                                    httplib::Response& res) const {
  using R = httplib::Server::HandlerResponse;
  const std::string p = std::to_string(port_);
  const std::string host = req.get_header_value("Host");
  if (host != "127.0.0.1:" + p && host != "localhost:" + p) {
    JsonError(res, 403,
              "this server answers only requests to 127.0.0.1:" + p + " or localhost:" + p);
    return R::Handled;
  }
  const bool reads = req.method == "GET" || req.method == "HEAD";
  if (!reads && req.method != "POST") {
    JsonError(res, 405, req.method + " is not served here");
    return R::Handled;
  }
  if (req.ranges.size() > 1) {  // (no body: httplib would repeat it once per range)
    res.status = 416;
    return R::Handled;
  }
  const bool api = req.path.rfind("/api/", 0) == 0;
  if (!reads || api) {
    // Browsers name the requesting page's origin on every POST; a page elsewhere cannot fake it.
    const std::string origin = req.get_header_value("Origin");
    if (!reads && origin != "http://127.0.0.1:" + p && origin != "http://localhost:" + p) {
      JsonError(res, 403, "requests that change something must come from the viewer's own page");
      return R::Handled;
    }
    const std::string site = req.get_header_value("Sec-Fetch-Site");
    if (!site.empty() && site != "same-origin" && site != "none") {
      JsonError(res, 403, "cross-site request refused");
      return R::Handled;
    }
    if (!SameSecret(req.get_header_value("X-Hairswing-Token"), token_)) {
      JsonError(res, 403,
                "missing or wrong session token: open the URL `hairswing view` printed (it carries "
                "the token)");
      return R::Handled;
    }
  }
  return R::Unhandled;
}

bool LocalServer::process_and_close_socket(socket_t sock) {
  GuardedStream strm(sock, limits_);
  bool ok = true;
  for (int n = 0; n < limits_.requests_per_connection && is_running(); ++n) {
    if (!strm.WaitForNext(n == 0 ? limits_.head_seconds : limits_.keep_alive_seconds)) break;
    strm.StartRequest(n == 0 ? accepted_at : Clock::now());
    bool closed = false;
    ok = process_request(strm, n + 1 == limits_.requests_per_connection, closed, nullptr);
    if (!ok || closed) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace hairswing::cli
