#include "pathlock/model/request.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pathlock/model/error.hpp"

namespace pathlock::model {
namespace {

void sort_unique(std::vector<Path>& paths) {
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
}

std::string join_paths(const std::vector<Path>& paths) {
  std::string out;
  for (const auto& p : paths) {
    if (!out.empty()) out += ", ";
    out += p.str();
  }
  return out;
}

}  // namespace

Request::Request(std::vector<Path> reads, std::vector<Path> writes)
    : reads_(std::move(reads)), writes_(std::move(writes)) {
  if (reads_.empty() && writes_.empty()) {
    throw InputError(InputProblem::kEmptyRequest,
                     "request has no read paths and no write paths; nothing to lock");
  }
  sort_unique(reads_);
  sort_unique(writes_);
}

std::string Request::to_string() const {
  std::string out;
  if (!reads_.empty()) out += fmt::format("R{{{}}}", join_paths(reads_));
  if (!writes_.empty()) {
    if (!out.empty()) out += ' ';
    out += fmt::format("W{{{}}}", join_paths(writes_));
  }
  return out;
}

std::string_view to_string(OpKind kind) {
  switch (kind) {
    case OpKind::kRead: return "read";
    case OpKind::kWrite: return "write";
    case OpKind::kRemove: return "delete";
    case OpKind::kRename: return "rename";
    case OpKind::kCopy: return "copy";
  }
  return "?";
}

std::optional<OpKind> op_kind_from_string(std::string_view name) {
  if (name == "read") return OpKind::kRead;
  if (name == "write") return OpKind::kWrite;
  if (name == "delete" || name == "remove") return OpKind::kRemove;
  if (name == "rename") return OpKind::kRename;
  if (name == "copy") return OpKind::kCopy;
  return std::nullopt;
}

int arity(OpKind kind) {
  return kind == OpKind::kRename || kind == OpKind::kCopy ? 2 : 1;
}

Operation Operation::make(OpKind kind, std::vector<Path> paths) {
  const auto want = static_cast<std::size_t>(arity(kind));
  if (paths.size() != want) {
    throw InputError(InputProblem::kBadOperation,
                     fmt::format("{} takes {} path{}, got {}", model::to_string(kind), want,
                                 want == 1 ? "" : "s", paths.size()));
  }
  Operation op{kind, std::move(paths[0]), std::nullopt};
  if (want == 2) op.target = std::move(paths[1]);
  return op;
}

Request Operation::request() const {
  switch (kind) {
    case OpKind::kRead: return Request({source}, {});
    case OpKind::kWrite:
    case OpKind::kRemove: return Request({}, {source});
    case OpKind::kRename: return Request({}, {source, *target});
    case OpKind::kCopy: return Request({source}, {*target});
  }
  return Request({}, {source});
}

std::string Operation::to_string() const {
  if (target) return fmt::format("{}({}, {})", model::to_string(kind), source.str(), target->str());
  return fmt::format("{}({})", model::to_string(kind), source.str());
}

Operation read(Path p) { return {OpKind::kRead, std::move(p), std::nullopt}; }
Operation write(Path p) { return {OpKind::kWrite, std::move(p), std::nullopt}; }
Operation remove(Path p) { return {OpKind::kRemove, std::move(p), std::nullopt}; }
Operation rename(Path from, Path to) { return {OpKind::kRename, std::move(from), std::move(to)}; }
Operation copy(Path from, Path to) { return {OpKind::kCopy, std::move(from), std::move(to)}; }

}  // namespace pathlock::model
