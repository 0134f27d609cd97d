#pragma once
// Terminal helpers shared by the pathlock subcommands.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "pathlock/reports/document.hpp"

namespace pathlock::cli {

// A one-line progress bar on stderr, only when stderr is a terminal.
class ProgressBar {
 public:
  ~ProgressBar() {
    if (enabled_ && shown_) std::fputs("\r\x1b[K", stderr);
  }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  explicit ProgressBar(std::string unit) : enabled_(isatty(STDERR_FILENO) != 0), unit_(std::move(unit)) {}
  // A new stage: the bar starts again with another unit.
  void stage(std::string unit) {
    if (unit == unit_) return;
    unit_ = std::move(unit);
    last_percent_ = -1;
  }
  void update(std::uint64_t done, std::uint64_t total) {
    if (!enabled_ || total == 0) return;
    const auto percent = static_cast<int>(done * 100 / total);
    if (percent == last_percent_) return;
    last_percent_ = percent;
    shown_ = true;
    const int filled = percent * 40 / 100;
    std::fprintf(stderr, "\r[%s%s] %3d%% of %llu %s", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(40 - filled), ' ').c_str(), percent,
                 static_cast<unsigned long long>(total), unit_.c_str());
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  std::string unit_;
  bool shown_ = false;
  int last_percent_ = -1;
};

// --color auto|always|never, for stdout.
inline pathlock::reports::Color color_for(const std::string& option) {
  const bool color = option == "always" || (option == "auto" && isatty(STDOUT_FILENO) != 0);
  return color ? pathlock::reports::Color::kAnsi : pathlock::reports::Color::kNone;
}

}  // namespace pathlock::cli
