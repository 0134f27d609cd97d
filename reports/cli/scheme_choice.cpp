// Which schemes a subcommand runs: the one place that turns --scheme,
// --scheme-file and --order (or a scenario's own choice) into schemes.

#include <fmt/format.h>

#include <optional>

#include "commands.hpp"
#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/variants.hpp"

namespace pathlock::cli {
namespace {

using model::InputError;
using model::InputProblem;

std::string builtin_names() {
  std::string known;
  for (const auto* b : impl::builtin_schemes()) known += (known.empty() ? "" : ", ") + b->name();
  return known;
}

const impl::Scheme& builtin_named(const std::string& name) {
  const impl::Scheme* s = impl::find_builtin_scheme(name);
  if (s == nullptr) {
    throw InputError(InputProblem::kBadParameter,
                     fmt::format("unknown scheme \"{}\"; the built-in schemes are: {} (or all); a scheme of your "
                                 "own goes in --scheme-file",
                                 name, builtin_names()));
  }
  return *s;
}

impl::Scheme with_order(const impl::Scheme& scheme, const std::string& order_name) {
  const impl::LockOrder* order = sim::find_harness_order(order_name);
  if (order == nullptr) throw InputError(InputProblem::kBadParameter, fmt::format("unknown order \"{}\"", order_name));
  return scheme.with_order(*order, fmt::format("{}/{}", scheme.name(), order_name));
}

}  // namespace

std::vector<impl::Scheme> resolve_schemes(const SchemeSelection& selection, WhenNoneNamed when_none) {
  std::vector<impl::Scheme> out;
  std::vector<std::string> names = selection.names;
  if (names.empty() && selection.files.empty()) {
    names.emplace_back(when_none == WhenNoneNamed::kEveryBuiltin ? "all" : kRecommendedScheme);
  }
  for (const auto& name : names) {
    if (name == "all") {
      for (const auto* s : impl::builtin_schemes()) out.push_back(*s);
    } else {
      out.push_back(builtin_named(name));
    }
  }
  for (const auto& file : selection.files) out.push_back(io::load_scheme_file(file));
  if (!selection.order.empty()) {
    for (auto& s : out) s = with_order(s, selection.order);
  }
  return out;
}

std::vector<impl::Scheme> schemes_named(const std::vector<std::string>& schemes,
                                        const std::vector<std::string>& scheme_files, const std::string& order) {
  return resolve_schemes({schemes, scheme_files, order}, WhenNoneNamed::kRecommended);
}

impl::Scheme one_scheme(const SchemeChoice& choice, const std::string& fallback_name) {
  if (!choice.scheme.empty() && !choice.scheme_file.empty()) {
    throw InputError(InputProblem::kBadParameter, "give --scheme or --scheme-file, not both");
  }
  if (choice.scheme == "all") throw InputError(InputProblem::kBadParameter, "--scheme: name one scheme, not all");
  SchemeSelection selection;
  selection.order = choice.order;
  if (!choice.scheme_file.empty()) {
    selection.files.push_back(choice.scheme_file);
  } else {
    selection.names.push_back(choice.scheme.empty() ? fallback_name : choice.scheme);
  }
  return resolve_schemes(selection, WhenNoneNamed::kRecommended).front();
}

impl::Scheme scheme_for_scenario(const SchemeChoice& choice, const sim::Scenario& scenario) {
  SchemeChoice resolved = choice;
  if (choice.scheme.empty() && choice.scheme_file.empty()) {
    if (scenario.scheme_file) resolved.scheme_file = scenario.scheme_file->string();
    else resolved.scheme = scenario.scheme.value_or(kRecommendedScheme);
  }
  if (choice.order.empty()) resolved.order = scenario.order.value_or("");
  return one_scheme(resolved, kRecommendedScheme);
}

}  // namespace pathlock::cli
