#include "pathlock/sim/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "pathlock/io/json_reader.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::sim {
namespace {

using model::InputError;
using model::InputProblem;
using nlohmann::json;

using io::jsonio::fail;
using io::jsonio::ObjectReader;

const char* to_string(LoadMode m) { return m == LoadMode::kClosed ? "closed" : "open"; }
const char* to_string(HoldDistribution h) {
  switch (h) {
    case HoldDistribution::kFixed: return "fixed";
    case HoldDistribution::kExponential: return "exponential";
    case HoldDistribution::kUniform: return "uniform";
  }
  return "?";
}

double sample_hold(HoldDistribution h, double mean, Rng& rng) {
  switch (h) {
    case HoldDistribution::kFixed: return mean;
    case HoldDistribution::kExponential: return rng.exponential(mean);
    case HoldDistribution::kUniform: return 2 * mean * rng.uniform01();
  }
  return mean;
}

}  // namespace

std::optional<InvalidKeys> invalid_keys_from_string(const std::string& text) {
  if (text == "fail") return InvalidKeys::kFail;
  if (text == "skip") return InvalidKeys::kSkip;
  return std::nullopt;
}
const char* to_string(InvalidKeys policy) { return policy == InvalidKeys::kFail ? "fail" : "skip"; }

void validate(const WorkloadSpec& s) {
  const std::string src = "workload \"" + s.name + "\"";
  if (!s.keys_file) {
    if (s.tree.depth < 1 || s.tree.depth > kMaxTreeDepth) fail(src, "tree.depth", fmt::format("{} is out of range [1, {}]", s.tree.depth, kMaxTreeDepth));
    if (s.tree.fanout < 1 || s.tree.fanout > kMaxTreeFanout) fail(src, "tree.fanout", fmt::format("{} is out of range [1, {}]", s.tree.fanout, kMaxTreeFanout));
  }
  const auto& m = s.mix;
  for (double w : {m.read, m.write, m.remove, m.rename, m.copy}) {
    if (!(w >= 0) || !std::isfinite(w)) fail(src, "mix", "weights must be finite and non-negative");
  }
  if (m.read + m.write + m.remove + m.rename + m.copy <= 0) fail(src, "mix", "at least one weight must be positive");
  if (!(s.zipf >= 0 && s.zipf <= 10)) fail(src, "zipf", "must be in [0, 10]");
  if (s.clients < 1 || s.clients > kMaxClients) fail(src, "load.clients", fmt::format("must be in [1, {}]", kMaxClients));
  if (!(s.think_time >= 0 && std::isfinite(s.think_time))) fail(src, "load.think_time", "must be finite and >= 0");
  if (!(s.arrival_rate > 0 && std::isfinite(s.arrival_rate))) fail(src, "load.arrival_rate", "must be finite and > 0");
  if (!(s.hold_mean >= 0 && std::isfinite(s.hold_mean))) fail(src, "hold.mean", "must be finite and >= 0");
  if (!(s.lock_step_time >= 0 && std::isfinite(s.lock_step_time))) fail(src, "lock_step_time", "must be finite and >= 0");
  if (s.tasks < 1 || s.tasks > kMaxTasks) fail(src, "tasks", fmt::format("must be in [1, {}]", kMaxTasks));
  if (s.load == LoadMode::kClosed &&
      static_cast<std::uint64_t>(s.tasks) * static_cast<std::uint64_t>(s.clients) > kMaxTaskClientProduct) {
    fail(src, "tasks",
         fmt::format("{} tasks for {} clients is over the limit of {} for tasks x clients; lower tasks or "
                     "load.clients (or --tasks, --levels)",
                     s.tasks, s.clients, kMaxTaskClientProduct));
  }
}

