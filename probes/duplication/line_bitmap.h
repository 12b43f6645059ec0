// Host side of line tracing for the L1-duplication probe: the per-SM line bitmaps that a
// traced kernel filled (kernels/line_trace.cuh, copied back word for word)
// and their reduction to how much data several SMs loaded alike:
// lines touched, replication and the duplicated fraction, overall, within
// each GPC and across GPCs. No CUDA here: experiments copy the device
// bitmaps into a LineBitmaps and call ComputeDuplication.
#ifndef DISSECT_PROBES_DUPLICATION_LINE_BITMAP_H_
#define DISSECT_PROBES_DUPLICATION_LINE_BITMAP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect {

// Bytes of one traced line (kernels/line_trace.cuh kTraceLineBytes).
inline constexpr uint64_t kLineBytes = 128;

// The lines a region [base, base + bytes) spans, counted from base rounded
// down to a line boundary (as RecordLine numbers them); 0 for no bytes.
uint64_t RegionLines(uint64_t base, uint64_t bytes);

// 32-bit words that hold `lines` bits.
inline uint64_t WordsForLines(uint64_t lines) { return (lines + 31) / 32; }

// sm_slots rows of words_per_sm 32-bit words, row-major: exactly the device
// layout of LineTrace::bitmaps (bit line % 32 of word line / 32 of row sm).
class LineBitmaps {
 public:
  // All bits clear. InvalidArgument for negative slots; ResourceExhausted
  // when sm_slots x words_per_sm does not fit a size_t of bytes.
  static absl::StatusOr<LineBitmaps> Create(int sm_slots, uint64_t words_per_sm);

  int sm_slots() const { return sm_slots_; }
  uint64_t words_per_sm() const { return words_per_sm_; }
  uint64_t lines_per_sm() const { return words_per_sm_ * 32; }
  size_t bytes() const { return words_.size() * sizeof(uint32_t); }

  // The words, for a copy from or to the device.
  uint32_t* data() { return words_.data(); }
  const uint32_t* data() const { return words_.data(); }
  // Row `sm` (words_per_sm words).
  const uint32_t* Row(int sm) const { return words_.data() + sm * words_per_sm_; }

  // Marks / tests `line` of SM slot `sm`; both must be in range.
  void Set(int sm, uint64_t line);
  bool Test(int sm, uint64_t line) const;

 private:
  LineBitmaps(int sm_slots, uint64_t words_per_sm)
      : sm_slots_(sm_slots), words_per_sm_(words_per_sm), words_(sm_slots * words_per_sm) {}

  int sm_slots_ = 0;
  uint64_t words_per_sm_ = 0;
  std::vector<uint32_t> words_;
};

// How much of the traced data several SMs loaded. A line counts once per SM
// whose bitmap has it. Ratios are NaN where undefined: every one when no
// line was touched (defined() false), the GPC figures without a GPC map.
struct DuplicationStats {
  uint64_t lines_touched = 0;  // distinct lines over all SMs
  uint64_t sm_lines_sum = 0;   // sum over SMs of each SM's line count
  double replication = 0;      // sm_lines_sum / lines_touched (>= 1)
  // 1 - lines_touched / sm_lines_sum: the share of per-SM line loads (L1
  // fills at best) that another SM also made.
  double duplicated_fraction = 0;
  int sms_used = 0;                // SMs with at least one line
  std::vector<uint64_t> sm_lines;  // per SM slot: its line count

  // With a GPC map. Units: each GPC (its SMs' lines ORed) and each unmapped
  // SM that touched a line as a unit of its own, so that
  // replication = gpc_replication x cross_gpc_replication holds exactly.
  bool has_gpc_map = false;
  uint64_t unit_lines_sum = 0;  // sum over units of each unit's distinct lines
  // Within GPCs: sm_lines_sum / unit_lines_sum and
  // 1 - unit_lines_sum / sm_lines_sum.
  double gpc_replication = 0;
  double gpc_duplicated_fraction = 0;
  // Across GPCs: unit_lines_sum / lines_touched and
  // 1 - lines_touched / unit_lines_sum.
  double cross_gpc_replication = 0;
  double cross_gpc_duplicated_fraction = 0;
  int gpcs_used = 0;                // GPCs with at least one line
  std::vector<uint64_t> gpc_lines;  // per GPC id (0 .. max id): its distinct lines
  // SM slots that touched a line but have no GPC (id -1 or any negative, or
  // beyond the map).
  std::vector<int> unmapped_sms;

  bool defined() const { return lines_touched > 0; }
  // Why ratios are NaN, "" when none is: "no line touched" and/or
  // "no GPC map".
  std::string undefined_reason;
};

// Reduces the bitmaps. gpc_of_sm[sm] is the GPC of SM slot sm, -1 where
// unknown; empty for no GPC map (GPC figures NaN).
DuplicationStats ComputeDuplication(const LineBitmaps& bitmaps, const std::vector<int>& gpc_of_sm);

}  // namespace dissect

#endif  // DISSECT_PROBES_DUPLICATION_LINE_BITMAP_H_
