// pathlock tables, schemes and plan: what the schemes' plans say, without
// running anything.

#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "pathlock/impl/plan.hpp"
#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/reports/tables.hpp"
#include "pathlock/sim/static_table.hpp"
#include "terminal.hpp"

namespace pathlock::cli {
namespace {

using model::InputError;
using model::InputProblem;

// An argument starting with '/' is a path; anything else is an S3 key.
model::Path parse_location(const std::string& text) {
  if (!text.empty() && text.front() == '/') return model::Path::parse(text);
  return model::Path::from_key(text);
}

std::vector<const impl::Scheme*> pointers_to(const std::vector<impl::Scheme>& schemes) {
  std::vector<const impl::Scheme*> out;
  for (const auto& s : schemes) out.push_back(&s);
  return out;
}

}  // namespace

int run_tables(const TablesCliOptions& o) {
  const std::vector<impl::Scheme> schemes = resolve_schemes(o.schemes, WhenNoneNamed::kEveryBuiltin);
  const auto pointers = pointers_to(schemes);
  sim::StaticAnalysis analysis;
  {
    ProgressBar bar("pairs");
    analysis = sim::analyze_static(
        pointers, {o.depth, o.fanout}, [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); },
        o.max_pairs);
  }
  std::cout << reports::tables_terminal(analysis, color_for(o.color));
  if (!o.no_files) {
    for (const auto& f : reports::write_tables(analysis, o.out)) std::cout << "wrote " << f.string() << "\n";
  }
  if (o.strict) {
    for (const auto& t : analysis.schemes) {
      if (!t.safe()) return kExitUnsafe;
    }
  }
  return kExitPass;
}

int run_schemes(const std::string& export_name) {
  if (!export_name.empty()) {
    fmt::print("{}\n", io::scheme_to_json(one_scheme({export_name, "", ""}, kRecommendedScheme)).dump(2));
    return kExitPass;
  }
  for (const auto* s : impl::builtin_schemes()) {
    std::string modes;
    for (std::size_t m = 0; m < s->mode_count(); ++m) {
      modes += (modes.empty() ? "" : ",") + s->mode_name(impl::ModeId{static_cast<std::uint8_t>(m)});
    }
    fmt::print("{:<16} {:<9} modes {:<16} {}\n", s->name(), impl::to_string(s->granularity()), modes, s->title());
  }
  return kExitPass;
}

int run_plan(const PlanCliOptions& o) {
  if (o.words.empty()) throw InputError(InputProblem::kBadOperation, "no operation given");
  const auto kind = model::op_kind_from_string(o.words[0]);
  if (!kind) {
    throw InputError(InputProblem::kBadOperation,
                     fmt::format("unknown operation \"{}\"; use read, write, delete, rename or copy", o.words[0]));
  }
  std::vector<model::Path> paths;
  for (std::size_t i = 1; i < o.words.size(); ++i) paths.push_back(parse_location(o.words[i]));
  const auto op = model::Operation::make(*kind, std::move(paths));
  const auto request = op.request();
  fmt::print("{}  {}\n", op.to_string(), request.to_string());
  for (const auto& s : resolve_schemes(o.schemes, WhenNoneNamed::kEveryBuiltin)) {
    fmt::print("  {:<16} {}\n", s.name(), impl::to_string(s, impl::plan_for(s, request)));
  }
  return kExitPass;
}

}  // namespace pathlock::cli
