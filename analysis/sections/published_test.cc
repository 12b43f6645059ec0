// Tests for the published-values reader and for the repository's
// configs/published/memory_hierarchy.json.

#include "analysis/sections/published.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "analysis/sections/published_embedded.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using test_util::ProjectInternalPhrase;
using test_util::ReadText;
using test_util::Runfile;
using test_util::UnfollowableSource;
using ::testing::HasSubstr;

constexpr char kConfig[] = "configs/published/memory_hierarchy.json";

std::string Msg(const absl::Status& status) {
  return std::string(status.message());
}

// One valid entry; `replace` edits its text before parsing.
constexpr char kEntry[] = R"({
  "device": {"name_contains": ["H100"], "compute_capability": "9.0"},
  "measured_on": "GPU X",
  "level": "L1",
  "quantity": "latency_cycles",
  "value": 40.5,
  "unit": "cycles",
  "source": {"authors": "A. Author, B. Author", "title": "T", "venue": "V 2024",
             "year": 2024, "where": "Table 1"},
  "note": "n"
})";

absl::StatusOr<std::vector<PublishedValue>> ParseEntry(
    const std::string& from = "", const std::string& to = "") {
  std::string entry = kEntry;
  if (!from.empty()) {
    const std::string edited = absl::StrReplaceAll(entry, {{from, to}});
    EXPECT_NE(edited, entry) << "edit not applied: " << from;
    entry = edited;
  }
  return ParsePublishedJson(
      absl::StrCat(R"({"format": "dissect.published.v1", "entries": [)", entry,
                   "]}"),
      "p.json");
}

TEST(ParsePublishedJsonTest, ReadsAnEntry) {
  absl::StatusOr<std::vector<PublishedValue>> values = ParseEntry();
  ASSERT_TRUE(values.ok()) << values.status();
  ASSERT_EQ(values->size(), 1u);
  const PublishedValue& v = values->front();
  EXPECT_EQ(v.device.name_contains, std::vector<std::string>{"H100"});
  EXPECT_EQ(v.device.compute_capability, "9.0");
  EXPECT_EQ(v.level, "L1");
  EXPECT_EQ(v.value, 40.5);
  EXPECT_EQ(v.source.year, 2024);
  EXPECT_EQ(v.note, "n");
  EXPECT_EQ(ShortCitation(v.source), "Author et al., V 2024, Table 1");
}

TEST(ParsePublishedJsonTest, RejectsBadEntries) {
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      {"\"L1\"", "\"L3\"", "level \"L3\" is not one of"},
      {"latency_cycles", "latency_us", "unknown quantity \"latency_us\""},
      {"\"cycles\"", "\"ns\"", "unit of latency_cycles must be \"cycles\""},
      {"40.5", "-1", "needs a positive number \"value\""},
      {"\"where\": \"Table 1\"", "\"where\": \"\"", "\"where\" is empty"},
      {"\"year\": 2024, ", "", "needs an integer \"year\""},
      {"\"title\": \"T\", ", "", "has no \"title\""},
      {R"("name_contains": ["H100"], "compute_capability": "9.0")", "",
       "needs name_contains and/or compute_capability"},
      {"\"note\": \"n\"", "\"notes\": \"n\"", "unknown key \"notes\""},
      {"\"measured_on\": \"GPU X\",", "", "has no \"measured_on\""},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<PublishedValue>> values =
        ParseEntry(c.from, c.to);
    ASSERT_FALSE(values.ok()) << c.from;
    EXPECT_THAT(Msg(values.status()), HasSubstr(c.message));
    EXPECT_THAT(Msg(values.status()), HasSubstr("p.json: entries[0]"));
  }
}

TEST(ParsePublishedJsonTest, RejectsBadFiles) {
  EXPECT_THAT(Msg(ParsePublishedJson("{", "p.json").status()),
              HasSubstr("p.json: malformed JSON"));
  EXPECT_THAT(Msg(ParsePublishedJson(R"({"entries": []})", "p.json").status()),
              HasSubstr("\"format\" must be \"dissect.published.v1\""));
  EXPECT_THAT(
      Msg(ParsePublishedJson(R"({"format": "dissect.published.v1"})", "p.json")
              .status()),
      HasSubstr("no \"entries\" array"));
}

