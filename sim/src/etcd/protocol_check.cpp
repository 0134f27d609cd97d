#include "pathlock/sim/etcd/protocol_check.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_set>

#include "pathlock/etcd/keys.hpp"
#include "pathlock/model/conflict.hpp"

namespace pathlock::sim::etcd_protocol {

using pathlock::etcd::KeyRange;
using pathlock::etcd::RecordMode;
using pathlock::etcd::RecordPlan;

std::string_view to_string(ProtocolVariant variant) noexcept {
  switch (variant) {
    case ProtocolVariant::kShipped: return "shipped";
    case ProtocolVariant::kUnconfirmedGrant: return "unconfirmed-grant";
    case ProtocolVariant::kUnfencedRelease: return "unfenced-release";
    case ProtocolVariant::kPrefixUnsafeKeys: return "prefix-unsafe-keys";
    case ProtocolVariant::kNoOrphanSweep: return "no-orphan-sweep";
  }
  return "?";
}

const std::vector<ProtocolVariant>& all_protocol_variants() {
  static const std::vector<ProtocolVariant> all = {ProtocolVariant::kShipped, ProtocolVariant::kUnconfirmedGrant,
                                                   ProtocolVariant::kUnfencedRelease, ProtocolVariant::kPrefixUnsafeKeys,
                                                   ProtocolVariant::kNoOrphanSweep};
  return all;
}

std::optional<ProtocolVariant> protocol_variant_from_string(std::string_view name) {
  for (const auto v : all_protocol_variants()) {
    if (to_string(v) == name) return v;
  }
  return std::nullopt;
}

std::string_view to_string(ProtocolProperty property) noexcept {
  switch (property) {
    case ProtocolProperty::kExclusion: return "exclusion";
    case ProtocolProperty::kGrantValidity: return "grant validity";
    case ProtocolProperty::kForeignDelete: return "foreign delete";
    case ProtocolProperty::kOverBlocking: return "over-blocking";
    case ProtocolProperty::kStuck: return "stuck";
  }
  return "?";
}

std::string ProtocolScenario::to_string() const {
  std::string out;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    if (c > 0) out += "; ";
    out += "client " + std::to_string(c) + ":";
    for (const auto& r : clients[c]) out += " " + r.to_string();
  }
  return out;
}

namespace {

constexpr std::string_view kPrefix = "p/";

enum class LeasePhase : std::uint8_t { kAlive, kNoticed };
enum class Phase : std::uint8_t { kStart, kWaiting, kConfirming, kHolding, kDone, kCrashed };

struct RecordInfo {
  std::int64_t create_rev;
  int client;
  int epoch;
  int acq;  // the acquisition that created it
};

struct ClientState {
  int next = 0;  // the request being worked on
  Phase phase = Phase::kStart;
  int epoch = 0;
  LeasePhase lease = LeasePhase::kAlive;
  int acq = -1;  // current acquisition (client * 100 + request * 10 + attempt)
  int attempt = 0;
  std::int64_t ticket = 0;
  std::vector<std::pair<std::string, std::int64_t>> blockers;  // remaining, in key order
  bool watch_cancelled = false;
};

struct Duplicate {
  bool is_release;
  int client;
  int epoch;
  int acq;
  std::int64_t ticket;  // release: the create revision it compares
};

struct State {
  std::int64_t revision = 1;
  std::map<std::string, RecordInfo> store;
  std::vector<ClientState> clients;
  std::vector<Duplicate> duplicates;
  std::vector<std::pair<int, int>> expiring;  // (client, epoch): noticed or crashed, not yet expired by etcd
  std::vector<std::pair<int, int>> expired;   // (client, epoch): expired by etcd
  FaultBudget left;

