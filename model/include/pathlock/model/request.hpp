#pragma once
// Requests and the operations that make them (proofs/design.md, "Requests and
// operations"):
//   read(p)      = R{p}
//   write(p)     = W{p}
//   remove(p)    = W{p}          ("delete" in the design notes)
//   rename(p, q) = W{p, q}
//   copy(p, q)   = R{p} W{q}

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/model/path.hpp"

namespace pathlock::model {

enum class Access { kRead, kWrite };

// A set of read paths and a set of write paths. Both are kept sorted and
// without duplicates; at least one of them is non-empty.
class Request {
 public:
  // Throws InputError(kEmptyRequest) if both sets are empty.
  Request(std::vector<Path> reads, std::vector<Path> writes);

  const std::vector<Path>& reads() const noexcept { return reads_; }
  const std::vector<Path>& writes() const noexcept { return writes_; }

  // True iff the request names exactly one path, read or written.
  bool is_single_path() const noexcept { return reads_.size() + writes_.size() == 1; }
  // For a single-path request: its access and path.
  // REQUIRES: is_single_path().
  Access single_access() const noexcept { return writes_.empty() ? Access::kRead : Access::kWrite; }
  const Path& single_path() const noexcept { return writes_.empty() ? reads_.front() : writes_.front(); }

  // "R{/a} W{/a/b}".
  std::string to_string() const;

  friend bool operator==(const Request&, const Request&) = default;

 private:
  std::vector<Path> reads_;
  std::vector<Path> writes_;
};

enum class OpKind { kRead, kWrite, kRemove, kRename, kCopy };

std::string_view to_string(OpKind kind);
// Accepts "read", "write", "delete"/"remove", "rename", "copy".
std::optional<OpKind> op_kind_from_string(std::string_view name);
// Number of paths the operation takes: 1 or 2.
int arity(OpKind kind);

// One of the five operations on pseudo-folders.
struct Operation {
  OpKind kind = OpKind::kRead;
  Path source;                 // the path of read/write/remove; `from` of rename/copy
  std::optional<Path> target;  // `to` of rename/copy

  // Throws InputError(kBadOperation) if the number of paths does not match.
  static Operation make(OpKind kind, std::vector<Path> paths);

  Request request() const;
  // "copy(/a, /a/b)".
  std::string to_string() const;

  friend bool operator==(const Operation&, const Operation&) = default;
};

Operation read(Path p);
Operation write(Path p);
Operation remove(Path p);
Operation rename(Path from, Path to);
Operation copy(Path from, Path to);

}  // namespace pathlock::model
