// The etcd lock's protocol, checked exhaustively under faults
// (sim/etcd/protocol_check): the shipped design passes every small
// scenario; each naive variant fails, with a smallest scenario and a
// shortest trace, on the property its bug breaks.

#include <gtest/gtest.h>

#include "pathlock/sim/etcd/protocol_check.hpp"

namespace pathlock::sim::etcd_protocol {
namespace {

std::string show(const ProtocolCampaign& c) {
  std::string out = std::string(to_string(c.variant)) + ": " + std::to_string(c.scenarios) + " scenarios, " +
                    std::to_string(c.states) + " states";
  if (c.violation) {
    out += "\n" + std::string(to_string(c.violation->property)) + ": " + c.violation->what + "\nin " +
           c.failing->to_string();
    for (const auto& step : c.violation->trace) out += "\n  " + step;
  }
  return out;
}

// Every fault kind, in two budgets that keep the suite fast (all four at
// once, up to two requests per client: `pathlock check-etcd`, about a minute).
TEST(EtcdProtocol, TheShippedDesignPassesEverySmallScenarioUnderFaults) {
  for (const FaultBudget faults : {FaultBudget{.lease_expiries = 1, .duplicates = 1, .crashes = 0, .compactions = 0},
                                   FaultBudget{.lease_expiries = 1, .duplicates = 0, .crashes = 1, .compactions = 1}}) {
    const auto c = check_protocol_campaign(ProtocolVariant::kShipped, default_protocol_pool(), 2, 2, faults);
    EXPECT_EQ(c.end, SearchEnd::kExhausted) << show(c);
    EXPECT_GT(c.scenarios, 200u);
  }
  // Every fault at once, one request per client.
  const auto c = check_protocol_campaign(ProtocolVariant::kShipped, default_protocol_pool(), 2, 1, FaultBudget{});
  EXPECT_EQ(c.end, SearchEnd::kExhausted) << show(c);
}

struct Expected {
  ProtocolVariant variant;
  ProtocolProperty property;
};
class EtcdProtocolVariant : public ::testing::TestWithParam<Expected> {};

TEST_P(EtcdProtocolVariant, FailsOnItsPropertyWithASmallCounterexample) {
  const auto c = check_protocol_campaign(GetParam().variant, default_protocol_pool(), 2, 2, FaultBudget{});
  ASSERT_EQ(c.end, SearchEnd::kViolation) << show(c);
  EXPECT_EQ(c.violation->property, GetParam().property) << show(c);
  EXPECT_LE(c.violation->trace.size(), 7u) << show(c);
  std::cout << show(c) << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    Naive, EtcdProtocolVariant,
    ::testing::Values(Expected{ProtocolVariant::kUnconfirmedGrant, ProtocolProperty::kGrantValidity},
                      Expected{ProtocolVariant::kUnfencedRelease, ProtocolProperty::kForeignDelete},
                      Expected{ProtocolVariant::kPrefixUnsafeKeys, ProtocolProperty::kOverBlocking},
                      Expected{ProtocolVariant::kNoOrphanSweep, ProtocolProperty::kStuck}),
    [](const auto& param_info) {
      std::string name(to_string(param_info.param.variant));
      std::erase(name, '-');
      return name;
    });

TEST(EtcdProtocol, BadSizesAreRefused) {
  EXPECT_THROW(check_protocol(ProtocolScenario{}, ProtocolVariant::kShipped, FaultBudget{}), std::invalid_argument);
  EXPECT_THROW(check_protocol_campaign(ProtocolVariant::kShipped, default_protocol_pool(), 4, 1, FaultBudget{}),
               std::invalid_argument);
}

}  // namespace
}  // namespace pathlock::sim::etcd_protocol
