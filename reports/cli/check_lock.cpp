// pathlock check-lock: the lock that ships, run by the deterministic runtime
// on small programs under every lock option (sim/lockcheck/check_lock.hpp).

#include <fmt/format.h>

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/lockcheck/check_lock.hpp"
#include "pathlock/sim/runtime/allocation.hpp"

namespace pathlock::cli {
namespace {

using model::InputError;
using model::InputProblem;
using sim::lockcheck::CaseResult;
using sim::lockcheck::CaseVerdict;
using sim::lockcheck::LockSetting;

std::vector<LockSetting> chosen_settings(const CheckLockCliOptions& o) {
  std::vector<LockSetting> out;
  for (const LockSetting& s : sim::lockcheck::all_settings()) {
    if (o.gates != "both" && (o.gates == "on") != (s.gates == sim::lockcheck::GateSetting::kOn)) {
      continue;
    }
    if (o.shards != "both" && std::to_string(s.shards) != o.shards) continue;
    if (o.max_idle != "both" && std::to_string(s.max_idle) != o.max_idle) continue;
    out.push_back(s);
  }
  return out;
}

std::vector<sim::lockcheck::LockProgram> chosen_programs(const CheckLockCliOptions& o) {
  const sim::lockcheck::RandomFamily family{o.seed, o.random_programs, o.threads, o.calls};
  if (!o.programs.empty()) {
    std::vector<sim::lockcheck::LockProgram> out;
    for (const auto& name : o.programs) out.push_back(sim::lockcheck::find_program(name, family));
    return out;
  }
  auto out = sim::lockcheck::builtin_programs();
  for (auto& p : sim::lockcheck::random_programs(family)) out.push_back(std::move(p));
  return out;
}

std::string replay_command(const CheckLockCliOptions& o, const impl::Scheme& scheme, const CaseResult& r) {
  std::string scheme_flags = impl::find_builtin_scheme(scheme.name()) != nullptr ? "--scheme " + scheme.name()
                             : o.scheme_files.size() == 1 ? "--scheme-file " + o.scheme_files.front()
                                                          : "--scheme-file <the file of " + scheme.name() + ">";
  if (!o.order.empty()) scheme_flags += " --order " + o.order;
  return fmt::format(
      "pathlock check-lock {} --program {} --gates {} --shards {} --max-idle {} "
      "--allocation-failures {} --schedule '{}'",
      scheme_flags, r.program, r.setting.gates == sim::lockcheck::GateSetting::kOn ? "on" : "off",
      r.setting.shards, r.setting.max_idle, o.allocation_failures, r.schedule);
}

// --part K/N: the cases whose index (in the order they run, from 0) is K - 1
// modulo N. Dealt round-robin, so each part gets a share of every program.
struct Part {
  std::size_t k = 1;
  std::size_t n = 1;
  bool runs(std::size_t index) const noexcept { return index % n == k - 1; }
  std::size_t cases_of(std::size_t total) const noexcept { return total / n + (total % n >= k ? 1 : 0); }
};

constexpr std::size_t kMostParts = 1000;

Part parse_part(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return InputError(InputProblem::kBadParameter, fmt::format("--part {}: {}", text, why));
  };
  const auto slash = text.find('/');
  const auto whole = [](std::string_view digits) -> std::optional<std::size_t> {
    std::size_t v = 0;
    const char* end = digits.data() + digits.size();
    const auto [stop, error] = std::from_chars(digits.data(), end, v);
    return !digits.empty() && error == std::errc() && stop == end ? std::optional(v) : std::nullopt;
  };
  if (slash == std::string::npos) throw bad("expected K/N, two whole numbers (part K of N)");
  const auto k = whole(std::string_view(text).substr(0, slash));
  const auto n = whole(std::string_view(text).substr(slash + 1));
  if (!k || !n) throw bad("expected K/N, two whole numbers (part K of N)");
  if (*n < 1 || *n > kMostParts) throw bad(fmt::format("N must be 1 to {}", kMostParts));
  if (*k < 1 || *k > *n) throw bad(fmt::format("K must be 1 to N ({})", *n));
  return Part{*k, *n};
}

nlohmann::json case_json(const impl::Scheme& scheme, const CaseResult& r) {
  return {{"scheme", scheme.name()},
          {"program", r.program},
          {"program_text", r.text},
          {"setting", sim::lockcheck::describe(r.setting)},
          {"verdict", std::string(sim::lockcheck::to_string(r.verdict))},
          {"model_predicts_deadlock", r.model_predicts_deadlock},
          {"bounded_runs", r.bounded_runs},
          {"bounded_complete", r.bounded_complete},
          {"complete_to_bound", r.complete_to_bound ? nlohmann::json(*r.complete_to_bound) : nlohmann::json()},
          {"pct_runs", r.pct_runs},
          {"failure", r.failure},
          {"schedule", r.schedule},
          {"trace", r.trace}};
}

}  // namespace

