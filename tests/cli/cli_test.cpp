// Runs the pathlock program the way a user does and checks what it says.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/files.hpp"
#include <sys/wait.h>

#include <array>
#include <chrono>
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

// `prefix` goes before the program in the shell command (a ulimit, a
// variable).
CliRun run_in_shell(const std::string& prefix, const std::string& args) {
  const std::string cmd = prefix + std::string(PATHLOCK_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf{};
  while (auto n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

CliRun run(const std::string& args) { return run_in_shell("", args); }

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
  for (const char* sub : {"", "simulate", "replay", "schemes", "tables", "plan", "explore", "check", "promela", "crosscheck",
                          "check-lock", "check-etcd"}) {
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

TEST(Cli, BadInputGetsAClearErrorAndExit2) {
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
      {"plan --scheme-file /nonexistent.json read /a", "/nonexistent.json"},
      {"simulate --invalid-keys maybe", "--invalid-keys"},
  }, 2);
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
  }, 2);
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
  const CliRun seed = run("explore " + into);  // the scenario names path-rwa, the scheme as first proposed
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
      // After 0,0,1,1 T0 holds read(/a) and T1's W(/a) is queued: a fifth step by T1 cannot happen.
      {"explore " + good + " --schedule 0,0,1,1,1", "cannot move there"},
      {"explore " + write("bad-style.json", R"({"tasks": [[{"op": "read /a", "release": "later"}]]})"),
       "tasks[0][0].release"},
      {"explore " + write("bad-task-scheme.json", R"({"tasks": [["read /a"], {"scheme": "global-rw", "requests": ["write /a"]}]})"),
       "same modes"},
      {"explore " + good + " --scheme-file " + write("bad-scheme.json", R"({"name": "x"})"), "bad-scheme.json: modes"},
  };
  for (const auto& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << ": " << r.output;
  }
  EXPECT_EQ(run("explore " + good).status, 0);
  EXPECT_EQ(run("explore " + good + " --max-states 2").status, 4);
  // A scenario too large for the memory limit is inconclusive and says which limit it hit.
  std::string big = R"({"tasks": [)";
  for (int t = 0; t < 8; ++t) big += fmt::format(R"({}["write /a/b{}", "read /a"])", t == 0 ? "" : ", ", t);
  big += "]}";
  const CliRun limited = run("explore " + write("big.json", big) + " --max-memory 1 --no-naive");
  EXPECT_EQ(limited.status, 4) << limited.output;
  EXPECT_NE(limited.output.find("stopped at the memory limit"), std::string::npos) << limited.output;
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

// `check` on the shipped scheme files: the three broken variants (request
// order, depth-only order, per-role modes) and path-rwa as first proposed
// fail with a minimal counterexample (exit 3);
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
      {"check --family huge", 2, "--family"},
      {"check --pct-depth 0", 2, "--pct-depth"},
      {"check --runs -3", 2, "--runs"},
      {"check --scheme-file /nonexistent.json", 2, "/nonexistent.json"},
  };
  for (const auto& c : cases) {
    const CliRun r = run(c.args + " --no-files");
    EXPECT_EQ(r.status, c.status) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << ": " << r.output;
  }
}

TEST(Cli, CheckEtcdPassesTheShippedProtocolAndCatchesEveryNaiveVariant) {
  const auto json = (std::filesystem::temp_directory_path() / "pathlock-cli-check-etcd.json").string();
  const CliRun r = run("check-etcd --requests 1 --variant shipped --variant unconfirmed-grant "
                       "--variant prefix-unsafe-keys --variant no-orphan-sweep --json " + json);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("shipped: passes"), std::string::npos) << r.output;
  for (const char* caught : {"unconfirmed-grant: caught: grant validity", "prefix-unsafe-keys: caught: over-blocking"}) {
    EXPECT_NE(r.output.find(caught), std::string::npos) << caught << "\n" << r.output;
  }
  EXPECT_NE(slurp(json).find("pathlock.check-etcd/1"), std::string::npos);
  struct Case {
    std::string args;
    std::string says;
  };
  for (const Case& c : {Case{"check-etcd --variant nope", "unknown protocol variant 'nope'"},
                        Case{"check-etcd --clients 4", "--clients"}, Case{"check-etcd --crashes -1", "--crashes"}}) {
    const CliRun bad = run(c.args);
    EXPECT_EQ(bad.status, 2) << c.args << ": " << bad.output;
    EXPECT_NE(bad.output.find(c.says), std::string::npos) << c.args << ": " << bad.output;
  }
  // The retried-unlock bug needs a client that locks twice: with one
  // request per client it is not caught, which is a failure of the check.
  const CliRun weak = run("check-etcd --requests 1 --variant unfenced-release");
  EXPECT_EQ(weak.status, 3) << weak.output;
  EXPECT_NE(weak.output.find("unfenced-release: NOT CAUGHT"), std::string::npos) << weak.output;
  // A state limit is no verdict.
  EXPECT_EQ(run("check-etcd --variant shipped --requests 1 --max-states 10").status, 4);
}

