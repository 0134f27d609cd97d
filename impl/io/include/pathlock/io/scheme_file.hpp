#pragma once
// Scheme files: a scheme as JSON, so a scheme or an ordering change can be
// tried without recompiling (`pathlock check --scheme-file F`, `explore`,
// and PathLock itself). Schema "pathlock.scheme/1":
//
// {
//   "schema": "pathlock.scheme/1",
//   "name": "my-scheme",                      // required, what reports call it
//   "title": "...", "description": "...",     // optional
//   "granularity": "per-path",                // or "global" (one lock)
//   "modes": [{"name": "RA", "meaning": "..."}, {"name": "R"}, ...],   // 1..8 modes
//   "compatible": {"RA": ["RA", "R", "WA"], "R": ["RA", "R"], ...},    // per mode, the
//                                             // modes it may be held with; must be
//                                             // symmetric; a mode left out is
//                                             // compatible with nothing
//   "roles": {"write_target": "W", "read_target": "R",
//             "write_ancestor": "WA", "read_ancestor": "RA"},
//   "join": [["RA", "R", "WA", "W"], ...],    // modes x modes, by name, row and
//                                             // column in "modes" order; a semilattice
//   "acquisition": {"order": "ancestor-first",  // or "preorder", "deepest-first",
//                                             // "request", or an order defined by keys:
//                                             // {"name": ..., "keys": [...]}
//                                             // (order_file.hpp)
//                   "joining": "join"},       // or "per-role" (no joining)
//   "fairness": {"promise": "fifo"}           // optional, default FIFO; or "none"
//                                             // (measured only), or
//                                             // {"promise": "bounded-bypass", "bound": k}
//                                             // with 1 <= k <= kMaxBypassBound
//                                             // (scheme.hpp, "Fairness")
// }
//
// Every built-in scheme exports to this form and loads back identical
// (tested). Errors name the file and the field; a scheme that violates an
// invariant of scheme.hpp is rejected with Scheme's own message.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "pathlock/impl/scheme.hpp"

namespace pathlock::io {

nlohmann::json scheme_to_json(const impl::Scheme& scheme);
// Throws model::InputError naming `source` and the field.
impl::Scheme parse_scheme(const std::string& json_text, const std::string& source);
impl::Scheme scheme_from_json(const nlohmann::json& j, const std::string& source);
impl::Scheme load_scheme_file(const std::filesystem::path& file);

}  // namespace pathlock::io
