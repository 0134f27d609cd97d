#pragma once
// RapidCheck generators for paths, requests and operations over a small
// alphabet, so that random pairs are often related and often share prefixes.

#include <rapidcheck.h>

#include <string>
#include <vector>

#include "pathlock/model/path.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::testing {

// Component names chosen so that string prefixes and path prefixes differ:
// /a and /ab are unrelated although "a" is a prefix of "ab".
inline rc::Gen<std::string> gen_component() {
  return rc::gen::element<std::string>("a", "ab", "b", ".", "..", "é");
}

inline rc::Gen<model::Path> gen_path(int max_depth = 4) {
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(gen_component()),
                      [max_depth](std::vector<std::string> comps) {
                        if (comps.size() > static_cast<std::size_t>(max_depth)) comps.resize(static_cast<std::size_t>(max_depth));
                        return model::Path::from_components(comps);
                      });
}

inline rc::Gen<model::Request> gen_request() {
  return rc::gen::apply(
          [](std::vector<model::Path> reads, std::vector<model::Path> writes) {
            if (reads.size() > 3) reads.resize(3);
            if (writes.size() > 3) writes.resize(3);
            if (reads.empty() && writes.empty()) writes.push_back(model::Path::root());
            return model::Request(std::move(reads), std::move(writes));
          },
          rc::gen::container<std::vector<model::Path>>(gen_path()),
          rc::gen::container<std::vector<model::Path>>(gen_path()));
}

inline rc::Gen<model::Operation> gen_operation() {
  return rc::gen::apply(
      [](int kind, model::Path p, model::Path q) {
        switch (kind) {
          case 0: return model::read(p);
          case 1: return model::write(p);
          case 2: return model::remove(p);
          case 3: return model::rename(p, q);
          default: return model::copy(p, q);
        }
      },
      rc::gen::inRange(0, 5), gen_path(), gen_path());
}

// Operations on a tiny tree (depth <= 2 over {a, b}), for the model checker:
// small scenarios whose paths are nearly always related.
inline rc::Gen<model::Operation> gen_small_operation() {
  const auto path = rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>("a", "b")),
                                 [](std::vector<std::string> comps) {
                                   if (comps.size() > 2) comps.resize(2);
                                   return model::Path::from_components(comps);
                                 });
  return rc::gen::apply(
      [](int kind, model::Path p, model::Path q) {
        switch (kind) {
          case 0: return model::read(p);
          case 1: return model::write(p);
          case 2: return model::rename(p, q);
          default: return model::copy(p, q);
        }
      },
      rc::gen::inRange(0, 4), path, path);
}


// --- Generators biased toward what breaks lineage ---------------------------
// Sibling prefixes (/a/b beside /a/bc, /a/b_, /ab), the root, repeated
// components (/a/a/a), deep paths up to the key-length limit, keys at the
// length limit, and bytes next to '/' in byte order ('.' and '-' below it,
// '0' just above), spaces, multi-byte UTF-8 up to U+10FFFF.

inline rc::Gen<std::string> gen_tricky_component() {
  return rc::gen::weightedOneOf<std::string>({
      {6, rc::gen::element<std::string>("a", "ab", "b", "a_", "a-", "a.", "a0", "a b", "0", ".", "..", "-", "_",
                                         " ", "~", "\x7F", "\xC3\xA9", "a\xC3\xA9", "\xF4\x8F\xBF\xBF",
                                         "\xE2\x80\x8B", "aa", "abc")},
      {1, rc::gen::map(rc::gen::inRange(1, 6), [](int n) { return std::string(static_cast<std::size_t>(n), 'a'); })},
  });
}

// Drops trailing components until the key fits S3's 1,024 bytes.
inline model::Path path_within_limit(std::vector<std::string> comps) {
  std::size_t bytes = 0;
  std::size_t keep = 0;
  for (; keep < comps.size(); ++keep) {
    const std::size_t next = bytes + (keep == 0 ? 0 : 1) + comps[keep].size();
    if (next > model::kMaxKeyBytes) break;
    bytes = next;
  }
  comps.resize(keep);
  return model::Path::from_components(comps);
}

// The same component repeated up to the depth the key limit allows (512
// one-byte components), or a few components whose key is exactly the limit
// or one byte under it.
inline rc::Gen<model::Path> gen_limit_path() {
  return rc::gen::oneOf(
      rc::gen::apply(
          [](std::string c, int depth) {
            return path_within_limit(std::vector<std::string>(static_cast<std::size_t>(depth), c));
          },
          rc::gen::element<std::string>("a", "0", ".", "\xC3\xA9"), rc::gen::inRange(1, 513)),
      rc::gen::apply(
          [](int parts, int slack) {
            // `parts` components of 'x' joined by '/' filling the key to
            // kMaxKeyBytes - slack bytes.
            const std::size_t total = model::kMaxKeyBytes - static_cast<std::size_t>(slack);
            const std::size_t n = static_cast<std::size_t>(parts);
            const std::size_t each = (total - (n - 1)) / n;
            std::vector<std::string> comps(n, std::string(each, 'x'));
            comps.back().append(total - (n - 1) - each * n, 'y');
            return path_within_limit(std::move(comps));
          },
          rc::gen::inRange(1, 5), rc::gen::inRange(0, 2)));
}

