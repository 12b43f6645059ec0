// The pages of the catalog's pending entries (PendingPage): each matches its
// golden, testdata/pending_pages/<id>.md, so that a change in an entry's
// wording, its pending reason or a lost published value fails here, and a
// new pending entry needs its golden.
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //experiments/drivers/reproduce:pending_pages_test
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "analysis/format/format.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_figure.h"
#include "experiments/drivers/reproduce/reproduce.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/testing/test_util.h"

namespace dissect::reproduce {
namespace {

using ::dissect::analysis::papers::CatalogEntry;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kTarget[] = "//experiments/drivers/reproduce:pending_pages_test";
constexpr char kGoldenDir[] = "experiments/drivers/reproduce/testdata/pending_pages";

std::vector<CatalogEntry> Catalog() {
  absl::StatusOr<std::vector<CatalogEntry>> catalog =
      analysis::papers::LoadCatalog(test_util::Runfile("configs/papers"));
  EXPECT_TRUE(catalog.ok()) << catalog.status();
  return catalog.ok() ? *std::move(catalog) : std::vector<CatalogEntry>{};
}

std::vector<CatalogEntry> PendingEntries() {
  std::vector<CatalogEntry> pending;
  for (CatalogEntry& e : Catalog()) {
    if (!e.ready()) pending.push_back(std::move(e));
  }
  return pending;
}

std::string GoldenPath(const std::string& id) {
  return std::string(kGoldenDir) + "/" + id + ".md";
}

TEST(PendingPages, MatchGoldens) {
  const std::vector<CatalogEntry> pending = PendingEntries();
  // The multi-GPU and cluster papers, the survey, the framework comparison
  // and the entries waiting for a training step or sequence layers.
  EXPECT_GE(pending.size(), 7u);
  for (const CatalogEntry& e : pending) {
    SCOPED_TRACE(e.id);
    const std::string page = PendingPage(e);
    if (auto updated = test_util::UpdateGolden(page, GoldenPath(e.id), kTarget)) {
      EXPECT_EQ(*updated, "");
      continue;
    }
    EXPECT_EQ(page, test_util::ReadText(test_util::Runfile(GoldenPath(e.id))))
        << test_util::StaleGolden(GoldenPath(e.id), kTarget);
  }
}

// A golden without a pending entry (the entry became ready or was renamed)
// is stale.
TEST(PendingPages, EveryGoldenHasAPendingEntry) {
  std::set<std::string> ids;
  for (const CatalogEntry& e : PendingEntries()) ids.insert(e.id);
  std::vector<std::string> orphans;
  std::error_code ec;
  for (const auto& file : std::filesystem::directory_iterator(test_util::Runfile(kGoldenDir), ec)) {
    const std::string id = file.path().stem().string();
    if (ids.count(id) == 0) orphans.push_back(id);
  }
  EXPECT_FALSE(ec) << kGoldenDir << ": " << ec.message();
  EXPECT_THAT(orphans, IsEmpty()) << "goldens in " << kGoldenDir << " without a pending entry";
}

// Each page says why the entry is pending and shows every published value.
TEST(PendingPages, ShowTheReasonAndEveryPublishedValue) {
  for (const CatalogEntry& e : PendingEntries()) {
    SCOPED_TRACE(e.id);
    const std::string page = PendingPage(e);
    EXPECT_THAT(page, HasSubstr("Not reproduced on this GPU: " + e.pending));
    for (const analysis::papers::PublishedValue& p : e.published) {
      EXPECT_THAT(page, HasSubstr(analysis::CellText(analysis::papers::PublishedCell(&p))));
    }
  }
}

// The golden check can fail: an entry that loses a published value no
// longer matches its golden.
TEST(PendingPages, ALostPublishedValueFailsTheGolden) {
  const std::vector<CatalogEntry> pending = PendingEntries();
  const auto with_values = std::find_if(pending.begin(), pending.end(), [](const CatalogEntry& e) {
    return !e.published.empty();
  });
  ASSERT_NE(with_values, pending.end());
  const std::string golden = test_util::ReadText(test_util::Runfile(GoldenPath(with_values->id)));
  ASSERT_EQ(PendingPage(*with_values), golden);
  CatalogEntry changed = *with_values;
  changed.published.pop_back();
  EXPECT_NE(PendingPage(changed), golden);
}

}  // namespace
}  // namespace dissect::reproduce