  // The state up to an order-preserving renaming of revisions: the protocol
  // only compares revisions (<, ==), and every new one exceeds all others,
  // so states that differ only in revision numbers behave alike.
  std::string key() const {
    std::vector<std::int64_t> revs;
    for (const auto& [name, r] : store) revs.push_back(r.create_rev);
    for (const auto& c : clients) {
      revs.push_back(c.ticket);
      for (const auto& b : c.blockers) revs.push_back(b.second);
    }
    for (const auto& d : duplicates) revs.push_back(d.ticket);
    std::sort(revs.begin(), revs.end());
    revs.erase(std::unique(revs.begin(), revs.end()), revs.end());
    const auto rank = [&](std::int64_t v) {
      return std::to_string(std::lower_bound(revs.begin(), revs.end(), v) - revs.begin());
    };
    std::string k;
    for (const auto& [name, r] : store) {
      k += name + "=" + rank(r.create_rev) + "," + std::to_string(r.client) + "," + std::to_string(r.epoch) + "," +
           std::to_string(r.acq) + ";";
    }
    k += "|";
    for (const auto& c : clients) {
      k += std::to_string(c.next) + "," + std::to_string(static_cast<int>(c.phase)) + "," + std::to_string(c.epoch) +
           "," + std::to_string(static_cast<int>(c.lease)) + "," + std::to_string(c.acq) + "," +
           std::to_string(c.attempt) + "," + rank(c.ticket) + "," + (c.watch_cancelled ? "x" : "") + "[";
      for (const auto& [b, rev] : c.blockers) k += b + ":" + rank(rev) + ";";
      k += "]";
    }
    k += "|";
    for (const auto& d : duplicates) {
      k += (d.is_release ? "R" : "A") + std::to_string(d.client) + "," + std::to_string(d.epoch) + "," +
           std::to_string(d.acq) + "," + rank(d.ticket) + ";";
    }
    k += "|";
    for (const auto& [c, e] : expiring) k += std::to_string(c) + "," + std::to_string(e) + ";";
    k += "|";
    for (const auto& [c, e] : expired) k += std::to_string(c) + "," + std::to_string(e) + ";";
    k += "|" + std::to_string(left.lease_expiries) + std::to_string(left.duplicates) + std::to_string(left.crashes) +
         std::to_string(left.compactions);
    return k;
  }
};

enum class StepKind : std::uint8_t { kProgress, kFault };

struct Successor {
  State state;
  std::string step;
  StepKind kind;
  std::optional<ProtocolViolation> violation;  // found while taking the step
};

// The key layout of the variant: what ships, or the prefix-unsafe encoding.
std::string encode(const model::Path& p, ProtocolVariant variant) {
  std::string e = pathlock::etcd::encode_path(p);
  if (variant == ProtocolVariant::kPrefixUnsafeKeys && !e.empty()) e.pop_back();  // "a/b" instead of "a/b/"
  return e;
}

RecordPlan plan_for(const model::Request& request, const std::string& id, ProtocolVariant variant) {
  if (variant != ProtocolVariant::kPrefixUnsafeKeys) return pathlock::etcd::plan_records(kPrefix, request, id);
  RecordPlan plan = pathlock::etcd::plan_records(kPrefix, request, id);
  for (auto& r : plan.records) {
    r.key = std::string(kPrefix) + encode(r.path, variant) + '\0' + static_cast<char>(r.mode) + id;
  }
  for (auto& c : plan.checks) {
    // Recompute each range from the path it was built for: subtree ranges
    // lose their separator, record ranges keep the NUL.
    const bool records_only = c.range.begin.back() == '\0';
    std::string begin = c.range.begin.substr(kPrefix.size());
    if (records_only) begin.pop_back();
    if (!begin.empty()) begin.pop_back();  // drop the trailing '/'
    begin = std::string(kPrefix) + begin + (records_only ? std::string(1, '\0') : std::string());
    c.range = {begin, pathlock::etcd::prefix_end(begin)};
  }
  return plan;
}

bool in_range(const std::string& key, const KeyRange& r) { return key >= r.begin && (r.end.empty() || key < r.end); }

class Checker {
 public:
  Checker(const ProtocolScenario& scenario, ProtocolVariant variant) : scenario_(scenario), variant_(variant) {}

