#include <gtest/gtest.h>

#include "support/files.hpp"

#include <fstream>
#include <sstream>

#include "pathlock/reports/tables.hpp"
#include "support/broken_orders.hpp"

namespace pathlock::reports {
namespace {

using pathlock::testing::slurp;

const sim::StaticAnalysis& analysis() {
  static const sim::StaticAnalysis a = sim::analyze_static(impl::builtin_schemes(), sim::TreeSpec{});
  return a;
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}


TEST(TablesJson, FollowsTheDocumentedSchema) {
  const auto j = tables_json(analysis());
  EXPECT_EQ(j.at("schema"), kTablesSchema);
  EXPECT_EQ(j.at("tree").at("depth"), 3);
  EXPECT_EQ(j.at("pairs").get<std::uint64_t>(), analysis().pairs);
  ASSERT_EQ(j.at("schemes").size(), analysis().schemes.size());
  for (std::size_t i = 0; i < analysis().schemes.size(); ++i) {
    const auto& t = analysis().schemes[i];
    const auto& s = j.at("schemes")[i];
    EXPECT_EQ(s.at("name"), t.scheme->name());
    EXPECT_EQ(s.at("score_out_of_4").at("achieved"), t.score4.achieved);
    EXPECT_EQ(s.at("score_out_of_8").at("achieved"), t.score8.achieved);
    EXPECT_EQ(s.at("safe"), t.safe());
    EXPECT_EQ(s.at("unsafe_pairs").get<std::uint64_t>(), t.unsafe_pairs);
    EXPECT_EQ(s.at("compatibility").size(), t.scheme->mode_count());
    ASSERT_EQ(s.at("categories").size(), 6u);
    for (std::size_t c = 0; c < 6; ++c) {
      const auto& cat = s.at("categories")[c];
      const bool blocked_but_allowed =
          cat.at("must") == "allow" && cat.at("verdict") == "blocks";
      // A witness for every allowed category the scheme blocks.
      if (blocked_but_allowed) {
        ASSERT_TRUE(cat.at("witness").is_object()) << t.scheme->name() << " category " << c + 1;
        EXPECT_TRUE(cat.at("witness").at("lock_conflict").is_object());
        EXPECT_TRUE(cat.at("witness").at("spec_conflict").is_null());
      }
      EXPECT_EQ(cat.at("verdict"), model::to_string(t.verdicts[c]));
    }
    const auto& cells = s.at("lineage_table").at("cells");
    ASSERT_EQ(cells.size(), 4u);
    int allowed = 0;
    for (std::size_t r = 0; r < 4; ++r) {
      for (std::size_t c = r; c < 4; ++c) {
        EXPECT_EQ(cells[r][c], cells[c][r]);  // symmetric
        const auto cat = model::category_of_cell(model::kLineageAxes[r], model::kLineageAxes[c]);
        if (model::info(cat).must == model::Requirement::kAllow && cells[r][c] == "allows") ++allowed;
      }
    }
    EXPECT_EQ(allowed, t.score8.achieved);
    EXPECT_EQ(s.at("unsafe_witnesses").size(), t.unsafe_witnesses.size());
  }
}

TEST(TablesText, UnsafeSchemesAreReportedProminently) {
  const std::string md = tables_markdown(analysis());
  const std::string term = tables_terminal(analysis(), Color::kNone);
  for (const auto& t : analysis().schemes) {
    const std::string banner = t.scheme->name() + " is UNSAFE";
    EXPECT_EQ(md.find(banner) != std::string::npos, !t.safe()) << t.scheme->name();
    EXPECT_EQ(term.find(banner) != std::string::npos, !t.safe()) << t.scheme->name();
    EXPECT_NE(md.find("## " + t.scheme->name() + ": "), std::string::npos);
  }
  EXPECT_NE(md.find("> **Warning:**"), std::string::npos);
  EXPECT_NE(term.find("!! path-rwa is UNSAFE"), std::string::npos);
}

TEST(TablesHtml, CellsAreColouredAndTheMirrorHalfGreyed) {
  const std::string html = tables_html(analysis());
  EXPECT_NE(html.find("td.allow { color: #1a7f37; }"), std::string::npos);
  // Each scheme's lineage table greys out its 6 mirror cells.
  EXPECT_EQ(count(html, "class=\"mirror\""), 6 * analysis().schemes.size());
  // ✓ and ✗ cells appear, styled by class.
  EXPECT_GT(count(html, "<td class=\"allow\">✓</td>"), 0u);
  EXPECT_GT(count(html, "<td class=\"block\">✗</td>"), 0u);
  EXPECT_EQ(count(html, "✓</td>"), count(html, "\">✓</td>"));
}

TEST(TablesFiles, WritesAllThreeForms) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-tables-test";
  std::filesystem::remove_all(dir);
  const auto files = write_tables(analysis(), dir);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(slurp(dir / "tables.md"), tables_markdown(analysis()));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "tables.json")), tables_json(analysis()));
  std::filesystem::remove_all(dir);
}

// reports/generated/ holds the default run's output, for people browsing the
// repository. It must be what the code computes today.
TEST(TablesFiles, CommittedReportsAreUpToDate) {
  const std::filesystem::path committed = std::filesystem::path(PATHLOCK_SOURCE_DIR) / "reports" / "generated";
  const char* hint = "regenerate with: build/release/reports/pathlock tables --out reports/generated";
  EXPECT_EQ(slurp(committed / "tables.md"), tables_markdown(analysis())) << hint;
  EXPECT_EQ(slurp(committed / "tables.html"), tables_html(analysis())) << hint;
  EXPECT_EQ(slurp(committed / "tables.json"), tables_json(analysis()).dump(2) + "\n") << hint;
}

// The README quotes the summary table; it must be the computed one.
TEST(TablesFiles, ReadmeQuotesTheComputedSummary) {
  Document doc;
  doc.table(tables_summary(analysis()));
  const std::string table = render_markdown(doc);
  const std::string readme = slurp(std::filesystem::path(PATHLOCK_SOURCE_DIR) / "README.md");
  EXPECT_NE(readme.find(table), std::string::npos) << "README.md should quote:\n" << table;
}

}  // namespace
}  // namespace pathlock::reports

namespace pathlock::reports {
namespace {

TEST(TablesReport, ABrokenClaimIsReportedWithItsWitness) {
  const impl::LockOrder order("ties-siblings", "ties /a and /ab", &testing::ties_siblings,
                              impl::Ancestry::kAncestorsFirst, impl::Totality::kStrictTotal);
  const auto broken = impl::path_rwa_joined_scheme().with_order(order, "broken-order");
  const impl::Scheme* one[] = {&broken};
  const auto a = sim::analyze_static(one, sim::TreeSpec{});
  const auto md = tables_markdown(a);
  EXPECT_NE(md.find("CLAIM BROKEN (the order is a strict total order): order ties-siblings: totality fails: /a and "
                    "/ab compare equal. The pairs below are judged by every pair of steps"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("UNSAFE"), std::string::npos);
  const auto j = tables_json(a)["schemes"][0];
  EXPECT_EQ(j["claims"][0]["status"], "broken");
  EXPECT_EQ(j["pair_computation"], "every pair of steps");
  EXPECT_EQ(j["unsafe_pairs"], 0);
  const auto good = tables_json(analysis())["schemes"][0];
  EXPECT_EQ(good["claims"][0]["status"], "holds");
  EXPECT_EQ(good["pair_computation"], "merge of sorted plans");
}

}  // namespace
}  // namespace pathlock::reports
