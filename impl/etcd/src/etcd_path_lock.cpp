#include "pathlock/etcd/etcd_path_lock.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace pathlock::etcd {

using json = nlohmann::json;

std::string_view to_string(LeaseEnd end) noexcept {
  switch (end) {
    case LeaseEnd::kExpired: return "expired";
    case LeaseEnd::kUnconfirmed: return "unconfirmed for a whole TTL";
  }
  return "?";
}

struct EtcdPathLock::Lease {
  Lease(std::int64_t lease_id, Clock::time_point until) : id(lease_id), confirmed_until(until.time_since_epoch().count()) {}
  const std::int64_t id;
  // Until when the lease is surely alive: the last acknowledged keep-alive's
  // send time plus the TTL etcd gave (steady clock ticks).
  std::atomic<Clock::rep> confirmed_until;
  mutable std::atomic<bool> lost{false};  // sticky: once lost, never alive again here
  std::atomic<bool> reported{false};  // the callback ran

  bool is_lost() const noexcept {
    if (lost.load(std::memory_order_acquire)) return true;
    if (Clock::now().time_since_epoch().count() >= confirmed_until.load(std::memory_order_acquire)) {
      lost.store(true, std::memory_order_release);
      return true;
    }
    return false;
  }
};

namespace {

std::string hex(std::int64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Until when a lease whose TTL etcd restarted no earlier than `sent` is
// surely alive: a tenth of the TTL (at most a second) earlier than etcd's
// own count, for the two clocks' drift.
std::chrono::steady_clock::time_point safe_until(std::chrono::steady_clock::time_point sent, std::int64_t ttl_seconds) {
  const auto ttl = std::chrono::milliseconds(ttl_seconds * 1000);
  return sent + ttl - std::min<std::chrono::milliseconds>(ttl / 10, std::chrono::seconds(1));
}

json compare_created_at(const std::string& key, std::int64_t revision) {
  return {{"key", base64_encode(key)},
          {"target", "CREATE"},
          {"create_revision", std::to_string(revision)},
          {"result", "EQUAL"}};
}

json range_op(const KeyRange& range) {
  json r = {{"key", base64_encode(range.begin)}, {"keys_only", true}};
  // An empty end would mean "this key only" to etcd; "\0" means "to the end".
  r["range_end"] = base64_encode(range.end.empty() ? std::string(1, '\0') : range.end);
  return {{"request_range", r}};
}

const json& range_kvs(const json& response) {
  static const json kNone = json::array();
  const auto r = response.find("response_range");
  if (r == response.end()) return kNone;
  const auto kvs = r->find("kvs");
  return kvs == r->end() ? kNone : *kvs;
}

}  // namespace

EtcdPathLock::EtcdPathLock(EtcdPathLockOptions options)
    : options_(std::move(options)), client_(options_.client) {
  if (options_.lease_ttl < std::chrono::seconds(2)) {
    throw std::invalid_argument("EtcdPathLock: lease_ttl " + std::to_string(options_.lease_ttl.count()) +
                                " s is below etcd's minimum TTL of 2 s");
  }
  if (options_.key_prefix.empty()) {
    throw std::invalid_argument("EtcdPathLock: key_prefix is empty (it must set the lock's keys apart)");
  }
  keep_alive_ = std::jthread([this](std::stop_token stop) { keep_alive_loop(std::move(stop)); });
}

EtcdPathLock::~EtcdPathLock() {
  keep_alive_.request_stop();
  keep_alive_wake_.notify_all();
  keep_alive_.join();
  std::shared_ptr<Lease> lease;
  {
    std::lock_guard lock(mu_);
    lease = std::move(lease_);
  }
  if (lease != nullptr && !lease->lost.load()) {
    try {
      client_.call("lease/revoke", {{"ID", std::to_string(lease->id)}}, std::chrono::milliseconds(2000));
    } catch (const std::exception&) {
      // It expires by itself.
    }
  }
}

std::int64_t EtcdPathLock::lease_id() { return current_lease()->id; }

std::shared_ptr<EtcdPathLock::Lease> EtcdPathLock::current_lease() {
  std::shared_ptr<Lease> stale;
  {
    std::lock_guard lock(mu_);
    if (lease_ != nullptr && !lease_->is_lost()) return lease_;
    stale = lease_;
  }
  if (stale != nullptr) lease_lost(stale, LeaseEnd::kUnconfirmed);
  std::lock_guard lock(mu_);
  if (lease_ != nullptr && !lease_->is_lost()) return lease_;  // another thread granted one
  const auto sent = Clock::now();
  const json answer = client_.call("lease/grant", {{"TTL", std::to_string(options_.lease_ttl.count())}});
  const std::int64_t ttl = json_int(answer, "TTL");
  if (ttl <= 0) throw EtcdError(EtcdErrorKind::kMalformedResponse, "etcd: lease/grant gave no TTL: " + answer.dump());
  lease_ = std::make_shared<Lease>(json_int(answer, "ID"), safe_until(sent, ttl));
  keep_alive_wake_.notify_all();
  return lease_;
}

void EtcdPathLock::lease_lost(const std::shared_ptr<Lease>& lease, LeaseEnd why) {
  lease->lost.store(true, std::memory_order_release);
  {
    std::lock_guard lock(mu_);
    if (lease_ == lease) lease_.reset();
  }
  if (lease->reported.exchange(true)) return;
  // Its records must not outlive it here: revoke it (best effort; else they expire).
  try {
    client_.call("lease/revoke", {{"ID", std::to_string(lease->id)}}, std::chrono::milliseconds(1000));
  } catch (const std::exception&) {
  }
  if (options_.on_lease_lost) options_.on_lease_lost(lease->id, why);
}

void EtcdPathLock::keep_alive_loop(std::stop_token stop) {
  const auto period = std::chrono::duration_cast<std::chrono::milliseconds>(options_.lease_ttl) / 4;
  std::unique_lock lock(mu_);
  while (!stop.stop_requested()) {
    keep_alive_wake_.wait_for(lock, stop, period, [] { return false; });
    if (stop.stop_requested()) break;
    const std::shared_ptr<Lease> lease = lease_;
    if (lease == nullptr) continue;
    lock.unlock();
    if (lease->is_lost()) {
      lease_lost(lease, LeaseEnd::kUnconfirmed);
    } else {
      const auto sent = Clock::now();
      try {
        const json answer = client_.call("lease/keepalive", {{"ID", std::to_string(lease->id)}}, period);
        const std::int64_t ttl = json_int(answer.value("result", json::object()), "TTL");
        if (ttl <= 0) {
          lease_lost(lease, LeaseEnd::kExpired);
        } else if (!lease->is_lost()) {
          lease->confirmed_until.store(safe_until(sent, ttl).time_since_epoch().count(),
                                       std::memory_order_release);
        }
      } catch (const std::exception&) {
        // Unanswered: the lease stays confirmed until its last TTL runs out.
      }
      if (lease->is_lost()) {
        lease_lost(lease, LeaseEnd::kUnconfirmed);
      } else {
        sweep_orphans(*lease);
      }
    }
    lock.lock();
  }
}

void EtcdPathLock::sweep_orphans(const Lease& lease) {
  // Bounded by the keep-alive period: the sweep must never delay the next
  // keep-alive past the lease's TTL.
  const auto period = std::chrono::duration_cast<std::chrono::milliseconds>(options_.lease_ttl) / 4;
  try {
    const json answer = client_.call("lease/timetolive", {{"ID", std::to_string(lease.id)}, {"keys", true}}, period);
    std::vector<std::string> orphans;
    {
      std::lock_guard lock(live_mu_);
      for (const json& k : answer.value("keys", json::array())) {
        std::string key = base64_decode(k.get<std::string>());
        const auto parsed = parse_record_key(options_.key_prefix, key);
        if (parsed && live_ids_.count(parsed->id) == 0) orphans.push_back(std::move(key));
      }
    }
    // At most max_txn_ops deletions per transaction (etcd refuses more).
    for (std::size_t begin = 0; begin < orphans.size(); begin += options_.max_txn_ops) {
      json deletes = json::array();
      for (std::size_t k = begin; k < std::min(orphans.size(), begin + options_.max_txn_ops); ++k) {
        deletes.push_back({{"request_delete_range", {{"key", base64_encode(orphans[k])}}}});
      }
      client_.call("kv/txn", {{"compare", json::array()}, {"success", std::move(deletes)}}, period);
    }
  } catch (const std::exception&) {
    // The next period tries again.
  }
}

void EtcdPathLock::forget(const std::string& id) {
  std::lock_guard lock(live_mu_);
  live_ids_.erase(id);
}

std::int64_t EtcdPathLock::delete_records(const std::string& first_key, const std::vector<std::string>& keys,
                                  std::int64_t revision) {
  json deletes = json::array();
  for (const auto& k : keys) deletes.push_back({{"request_delete_range", {{"key", base64_encode(k)}}}});
  // Every record shares one lease and one revision: they were created
  // together and vanish together, so comparing the first says it for all.
  const json answer = client_.call("kv/txn", {{"compare", json::array({compare_created_at(first_key, revision)})},
                                              {"success", std::move(deletes)}});
  return answer.value("succeeded", false) ? json_int(answer.at("header"), "revision") : 0;
}

EtcdPathLock::Guard EtcdPathLock::acquire_impl(const model::Request& request, WaitPolicy policy,
                                               Clock::time_point deadline, const std::stop_token& stop) {
  for (int lease_attempt = 0;; ++lease_attempt) {
    const std::shared_ptr<Lease> lease = current_lease();
    std::string id;
    {
      std::lock_guard lock(mu_);
      id = hex(lease->id) + "." + std::to_string(next_id_++);
    }
    {
      std::lock_guard lock(live_mu_);
      live_ids_.insert(id);
    }
    // Until it is granted, leaving (by return or throw) ends the acquisition.
    struct Forget {
      EtcdPathLock* lock;
      const std::string* id;
      ~Forget() {
        if (lock != nullptr) lock->forget(*id);
      }
    } forget_unless_granted{this, &id};
    const RecordPlan plan = plan_records(options_.key_prefix, request, id);
    const std::size_t ops = plan.records.size() + plan.checks.size();
    if (ops > options_.max_txn_ops) {
      throw std::invalid_argument("EtcdPathLock: " + request.to_string() + " needs " + std::to_string(ops) +
                                  " operations in one transaction; max_txn_ops (etcd's --max-txn-ops) is " +
                                  std::to_string(options_.max_txn_ops));
    }
    std::vector<std::string> keys;
    for (const auto& r : plan.records) keys.push_back(r.key);
    const std::string& first = keys.front();

    // One transaction: create the records unless a lost answer already did
    // (then read the first one back), and read every range that may hold a
    // conflicting record.
    json success = json::array();
    for (const auto& k : keys) {
      success.push_back({{"request_put", {{"key", base64_encode(k)}, {"value", ""}, {"lease", std::to_string(lease->id)}}}});
    }
    json failure = json::array({{{"request_range", {{"key", base64_encode(first)}}}}});
    for (const auto& c : plan.checks) {
      success.push_back(range_op(c.range));
      failure.push_back(range_op(c.range));
    }
    json answer;
    try {
      answer = client_.call("kv/txn", {{"compare", json::array({compare_created_at(first, 0)})},
                                       {"success", std::move(success)},
                                       {"failure", std::move(failure)}});
    } catch (const EtcdError& e) {
      // The lease expired before the transaction: start a new one.
      if (e.kind() == EtcdErrorKind::kRejected && e.grpc_code() == 5 && lease_attempt < 3) {
        lease_lost(lease, LeaseEnd::kExpired);
        continue;
      }
      throw;
    }
    const bool created = answer.value("succeeded", false);
    const json& responses = answer.at("responses");
    const std::int64_t read_at = json_int(answer.at("header"), "revision");
    std::int64_t ticket = read_at;
    std::size_t first_check = keys.size();
    if (!created) {
      const json& own = range_kvs(responses.at(0));
      if (own.empty()) return Guard(nullptr, nullptr, {}, {}, 0, 0, AcquireStatus::kLeaseLost);
      ticket = json_int(own.at(0), "create_revision");
      first_check = 1;
    }

    // Older conflicting records, each once.
    std::map<std::string, std::int64_t> blockers;
    for (std::size_t i = 0; i < plan.checks.size(); ++i) {
      for (const json& kv : range_kvs(responses.at(first_check + i))) {
        const std::int64_t created_at = json_int(kv, "create_revision");
        if (created_at >= ticket) continue;  // newer: it waits for us, not we for it
        std::string key = base64_decode(kv.at("key").get<std::string>());
        const auto parsed = parse_record_key(options_.key_prefix, key);
        if (!parsed) {
          throw EtcdError(EtcdErrorKind::kMalformedResponse,
                          "EtcdPathLock: a key under the lock's prefix '" + options_.key_prefix +
                              "' is not a lock record: '" + key + "' (no other key may be written there)");
        }
        if (records_conflict(plan.checks[i].mode, parsed->mode)) blockers.emplace(std::move(key), created_at);
      }
    }
    if (blockers.empty()) {
      Guard granted(this, lease, id, std::move(keys), ticket, read_at, AcquireStatus::kGranted);
      forget_unless_granted.lock = nullptr;  // the guard forgets the id when released
      return granted;
    }

    // Not granted yet: from here on, leaving without a grant withdraws the records.
    const auto withdraw = [&](AcquireStatus status) {
      try {
        delete_records(first, keys, ticket);
      } catch (const std::exception&) {
        // The sweep deletes them, or they expire with the lease.
      }
      return Guard(nullptr, nullptr, {}, {}, 0, 0, status);
    };
    if (policy == WaitPolicy::kNever) return withdraw(AcquireStatus::kWouldBlock);
    if (Clock::now() >= deadline) return withdraw(AcquireStatus::kTimedOut);
    std::int64_t granted_at = 0;
    const std::function<bool()> stopped = [&] { return stop.stop_requested() || lease->is_lost(); };
    try {
      // Watch the newest blocker: it was queued last, so by the time it is
      // gone the older ones usually are too. Then one transaction confirms
      // our own records (the lease is alive: etcd #11456) and reads every
      // remaining blocker: granted if none is left, else watch again.
      std::int64_t from = read_at + 1;
      for (;;) {
        const auto newest = std::max_element(blockers.begin(), blockers.end(),
                                             [](const auto& a, const auto& b) { return a.second < b.second; });
        const WatchEnd end = client_.watch_change(newest->first, from, deadline, stopped);
        if (end == WatchEnd::kTimedOut) return withdraw(AcquireStatus::kTimedOut);
        if (end == WatchEnd::kStopped) {
          return withdraw(lease->is_lost() ? AcquireStatus::kLeaseLost : AcquireStatus::kCancelled);
        }
        // Changed, compacted or broken: read them all again, at most
        // max_txn_ops per transaction (a blocker gone stays gone: keys are
        // never reused), the last one confirming our records.
        std::vector<std::string> remaining;
        for (const auto& entry : blockers) remaining.push_back(entry.first);
        // The next watch starts after the first batch's read: every blocker
        // still present was present then (a record never comes back), so no
        // deletion after it is missed, whichever batch read the record.
        std::int64_t first_read = 0;
        for (std::size_t begin = 0; begin < remaining.size(); begin += options_.max_txn_ops) {
          const std::size_t end_at = std::min(remaining.size(), begin + options_.max_txn_ops);
          json reads = json::array();
          for (std::size_t k = begin; k < end_at; ++k) {
            reads.push_back({{"request_range", {{"key", base64_encode(remaining[k])}, {"keys_only", true}}}});
          }
          const json check = client_.call(
              "kv/txn", {{"compare", json::array({compare_created_at(first, ticket)})}, {"success", reads}});
          if (!check.value("succeeded", false) || lease->is_lost()) return withdraw(AcquireStatus::kLeaseLost);
          const json& found = check.at("responses");
          for (std::size_t k = begin; k < end_at; ++k) {
            const json& kvs = range_kvs(found.at(k - begin));
            const auto it = blockers.find(remaining[k]);
            if (kvs.empty() || json_int(kvs.at(0), "create_revision") != it->second) blockers.erase(it);
          }
          const std::int64_t read_revision = json_int(check.at("header"), "revision");
          if (first_read == 0) first_read = read_revision;
          granted_at = read_revision;  // the last batch confirms the grant
        }
        from = first_read + 1;
        if (blockers.empty()) break;
      }
    } catch (...) {
      withdraw(AcquireStatus::kFailed);
      throw;
    }
    Guard granted(this, lease, id, std::move(keys), ticket, granted_at, AcquireStatus::kGranted);
    forget_unless_granted.lock = nullptr;  // the guard forgets the id when released
    return granted;
  }
}

EtcdPathLock::Guard EtcdPathLock::acquire(const model::Request& request, std::stop_token stop) {
  return acquire_impl(request, WaitPolicy::kUntilDeadline, Clock::time_point::max(), stop);
}
EtcdPathLock::Guard EtcdPathLock::try_acquire(const model::Request& request) {
  return acquire_impl(request, WaitPolicy::kNever, Clock::time_point::min(), {});
}
EtcdPathLock::Guard EtcdPathLock::acquire_until(const model::Request& request, Clock::time_point deadline,
                                                std::stop_token stop) {
  return acquire_impl(request, WaitPolicy::kUntilDeadline, deadline, stop);
}
EtcdPathLock::Guard EtcdPathLock::read(const model::Path& path) { return acquire(model::read(path).request()); }
EtcdPathLock::Guard EtcdPathLock::write(const model::Path& path) { return acquire(model::write(path).request()); }
EtcdPathLock::Guard EtcdPathLock::remove(const model::Path& path) { return acquire(model::remove(path).request()); }
EtcdPathLock::Guard EtcdPathLock::rename(const model::Path& from, const model::Path& to) {
  return acquire(model::rename(from, to).request());
}
EtcdPathLock::Guard EtcdPathLock::copy(const model::Path& from, const model::Path& to) {
  return acquire(model::copy(from, to).request());
}

FenceOutcome EtcdPathLock::fenced_put(const Guard& guard, std::string_view key, std::string_view value) {
  if (std::string_view(key).starts_with(options_.key_prefix)) {
    throw std::invalid_argument("EtcdPathLock::fenced_put: key '" + std::string(key) + "' is under the lock's prefix '" +
                                options_.key_prefix + "'");
  }
  if (guard.keys_.empty() || guard.revision_ == 0) return FenceOutcome::kRejected;
  const json answer =
      client_.call("kv/txn", {{"compare", json::array({compare_created_at(guard.keys_.front(), guard.revision_)})},
                              {"success", json::array({{{"request_put",
                                                          {{"key", base64_encode(key)},
                                                           {"value", base64_encode(value)}}}}})}});
  return answer.value("succeeded", false) ? FenceOutcome::kWritten : FenceOutcome::kRejected;
}

EtcdPathLock::Guard::Guard(EtcdPathLock* lock, std::shared_ptr<Lease> lease, std::string id,
                           std::vector<std::string> keys, std::int64_t revision, std::int64_t granted_at,
                           AcquireStatus status)
    : lock_(lock),
      lease_(std::move(lease)),
      id_(std::move(id)),
      keys_(std::move(keys)),
      revision_(revision),
      granted_at_(granted_at),
      status_(status) {}

EtcdPathLock::Guard::Guard(Guard&& other) noexcept
    : lock_(std::exchange(other.lock_, nullptr)),
      lease_(std::move(other.lease_)),
      id_(std::move(other.id_)),
      keys_(std::move(other.keys_)),
      revision_(std::exchange(other.revision_, 0)),
      granted_at_(std::exchange(other.granted_at_, 0)),
      status_(std::exchange(other.status_, AcquireStatus::kReleased)) {}

EtcdPathLock::Guard& EtcdPathLock::Guard::operator=(Guard&& other) noexcept {
  if (this != &other) {
    release();
    lock_ = std::exchange(other.lock_, nullptr);
    lease_ = std::move(other.lease_);
    id_ = std::move(other.id_);
    keys_ = std::move(other.keys_);
    revision_ = std::exchange(other.revision_, 0);
    granted_at_ = std::exchange(other.granted_at_, 0);
    status_ = std::exchange(other.status_, AcquireStatus::kReleased);
  }
  return *this;
}

AcquireStatus EtcdPathLock::Guard::status() const noexcept {
  if (status_ == AcquireStatus::kGranted && lease_ != nullptr && lease_->is_lost()) return AcquireStatus::kLeaseLost;
  return status_;
}

void EtcdPathLock::Guard::release() noexcept { (void)release_and_report(); }

std::int64_t EtcdPathLock::Guard::release_and_report() noexcept {
  std::int64_t deleted_at = 0;
  if (lock_ != nullptr && !keys_.empty()) {
    try {
      deleted_at = lock_->delete_records(keys_.front(), keys_, revision_);
    } catch (...) {
      // Left to the sweep, or to expire with the lease.
    }
    lock_->forget(id_);
  }
  lock_ = nullptr;
  lease_.reset();
  id_.clear();
  keys_.clear();
  revision_ = 0;
  granted_at_ = 0;
  status_ = AcquireStatus::kReleased;
  return deleted_at;
}

}  // namespace pathlock::etcd