inline rc::Gen<model::Path> gen_tricky_path() {
  return rc::gen::weightedOneOf<model::Path>({
      {1, rc::gen::just(model::Path::root())},
      {8, rc::gen::map(rc::gen::container<std::vector<std::string>>(gen_tricky_component()),
                       [](std::vector<std::string> comps) {
                         if (comps.size() > 6) comps.resize(6);
                         return path_within_limit(std::move(comps));
                       })},
      {1, gen_limit_path()},
  });
}

// A path derived from `p` so that the two are often related or nearly so:
// itself, an ancestor, a descendant, a sibling prefix (last component
// extended or cut: /a/b -> /a/bc, /a/b_, /a), the parent's sibling prefix
// (/a/b -> /ab), or unrelated.
inline rc::Gen<model::Path> gen_near_path(const model::Path& p) {
  const auto comps = [p] {
    std::vector<std::string> out;
    for (auto c : p.components()) out.emplace_back(c);
    return out;
  }();
  return rc::gen::apply(
      [p, comps](int how, std::string extra, std::size_t cut) -> model::Path {
        auto c = comps;
        switch (how) {
          case 0: return p;
          case 1: c.resize(comps.empty() ? 0 : cut % comps.size()); break;  // an ancestor
          case 2: c.push_back(extra); break;                                   // a child
          case 3:  // a sibling prefix, or a path below one (/a/b -> /a/bc/a: deeper, yet unrelated)
            if (c.empty()) c.push_back(extra); else c.back() += extra;
            if (cut % 2 == 1) c.push_back("a");
            break;
          case 4:  // the last component cut short, or a sibling prefix one level up
            if (c.empty()) {
              c.push_back(extra);
            } else if (auto& last = c.back(); last.size() > 1 && static_cast<unsigned char>(last.front()) < 0x80) {
              last.pop_back();  // one byte off an ASCII-led name; drop a whole UTF-8 sequence
              while (!last.empty() && (static_cast<unsigned char>(last.back()) & 0xC0) == 0x80) last.pop_back();
              if (!last.empty() && static_cast<unsigned char>(last.back()) >= 0xC0) last.pop_back();
              if (last.empty()) last = extra;
            } else if (c.size() > 1) {
              c.pop_back();
              c.back() += extra;
            } else {
              c.back() += extra;
            }
            break;
          default: c = {extra}; break;  // unrelated unless it names an ancestor
        }
        return path_within_limit(std::move(c));
      },
      rc::gen::inRange(0, 6), gen_tricky_component(), rc::gen::arbitrary<std::size_t>());
}

// Two paths, the second near the first (gen_near_path).
inline rc::Gen<std::pair<model::Path, model::Path>> gen_near_pair() {
  return rc::gen::mapcat(gen_tricky_path(), [](const model::Path& p) {
    return rc::gen::map(gen_near_path(p), [p](model::Path q) { return std::pair(p, std::move(q)); });
  });
}

// Two requests over a pool of paths near one another, each path read or
// written: pairs that conflict or barely do not.
inline rc::Gen<std::pair<model::Request, model::Request>> gen_near_requests() {
  return rc::gen::mapcat(gen_tricky_path(), [](const model::Path& p) {
    const auto access = rc::gen::pair(gen_near_path(p), rc::gen::arbitrary<bool>());
    const auto request = rc::gen::map(rc::gen::container<std::vector<std::pair<model::Path, bool>>>(access),
                                      [p](std::vector<std::pair<model::Path, bool>> xs) {
                                        if (xs.size() > 3) xs.resize(3);
                                        std::vector<model::Path> reads;
                                        std::vector<model::Path> writes;
                                        for (auto& [q, w] : xs) (w ? writes : reads).push_back(q);
                                        if (reads.empty() && writes.empty()) writes.push_back(p);
                                        return model::Request(std::move(reads), std::move(writes));
                                      });
    return rc::gen::pair(request, request);
  });
}

}  // namespace pathlock::testing

namespace rc {
template <>
struct Arbitrary<pathlock::model::Path> {
  static Gen<pathlock::model::Path> arbitrary() { return pathlock::testing::gen_path(); }
};
template <>
struct Arbitrary<pathlock::model::Request> {
  static Gen<pathlock::model::Request> arbitrary() { return pathlock::testing::gen_request(); }
};
template <>
struct Arbitrary<pathlock::model::Operation> {
  static Gen<pathlock::model::Operation> arbitrary() { return pathlock::testing::gen_operation(); }
};
}  // namespace rc

// Printers, so failing properties show paths and requests readably.
namespace pathlock::model {
inline void showValue(const Path& p, std::ostream& os) { os << p.str(); }
inline void showValue(const Request& r, std::ostream& os) { os << r.to_string(); }
inline void showValue(const Operation& o, std::ostream& os) { os << o.to_string(); }
}  // namespace pathlock::model
