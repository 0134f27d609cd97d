#pragma once
// A user-defined order in a scheme file: the object form of
// "acquisition.order" (scheme_file.hpp), schema "pathlock.scheme/1":
//
//   "order": {
//     "name": "my-order",                       // required; not a built-in's
//                                               // name, nor "request"
//     "keys": [                                 // 1..16, applied in sequence;
//                                               // the first that tells two
//                                               // paths apart decides
//       {"by": "depth", "direction": "descending"},        // or "ascending"
//       {"by": "rank", "paths": ["/b", "/a"], "rest": "after"},
//       {"by": "components", "direction": "ascending"}     // or "descending"
//     ]
//   }
//
// "depth" compares the number of components; "components" compares
// component by component, each by bytes ("/a" < "/a/b" < "/ab"); "rank" puts
// the listed paths (canonical, distinct, at most 4096) in list order and the
// rest, which tie among themselves, "before" or "after" all of them. Every
// field is required, so a file says what it means. An order is total iff a
// components key is among its keys, and no key may follow one (it would never
// be used). Without one the order is not total: planning keeps tied locks in
// request order, and `pathlock check` rejects it with two paths that tie.

#include <string>

#include <nlohmann/json.hpp>

#include "pathlock/impl/order.hpp"

namespace pathlock::io {

// The object form of an order defined by keys.
nlohmann::json keyed_order_to_json(const impl::LockOrder& order);
// Throws InputError naming `source` and the field below `field`.
impl::LockOrder keyed_order_from_json(const nlohmann::json& j, const std::string& source, const std::string& field);

}  // namespace pathlock::io
