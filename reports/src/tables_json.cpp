#include <fmt/format.h>

#include <fstream>

#include "pathlock/reports/simulate.hpp"
#include "pathlock/reports/tables.hpp"

namespace pathlock::reports {
namespace {

using nlohmann::json;

json side_json(const impl::Scheme& scheme, const model::Operation& op, const impl::Plan& plan) {
  return {{"operation", op.to_string()},
          {"request", op.request().to_string()},
          {"plan", impl::to_string(scheme, plan)}};
}

json witness_json(const impl::Scheme& scheme, const std::optional<sim::PairWitness>& w) {
  if (!w) return nullptr;
  json out{{"first", side_json(scheme, w->first, w->first_plan)},
           {"second", side_json(scheme, w->second, w->second_plan)},
           {"lock_conflict", nullptr},
           {"spec_conflict", nullptr}};
  if (w->lock_conflict) {
    out["lock_conflict"] = {{"lock", scheme.lock_label(w->lock_conflict->lock)},
                            {"first_mode", scheme.mode_name(w->lock_conflict->first)},
                            {"second_mode", scheme.mode_name(w->lock_conflict->second)}};
  }
  if (w->spec_conflict) {
    out["spec_conflict"] = {{"first_path", w->spec_conflict->first.str()},
                            {"first_access", model::to_string(w->spec_conflict->first_access)},
                            {"second_path", w->spec_conflict->second.str()},
                            {"second_access", model::to_string(w->spec_conflict->second_access)}};
  }
  return out;
}

json scheme_json(const sim::SchemeTable& t) {
  const auto& s = *t.scheme;
  json modes = json::array();
  json compat = json::array();
  for (std::size_t a = 0; a < s.mode_count(); ++a) {
    const impl::ModeId ma{static_cast<std::uint8_t>(a)};
    modes.push_back({{"name", s.mode(ma).name}, {"meaning", s.mode(ma).meaning}});
    json row = json::array();
    for (std::size_t b = 0; b < s.mode_count(); ++b) {
      row.push_back(s.compatible(ma, impl::ModeId{static_cast<std::uint8_t>(b)}));
    }
    compat.push_back(row);
  }
  json categories = json::array();
  for (const auto& c : t.categories) {
    const auto& info = model::info(c.category);
    categories.push_back({{"number", info.number},
                          {"pair", fmt::format("{}, {}", model::to_string(info.first),
                                               model::to_string(info.second))},
                          {"related", info.relation == model::Relation::kRelated},
                          {"must", model::to_string(info.must)},
                          {"verdict", model::to_string(c.verdict)},
                          {"pairs", c.pairs},
                          {"blocked_pairs", c.blocked_pairs},
                          {"witness", witness_json(s, c.witness)}});
  }
  json axes = json::array();
  json cells = json::array();
  for (const auto& row : model::kLineageAxes) {
    axes.push_back(model::label(row));
    json r = json::array();
    for (const auto& col : model::kLineageAxes) {
      r.push_back(model::to_string(t.verdicts[model::index_of(model::category_of_cell(row, col))]));
    }
    cells.push_back(r);
  }
  json unsafe = json::array();
  for (const auto& w : t.unsafe_witnesses) unsafe.push_back(witness_json(s, w));
  json by_kind = json::array();
  for (const auto& k : t.by_kind) {
    by_kind.push_back({{"first", model::to_string(k.first)},
                       {"second", model::to_string(k.second)},
                       {"pairs", k.pairs},
                       {"conflicting", k.conflicting},
                       {"blocked", k.blocked},
                       {"unsafe", k.unsafe},
                       {"over_blocked", k.over_blocked}});
  }
  json defects = json::array();
  for (const auto& d : t.join_defects) {
    defects.push_back({{"left", s.mode_name(d.left)},
                       {"right", s.mode_name(d.right)},
                       {"joined", s.mode_name(d.joined)},
                       {"lost_conflict_of", s.mode_name(d.operand)},
                       {"with", s.mode_name(d.witness)}});
  }
  json claims = json::array();
  for (const auto& c : t.claims.claims) {
    json witness = nullptr;
    if (c.witness) {
      json paths = json::array();
      for (const auto& p : c.witness->paths) paths.push_back(p.str());
      witness = {{"explanation", c.witness->explanation},
                 {"operation", c.witness->operation ? json(c.witness->operation->to_string()) : json(nullptr)},
                 {"plan", c.witness->plan ? json(impl::to_string(s, *c.witness->plan)) : json(nullptr)},
                 {"paths", paths}};
    }
    claims.push_back({{"claim", sim::to_string(c.claim)}, {"status", sim::to_string(c.status)}, {"witness", witness}});
  }
  return {{"name", s.name()},
          {"title", s.title()},
          {"granularity", impl::to_string(s.granularity())},
          {"order", s.order().name()},
          {"modes", modes},
          {"compatibility", compat},
          {"categories", categories},
          {"lineage_table", {{"axes", axes}, {"cells", cells}}},
          {"score_out_of_4", {{"achieved", t.score4.achieved}, {"possible", t.score4.possible}}},
          {"score_out_of_8", {{"achieved", t.score8.achieved}, {"possible", t.score8.possible}}},
          {"safe", t.safe()},
          {"exact", t.exact()},
          {"pairs", t.pairs},
          {"conflicting_pairs", t.conflicting_pairs},
          {"unsafe_pairs", t.unsafe_pairs},
          {"unsafe_witnesses", unsafe},
          {"over_blocked_pairs", t.over_blocked_pairs},
          {"over_blocked_witness", witness_json(s, t.over_blocked_witness)},
          {"by_operation", by_kind},
          {"join_defects", defects},
          {"claims", claims},
          {"pair_computation", sim::to_string(t.claims.computation)}};
}

}  // namespace

json tables_json(const sim::StaticAnalysis& analysis) {
  json names = json::array();
  for (const auto& n : sim::child_names(analysis.tree.fanout)) names.push_back(n);
  json schemes = json::array();
  for (const auto& t : analysis.schemes) schemes.push_back(scheme_json(t));
  return {{"schema", kTablesSchema},
          {"tree",
           {{"depth", analysis.tree.depth},
            {"fanout", analysis.tree.fanout},
            {"child_names", names},
            {"paths", analysis.paths.size()}}},
          {"operations", analysis.operations},
          {"pairs", analysis.pairs},
          {"schemes", schemes}};
}

std::vector<std::filesystem::path> write_tables(const sim::StaticAnalysis& analysis,
                                                const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  const std::vector<std::filesystem::path> files{dir / "tables.md", dir / "tables.html",
                                                 dir / "tables.json"};
  write_text_file(files[0], tables_markdown(analysis));
  write_text_file(files[1], tables_html(analysis));
  write_text_file(files[2], tables_json(analysis).dump(2) + "\n");
  return files;
}

}  // namespace pathlock::reports
