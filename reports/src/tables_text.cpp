// Builds the tables report as a Document; the renderers do the rest.

#include <fmt/format.h>

#include "pathlock/reports/tables.hpp"

namespace pathlock::reports {
namespace {

Cell verdict_cell(model::Verdict v) {
  return v == model::Verdict::kAllows ? allow_cell() : block_cell();
}

std::string score_text(const model::Score& s) { return fmt::format("{}/{}", s.achieved, s.possible); }

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string side_text(const impl::Scheme& s, const model::Operation& op, const impl::Plan& plan) {
  return fmt::format("{}  {}  locks: {}", op.to_string(), op.request().to_string(),
                     impl::to_string(s, plan));
}

// A pair witness as a few lines of plain text.
std::string witness_text(const impl::Scheme& s, const sim::PairWitness& w) {
  std::string out = fmt::format("A: {}\nB: {}\n", side_text(s, w.first, w.first_plan),
                                side_text(s, w.second, w.second_plan));
  if (w.spec_conflict) {
    const auto& c = *w.spec_conflict;
    out += fmt::format("spec: conflict: A {}s {}, B {}s {}, and the paths are related\n",
                       c.first_access == model::Access::kWrite ? "write" : "read", c.first.str(),
                       c.second_access == model::Access::kWrite ? "write" : "read",
                       c.second.str());
  } else {
    out += "spec: no conflict: the requests may run together\n";
  }
  if (w.lock_conflict) {
    out += fmt::format("plans: blocked at {}: {} and {} are incompatible\n",
                       s.lock_label(w.lock_conflict->lock), s.mode_name(w.lock_conflict->first),
                       s.mode_name(w.lock_conflict->second));
  } else {
    out += "plans: no common lock in incompatible modes: both can be held at once\n";
  }
  return out;
}

// The one-line form used in table cells.
std::string witness_cell(const sim::PairWitness& w) {
  return fmt::format("{} ∥ {}", w.first.to_string(), w.second.to_string());
}

Table compatibility_table(const impl::Scheme& s) {
  Table t;
  t.header.push_back("");
  for (std::size_t b = 0; b < s.mode_count(); ++b) {
    t.header.push_back(s.mode_name(impl::ModeId{static_cast<std::uint8_t>(b)}));
  }
  for (std::size_t a = 0; a < s.mode_count(); ++a) {
    const impl::ModeId ma{static_cast<std::uint8_t>(a)};
    std::vector<Cell> row{{s.mode_name(ma), CellStyle::kHeader}};
    for (std::size_t b = 0; b < s.mode_count(); ++b) {
      row.push_back(s.compatible(ma, impl::ModeId{static_cast<std::uint8_t>(b)}) ? allow_cell()
                                                                                   : block_cell());
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table category_table(const sim::SchemeTable& t) {
  Table out{{"#", "pair", "related", "must", "verdict", "pairs blocked", "witness"}, {}};
  for (const auto& c : t.categories) {
    const auto& info = model::info(c.category);
    std::string witness;
    const bool wrong = (c.verdict == model::Verdict::kBlocks) != (info.must == model::Requirement::kBlock);
    if (wrong && c.witness) witness = witness_cell(*c.witness);
    out.rows.push_back({{std::to_string(info.number)},
                        {fmt::format("{}, {}", model::to_string(info.first), model::to_string(info.second))},
                        {info.relation == model::Relation::kRelated ? "yes" : "no"},
                        {std::string(model::to_string(info.must))},
                        verdict_cell(c.verdict),
                        {fmt::format("{} of {}", c.blocked_pairs, c.pairs)},
                        {witness}});
  }
  return out;
}

Table lineage_table(const sim::SchemeTable& t) {
  Table out;
  out.header.push_back("B \\ A");
  for (const auto& axis : model::kLineageAxes) out.header.push_back(model::label(axis));
  for (std::size_t r = 0; r < model::kLineageAxes.size(); ++r) {
    std::vector<Cell> row{{model::label(model::kLineageAxes[r]), CellStyle::kHeader}};
    for (std::size_t c = 0; c < model::kLineageAxes.size(); ++c) {
      const auto cat = model::category_of_cell(model::kLineageAxes[r], model::kLineageAxes[c]);
      Cell cell = verdict_cell(t.verdicts[model::index_of(cat)]);
      if (c < r) cell.style = CellStyle::kMirror;  // the design notes grey out the mirror half
      row.push_back(cell);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

Table kind_table(const sim::SchemeTable& t) {
  Table out{{"A", "B", "pairs", "conflicting", "blocked", "unsafe", "over-blocked"}, {}};
  for (const auto& k : t.by_kind) {
    out.rows.push_back({{std::string(model::to_string(k.first))},
                        {std::string(model::to_string(k.second))},
                        {std::to_string(k.pairs)},
                        {std::to_string(k.conflicting)},
                        {std::to_string(k.blocked)},
                        {std::to_string(k.unsafe), k.unsafe ? CellStyle::kBlock : CellStyle::kPlain},
                        {std::to_string(k.over_blocked)}});
  }
  return out;
}

// A broken claim of the scheme, with its witness: the table then compared
// every pair of steps instead of merging plans (sim/plan_claims.hpp).
void broken_claims(Document& doc, const sim::SchemeTable& t) {
  const auto& s = *t.scheme;
  for (const auto& c : t.claims.claims) {
    if (c.status != sim::ClaimStatus::kBroken || !c.witness) continue;
    const auto& w = *c.witness;
    doc.alert(fmt::format("CLAIM BROKEN ({}): {}. The pairs below are judged by {}, not by the merge of "
                          "sorted plans that the claim would allow.",
                          sim::to_string(c.claim), w.explanation, sim::to_string(t.claims.computation)));
    if (w.operation && w.plan) doc.code(side_text(s, *w.operation, *w.plan));
  }
}

void scheme_section(Document& doc, const sim::SchemeTable& t) {
  const auto& s = *t.scheme;
  doc.heading(2, fmt::format("{}: {}", s.name(), s.title()));
  doc.paragraph(fmt::format("{} Granularity: {}. Acquisition order: {} ({}).", s.description(),
                            impl::to_string(s.granularity()), s.order().name(),
                            s.order().description()));
  broken_claims(doc, t);
  if (!t.safe()) {
    doc.alert(fmt::format(
        "UNSAFE: {} of {} conflicting request pairs can hold their locks at the same time. "
        "Smallest witness{}:",
        t.unsafe_pairs, t.conflicting_pairs, t.unsafe_witnesses.size() > 1 ? "es" : ""));
    std::string text;
    for (std::size_t i = 0; i < t.unsafe_witnesses.size(); ++i) {
      if (i) text += "\n";
      text += witness_text(s, t.unsafe_witnesses[i]);
    }
    doc.code(text);
  }
  doc.heading(3, "Modes");
  doc.table(compatibility_table(s));
  doc.heading(3, "Pair categories (score out of 4)");
  doc.table(category_table(t));
  doc.paragraph(fmt::format("Score: {} (six-row category table), {} (4x4 lineage table).",
                            score_text(t.score4), score_text(t.score8)));
  doc.heading(3, "Lineage table (score out of 8)");
  doc.table(lineage_table(t));
  doc.heading(3, "All request pairs, single- and multi-path");
  doc.paragraph(fmt::format(
      "{} pairs, {} conflicting. Unsafe (the requests conflict, the plans do not): {}. "
      "Over-blocked (the plans conflict, the requests do not): {}. Exact: {}.",
      t.pairs, t.conflicting_pairs, t.unsafe_pairs, t.over_blocked_pairs, yes_no(t.exact())));
  doc.table(kind_table(t));
  if (t.over_blocked_witness) {
    doc.paragraph("Smallest over-blocked pair:");
    doc.code(witness_text(s, *t.over_blocked_witness));
  }
  for (const auto& d : t.join_defects) {
    doc.paragraph(fmt::format(
        "Join defect: {} v {} = {}, but {} conflicts with {} and {} does not; a path with both "
        "roles loses a conflict.",
        s.mode_name(d.left), s.mode_name(d.right), s.mode_name(d.joined), s.mode_name(d.operand),
        s.mode_name(d.witness), s.mode_name(d.joined)));
  }
}

}  // namespace

Table tables_summary(const sim::StaticAnalysis& a) {
  Table summary{{"scheme", "score /4", "score /8", "single-path safe", "unsafe pairs",
                 "over-blocked pairs", "exact"},
                {}};
  for (const auto& t : a.schemes) {
    bool single_safe = true;
    for (const auto& c : t.categories) {
      if (model::info(c.category).must == model::Requirement::kBlock &&
          c.verdict == model::Verdict::kAllows) {
        single_safe = false;
      }
    }
    summary.rows.push_back({{t.scheme->name(), CellStyle::kHeader},
                            {score_text(t.score4)},
                            {score_text(t.score8)},
                            {yes_no(single_safe), single_safe ? CellStyle::kPlain : CellStyle::kBlock},
                            {std::to_string(t.unsafe_pairs), t.safe() ? CellStyle::kPlain : CellStyle::kBlock},
                            {std::to_string(t.over_blocked_pairs)},
                            {yes_no(t.exact())}});
  }
  return summary;
}

Document tables_document(const sim::StaticAnalysis& a) {
  Document doc;
  doc.heading(1, "pathlock: scheme concurrency tables");
  std::string names;
  for (const auto& n : sim::child_names(a.tree.fanout)) names += (names.empty() ? "" : ", ") + n;
  doc.paragraph(fmt::format(
      "Computed from the lock plans, not typed in: a tree of depth {} and fanout {} (child "
      "names {}; {} paths), every read, write, delete, rename and copy over it ({} operations), "
      "and every unordered pair of them ({} pairs). ✓: the scheme lets both requests hold their "
      "locks at once. ✗: it blocks one of them. A category is blocked if any of its pairs is.",
      a.tree.depth, a.tree.fanout, names, a.paths.size(), a.operations, a.pairs));

  doc.heading(2, "Summary");
  doc.table(tables_summary(a));
  for (const auto& t : a.schemes) {
    if (!t.safe()) {
      doc.alert(fmt::format("{} is UNSAFE: {} conflicting pairs can hold their locks together, "
                            "e.g. {}. See its section.",
                            t.scheme->name(), t.unsafe_pairs,
                            witness_cell(t.unsafe_witnesses.front())));
    }
  }
  for (const auto& t : a.schemes) scheme_section(doc, t);
  return doc;
}

std::string tables_markdown(const sim::StaticAnalysis& a) { return render_markdown(tables_document(a)); }
std::string tables_html(const sim::StaticAnalysis& a) {
  return render_html(tables_document(a), "pathlock: scheme concurrency tables");
}
std::string tables_terminal(const sim::StaticAnalysis& a, Color color) {
  return render_terminal(tables_document(a), color);
}

}  // namespace pathlock::reports
