#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "pathlock/model/conflict.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/path.hpp"
#include "support/generators.hpp"

namespace pathlock::model {
namespace {

using Components = std::vector<std::string>;

Components comps(const Path& p) {
  Components out;
  for (auto c : p.components()) out.emplace_back(c);
  return out;
}

// Reference lineage: one component list is a prefix of the other.
bool reference_related(const Components& a, const Components& b) {
  const auto n = std::min(a.size(), b.size());
  return std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin());
}

// The problem `parse` reports for `text`; a test failure if it accepts it.
InputProblem problem_of(Path (*parse)(std::string_view), std::string_view text) {
  try {
    (void)parse(text);
  } catch (const InputError& e) {
    return e.problem();
  }
  ADD_FAILURE() << "accepted: " << text;
  return InputProblem::kBadParameter;
}
InputProblem problem_of_key(std::string_view key) { return problem_of(&Path::from_key, key); }
InputProblem problem_of_path(std::string_view text) { return problem_of(&Path::parse, text); }

TEST(Path, RootHasNoComponents) {
  EXPECT_EQ(Path().str(), "/");
  EXPECT_TRUE(Path::parse("/").is_root());
  EXPECT_EQ(Path::root().depth(), 0u);
  EXPECT_TRUE(Path::root().components().empty());
  EXPECT_EQ(Path::root().key(), "");
}

TEST(Path, KeysMapBySplittingOnSlash) {
  const Path p = Path::from_key("a/b/c");
  EXPECT_EQ(p.str(), "/a/b/c");
  EXPECT_EQ(p.depth(), 3u);
  EXPECT_EQ(comps(p), (Components{"a", "b", "c"}));
  EXPECT_EQ(p.key(), "a/b/c");
  EXPECT_EQ(p.parent(), Path::parse("/a/b"));
  EXPECT_EQ(p.proper_ancestors(),
            (std::vector<Path>{Path::root(), Path::parse("/a"), Path::parse("/a/b")}));
}

TEST(Path, TrailingSlashNamesTheFolder) {
  EXPECT_EQ(Path::from_key("a/b/"), Path::from_key("a/b"));
}

TEST(Path, DotComponentsAreOrdinaryNames) {
  const Path p = Path::from_key("a/../b");
  EXPECT_EQ(comps(p), (Components{"a", "..", "b"}));
  EXPECT_TRUE(Path::parse("/a").is_proper_ancestor_of(p));  // "a/../b" starts with "a/"
  EXPECT_FALSE(related(p, Path::parse("/b")));
}

TEST(Path, PrefixSemanticsNotStringPrefixes) {
  EXPECT_FALSE(related(Path::from_key("a/b"), Path::from_key("a/bc")));
  EXPECT_FALSE(Path::parse("/a/b").is_proper_ancestor_of(Path::parse("/a/bc")));
  EXPECT_TRUE(related(Path::parse("/a/b"), Path::parse("/a/b/c")));
  EXPECT_TRUE(related(Path::root(), Path::parse("/x")));
  EXPECT_TRUE(related(Path::parse("/a"), Path::parse("/a")));
}

TEST(Path, InvalidKeysAreRejectedWithTheirProblem) {
  EXPECT_EQ(problem_of_key(""), InputProblem::kEmptyKey);
  EXPECT_EQ(problem_of_key(std::string(1025, 'x')), InputProblem::kKeyTooLong);
  EXPECT_EQ(problem_of_key(std::string("a\0b", 3)), InputProblem::kNulByte);
  EXPECT_EQ(problem_of_key("a/\xC3"), InputProblem::kInvalidUtf8);
  EXPECT_EQ(problem_of_key("\xC0\x80"), InputProblem::kInvalidUtf8);      // overlong NUL
  EXPECT_EQ(problem_of_key("\xED\xA0\x80"), InputProblem::kInvalidUtf8);  // surrogate
  EXPECT_EQ(problem_of_key("\xF4\x90\x80\x80"), InputProblem::kInvalidUtf8);  // > U+10FFFF
  EXPECT_EQ(problem_of_key("/a"), InputProblem::kLeadingSlashInKey);
  EXPECT_EQ(problem_of_key("/"), InputProblem::kLeadingSlashInKey);
  EXPECT_EQ(problem_of_key("a//b"), InputProblem::kEmptyComponent);
  EXPECT_EQ(problem_of_key("a//"), InputProblem::kEmptyComponent);
}

TEST(Path, LongestKeyIsAccepted) {
  const std::string key(kMaxKeyBytes, 'x');
  EXPECT_EQ(Path::from_key(key).key(), key);
  EXPECT_EQ(Path::parse("/" + key).key(), key);
  EXPECT_EQ(problem_of_path("/" + key + "x"), InputProblem::kKeyTooLong);
}

TEST(Path, ErrorsNameTheProblemAndOffset) {
  try {
    (void)Path::from_key("ab//c");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.byte_offset(), 3u);
    EXPECT_NE(std::string(e.what()).find("empty component at byte offset 3"), std::string::npos)
        << e.what();
  }
  try {
    (void)Path::from_key("ok/\xFF");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.byte_offset(), 3u);
    EXPECT_NE(std::string(e.what()).find("UTF-8"), std::string::npos) << e.what();
  }
}

