// Runs the pathlock program the way a user does and checks what it says.

#include <gtest/gtest.h>

#include "support/files.hpp"
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "pathlock/impl/scheme.hpp"

namespace {

using pathlock::testing::slurp;

struct CliRun {
  int status;
  std::string output;  // stdout and stderr
};

CliRun run(const std::string& args) {
  const std::string cmd = std::string(PATHLOCK_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf{};
  while (auto n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

TEST(Cli, SchemesListsOnePerLineNameFirst) {
  const CliRun r = run("schemes");
  ASSERT_EQ(r.status, 0) << r.output;
  std::size_t line_start = 0;
  for (const auto* s : pathlock::impl::builtin_schemes()) {
    ASSERT_LT(line_start, r.output.size());
    EXPECT_EQ(r.output.compare(line_start, s->name().size() + 1, s->name() + " "), 0) << r.output;
    line_start = r.output.find('\n', line_start) + 1;
  }
  EXPECT_EQ(line_start, r.output.size());
}

TEST(Cli, EverySubcommandHasHelp) {
  for (const char* sub : {"", "simulate", "replay", "schemes", "tables", "plan", "explore", "check", "promela", "crosscheck"}) {
    const CliRun r = run(std::string(sub) + " --help");
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << sub << ": " << r.output;
  }
}

TEST(Cli, TablesWritesTheThreeFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-cli-tables";
  std::filesystem::remove_all(dir);
  const CliRun r = run("tables --depth 2 --fanout 2 --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("path-rwa is UNSAFE"), std::string::npos);
  for (const char* f : {"tables.md", "tables.html", "tables.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  }
  std::ifstream in(dir / "tables.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("tree").at("depth"), 2);
  std::filesystem::remove_all(dir);
}

TEST(Cli, StrictFailsOnAnUnsafeSchemeOnly) {
  EXPECT_EQ(run("tables --no-files --strict --scheme path-rwa").status, 3);
  EXPECT_EQ(run("tables --no-files --strict --scheme path-rwa-joined --scheme path-rw").status, 0);
}

TEST(Cli, PlanShowsEachScheme) {
  const CliRun r = run("plan --scheme path-rwa-joined copy /a a/b");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("WA(/) RWA(/a) W(/a/b)"), std::string::npos) << r.output;
}

struct BadInput {
  const char* args;
  const char* says;
};

// Each command fails (with `status`, if given) and says what it should.
void expect_rejected(const std::vector<BadInput>& cases, int status = -1) {
  for (const auto& c : cases) {
    const CliRun r = run(c.args);
    if (status < 0) {
      EXPECT_NE(r.status, 0) << c.args;
    } else {
      EXPECT_EQ(r.status, status) << c.args << " said: " << r.output;
    }
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << " said: " << r.output;
  }
}

TEST(Cli, BadInputGetsAClearErrorAndNonZeroExit) {
  expect_rejected({
      {"tables --depth 0", "--depth"},
      {"tables --fanout 99", "--fanout"},
      {"tables --depth x", "--depth"},
      {"tables --fanout 1 --no-files", "no pair of category 3"},
      {"tables --scheme nope", "unknown scheme \"nope\""},
      {"tables --color sometimes", "--color"},
      {"tables --max-pairs 10 --no-files", "over the limit of 10"},
      {"frobnicate", "frobnicate"},
      {"plan", "operation"},
      {"plan move /a", "unknown operation \"move\""},
      {"plan copy /a", "copy takes 2 paths, got 1"},
      {"plan read a//b", "empty component"},
      {"plan read /a/", "ends with '/'"},
      {"plan read ''", "key is empty"},
      {"plan read \"$(printf 'a\\377')\"", "not valid UTF-8"},
  });
}


TEST(Cli, SimulateWritesReportsAndIsDeterministic) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-cli-simulate";
  std::filesystem::remove_all(dir);
  const std::string args = "simulate --tasks 400 --levels 1,4 --out " + dir.string();
  const CliRun first = run(args + "/a");
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("seed 1"), std::string::npos);
  EXPECT_NE(first.output.find("pathlock replay"), std::string::npos);  // path-rwa's multipath failure
  const CliRun second = run(args + "/b");
  ASSERT_EQ(second.status, 0) << second.output;
  for (const char* f : {"simulate.json", "simulate.md", "throughput.svg"}) {
    EXPECT_EQ(slurp(dir / "a" / f), slurp(dir / "b" / f)) << f;
  }
  EXPECT_EQ(run(args + "/c --strict").status, 3);
  EXPECT_EQ(run("simulate --tasks 300 --levels 2 --no-plots --scheme path-rwa-joined --strict --out " + dir.string() + "/d").status, 0);

  const std::string replay = (dir / "a" / "replay-path-rwa.json").string();
  const CliRun r = run("replay " + replay);
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("reproduced: yes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("The events that led there"), std::string::npos) << r.output;
  const CliRun fixed = run("replay " + replay + " --scheme path-rwa-joined");
  EXPECT_EQ(fixed.status, 0) << fixed.output;
  EXPECT_NE(fixed.output.find("completed"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Cli, BadSimulateAndReplayInputIsRejectedClearly) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-cli-bad";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad-workload.json") << R"({"tree": {"depth": 3}, "clientz": 4})";
  std::ofstream(dir / "not-json.json") << "{nope";
  std::ofstream(dir / "wrong-schema.json") << R"({"schema": "something/else"})";
  std::ofstream(dir / "bad-schedule.json")
      << R"({"schema": "pathlock.replay/1", "scheme": "path-rw", "schedule": {"clients": 1, "tasks": [{"op": "read", "paths": ["a"]}]}})";
  expect_rejected({
      {"simulate --levels 0 --no-plots", "level 0 is not a client count"},
      {"simulate --levels 2.5 --no-plots", "level 2.5 is not a client count"},
      {"simulate --tasks 0", "--tasks"},
      {"simulate --seed -4", "--seed"},
      {"simulate --workload /nonexistent/w.json", "/nonexistent/w.json"},
      {"simulate --scheme nope", "unknown scheme"},
      {"replay", "file"},
      {"replay /nonexistent.json", "/nonexistent.json"},
  });
  const auto in_dir = [&](const char* prefix, const char* file) { return prefix + (dir / file).string(); };
  const std::vector<std::string> args{in_dir("simulate --workload ", "bad-workload.json"),
                                      in_dir("replay ", "not-json.json"), in_dir("replay ", "wrong-schema.json"),
                                      in_dir("replay ", "bad-schedule.json")};
  expect_rejected({{args[0].c_str(), "clientz: unknown field"},
                   {args[1].c_str(), "not valid JSON"},
                   {args[2].c_str(), "not a replay file"},
                   {args[3].c_str(), "does not start with '/'"}},
                  2);
  std::filesystem::remove_all(dir);
}

// The shipped scenarios and scheme files: the broken variants fail with a
// counterexample and exit 3, the correct ones and a harmless reordering pass.
TEST(Cli, ExploreJudgesTheShippedSchemeFiles) {
  const std::string src = PATHLOCK_SOURCE_DIR;
  const std::string copies = src + "/sim/scenarios/opposite-copies.json";
  const std::string into = src + "/sim/scenarios/copy-into-own-subtree.json";
  const auto scheme = [&](const char* name) { return " --scheme-file " + src + "/sim/schemes/" + name + ".json"; };
  for (const char* broken : {"request-order", "depth-only"}) {
    const CliRun r = run("explore " + copies + scheme(broken));
    EXPECT_EQ(r.status, 3) << broken << ": " << r.output;
    EXPECT_NE(r.output.find("verdict: deadlock"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("waits for"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("digraph"), std::string::npos) << r.output;
  }
  const CliRun self = run("explore " + into + scheme("per-role"));
  EXPECT_EQ(self.status, 3) << self.output;
  EXPECT_NE(self.output.find("waits for a lock it holds itself"), std::string::npos) << self.output;
  const CliRun seed = run("explore " + into);  // the scenario names path-rwa, seed 000 as written
  EXPECT_EQ(seed.status, 3) << seed.output;
  EXPECT_NE(seed.output.find("verdict: safety violation"), std::string::npos) << seed.output;
  for (const char* fine : {"path-rwa-joined", "deepest-first"}) {
    for (const auto& scenario : {copies, into, src + "/sim/scenarios/hot-folder.json"}) {
      const CliRun r = run("explore " + scenario + scheme(fine));
      EXPECT_EQ(r.status, 0) << fine << ": " << r.output;
      EXPECT_NE(r.output.find("verdict: safe and deadlock-free"), std::string::npos) << r.output;
    }
  }
  // A counterexample replays from the schedule it prints.
  const CliRun failed = run("explore " + copies + scheme("request-order") + " --no-naive");
  const auto at = failed.output.find("--schedule ");
  ASSERT_NE(at, std::string::npos) << failed.output;
  const std::string schedule = failed.output.substr(at + 11, failed.output.find(')', at) - at - 11);
  const CliRun replayed = run("explore " + copies + scheme("request-order") + " --schedule " + schedule);
  EXPECT_EQ(replayed.status, 3) << replayed.output;
  EXPECT_NE(replayed.output.find("deadlock"), std::string::npos) << replayed.output;
}

TEST(Cli, ExploreRejectsBadInputClearly) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-cli-explore";
  std::filesystem::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string good = write("good.json", R"({"tasks": [["read /a"], ["write /a"]]})");
  struct Case {
    std::string args;
    std::string says;
  };
  const std::vector<Case> cases{
      {"explore " + write("bad-op.json", R"({"tasks": [["move /a /b"]]})"), "unknown operation"},
      {"explore " + write("bad-path.json", R"({"tasks": [["read a/b"]]})"), "tasks[0][0]"},
      {"explore " + write("bad-json.json", "{"), "not valid JSON"},
      {"explore " + good + " --scheme nope", "unknown scheme"},
      {"explore " + good + " --order sideways", "unknown order"},
      {"explore " + good + " --schedule 0,7", "--schedule"},
      {"explore " + good + " --scheme-file " + write("bad-scheme.json", R"({"name": "x"})"), "bad-scheme.json: modes"},
  };
  for (const auto& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << ": " << r.output;
  }
  EXPECT_EQ(run("explore " + good).status, 0);
  EXPECT_EQ(run("explore " + good + " --max-states 2").status, 4);
}

TEST(Cli, SchemesExportLoadsBack) {
  const auto file = std::filesystem::temp_directory_path() / "pathlock-cli-export.json";
  const CliRun r = run("schemes --export path-rw");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ofstream(file) << r.output;
  const CliRun again = run("explore " + std::string(PATHLOCK_SOURCE_DIR) +
                           "/sim/scenarios/opposite-copies.json --scheme-file " + file.string());
  EXPECT_EQ(again.status, 0) << again.output;
  EXPECT_NE(again.output.find("under path-rw "), std::string::npos) << again.output;
  EXPECT_NE(run("schemes --export nope").status, 0);
}

// `check` on the shipped scheme files: the three broken variants issue 4
// names and seed 000's scheme 4 fail with a minimal counterexample (exit 3);
// the corrected scheme and a harmless reordering pass (exit 0).
TEST(Cli, CheckJudgesTheSeedSchemeAndTheShippedVariants) {
  const std::string src = PATHLOCK_SOURCE_DIR;
  const std::string quick = "check --family quick --scenarios 4 --runs 10 --no-files --color never";
  const auto file = [&](const char* name) { return " --scheme-file " + src + "/sim/schemes/" + name + ".json"; };
  for (const char* broken : {"request-order", "depth-only", "per-role"}) {
    const CliRun r = run(quick + file(broken));
    EXPECT_EQ(r.status, 3) << broken << ": " << r.output;
    EXPECT_NE(r.output.find("Minimal counterexample"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("deadlock"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("fewest preemptions"), std::string::npos) << r.output;
  }
  const CliRun seed = run(quick + " --scheme path-rwa");
  EXPECT_EQ(seed.status, 3) << seed.output;
  EXPECT_NE(seed.output.find("safety violation"), std::string::npos) << seed.output;
  for (const std::string& fine : {file("deepest-first"), file("path-rwa-joined"), std::string(" --scheme path-rw")}) {
    const CliRun r = run(quick + fine);
    EXPECT_EQ(r.status, 0) << fine << ": " << r.output;
    EXPECT_NE(r.output.find("✓ pass"), std::string::npos) << r.output;
  }
}

TEST(Cli, CheckWritesReportsAndACounterexampleThatReplays) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-cli-check";
  std::filesystem::remove_all(dir);
  const CliRun r = run("check --family quick --scenarios 2 --runs 5 --color never --out " + dir.string() +
                       " --scheme-file " + std::string(PATHLOCK_SOURCE_DIR) + "/sim/schemes/request-order.json");
  ASSERT_EQ(r.status, 3) << r.output;
  for (const char* name : {"check.md", "check.html", "check.json", "request-order.scheme.json",
                           "request-order.counterexample.json", "request-order.cycle.dot"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / name)) << name << "\n" << r.output;
  }
  const auto json = nlohmann::json::parse(slurp(dir / "check.json"));
  EXPECT_EQ(json["schema"], "pathlock.check/2");
  EXPECT_EQ(json["schemes"][0]["verdict"], "fail");
  EXPECT_EQ(json["schemes"][0]["counterexample"]["kind"], "deadlock");
  // The printed replay command reproduces the deadlock.
  const std::string marker = "replay request-order: pathlock ";
  const auto at = r.output.find(marker);
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string args = r.output.substr(at + marker.size(), r.output.find('\n', at) - at - marker.size());
  const CliRun replayed = run(args);
  EXPECT_EQ(replayed.status, 3) << args << ": " << replayed.output;
  EXPECT_NE(replayed.output.find("verdict: deadlock"), std::string::npos) << replayed.output;
}

// No evidence is no pass: exit 4, each row shown without power.
TEST(Cli, CheckWithoutEvidenceIsInconclusive) {
  const CliRun r = run("check --family none --scenarios 0 --runs 0 --no-files --color never --scheme-file " +
                       std::string(PATHLOCK_SOURCE_DIR) + "/sim/schemes/request-order.json");
  EXPECT_EQ(r.status, 4) << r.output;
  EXPECT_NE(r.output.find("no evidence with power"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("? inconclusive"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("– no power"), std::string::npos) << r.output;
}

TEST(Cli, CheckRejectsBadInputClearly) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-cli-check-bad";
  std::filesystem::create_directories(dir);
  const auto bad_scheme = (dir / "bad.json").string();
  std::ofstream(bad_scheme) << R"({"name": "x"})";
  struct Case {
    std::string args;
    int status;
    std::string says;
  };
  const std::vector<Case> cases{
      {"check --scheme nope", 2, "unknown scheme \"nope\""},
      {"check --order sideways", 2, "unknown order"},
      {"check --scheme-file " + bad_scheme, 2, "bad.json: modes"},
      {"check --family huge", 105, "--family"},
      {"check --pct-depth 0", 105, "--pct-depth"},
      {"check --runs -3", 105, "--runs"},
      {"check --scheme-file /nonexistent.json", 105, "/nonexistent.json"},
  };
  for (const auto& c : cases) {
    const CliRun r = run(c.args + " --no-files");
    EXPECT_EQ(r.status, c.status) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << ": " << r.output;
  }
}

TEST(Cli, PromelaModelNamesEveryStepAndEveryConflict) {
  const std::string src = PATHLOCK_SOURCE_DIR;
  const CliRun r = run("promela " + src + "/sim/scenarios/copy-into-own-subtree.json --scheme path-rwa");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("active proctype T0()"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("active proctype T1()"), std::string::npos) << r.output;
  // copy(/a, /a/b) reads /a, which write(/a/c) writes below: one conflicting pair, one assertion.
  std::size_t asserts = 0;
  for (auto at = r.output.find("  assert(!(req["); at != std::string::npos; at = r.output.find("  assert(!(req[", at + 1)) {
    ++asserts;
  }
  EXPECT_EQ(asserts, 1u) << r.output;
  EXPECT_NE(r.output.find("copy(/a, /a/b) vs write(/a/c)"), std::string::npos) << r.output;
  const CliRun bad = run("promela " + src + "/sim/scenarios/opposite-copies.json --scheme nope");
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_NE(bad.output.find("unknown scheme"), std::string::npos) << bad.output;
}

// The cross-check fails when SPIN disagrees: a stand-in "spin" whose pan
// always reports an error, against a scenario the explorer finds safe.
TEST(Cli, CrosscheckFailsOnADisagreement) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-cli-fake-spin";
  std::filesystem::create_directories(dir);
  const auto fake = dir / "spin";
  std::ofstream(fake) << "#!/bin/sh\n"
                         "if [ \"$1\" = -V ]; then echo 'Spin Version 0 (stand-in)'; exit 0; fi\n"
                         "printf '#include <stdio.h>\\nint main(void) { puts(\"errors: 1\\\\n 3 states, stored\"); "
                         "return 0; }\\n' > pan.c\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const std::string src = PATHLOCK_SOURCE_DIR;
  const CliRun r = run("crosscheck --scenario " + src + "/sim/scenarios/opposite-copies.json --scheme path-rwa-joined --spin " +
                       fake.string());
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("DISAGREE"), std::string::npos) << r.output;
  const CliRun missing = run("crosscheck --scenario " + src + "/sim/scenarios/opposite-copies.json --spin /nonexistent/spin");
  EXPECT_EQ(missing.status, 1) << missing.output;
  EXPECT_NE(missing.output.find("cannot run SPIN"), std::string::npos) << missing.output;
  EXPECT_NE(run("crosscheck").status, 0);
}

}  // namespace