WorkloadSpec parse_workload(const std::string& text, const std::string& source,
                            const std::filesystem::path& base_dir) {
  const json j = io::jsonio::parse_json(text, source);
  WorkloadSpec s;
  ObjectReader top(j, source, "");
  top.only({"name", "tree", "keys_file", "invalid_keys", "include_root", "mix", "zipf", "load", "hold",
            "lock_step_time", "tasks"});
  if (auto name = top.string("name")) s.name = *name;
  if (top.has("tree") && top.has("keys_file")) fail(source, "tree", "give either tree or keys_file, not both");
  if (top.has("tree")) {
    ObjectReader tree(top.raw("tree"), source, "tree");
    tree.only({"depth", "fanout"});
    tree.integer("depth", s.tree.depth, 1, kMaxTreeDepth);
    tree.integer("fanout", s.tree.fanout, 1, kMaxTreeFanout);
  }
  if (auto keys = top.string("keys_file")) {
    std::filesystem::path p(*keys);
    s.keys_file = p.is_absolute() ? p : base_dir / p;
  }
  if (auto policy = top.string("invalid_keys")) {
    if (!s.keys_file) fail(source, "invalid_keys", "only with keys_file");
    const auto parsed = invalid_keys_from_string(*policy);
    if (!parsed) fail(source, "invalid_keys", fmt::format("\"{}\" is not \"fail\" or \"skip\"", *policy));
    s.invalid_keys = *parsed;
  }
  top.boolean("include_root", s.include_root);
  if (top.has("mix")) {
    ObjectReader mix(top.raw("mix"), source, "mix");
    mix.only({"read", "write", "delete", "rename", "copy"});
    OperationMix m{0, 0, 0, 0, 0};
    mix.number("read", m.read, 0, 1e9);
    mix.number("write", m.write, 0, 1e9);
    mix.number("delete", m.remove, 0, 1e9);
    mix.number("rename", m.rename, 0, 1e9);
    mix.number("copy", m.copy, 0, 1e9);
    if (m.read + m.write + m.remove + m.rename + m.copy <= 0) fail(source, "mix", "at least one weight must be positive");
    s.mix = m;
  }
  top.number("zipf", s.zipf, 0, 10);
  if (top.has("load")) {
    ObjectReader load(top.raw("load"), source, "load");
    load.only({"mode", "clients", "think_time", "arrival_rate"});
    const auto mode = load.string("mode").value_or("closed");
    if (mode == "closed") {
      s.load = LoadMode::kClosed;
      if (load.has("arrival_rate")) fail(source, "load.arrival_rate", "only for mode \"open\"");
    } else if (mode == "open") {
      s.load = LoadMode::kOpen;
      if (load.has("clients") || load.has("think_time")) fail(source, "load.clients", "clients and think_time are only for mode \"closed\"");
    } else {
      fail(source, "load.mode", fmt::format("\"{}\" is not \"closed\" or \"open\"", mode));
    }
    load.integer("clients", s.clients, 1, kMaxClients);
    load.number("think_time", s.think_time, 0, 1e9);
    load.number("arrival_rate", s.arrival_rate, 1e-9, 1e9);
  }
  if (top.has("hold")) {
    ObjectReader hold(top.raw("hold"), source, "hold");
    hold.only({"distribution", "mean"});
    const auto dist = hold.string("distribution").value_or("exponential");
    if (dist == "fixed") s.hold = HoldDistribution::kFixed;
    else if (dist == "exponential") s.hold = HoldDistribution::kExponential;
    else if (dist == "uniform") s.hold = HoldDistribution::kUniform;
    else fail(source, "hold.distribution", fmt::format("\"{}\" is not fixed, exponential or uniform", dist));
    hold.number("mean", s.hold_mean, 0, 1e9);
  }
  top.number("lock_step_time", s.lock_step_time, 0, 1e9);
  top.integer("tasks", s.tasks, 1, kMaxTasks);
  validate(s);
  return s;
}