TEST(DeviceMatchesTest, NameAndComputeCapability) {
  DeviceMatch match;
  match.name_contains = {"h100", "H800 PCIe"};
  EXPECT_TRUE(DeviceMatches(match, "NVIDIA H100 80GB HBM3", "9.0"));
  EXPECT_TRUE(DeviceMatches(match, "NVIDIA H800 PCIe", "9.0"));
  EXPECT_FALSE(DeviceMatches(match, "NVIDIA A100-PCIE-40GB", "8.0"));
  match.compute_capability = "9.0";
  EXPECT_FALSE(DeviceMatches(match, "NVIDIA H100 80GB HBM3", "8.0"));
  DeviceMatch cc_only;
  cc_only.compute_capability = "8.0";
  EXPECT_TRUE(DeviceMatches(cc_only, "anything", "8.0"));
  EXPECT_FALSE(DeviceMatches(cc_only, "anything", "8.6"));
}

TEST(ParsePublishedJsonTest, ReadsRanges) {
  absl::StatusOr<std::vector<PublishedValue>> both =
      ParseEntry("\"value\": 40.5", "\"range\": [30, 45]");
  ASSERT_TRUE(both.ok()) << both.status();
  const PublishedValue& v = (*both)[0];
  EXPECT_TRUE(IsRange(v));
  EXPECT_EQ(v.range_low, 30);
  EXPECT_EQ(v.range_high, 45);
  EXPECT_TRUE(InRange(v, 30));
  EXPECT_TRUE(InRange(v, 45));
  EXPECT_FALSE(InRange(v, 29.9));
  EXPECT_FALSE(InRange(v, 45.1));
  absl::StatusOr<std::vector<PublishedValue>> low_only =
      ParseEntry("\"value\": 40.5", "\"range\": [120, null]");
  ASSERT_TRUE(low_only.ok()) << low_only.status();
  EXPECT_FALSE((*low_only)[0].range_high.has_value());
  EXPECT_TRUE(InRange((*low_only)[0], 1e9));
  EXPECT_FALSE(InRange((*low_only)[0], 119));
  absl::StatusOr<std::vector<PublishedValue>> value = ParseEntry();
  ASSERT_TRUE(value.ok());
  EXPECT_FALSE(IsRange((*value)[0]));
}

TEST(ParsePublishedJsonTest, RejectsBadRanges) {
  for (const char* range :
       {"[45, 30]", "[null, null]", "[30]", "[30, 45, 60]", "[0, 45]",
        "[30, \"45\"]", "30"}) {
    absl::StatusOr<std::vector<PublishedValue>> v =
        ParseEntry("\"value\": 40.5", absl::StrCat("\"range\": ", range));
    ASSERT_FALSE(v.ok()) << range;
    EXPECT_THAT(Msg(v.status()), HasSubstr("\"range\" must be [low, high]"))
        << range;
  }
  absl::StatusOr<std::vector<PublishedValue>> both =
      ParseEntry("\"value\": 40.5,", "\"value\": 40.5, \"range\": [1, 2],");
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(Msg(both.status()),
              HasSubstr("needs exactly one of \"value\" and \"range\""));
  absl::StatusOr<std::vector<PublishedValue>> neither =
      ParseEntry("\"value\": 40.5,", "");
  ASSERT_FALSE(neither.ok());
  EXPECT_THAT(Msg(neither.status()), HasSubstr("needs exactly one of"));
}

// Everything about `v`'s citation that a reader could not follow: a source
// field that is empty or points into the project (UnfollowableSource), no
// address, no plausible year, a note in the project's own words.
std::vector<std::string> CitationProblems(const PublishedValue& v) {
  std::vector<std::string> problems;
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"authors", v.source.authors},
      {"title", v.source.title},
      {"venue", v.source.venue},
      {"where", v.source.where}};
  for (const auto& [field, text] : fields) {
    const std::string why = test_util::UnfollowableSource(text);
    if (!why.empty()) problems.push_back(absl::StrCat("source.", field, ": ", why));
  }
  if (v.source.url.empty()) problems.push_back("source.url: missing");
  if (v.source.year <= 2000) problems.push_back("source.year: not a publication year");
  const std::string phrase = test_util::ProjectInternalPhrase(v.note);
  if (!phrase.empty()) problems.push_back(absl::StrCat("note: says \"", phrase, "\""));
  return problems;
}

