#pragma once
// The simulation campaign report: terminal, Markdown, HTML, JSON, gnuplot
// plots (throughput, p99 latency and efficiency against contention), and a
// replay file for every failed run.
//
// JSON schema "pathlock.simulate/1" (documented in README.md).
// Replay files, schema "pathlock.replay/1":
//   {"schema", "scheme", "workload", "seed", "outcome", "schedule": {...}}

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pathlock/reports/document.hpp"
#include "pathlock/sim/campaign.hpp"

namespace pathlock::reports {

inline constexpr const char* kSimulateSchema = "pathlock.simulate/1";
inline constexpr const char* kReplaySchema = "pathlock.replay/1";

nlohmann::json simulate_json(const sim::CampaignResult& result);
Document simulate_document(const sim::CampaignResult& result, bool with_plots);
// The one-table summary per scheme.
Table simulate_summary(const sim::CampaignResult& result);

// A run's failure (violation or deadlock) as report blocks.
void failure_blocks(Document& doc, const sim::RunResult& run);

nlohmann::json replay_json(const std::string& scheme, const sim::NamedRun& run);

enum class Plots { kDraw, kSkip };

// Writes simulate.md, simulate.html, simulate.json, the plots (SVG, drawn by
// gnuplot) and replay-<scheme>.json for each failed run. Returns the files.
// Throws std::runtime_error on an I/O or gnuplot failure.
std::vector<std::filesystem::path> write_simulate(const sim::CampaignResult& result,
                                                  const std::filesystem::path& dir, Plots plots);

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