  std::vector<Successor> successors(const State& s) const {
    std::vector<Successor> out;
    for (int c = 0; c < static_cast<int>(s.clients.size()); ++c) client_steps(s, c, out);
    // etcd expires the leases whose holders noticed the loss or crashed.
    for (std::size_t i = 0; i < s.expiring.size(); ++i) {
      State n = s;
      const int c = n.expiring[i].first;
      const int e = n.expiring[i].second;
      n.expiring.erase(n.expiring.begin() + static_cast<std::ptrdiff_t>(i));
      n.expired.push_back({c, e});
      const int deleted = delete_if(n, [&](const RecordInfo& r) { return r.client == c && r.epoch == e; });
      out.push_back({std::move(n), "etcd: lease " + lease_name(c, e) + " expires, deleting " +
                                       std::to_string(deleted) + " record(s)",
                     StepKind::kProgress, std::nullopt});
    }
    for (std::size_t i = 0; i < s.duplicates.size(); ++i) apply_duplicate(s, i, out);
    return out;
  }

  std::optional<ProtocolViolation> state_violation(const State& s) const {
    for (std::size_t i = 0; i < s.clients.size(); ++i) {
      for (std::size_t j = i + 1; j < s.clients.size(); ++j) {
        if (holds_with_records(s, static_cast<int>(i)) && holds_with_records(s, static_cast<int>(j)) &&
            model::conflicts(request_of(s.clients[i].acq), request_of(s.clients[j].acq))) {
          return ProtocolViolation{ProtocolProperty::kExclusion,
                                   "clients " + std::to_string(i) + " and " + std::to_string(j) + " both hold " +
                                       request_of(s.clients[i].acq).to_string() + " and " +
                                       request_of(s.clients[j].acq).to_string() + ", each with its records",
                                   {}};
        }
      }
    }
    return std::nullopt;
  }

  bool finished(const State& s) const {
    return std::all_of(s.clients.begin(), s.clients.end(),
                       [](const ClientState& c) { return c.phase == Phase::kDone || c.phase == Phase::kCrashed; });
  }

 private:
  const model::Request& request_of(int acq) const {
    return scenario_.clients[static_cast<std::size_t>(acq / 100)][static_cast<std::size_t>((acq % 100) / 10)];
  }
  static std::string lease_name(int c, int e) { return std::to_string(c) + "." + std::to_string(e); }
  std::string id_for(int c, int epoch, int acq) const {
    // The unfenced variant names records by the lease alone, as etcd's
    // recipes name a session's key: the next acquisition reuses the name.
    if (variant_ == ProtocolVariant::kUnfencedRelease) return "L" + lease_name(c, epoch);
    return "L" + lease_name(c, epoch) + "#" + std::to_string(acq);
  }
  // Every state asks for the same few plans (its clients' acquisitions):
  // computed once per (client, epoch, acquisition).
  const RecordPlan& plan_of(int c, int epoch, int acq) const {
    const auto [it, inserted] = plans_.try_emplace({c, epoch, acq});
    if (inserted) it->second = plan_for(request_of(acq), id_for(c, epoch, acq), variant_);
    return it->second;
  }

  bool holds_with_records(const State& s, int c) const {
    const ClientState& cs = s.clients[static_cast<std::size_t>(c)];
    if (cs.phase != Phase::kHolding) return false;
    const auto& plan = plan_of(c, cs.epoch, cs.acq);
    const auto it = s.store.find(plan.records.front().key);
    return it != s.store.end() && it->second.acq == cs.acq;
  }

  template <typename Pred>
  static int delete_if(State& s, Pred pred) {
    int deleted = 0;
    for (auto it = s.store.begin(); it != s.store.end();) {
      if (pred(it->second)) {
        it = s.store.erase(it);
        ++deleted;
      } else {
        ++it;
      }
    }
    if (deleted > 0) ++s.revision;
    return deleted;
  }

