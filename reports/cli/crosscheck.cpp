// pathlock promela: a scenario as a Promela model (sim/promela.hpp).
// pathlock crosscheck: SPIN's verdicts against the explorer's, scheme by
// scenario; a disagreement exits 3.

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <regex>

#include "commands.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/reports/document.hpp"
#include "pathlock/reports/simulate.hpp"
#include "pathlock/sim/explorer.hpp"
#include "pathlock/sim/promela.hpp"

namespace pathlock::cli {
namespace {

namespace fs = std::filesystem;

struct Command {
  int status;
  std::string output;  // stdout and stderr
};

Command run_command(const std::string& cmd) {
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "cannot start: " + cmd};
  std::string out;
  std::array<char, 4096> buf{};
  while (const auto n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

std::string quoted(const fs::path& p) {
  std::string out = "'";
  for (char c : p.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The folder for models and pan programs: the user's (kept), or a fresh
// temporary one that is removed however the command ends.
class WorkFolder {
 public:
  explicit WorkFolder(const std::string& requested)
      : path_(requested.empty() ? fs::temp_directory_path() / fmt::format("pathlock-crosscheck-{}", getpid())
                                : fs::path(requested)),
        temporary_(requested.empty() ? Lifetime::kRemoveAtEnd : Lifetime::kKeep) {
    fs::create_directories(path_);
  }
  ~WorkFolder() {
    if (temporary_ == Lifetime::kRemoveAtEnd) {
      std::error_code ignored;  // a destructor must not throw; a leftover folder is only untidy
      fs::remove_all(path_, ignored);
    }
  }
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  enum class Lifetime { kKeep, kRemoveAtEnd };
  fs::path path_;
  Lifetime temporary_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One property as each tool judged it.
struct Judged {
  bool fails = false;
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  double seconds = 0;
};

// pan's verdict on one property: -E ignores invalid end states (assertions
// only), -A ignores assertions (deadlocks only).
Judged run_pan(const fs::path& pan, const char* flag) {
  const auto start = std::chrono::steady_clock::now();
  const Command c = run_command(fmt::format("cd {} && ./pan {} -m100000 -w18", quoted(pan.parent_path()), flag));
  Judged j;
  j.seconds = seconds_since(start);
  std::smatch m;
  if (!std::regex_search(c.output, m, std::regex(R"(errors: (\d+))"))) {
    throw IoFailure(fmt::format("pan {} gave no verdict:\n{}", flag, c.output));
  }
  j.fails = std::stoull(m[1]) > 0;
  if (c.output.find("max search depth too small") != std::string::npos) {
    throw Inconclusive(fmt::format("pan {}: search depth too small:\n{}", flag, c.output));
  }
  if (std::regex_search(c.output, m, std::regex(R"((\d+) states, stored)"))) j.states = std::stoull(m[1]);
  if (std::regex_search(c.output, m, std::regex(R"((\d+) transitions \(= stored\+matched\))"))) {
    j.transitions = std::stoull(m[1]);
  }
  return j;
}

Judged run_explorer(const sim::StepMachine& machine, const sim::Scenario& scenario, bool safety,
                    std::uint64_t max_states) {
  sim::ExploreOptions o;
  o.count_naive = false;
  o.shortest_counterexample = false;
  o.check_safety = safety;
  o.check_deadlock = !safety;
  o.max_states = max_states;
  const auto start = std::chrono::steady_clock::now();
  const auto r = sim::explore(machine, o);
  Judged j;
  j.seconds = seconds_since(start);
  if (r.verdict == sim::Verdict::kIncomplete) {
    throw Inconclusive(fmt::format("{}: over {} states; raise --max-states", scenario.name, max_states));
  }
  j.fails = r.verdict != sim::Verdict::kSafeAndDeadlockFree;
  j.states = r.states;
  j.transitions = r.transitions;
  return j;
}

std::string verdict_text(bool violation, bool deadlock) {
  if (violation && deadlock) return "violation and deadlock";
  if (violation) return "safety violation";
  if (deadlock) return "deadlock";
  return "safe and deadlock-free";
}

}  // namespace

int run_promela(const PromelaCliOptions& o) {
  const sim::Scenario scenario = sim::load_scenario_file(o.scenario_file);
  const impl::Scheme scheme = scheme_for_scenario(o.choice, scenario);
  const sim::SchemePlanner planner(scheme);
  const sim::StepMachine machine(planner, scenario);  // resolves per-task schemes itself
  const std::string model = sim::to_promela(machine, scenario);
  if (o.out.empty()) {
    std::cout << model;
  } else {
    reports::write_text_file(o.out, model);
    std::cerr << fmt::format("wrote {}\n", o.out);
  }
  return 0;
}

int run_crosscheck(const CrosscheckCliOptions& o) {
  if (o.scenarios.empty()) {
    throw model::InputError(model::InputProblem::kBadParameter, "give at least one --scenario file");
  }
  std::vector<sim::Scenario> scenarios;
  for (const auto& file : o.scenarios) scenarios.push_back(sim::load_scenario_file(file));
  std::vector<impl::Scheme> schemes = schemes_named(o.schemes, o.scheme_files, "");
  const WorkFolder work_folder(o.work);
  const fs::path& work = work_folder.path();
  const Command version = run_command(o.spin + " -V");
  if (version.status != 0) {
    throw IoFailure(fmt::format("cannot run SPIN ({} -V): {}", o.spin, version.output));
  }
  std::string spin_version = version.output.substr(0, version.output.find('\n'));

  reports::Table table;
  table.header = {"scheme", "scenario", "explorer", "SPIN", "agree", "explorer states (safety / deadlock)",
                  "SPIN states (safety / deadlock)", "SPIN transitions", "explorer ms", "SPIN: compile s, run ms"};
  std::size_t disagreements = 0;
  std::size_t index = 0;
  for (const auto& scheme : schemes) {
    const sim::SchemePlanner planner(scheme);
    for (const auto& scenario : scenarios) {
      const sim::StepMachine machine(planner, scenario);  // resolves per-task schemes itself
      const Judged ex_safety = run_explorer(machine, scenario, true, o.max_states);
      const Judged ex_deadlock = run_explorer(machine, scenario, false, o.max_states);

      const fs::path dir = work / fmt::format("{:03}", index++);
      fs::create_directories(dir);
      reports::write_text_file(dir / "model.pml", sim::to_promela(machine, scenario));
      const auto start = std::chrono::steady_clock::now();
      const Command gen = run_command(fmt::format("cd {} && {} -a model.pml", quoted(dir), o.spin));
      if (gen.status != 0) {
        throw IoFailure(fmt::format("spin -a {}:\n{}", (dir / "model.pml").string(), gen.output));
      }
      const Command cc = run_command(fmt::format("cd {} && {} -O0 -w -DSAFETY -o pan pan.c", quoted(dir), o.cc));
      if (cc.status != 0) throw IoFailure(fmt::format("{} pan.c in {}:\n{}", o.cc, dir.string(), cc.output));
      const double compile = seconds_since(start);
      const Judged spin_safety = run_pan(dir / "pan", "-E");
      const Judged spin_deadlock = run_pan(dir / "pan", "-A");

      const bool agree = ex_safety.fails == spin_safety.fails && ex_deadlock.fails == spin_deadlock.fails;
      disagreements += agree ? 0 : 1;
      table.rows.push_back({{scheme.name(), reports::CellStyle::kHeader},
                            {scenario.name},
                            {verdict_text(ex_safety.fails, ex_deadlock.fails)},
                            {verdict_text(spin_safety.fails, spin_deadlock.fails)},
                            agree ? reports::allow_cell() : reports::block_cell(),
                            {fmt::format("{} / {}", ex_safety.states, ex_deadlock.states)},
                            {fmt::format("{} / {}", spin_safety.states, spin_deadlock.states)},
                            {fmt::format("{} / {}", spin_safety.transitions, spin_deadlock.transitions)},
                            {fmt::format("{:.2f}", 1000 * (ex_safety.seconds + ex_deadlock.seconds))},
                            {fmt::format("{:.2f}, {:.1f}", compile, 1000 * (spin_safety.seconds + spin_deadlock.seconds))}});
      std::cerr << fmt::format("crosscheck: {} / {}: {}\n", scheme.name(), scenario.name, agree ? "agree" : "DISAGREE");
    }
  }
  reports::Document doc;
  doc.heading(1, "SPIN against the explorer");
  doc.paragraph(fmt::format(
      "Generated by `pathlock crosscheck` (scripts/regen-reports.sh); every figure below is from that run. For each "
      "scheme and scenario, the explorer (`pathlock explore`, with its reductions) and SPIN ({}) on the Promela model "
      "`pathlock promela` generates each answer two questions on their own: is any reachable state unsafe (SPIN: "
      "assertions, pan -E), and is any deadlocked (SPIN: invalid end states, pan -A). The lock semantics and the "
      "safety property are written independently in Promela; the plans come from impl's planner for both. States "
      "are not expected to match: the explorer stores canonical states under symmetry and sleep sets, SPIN its own "
      "state vectors with its partial-order reduction. Times are wall-clock on the machine that ran it.",
      spin_version));
  doc.table(std::move(table));
  doc.paragraph(disagreements == 0
                    ? fmt::format("All {} verdict pairs agree.", index)
                    : fmt::format("{} of {} verdict pairs DISAGREE.", disagreements, index));
  std::cout << reports::render_terminal(doc, reports::Color::kNone);
  if (!o.out.empty()) reports::write_text_file(o.out, reports::render_markdown(doc));
  return disagreements == 0 ? 0 : kExitUnsafe;
}

}  // namespace pathlock::cli