TEST(Cli, PromelaModelNamesEveryStepAndEveryConflict) {
  const std::string src = PATHLOCK_SOURCE_DIR;
  const CliRun r = run("promela " + src + "/sim/scenarios/copy-into-own-subtree.json --scheme path-rwa");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("active proctype T0()"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("active proctype T1()"), std::string::npos) << r.output;
  // copy(/a, /a/b) reads /a, which write(/a/c) writes below: one conflicting pair, one assertion.
  std::size_t asserts = 0;
  for (auto at = r.output.find("  assert(!(got["); at != std::string::npos; at = r.output.find("  assert(!(got[", at + 1)) {
    ++asserts;
  }
  EXPECT_EQ(asserts, 1u) << r.output;
  EXPECT_NE(r.output.find("copy(/a, /a/b) vs write(/a/c)"), std::string::npos) << r.output;
  // Withdrawal and nesting are in the model: a cancel and a rollback for the
  // writer that may time out; the nested read's release after the inner one.
  const CliRun timed = run("promela " + src + "/sim/scenarios/nested-reads-writer-times-out.json");
  ASSERT_EQ(timed.status, 0) << timed.output;
  EXPECT_NE(timed.output.find("cancel("), std::string::npos) << timed.output;
  EXPECT_NE(timed.output.find("/* roll back /"), std::string::npos) << timed.output;
  EXPECT_LT(timed.output.find("/* release read(/a/y) */"), timed.output.find("/* release read(/a/x) */"));
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

// A fresh folder under the system's temporary folder, removed at the end.
class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& name) : path_(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() { std::filesystem::remove_all(path_); }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return (path_ / name).string();
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs the program under a 2 GiB address-space limit, so that a regression
// to allocating first fails fast instead of taking the machine's memory.
// AddressSanitizer reserves terabytes of shadow memory at start, so under it
// the limit is left out (its own allocator still fails a huge allocation).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif
CliRun run_bounded(const std::string& args) {
  return run_in_shell(kAddressSanitizer ? "" : "ulimit -v 2097152; ", args);
}

// --depth and --fanout allow trees far too large to enumerate: they are
// refused from depth and fanout alone, before any allocation, naming the
// limit and the flag.
TEST(Cli, TablesRefusesHugeTreesFastWithExit2) {
  for (const std::string tree : {"--depth 6 --fanout 8", "--depth 4 --fanout 8"}) {
    const auto start = std::chrono::steady_clock::now();
    const CliRun r = run_bounded("tables --no-files " + tree);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.status, 2) << tree << ": " << r.output;
    EXPECT_NE(r.output.find("set by --max-pairs"), std::string::npos) << r.output;
    EXPECT_LT(seconds, 5.0) << tree;
    const CliRun raised = run_bounded("tables --no-files --max-pairs 18446744073709551615 " + tree);
    EXPECT_EQ(raised.status, 2) << tree << ": " << raised.output;
    EXPECT_NE(raised.output.find("which no flag raises; use a smaller --depth or --fanout"), std::string::npos)
        << raised.output;
  }
}

// Ten million tasks for a hundred thousand clients passed validation and
// then ran out of memory drawing schedules.
TEST(Cli, HugeWorkloadsAreRefusedBeforeRunning) {
  const ScratchFolder dir("pathlock-cli-huge-workload");
  const auto huge = dir.write("huge.json", R"({"tasks": 10000000, "load": {"clients": 100000}})");
  const CliRun r = run_bounded("simulate --no-plots --out " + dir.path().string() + " --workload " + huge);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("for tasks x clients; lower tasks or load.clients"), std::string::npos) << r.output;
  const CliRun levels = run_bounded("simulate --no-plots --tasks 5000000 --levels 1,2 --out " + dir.path().string());
  EXPECT_EQ(levels.status, 2) << levels.output;
  EXPECT_NE(levels.output.find("give fewer --levels"), std::string::npos) << levels.output;
}

