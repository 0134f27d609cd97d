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
