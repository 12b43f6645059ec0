// The catalog parser and the generators' table helpers, on hand-written
// entries: every field's error names the file and the field; published
// values are numbers, ranges or "unknown" with a reason, never a number
// without its source; the comparison table's ratio uses the middle of a
// range and is empty where either side is unknown.
#include <string>
#include <utility>
#include <vector>

#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_figure.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers {
namespace {

using ::testing::HasSubstr;

std::string Entry(const std::string& published, const std::string& extra = "",
                  const std::string& status = R"("status": "ready",)") {
  return R"({"format": "dissect.paper.v1",
    "paper": {"key": "p_2018", "title": "T", "authors": "A", "year": 2018, "venue": "V"},
    "figure": "Figure 2", "claim": "c", )" +
         status + R"( "expected_signature": "s", "expected_differences": "d",
    "sweep": {"defaults": {"time_limit_s": 9}, "entries": [{"id": "e", "experiment": "x"}]},
    "analysis": {"generator": "g", "params": {"n": 3}}, )" +
         extra + R"("published": )" + published + "}";
}

TEST(CatalogParse, AGoodEntry) {
  absl::StatusOr<CatalogEntry> e = ParseCatalogEntry(
      Entry(R"([{"key": "a", "quantity": "qa", "value": 38, "unit": "cycles", "source": "Table 2"},
                {"key": "b", "quantity": "qb", "value": [436, 443], "unit": "cycles", "source": "p. 5"},
                {"key": "c", "quantity": "qc", "value": "unknown", "why": "not read"}])"),
      "configs/papers/p_2018_fig2.json");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->id, "p_2018_fig2");
  EXPECT_EQ(e->paper_key, "p_2018");
  EXPECT_EQ(e->year, 2018);
  EXPECT_TRUE(e->ready());
  EXPECT_EQ(e->generator, "g");
  EXPECT_EQ(e->params["n"], 3);
  ASSERT_EQ(e->published.size(), 3u);
  EXPECT_EQ(*e->FindPublished("a")->lo, 38);
  EXPECT_EQ(*e->FindPublished("b")->hi, 443);
  EXPECT_FALSE(e->FindPublished("c")->known());
  EXPECT_EQ(e->FindPublished("zz"), nullptr);
  EXPECT_EQ(PublishedCell(e->FindPublished("a")), "38 cycles (Table 2)");
  EXPECT_EQ(PublishedCell(e->FindPublished("b")), "436–443 cycles (p. 5)");
  EXPECT_EQ(PublishedCell(e->FindPublished("c")), "unknown: not read");
  const nlohmann::ordered_json sweep = e->SweepDocument();
  EXPECT_EQ(sweep["format"], "dissect.sweep.v1");
  EXPECT_EQ(sweep["name"], "p_2018_fig2");
  EXPECT_EQ(sweep["defaults"]["time_limit_s"], 9);
  EXPECT_EQ(sweep["entries"][0]["id"], "e");
}

TEST(CatalogParse, ErrorsNameTheFileAndTheField) {
  const std::string path = "configs/papers/p_2018_x.json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{", "not valid JSON"},
      {Entry("[]", R"("colour": 1, )"), "colour: unknown field"},
      {Entry(R"([{"key": "a", "quantity": "q", "value": 38}])"),
       "published[0].source: a published number needs where it comes from"},
      {Entry(R"([{"key": "a", "quantity": "q", "value": "unknown"}])"),
       "published[0].why: an unknown value needs the reason"},
      {Entry(R"([{"key": "a", "quantity": "q", "value": [443, 436], "source": "s"}])"),
       "published[0].value: not a number, [lo, hi] with lo <= hi"},
      {Entry(R"([{"key": "a", "quantity": "q", "value": "about 38"}])"), "published[0].value"},
      {Entry(R"([{"key": "a", "quantity": "q", "value": 1, "source": "s"},
                 {"key": "a", "quantity": "q", "value": 2, "source": "s"}])"),
       "published[1].key: 'a' appears twice"},
      {Entry("[]", "", R"("status": "maybe",)"), "status: must be \"ready\" or \"pending\""},
      {Entry("[]", "", R"("status": "pending",)"), "pending: a pending entry says what is missing"},
      {Entry("[]", R"("pending": "x", )"), "pending: only for status \"pending\""},
  };
  for (const auto& [text, expected] : cases) {
    absl::StatusOr<CatalogEntry> e = ParseCatalogEntry(text, path);
    ASSERT_FALSE(e.ok()) << expected;
    EXPECT_THAT(std::string(e.status().message()), HasSubstr(path + ": "));
    EXPECT_THAT(std::string(e.status().message()), HasSubstr(expected));
  }
  absl::StatusOr<CatalogEntry> other_key =
      ParseCatalogEntry(Entry("[]"), "configs/papers/q_2018_x.json");
  ASSERT_FALSE(other_key.ok());
  EXPECT_THAT(std::string(other_key.status().message()),
              HasSubstr("must start with paper.key 'p_2018'"));
}