TEST(CitationProblemsTest, RefusesASourceInTheProjectsIssues) {
  absl::StatusOr<std::vector<PublishedValue>> cited =
      ParseEntry("\"where\": \"Table 1\"",
                 "\"where\": \"Table 1\", \"url\": \"https://example.org/paper\"");
  ASSERT_TRUE(cited.ok()) << cited.status();
  EXPECT_THAT(CitationProblems(cited->front()), ::testing::IsEmpty());
  struct Case {
    std::string from, to, problem;
  };
  const std::vector<Case> cases = {
      {"\"venue\": \"V 2024\"", "\"venue\": \"dissect issue tracker, issue 3\"",
       "source.venue: the source points into the project's issues"},
      {"\"where\": \"Table 1\"", "\"where\": \"quoted in issue 16\"",
       "source.where: the source points into the project's issues"},
      {"\"authors\": \"A. Author, B. Author\"", "\"authors\": \"dissect maintainers\"",
       "source.authors: the source says \"dissect maintainers\""},
      {"\"note\": \"n\"", "\"note\": \"not re-read in this session\"",
       "note: says \"session\""},
      {"\"note\": \"n\"", "\"note\": \"the paper was not available offline\"",
       "note: says \"offline\""},
      {"\"year\": 2024", "\"year\": 0", "source.year: not a publication year"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<PublishedValue>> v = ParseEntry(c.from, c.to);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_THAT(CitationProblems(v->front()), ::testing::Contains(HasSubstr(c.problem)))
        << c.to;
  }
  EXPECT_THAT(CitationProblems(ParseEntry().value().front()),
              ::testing::Contains("source.url: missing"));
}

TEST(RepositoryFileTest, ParsesAndCitesEveryValue) {
  absl::StatusOr<std::vector<PublishedValue>> values =
      ParsePublishedJson(test_util::ReadText(test_util::Runfile(kConfig)), kConfig);
  ASSERT_TRUE(values.ok()) << values.status();
  ASSERT_FALSE(values->empty());
  for (const PublishedValue& v : *values) {
    EXPECT_THAT(CitationProblems(v), ::testing::IsEmpty())
        << v.measured_on << ": " << v.level << " " << v.quantity;
  }
}

TEST(RepositoryFileTest, HasHopperValuesForAnH100) {
  absl::StatusOr<std::vector<PublishedValue>> values =
      ParsePublishedJson(test_util::ReadText(test_util::Runfile(kConfig)), kConfig);
  ASSERT_TRUE(values.ok()) << values.status();
  int h800_latencies = 0;
  std::vector<std::string> h100_values;
  for (const PublishedValue& v : *values) {
    if (!DeviceMatches(v.device, "NVIDIA H100 80GB HBM3", "9.0")) continue;
    if (v.measured_on.find("H800") != std::string::npos &&
        v.quantity == "latency_cycles") {
      ++h800_latencies;
      EXPECT_THAT(v.source.title, HasSubstr("Hopper"));
    }
    if (v.measured_on.find("H100") != std::string::npos) {
      h100_values.push_back(v.level + " " + v.quantity);
    }
  }
  EXPECT_EQ(h800_latencies, 4);  // shared, L1, L2, DRAM
  // Measured on an H100 SXM5 (published H100 numbers with their sources).
  EXPECT_THAT(h100_values,
              ::testing::UnorderedElementsAre(
                  "shared latency_cycles", "L1 latency_cycles", "L2 latency_cycles",
                  "DRAM latency_cycles", "shared bandwidth_bytes_per_clk_per_sm",
                  "L1 bandwidth_bytes_per_clk_per_sm"));
}

TEST(RepositoryFileTest, BuiltInCopyIsTheFile) {
  EXPECT_EQ(std::string(kEmbeddedPublishedJson), test_util::ReadText(test_util::Runfile(kConfig)));
}

}  // namespace
}  // namespace dissect::analysis
