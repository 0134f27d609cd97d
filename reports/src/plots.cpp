#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <array>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>

#include "pathlock/reports/simulate.hpp"

extern char** environ;

namespace pathlock::reports {

namespace {

struct SeriesStyle {
  std::string_view series;
  std::string_view color;
  int dash;   // gnuplot dash type: 1 solid, 2 dashed, ...
  int point;  // gnuplot point type
};

// One style per series, the same in every plot, so a colour always means the
// same scheme. The two path-rwa schemes share their single-path numbers, so
// they differ in dash and point as well as colour, to stay visible on top of
// each other.
constexpr std::array kStyles{
    SeriesStyle{"oracle", "#000000", 2, 1},         SeriesStyle{"global-mutex", "#d62728", 1, 5},
    SeriesStyle{"global-rw", "#ff7f0e", 1, 9},      SeriesStyle{"path-rw", "#2ca02c", 1, 11},
    SeriesStyle{"path-rwa", "#9467bd", 1, 7},       SeriesStyle{"path-rwa-joined", "#1f77b4", 3, 6},
};
// Schemes without a fixed style (from scheme files) draw one of these, picked
// by a hash of the name, so a name keeps its style from run to run.
constexpr std::array<std::string_view, 6> kSpareColors{"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79"};

std::string style_text(std::string_view color, int dash, int point) {
  return fmt::format("lc rgb '{}' dt {} pt {} lw 2", color, dash, point);
}

// The header every sweep data file starts with: remove_earlier_simulate_outputs
// recognises its own files by it.
constexpr std::string_view kSweepDataHeader = "# level\tthroughput\tp99\tefficiency\n";

std::string first_bytes(const std::filesystem::path& file, std::size_t n) {
  std::ifstream in(file, std::ios::binary);
  std::string out(n, '\0');
  in.read(out.data(), static_cast<std::streamsize>(n));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

bool is_replay_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("schema") && j["schema"] == kReplaySchema;
}

}  // namespace

std::string plot_style(std::string_view series) {
  for (const auto& s : kStyles) {
    if (s.series == series) return style_text(s.color, s.dash, s.point);
  }
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a
  for (char c : series) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return style_text(kSpareColors[hash % kSpareColors.size()], 4, 2 + static_cast<int>(hash / 7 % 4) * 2);
}

std::string sweep_data(const std::vector<sim::SweepPoint>& points) {
  std::string data(kSweepDataHeader);
  for (const auto& p : points) {
    if (sim::performance_validity(p.outcome) != sim::PerformanceValidity::kValid) {
      // Left out; the blank line breaks the line through the plot.
      data += fmt::format("# {}: {}\n\n", p.level, describe_run(p.outcome, p.metrics.tasks_completed, p.tasks_scheduled));
      continue;
    }
    data += fmt::format("{}\t{}\t{}\t{}\n", p.level, p.metrics.throughput, p.metrics.latency.p99, p.efficiency);
  }
  return data;
}

std::string plot_script(const sim::CampaignResult& r) {
  const bool closed = r.spec.sweep.load == sim::LoadMode::kClosed;
  std::vector<std::pair<std::string, const std::vector<sim::SweepPoint>*>> series{{"oracle", &r.oracle}};
  for (const auto& sc : r.schemes) series.emplace_back(sc.scheme->name(), &sc.sweep);
  const auto plot = [&](const std::string& file, const std::string& ylabel, int column) {
    std::vector<std::string> lines;
    for (const auto& [name, points] : series) {
      const bool any = std::any_of(points->begin(), points->end(), [](const sim::SweepPoint& p) {
        return sim::performance_validity(p.outcome) == sim::PerformanceValidity::kValid;
      });
      if (!any) continue;  // nothing measured: gnuplot would only warn
      lines.push_back(fmt::format("'sweep-{}.dat' using 1:{} with linespoints {} title '{}'", name, column,
                                  plot_style(name), name));
    }
    return fmt::format("set output '{}'\nset ylabel '{}'\nplot {}\n", file, ylabel, fmt::join(lines, ", \\\n     "));
  };
  std::string script = fmt::format(
      "set terminal svg size 720,420 dynamic font 'sans,12' background rgb 'white'\n"
      "set grid\nset key outside right\nset xlabel '{}'\n{}",
      closed ? "clients" : "arrival rate", closed ? "set logscale x 2\n" : "");
  script += plot("throughput.svg", "throughput (tasks per unit time)", 2);
  script += "set logscale y\n" + plot("p99.svg", "p99 latency (units of mean hold)", 3) + "unset logscale y\n";
  script += "set yrange [0:*]\n" + plot("efficiency.svg", "throughput / oracle throughput", 4);
  return script;
}

std::vector<std::filesystem::path> remove_earlier_simulate_outputs(const std::filesystem::path& dir) {
  static constexpr std::array<std::string_view, 7> kFixed{"simulate.md",    "simulate.html", "simulate.json",
                                                          "plots.gp",       "throughput.svg", "p99.svg",
                                                          "efficiency.svg"};
  // Collected first, removed after: removing while iterating a folder is unspecified.
  std::vector<std::filesystem::path> removed;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    const bool fixed = std::find(kFixed.begin(), kFixed.end(), name) != kFixed.end();
    const bool replay = name.starts_with("replay-") && name.ends_with(".json") && is_replay_file(entry.path());
    const bool data = name.starts_with("sweep-") && name.ends_with(".dat") &&
                      first_bytes(entry.path(), kSweepDataHeader.size()) == kSweepDataHeader;
    if (fixed || replay || data) removed.push_back(entry.path());
  }
  std::sort(removed.begin(), removed.end());
  for (const auto& file : removed) {
    std::filesystem::remove(file, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot remove {}: {}", file.string(), ec.message()));
  }
  return removed;
}

void write_text_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
}

ReportFolder::ReportFolder(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", dir_.string(), ec.message()));
}

void ReportFolder::write(const std::string& name, const std::string& text) {
  write_text_file(dir_ / name, text);
  files_.push_back(dir_ / name);
}

void run_gnuplot(const std::filesystem::path& dir, const std::string& script) {
  const auto script_file = dir / "plots.gp";
  write_text_file(script_file, script);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  std::string program = "gnuplot";
  std::string arg = "plots.gp";
  char* argv[] = {program.data(), arg.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw std::runtime_error(
        "cannot start gnuplot to draw the plots; install it (bash scripts/install-deps.sh) or pass --no-plots");
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(fmt::format("gnuplot failed on {} (status {})", script_file.string(), status));
  }
}

}  // namespace pathlock::reports
