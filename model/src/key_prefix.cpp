#include "pathlock/model/key_prefix.hpp"

#include <vector>

namespace pathlock::model::key_prefix {
namespace {

// Whether [a.low, a.high) contains [b.low, b.high). Keys compare as bytes
// (std::string compares unsigned chars, as S3 orders keys).
bool contains(const KeyRange& a, const KeyRange& b) {
  if (b.low < a.low) return false;
  if (!a.high) return true;
  return b.high && *b.high <= *a.high;
}

bool intersect(const KeyRange& a, const KeyRange& b) {
  const bool a_starts_before_b_ends = !b.high || a.low < *b.high;
  const bool b_starts_before_a_ends = !a.high || b.low < *a.high;
  return a_starts_before_b_ends && b_starts_before_a_ends;
}

bool is_write(const KeyAccess& x) { return x.access == Access::kWrite; }

}  // namespace

KeyRange range_of_folder_key(std::string_view folder_key) {
  if (folder_key.empty()) return {std::string(), std::nullopt};
  std::string low(folder_key);
  low.push_back('/');
  std::string high = low;
  high.back() = static_cast<char>('/' + 1);  // the first key after every "a/b/..." key
  return {std::move(low), std::move(high)};
}

KeyRange range_of(const Path& path) {
  std::string_view text = path.str();  // "/" or "/a/b": the key is the text after the first '/'
  text.remove_prefix(1);
  return range_of_folder_key(text);
}

std::string_view to_string(Lineage lineage) noexcept {
  switch (lineage) {
    case Lineage::kEqual: return "equal";
    case Lineage::kAncestor: return "ancestor";
    case Lineage::kDescendant: return "descendant";
    case Lineage::kUnrelated: return "unrelated";
  }
  return "?";
}

Lineage lineage(const Path& p, const Path& q) {
  const KeyRange rp = range_of(p);
  const KeyRange rq = range_of(q);
  const bool p_holds_q = contains(rp, rq);
  const bool q_holds_p = contains(rq, rp);
  if (p_holds_q && q_holds_p) return Lineage::kEqual;
  if (p_holds_q) return Lineage::kAncestor;
  if (q_holds_p) return Lineage::kDescendant;
  return Lineage::kUnrelated;
}

bool related(const Path& p, const Path& q) { return intersect(range_of(p), range_of(q)); }

Accesses::Accesses(const Request& request) {
  for (const auto& p : request.reads()) all_.push_back({range_of(p), Access::kRead});
  for (const auto& p : request.writes()) all_.push_back({range_of(p), Access::kWrite});
}

bool conflicts(const Accesses& a, const Accesses& b) {
  for (const auto& x : a.all()) {
    for (const auto& y : b.all()) {
      if ((is_write(x) || is_write(y)) && intersect(x.range, y.range)) return true;
    }
  }
  return false;
}

bool conflicts(const Request& a, const Request& b) { return conflicts(Accesses(a), Accesses(b)); }

std::optional<int> category_number(const Request& a, const Request& b) {
  const Accesses as(a);
  const Accesses bs(b);
  const auto& xs = as.all();
  const auto& ys = bs.all();
  if (xs.size() != 1 || ys.size() != 1) return std::nullopt;
  const int writes = (xs[0].access == Access::kWrite ? 1 : 0) + (ys[0].access == Access::kWrite ? 1 : 0);
  // Rows of the design notes' table: W,R / W,W / R,R, related first.
  if (intersect(xs[0].range, ys[0].range)) return writes == 2 ? 2 : writes == 1 ? 1 : 5;
  return writes == 2 ? 3 : writes == 1 ? 4 : 6;
}

bool category_must_block(int number) { return number == 1 || number == 2; }

}  // namespace pathlock::model::key_prefix
