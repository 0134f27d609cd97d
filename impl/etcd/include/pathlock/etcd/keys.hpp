#pragma once
// The etcd lock's key layout and its conflict rule: pure functions, no I/O,
// so that the unit tests and the harness check them without a cluster
// (proofs/etcd-lock.md argues the protocol built on them).
//
// A held or waiting acquisition writes one record per path it locks:
//
//   <prefix> enc(path) NUL mode id        enc(/) = "", enc(/a/b) = "a/b/"
//
// Each component is followed by '/', which no component contains, and NUL,
// which no path contains (model::Path rejects it), ends the path. Hence
//   - the records of a path p and of every path below it are exactly the
//     keys that start with <prefix> enc(p): one contiguous range, and
//   - that range holds no record of a sibling that merely shares a prefix:
//     enc(/a/b) = "a/b/" is not a byte prefix of enc(/a/bc) = "a/bc/"
//     (etcd's recipes keyed "path/" and "path/1" alike, website#710);
//   - the records of p itself are the keys that start with <prefix> enc(p) NUL.
// The mode is one byte ('r' or 'w') and the id names the acquisition (its
// lease and a counter), so two acquisitions never write the same key.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/model/path.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::etcd {

enum class RecordMode : char { kRead = 'r', kWrite = 'w' };

// A record of a path: a read conflicts only with a write of a related path
// (equal, ancestor or descendant); a write conflicts with both.
constexpr bool records_conflict(RecordMode a, RecordMode b) noexcept {
  return a == RecordMode::kWrite || b == RecordMode::kWrite;
}

// A half-open key range [begin, end); end empty = to the end of the keyspace.
struct KeyRange {
  std::string begin;
  std::string end;
  friend bool operator==(const KeyRange&, const KeyRange&) = default;
};

// enc(p): every component followed by '/'.
std::string encode_path(const model::Path& path);
// The least key greater than every key that starts with `prefix` (etcd's
// "prefix end"): the prefix with its last byte below 0xff incremented and
// the rest dropped; empty (no end) if every byte is 0xff.
std::string prefix_end(std::string_view prefix);

std::string record_key(std::string_view prefix, const model::Path& path, RecordMode mode, std::string_view id);
// Every record of `path` and of the paths below it.
KeyRange subtree_range(std::string_view prefix, const model::Path& path);
// Every record of `path` itself.
KeyRange path_records_range(std::string_view prefix, const model::Path& path);

struct ParsedRecord {
  std::string encoded_path;  // enc(path)
  RecordMode mode;
  std::string id;
};
// nullopt if `key` is not a record under `prefix` (a foreign key in the
// lock's keyspace is reported by the caller, not guessed at).
std::optional<ParsedRecord> parse_record_key(std::string_view prefix, std::string_view key);

// What one acquisition writes and reads, in one etcd transaction.
struct RecordPlan {
  struct Record {
    model::Path path;
    RecordMode mode;
    std::string key;
  };
  struct Check {
    KeyRange range;
    RecordMode mode;  // the strongest mode of this acquisition's records that the range relates to
  };
  std::vector<Record> records;  // one per path: W if written, else R; sorted by key
  // The ranges whose records may conflict: each record's subtree, and the
  // records of each proper ancestor. Without duplicates.
  std::vector<Check> checks;
};
RecordPlan plan_records(std::string_view prefix, const model::Request& request, std::string_view id);

}  // namespace pathlock::etcd