WorkloadSpec load_workload_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(InputProblem::kBadParameter, fmt::format("cannot read workload file {}", file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_workload(ss.str(), file.string(), file.parent_path());
}

json to_json(const WorkloadSpec& s) {
  json j{{"name", s.name},
         {"include_root", s.include_root},
         {"mix", {{"read", s.mix.read}, {"write", s.mix.write}, {"delete", s.mix.remove},
                  {"rename", s.mix.rename}, {"copy", s.mix.copy}}},
         {"zipf", s.zipf},
         {"hold", {{"distribution", to_string(s.hold)}, {"mean", s.hold_mean}}},
         {"lock_step_time", s.lock_step_time},
         {"tasks", s.tasks}};
  if (s.keys_file) {
    j["keys_file"] = s.keys_file->string();
    j["invalid_keys"] = to_string(s.invalid_keys);
    j["skipped_keys"] = s.skipped_keys;
  }
  else j["tree"] = {{"depth", s.tree.depth}, {"fanout", s.tree.fanout}};
  if (s.load == LoadMode::kClosed) j["load"] = {{"mode", "closed"}, {"clients", s.clients}, {"think_time", s.think_time}};
  else j["load"] = {{"mode", "open"}, {"arrival_rate", s.arrival_rate}};
  return j;
}

std::string describe_bad_keys(const KeyListing& listing, const std::filesystem::path& file) {
  std::string out = fmt::format("{}: {} of {} keys are not paths the model accepts", file.string(), listing.bad_keys,
                                listing.keys);
  for (const auto& bad : listing.first_bad) {
    out += fmt::format("\n  {}:{}: {} (key \"{}\")", file.string(), bad.line, bad.why, bad.key);
  }
  if (listing.bad_keys > listing.first_bad.size()) {
    out += fmt::format("\n  ... and {} more", listing.bad_keys - listing.first_bad.size());
  }
  return out;
}

KeyListing read_key_listing(const std::filesystem::path& file, InvalidKeys policy) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(InputProblem::kBadParameter, fmt::format("cannot read keys file {}", file.string()));
  KeyListing listing;
  std::set<model::Path> all{model::Path::root()};
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    ++listing.keys;
    try {
      const auto p = model::Path::from_key(line);
      for (auto& a : p.proper_ancestors()) all.insert(std::move(a));
      all.insert(p);
    } catch (const InputError& e) {
      ++listing.bad_keys;
      if (listing.first_bad.size() < kMaxReportedBadKeys) listing.first_bad.push_back({number, line, e.what()});
    }
    if (all.size() > kMaxListedPaths) {
      throw InputError(InputProblem::kBadParameter,
                       fmt::format("{}:{}: the keys so far name more than {} paths (keys and their folders, about "
                                   "{} bytes each), the limit; use a smaller listing",
                                   file.string(), number, kMaxListedPaths, kBytesPerListedPath));
    }
  }
  if (listing.bad_keys > 0 && policy == InvalidKeys::kFail) {
    throw InputError(InputProblem::kBadParameter,
                     describe_bad_keys(listing, file) +
                         "\nto leave them out, set \"invalid_keys\": \"skip\" in the workload or pass --invalid-keys skip");
  }
  if (all.size() == 1) throw InputError(InputProblem::kBadParameter, fmt::format("{}: no usable keys", file.string()));
  listing.paths.assign(all.begin(), all.end());
  return listing;
}

std::vector<model::Path> workload_paths(const WorkloadSpec& spec) {
  std::vector<model::Path> paths;
  if (spec.keys_file) {
    paths = read_key_listing(*spec.keys_file, spec.invalid_keys).paths;
  } else {
    paths = generate_tree(spec.tree);
  }
  if (!spec.include_root) paths.erase(std::remove(paths.begin(), paths.end(), model::Path::root()), paths.end());
  std::stable_sort(paths.begin(), paths.end(), [](const auto& a, const auto& b) {
    return a.depth() != b.depth() ? a.depth() < b.depth() : a < b;
  });
  return paths;
}