int run_check_lock(const CheckLockCliOptions& o) {
  const Part part = o.part.empty() ? Part{} : parse_part(o.part);
  const auto schemes = resolve_schemes({o.schemes, o.scheme_files, o.order}, WhenNoneNamed::kRecommended);
  const auto settings = chosen_settings(o);
  const auto programs = chosen_programs(o);
  sim::lockcheck::CheckLockOptions options;
  options.preemptions = o.preemptions;
  options.pct_runs = o.runs;
  options.seed = o.seed;
  options.max_runs = o.max_runs;
  options.max_steps = o.max_steps;
  options.allocation_failures = o.allocation_failures == "on" ? sim::lockcheck::AllocationFailures::kOnePerRun
                                                               : sim::lockcheck::AllocationFailures::kOff;
  if (options.allocation_failures == sim::lockcheck::AllocationFailures::kOnePerRun &&
      !sim::runtime::allocation_injection_linked()) {
    throw InputError(InputProblem::kBadParameter,
                     "--allocation-failures on: this build of pathlock cannot inject allocation failures (a sanitizer "
                     "build, whose runtime owns operator new); pass --allocation-failures off");
  }
  if (!o.schedule.empty() && (programs.size() != 1 || settings.size() != 1 || schemes.size() != 1)) {
    throw InputError(InputProblem::kBadParameter,
                     "--schedule replays one run: name one --program, one scheme, and one value each for "
                     "--gates, --shards and --max-idle");
  }
  if (!o.part.empty() && !o.schedule.empty()) {
    throw InputError(InputProblem::kBadParameter, "--part splits a check, --schedule replays one run: pass one of them");
  }
  const std::size_t all_cases = programs.size() * settings.size() * schemes.size();
  if (part.n > all_cases) {
    throw InputError(InputProblem::kBadParameter,
                     fmt::format("--part {}: {} part(s) of {} case(s) would leave a part with none (N at most {})",
                                 o.part, part.n, all_cases, all_cases));
  }
  const std::size_t total = part.cases_of(all_cases);
  fmt::print("check-lock: {} program(s) x {} setting(s) x {} scheme(s); exhaustive to {} preemption(s), then {} "
             "PCT run(s) per case; allocation failures {}; seed {}\n",
             programs.size(), settings.size(), schemes.size(), o.preemptions, o.runs, o.allocation_failures, o.seed);
  if (part.n != 1) {
    fmt::print("part {} of {}: {} of the {} case(s) (case {}, then one in every {})\n", part.k, part.n, total,
               all_cases, part.k, part.n);
  }
  const bool progress = isatty(STDERR_FILENO) != 0;
  std::size_t index = 0;  // of every case, in this part or not
  std::size_t done = 0;
  std::size_t failed = 0;
  std::size_t inconclusive = 0;
  nlohmann::json cases = nlohmann::json::array();
  const auto start = std::chrono::steady_clock::now();
  for (const auto& scheme : schemes) {
    for (const auto& program : programs) {
      for (const auto& setting : settings) {
        if (o.fail_fast && failed != 0) break;
        if (!part.runs(index++)) continue;
        if (progress) {
          std::fprintf(stderr, "\rcase %zu of %zu: %s, %s\x1b[K", done + 1, total, program.name.c_str(),
                       sim::lockcheck::describe(setting).c_str());
          std::fflush(stderr);
        }
        const CaseResult r = o.schedule.empty()
                                 ? sim::lockcheck::check_case(scheme, program, setting, options)
                                 : sim::lockcheck::replay_case(scheme, program, setting, o.schedule, options);
        ++done;
        if (progress) std::fputs("\r\x1b[K", stderr);
        const std::string bound = !r.complete_to_bound ? "none"
                                  : r.bounded_complete ? fmt::format("<= {}", *r.complete_to_bound)
                                                       : fmt::format("<= {} (cut at {})", *r.complete_to_bound,
                                                                     *r.complete_to_bound + 1);
        fmt::print("  {:<16} {:<28} {:<36} {:<31} {:>7} run(s), complete {:<16} + {} PCT\n", scheme.name(),
                   r.program, sim::lockcheck::describe(setting), sim::lockcheck::to_string(r.verdict),
                   r.bounded_runs, bound, r.pct_runs);
        std::fflush(stdout);  // one line per case, also when piped
        cases.push_back(case_json(scheme, r));
        if (r.verdict == CaseVerdict::kFail || r.verdict == CaseVerdict::kInconclusive) {
          (r.verdict == CaseVerdict::kFail ? failed : inconclusive) += 1;
          fmt::print("\n    program: {}\n    {}\n    trace:\n", r.text, r.failure);
          std::string_view trace = r.trace;
          while (!trace.empty()) {
            const auto nl = trace.find('\n');
            fmt::print("      {}\n", trace.substr(0, nl));
            trace = nl == std::string_view::npos ? std::string_view{} : trace.substr(nl + 1);
          }
          fmt::print("    replay: {}\n\n", replay_command(o, scheme, r));
        }
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string verdict = failed != 0 ? "fail" : inconclusive != 0 ? "inconclusive" : "pass";
  fmt::print("verdict: {} ({} case(s), {} failed, {} inconclusive, {:.1f} s)\n", verdict, total, failed, inconclusive,
             seconds);
  if (!o.json_out.empty()) {
    std::ofstream out(o.json_out);
    out << nlohmann::json{{"schema", "pathlock.check-lock/1"},
                          {"seed", o.seed},
                          {"preemptions", o.preemptions},
                          {"pct_runs", o.runs},
                          {"allocation_failures", o.allocation_failures},
                          {"verdict", verdict},
                          {"part", o.part.empty() ? nlohmann::json() : nlohmann::json(o.part)},
                          {"cases", cases}}
               .dump(2)
        << '\n';
    if (!out) throw IoFailure(fmt::format("cannot write {}", o.json_out));
  }
  return failed != 0 ? kExitUnsafe : inconclusive != 0 ? kExitInconclusive : kExitPass;
}

}  // namespace pathlock::cli
