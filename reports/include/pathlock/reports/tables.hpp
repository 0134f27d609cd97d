#pragma once
// Renderings of the static concurrency tables: terminal text, Markdown, HTML
// and JSON. Every cell is read off a sim::StaticAnalysis; nothing is typed in.
//
// JSON schema "pathlock.tables/1" (documented in README.md):
// {
//   "schema": "pathlock.tables/1",
//   "tree": {"depth", "fanout", "child_names": [..], "paths"},
//   "operations", "pairs",
//   "schemes": [{
//     "name", "title", "granularity", "order",
//     "modes": [{"name", "meaning"}], "compatibility": [[bool]],
//     "categories": [{"number", "pair", "related", "must", "verdict", "pairs",
//                     "blocked_pairs", "witness": Witness | null}],
//     "lineage_table": {"axes": [..], "cells": [["allows" | "blocks"]]},
//     "score_out_of_4": {"achieved", "possible"},
//     "score_out_of_8": {"achieved", "possible"},
//     "safe", "exact", "pairs", "conflicting_pairs",
//     "unsafe_pairs", "unsafe_witnesses": [Witness],
//     "over_blocked_pairs", "over_blocked_witness": Witness | null,
//     "by_operation": [{"first", "second", "pairs", "conflicting", "blocked",
//                       "unsafe", "over_blocked"}],
//     "join_defects": [{"left", "right", "joined", "lost_conflict_of", "with"}],
//     "claims": [{"claim", "status": "holds" | "broken" | "not claimed",
//                 "witness": {"explanation", "operation" | null, "plan" | null,
//                             "paths": [str]} | null}],   (sim/plan_claims.hpp)
//     "pair_computation": "merge of sorted plans" | "every pair of steps"
//   }]
// }
// Witness: {"first": Side, "second": Side, "lock_conflict": {"lock", "first_mode",
//           "second_mode"} | null, "spec_conflict": {"first_path", "first_access",
//           "second_path", "second_access"} | null}
// Side:    {"operation", "request", "plan"}

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pathlock/reports/document.hpp"
#include "pathlock/sim/static_table.hpp"

namespace pathlock::reports {

inline constexpr const char* kTablesSchema = "pathlock.tables/1";

nlohmann::json tables_json(const sim::StaticAnalysis& analysis);
std::string tables_markdown(const sim::StaticAnalysis& analysis);
std::string tables_html(const sim::StaticAnalysis& analysis);
// The one-table summary: scores, safety and exactness per scheme.
Table tables_summary(const sim::StaticAnalysis& analysis);
// The document all three text forms are rendered from.
Document tables_document(const sim::StaticAnalysis& analysis);

std::string tables_terminal(const sim::StaticAnalysis& analysis, Color color);

// Writes tables.md, tables.html and tables.json into `dir` (created if
// missing); returns the files written. Throws std::runtime_error naming the
// file on an I/O failure.
std::vector<std::filesystem::path> write_tables(const sim::StaticAnalysis& analysis,
                                                const std::filesystem::path& dir);

}  // namespace pathlock::reports
