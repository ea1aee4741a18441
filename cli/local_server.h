// The HTTP server behind `hairswing view`, hardened for a machine where other programs, other
// users and web pages in the user's browser may all reach 127.0.0.1 (docs/viewer.md, "What the
// server lets in"):
//  - it answers only requests addressed to 127.0.0.1:PORT or localhost:PORT (the Host header), so
//    a web page cannot reach it through DNS rebinding;
//  - every /api/ request carries the session token (X-Hairswing-Token) that only the URL printed
//    at start holds, and requests that change something (POST) come from the page's own origin;
//  - a connection must deliver its request head (at most 100 lines, 64 KiB) within 10 s and its
//    body at 1 MiB/s or faster, so slow or endless clients give their worker back quickly; at
//    most one byte range per request.
// cpp-httplib (Debian's libcpp-httplib, a compiled library) reads headers without a count limit
// and keeps a worker as long as a client trickles bytes; this class therefore feeds httplib's
// request parser through its own socket stream that enforces the budgets above.
#pragma once

#include <httplib.h>

#include <string>

namespace hairswing::cli {

/// An error reply: `status` with {"error": message} as JSON (bytes that are not UTF-8 become
/// U+FFFD rather than an exception).
void JsonError(httplib::Response& res, int status, const std::string& message);

class LocalServer : public httplib::Server {
 public:
  /// Budgets for one request (see above). Tests shorten the times.
  struct Limits {
    int head_seconds = 10;                   ///< the request line and headers, from the first byte
    int idle_seconds = 10;                   ///< longest wait for any single read or write
    int keep_alive_seconds = 5;              ///< wait for the next request on an open connection
    size_t head_bytes = 64 << 10;            ///< request line + headers
    int head_lines = 100;                    ///< request line + header lines
    double body_bytes_per_second = 1 << 20;  ///< minimum average upload rate after 10 s grace
    int requests_per_connection = 100;
    int workers = 32;
  };

  LocalServer();
  explicit LocalServer(const Limits& limits);

  /// Binds 127.0.0.1:port (0 = a free port), makes the session token and installs the checks.
  /// Returns the port, or -1 when it cannot listen.
  int Bind(int port);
  int port() const { return port_; }
  /// 32 random bytes as hex, made by Bind.
  const std::string& token() const { return token_; }
  /// The URL to open: http://127.0.0.1:PORT/?token=TOKEN
  std::string Url() const;

 private:
  bool process_and_close_socket(socket_t sock) override;
  httplib::Server::HandlerResponse Admit(const httplib::Request& req, httplib::Response& res) const;

  Limits limits_;
  int port_ = -1;
  std::string token_;
};

}  // namespace hairswing::cli
