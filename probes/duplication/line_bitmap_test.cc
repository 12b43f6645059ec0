#include "probes/duplication/line_bitmap.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

LineBitmaps Make(const std::vector<std::vector<uint64_t>>& lines_of_sm, uint64_t words) {
  absl::StatusOr<LineBitmaps> b = LineBitmaps::Create(static_cast<int>(lines_of_sm.size()), words);
  EXPECT_TRUE(b.ok()) << b.status();
  for (size_t sm = 0; sm < lines_of_sm.size(); ++sm) {
    for (uint64_t line : lines_of_sm[sm]) b->Set(static_cast<int>(sm), line);
  }
  return *std::move(b);
}

TEST(RegionLinesTest, CountsFromTheAlignedBase) {
  EXPECT_EQ(RegionLines(0, 0), 0u);
  EXPECT_EQ(RegionLines(4096, 0), 0u);
  EXPECT_EQ(RegionLines(0, 1), 1u);
  EXPECT_EQ(RegionLines(0, 128), 1u);
  EXPECT_EQ(RegionLines(0, 129), 2u);
  EXPECT_EQ(RegionLines(64, 128), 2u);
  EXPECT_EQ(RegionLines(127, 2), 2u);
  EXPECT_EQ(RegionLines(256, 4 * 128), 4u);
  EXPECT_EQ(WordsForLines(0), 0u);
  EXPECT_EQ(WordsForLines(1), 1u);
  EXPECT_EQ(WordsForLines(32), 1u);
  EXPECT_EQ(WordsForLines(33), 2u);
}

TEST(LineBitmapsTest, DeviceLayout) {
  LineBitmaps b = Make({{}, {0, 33}}, 2);
  EXPECT_EQ(b.bytes(), 2u * 2 * sizeof(uint32_t));
  EXPECT_EQ(b.lines_per_sm(), 64u);
  // Row 1, word 0 bit 0 and word 1 bit 1.
  EXPECT_EQ(b.data()[0], 0u);
  EXPECT_EQ(b.data()[1], 0u);
  EXPECT_EQ(b.data()[2], 1u);
  EXPECT_EQ(b.data()[3], 2u);
  EXPECT_TRUE(b.Test(1, 33));
  EXPECT_FALSE(b.Test(0, 33));
  EXPECT_EQ(b.Row(1), b.data() + 2);
}