TEST(Cli, VersionComesFromTheBuild) {
  const CliRun r = run("--version");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, std::string("pathlock ") + PATHLOCK_VERSION + "\n");
}

// Flag errors are bad input (2), like bad file contents; --help is not an error.
TEST(Cli, FlagErrorsExit2InEverySubcommand) {
  for (const char* args : {"tables --depth 0", "simulate --nope", "check --family huge", "explore", "replay",
                           "plan --scheme", "promela --out", "crosscheck --max-states 0", "schemes --export"}) {
    EXPECT_EQ(run(args).status, 2) << args;
  }
  EXPECT_EQ(run("tables --help").status, 0);
}

// A replay that does not reproduce its recorded outcome is a failure (3), and
// a field of the wrong type is bad input (2), not an I/O failure.
TEST(Cli, ReplayThatDoesNotReproduceExits3) {
  const ScratchFolder dir("pathlock-cli-replay");
  const std::string schedule = R"("schedule": {"clients": 1, "tasks": [{"op": "read", "paths": ["/a"]}]})";
  const auto wrong = dir.write("wrong.json", R"({"schema": "pathlock.replay/1", "scheme": "path-rw", "seed": 3,
                                                  "outcome": "deadlock", )" + schedule + "}");
  const CliRun r = run("replay " + wrong);
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("reproduced: NO"), std::string::npos) << r.output;
  const auto right = dir.write("right.json", R"({"schema": "pathlock.replay/1", "scheme": "path-rw", "seed": 3,
                                                  "outcome": "completed", )" + schedule + "}");
  EXPECT_EQ(run("replay " + right).status, 0);
  const auto typed = dir.write("typed.json", R"({"schema": "pathlock.replay/1", "scheme": "path-rw", "seed": "x", )" +
                                                 schedule + "}");
  const CliRun bad = run("replay " + typed);
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_NE(bad.output.find("seed"), std::string::npos) << bad.output;
  const CliRun file = run("replay " + right + " --scheme-file " + std::string(PATHLOCK_SOURCE_DIR) +
                          "/sim/schemes/per-role.json");
  EXPECT_EQ(file.status, 0) << file.output;
}

// Every subcommand that takes a scheme takes a scheme file too.
TEST(Cli, SchemeFilesWorkWhereverSchemesDo) {
  const std::string file = std::string(PATHLOCK_SOURCE_DIR) + "/sim/schemes/deepest-first.json";
  const CliRun plan = run("plan --scheme-file " + file + " copy /a /a/b");
  EXPECT_EQ(plan.status, 0) << plan.output;
  EXPECT_NE(plan.output.find("deepest-first"), std::string::npos) << plan.output;
  const CliRun tables = run("tables --no-files --depth 2 --scheme-file " + file);
  EXPECT_EQ(tables.status, 0) << tables.output;
  EXPECT_NE(tables.output.find("deepest-first"), std::string::npos) << tables.output;
}

// A number that overflows a double (1e999) is bad input in scheme and
// scenario files, not an escaped exception.
TEST(Cli, NumbersThatOverflowAreBadInput) {
  const ScratchFolder dir("pathlock-cli-overflow");
  const auto scenario = dir.write("scenario.json", R"({"tasks": [["read /a"]], "name": 1e999})");
  const auto good = dir.write("good.json", R"({"tasks": [["read /a"]]})");
  const auto scheme = dir.write("scheme.json", R"({"name": 1e999})");
  for (const std::string& args : {"explore " + scenario, "explore " + good + " --scheme-file " + scheme,
                                  "promela " + scenario, "plan --scheme-file " + scheme + " read /a"}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find("not valid JSON"), std::string::npos) << r.output;
  }
}

