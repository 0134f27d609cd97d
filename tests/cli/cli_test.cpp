// Runs the pathlock program the way a user does and checks what it says.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "pathlock/impl/scheme.hpp"

namespace {

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
  for (const char* sub : {"", "schemes", "tables", "plan"}) {
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

TEST(Cli, BadInputGetsAClearErrorAndNonZeroExit) {
  const BadInput cases[] = {
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
  };
  for (const auto& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_NE(r.status, 0) << c.args;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << " said: " << r.output;
  }
}

}  // namespace