  // The acquire transaction's writes: create the records unless the first exists.
  static bool put_records(State& s, const RecordPlan& plan, int c, int epoch, int acq) {
    if (s.store.count(plan.records.front().key) != 0) return false;
    ++s.revision;
    for (const auto& r : plan.records) s.store[r.key] = RecordInfo{s.revision, c, epoch, acq};
    return true;
  }

  // A release (or withdrawal): fenced by the create revision, or by name.
  std::optional<ProtocolViolation> delete_records(State& s, int c, int epoch, int acq, std::int64_t ticket,
                                                  const std::string& who) const {
    const auto& plan = plan_of(c, epoch, acq);
    if (variant_ != ProtocolVariant::kUnfencedRelease) {
      const auto it = s.store.find(plan.records.front().key);
      if (it == s.store.end() || it->second.create_rev != ticket) return std::nullopt;
    }
    std::optional<ProtocolViolation> violation;
    bool any = false;
    for (const auto& r : plan.records) {
      const auto it = s.store.find(r.key);
      if (it == s.store.end()) continue;
      if (it->second.acq != acq && !violation) {
        violation = ProtocolViolation{ProtocolProperty::kForeignDelete,
                                      who + " for " + request_of(acq).to_string() +
                                          " deleted a record of a later acquisition of " +
                                          request_of(it->second.acq).to_string() + " (client " +
                                          std::to_string(it->second.client) + ")",
                                      {}};
      }
      s.store.erase(it);
      any = true;
    }
    if (any) ++s.revision;
    return violation;
  }

  void next_request(ClientState& cs, int c) const {
    cs.blockers.clear();
    cs.watch_cancelled = false;
    cs.ticket = 0;
    cs.acq = -1;
    cs.attempt = 0;
    ++cs.next;
    cs.phase = cs.next < static_cast<int>(scenario_.clients[static_cast<std::size_t>(c)].size()) ? Phase::kStart
                                                                                               : Phase::kDone;
  }

