#include "pathlock/sim/family.hpp"

#include <fmt/format.h>

#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/tree.hpp"

namespace pathlock::sim {

std::string_view to_string(FamilySize size) noexcept {
  switch (size) {
    case FamilySize::kNone: return "none";
    case FamilySize::kQuick: return "quick";
    case FamilySize::kFull: return "full";
  }
  return "?";
}

std::string_view to_string(FamilyPart part) noexcept {
  switch (part) {
    case FamilyPart::kSingles: return "singles";
    case FamilyPart::kPairs: return "pairs";
    case FamilyPart::kSequences: return "sequences";
    case FamilyPart::kTriples: return "triples";
    case FamilyPart::kWithdrawals: return "withdrawals";
  }
  return "?";
}

std::vector<model::Path> family_paths(FamilySize size) {
  if (size == FamilySize::kNone) return {};
  std::vector<std::string> text = {"/", "/a", "/a/b", "/a/c"};
  if (size == FamilySize::kFull) text = {"/", "/a", "/a/b", "/a/b/c", "/a/c", "/ab"};
  std::vector<model::Path> out;
  for (const auto& t : text) out.push_back(model::Path::parse(t));
  return out;
}

std::vector<model::Operation> family_operations(const std::vector<model::Path>& paths) {
  std::vector<model::Operation> ops;
  for (const auto& p : paths) ops.push_back(model::read(p));
  for (const auto& p : paths) ops.push_back(model::write(p));
  for (const auto& p : paths) {
    for (const auto& q : paths) {
      if (p != q) ops.push_back(model::rename(p, q));
    }
  }
  for (const auto& p : paths) {
    for (const auto& q : paths) ops.push_back(model::copy(p, q));
  }
  return ops;
}

namespace {

Scenario make(std::string name, std::vector<std::vector<model::Operation>> tasks) {
  Scenario s;
  s.name = std::move(name);
  s.tasks = plain_tasks(tasks);
  return s;
}

std::string tasks_text(const std::vector<std::vector<model::Operation>>& tasks) {
  std::vector<std::string> parts;
  for (const auto& task : tasks) {
    std::vector<std::string> ops;
    for (const auto& op : task) ops.push_back(op.to_string());
    parts.push_back(fmt::format("[{}]", fmt::join(ops, " then ")));
  }
  return fmt::format("{}", fmt::join(parts, " | "));
}

void add(std::vector<FamilyScenario>& out, FamilyPart part, std::vector<std::vector<model::Operation>> tasks) {
  std::string name = tasks_text(tasks);
  out.push_back({part, make(std::move(name), std::move(tasks))});
}

}  // namespace

std::vector<FamilyScenario> scenario_family(FamilySize size) {
  const auto paths = family_paths(size);
  const auto ops = family_operations(paths);
  std::vector<model::Operation> single_path;  // sequences: reads and writes below the root
  std::vector<model::Operation> triple_ops;   // triples: every operation below the root
  for (const auto& op : ops) {
    const bool below_root = !op.source.is_root() && (!op.target || !op.target->is_root());
    if (!below_root) continue;
    if (!op.target) single_path.push_back(op);
    triple_ops.push_back(op);
  }
  std::vector<FamilyScenario> out;
  for (const auto& a : ops) add(out, FamilyPart::kSingles, {{a}});
  for (std::size_t i = 0; i < ops.size(); ++i) {
    for (std::size_t j = i; j < ops.size(); ++j) add(out, FamilyPart::kPairs, {{ops[i]}, {ops[j]}});
  }
  for (const auto& a : single_path) {
    for (const auto& b : single_path) {
      for (const auto& c : single_path) add(out, FamilyPart::kSequences, {{a, b}, {c}});
    }
  }
  for (std::size_t i = 0; i < triple_ops.size(); ++i) {
    for (std::size_t j = i; j < triple_ops.size(); ++j) {
      for (std::size_t k = j; k < triple_ops.size(); ++k) {
        add(out, FamilyPart::kTriples, {{triple_ops[i]}, {triple_ops[j]}, {triple_ops[k]}});
      }
    }
  }
  for (const auto& a : single_path) {
    for (const auto& b : single_path) {
      if (b.kind != model::OpKind::kWrite) continue;
      for (const auto& c : single_path) {
        Scenario s = make(fmt::format("[{}] | [{} withdraws while waiting] | [{}]", a.to_string(), b.to_string(),
                                      c.to_string()),
                          {{a}, {b}, {c}});
        s.tasks[1][0].withdraw = WithdrawStyle::kWhileWaiting;
        out.push_back({FamilyPart::kWithdrawals, std::move(s)});
      }
    }
  }
  return out;
}

Scenario random_scenario(const RandomScenarioSpec& spec, std::uint64_t seed) {
  static const std::vector<model::Operation> ops = enumerate_operations(generate_tree(TreeSpec{3, 2}));
  Rng rng(seed);
  const std::size_t tasks = spec.min_tasks + rng.below(spec.max_tasks - spec.min_tasks + 1);
  std::vector<std::vector<model::Operation>> out(tasks);
  for (auto& task : out) {
    const std::size_t requests = 1 + rng.below(spec.max_requests);
    for (std::size_t r = 0; r < requests; ++r) task.push_back(ops[rng.below(ops.size())]);
  }
  return make(fmt::format("random scenario (seed {})", seed), std::move(out));
}

}  // namespace pathlock::sim
