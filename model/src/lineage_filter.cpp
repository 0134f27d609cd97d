#include "pathlock/model/lineage_filter.hpp"

#include <functional>
#include <string_view>

namespace pathlock::model {

namespace {

std::uint64_t bit_of(std::string_view path_text) noexcept {
  return std::uint64_t{1} << (std::hash<std::string_view>{}(path_text) % 64);
}

// The path's own bit, and the bits of it and every ancestor ("/", "/a", "/a/b").
void add(const Path& p, std::uint64_t& self, std::uint64_t& prefixes) {
  const std::string_view text = p.str();
  self |= bit_of(text);
  prefixes |= bit_of("/");
  for (std::size_t i = 1; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '/') prefixes |= bit_of(text.substr(0, i));
  }
}

}  // namespace

LineageFilter::LineageFilter(const Request& request) {
  for (const auto& p : request.writes()) add(p, write_self_, write_prefixes_);
  for (const auto& p : request.reads()) add(p, read_self_, read_prefixes_);
}

}  // namespace pathlock::model