  void client_steps(const State& s, int c, std::vector<Successor>& out) const {
    const ClientState& cs = s.clients[static_cast<std::size_t>(c)];
    const std::string who = "client " + std::to_string(c);
    if (cs.phase == Phase::kDone || cs.phase == Phase::kCrashed) {
      if (cs.phase == Phase::kDone) sweep(s, c, out);
      return;
    }
    switch (cs.phase) {
      case Phase::kStart:
        for (const bool duplicated : {false, true}) {
          if (duplicated && s.left.duplicates == 0) continue;
          State n = s;
          auto v = acquire(n, c, duplicated);
          std::string step = who + ": acquire " + request_of(n.clients[static_cast<std::size_t>(c)].acq).to_string() +
                             " -> ticket " + std::to_string(n.clients[static_cast<std::size_t>(c)].ticket) + ", " +
                             describe_phase(n.clients[static_cast<std::size_t>(c)]);
          if (duplicated) step += " (the request will be applied again later)";
          out.push_back({std::move(n), step, duplicated ? StepKind::kFault : StepKind::kProgress, std::move(v)});
        }
        break;
      case Phase::kWaiting: {
        const auto& [key, rev] = cs.blockers.front();
        const auto it = s.store.find(key);
        const bool gone = it == s.store.end() || it->second.create_rev != rev;
        if (gone || cs.watch_cancelled) {
          State n = s;
          auto& ns = n.clients[static_cast<std::size_t>(c)];
          std::string step;
          if (gone) {
            ns.blockers.erase(ns.blockers.begin());
            ns.watch_cancelled = false;
            step = who + (cs.watch_cancelled ? ": reads a blocker again: gone" : ": watch reports a blocker deleted");
            if (ns.blockers.empty()) ns.phase = Phase::kConfirming;
          } else {
            ns.watch_cancelled = false;
            step = who + ": reads a blocker again: still there, watches from the read";
          }
          out.push_back({std::move(n), step, StepKind::kProgress, std::nullopt});
        }
        if (!cs.watch_cancelled && s.left.compactions > 0) {
          State n = s;
          --n.left.compactions;
          n.clients[static_cast<std::size_t>(c)].watch_cancelled = true;
          out.push_back({std::move(n), "etcd: compaction cancels " + who + "'s watch", StepKind::kFault, std::nullopt});
        }
        abort_on_loss(s, c, out);
        break;
      }
      case Phase::kConfirming: {
        State n = s;
        auto& ns = n.clients[static_cast<std::size_t>(c)];
        const auto& plan = plan_of(c, ns.epoch, ns.acq);
        const auto it = n.store.find(plan.records.front().key);
        const bool records_exist = it != n.store.end() && it->second.create_rev == ns.ticket;
        if (variant_ == ProtocolVariant::kUnconfirmedGrant) {
          ns.phase = Phase::kHolding;
          std::optional<ProtocolViolation> v;
          if (!records_exist) {
            v = ProtocolViolation{ProtocolProperty::kGrantValidity,
                                  who + " was granted " + request_of(ns.acq).to_string() +
                                      " after its lease expired: its records are gone",
                                  {}};
          }
          out.push_back({std::move(n), who + ": granted (no confirmation)", StepKind::kProgress, std::move(v)});
        } else if (records_exist && ns.lease == LeasePhase::kAlive) {
          ns.phase = Phase::kHolding;
          out.push_back({std::move(n), who + ": confirms its records and is granted", StepKind::kProgress, std::nullopt});
        } else {
          auto v = delete_records(n, c, ns.epoch, ns.acq, ns.ticket, who + "'s withdrawal");
          next_request(ns, c);
          out.push_back({std::move(n), who + ": confirmation fails (lease lost): withdraws", StepKind::kProgress,
                         std::move(v)});
        }
        abort_on_loss(s, c, out);
        break;
      }
      case Phase::kHolding:
        for (const bool duplicated : {false, true}) {
          if (duplicated && s.left.duplicates == 0) continue;
          State n = s;
          auto& ns = n.clients[static_cast<std::size_t>(c)];
          if (duplicated) {
            --n.left.duplicates;
            n.duplicates.push_back({true, c, ns.epoch, ns.acq, ns.ticket});
          }
          const std::string what = request_of(ns.acq).to_string();
          auto v = delete_records(n, c, ns.epoch, ns.acq, ns.ticket, who + "'s release");
          next_request(ns, c);
          out.push_back({std::move(n),
                         who + ": releases " + what + (duplicated ? " (the request will be applied again later)" : ""),
                         duplicated ? StepKind::kFault : StepKind::kProgress, std::move(v)});
        }
        break;
      default: break;
    }
    sweep(s, c, out);
    // Faults of a running client: its lease is lost, or it crashes.
    if (cs.lease == LeasePhase::kAlive && s.left.lease_expiries > 0) {
      State n = s;
      --n.left.lease_expiries;
      n.clients[static_cast<std::size_t>(c)].lease = LeasePhase::kNoticed;
      n.expiring.push_back({c, cs.epoch});
      out.push_back({std::move(n), who + ": its lease " + lease_name(c, cs.epoch) + " runs out (the local timer fires)",
                     StepKind::kFault, std::nullopt});
    }
    if (s.left.crashes > 0) {
      State n = s;
      --n.left.crashes;
      auto& ns = n.clients[static_cast<std::size_t>(c)];
      ns.phase = Phase::kCrashed;
      if (ns.lease == LeasePhase::kAlive) n.expiring.push_back({c, ns.epoch});
      out.push_back({std::move(n), who + ": crashes", StepKind::kFault, std::nullopt});
    }
  }

  // A waiter whose lease is lost stops waiting (the shipped lock's wait
  // watches its lease); the unconfirmed variant waits on.
  void abort_on_loss(const State& s, int c, std::vector<Successor>& out) const {
    const ClientState& cs = s.clients[static_cast<std::size_t>(c)];
    if (variant_ == ProtocolVariant::kUnconfirmedGrant || cs.lease != LeasePhase::kNoticed) return;
    State n = s;
    auto& ns = n.clients[static_cast<std::size_t>(c)];
    auto v = delete_records(n, c, ns.epoch, ns.acq, ns.ticket, "client " + std::to_string(c) + "'s withdrawal");
    next_request(ns, c);
    out.push_back({std::move(n), "client " + std::to_string(c) + ": sees its lease lost while waiting: withdraws",
                   StepKind::kProgress, std::move(v)});
  }

