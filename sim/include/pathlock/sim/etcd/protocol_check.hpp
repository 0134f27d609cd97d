#pragma once
// An exhaustive check of the etcd lock's protocol (proofs/etcd-lock.md) under
// faults, on the key layout and conflict rule that ship
// (pathlock/etcd/keys.hpp). etcd is modelled as what the protocol relies on:
// one revision counter, atomic transactions, leases whose keys vanish
// together, and watches that report a deletion (or are cancelled by a
// compaction, after which the key is read again). Clients run their requests
// one after another; each step of a client is one transaction or one
// observed watch event. Faults are nondeterministic events within a budget:
//   lease expiry    the client's local timer fires (its guards report the
//                   loss), then etcd expires the lease and deletes its keys;
//   duplicate       a request is applied once more, at any later moment (a
//                   retry after a lost answer, or a delayed original);
//   crash           the client stops; its keys go when its lease expires;
//   compaction      a waiter's watch is cancelled: it reads the key again.
// A breadth-first search over every interleaving finds the shortest trace
// to a violation of:
//   exclusion       two conflicting acquisitions granted while both still
//                   have their records (what a fenced write can rely on);
//   grant validity  a grant returned while the acquisition's records are
//                   gone, i.e. its lease expired (etcd #11456);
//   foreign delete  a release deleting records of another acquisition (etcd #22082);
//   over-blocking   a wait for a record of a request the model says does not
//                   conflict (the key-prefix trap, etcd website#710);
//   stuck           a client that can never finish without a fault.
// Conflicts are judged by the model (model::conflicts), never by the code
// under check.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/model/request.hpp"

namespace pathlock::sim::etcd_protocol {

enum class ProtocolVariant : std::uint8_t {
  kShipped,           // the lock as it ships
  kUnconfirmedGrant,  // a wait ends in a grant without a compare on the own records, and ignores the lease (#11456)
  kUnfencedRelease,   // records named by the lease alone (reused by its next acquisition), deleted by name (#22082)
  kPrefixUnsafeKeys,  // a path encoded without a separator after its last component (website#710)
  kNoOrphanSweep,     // no sweep of the lease's records that no live acquisition owns
};
std::string_view to_string(ProtocolVariant variant) noexcept;
std::optional<ProtocolVariant> protocol_variant_from_string(std::string_view name);
const std::vector<ProtocolVariant>& all_protocol_variants();

enum class ProtocolProperty : std::uint8_t { kExclusion, kGrantValidity, kForeignDelete, kOverBlocking, kStuck };
std::string_view to_string(ProtocolProperty property) noexcept;

struct FaultBudget {
  int lease_expiries = 1;
  int duplicates = 1;
  int crashes = 1;
  int compactions = 1;
};

// Each client's requests, run one after another.
struct ProtocolScenario {
  std::vector<std::vector<model::Request>> clients;
  std::string to_string() const;
};

struct ProtocolViolation {
  ProtocolProperty property;
  std::string what;                // the violation, in words
  std::vector<std::string> trace;  // the steps that reach it, shortest first
};

enum class SearchEnd : std::uint8_t { kExhausted, kViolation, kStateLimit };

struct ProtocolResult {
  SearchEnd end = SearchEnd::kExhausted;
  std::optional<ProtocolViolation> violation;
  std::size_t states = 0;
};

// REQUIRES: 1 to 3 clients, each with 1 to 3 requests.
ProtocolResult check_protocol(const ProtocolScenario& scenario, ProtocolVariant variant, const FaultBudget& faults,
                              std::size_t max_states = 2'000'000);

// Every scenario of 1 to `max_clients` clients with 1 to `max_requests`
// requests each, drawn from `pool`, smallest first; stops at the first
// violation, which is therefore a smallest scenario with a shortest trace.
struct ProtocolCampaign {
  ProtocolVariant variant = ProtocolVariant::kShipped;
  std::size_t scenarios = 0;  // checked
  std::size_t states = 0;     // over all scenarios
  SearchEnd end = SearchEnd::kExhausted;
  std::optional<ProtocolScenario> failing;
  std::optional<ProtocolViolation> violation;
};
std::vector<model::Request> default_protocol_pool();
// `progress`, if set, is called after each scenario with (checked, total).
ProtocolCampaign check_protocol_campaign(ProtocolVariant variant, const std::vector<model::Request>& pool,
                                         int max_clients, int max_requests, const FaultBudget& faults,
                                         std::size_t max_states_per_scenario = 2'000'000,
                                         const std::function<void(std::size_t, std::size_t)>& progress = {});
// Whether a variant is expected to pass (only the shipped design is).
bool expected_to_pass(ProtocolVariant variant) noexcept;

}  // namespace pathlock::sim::etcd_protocol
