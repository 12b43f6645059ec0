// The figure page (FigurePage) on hand-made parts: each analysis setting is
// its own part under its label, its figures in its subfolder, and the
// paper's numbers that no part shows are listed after the parts.
#include <string>
#include <vector>

#include "analysis/format/format.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_figure.h"
#include "experiments/drivers/reproduce/reproduce.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::reproduce {
namespace {

using ::dissect::analysis::papers::CatalogEntry;
using ::dissect::analysis::papers::PublishedValue;
using ::testing::HasSubstr;
using ::testing::Not;

CatalogEntry Entry() {
  CatalogEntry e;
  e.id = "p_2018_x";
  e.title = "T";
  e.year = 2018;
  e.figure = "Figure 3";
  e.generator = "g";
  PublishedValue shown;
  shown.key = "layer";
  shown.quantity = "largest per-layer speedup";
  shown.lo = shown.hi = 2.31;
  shown.unit = "x";
  shown.source = "the authors' README, https://example.org/readme";
  PublishedValue other = shown;
  other.key = "network";
  other.quantity = "whole-network speedup";
  other.lo = other.hi = 1.63;
  other.source = "the abstract, https://example.org/abstract";
  e.published = {shown, other};
  return e;
}

// A part whose comparison table shows `shown`.
PagePart Part(const std::string& heading, const PublishedValue& shown,
              std::vector<std::string> svgs) {
  analysis::MarkdownTable table = analysis::papers::ComparisonTable();
  analysis::papers::AddComparison(table, shown.quantity, &shown, 2.0, "x", "measured");
  PagePart part;
  part.heading = heading;
  part.figure.markdown = "Body of " + heading + ".\n\n" + analysis::RenderMarkdownTable(table);
  part.svgs = std::move(svgs);
  return part;
}

TEST(FigurePage, EachSettingIsAPartWithItsFigures) {
  const CatalogEntry e = Entry();
  const std::string page = FigurePage(
      e,
      {Part("Paper vs this GPU", e.published[0], {"figures/speedup.svg"}),
       Part("The paper's setting: batch 256", e.published[0],
            {"figures/paper_setting/speedup.svg"})},
      {}, "No sweep ran.\n");
  EXPECT_THAT(page, HasSubstr("## Paper vs this GPU\n\nBody of Paper vs this GPU."));
  EXPECT_THAT(page, HasSubstr("## The paper's setting: batch 256\n\nBody of The paper's setting"));
  EXPECT_THAT(page, HasSubstr("![speedup.svg](figures/speedup.svg)"));
  EXPECT_THAT(page, HasSubstr("![speedup.svg](figures/paper_setting/speedup.svg)"));
  EXPECT_LT(page.find("## Paper vs this GPU"), page.find("## The paper's setting"));
  EXPECT_LT(page.find("## The paper's setting"), page.find("## Sweep"));
}

TEST(FigurePage, ListsThePapersNumbersNoPartShows) {
  const CatalogEntry e = Entry();
  const std::string page = FigurePage(e, {Part("Paper vs this GPU", e.published[0], {})}, {}, "");
  const size_t other = page.find("## The paper's other numbers");
  ASSERT_NE(other, std::string::npos) << page;
  const std::string listed = page.substr(other, page.find("## Sweep") - other);
  EXPECT_THAT(listed, HasSubstr("1.63 x (the abstract, https://example.org/abstract)"));
  EXPECT_THAT(listed, Not(HasSubstr("2.31")));
  // Every number shown: no such section.
  const std::string all_shown = FigurePage(
      e,
      {Part("Paper vs this GPU", e.published[0], {}), Part("Setting", e.published[1], {})}, {},
      "");
  EXPECT_THAT(all_shown, Not(HasSubstr("## The paper's other numbers")));
}

}  // namespace
}  // namespace dissect::reproduce