TEST(LineBitmapsTest, RejectsBadSizes) {
  EXPECT_EQ(LineBitmaps::Create(-1, 4).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LineBitmaps::Create(1 << 30, uint64_t{1} << 62).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(LineBitmaps::Create(0, 0).ok());
}

// 4 SMs in 2 GPCs (SMs 0, 1 in GPC 0; 2, 3 in GPC 1), lines chosen so that
// every figure is known by hand:
//   SM0 {0,1,2,3}  SM1 {2,3,4}  SM2 {3,5}  SM3 {6,40}
//   distinct {0,1,2,3,4,5,6,40} = 8, sum 4+3+2+2 = 11
//   GPC0 {0..4} = 5, GPC1 {3,5,6,40} = 4, unit sum 9
const std::vector<std::vector<uint64_t>> kFourSms = {{0, 1, 2, 3}, {2, 3, 4}, {3, 5}, {6, 40}};

void ExpectHandFigures(const DuplicationStats& s) {
  EXPECT_EQ(s.lines_touched, 8u);
  EXPECT_EQ(s.sm_lines_sum, 11u);
  EXPECT_EQ(s.sm_lines, (std::vector<uint64_t>{4, 3, 2, 2}));
  EXPECT_EQ(s.sms_used, 4);
  EXPECT_DOUBLE_EQ(s.replication, 11.0 / 8);
  EXPECT_DOUBLE_EQ(s.duplicated_fraction, 3.0 / 11);
  EXPECT_EQ(s.unit_lines_sum, 9u);
  EXPECT_DOUBLE_EQ(s.gpc_replication, 11.0 / 9);
  EXPECT_DOUBLE_EQ(s.gpc_duplicated_fraction, 2.0 / 11);
  EXPECT_DOUBLE_EQ(s.cross_gpc_replication, 9.0 / 8);
  EXPECT_DOUBLE_EQ(s.cross_gpc_duplicated_fraction, 1.0 / 9);
  EXPECT_DOUBLE_EQ(s.gpc_replication * s.cross_gpc_replication, s.replication);
  EXPECT_TRUE(s.defined());
}

TEST(ComputeDuplicationTest, FourSmsTwoGpcsByHand) {
  const DuplicationStats s = ComputeDuplication(Make(kFourSms, 2), {0, 0, 1, 1});
  ExpectHandFigures(s);
  EXPECT_TRUE(s.has_gpc_map);
  EXPECT_EQ(s.gpcs_used, 2);
  EXPECT_EQ(s.gpc_lines, (std::vector<uint64_t>{5, 4}));
  EXPECT_TRUE(s.unmapped_sms.empty());
  EXPECT_EQ(s.undefined_reason, "");
}

// SM 2 marked -1 and SM 3 beyond the map: each is a unit of its own, here
// with the same unit sum (GPC1 had no line of SM2 in SM3).
TEST(ComputeDuplicationTest, UnmappedSmsAreUnitsOfTheirOwn) {
  const DuplicationStats s = ComputeDuplication(Make(kFourSms, 2), {0, 0, -1});
  ExpectHandFigures(s);
  EXPECT_EQ(s.unmapped_sms, (std::vector<int>{2, 3}));
  EXPECT_EQ(s.gpcs_used, 1);
  EXPECT_EQ(s.gpc_lines, (std::vector<uint64_t>{5}));
}

// Two unmapped SMs with the same line are two units, not one: units
// GPC0 {0,1}, SM1 {1}, SM2 {1}, unit sum 4 (one merged unit would give 3).
TEST(ComputeDuplicationTest, UnmappedSmsSharingALineStayApart) {
  const DuplicationStats s = ComputeDuplication(Make({{0, 1}, {1}, {1}}, 1), {0, -1, -1});
  EXPECT_EQ(s.lines_touched, 2u);
  EXPECT_EQ(s.sm_lines_sum, 4u);
  EXPECT_EQ(s.unit_lines_sum, 4u);
  EXPECT_DOUBLE_EQ(s.gpc_replication, 1.0);
  EXPECT_DOUBLE_EQ(s.cross_gpc_replication, 2.0);
  EXPECT_EQ(s.unmapped_sms, (std::vector<int>{1, 2}));
}

TEST(ComputeDuplicationTest, GpcIdsNeedNotBeDense) {
  // GPC 0 empty, SMs in GPCs 3 and 1.
  const DuplicationStats s = ComputeDuplication(Make(kFourSms, 2), {3, 3, 1, 1});
  ExpectHandFigures(s);
  EXPECT_EQ(s.gpc_lines, (std::vector<uint64_t>{0, 4, 0, 5}));
  EXPECT_EQ(s.gpcs_used, 2);
}

TEST(ComputeDuplicationTest, NoGpcMapLeavesGpcFiguresUndefined) {
  const DuplicationStats s = ComputeDuplication(Make(kFourSms, 2), {});
  EXPECT_EQ(s.lines_touched, 8u);
  EXPECT_DOUBLE_EQ(s.replication, 11.0 / 8);
  EXPECT_FALSE(s.has_gpc_map);
  EXPECT_TRUE(std::isnan(s.gpc_replication));
  EXPECT_TRUE(std::isnan(s.gpc_duplicated_fraction));
  EXPECT_TRUE(std::isnan(s.cross_gpc_replication));
  EXPECT_TRUE(std::isnan(s.cross_gpc_duplicated_fraction));
  EXPECT_TRUE(s.unmapped_sms.empty());
  EXPECT_EQ(s.undefined_reason, "no GPC map");
}

TEST(ComputeDuplicationTest, EmptyTraceHasNoRatios) {
  for (const DuplicationStats& s :
       {ComputeDuplication(Make({{}, {}, {}}, 4), {0, 0, 1}), ComputeDuplication(Make({}, 0), {}),
        ComputeDuplication(Make({{}, {}}, 0), {0, 1})}) {
    EXPECT_EQ(s.lines_touched, 0u);
    EXPECT_EQ(s.sm_lines_sum, 0u);
    EXPECT_EQ(s.sms_used, 0);
    EXPECT_FALSE(s.defined());
    EXPECT_TRUE(std::isnan(s.replication));
    EXPECT_TRUE(std::isnan(s.duplicated_fraction));
    EXPECT_TRUE(std::isnan(s.gpc_replication));
    EXPECT_TRUE(std::isnan(s.cross_gpc_duplicated_fraction));
    EXPECT_NE(s.undefined_reason.find("no line touched"), std::string::npos);
  }
}

TEST(ComputeDuplicationTest, DisjointAndIdenticalSms) {
  const DuplicationStats disjoint = ComputeDuplication(Make({{0, 1}, {2}, {31, 32}}, 2), {0, 0, 1});
  EXPECT_DOUBLE_EQ(disjoint.replication, 1.0);
  EXPECT_DOUBLE_EQ(disjoint.duplicated_fraction, 0.0);
  EXPECT_DOUBLE_EQ(disjoint.gpc_replication, 1.0);
  EXPECT_DOUBLE_EQ(disjoint.cross_gpc_replication, 1.0);
  EXPECT_EQ(disjoint.sms_used, 3);

  const std::vector<uint64_t> same = {1, 7, 63};
  const DuplicationStats identical =
      ComputeDuplication(Make({same, same, same, same}, 2), {0, 0, 1, 1});
  EXPECT_DOUBLE_EQ(identical.replication, 4.0);
  EXPECT_DOUBLE_EQ(identical.duplicated_fraction, 0.75);
  EXPECT_DOUBLE_EQ(identical.gpc_replication, 2.0);
  EXPECT_DOUBLE_EQ(identical.gpc_duplicated_fraction, 0.5);
  EXPECT_DOUBLE_EQ(identical.cross_gpc_replication, 2.0);
  EXPECT_DOUBLE_EQ(identical.cross_gpc_duplicated_fraction, 0.5);
}

// A naive implementation over std::set, against random traces.
struct Naive {
  std::set<uint64_t> all;
  uint64_t sum = 0;
  std::map<int, std::set<uint64_t>> units;  // GPC id, or -1 - sm for unmapped
};

TEST(ComputeDuplicationTest, MatchesNaiveSetsOnRandomTraces) {
  std::mt19937_64 rng(20240514);
  for (int trial = 0; trial < 300; ++trial) {
    const int slots = static_cast<int>(rng() % 20);
    const uint64_t words = rng() % 6;
    const uint64_t lines = words * 32;
    const int gpcs = 1 + static_cast<int>(rng() % 5);
    std::vector<int> gpc_of_sm;
    if (rng() % 4 != 0) {
      gpc_of_sm.resize(rng() % (slots + 2));
      for (int& g : gpc_of_sm) g = static_cast<int>(rng() % (gpcs + 1)) - 1;
    }
    std::vector<std::vector<uint64_t>> lines_of_sm(slots);
    Naive naive;
    for (int sm = 0; sm < slots; ++sm) {
      const int density = static_cast<int>(rng() % 4);  // some SMs empty, some dense
      std::set<uint64_t> mine;
      for (uint64_t l = 0; l < lines; ++l) {
        if (density > 0 && rng() % (4 * density) == 0) mine.insert(l);
      }
      lines_of_sm[sm].assign(mine.begin(), mine.end());
      naive.sum += mine.size();
      naive.all.insert(mine.begin(), mine.end());
      const bool mapped = sm < static_cast<int>(gpc_of_sm.size()) && gpc_of_sm[sm] >= 0;
      naive.units[mapped ? gpc_of_sm[sm] : -1 - sm].insert(mine.begin(), mine.end());
    }
    uint64_t unit_sum = 0;
    for (const auto& [id, set] : naive.units) unit_sum += set.size();

    const DuplicationStats s = ComputeDuplication(Make(lines_of_sm, words), gpc_of_sm);
    SCOPED_TRACE(testing::Message() << "trial " << trial << " slots " << slots << " words " << words
                                    << " map " << gpc_of_sm.size());
    ASSERT_EQ(s.lines_touched, naive.all.size());
    ASSERT_EQ(s.sm_lines_sum, naive.sum);
    for (int sm = 0; sm < slots; ++sm) ASSERT_EQ(s.sm_lines[sm], lines_of_sm[sm].size());
    if (naive.all.empty()) {
      EXPECT_TRUE(std::isnan(s.replication));
      continue;
    }
    EXPECT_DOUBLE_EQ(s.replication, double(naive.sum) / naive.all.size());
    EXPECT_DOUBLE_EQ(s.duplicated_fraction, 1.0 - double(naive.all.size()) / naive.sum);
    if (gpc_of_sm.empty()) {
      EXPECT_TRUE(std::isnan(s.gpc_replication));
      continue;
    }
    ASSERT_EQ(s.unit_lines_sum, unit_sum);
    EXPECT_DOUBLE_EQ(s.gpc_replication, double(naive.sum) / unit_sum);
    EXPECT_DOUBLE_EQ(s.gpc_duplicated_fraction, 1.0 - double(unit_sum) / naive.sum);
    EXPECT_DOUBLE_EQ(s.cross_gpc_replication, double(unit_sum) / naive.all.size());
    EXPECT_DOUBLE_EQ(s.cross_gpc_duplicated_fraction, 1.0 - double(naive.all.size()) / unit_sum);
    // replication = within x across, up to rounding of the two quotients.
    EXPECT_NEAR(s.gpc_replication * s.cross_gpc_replication, s.replication, 1e-12 * s.replication);
    // and the same identity on the fractions: (1 - d) = (1 - dw)(1 - da).
    EXPECT_NEAR((1 - s.gpc_duplicated_fraction) * (1 - s.cross_gpc_duplicated_fraction),
                1 - s.duplicated_fraction, 1e-12);
    for (int sm : s.unmapped_sms) {
      EXPECT_GT(s.sm_lines[sm], 0u);
      EXPECT_TRUE(sm >= static_cast<int>(gpc_of_sm.size()) || gpc_of_sm[sm] < 0);
    }
  }
}

}  // namespace
}  // namespace dissect
