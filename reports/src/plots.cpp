#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>

#include "pathlock/reports/simulate.hpp"

extern char** environ;

namespace pathlock::reports {

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
