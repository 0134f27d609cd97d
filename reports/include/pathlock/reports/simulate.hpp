#pragma once
// The simulation campaign report: terminal, Markdown, HTML (one file, plots
// inline), JSON, gnuplot plots (throughput, p99 latency and efficiency
// against contention), and a replay file for every failed run.
//
// Only completed runs measured performance. A run stopped by a violation or
// a deadlock, or an inconclusive one, shows as such in every table; its
// metrics stay in the JSON, marked by "status" and "performance", and never
// in a plot.
//
// JSON schema "pathlock.simulate/2" (documented in README.md).
// Replay files, schema "pathlock.replay/1":
//   {"schema", "scheme", "workload", "seed", "outcome", "schedule": {...}}

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pathlock/reports/document.hpp"
#include "pathlock/sim/campaign.hpp"

namespace pathlock::reports {

inline constexpr const char* kSimulateSchema = "pathlock.simulate/2";
inline constexpr const char* kReplaySchema = "pathlock.replay/1";

enum class Plots { kDraw, kSkip };

nlohmann::json simulate_json(const sim::CampaignResult& result);
// `out_dir` is the report folder as a path from where the reader stands
// (for the terminal: --out as the user gave it), so replay hints work from
// there; empty for a reader inside the folder (the report files themselves,
// which stay the same whatever folder they are written to).
Document simulate_document(const sim::CampaignResult& result, Plots plots, const std::filesystem::path& out_dir);
// The one-table summary per scheme.
Table simulate_summary(const sim::CampaignResult& result);

// "completed", "stopped: safety violation after 27/4000 tasks",
// "inconclusive after 27/4000 tasks".
std::string describe_run(sim::RunOutcome outcome, std::uint64_t tasks_completed, std::uint64_t tasks_scheduled);

// A run's failure (violation or deadlock) as report blocks.
void failure_blocks(Document& doc, const sim::RunResult& run);

nlohmann::json replay_json(const std::string& scheme, const sim::NamedRun& run);
// Where write_simulate puts a scheme's replay file, and the command that
// replays it (the path quoted for a shell where it needs to be).
std::filesystem::path replay_path(const std::filesystem::path& out_dir, const std::string& scheme);
std::string replay_command(const std::filesystem::path& out_dir, const std::string& scheme);

// Writes simulate.md, simulate.html, simulate.json, the plots (SVG, drawn by
// gnuplot) and replay-<scheme>.json for each failed run, after removing this
// tool's own outputs of an earlier run from `dir` (other files stay). Returns
// the files. Throws std::runtime_error on an I/O or gnuplot failure.
std::vector<std::filesystem::path> write_simulate(const sim::CampaignResult& result,
                                                  const std::filesystem::path& dir, Plots plots);

// The plot style (gnuplot line colour, dash and point type) of a series:
// fixed per scheme name (and "oracle"), the same in every plot.
std::string plot_style(std::string_view series);

// The gnuplot data file of one series (completed runs only; a stopped or
// inconclusive run is a comment and a break in the line) and the script that
// draws the three plots from them.
std::string sweep_data(const std::vector<sim::SweepPoint>& points);
std::string plot_script(const sim::CampaignResult& result);

// Removes from `dir` the files an earlier write_simulate left there: its
// fixed names, and replay-*.json and sweep-*.dat files that carry its
// signature. Returns what it removed.
std::vector<std::filesystem::path> remove_earlier_simulate_outputs(const std::filesystem::path& dir);

// Runs gnuplot on `script` inside `dir`. Throws std::runtime_error with
// gnuplot's exit status, or if gnuplot cannot be started.
void run_gnuplot(const std::filesystem::path& dir, const std::string& script);

// Writes `text` to `file`; throws std::runtime_error naming the file.
void write_text_file(const std::filesystem::path& file, const std::string& text);

// A report folder: created on construction, and every file written into it
// remembered. Throws std::runtime_error naming the folder or the file.
class ReportFolder {
 public:
  explicit ReportFolder(std::filesystem::path dir);
  void write(const std::string& name, const std::string& text);
  // A file written by someone else (gnuplot), to list with the rest.
  void add(const std::string& name) { files_.push_back(dir_ / name); }
  const std::filesystem::path& dir() const noexcept { return dir_; }
  std::vector<std::filesystem::path> files() const { return files_; }

 private:
  std::filesystem::path dir_;
  std::vector<std::filesystem::path> files_;
};

}  // namespace pathlock::reports