  // The lock's background sweep deletes the records of its live lease that no
  // live acquisition owns (left by a late duplicate of an acquire).
  void sweep(const State& s, int c, std::vector<Successor>& out) const {
    if (variant_ == ProtocolVariant::kNoOrphanSweep) return;
    const ClientState& cs = s.clients[static_cast<std::size_t>(c)];
    if (cs.lease != LeasePhase::kAlive) return;
    const bool live = cs.phase == Phase::kWaiting || cs.phase == Phase::kConfirming || cs.phase == Phase::kHolding;
    const auto orphan = [&](const RecordInfo& r) {
      return r.client == c && r.epoch == cs.epoch && !(live && r.acq == cs.acq);
    };
    if (std::none_of(s.store.begin(), s.store.end(), [&](const auto& kv) { return orphan(kv.second); })) return;
    State n = s;
    const int deleted = delete_if(n, orphan);
    out.push_back({std::move(n), "client " + std::to_string(c) + ": sweeps " + std::to_string(deleted) +
                                     " record(s) of its lease that no live acquisition owns",
                   StepKind::kProgress, std::nullopt});
  }

  std::optional<ProtocolViolation> acquire(State& n, int c, bool duplicated) const {
    auto& cs = n.clients[static_cast<std::size_t>(c)];
    if (cs.lease != LeasePhase::kAlive) {  // the lost lease is replaced by a new one
      ++cs.epoch;
      cs.lease = LeasePhase::kAlive;
    }
    cs.acq = c * 100 + cs.next * 10 + cs.attempt;
    ++cs.attempt;
    const auto& plan = plan_of(c, cs.epoch, cs.acq);
    if (duplicated) {
      --n.left.duplicates;
      n.duplicates.push_back({false, c, cs.epoch, cs.acq, 0});
    }
    if (put_records(n, plan, c, cs.epoch, cs.acq)) {
      cs.ticket = n.revision;
    } else {
      cs.ticket = n.store.at(plan.records.front().key).create_rev;
    }
    std::optional<ProtocolViolation> violation;
    std::map<std::string, std::int64_t> blockers;
    for (const auto& check : plan.checks) {
      for (const auto& [key, r] : n.store) {
        if (!in_range(key, check.range) || r.create_rev >= cs.ticket) continue;
        const auto mode = record_mode(key);
        if (!mode || !pathlock::etcd::records_conflict(check.mode, *mode)) continue;
        blockers.emplace(key, r.create_rev);
        if (!violation && !model::conflicts(request_of(cs.acq), request_of(r.acq))) {
          violation = ProtocolViolation{ProtocolProperty::kOverBlocking,
                                        "client " + std::to_string(c) + "'s " + request_of(cs.acq).to_string() +
                                            " waits for " + request_of(r.acq).to_string() +
                                            ", which it does not conflict with",
                                        {}};
        }
      }
    }
    cs.blockers.assign(blockers.begin(), blockers.end());
    cs.phase = cs.blockers.empty() ? Phase::kHolding : Phase::kWaiting;
    return violation;
  }

  // The shipped parser, except for the prefix-unsafe layout, which it
  // rightly refuses: there the mode is the byte after the NUL.
  std::optional<RecordMode> record_mode(const std::string& key) const {
    if (variant_ != ProtocolVariant::kPrefixUnsafeKeys) {
      const auto parsed = pathlock::etcd::parse_record_key(kPrefix, key);
      if (!parsed) return std::nullopt;
      return parsed->mode;
    }
    return static_cast<RecordMode>(key[key.find('\0') + 1]);
  }

