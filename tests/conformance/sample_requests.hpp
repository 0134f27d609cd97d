#pragma once
// The requests the conformance suite and the etcd history runs draw from.

#include <string_view>
#include <vector>

#include "pathlock/model/request.hpp"

namespace pathlock::conformance {

inline model::Path P(std::string_view s) { return model::Path::parse(s); }

// Requests over a small tree, with sibling names that share a prefix (/a, /ab).
inline std::vector<model::Request> sample_requests() {
  std::vector<model::Request> out;
  for (const char* p : {"/a", "/a/b", "/a/bc", "/ab", "/ab/b"}) {
    out.push_back(model::read(P(p)).request());
    out.push_back(model::write(P(p)).request());
  }
  out.push_back(model::copy(P("/a"), P("/ab/c")).request());
  out.push_back(model::rename(P("/a/b"), P("/ab")).request());
  out.push_back(model::copy(P("/a/bc"), P("/a/b/x")).request());
  return out;
}

}  // namespace pathlock::conformance
