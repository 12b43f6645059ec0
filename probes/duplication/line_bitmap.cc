// Host reduction of per-SM line bitmaps (see line_bitmap.h).
#include "probes/duplication/line_bitmap.h"

#include <algorithm>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dissect {

uint64_t RegionLines(uint64_t base, uint64_t bytes) {
  if (bytes == 0) return 0;
  return (base + bytes - 1) / kLineBytes - base / kLineBytes + 1;
}

absl::StatusOr<LineBitmaps> LineBitmaps::Create(int sm_slots, uint64_t words_per_sm) {
  if (sm_slots < 0) {
    return absl::InvalidArgumentError(absl::StrCat("sm_slots must be >= 0 (got ", sm_slots, ")"));
  }
  const uint64_t max_words = std::numeric_limits<size_t>::max() / sizeof(uint32_t);
  if (sm_slots > 0 && words_per_sm > max_words / static_cast<uint64_t>(sm_slots)) {
    return absl::ResourceExhaustedError(
        absl::StrCat(sm_slots, " x ", words_per_sm, " bitmap words do not fit in memory"));
  }
  return LineBitmaps(sm_slots, words_per_sm);
}

void LineBitmaps::Set(int sm, uint64_t line) {
  words_[sm * words_per_sm_ + line / 32] |= 1u << (line % 32);
}

bool LineBitmaps::Test(int sm, uint64_t line) const {
  return (words_[sm * words_per_sm_ + line / 32] >> (line % 32)) & 1u;
}

namespace {

uint64_t Popcount(uint32_t bits) { return static_cast<uint64_t>(__builtin_popcount(bits)); }

double Ratio(uint64_t num, uint64_t den) {
  if (den == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(num) / static_cast<double>(den);
}

}  // namespace

DuplicationStats ComputeDuplication(const LineBitmaps& bitmaps, const std::vector<int>& gpc_of_sm) {
  DuplicationStats s;
  const int slots = bitmaps.sm_slots();
  const uint64_t words = bitmaps.words_per_sm();
  s.sm_lines.assign(slots, 0);
  s.has_gpc_map = !gpc_of_sm.empty();

  // The unit of each SM slot: its GPC id, or for an unmapped SM a unit of
  // its own after the GPCs.
  int gpc_count = 0;
  for (int g : gpc_of_sm) gpc_count = std::max(gpc_count, g + 1);
  std::vector<int> unit_of(slots);
  int units = gpc_count;
  for (int sm = 0; sm < slots; ++sm) {
    const bool mapped = sm < static_cast<int>(gpc_of_sm.size()) && gpc_of_sm[sm] >= 0;
    unit_of[sm] = mapped ? gpc_of_sm[sm] : units++;
  }
  std::vector<uint64_t> unit_lines(units, 0);
  std::vector<uint32_t> unit_word(units);

  for (uint64_t w = 0; w < words; ++w) {
    uint32_t all = 0;
    std::fill(unit_word.begin(), unit_word.end(), 0u);
    for (int sm = 0; sm < slots; ++sm) {
      const uint32_t bits = bitmaps.Row(sm)[w];
      if (bits == 0) continue;
      all |= bits;
      unit_word[unit_of[sm]] |= bits;
      s.sm_lines[sm] += Popcount(bits);
    }
    s.lines_touched += Popcount(all);
    if (all == 0) continue;
    for (int u = 0; u < units; ++u) unit_lines[u] += Popcount(unit_word[u]);
  }

  for (int sm = 0; sm < slots; ++sm) {
    s.sm_lines_sum += s.sm_lines[sm];
    if (s.sm_lines[sm] == 0) continue;
    ++s.sms_used;
    if (s.has_gpc_map && unit_of[sm] >= gpc_count) s.unmapped_sms.push_back(sm);
  }
  s.replication = Ratio(s.sm_lines_sum, s.lines_touched);
  s.duplicated_fraction =
      s.lines_touched == 0 ? Ratio(0, 0) : 1.0 - Ratio(s.lines_touched, s.sm_lines_sum);

  for (uint64_t lines : unit_lines) s.unit_lines_sum += lines;
  s.gpc_lines.assign(unit_lines.begin(), unit_lines.begin() + gpc_count);
  for (uint64_t lines : s.gpc_lines) s.gpcs_used += lines > 0 ? 1 : 0;
  const bool gpc_defined = s.has_gpc_map && s.lines_touched > 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.gpc_replication = gpc_defined ? Ratio(s.sm_lines_sum, s.unit_lines_sum) : nan;
  s.gpc_duplicated_fraction = gpc_defined ? 1.0 - Ratio(s.unit_lines_sum, s.sm_lines_sum) : nan;
  s.cross_gpc_replication = gpc_defined ? Ratio(s.unit_lines_sum, s.lines_touched) : nan;
  s.cross_gpc_duplicated_fraction =
      gpc_defined ? 1.0 - Ratio(s.lines_touched, s.unit_lines_sum) : nan;

  if (s.lines_touched == 0) s.undefined_reason = "no line touched";
  if (!s.has_gpc_map) {
    s.undefined_reason =
        s.undefined_reason.empty() ? "no GPC map" : s.undefined_reason + ", no GPC map";
  }
  return s;
}

}  // namespace dissect