TEST(Path, InvalidPathsAreRejected) {
  EXPECT_EQ(problem_of_path(""), InputProblem::kMissingLeadingSlash);
  EXPECT_EQ(problem_of_path("a/b"), InputProblem::kMissingLeadingSlash);
  EXPECT_EQ(problem_of_path("/a/"), InputProblem::kTrailingSlashInPath);
  EXPECT_EQ(problem_of_path("//a"), InputProblem::kEmptyComponent);
  EXPECT_EQ(problem_of_path("/a//b"), InputProblem::kEmptyComponent);
  EXPECT_EQ(problem_of_path(std::string("/a\0", 3)), InputProblem::kNulByte);
  EXPECT_THROW((void)Path::root().child("a/b"), InputError);
  EXPECT_THROW((void)Path::root().child(""), InputError);
}

RC_GTEST_PROP(PathProps, KeyRoundTrips, (const Path& p)) {
  RC_PRE(!p.is_root());
  RC_ASSERT(Path::from_key(p.key()) == p);
  RC_ASSERT(Path::from_key(p.key() + "/") == p);
  RC_ASSERT(Path::parse(p.str()) == p);
  RC_ASSERT(Path::from_components(comps(p)) == p);
}

RC_GTEST_PROP(PathProps, ArbitraryBytesAreMappedOrRejected, (const std::string& key)) {
  // Never a crash; either an InputError or a path whose key is the input
  // (less one trailing '/').
  try {
    const Path p = Path::from_key(key);
    std::string expect = key;
    if (expect.ends_with('/')) expect.pop_back();
    RC_ASSERT(p.key() == expect);
    RC_ASSERT(Path::parse(p.str()) == p);
  } catch (const InputError&) {
    RC_SUCCEED("rejected");
  }
}

RC_GTEST_PROP(PathProps, LineageIsSymmetricWithPrefixSemantics, ()) {
  // Pairs near each other (sibling prefixes, ancestors, the root, odd bytes):
  // uniformly random pairs rarely tell a raw string prefix from a path prefix.
  const auto [p, q] = *testing::gen_near_pair();
  RC_ASSERT(related(p, q) == related(q, p));
  RC_ASSERT(related(p, q) == reference_related(comps(p), comps(q)));
  RC_ASSERT(p.is_proper_ancestor_of(q) ==
            (comps(p).size() < comps(q).size() && reference_related(comps(p), comps(q))));
}

RC_GTEST_PROP(PathProps, OrderIsComponentWiseLexicographic, (const Path& p, const Path& q)) {
  RC_ASSERT((p <=> q) == (comps(p) <=> comps(q)));
  RC_ASSERT(((p <=> q) == 0) == (p == q));
  if (p.is_proper_ancestor_of(q)) RC_ASSERT(p < q);
}

RC_GTEST_PROP(PathProps, AncestorsAreExactlyTheProperPrefixes, (const Path& p)) {
  const auto ancestors = p.proper_ancestors();
  RC_ASSERT(ancestors.size() == p.depth());
  for (std::size_t i = 0; i < ancestors.size(); ++i) {
    RC_ASSERT(ancestors[i].depth() == i);
    RC_ASSERT(ancestors[i].is_proper_ancestor_of(p));
  }
  if (!p.is_root()) RC_ASSERT(p.parent() == ancestors.back());
}

// UTF-8: every encoded scalar value is accepted; every 1-4 byte sequence is
// accepted iff it decodes to exactly one scalar value in its shortest form.
std::string encode(std::uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

RC_GTEST_PROP(Utf8Props, EncodedScalarValuesAreValid, ()) {
  const auto cp = *rc::gen::suchThat(rc::gen::inRange<std::uint32_t>(0, 0x110000),
                                     [](std::uint32_t c) { return c < 0xD800 || c > 0xDFFF; });
  RC_ASSERT(first_invalid_utf8(encode(cp)) == std::string_view::npos);
}

TEST(Utf8, SurrogatesAndOverlongFormsAreInvalid) {
  for (std::uint32_t cp = 0xD800; cp <= 0xDFFF; cp += 0x7F) {
    EXPECT_EQ(first_invalid_utf8("x" + encode(cp)), 1u);
  }
  EXPECT_EQ(first_invalid_utf8("\xE0\x80\xAF"), 0u);      // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xF0\x80\x80\xAF"), 0u);  // overlong '/'
  EXPECT_EQ(first_invalid_utf8("ab\x80"), 2u);            // lone continuation
  EXPECT_EQ(first_invalid_utf8("\xE2\x82"), 0u);          // truncated
  EXPECT_EQ(first_invalid_utf8("\xF8\x88\x80\x80\x80"), 0u);
}

}  // namespace
}  // namespace pathlock::model
