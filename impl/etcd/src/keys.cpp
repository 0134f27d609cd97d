#include "pathlock/etcd/keys.hpp"

#include <algorithm>
#include <map>

namespace pathlock::etcd {

std::string encode_path(const model::Path& path) {
  // "/a/b" -> "a/b/": drop the leading '/', add one after the last component.
  if (path.is_root()) return {};
  std::string out = path.str().substr(1);
  out.push_back('/');
  return out;
}

std::string prefix_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return end;  // every byte 0xff (or no prefix): to the end of the keyspace
}

std::string record_key(std::string_view prefix, const model::Path& path, RecordMode mode, std::string_view id) {
  std::string key(prefix);
  key += encode_path(path);
  key.push_back('\0');
  key.push_back(static_cast<char>(mode));
  key += id;
  return key;
}

KeyRange subtree_range(std::string_view prefix, const model::Path& path) {
  std::string begin(prefix);
  begin += encode_path(path);
  return {begin, prefix_end(begin)};
}

KeyRange path_records_range(std::string_view prefix, const model::Path& path) {
  std::string begin(prefix);
  begin += encode_path(path);
  begin.push_back('\0');
  return {begin, prefix_end(begin)};
}

std::optional<ParsedRecord> parse_record_key(std::string_view prefix, std::string_view key) {
  if (!key.starts_with(prefix)) return std::nullopt;
  key.remove_prefix(prefix.size());
  const auto nul = key.find('\0');
  if (nul == std::string_view::npos || nul + 1 >= key.size()) return std::nullopt;
  const std::string_view encoded = key.substr(0, nul);
  if (!encoded.empty() && encoded.back() != '/') return std::nullopt;
  const char mode = key[nul + 1];
  if (mode != static_cast<char>(RecordMode::kRead) && mode != static_cast<char>(RecordMode::kWrite)) {
    return std::nullopt;
  }
  return ParsedRecord{std::string(encoded), static_cast<RecordMode>(mode), std::string(key.substr(nul + 2))};
}

RecordPlan plan_records(std::string_view prefix, const model::Request& request, std::string_view id) {
  RecordPlan plan;
  // A path both read and written is recorded once, as a write.
  for (const auto& p : request.writes()) plan.records.push_back({p, RecordMode::kWrite, {}});
  for (const auto& p : request.reads()) {
    if (!std::binary_search(request.writes().begin(), request.writes().end(), p)) {
      plan.records.push_back({p, RecordMode::kRead, {}});
    }
  }
  for (auto& r : plan.records) r.key = record_key(prefix, r.path, r.mode, id);
  std::sort(plan.records.begin(), plan.records.end(),
            [](const RecordPlan::Record& a, const RecordPlan::Record& b) { return a.key < b.key; });

  // Each range once, with the strongest mode among the records it relates to.
  std::map<std::pair<std::string, std::string>, RecordMode> checks;
  const auto add = [&](KeyRange range, RecordMode mode) {
    auto [it, inserted] = checks.try_emplace({std::move(range.begin), std::move(range.end)}, mode);
    if (!inserted && mode == RecordMode::kWrite) it->second = mode;
  };
  for (const auto& r : plan.records) {
    add(subtree_range(prefix, r.path), r.mode);
    for (const auto& a : r.path.proper_ancestors()) add(path_records_range(prefix, a), r.mode);
  }
  for (auto& [range, mode] : checks) plan.checks.push_back({{range.first, range.second}, mode});
  return plan;
}

}  // namespace pathlock::etcd
