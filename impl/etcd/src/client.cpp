#include "pathlock/etcd/client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

namespace pathlock::etcd {
namespace {

using json = nlohmann::json;

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::size_t append_to_string(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

long to_millis(std::chrono::milliseconds d) { return static_cast<long>(d.count()); }

// An error answer, in either of the gateway's shapes: etcd 3.4's
// {"error": "...", "code": N}, 3.5+'s {"code": N, "message": "..."}, a
// stream's {"error": {...}}; or any answer with a status outside 2xx.
struct GatewayError {
  int code = 0;
  std::string message;
};
std::optional<GatewayError> gateway_error(const json& answer, long http_status) {
  const json* body = &answer;
  if (const auto it = answer.find("error"); it != answer.end() && it->is_object()) body = &*it;
  const auto text = [&](const char* field) -> std::optional<std::string> {
    const auto it = body->find(field);
    if (it == body->end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  const auto error_text = text("error");
  const auto message = text("message");
  const bool ok_status = http_status >= 200 && http_status < 300;
  if (ok_status && !answer.contains("error") && !(body->contains("code") && message)) return std::nullopt;
  GatewayError e;
  if (const auto c = body->find("code"); c != body->end() && c->is_number_integer()) e.code = c->get<int>();
  e.message = error_text ? *error_text : message ? *message : "HTTP status " + std::to_string(http_status);
  return e;
}

// Errors that mean "try again, maybe elsewhere": gRPC Unavailable (14) and
// DeadlineExceeded (4), the leader-election messages, and a server error
// without a gRPC code (a proxy's).
bool is_transient(const GatewayError& e, long http_status) {
  return e.code == 14 || e.code == 4 || e.message.find("leader changed") != std::string::npos ||
         e.message.find("no leader") != std::string::npos || e.message.find("timed out") != std::string::npos ||
         (e.code == 0 && http_status >= 500);
}

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

struct Client::Handle {
  Handle() : easy(curl_easy_init()) {
    headers = curl_slist_append(nullptr, "Content-Type: application/json");
    if (easy == nullptr || headers == nullptr) throw std::bad_alloc();
  }
  ~Handle() {
    curl_slist_free_all(headers);
    curl_easy_cleanup(easy);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  // A JSON POST of `body` (which must outlive the transfer) whose answer is appended to `out`.
  void post(const std::string& url, const std::string& body, std::string& out) {
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &append_to_string);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &out);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  }
  CURL* easy;
  curl_slist* headers;
};

Client::Client(ClientOptions options) : options_(std::move(options)) {
  if (options_.endpoints.empty()) {
    throw std::invalid_argument("etcd client: no endpoint given (expected e.g. http://127.0.0.1:2379)");
  }
  for (const auto& e : options_.endpoints) {
    if (!e.starts_with("http://") && !e.starts_with("https://")) {
      throw std::invalid_argument("etcd client: endpoint '" + e + "' is not an http:// or https:// URL");
    }
  }
  init_curl_once();
}

Client::~Client() = default;

std::unique_ptr<Client::Handle> Client::take_handle() {
  {
    std::lock_guard lock(mu_);
    if (!handles_.empty()) {
      auto h = std::move(handles_.back());
      handles_.pop_back();
      return h;
    }
  }
  return std::make_unique<Handle>();
}

void Client::give_back(std::unique_ptr<Handle> handle) {
  std::lock_guard lock(mu_);
  handles_.push_back(std::move(handle));
}

void Client::set_response_fault(ResponseFaultHook hook) {
  std::lock_guard lock(mu_);
  fault_ = std::move(hook);
}

json Client::call(std::string_view api, const json& request) {
  return call(api, request, options_.unavailable_after);
}

json Client::call(std::string_view api, const json& request, std::chrono::milliseconds give_up_after) {
  const auto give_up_at = Clock::now() + give_up_after;
  const std::string body = request.dump();
  std::string last_error;
  for (int attempt = 0;; ++attempt) {
    const std::size_t index = next_endpoint_.load(std::memory_order_relaxed) % options_.endpoints.size();
    const std::string url = options_.endpoints[index] + "/v3/" + std::string(api);
    auto handle = take_handle();
    std::string response;
    CURL* e = handle->easy;
    curl_easy_reset(e);
    handle->post(url, body, response);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, to_millis(options_.call_timeout));
    requests_.fetch_add(1, std::memory_order_relaxed);
    const CURLcode code = curl_easy_perform(e);
    long http_status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &http_status);
    give_back(std::move(handle));
    bool retry = false;
    if (code != CURLE_OK) {
      last_error = url + ": " + curl_easy_strerror(code);
      next_endpoint_.fetch_add(1, std::memory_order_relaxed);
      retry = true;
    } else {
      ResponseFaultHook fault;
      {
        std::lock_guard lock(mu_);
        fault = fault_;
      }
      if (fault && fault(api, request) == ResponseFault::kLose) {
        last_error = url + ": response lost (injected fault)";
        retry = true;
      } else {
        json answer = json::parse(response, nullptr, /*allow_exceptions=*/false);
        const bool is_object = !answer.is_discarded() && answer.is_object();
        if (!is_object && http_status >= 200 && http_status < 300) {
          throw EtcdError(EtcdErrorKind::kMalformedResponse, url + ": not a JSON object: " + response.substr(0, 200));
        }
        const auto error = is_object ? gateway_error(answer, http_status)
                                     : std::optional<GatewayError>(GatewayError{0, "HTTP status " +
                                                                                       std::to_string(http_status)});
        if (!error) return answer;
        if (!is_transient(*error, http_status)) {
          throw EtcdError(EtcdErrorKind::kRejected, url + ": " + error->message, error->code);
        }
        last_error = url + ": " + error->message;
        next_endpoint_.fetch_add(1, std::memory_order_relaxed);
        retry = true;
      }
    }
    if (retry && Clock::now() >= give_up_at) {
      throw EtcdError(EtcdErrorKind::kUnavailable,
                      "etcd: no member answered /v3/" + std::string(api) + " within " +
                          std::to_string(give_up_after.count()) + " ms; last error: " + last_error);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(5 << std::min(attempt, 5), 100)));
  }
}

WatchEnd Client::watch_change(std::string_view key, std::int64_t from_revision, Clock::time_point deadline,
                              const std::function<bool()>& stop) {
  // A stream seen quiet this long is re-read by the caller: a member cut off
  // from the others would otherwise keep a watcher waiting for nothing.
  constexpr auto kRecheckAfter = std::chrono::seconds(5);
  const auto recheck_at = Clock::now() + kRecheckAfter;
  const std::size_t index = next_endpoint_.load(std::memory_order_relaxed) % options_.endpoints.size();
  const std::string url = options_.endpoints[index] + "/v3/watch";
  const std::string body =
      json{{"create_request", {{"key", base64_encode(key)}, {"start_revision", std::to_string(from_revision)}}}}
          .dump();
  Handle handle;
  std::string buffer;
  CURL* e = handle.easy;
  handle.post(url, body, buffer);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, to_millis(options_.call_timeout));
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) throw std::bad_alloc();
  struct MultiCleanup {
    CURLM* m;
    CURL* e;
    ~MultiCleanup() {
      curl_multi_remove_handle(m, e);
      curl_multi_cleanup(m);
    }
  } cleanup{multi, e};
  curl_multi_add_handle(multi, e);
  requests_.fetch_add(1, std::memory_order_relaxed);
  std::size_t parsed = 0;
  for (;;) {
    int running = 0;
    curl_multi_perform(multi, &running);
    // One JSON object per line.
    for (std::size_t nl; (nl = buffer.find('\n', parsed)) != std::string::npos; parsed = nl + 1) {
      const json message = json::parse(buffer.begin() + static_cast<std::ptrdiff_t>(parsed),
                                       buffer.begin() + static_cast<std::ptrdiff_t>(nl), nullptr, false);
      if (message.is_discarded() || !message.contains("result")) return WatchEnd::kBroken;
      const json& result = message["result"];
      if (result.value("canceled", false)) {
        return json_int(result, "compact_revision") > 0 ? WatchEnd::kCompacted : WatchEnd::kBroken;
      }
      if (result.contains("events") && !result["events"].empty()) return WatchEnd::kChanged;
    }
    if (running == 0) {
      next_endpoint_.fetch_add(1, std::memory_order_relaxed);
      return WatchEnd::kBroken;
    }
    if (stop && stop()) return WatchEnd::kStopped;
    const auto now = Clock::now();
    if (now >= deadline) return WatchEnd::kTimedOut;
    if (now >= recheck_at) return WatchEnd::kBroken;
    curl_multi_poll(multi, nullptr, 0, 10, nullptr);
  }
}

