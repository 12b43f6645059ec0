// The tensor section's GEMM block: cublaslt_gemm rows graded good, bad or
// ugly against their basis, with the reasons a row falls short.

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "analysis/format/format.h"
#include "analysis/sections/tensor_internal.h"

namespace dissect::analysis::tensor_internal {
namespace {

// GEMM classes by fraction of peak: good, bad, below that ugly.
constexpr double kGood = 0.6;
constexpr double kBad = 0.25;

// Bytes per element of A/B and of C/D for a GEMM dtype.
std::pair<double, double> GemmElementBytes(const std::string& dtype) {
  if (dtype == "fp8") return {1, 2};
  if (dtype == "int8") return {1, 4};
  if (dtype == "fp16" || dtype == "bf16") return {2, 2};
  return {4, 4};
}

// Shape-based explanations of a GEMM row that misses its ceiling. A hot row
// whose A, B and D fit in L2 reads them from L2: the DRAM ridge does not
// apply; one that does not fit reads at least the part beyond the L2's
// capacity from DRAM.
std::string GemmReasons(const Measurement& m, double peak_tflops, const ResultFile& f, int sms) {
  if (!m.shape) return "";
  const GemmShape& s = *m.shape;
  const double dram_gbps = ContextNumber(f, "device_dram_peak_gbps");
  const double l2 = ContextNumber(f, "device_l2_bytes");
  std::vector<std::string> reasons;
  auto misaligned = [](int64_t d) { return d >= 16 && d % 16 != 0; };
  if (misaligned(s.m) || misaligned(s.n) || misaligned(s.k)) {
    reasons.push_back("a dimension is not a multiple of 16 (misaligned rows)");
  }
  const auto [in_bytes, out_bytes] = GemmElementBytes(m.kind.dtype);
  const double flops = 2.0 * s.m * s.n * s.k;
  const double bytes =
      in_bytes * (double(s.m) * s.k + double(s.k) * s.n) + out_bytes * double(s.m) * s.n;
  const bool hot = m.cache != "cold";
  const double ridge =
      dram_gbps > 0 && peak_tflops > 0 ? peak_tflops * 1e12 / (dram_gbps * 1e9) : 0;
  if (hot && l2 > 0 && bytes <= l2) {
    reasons.push_back(
        absl::StrCat("hot: A, B and D (", FormatBytes(bytes), ") fit in the ", FormatBytes(l2),
                     " L2, so a hot run reads them from L2, not DRAM",
                     ridge > 0 ? absl::StrCat(", and DRAM's ridge point (", FormatNumber(ridge),
                                              " FLOP/B; this shape: ", FormatNumber(flops / bytes),
                                              " FLOP/B) applies to its cold run only")
                               : ""));
    if (m.gbps && dram_gbps > 0 && *m.gbps > dram_gbps) {
      reasons.push_back(absl::StrCat(FormatNumber(*m.gbps),
                                     " GB/s of A, B and D: above the DRAM peak "
                                     "of ",
                                     FormatNumber(dram_gbps), " GB/s"));
    }
  } else if (ridge > 0) {
    // Cold: every byte from DRAM; hot: at least what does not fit in L2.
    const double dram_bytes = hot && l2 > 0 ? bytes - l2 : bytes;
    const double intensity = flops / dram_bytes;
    if (intensity < ridge) {
      reasons.push_back(absl::StrCat(
          "memory-bound: ", FormatNumber(intensity), " FLOP per DRAM byte",
          hot && l2 > 0 ? absl::StrCat(" (hot: the ", FormatBytes(dram_bytes), " of ",
                                       FormatBytes(bytes), " beyond the ", FormatBytes(l2), " L2)")
                        : "",
          ", below the ridge point of ", FormatNumber(ridge), " FLOP/B"));
    }
  }
  const int64_t tiles = ((s.m + 127) / 128) * ((s.n + 127) / 128);
  if (sms > 0 && tiles < sms) {
    reasons.push_back(
        absl::StrCat(tiles, " output tiles of 128×128 for ", sms, " SMs: under one wave"));
  }
  return absl::StrJoin(reasons, "; ");
}

std::string ShapeName(const GemmShape& s) { return absl::StrCat(s.m, "x", s.n, "x", s.k); }

// A GEMM row's TFLOP/s over its grading basis (the published peak, else
// the peak @ max boost); nullopt for emulated rows or without a basis.
std::optional<double> OfBasis(const TensorCeilings& d, const Measurement& m) {
  const std::optional<double> basis = d.Basis(m.kind);
  if (!basis || !m.tflops || m.emulated) return std::nullopt;
  return *m.tflops / *basis;
}

// Marks a cell graded on the max boost clock where the product is known.
const char* Fallback(const TensorCeilings& d, const Measurement& m) {
  return d.product != nullptr && !d.Published(m.kind) ? "*" : "";
}

// Cold rows by (dtype value, shape, data), shown beside the hot ones.
using ColdRows = std::map<std::tuple<std::string, std::string, std::string>, const Measurement*>;

ColdRows ColdRowsOf(const std::vector<const Measurement*>& gemm) {
  ColdRows cold;
  for (const Measurement* m : gemm) {
    if (m->shape && m->cache == "cold") cold[{m->dtype_value, ShapeName(*m->shape), m->data}] = m;
  }
  return cold;
}

// Heatmap: shapes (in order of appearance) × dtype values, hot, random data.
std::string GemmHeatmap(const TensorCeilings& d, const std::vector<const Measurement*>& gemm,
                        const std::string& basis_text) {
  std::vector<std::string> shapes, dtypes;
  std::map<std::pair<std::string, std::string>, const Measurement*> cell;
  for (const Measurement* m : gemm) {
    if (!m->shape || m->cache == "cold" || m->data != "random") continue;
    const std::string shape = ShapeName(*m->shape);
    if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
    if (std::find(dtypes.begin(), dtypes.end(), m->dtype_value) == dtypes.end()) {
      dtypes.push_back(m->dtype_value);
    }
    cell[{shape, m->dtype_value}] = m;
  }
  if (shapes.empty()) return "";
  std::string out =
      absl::StrCat("Utilisation heatmap: % of ", basis_text,
                   " (hot, random data; `·` skipped or not run). Shade as the classes "
                   "below: █ good (≥ 60%), ▒ bad (25–60%), ░ ugly (< 25%). "
                   "fp8_fast_accum is fp8 with CUBLASLT_MATMUL_DESC_FAST_ACCUM set; fp8 "
                   "leaves it unset.\n\n");
  std::vector<std::string> header = {"M×N×K"};
  std::vector<bool> right = {false};
  for (const std::string& dt : dtypes) {
    header.push_back(dt);
    right.push_back(true);
  }
  std::vector<std::vector<std::string>> rows;
  for (const std::string& s : shapes) {
    std::vector<std::string> r = {s};
    for (const std::string& dt : dtypes) {
      const auto it = cell.find({s, dt});
      const std::optional<double> p = it == cell.end() ? std::nullopt : OfBasis(d, *it->second);
      if (!p) {
        r.push_back("·");
        continue;
      }
      const char* shade = *p >= kGood ? "█" : *p >= kBad ? "▒" : "░";
      r.push_back(absl::StrCat(shade, " ", FormatPercent(*p), Fallback(d, *it->second)));
    }
    rows.push_back(std::move(r));
  }
  absl::StrAppend(&out, Table(header, right, rows), "\n");
  return out;
}

// Good / bad / ugly, hot rows, with the reasons a row falls short.
std::string GemmGrades(const TensorCeilings& d, const std::vector<const Measurement*>& gemm,
                       const std::map<std::string, double>& best, const std::string& basis_text) {
  struct Graded {
    int grade;  // 0 good, 1 bad, 2 ugly
    const Measurement* m;
    double pct;
  };
  std::vector<Graded> graded;
  for (const Measurement* m : gemm) {
    const std::optional<double> p = OfBasis(d, *m);
    if (m->data != "random" || m->cache == "cold" || !p || !m->shape) continue;
    graded.push_back({*p >= kGood ? 0 : *p >= kBad ? 1 : 2, m, *p});
  }
  std::stable_sort(graded.begin(), graded.end(), [](const Graded& a, const Graded& b) {
    return a.grade != b.grade ? a.grade < b.grade : a.pct > b.pct;
  });
  if (graded.empty()) return "";
  const ColdRows cold = ColdRowsOf(gemm);
  const int sms = static_cast<int>(d.sms);
  std::string out =
      absl::StrCat("Good (≥ 60% of ", basis_text,
                   "), bad (25–60%) and ugly (< 25%: the tensor cores mostly idle), hot "
                   "rows; cold TFLOP/s is the same point with L2 flushed before each "
                   "sample, where it was run. Reasons are read off the shape: alignment, "
                   "arithmetic intensity against the ridge point (peak / "
                   "device_dram_peak_gbps) counting only the DRAM bytes a hot run cannot "
                   "keep in L2 (device_l2_bytes), and 128×128 output tiles against the "
                   "SM count. GB/s is A, B and D once each over the time. Tensor pipe "
                   "active is the cupti/ counter of the row when it was run with a "
                   "tensor-pipe metric.\n\n");
  const char* kGrades[] = {"good", "bad", "ugly"};
  std::vector<std::vector<std::string>> rows;
  for (const Graded& g : graded) {
    const Measurement& m = *g.m;
    const Percents p = PercentsOf(m, d, best);
    const auto c = cold.find({m.dtype_value, ShapeName(*m.shape), m.data});
    rows.push_back({kGrades[g.grade], m.dtype_value, ShapeName(*m.shape), Num(m.tflops),
                    c == cold.end() ? kNone : Num(c->second->tflops), Num(m.gbps), ClockCell(m, d),
                    Percent(p.at_measured), Percent(p.at_max), Percent(p.published),
                    Percent(p.best), m.tensor_active ? FormatNumber(*m.tensor_active) : kNone,
                    g.grade == 0 ? "" : GemmReasons(m, d.Basis(m.kind).value_or(0), *d.file, sms)});
  }
  absl::StrAppend(&out, Table({"class", "dtype", "shape", "TFLOP/s", "cold TFLOP/s", "GB/s",
                               "SM clock (MHz)", "% @ measured clock", "% @ max boost",
                               "% of published", "% of best", "tensor pipe active", "why"},
                              {false, false, false, true, true, true, true, true, true, true, true,
                               true, false},
                              rows));
  return out;
}

}  // namespace

std::string GemmBlock(const TensorCeilings& d, const std::vector<const Measurement*>& gemm,
                      const std::map<std::string, double>& best) {
  const std::string basis_text =
      d.product == nullptr ? "the dense peak @ max boost (no published peak for this device)"
                           : absl::StrCat("the ", d.product->name,
                                          "'s published dense peak (`*`: unknown, the peak @ "
                                          "max boost instead)");
  return absl::StrCat("### cuBLASLt GEMM\n\n", GemmHeatmap(d, gemm, basis_text),
                      GemmGrades(d, gemm, best, basis_text));
}

}  // namespace dissect::analysis::tensor_internal