// A paper known only by its title: pending, no sweep or analysis yet, year
// unknown; its reading-list item is kept.
TEST(CatalogParse, APendingEntryMayHaveNoAnalysisAndAnUnknownYear) {
  const std::string head = R"({"format": "dissect.paper.v1",
    "paper": {"key": "p", "title": "T", "authors": "A", "venue": "V", )";
  const std::string rest = R"(
    "expected_signature": "s", "expected_differences": "d", "sweep": {"entries": []},
    "published": []})";
  const std::string body =
      R"("figure": "unknown: f", "claim": "c", "status": "pending", "pending": "not built",)" + rest;
  const std::string ready_body = R"("figure": "f", "claim": "c", "status": "ready",)" + rest;
  absl::StatusOr<CatalogEntry> e = ParseCatalogEntry(
      head + R"("year": "unknown", "reading_list_item": 6},)" + body, "configs/papers/p_x.json");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->year, 0);
  EXPECT_EQ(e->reading_list_item, 6);
  EXPECT_EQ(e->generator, "");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {head + R"("year": "soon"},)" + body, "paper.year: missing or not a year"},
      {head + R"("year": 2018, "reading_list_item": "six"},)" + body,
       "paper.reading_list_item: not an item number"},
      {head + R"("year": 2018},)" + ready_body, "sweep.entries: a ready entry needs at least one"},
  };
  for (const auto& [text, expected] : cases) {
    absl::StatusOr<CatalogEntry> bad = ParseCatalogEntry(text, "configs/papers/p_x.json");
    ASSERT_FALSE(bad.ok()) << expected;
    EXPECT_THAT(std::string(bad.status().message()), HasSubstr(expected));
  }
}

// The entry of Entry() with `settings` as its analysis.settings.
std::string EntryWithSettings(const std::string& settings) {
  std::string text = Entry("[]");
  const std::string analysis = R"("params": {"n": 3}})";
  text.replace(text.find(analysis), analysis.size(),
               R"("params": {"n": 3, "m": "x"}, "settings": )" + settings + "}");
  return text;
}

TEST(CatalogParse, SettingsOverlayTheParams) {
  absl::StatusOr<CatalogEntry> e = ParseCatalogEntry(
      EntryWithSettings(R"([{"id": "paper_setting", "label": "The paper's setting",
                             "params": {"n": 256, "k": [1, 2]}}])"),
      "configs/papers/p_2018_x.json");
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->settings.size(), 1u);
  EXPECT_EQ(e->settings[0].id, "paper_setting");
  EXPECT_EQ(e->settings[0].label, "The paper's setting");
  const CatalogEntry in_setting = e->InSetting(e->settings[0]);
  EXPECT_EQ(in_setting.params["n"], 256);
  EXPECT_EQ(in_setting.params["m"], "x");
  EXPECT_EQ(in_setting.params["k"].size(), 2u);
  EXPECT_EQ(e->params["n"], 3);
  EXPECT_TRUE(ParseCatalogEntry(Entry("[]"), "configs/papers/p_2018_x.json")->settings.empty());
}

TEST(CatalogParse, BadSettingsAreNamed) {
  const std::string path = "configs/papers/p_2018_x.json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"id": "a"})", "analysis.settings: not a list"},
      {R"([7])", "analysis.settings[0]: not an object"},
      {R"([{"label": "L", "params": {"n": 1}}])", "analysis.settings[0].id: missing"},
      {R"([{"id": "a", "params": {"n": 1}}])", "analysis.settings[0].label: missing"},
      {R"([{"id": "A b", "label": "L", "params": {"n": 1}}])",
       "analysis.settings[0].id: only a-z, 0-9 and _"},
      {R"([{"id": "a", "label": "L"}])", "analysis.settings[0].params: missing"},
      {R"([{"id": "a", "label": "L", "params": {}}])", "analysis.settings[0].params: missing"},
      {R"([{"id": "a", "label": "L", "params": {"n": 1}, "x": 1}])",
       "analysis.settings[0].x: unknown field"},
      {R"([{"id": "a", "label": "L", "params": {"n": 1}},
           {"id": "a", "label": "M", "params": {"n": 2}}])",
       "analysis.settings[1].id: 'a' appears twice"},
  };
  for (const auto& [settings, expected] : cases) {
    SCOPED_TRACE(settings);
    absl::StatusOr<CatalogEntry> e = ParseCatalogEntry(EntryWithSettings(settings), path);
    ASSERT_FALSE(e.ok());
    EXPECT_THAT(e.status().message(), HasSubstr(path + ": " + expected));
  }
}