std::vector<std::string> split_endpoints(std::string_view comma_separated) {
  std::vector<std::string> out;
  while (!comma_separated.empty()) {
    const auto comma = comma_separated.find(',');
    const auto part = comma_separated.substr(0, comma);
    if (!part.empty()) out.emplace_back(part);
    if (comma == std::string_view::npos) break;
    comma_separated.remove_prefix(comma + 1);
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto byte = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (i + 1 == bytes.size()) {
    const std::uint32_t v = byte(i) << 16;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const std::uint32_t v = byte(i) << 16 | byte(i + 1) << 8;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

std::string base64_decode(std::string_view text) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;
    const char* p = std::find(kAlphabet, kAlphabet + 64, c);
    if (p == kAlphabet + 64) {
      throw EtcdError(EtcdErrorKind::kMalformedResponse, "etcd: not base64: '" + std::string(text) + "'");
    }
    acc = acc << 6 | static_cast<std::uint32_t>(p - kAlphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::int64_t json_int(const json& object, std::string_view field) {
  const auto it = object.find(field);
  if (it == object.end()) return 0;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_string()) {
    try {
      return std::stoll(it->get<std::string>());
    } catch (const std::exception&) {
    }
  }
  throw EtcdError(EtcdErrorKind::kMalformedResponse, "etcd: field '" + std::string(field) + "' is not an integer: " +
                                                         it->dump());
}

}  // namespace pathlock::etcd
