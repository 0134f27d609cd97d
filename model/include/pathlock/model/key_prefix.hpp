#pragma once
// A second, independent formulation of the specification, over S3 key
// ranges instead of path components. The checkers ask it to confirm what
// the primary formulation (conflict.hpp, category.hpp) says before they call
// something a lock bug: where the two disagree, the bug is in the model.
//
// Why it lives in model/: it is the specification said a second time, and
// every checker in sim/ needs it; model/ has no dependency it would add, and
// impl/ never calls it (impl never judges itself). It must never call the
// primary formulation (related(), is_proper_ancestor_of(), conflicts(),
// categorize()); it only reads a path's key text.
//
// The formulation: a folder is the set of object keys below it, which in
// S3's byte order is one half-open key range. Folder /a/b holds exactly the
// keys that start with "a/b/", i.e. the range ["a/b/", "a/b0") ('0' is the
// byte after '/'); the root holds every key. Two folders are related iff
// their ranges intersect; prefix ranges are laminar (nested or disjoint), so
// an ancestor's range strictly contains its descendant's. Two requests
// conflict iff a range one writes intersects a range the other reads or
// writes.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/model/path.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::model::key_prefix {

// A folder's keys: [low, high), or [low, end of the key space) when unbounded.
struct KeyRange {
  std::string low;
  std::optional<std::string> high;  // nullopt: unbounded (the root)
};

// The range of the folder whose key prefix is `folder_key` ("" for the root,
// "a/b" for /a/b). REQUIRES: a key as Path::key() returns it.
KeyRange range_of_folder_key(std::string_view folder_key);
KeyRange range_of(const Path& path);

enum class Lineage { kEqual, kAncestor, kDescendant, kUnrelated };
std::string_view to_string(Lineage lineage) noexcept;

// How `p` stands to `q`: kAncestor if p is a proper ancestor of q.
Lineage lineage(const Path& p, const Path& q);
bool related(const Path& p, const Path& q);

bool conflicts(const Request& a, const Request& b);

// A request's key ranges, computed once, for callers that judge many pairs.
struct KeyAccess {
  KeyRange range;
  Access access;
};
class Accesses {
 public:
  explicit Accesses(const Request& request);
  const std::vector<KeyAccess>& all() const noexcept { return all_; }

 private:
  std::vector<KeyAccess> all_;
};
bool conflicts(const Accesses& a, const Accesses& b);

// The design notes' category number (1..6) of two single-path requests, or
// nullopt if either names more than one path; and whether it must block.
std::optional<int> category_number(const Request& a, const Request& b);
bool category_must_block(int number);

}  // namespace pathlock::model::key_prefix