// SPIN failing must not leave the temporary folder behind.
TEST(Cli, CrosscheckRemovesItsTemporaryFolderOnFailure) {
  const ScratchFolder dir("pathlock-cli-crosscheck-tmp");
  const auto tmp = dir.path() / "tmp";
  std::filesystem::create_directories(tmp);
  const auto spin = dir.write("spin", "#!/bin/sh\nif [ \"$1\" = -V ]; then echo 'Spin Version 0'; exit 0; fi\n"
                                      "echo 'spin: broken'; exit 1\n");
  std::filesystem::permissions(spin, std::filesystem::perms::owner_all);
  const std::string scenario = std::string(PATHLOCK_SOURCE_DIR) + "/sim/scenarios/opposite-copies.json";
  const CliRun r = run_in_shell("TMPDIR=" + tmp.string() + " ",
                                "crosscheck --scheme path-rw --scenario " + scenario + " --spin " + spin);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("spin: broken"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "left behind: " << std::filesystem::directory_iterator(tmp)->path();
  const CliRun cc = run_in_shell("TMPDIR=" + tmp.string() + " ",
                                 "crosscheck --scheme path-rw --scenario " + scenario + " --cc /nonexistent/cc");
  EXPECT_NE(cc.status, 0) << cc.output;
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
}

// A bucket listing with keys S3 accepts and the model rejects: every bad key
// is named with its line, and --invalid-keys skip runs without them.
TEST(Cli, BucketListingsWithBadKeys) {
  const ScratchFolder dir("pathlock-cli-keys");
  dir.write("keys.txt", "photos/a.jpg\n/leading\ndocs/x\ndocs//y\nphotos/b.jpg\n");
  const auto workload = dir.write("w.json", R"({"keys_file": "keys.txt", "tasks": 100})");
  const std::string common = "simulate --no-plots --levels 1 --scheme path-rwa-joined --workload " + workload;
  const CliRun failed = run(common + " --out " + (dir.path() / "fail").string());
  EXPECT_EQ(failed.status, 2) << failed.output;
  EXPECT_NE(failed.output.find("2 of 5 keys"), std::string::npos) << failed.output;
  EXPECT_NE(failed.output.find("keys.txt:2:"), std::string::npos) << failed.output;
  EXPECT_NE(failed.output.find("keys.txt:4:"), std::string::npos) << failed.output;
  const CliRun skipped = run(common + " --invalid-keys skip --out " + (dir.path() / "skip").string());
  EXPECT_EQ(skipped.status, 0) << skipped.output;
  EXPECT_NE(skipped.output.find("warning: skipping keys"), std::string::npos) << skipped.output;
  const auto json = nlohmann::json::parse(slurp(dir.path() / "skip" / "simulate.json"));
  EXPECT_EQ(json["workloads"]["sweep"]["skipped_keys"], 2) << json["workloads"]["sweep"].dump();
}

// check-lock --part K/N: the parts' cases are the whole check's, each once,
// dealt round-robin; a part that is not K/N of at most the cases is refused
// (allocation failures off: a sanitizer build refuses them first).
TEST(Cli, CheckLockPartsSplitTheCasesWithoutOverlapOrGap) {
  const ScratchFolder dir("pathlock-cli-check-lock-part");
  const std::string check =
      "check-lock --program long-plan --program try-rolls-back --preemptions 0 --runs 1 --allocation-failures off";
  const auto cases_of = [&](const std::string& extra, const std::string& name) {
    const std::string json = (dir.path() / name).string();
    const CliRun r = run(check + extra + " --json " + json);
    EXPECT_EQ(r.status, 0) << r.output;
    std::vector<std::string> out;
    const auto result = nlohmann::json::parse(slurp(json));
    for (const auto& c : result.at("cases")) {
      out.push_back(c.at("program").get<std::string>() + ", " + c.at("setting").get<std::string>());
    }
    return std::make_pair(out, r.output);
  };
  const auto [whole, whole_output] = cases_of("", "whole.json");
  ASSERT_EQ(whole.size(), 16U) << whole_output;  // 2 programs x 8 settings
  std::vector<std::string> dealt(whole.size());
  for (std::size_t k = 1; k <= 3; ++k) {
    const auto [part, output] = cases_of(fmt::format(" --part {}/3", k), fmt::format("part{}.json", k));
    EXPECT_NE(output.find(fmt::format("part {} of 3: {} of the 16 case(s)", k, part.size())), std::string::npos)
        << output;
    for (std::size_t i = 0; i < part.size(); ++i) dealt.at(k - 1 + 3 * i) = part[i];
  }
  EXPECT_EQ(dealt, whole);
  expect_rejected({
      {"check-lock --part 0/3 --allocation-failures off", "--part 0/3: K must be 1 to N (3)"},
      {"check-lock --part 2 --allocation-failures off", "--part 2: expected K/N"},
      {"check-lock --part 1/1001 --allocation-failures off", "N must be 1 to 1000"},
      {"check-lock --program long-plan --part 1/9 --allocation-failures off",
       "9 part(s) of 8 case(s) would leave a part with none"},
      {"check-lock --program long-plan --gates on --shards 1 --max-idle 0 --part 1/2 --schedule x --allocation-failures off",
       "--part splits a check, --schedule replays one run"},
  }, 2);
}

}  // namespace