  static std::string describe_phase(const ClientState& cs) {
    if (cs.phase == Phase::kHolding) return "granted";
    return "waits for " + std::to_string(cs.blockers.size()) + " older record(s)";
  }

  void apply_duplicate(const State& s, std::size_t i, std::vector<Successor>& out) const {
    State n = s;
    const Duplicate d = n.duplicates[i];
    n.duplicates.erase(n.duplicates.begin() + static_cast<std::ptrdiff_t>(i));
    const std::string who = "client " + std::to_string(d.client);
    if (d.is_release) {
      auto v = delete_records(n, d.client, d.epoch, d.acq, d.ticket, who + "'s duplicated release");
      out.push_back({std::move(n), "etcd: applies " + who + "'s release of " + request_of(d.acq).to_string() + " again",
                     StepKind::kFault, std::move(v)});
      return;
    }
    // An acquire applied again: it creates the records if they are gone and
    // its lease is still alive.
    const bool lease_alive =
        std::find(n.expired.begin(), n.expired.end(), std::pair<int, int>{d.client, d.epoch}) == n.expired.end();
    bool created = false;
    if (lease_alive) created = put_records(n, plan_of(d.client, d.epoch, d.acq), d.client, d.epoch, d.acq);
    out.push_back({std::move(n),
                   "etcd: applies " + who + "'s acquire of " + request_of(d.acq).to_string() + " again" +
                       (created ? ": its records are created anew" : ": nothing created"),
                   StepKind::kFault, std::nullopt});
  }

  const ProtocolScenario& scenario_;
  ProtocolVariant variant_;
  mutable std::map<std::tuple<int, int, int>, RecordPlan> plans_;
};

}  // namespace

ProtocolResult check_protocol(const ProtocolScenario& scenario, ProtocolVariant variant, const FaultBudget& faults,
                              std::size_t max_states) {
  if (scenario.clients.empty() || scenario.clients.size() > 3) {
    throw std::invalid_argument("check_protocol: " + std::to_string(scenario.clients.size()) +
                                " clients; the model takes 1 to 3");
  }
  for (const auto& c : scenario.clients) {
    if (c.empty() || c.size() > 3) {
      throw std::invalid_argument("check_protocol: a client with " + std::to_string(c.size()) +
                                  " requests; the model takes 1 to 3 per client");
    }
  }
  const Checker checker(scenario, variant);
  struct Node {
    State state;
    std::size_t parent;
    std::string step;
  };
  std::vector<Node> nodes;
  std::unordered_set<std::string> seen;
  State initial;
  initial.clients.resize(scenario.clients.size());
  initial.left = faults;
  seen.insert(initial.key());
  nodes.push_back({std::move(initial), 0, ""});
  ProtocolResult result;
  const auto trace_to = [&](std::size_t index, const std::string& last) {
    std::vector<std::string> trace;
    if (!last.empty()) trace.push_back(last);
    for (std::size_t i = index; i != 0; i = nodes[i].parent) trace.push_back(nodes[i].step);
    std::reverse(trace.begin(), trace.end());
    return trace;
  };
  for (std::size_t head = 0; head < nodes.size(); ++head) {
    auto successors = checker.successors(nodes[head].state);
    bool progress = false;
    for (auto& next : successors) {
      if (next.kind == StepKind::kProgress) progress = true;
      if (next.violation) {
        result.end = SearchEnd::kViolation;
        next.violation->trace = trace_to(head, next.step);
        result.violation = std::move(next.violation);
        result.states = nodes.size();
        return result;
      }
      if (auto v = checker.state_violation(next.state)) {
        result.end = SearchEnd::kViolation;
        v->trace = trace_to(head, next.step);
        result.violation = std::move(v);
        result.states = nodes.size();
        return result;
      }
      if (!seen.insert(next.state.key()).second) continue;
      if (nodes.size() >= max_states) {
        result.end = SearchEnd::kStateLimit;
        result.states = nodes.size();
        return result;
      }
      nodes.push_back({std::move(next.state), head, std::move(next.step)});
    }
    if (!progress && !checker.finished(nodes[head].state)) {
      result.end = SearchEnd::kViolation;
      result.violation = ProtocolViolation{ProtocolProperty::kStuck,
                                           "a client can never finish: every step left is a fault", trace_to(head, "")};
      result.states = nodes.size();
      return result;
    }
  }
  result.states = nodes.size();
  return result;
}

