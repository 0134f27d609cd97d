#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "pathlock/model/conflict.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/request.hpp"
#include "support/generators.hpp"

namespace pathlock::model {
namespace {

Path P(std::string_view s) { return Path::parse(s); }

TEST(Request, OperationsMapAsTheDesignSays) {
  EXPECT_EQ(read(P("/a")).request(), Request({P("/a")}, {}));
  EXPECT_EQ(write(P("/a")).request(), Request({}, {P("/a")}));
  EXPECT_EQ(remove(P("/a")).request(), Request({}, {P("/a")}));
  EXPECT_EQ(rename(P("/a"), P("/b")).request(), Request({}, {P("/a"), P("/b")}));
  EXPECT_EQ(copy(P("/a"), P("/b")).request(), Request({P("/a")}, {P("/b")}));
  EXPECT_EQ(copy(P("/a"), P("/a/b")).request().to_string(), "R{/a} W{/a/b}");
}

TEST(Request, EmptyRequestIsRejected) {
  try {
    Request r({}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), InputProblem::kEmptyRequest);
  }
}

TEST(Request, SetsAreSortedAndDeduplicated) {
  const Request r({P("/b"), P("/a"), P("/b")}, {});
  EXPECT_EQ(r.reads(), (std::vector<Path>{P("/a"), P("/b")}));
}

TEST(Operation, ArityIsChecked) {
  EXPECT_THROW(Operation::make(OpKind::kCopy, {P("/a")}), InputError);
  EXPECT_THROW(Operation::make(OpKind::kRead, {P("/a"), P("/b")}), InputError);
  EXPECT_EQ(Operation::make(OpKind::kRename, {P("/a"), P("/b")}), rename(P("/a"), P("/b")));
  EXPECT_EQ(op_kind_from_string("delete"), OpKind::kRemove);
  EXPECT_EQ(op_kind_from_string("move"), std::nullopt);
}

TEST(Conflict, DesignNotesCopyExample) {
  // The design notes' example: a copy of /a/b to /a/b' blocks W(L(/a/b)), R(L(/a/b')), W(L(/a/b')).
  const Request c = copy(P("/a/b"), P("/a/b'")).request();
  EXPECT_TRUE(conflicts(c, write(P("/a")).request()));
  EXPECT_TRUE(conflicts(c, write(P("/a/b/c")).request()));
  EXPECT_TRUE(conflicts(c, read(P("/a/b'/c")).request()));
  EXPECT_TRUE(conflicts(c, read(P("/")).request()));
  EXPECT_FALSE(conflicts(c, read(P("/a/b")).request()));
  EXPECT_FALSE(conflicts(c, read(P("/a/b/c")).request()));
  EXPECT_FALSE(conflicts(c, write(P("/e/f")).request()));
  EXPECT_FALSE(conflicts(c, write(P("/a/bc")).request()));
}

// Reference: every pair of accesses, at least one a write, on related paths.
bool reference_conflicts(const Request& a, const Request& b) {
  const auto accesses = [](const Request& r) {
    std::vector<std::pair<Path, bool>> out;
    for (const auto& p : r.reads()) out.emplace_back(p, false);
    for (const auto& p : r.writes()) out.emplace_back(p, true);
    return out;
  };
  for (const auto& [x, xw] : accesses(a)) {
    for (const auto& [y, yw] : accesses(b)) {
      if ((xw || yw) && related(x, y)) return true;
    }
  }
  return false;
}

RC_GTEST_PROP(ConflictProps, SymmetricAndMatchesTheDefinition, ()) {
  const auto [a, b] = *testing::gen_near_requests();
  RC_ASSERT(conflicts(a, b) == conflicts(b, a));
  RC_ASSERT(conflicts(a, b) == reference_conflicts(a, b));
  if (a.writes().empty() && b.writes().empty()) RC_ASSERT(!conflicts(a, b));
}

RC_GTEST_PROP(ConflictProps, WitnessIsAConflict, (const Request& a, const Request& b)) {
  const auto w = conflict_witness(a, b);
  RC_PRE(w.has_value());
  RC_ASSERT(related(w->first, w->second));
  RC_ASSERT(w->first_access == Access::kWrite || w->second_access == Access::kWrite);
}

}  // namespace
}  // namespace pathlock::model
