#pragma once
// The `pathlock check` report: terminal, Markdown, HTML and JSON
// ("pathlock.check/2": each evidence row has a status, pass, fail,
// incomplete, weak or no power, and the counterexample says how shrinking
// ended; README documents the fields), and for each failing scheme a replayable pair of
// files: <scheme>.scheme.json (the scheme as checked) and
// <scheme>.counterexample.json (the minimal scenario, naming that scheme
// file), plus the wait-for cycle of a deadlock as <scheme>.cycle.dot and as
// a picture, <scheme>.cycle.svg, which the Markdown and HTML show.

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/reports/document.hpp"
#include "pathlock/sim/check.hpp"

namespace pathlock::reports {

inline constexpr const char* kCheckSchema = "pathlock.check/2";

// One checked scheme: the scheme and its result.
struct CheckedScheme {
  const impl::Scheme* scheme;
  const sim::CheckResult* result;
};

// A file-name-safe form of a scheme's name: "path-rwa/deepest-first" -> "path-rwa-deepest-first".
std::string file_slug(const std::string& name);

nlohmann::json check_json(std::span<const CheckedScheme> checked);
// kDraw: show each deadlock's cycle picture (written by write_check).
enum class Pictures { kDraw, kSkip };
Document check_document(std::span<const CheckedScheme> checked, Pictures pictures);

// A wait-for cycle as an SVG picture: the tasks on a circle, each arrow to
// the task it waits for, labelled with the lock step it wants (a self-loop
// for a task that waits for itself). REQUIRES: a non-empty cycle.
std::string cycle_svg(const std::vector<sim::Counterexample::CycleNode>& cycle);

// The command that replays a counterexample from the files write_check writes.
std::string replay_command(const sim::CheckResult& result, const std::filesystem::path& dir);

// Writes check.md, check.html, check.json and each failing scheme's files
// into `dir`. Returns the files. Throws std::runtime_error on an I/O failure.
std::vector<std::filesystem::path> write_check(std::span<const CheckedScheme> checked,
                                               const std::filesystem::path& dir);

}  // namespace pathlock::reports