bool expected_to_pass(ProtocolVariant variant) noexcept { return variant == ProtocolVariant::kShipped; }

std::vector<model::Request> default_protocol_pool() {
  const auto p = [](std::string_view s) { return model::Path::parse(s); };
  return {model::write(p("/a")).request(), model::read(p("/a")).request(), model::write(p("/a/b")).request(),
          model::write(p("/ab")).request()};
}

ProtocolCampaign check_protocol_campaign(ProtocolVariant variant, const std::vector<model::Request>& pool,
                                         int max_clients, int max_requests, const FaultBudget& faults,
                                         std::size_t max_states_per_scenario,
                                         const std::function<void(std::size_t, std::size_t)>& progress) {
  if (pool.empty()) throw std::invalid_argument("check_protocol_campaign: an empty request pool");
  if (max_clients < 1 || max_clients > 3 || max_requests < 1 || max_requests > 3) {
    throw std::invalid_argument("check_protocol_campaign: clients 1 to 3 and requests 1 to 3 per client; got " +
                                std::to_string(max_clients) + " and " + std::to_string(max_requests));
  }
  ProtocolCampaign campaign;
  campaign.variant = variant;
  // Every client's request list: sequences over the pool of length 1..max_requests.
  std::vector<std::vector<model::Request>> sequences;
  for (int len = 1; len <= max_requests; ++len) {
    std::vector<std::size_t> idx(static_cast<std::size_t>(len), 0);
    for (;;) {
      std::vector<model::Request> seq;
      for (const auto i : idx) seq.push_back(pool[i]);
      sequences.push_back(std::move(seq));
      std::size_t k = 0;
      while (k < idx.size() && ++idx[k] == pool.size()) idx[k++] = 0;
      if (k == idx.size()) break;
    }
  }
  // Scenarios by size: total requests, then clients; clients as sorted
  // tuples of sequence indices (clients are symmetric).
  struct Candidate {
    std::size_t total;
    std::vector<std::size_t> seqs;
  };
  std::vector<Candidate> candidates;
  for (int n = 1; n <= max_clients; ++n) {
    std::vector<std::size_t> idx(static_cast<std::size_t>(n), 0);
    for (;;) {
      if (std::is_sorted(idx.begin(), idx.end())) {
        std::size_t total = 0;
        for (const auto i : idx) total += sequences[i].size();
        candidates.push_back({total, idx});
      }
      std::size_t k = 0;
      while (k < idx.size() && ++idx[k] == sequences.size()) idx[k++] = 0;
      if (k == idx.size()) break;
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.total < b.total; });
  // The first size with a violation is searched whole, and its shortest
  // trace kept: a smallest scenario, then a shortest trace.
  std::optional<std::size_t> failing_size;
  for (const auto& cand : candidates) {
    if (failing_size && cand.total > *failing_size) break;
    ProtocolScenario scenario;
    for (const auto i : cand.seqs) scenario.clients.push_back(sequences[i]);
    const auto r = check_protocol(scenario, variant, faults, max_states_per_scenario);
    ++campaign.scenarios;
    campaign.states += r.states;
    if (progress) progress(campaign.scenarios, candidates.size());
    if (r.end == SearchEnd::kStateLimit && !failing_size) {
      campaign.end = r.end;
      campaign.failing = scenario;
      return campaign;
    }
    if (r.end == SearchEnd::kViolation &&
        (!campaign.violation || r.violation->trace.size() < campaign.violation->trace.size())) {
      campaign.end = r.end;
      campaign.failing = scenario;
      campaign.violation = r.violation;
      failing_size = cand.total;
    }
  }
  return campaign;
}

}  // namespace pathlock::sim::etcd_protocol
