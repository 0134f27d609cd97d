// Workload files: size limits checked before anything is allocated, and
// bucket listings with keys the model rejects.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/scenario.hpp"
#include "pathlock/sim/workload.hpp"

namespace pathlock::sim {
namespace {

template <typename Parse>
std::string problem_with(Parse parse) {
  try {
    parse();
  } catch (const model::InputError& e) {
    return e.what();
  }
  return "accepted";
}

std::string workload_problem(const std::string& text) {
  return problem_with([&] { (void)parse_workload(text, "w.json", "."); });
}

// Ten million tasks for a hundred thousand clients used to pass validation
// and then run out of memory drawing the schedules.
TEST(WorkloadLimits, TooManyTasksOrClientsAreRefusedNamingTheField) {
  const std::string huge = workload_problem(R"({"tasks": 10000000, "load": {"clients": 100000}})");
  EXPECT_NE(huge.find(fmt::format("over the limit of {} for tasks x clients", kMaxTaskClientProduct)),
            std::string::npos)
      << huge;
  EXPECT_NE(huge.find("load.clients"), std::string::npos) << huge;
  EXPECT_NE(workload_problem(fmt::format(R"({{"tasks": {}}})", kMaxTasks + 1))
                .find(fmt::format("tasks: {} is out of range [1, {}]", kMaxTasks + 1, kMaxTasks)),
            std::string::npos);
  EXPECT_NE(workload_problem(fmt::format(R"({{"load": {{"clients": {}}}}})", kMaxClients + 1))
                .find(fmt::format("load.clients: {} is out of range [1, {}]", kMaxClients + 1, kMaxClients)),
            std::string::npos);
  // The product at the limit is accepted, one task more is not.
  const auto clients = 1000;
  const auto at_limit = kMaxTaskClientProduct / clients;
  EXPECT_EQ(workload_problem(fmt::format(R"({{"tasks": {}, "load": {{"clients": {}}}}})", at_limit, clients)),
            "accepted");
  EXPECT_NE(workload_problem(fmt::format(R"({{"tasks": {}, "load": {{"clients": {}}}}})", at_limit + 1, clients)),
            "accepted");
}

// nlohmann reports a number too large for a double as out_of_range, not as
// a parse error; every input parser turns it into bad input.
TEST(InputFiles, NumbersThatOverflowAreBadInputInEveryParser) {
  const std::string overflow = R"({"name": 1e999})";
  for (const std::string& why :
       {problem_with([&] { (void)io::parse_scheme(overflow, "s.json"); }),
        problem_with([&] { (void)parse_scenario(overflow, "c.json", "."); }),
        problem_with([&] { (void)parse_workload(overflow, "w.json", "."); })}) {
    EXPECT_NE(why.find("not valid JSON"), std::string::npos) << why;
    EXPECT_NE(why.find("number overflow"), std::string::npos) << why;
  }
}

class KeyListingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const std::string& text) {
    const auto file = dir_ / "keys.txt";
    std::ofstream(file) << text;
    return file;
  }
  std::filesystem::path dir_ = std::filesystem::temp_directory_path() / "pathlock-key-listing-test";
};

// S3 accepts "a//b" and "/x"; the model does not. Every bad key is reported
// with its line, not just the first.
TEST_F(KeyListingTest, FailReportsEveryBadKeyWithItsLine) {
  const auto file = write("a/b\n/x\nc/d\na//b\n");
  const std::string why = problem_with([&] { (void)read_key_listing(file, InvalidKeys::kFail); });
  EXPECT_NE(why.find("2 of 4 keys"), std::string::npos) << why;
  EXPECT_NE(why.find("keys.txt:2:"), std::string::npos) << why;
  EXPECT_NE(why.find("keys.txt:4:"), std::string::npos) << why;
  EXPECT_NE(why.find("--invalid-keys skip"), std::string::npos) << why;
}

TEST_F(KeyListingTest, SkipLeavesBadKeysOutAndCountsThem) {
  const auto file = write("a/b\n/x\nc/d\na//b\n");
  const KeyListing listing = read_key_listing(file, InvalidKeys::kSkip);
  EXPECT_EQ(listing.keys, 4u);
  EXPECT_EQ(listing.bad_keys, 2u);
  ASSERT_EQ(listing.first_bad.size(), 2u);
  EXPECT_EQ(listing.first_bad[0].line, 2u);
  EXPECT_EQ(listing.first_bad[0].key, "/x");
  EXPECT_EQ(listing.first_bad[1].line, 4u);
  EXPECT_EQ(listing.paths.size(), 5u);  // /, /a, /a/b, /c, /c/d
  WorkloadSpec w;
  w.keys_file = file;
  w.invalid_keys = InvalidKeys::kSkip;
  EXPECT_EQ(workload_paths(w).size(), 4u);  // the root left out
}

TEST_F(KeyListingTest, OnlyTheFirstFewBadKeysAreListed) {
  std::string text;
  for (std::size_t i = 0; i < kMaxReportedBadKeys + 5; ++i) text += "x//" + std::to_string(i) + "\n";
  const auto file = write(text + "ok\n");
  const KeyListing listing = read_key_listing(file, InvalidKeys::kSkip);
  EXPECT_EQ(listing.bad_keys, kMaxReportedBadKeys + 5);
  EXPECT_EQ(listing.first_bad.size(), kMaxReportedBadKeys);
  EXPECT_NE(describe_bad_keys(listing, file).find("... and 5 more"), std::string::npos);
  const auto none = write("//\n");
  EXPECT_NE(problem_with([&] { (void)read_key_listing(none, InvalidKeys::kSkip); }).find("no usable keys"),
            std::string::npos);
}

TEST_F(KeyListingTest, TheWorkloadFieldChoosesThePolicy) {
  const auto file = write("a\n");
  const WorkloadSpec w = parse_workload(R"({"keys_file": "keys.txt", "invalid_keys": "skip"})", "w.json", dir_);
  EXPECT_EQ(w.invalid_keys, InvalidKeys::kSkip);
  EXPECT_NE(workload_problem(R"({"keys_file": "k", "invalid_keys": "ignore"})").find("invalid_keys"),
            std::string::npos);
  EXPECT_NE(workload_problem(R"({"invalid_keys": "skip"})").find("only with keys_file"), std::string::npos);
}

}  // namespace
}  // namespace pathlock::sim
