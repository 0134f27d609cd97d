#pragma once
// Reading `pathlock check`'s Markdown report back, for tests: its table rows,
// and a check that every scheme's summary row and evidence rows say what its
// JSON says (verdict, statuses, counts).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pathlock::testing {

// The cells of each Markdown table row ("| a | b |"), in order.
inline std::vector<std::vector<std::string>> markdown_rows(const std::string& md) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("| ") || line.starts_with("|---")) continue;
    std::vector<std::string> cells;
    for (std::size_t at = 2; at < line.size();) {
      const auto bar = line.find(" |", at);
      if (bar == std::string::npos) break;
      cells.push_back(line.substr(at, bar - at));
      at = bar + 3;
    }
    rows.push_back(std::move(cells));
  }
  return rows;
}

// "6 pass, 1 weak": how many rows of each status ("pass", "fail", ...), in
// the order the report lists statuses.
inline std::string status_counts(const std::vector<std::string>& statuses) {
  std::string out;
  for (const char* status : {"pass", "fail", "incomplete", "weak", "no power"}) {
    const auto n = std::count(statuses.begin(), statuses.end(), status);
    if (n > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, status);
  }
  return out;
}

// The statuses of a scheme's evidence rows, as the JSON gives them (a family
// that was not explored is one "no power" row).
inline std::vector<std::string> json_statuses(const nlohmann::json& scheme) {
  std::vector<std::string> out{scheme["static"]["status"]};
  bool explored = false;
  for (const auto& p : scheme["family"]) {
    if (p["scenarios"] == 0) continue;
    explored = true;
    out.push_back(p["status"]);
  }
  if (!explored) out.push_back("no power");
  for (const auto& c : scheme["campaigns"]) out.push_back(c["status"]);
  return out;
}

inline std::string verdict_text(const std::string& verdict) {
  return verdict == "pass" ? "✓ pass" : verdict == "fail" ? "✗ fail" : "? inconclusive";
}

inline std::string status_text(const std::string& status) {
  if (status == "pass") return "✓ pass";
  if (status == "fail") return "✗ fail";
  if (status == "incomplete") return "? incomplete";
  if (status == "weak") return "~ weak";
  return "– no power";
}

// The summary row of every scheme, and every evidence row of its section,
// say what the JSON says: verdict, statuses, counts.
inline void expect_markdown_matches_json(const std::string& md, const nlohmann::json& j) {
  const auto rows = markdown_rows(md);
  for (const auto& scheme : j["schemes"]) {
    const std::string name = scheme["scheme"]["name"];
    SCOPED_TRACE(name);
    const auto summary = std::find_if(rows.begin(), rows.end(),
                                      [&](const auto& r) { return !r.empty() && r[0] == "**" + name + "**"; });
    ASSERT_NE(summary, rows.end()) << md;
    ASSERT_EQ(summary->size(), 9u);
    EXPECT_EQ((*summary)[1], verdict_text(scheme["verdict"]));
    EXPECT_EQ((*summary)[2], status_counts(json_statuses(scheme)));
    EXPECT_EQ((*summary)[4], fmt::format("{}", scheme["static"]["unsafe_pairs"].get<std::uint64_t>()));
    std::uint64_t failures = 0;
    std::uint64_t scenarios = 0;
    for (const auto& p : scheme["family"]) {
      failures += p["violations"].get<std::uint64_t>() + p["deadlocks"].get<std::uint64_t>() +
                  p["overtakes"].get<std::uint64_t>();
      scenarios += p["scenarios"].get<std::uint64_t>();
    }
    EXPECT_EQ((*summary)[5], fmt::format("{} of {}", failures, scenarios));
    // The fairness column: the promise, and whether the search kept it.
    const auto& fairness = scheme["fairness"];
    const std::string promised = fairness["promised"];
    const std::string status = fairness["status"];
    EXPECT_EQ((*summary)[7], status == "not judged" ? promised
                             : status == "kept"     ? promised + ": kept"
                                                    : fmt::format("{}: {} overtook", promised,
                                                                  fairness["failures"].get<std::uint64_t>()));
    EXPECT_NE(md.find(fairness["summary"].get<std::string>()), std::string::npos);
    // The scheme's section: its heading, then its evidence rows.
    const auto heading = md.find(fmt::format("\n## {}: {}\n", name, scheme["verdict"].get<std::string>()));
    ASSERT_NE(heading, std::string::npos);
    const auto next = md.find("\n## ", heading + 1);
    const auto section = markdown_rows(md.substr(heading, next == std::string::npos ? std::string::npos : next - heading));
    ASSERT_FALSE(section.empty());
    EXPECT_EQ(section[0], (std::vector<std::string>{"evidence", "scope", "power", "failures", "result"}));
    const auto row = [&](const std::string& evidence) -> const std::vector<std::string>& {
      static const std::vector<std::string> none;
      for (const auto& r : section) {
        if (r[0] == evidence) return r;
      }
      ADD_FAILURE() << "no row " << evidence;
      return none;
    };
    EXPECT_EQ(row("static table").at(4), status_text(scheme["static"]["status"]));
    EXPECT_TRUE(row("static table").at(2).starts_with(fmt::format("{} pairs", scheme["static"]["pairs"].get<std::uint64_t>())));
    for (const auto& p : scheme["family"]) {
      if (p["scenarios"] == 0) continue;
      const auto& r = row("family: " + p["part"].get<std::string>());
      EXPECT_TRUE(r.at(2).starts_with(fmt::format("{} scenarios, {} states, {} transitions",
                                                  p["scenarios"].get<std::uint64_t>(), p["states"].get<std::uint64_t>(),
                                                  p["transitions"].get<std::uint64_t>())))
          << r.at(2);
      EXPECT_EQ(r.at(3), fmt::format("{}", p["violations"].get<std::uint64_t>() + p["deadlocks"].get<std::uint64_t>() +
                                               p["overtakes"].get<std::uint64_t>()));
      EXPECT_EQ(r.at(4), status_text(p["status"]));
    }
    for (const auto& c : scheme["campaigns"]) {
      const auto& r = row("campaign: " + c["scheduler"].get<std::string>());
      EXPECT_TRUE(r.at(2).starts_with(fmt::format("{} runs over {} scenarios", c["runs"].get<std::uint64_t>(),
                                                  c["scenarios"].get<std::uint64_t>())))
          << r.at(2);
      if (c.contains("depth")) {
        EXPECT_NE(r.at(2).find(fmt::format("miss a depth-{} bug with probability ≤ {:.3g}", c["depth"].get<int>(),
                                           c["worst_miss"].get<double>())),
                  std::string::npos)
            << r.at(2);
      }
      EXPECT_EQ(r.at(3), fmt::format("{}", c["failing_runs"].get<std::uint64_t>()));
      EXPECT_EQ(r.at(4), status_text(c["status"]));
    }
    if (scheme.contains("counterexample")) {
      const auto& shrink = scheme["counterexample"]["shrink"];
      const std::string expected =
          shrink["stop"] == "1-minimal"
              ? fmt::format("It is 1-minimal: each of its {} candidates", shrink["final_candidates"].get<std::size_t>())
              : fmt::format("Shrinking stopped at its limit of {} candidates", shrink["limit"].get<std::size_t>());
      EXPECT_NE(md.find(expected, heading), std::string::npos) << expected;
    }
  }
}

}  // namespace pathlock::testing
