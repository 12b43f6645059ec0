// What the roofline generator (roofline.cc), its report
// (roofline_render.cc) and the decode-step model (decode_step.cc) share: the
// measured roofs (roofline_ceilings.cc), the operator points and their tally
// per set. Internal to the roofline generators.

#ifndef DISSECT_ANALYSIS_PAPERS_ROOFLINE_ROOFLINE_INTERNAL_H_
#define DISSECT_ANALYSIS_PAPERS_ROOFLINE_ROOFLINE_INTERNAL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/format/format.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_figure.h"
#include "analysis/results/results.h"

namespace dissect::analysis::papers::roofline_internal {

struct Ceiling {
  std::string name;
  double value = 0;
  std::string unit;
  bool measured = true;
  std::string source;
  std::string datasheet;  // the side column
};

struct OpPoint {
  // 0 prefill GEMM, 1 decode GEMV, 2 attention, 3 attention whose working
  // set is under 2 x L2 (beyond_2x_l2 0): its bytes came (partly) from L2.
  int set = 0;
  std::string shape, dtype, note;
  double intensity = 0;
  double tflops = 0;
  const Ceiling* roof = nullptr;
};

inline constexpr int kSets = 4;
inline constexpr int kL2ResidentAttention = 3;
inline const char* const kSetNames[kSets] = {"prefill GEMM", "decode GEMV", "attention",
                                             "attention, L2-resident"};

// The ceilings: the memory roof, one tensor roof per dtype with rows
// (tensor_roof: dtype -> index), the FMA pipe (fma_roof) where known.
struct Roofs {
  std::vector<Ceiling> ceilings;
  std::map<std::string, size_t> tensor_roof;
  std::optional<size_t> fma_roof;
};

// The result files the LLM generators read, by experiment.
struct LlmResultFiles {
  std::vector<const ResultFile*> bandwidth;  // memory_bandwidth
  std::vector<const ResultFile*> gemm;       // cublaslt_gemm
  std::vector<const ResultFile*> attention;  // attention
  // Every file's path, for the figure scripts' provenance lines.
  std::vector<std::string> Paths() const;
};
LlmResultFiles LlmFilesOf(const std::vector<ResultFile>& results);

// "experiment/axis:value/..." of a row, without Google Benchmark's own
// segments.
std::string PointName(const ResultFile& file, const Row& row);

// A number of the file's context (device_l2_bytes, ...), or nullopt.
std::optional<double> ContextNumber(const ResultFile& file, std::string_view key);

// The memory roof of the device: DRAM read bandwidth, the best (footprint,
// bytes in flight) median of 128-bit reads (else the widest read) at
// footprints >= `min_footprint_bytes`. Errors (prefixed with `generator`):
// no memory_bandwidth file, no row at a DRAM footprint.
absl::StatusOr<Ceiling> MemoryCeiling(const std::vector<const ResultFile*>& files,
                                      double min_footprint_bytes, const std::string& generator);

// The default of the LLM generators' param "dram_min_footprint_bytes", the
// smallest memory_bandwidth footprint MemoryCeiling takes as DRAM: 256 MiB.
inline constexpr int64_t kDefaultDramMinFootprintBytes = 268435456;

// The cache param `key` of the measured rows: "hot" or "cold" (default
// `fallback`); anything else is a BadParam.
absl::StatusOr<std::string> CacheParam(const CatalogEntry& entry, const char* key,
                                       const std::string& fallback);

// The best cuBLASLt TFLOP/s of `dtype` (every shape and cache) as a measured
// ceiling called `name`, or nullopt.
std::optional<Ceiling> BestGemm(const std::vector<const ResultFile*>& files,
                                const std::string& dtype, const std::string& name);

// How many points of each set, and how many of them are memory-bound.
struct SetTally {
  int counts[kSets] = {};
  int memory_bound[kSets] = {};
};

// The ceilings table and the text below it.
std::string CeilingsMarkdown(const std::vector<Ceiling>& ceilings, double bandwidth);

// The operators table; counts the points of each set in `tally`.
std::string OperatorsMarkdown(const std::vector<OpPoint>& points, double bandwidth,
                              SetTally& tally);

// The paper's published values (unknown offline) against this GPU's.
MarkdownTable PaperComparison(const CatalogEntry& entry, const std::vector<OpPoint>& points,
                              const Roofs& roofs, double bandwidth);

// The log-log roofline: the points of each set present and the compute
// roofs, with the axes' ranges around them.
void AddRooflineFigure(const std::vector<OpPoint>& points, const std::vector<Ceiling>& ceilings,
                       const SetTally& tally, double bandwidth,
                       const std::vector<std::string>& inputs, PaperFigure& out);

}  // namespace dissect::analysis::papers::roofline_internal

#endif  // DISSECT_ANALYSIS_PAPERS_ROOFLINE_ROOFLINE_INTERNAL_H_
