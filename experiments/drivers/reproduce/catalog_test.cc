// The paper catalog's check, on the CPU: every
// configs/papers/*.json parses, names an analysis generator that exists and
// that refuses empty results (it never draws a figure from nothing), and its
// sweep is accepted by the experiment binaries themselves (`BIN --list` with
// the entry's axes and flags, as //experiments/drivers/sweep:sweeps_schema_test does
// for the sweep files).
//
// Arguments (from BUILD): the catalog files and the experiment binaries, as
// runfiles paths.
#include "analysis/papers/catalog.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "analysis/papers/registry.h"
#include "tools/testing/test_util.h"
#include "experiments/drivers/reproduce/reproduce.h"
#include "experiments/drivers/sweep/binary_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::reproduce {
namespace {

using ::dissect::analysis::papers::CatalogEntry;
using test_util::ProjectInternalPhrase;
using test_util::UnfollowableSource;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string>& CatalogFiles() {
  static auto* files = new std::vector<std::string>;
  return *files;
}

std::set<std::string>& Binaries() {
  static auto* binaries = new std::set<std::string>;
  return *binaries;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

// The reading list "GPU Workload Characteristics" (2024-10-30) that the
// catalog draws on names 18 papers, items 1 to 18 (a copy is in the data
// folder beside the checkout, ../shared/data/reading-list/reading-list.md).
// Every item needs at least one catalog entry, ready or pending.
constexpr int kReadingListPapers = 18;

// The reading list's items that no entry of `catalog` names.
std::vector<int> UncoveredItems(const std::vector<CatalogEntry>& catalog) {
  std::set<int> covered;
  for (const CatalogEntry& e : catalog) covered.insert(e.reading_list_item);
  std::vector<int> missing;
  for (int item = 1; item <= kReadingListPapers; ++item) {
    if (covered.count(item) == 0) missing.push_back(item);
  }
  return missing;
}

absl::StatusOr<std::vector<CatalogEntry>> LoadTheCatalog() {
  if (CatalogFiles().empty()) return absl::NotFoundError("no catalog files given");
  return analysis::papers::LoadCatalog(
      std::filesystem::path(CatalogFiles().front()).parent_path().string());
}

// Whether a published number's source names something a reader can open:
// an address, an item of the reading list, or a table, figure or page.
bool NamesADocument(const std::string& source) {
  static const std::regex kPlace(
      "https?://|\\bitem [0-9]+|\\b(Table|Figure|Fig\\.|page|p\\.) ?[0-9IVX]");
  return std::regex_search(source, kPlace);
}

// Every text of `e` a user reads (the figure, claim, published values, the
// sweep's reasons) in words a reader outside the project could not follow.
std::vector<std::string> ReaderProblems(const CatalogEntry& e) {
  std::vector<std::pair<std::string, std::string>> texts = {
      {"paper.title", e.title},
      {"paper.authors", e.authors},
      {"paper.venue", e.venue},
      {"figure", e.figure},
      {"claim", e.claim},
      {"expected_signature", e.expected_signature},
      {"expected_differences", e.expected_differences},
      {"pending", e.pending}};
  for (const analysis::papers::AnalysisSetting& setting : e.settings) {
    texts.push_back({"analysis.settings " + setting.id + " label", setting.label});
  }
  std::vector<std::string> problems;
  for (size_t i = 0; i < e.published.size(); ++i) {
    const analysis::papers::PublishedValue& p = e.published[i];
    const std::string where = "published[" + std::to_string(i) + "].";
    texts.push_back({where + "quantity", p.quantity});
    texts.push_back({where + "why", p.why});
    if (!p.known()) continue;
    std::string unfollowable = test_util::UnfollowableSource(p.source);
    if (unfollowable.empty() && !NamesADocument(p.source)) {
      unfollowable =
          "it names no document a reader can open (an address, the reading list's item, a "
          "table, figure or page)";
    }
    if (!unfollowable.empty()) problems.push_back(e.path + ": " + where + "source: " + unfollowable);
  }
  for (const auto& sweep_entry : e.sweep["entries"]) {
    if (sweep_entry.contains("why") && sweep_entry["why"].is_string()) {
      texts.push_back({"sweep entry " + sweep_entry.value("id", std::string()) + " why",
                       sweep_entry["why"].get<std::string>()});
    }
  }
  for (const auto& [field, text] : texts) {
    const std::string phrase = test_util::ProjectInternalPhrase(text);
    if (!phrase.empty()) {
      problems.push_back(e.path + ": " + field + " uses a project-internal phrase (\"" + phrase +
                         "\"); say what a reader needs to know");
    }
  }
  return problems;
}

// Every problem of one catalog file, one line each.
std::vector<std::string> CheckEntry(const std::string& path) {
  absl::StatusOr<CatalogEntry> entry = analysis::papers::ParseCatalogEntry(ReadAll(path), path);
  if (!entry.ok()) return {std::string(entry.status().message())};
  std::vector<std::string> problems = ReaderProblems(*entry);
  if (entry->reading_list_item < 1 || entry->reading_list_item > kReadingListPapers) {
    problems.push_back(path + ": paper.reading_list_item: must name the paper's item (1.." +
                       std::to_string(kReadingListPapers) + ") in the reading list");
  }
  const analysis::papers::Generator generator = analysis::papers::FindGenerator(entry->generator);
  if (entry->generator.empty() && !entry->ready()) {
    // A pending entry whose experiment is not built yet names no analysis.
  } else if (generator == nullptr) {
    problems.push_back(path + ": analysis.generator '" + entry->generator + "' is not one of: " +
                       absl::StrJoin(analysis::papers::GeneratorNames(), ", "));
  } else if (generator(*entry, {}).ok()) {
    problems.push_back(path + ": generator '" + entry->generator +
                       "' made a figure from no results at all");
  } else {
    // A setting's params are read before the (absent) results: a bad one
    // is refused as an invalid argument.
    for (const analysis::papers::AnalysisSetting& setting : entry->settings) {
      const absl::Status made = generator(entry->InSetting(setting), {}).status();
      if (made.ok() || absl::IsInvalidArgument(made)) {
        problems.push_back(path + ": analysis.settings " + setting.id + ": " +
                           (made.ok() ? std::string("made a figure from no results at all")
                                      : std::string(made.message())));
      }
    }
  }
  if (!entry->ready() && entry->sweep["entries"].empty()) return problems;
  absl::StatusOr<sweep::Sweep> sweep = EntrySweep(*entry);
  if (!sweep.ok()) {
    problems.push_back(std::string(sweep.status().message()));
    return problems;
  }
  for (const sweep::SweepEntry& e : sweep->entries) {
    if (e.why.empty()) {
      problems.push_back(path + ": sweep entry \"" + e.id + "\" has no \"why\"");
    }
  }
  for (std::string& p : sweep::CheckAgainstBinaries(*sweep, Binaries())) {
    problems.push_back(std::move(p));
  }
  return problems;
}

TEST(Catalog, HasTenReadyReproductions) {
  int ready = 0;
  for (const std::string& file : CatalogFiles()) {
    absl::StatusOr<CatalogEntry> entry = analysis::papers::ParseCatalogEntry(ReadAll(file), file);
    if (entry.ok() && entry->ready()) ++ready;
  }
  EXPECT_GE(ready, 10) << "the catalog should hold at least ten ready reproductions";
  EXPECT_FALSE(Binaries().empty());
}

TEST(Catalog, EveryEntryIsValid) {
  for (const std::string& file : CatalogFiles()) {
    SCOPED_TRACE(file);
    EXPECT_THAT(CheckEntry(file), IsEmpty());
  }
}

TEST(Catalog, CoversEveryPaperOfTheReadingList) {
  absl::StatusOr<std::vector<CatalogEntry>> catalog = LoadTheCatalog();
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_THAT(UncoveredItems(*catalog), IsEmpty())
      << "reading-list items without a catalog entry (ready or pending)";
}

// The coverage check can fail: without the entries of one paper, its item
// is reported.
TEST(Catalog, APaperWithoutAnEntryFailsTheCoverageCheck) {
  absl::StatusOr<std::vector<CatalogEntry>> catalog = LoadTheCatalog();
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  ASSERT_FALSE(catalog->empty());
  const int item = catalog->front().reading_list_item;
  std::vector<CatalogEntry> without;
  for (const CatalogEntry& e : *catalog) {
    if (e.reading_list_item != item) without.push_back(e);
  }
  EXPECT_THAT(UncoveredItems(without), ::testing::Contains(item));
}

TEST(Catalog, LoadsAsOneCatalogWithUniqueIds) {
  absl::StatusOr<std::vector<CatalogEntry>> catalog = LoadTheCatalog();
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_EQ(catalog->size(), CatalogFiles().size());
  std::set<std::string> ids;
  for (const CatalogEntry& e : *catalog) EXPECT_TRUE(ids.insert(e.id).second) << e.id;
  const std::string listing = ListCatalog(*catalog);
  for (const CatalogEntry& e : *catalog) {
    EXPECT_THAT(listing, HasSubstr(e.id + "  [" + (e.ready() ? "ready" : "pending") + "]"));
    if (!e.ready()) {
      EXPECT_THAT(listing, HasSubstr("  pending: " + e.pending));
    }
  }
}

// The check itself: each kind of broken entry is caught and named.
TEST(Catalog, ABrokenEntryFailsTheCheck) {
  const std::string head = R"({
  "format": "dissect.paper.v1",
  "paper": {"key": "broken_2000", "title": "T", "authors": "A", "year": 2000, "venue": "V"},
  "figure": "Figure 1", "claim": "c", "status": "ready",
  "expected_signature": "s", "expected_differences": "d",)";
  struct Case {
    std::string name, body, expected;
  };
  const std::vector<Case> cases = {
      {"unknown_generator",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5,
           "axes": {"bytes": "64MiB"}}]},
         "analysis": {"generator": "no_such_generator"}, "published": []})",
       "analysis.generator 'no_such_generator' is not one of"},
      {"unknown_axis",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5,
           "axes": {"bytez": "64MiB"}}]},
         "analysis": {"generator": "latency_pair"}, "published": []})",
       "unknown axis 'bytez'"},
      {"unknown_experiment",
       R"("sweep": {"entries": [{"id": "a", "experiment": "no_such_experiment", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"}, "published": []})",
       "binary experiments/no_such_experiment is not an experiment this test depends on"},
      {"invented_number",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"},
         "published": [{"key": "k", "quantity": "q", "value": 38, "unit": "cycles"}]})",
       "a published number needs where it comes from"},
      {"source_in_an_issue",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"},
         "published": [{"key": "k", "quantity": "q", "value": 38, "unit": "cycles",
                        "source": "quoted in issue 16"}]})",
       "published[0].source: the source points into the project's issues"},
      {"source_names_no_document",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"},
         "published": [{"key": "k", "quantity": "q", "value": 38, "unit": "cycles",
                        "source": "abstract"}]})",
       "published[0].source: it names no document a reader can open"},
      {"source_is_an_issue_number",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"},
         "published": [{"key": "k", "quantity": "q", "value": 1.63, "unit": "x",
                        "source": "issue 27"}]})",
       "published[0].source: the source points into the project's issues"},
      {"source_says_see_notes",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"},
         "published": [{"key": "k", "quantity": "q", "value": 1.63, "unit": "x",
                        "source": "see notes"}]})",
       "published[0].source: it names no document a reader can open"},
      {"source_is_empty",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"},
         "published": [{"key": "k", "quantity": "q", "value": 1.63, "unit": "x",
                        "source": ""}]})",
       "published[0].source: a published number needs where it comes from"},
      {"source_is_blank",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"},
         "published": [{"key": "k", "quantity": "q", "value": 1.63, "unit": "x",
                        "source": "   "}]})",
       "published[0].source: the source is empty"},
      {"no_reading_list_item",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"}, "published": []})",
       "paper.reading_list_item: must name the paper's item (1..18)"},
      {"why_in_the_projects_words",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "latency_pair"},
         "published": [{"key": "k", "quantity": "q", "value": "unknown",
                        "why": "the paper was not available offline to this session"}]})",
       "published[0].why uses a project-internal phrase (\"session\")"},
      {"sweep_why_in_the_projects_words",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "time_limit_s": 5,
           "why": "not run: no GPU in the session that wrote it"}]},
         "analysis": {"generator": "latency_pair"}, "published": []})",
       "sweep entry a why uses a project-internal phrase"},
      {"setting_with_a_bad_param",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "workspace_limit",
                      "settings": [{"id": "s", "label": "L", "params": {"batch": "many"}}]},
         "published": []})",
       "analysis.settings s: broken_2000_setting_with_a_bad_param: params.batch must be an integer"},
      {"setting_label_in_the_projects_words",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth", "why": "w", "time_limit_s": 5}]},
         "analysis": {"generator": "workspace_limit",
                      "settings": [{"id": "s", "label": "as asked in issue 27", "params": {"batch": 2}}]},
         "published": []})",
       "analysis.settings s label uses a project-internal phrase"},
      {"no_why",
       R"("sweep": {"entries": [{"id": "a", "experiment": "relu_bandwidth",
           "time_limit_s": 5, "axes": {"bytes": "64MiB"}}]},
         "analysis": {"generator": "latency_pair"}, "published": []})",
       "sweep entry \"a\" has no \"why\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = TmpDir() + "/broken_2000_" + c.name + ".json";
    std::ofstream(path) << head << c.body;
    const std::vector<std::string> problems = CheckEntry(path);
    EXPECT_THAT(absl::StrJoin(problems, "\n"), HasSubstr(c.expected));
  }
}

}  // namespace
}  // namespace dissect::reproduce

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (absl::EndsWith(arg, ".json")) {
      dissect::reproduce::CatalogFiles().push_back(arg);
    } else {
      dissect::reproduce::Binaries().insert(arg);
    }
  }
  return RUN_ALL_TESTS();
}