TEST(CatalogParse, SelectByIdOrPaperKey) {
  std::vector<CatalogEntry> catalog(3);
  catalog[0].id = "p_2018_a";
  catalog[0].paper_key = "p_2018";
  catalog[1].id = "p_2018_b";
  catalog[1].paper_key = "p_2018";
  catalog[2].id = "q_2019";
  catalog[2].paper_key = "q_2019";
  auto one = SelectEntries(catalog, "p_2018_b");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ(one->front()->id, "p_2018_b");
  auto paper = SelectEntries(catalog, "p_2018");
  ASSERT_TRUE(paper.ok());
  EXPECT_EQ(paper->size(), 2u);
  auto none = SelectEntries(catalog, "r");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.status().message()),
              HasSubstr("unknown paper 'r' (known: p_2018_a, p_2018_b, q_2019)"));
}

TEST(PaperFigure, ComparisonRatioUsesTheMiddleOfARangeAndNeedsBothSides) {
  PublishedValue range{"k", "q", 400, 500, "cycles", "Table 1", ""};
  PublishedValue unknown{"u", "q", std::nullopt, std::nullopt, "", "", "not read"};
  MarkdownTable t = ComparisonTable();
  AddComparison(t, "texture", &range, 900, "cycles", "miss");
  AddComparison(t, "shared", &unknown, 30, "cycles", "");
  AddComparison(t, "l2", &range, std::nullopt, "cycles", "no rows");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][2], "900 cycles");
  EXPECT_EQ(t.rows[0][3], "2");
  EXPECT_EQ(t.rows[1][3], kEmptyCell);
  EXPECT_EQ(t.rows[2][2], "not measured");
  EXPECT_EQ(t.rows[2][3], kEmptyCell);
}

TEST(PaperFigure, BarChartWritesDataAndScript) {
  PaperFigure out;
  BarChart chart;
  chart.stem = "bars";
  chart.title = "t";
  chart.ylabel = "x";
  chart.categories = {"conv 1", "pool"};
  chart.series = {"a", "b"};
  chart.values = {{1, 2}, {3, NAN}};
  chart.lines = {{5, "peak"}};
  AddBarChart(chart, {"in.json"}, out);
  ASSERT_EQ(out.files.size(), 2u);
  EXPECT_EQ(out.files[0].name, "bars.dat");
  EXPECT_THAT(out.files[0].contents, HasSubstr("conv_1 1 3\npool 2 ?\n"));
  EXPECT_THAT(out.files[1].contents, HasSubstr("#   in.json\n"));
  EXPECT_THAT(out.files[1].contents, HasSubstr("set output 'bars.svg'"));
  EXPECT_THAT(out.files[1].contents, HasSubstr("5 with lines dashtype 2 lw 2 title 'peak'"));
  EXPECT_EQ(out.scripts, std::vector<std::string>{"bars.gp"});
}

TEST(PaperFigureHelpers, ParamReaders) {
  CatalogEntry entry;
  entry.id = "p_2018_fig2";
  entry.params = {{"s", "x"}, {"n", 3}, {"f", 2.5}, {"list", {"a", "b"}}, {"nums", {1, -1}}};
  EXPECT_EQ(*StringParam(entry, "s", "d"), "x");
  EXPECT_EQ(*StringParam(entry, "absent", "d"), "d");
  EXPECT_EQ(*IntParam(entry, "n", 0, 1), 3);
  EXPECT_EQ(*IntParam(entry, "absent", 0, 1), 0);
  EXPECT_EQ(*NumberParam(entry, "f", 0), 2.5);
  EXPECT_EQ(*NumberParam(entry, "n", 0), 3);
  EXPECT_EQ(*StringListParam(entry, "list", {}), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*NumberListParam(entry, "nums", {}), (std::vector<double>{1, -1}));
  EXPECT_EQ(StringParam(entry, "n", "").status().message(),
            "p_2018_fig2: params.n must be a string");
  EXPECT_EQ(IntParam(entry, "f", 0).status().message(), "p_2018_fig2: params.f must be an integer");
  EXPECT_EQ(IntParam(entry, "n", 0, 4).status().message(),
            "p_2018_fig2: params.n must be an integer >= 4");
  EXPECT_EQ(NumberParam(entry, "s", 0).status().message(),
            "p_2018_fig2: params.s must be a number");
  EXPECT_EQ(StringListParam(entry, "s", {}).status().message(),
            "p_2018_fig2: params.s must be a list of strings");
  EXPECT_EQ(StringListParam(entry, "nums", {}).status().message(),
            "p_2018_fig2: params.nums must be a list of strings");
  entry.params["list"] = nlohmann::ordered_json::array();
  EXPECT_TRUE(StringListParam(entry, "list", {"x"}).ok());
  EXPECT_EQ(StringListParam(entry, "list", {"x"}, true).status().message(),
            "p_2018_fig2: params.list must be a non-empty list of strings");
  EXPECT_EQ(NumberListParam(entry, "list", {}).value(), std::vector<double>{});
  EXPECT_EQ(NumberListParam(entry, "s", {}).status().message(),
            "p_2018_fig2: params.s must be a list of numbers");
}

}  // namespace
}  // namespace dissect::analysis::papers
