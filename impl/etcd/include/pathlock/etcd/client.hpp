#pragma once
// A small etcd v3 client over its JSON gateway (HTTP/1.1, libcurl): unary
// calls with fail-over across the members, and one watch. Only what the
// lock needs; every call it makes is idempotent, so a call whose response
// was lost is simply sent again (possibly to another member).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace pathlock::etcd {

enum class EtcdErrorKind : std::uint8_t {
  kUnavailable,        // no member answered within ClientOptions::unavailable_after
  kRejected,           // etcd answered with an error (its gRPC code and message)
  kMalformedResponse,  // an answer the client cannot read
};

class EtcdError : public std::runtime_error {
 public:
  EtcdError(EtcdErrorKind kind, const std::string& message, int grpc_code = 0)
      : std::runtime_error(message), kind_(kind), grpc_code_(grpc_code) {}
  EtcdErrorKind kind() const noexcept { return kind_; }
  // The gRPC status code etcd gave with a rejection (5: not found, e.g. a lease).
  int grpc_code() const noexcept { return grpc_code_; }

 private:
  EtcdErrorKind kind_;
  int grpc_code_;
};

// Fault injection, for tests: called with each response before the client
// reads it. kLose makes the client behave as if the connection broke after
// the request was sent: it sends the call again.
enum class ResponseFault : std::uint8_t { kDeliver, kLose };
using ResponseFaultHook = std::function<ResponseFault(std::string_view api, const nlohmann::json& request)>;

struct ClientOptions {
  std::vector<std::string> endpoints;  // "http://127.0.0.1:2379"; tried in turn
  std::chrono::milliseconds call_timeout{3000};
  std::chrono::milliseconds unavailable_after{15000};  // a call retried this long throws kUnavailable
};

enum class WatchEnd : std::uint8_t {
  kChanged,    // the key was deleted (or replaced) at some revision >= the start
  kCompacted,  // the start revision is compacted: read the key again
  kBroken,     // the stream ended or failed: read the key again
  kTimedOut,   // the deadline passed
  kStopped,    // the stop predicate said so
};

class Client {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // POST <endpoint>/v3/<api> with `request`; the response's JSON. Transport
  // failures and etcd's "unavailable" answers are retried on the next
  // member. REQUIRES: the call is idempotent.
  nlohmann::json call(std::string_view api, const nlohmann::json& request);
  // The same, giving up after `give_up_after` instead of options().unavailable_after.
  nlohmann::json call(std::string_view api, const nlohmann::json& request, std::chrono::milliseconds give_up_after);

  // Waits until `key` is deleted or replaced at a revision >= `from_revision`,
  // by one watch stream. `stop` is polled every few milliseconds.
  WatchEnd watch_change(std::string_view key, std::int64_t from_revision, Clock::time_point deadline,
                        const std::function<bool()>& stop);

  void set_response_fault(ResponseFaultHook hook);
  // HTTP requests sent (calls, retries and watches), for round-trip counts.
  std::uint64_t requests_sent() const noexcept { return requests_.load(std::memory_order_relaxed); }
  const ClientOptions& options() const noexcept { return options_; }

 private:
  struct Handle;
  std::unique_ptr<Handle> take_handle();
  void give_back(std::unique_ptr<Handle> handle);

  ClientOptions options_;
  std::atomic<std::size_t> next_endpoint_{0};
  std::atomic<std::uint64_t> requests_{0};
  std::mutex mu_;  // guards handles_ and fault_
  std::vector<std::unique_ptr<Handle>> handles_;
  ResponseFaultHook fault_;
};

// "http://a:2379,http://b:2379" -> its endpoints (empty parts dropped).
std::vector<std::string> split_endpoints(std::string_view comma_separated);

// base64, as the gateway carries keys and values.
std::string base64_encode(std::string_view bytes);
// Throws EtcdError(kMalformedResponse) on a character outside the alphabet.
std::string base64_decode(std::string_view text);
// The gateway writes 64-bit integers as JSON strings; absent means 0.
std::int64_t json_int(const nlohmann::json& object, std::string_view field);

}  // namespace pathlock::etcd