Schedule generate_schedule(const WorkloadSpec& spec, const std::vector<model::Path>& paths,
                           std::uint64_t seed) {
  validate(spec);
  if (paths.empty()) throw InputError(InputProblem::kBadParameter, "the workload has no paths to name");
  Rng rng(seed);
  const auto pick_path = zipf_distribution(paths.size(), spec.zipf);
  const DiscreteDistribution pick_kind({spec.mix.read, spec.mix.write, spec.mix.remove, spec.mix.rename, spec.mix.copy});
  const bool two_paths_possible = paths.size() >= 2;
  Schedule out;
  out.load = spec.load;
  out.clients = spec.load == LoadMode::kClosed ? static_cast<std::uint32_t>(spec.clients) : 1;
  out.lock_step_time = spec.lock_step_time;
  out.tasks.reserve(static_cast<std::size_t>(spec.tasks));
  for (int i = 0; i < spec.tasks; ++i) {
    auto kind = static_cast<model::OpKind>(pick_kind(rng));
    if (model::arity(kind) == 2 && !two_paths_possible) kind = model::OpKind::kWrite;
    const model::Path& p = paths[pick_path(rng)];
    std::vector<model::Path> args{p};
    if (model::arity(kind) == 2) {
      std::size_t q = pick_path(rng);
      while (paths[q] == p) q = pick_path(rng);
      args.push_back(paths[q]);
    }
    TaskScript t;
    t.id = static_cast<std::uint32_t>(i);
    t.op = model::Operation::make(kind, std::move(args));
    if (spec.load == LoadMode::kClosed) {
      t.client = static_cast<std::uint32_t>(i % spec.clients);
      t.gap = spec.think_time > 0 ? rng.exponential(spec.think_time) : 0.0;
    } else {
      t.gap = rng.exponential(1.0 / spec.arrival_rate);
    }
    t.hold = sample_hold(spec.hold, spec.hold_mean, rng);
    out.tasks.push_back(std::move(t));
  }
  return out;
}

json schedule_to_json(const Schedule& s) {
  json tasks = json::array();
  for (const auto& t : s.tasks) {
    json paths = json::array({t.op.source.str()});
    if (t.op.target) paths.push_back(t.op.target->str());
    tasks.push_back({{"id", t.id}, {"client", t.client}, {"op", model::to_string(t.op.kind)}, {"paths", paths},
                     {"gap", t.gap}, {"hold", t.hold}});
  }
  return {{"load", to_string(s.load)}, {"clients", s.clients}, {"lock_step_time", s.lock_step_time}, {"tasks", tasks}};
}

Schedule schedule_from_json(const json& j, const std::string& source) {
  ObjectReader r(j, source, "schedule");
  r.only({"load", "clients", "lock_step_time", "tasks"});
  Schedule s;
  const auto load = r.string("load").value_or("closed");
  if (load == "closed") s.load = LoadMode::kClosed;
  else if (load == "open") s.load = LoadMode::kOpen;
  else fail(source, "schedule.load", fmt::format("\"{}\" is not \"closed\" or \"open\"", load));
  int clients = 1;
  r.integer("clients", clients, 1, kMaxClients);
  s.clients = static_cast<std::uint32_t>(clients);
  r.number("lock_step_time", s.lock_step_time, 0, 1e9);
  if (!r.has("tasks") || !r.raw("tasks").is_array()) fail(source, "schedule.tasks", "must be an array");
  std::size_t index = 0;
  for (const auto& tj : r.raw("tasks")) {
    const std::string at = fmt::format("schedule.tasks[{}]", index++);
    ObjectReader t(tj, source, at);
    t.only({"id", "client", "op", "paths", "gap", "hold"});
    TaskScript task;
    int id = static_cast<int>(index - 1);
    t.integer("id", id, 0, kMaxTasks);
    task.id = static_cast<std::uint32_t>(id);
    int client = 0;
    t.integer("client", client, 0, clients - 1);
    task.client = static_cast<std::uint32_t>(client);
    const auto op = t.string("op");
    if (!op) fail(source, at + ".op", "is missing");
    const auto kind = model::op_kind_from_string(*op);
    if (!kind) fail(source, at + ".op", fmt::format("unknown operation \"{}\"", *op));
    if (!t.has("paths") || !t.raw("paths").is_array()) fail(source, at + ".paths", "must be an array of paths");
    std::vector<model::Path> paths;
    for (const auto& pj : t.raw("paths")) {
      if (!pj.is_string()) fail(source, at + ".paths", "must be an array of paths");
      try {
        paths.push_back(model::Path::parse(pj.get<std::string>()));
      } catch (const InputError& e) {
        fail(source, at + ".paths", e.what());
      }
    }
    try {
      task.op = model::Operation::make(*kind, std::move(paths));
    } catch (const InputError& e) {
      fail(source, at, e.what());
    }
    t.number("gap", task.gap, 0, 1e12);
    t.number("hold", task.hold, 0, 1e12);
    s.tasks.push_back(std::move(task));
  }
  return s;
}

}  // namespace pathlock::sim
