// The etcd lock's key layout and conflict rule, without a cluster: a
// request's checks find exactly the records of the requests the model says
// it conflicts with.

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "pathlock/etcd/client.hpp"
#include "pathlock/etcd/keys.hpp"
#include "pathlock/model/conflict.hpp"
#include "support/generators.hpp"

namespace pathlock::etcd {
namespace {

model::Path P(std::string_view s) { return model::Path::parse(s); }

bool in_range(const std::string& key, const KeyRange& r) { return key >= r.begin && (r.end.empty() || key < r.end); }

// What the lock decides for an acquisition `a` that finds `b`'s records.
bool plans_conflict(const model::Request& a, const model::Request& b) {
  const auto pa = plan_records("p/", a, "A");
  const auto pb = plan_records("p/", b, "B");
  for (const auto& check : pa.checks) {
    for (const auto& record : pb.records) {
      if (in_range(record.key, check.range) && records_conflict(check.mode, record.mode)) return true;
    }
  }
  return false;
}

TEST(EtcdKeys, ASubtreeIsOneRangeThatSkipsSiblingsSharingAPrefix) {
  const auto sub = subtree_range("p/", P("/a/b"));
  EXPECT_TRUE(in_range(record_key("p/", P("/a/b"), RecordMode::kRead, "1"), sub));
  EXPECT_TRUE(in_range(record_key("p/", P("/a/b/c"), RecordMode::kWrite, "1"), sub));
  EXPECT_FALSE(in_range(record_key("p/", P("/a/bc"), RecordMode::kWrite, "1"), sub));  // website#710's trap
  EXPECT_FALSE(in_range(record_key("p/", P("/a"), RecordMode::kWrite, "1"), sub));
  const auto own = path_records_range("p/", P("/a"));
  EXPECT_TRUE(in_range(record_key("p/", P("/a"), RecordMode::kWrite, "9"), own));
  EXPECT_FALSE(in_range(record_key("p/", P("/a/b"), RecordMode::kWrite, "9"), own));
  EXPECT_TRUE(in_range(record_key("p/", P("/zz"), RecordMode::kRead, "1"), subtree_range("p/", model::Path::root())));
  EXPECT_FALSE(in_range("q/x", subtree_range("p/", model::Path::root())));
}

TEST(EtcdKeys, RecordKeysParseBack) {
  const auto key = record_key("ns/", P("/a/é b"), RecordMode::kWrite, "00ff.7");
  const auto parsed = parse_record_key("ns/", key);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->encoded_path, "a/é b/");
  EXPECT_EQ(parsed->mode, RecordMode::kWrite);
  EXPECT_EQ(parsed->id, "00ff.7");
  EXPECT_FALSE(parse_record_key("ns/", "ns/a/b").has_value());
  EXPECT_FALSE(parse_record_key("other/", key).has_value());
}

TEST(EtcdKeys, PrefixEnd) {
  EXPECT_EQ(prefix_end("a/"), "a0");
  EXPECT_EQ(prefix_end(std::string("a\xff", 2)), "b");
  EXPECT_EQ(prefix_end(std::string("\xff\xff", 2)), "");
}

TEST(EtcdKeys, Base64RoundTrips) {
  for (std::string s : {std::string(), std::string("a"), std::string("ab"), std::string("abc"),
                        std::string("a/b/\0w1", 7), std::string("\xff\x00\x80", 3)}) {
    EXPECT_EQ(base64_decode(base64_encode(s)), s);
  }
  EXPECT_EQ(base64_encode(std::string("a/b/\0w1", 7)), "YS9iLwB3MQ==");  // as etcd's gateway wrote it
  EXPECT_THROW(base64_decode("a*b"), EtcdError);
}

TEST(EtcdKeys, EndpointListsSplitOnCommas) {
  EXPECT_EQ(split_endpoints("http://a:1,http://b:2"), (std::vector<std::string>{"http://a:1", "http://b:2"}));
  EXPECT_EQ(split_endpoints(",http://a:1,,"), (std::vector<std::string>{"http://a:1"}));
  EXPECT_TRUE(split_endpoints("").empty());
}

TEST(EtcdKeys, APathBothReadAndWrittenIsOneWriteRecord) {
  const auto plan = plan_records("p/", model::Request({P("/a")}, {P("/a"), P("/b")}), "x");
  ASSERT_EQ(plan.records.size(), 2u);
  EXPECT_EQ(plan.records[0].mode, RecordMode::kWrite);
  EXPECT_EQ(plan.records[1].mode, RecordMode::kWrite);
}

RC_GTEST_PROP(EtcdKeys, ChecksFindExactlyTheConflictsOfTheModel, ()) {
  const auto a = *testing::gen_request();
  const auto b = *testing::gen_request();
  RC_ASSERT(plans_conflict(a, b) == model::conflicts(a, b));
  RC_ASSERT(plans_conflict(b, a) == model::conflicts(a, b));
}

}  // namespace
}  // namespace pathlock::etcd
