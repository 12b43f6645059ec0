// Tensor-core section of the report; see tensor.h.

#include "analysis/tensor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "analysis/format.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using Json = nlohmann::json;

constexpr char kNone[] = "—";

// GEMM classes by fraction of peak: good, bad, below that ugly.
constexpr double kGood = 0.6;
constexpr double kBad = 0.25;

absl::string_view Sv(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

absl::Status Error(std::string_view path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(Sv(path), ": ", what));
}

// A required non-empty string member.
absl::StatusOr<std::string> String(const Json& j, const char* key,
                                   std::string_view path,
                                   const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string() || it->get<std::string>().empty()) {
    return Error(
        path, absl::StrCat(where, " needs a non-empty string \"", key, "\""));
  }
  return it->get<std::string>();
}

absl::StatusOr<double> Number(const Json& j, const char* key,
                              std::string_view path, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number() || it->get<double>() < 0) {
    return Error(path,
                 absl::StrCat(where, " needs a number \"", key, "\" >= 0"));
  }
  return it->get<double>();
}

// A markdown table without padding; `right` marks right-aligned columns.
std::string Table(const std::vector<std::string>& header,
                  const std::vector<bool>& right,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = absl::StrCat("| ", absl::StrJoin(header, " | "), " |\n|");
  for (size_t i = 0; i < header.size(); ++i)
    out += right[i] ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const std::string& c : row)
      cells.push_back(absl::StrReplaceAll(c, {{"|", "\\|"}}));
    absl::StrAppend(&out, "| ", absl::StrJoin(cells, " | "), " |\n");
  }
  return out;
}

std::string Percent(std::optional<double> fraction) {
  return fraction ? FormatPercent(*fraction) : kNone;
}

std::string Num(std::optional<double> v) {
  return v ? FormatNumber(*v) : kNone;
}

// One measured point of a tensor experiment.
struct Measurement {
  const ResultFile* file = nullptr;
  const Row* row = nullptr;
  std::string experiment;
  std::string what;  // the axis values other than mode and data
  TensorKind kind;
  std::string mode;  // latency / throughput ("throughput" for GEMM)
  std::string data;  // random / zeros
  std::optional<double> cycles;
  std::optional<double> per_clk_sm;
  std::optional<double> tflops;
  std::optional<double>
      tensor_active;               // a cupti/ counter naming the tensor pipe
  std::optional<GemmShape> shape;  // GEMM rows
};

bool IsTensorExperiment(const std::string& e) {
  return e == "mma_sync" || e == "wgmma" || e == "cublaslt_gemm";
}

std::string DeviceKey(const ResultFile& f) {
  return absl::StrCat(f.ContextOr("device_name", ""), "\n",
                      f.ContextOr("device_compute_capability", ""), "\n",
                      f.ContextOr("device_sm_count", ""));
}

std::optional<Measurement> Measure(const ResultFile& file, const Row& row) {
  if (row.error) return std::nullopt;
  Measurement m;
  m.file = &file;
  m.row = &row;
  m.experiment = file.experiment;
  std::vector<std::string> what;
  std::optional<TensorKind> kind;
  for (const auto& [axis, value] : row.axes) {
    if (axis == "mode") {
      m.mode = value;
    } else if (axis == "data") {
      m.data = value;
    } else {
      what.push_back(axis == "form" || axis == "dtype" || axis == "shape"
                         ? value
                         : absl::StrCat(axis, "=", value));
      if (axis == "form" || axis == "dtype") kind = KindOf(value);
      if (axis == "shape") m.shape = ParseGemmShape(value);
    }
  }
  if (!kind) return std::nullopt;
  m.kind = *kind;
  m.what = absl::StrJoin(what, " ");
  if (m.mode.empty()) m.mode = "throughput";
  if (m.data.empty()) m.data = "random";
  for (const auto& [name, value] : row.counters) {
    if (absl::StartsWith(name, "cycles_per_") &&
        !absl::StrContains(name, ".")) {
      m.cycles = value;
    }
    if (absl::StartsWith(name, "cupti/") && absl::StrContains(name, "tensor") &&
        !absl::StrContains(name.substr(6), ".")) {
      m.tensor_active = value;
    }
  }
  m.per_clk_sm = row.Counter("flops_per_clk_per_sm");
  m.tflops = row.Counter("tflops");
  return m;
}

struct Device {
  const ResultFile* first = nullptr;
  std::vector<Measurement> rows;
};

double ContextNumber(const ResultFile& f, const char* key) {
  double v = 0;
  return absl::SimpleAtod(f.ContextOr(key, ""), &v) ? v : 0;
}

// Peak TFLOP/s of a rate on a device at its maximum SM clock.
std::optional<double> PeakTflops(const ResultFile& f, double per_clk_sm) {
  const double sms = ContextNumber(f, "device_sm_count");
  const double khz = ContextNumber(f, "device_sm_clock_max_khz");
  if (sms <= 0 || khz <= 0 || per_clk_sm <= 0) return std::nullopt;
  return sms * khz * 1e3 * per_clk_sm / 1e12;
}

double RateOf(const TensorArchitecture* arch, const TensorKind& kind) {
  if (arch == nullptr) return 0;
  const TensorRate* r = arch->Find(kind.dtype);
  if (r == nullptr) return 0;
  return kind.sparse ? r->sparse : r->dense;
}

std::string KindName(const TensorKind& k) {
  return k.sparse ? absl::StrCat(k.dtype, " 2:4 sparse") : k.dtype;
}

// Bytes per element of A/B and of C/D for a GEMM dtype.
std::pair<double, double> GemmElementBytes(const std::string& dtype) {
  if (dtype == "fp8") return {1, 2};
  if (dtype == "int8") return {1, 4};
  if (dtype == "fp16" || dtype == "bf16") return {2, 2};
  return {4, 4};
}

// Shape-based explanations of a GEMM row that misses its ceiling.
std::string GemmReasons(const Measurement& m, double peak_tflops,
                        double dram_gbps, int sms) {
  if (!m.shape) return "";
  const GemmShape& s = *m.shape;
  std::vector<std::string> reasons;
  auto misaligned = [](int64_t d) { return d >= 16 && d % 16 != 0; };
  if (misaligned(s.m) || misaligned(s.n) || misaligned(s.k)) {
    reasons.push_back("a dimension is not a multiple of 16 (misaligned rows)");
  }
  const auto [in_bytes, out_bytes] = GemmElementBytes(m.kind.dtype);
  const double flops = 2.0 * s.m * s.n * s.k;
  const double bytes = in_bytes * (double(s.m) * s.k + double(s.k) * s.n) +
                       out_bytes * double(s.m) * s.n;
  const double intensity = flops / bytes;
  if (dram_gbps > 0 && peak_tflops > 0) {
    const double ridge = peak_tflops * 1e12 / (dram_gbps * 1e9);
    if (intensity < ridge) {
      reasons.push_back(absl::StrCat("memory-bound: ", FormatNumber(intensity),
                                     " FLOP/B, below the ridge point of ",
                                     FormatNumber(ridge), " FLOP/B"));
    }
  }
  const int64_t tiles = ((s.m + 127) / 128) * ((s.n + 127) / 128);
  if (sms > 0 && tiles < sms) {
    reasons.push_back(absl::StrCat(tiles, " output tiles of 128×128 for ", sms,
                                   " SMs: under one wave"));
  }
  return absl::StrJoin(reasons, "; ");
}

std::string CeilingsBlock(const ResultFile& f, const TensorArchitecture* arch,
                          const TensorPeaks& peaks) {
  std::string out;
  if (arch == nullptr) {
    return absl::StrCat(
        "_no architecture of configs/tensor/peaks.json has compute "
        "capability ",
        f.ContextOr("device_compute_capability", "?"), ": no % of peak_\n");
  }
  absl::StrAppend(
      &out, "Ceilings (", arch->name, "): SM count × max SM clock (",
      FormatNumber(ContextNumber(f, "device_sm_clock_max_khz") / 1e3),
      " MHz) × per-SM rate. Integer rates are operations.\n\n");
  std::vector<std::vector<std::string>> rows;
  std::vector<const TensorSource*> cited;
  for (const TensorRate& r : arch->rates) {
    const TensorSource* s = peaks.Source(r.source);
    size_t index = std::find(cited.begin(), cited.end(), s) - cited.begin();
    if (index == cited.size()) cited.push_back(s);
    rows.push_back({r.dtype, FormatNumber(r.dense),
                    r.sparse > 0 ? FormatNumber(r.sparse) : kNone,
                    Num(PeakTflops(f, r.dense)),
                    absl::StrCat("[", index + 1, "] ", r.note)});
  }
  absl::StrAppend(&out,
                  Table({"dtype", "dense FLOP/clk/SM", "2:4 sparse FLOP/clk/SM",
                         "dense peak (TFLOP/s)", "source"},
                        {false, true, true, true, false}, rows),
                  "\n");
  for (size_t i = 0; i < cited.size(); ++i) {
    if (cited[i] == nullptr) continue;
    absl::StrAppend(&out, "[", i + 1, "] ", cited[i]->publisher, ": \"",
                    cited[i]->title, "\", ", cited[i]->year, ", ",
                    cited[i]->where, ". ", cited[i]->url, "\n");
  }
  return out;
}

std::string ProbeBlock(const std::vector<const Measurement*>& probes,
                       const TensorArchitecture* arch,
                       const std::map<std::string, double>& best) {
  std::vector<std::vector<std::string>> rows;
  for (const Measurement* m : probes) {
    const double rate = RateOf(arch, m->kind);
    std::optional<double> of_peak, of_best;
    if (m->mode == "throughput" && m->per_clk_sm && rate > 0)
      of_peak = *m->per_clk_sm / rate;
    const auto b = best.find(KindName(m->kind));
    if (m->mode == "throughput" && m->tflops && b != best.end() &&
        b->second > 0) {
      of_best = *m->tflops / b->second;
    }
    rows.push_back({m->experiment, m->what, KindName(m->kind), m->mode, m->data,
                    Num(m->cycles), Num(m->per_clk_sm), Num(m->tflops),
                    Percent(of_peak), Percent(of_best)});
  }
  return absl::StrCat(
      "### instruction probes\n\nLatency rows: cycles between dependent "
      "instructions of one "
      "warp (warpgroup). Throughput rows: SM cycles per instruction with every "
      "SM full; % of "
      "peak = FLOP/clk/SM over the per-SM rate (clock-independent); % of best "
      "= TFLOP/s over "
      "the best throughput measured for the same type with random data (any "
      "experiment). "
      "Integer forms count operations (TOP/s).\n\n",
      Table(
          {"experiment", "instruction", "type", "mode", "data", "cycles/instr",
           "FLOP/clk/SM", "TFLOP/s", "% of peak", "% of best"},
          {false, false, false, false, false, true, true, true, true, true},
          rows));
}

std::string GemmBlock(const ResultFile& f,
                      const std::vector<const Measurement*>& gemm,
                      const TensorArchitecture* arch,
                      const std::map<std::string, double>& best) {
  const double dram = ContextNumber(f, "device_dram_peak_gbps");
  const int sms = static_cast<int>(ContextNumber(f, "device_sm_count"));
  auto of_peak = [&](const Measurement& m) -> std::optional<double> {
    const std::optional<double> peak = PeakTflops(f, RateOf(arch, m.kind));
    if (!peak || !m.tflops) return std::nullopt;
    return *m.tflops / *peak;
  };
  std::string out = "### cuBLASLt GEMM\n\n";
  // Heatmap: shapes (in order of appearance) × dtypes, % of peak, random data.
  std::vector<std::string> shapes, dtypes;
  std::map<std::pair<std::string, std::string>, const Measurement*> cell;
  for (const Measurement* m : gemm) {
    if (m->data != "random" || !m->shape) continue;
    const std::string shape =
        absl::StrCat(m->shape->m, "x", m->shape->n, "x", m->shape->k);
    if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end())
      shapes.push_back(shape);
    if (std::find(dtypes.begin(), dtypes.end(), m->kind.dtype) ==
        dtypes.end()) {
      dtypes.push_back(m->kind.dtype);
    }
    cell[{shape, m->kind.dtype}] = m;
  }
  if (!shapes.empty()) {
    absl::StrAppend(
        &out,
        "Utilisation heatmap: % of each dtype's dense peak at the max SM clock "
        "(random data; `·` skipped or not run). Shade as the classes below: █ "
        "good "
        "(≥ 60%), ▒ bad (25–60%), ░ ugly (< 25%).\n\n");
    std::vector<std::string> header = {"M×N×K"};
    std::vector<bool> right = {false};
    for (const std::string& d : dtypes) {
      header.push_back(d);
      right.push_back(true);
    }
    std::vector<std::vector<std::string>> rows;
    for (const std::string& s : shapes) {
      std::vector<std::string> r = {s};
      for (const std::string& d : dtypes) {
        const auto it = cell.find({s, d});
        const std::optional<double> p =
            it == cell.end() ? std::nullopt : of_peak(*it->second);
        if (!p) {
          r.push_back("·");
          continue;
        }
        const char* shade = *p >= kGood ? "█" : *p >= kBad ? "▒" : "░";
        r.push_back(absl::StrCat(shade, " ", FormatPercent(*p)));
      }
      rows.push_back(std::move(r));
    }
    absl::StrAppend(&out, Table(header, right, rows), "\n");
  }
  // Good / bad / ugly.
  struct Graded {
    int grade;  // 0 good, 1 bad, 2 ugly
    const Measurement* m;
    double pct;
  };
  std::vector<Graded> graded;
  for (const Measurement* m : gemm) {
    const std::optional<double> p = of_peak(*m);
    if (m->data != "random" || !p || !m->shape) continue;
    graded.push_back({*p >= kGood ? 0 : *p >= kBad ? 1 : 2, m, *p});
  }
  std::stable_sort(
      graded.begin(), graded.end(), [](const Graded& a, const Graded& b) {
        return a.grade != b.grade ? a.grade < b.grade : a.pct > b.pct;
      });
  if (!graded.empty()) {
    absl::StrAppend(
        &out,
        "Good (≥ 60% of peak), bad (25–60%) and ugly (< 25%: the tensor cores "
        "mostly idle). Reasons are read off the shape: alignment, arithmetic "
        "intensity against the ridge point (peak / device_dram_peak_gbps), and "
        "128×128 output tiles against the SM count. Tensor pipe active is the "
        "cupti/ counter of the row when it was run with a tensor-pipe "
        "metric.\n\n");
    const char* kGrades[] = {"good", "bad", "ugly"};
    std::vector<std::vector<std::string>> rows;
    for (const Graded& g : graded) {
      const std::optional<double> peak =
          PeakTflops(*g.m->file, RateOf(arch, g.m->kind));
      const auto b = best.find(KindName(g.m->kind));
      const GemmShape& s = *g.m->shape;
      rows.push_back(
          {kGrades[g.grade], g.m->kind.dtype,
           absl::StrCat(s.m, "x", s.n, "x", s.k), Num(g.m->tflops),
           FormatPercent(g.pct),
           b != best.end() && b->second > 0 && g.m->tflops
               ? FormatPercent(*g.m->tflops / b->second)
               : kNone,
           g.m->tensor_active ? FormatNumber(*g.m->tensor_active) : kNone,
           g.grade == 0 ? "" : GemmReasons(*g.m, peak.value_or(0), dram, sms)});
    }
    absl::StrAppend(
        &out,
        Table({"class", "dtype", "shape", "TFLOP/s", "% of peak", "% of best",
               "tensor pipe active", "why"},
              {false, false, false, true, true, true, true, false}, rows));
  }
  return out;
}

}  // namespace

const TensorRate* TensorArchitecture::Find(std::string_view dtype) const {
  for (const TensorRate& r : rates) {
    if (r.dtype == dtype) return &r;
  }
  return nullptr;
}

const TensorArchitecture* TensorPeaks::ForComputeCapability(
    std::string_view cc) const {
  for (const TensorArchitecture& a : architectures) {
    if (a.compute_capability == cc) return &a;
  }
  return nullptr;
}

const TensorSource* TensorPeaks::Source(std::string_view key) const {
  for (const TensorSource& s : sources) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

const std::vector<std::string>& TensorDtypes() {
  static const auto* dtypes = new std::vector<std::string>{
      "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
  return *dtypes;
}

absl::StatusOr<TensorPeaks> ParseTensorPeaksJson(std::string_view text,
                                                 std::string_view path) {
  const Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error(path, "not a JSON object");
  if (j.value("format", "") != kTensorPeaksFormat) {
    return Error(path, absl::StrCat("\"format\" must be \"",
                                    Sv(kTensorPeaksFormat), "\""));
  }
  TensorPeaks peaks;
  if (!j.contains("sources") || !j["sources"].is_array()) {
    return Error(path, "\"sources\" must be an array");
  }
  for (const Json& s : j["sources"]) {
    TensorSource source;
    const std::string where = absl::StrCat("source ", peaks.sources.size() + 1);
    for (auto [field, key] : {std::pair{&source.key, "key"},
                              {&source.title, "title"},
                              {&source.publisher, "publisher"},
                              {&source.where, "where"},
                              {&source.url, "url"}}) {
      absl::StatusOr<std::string> v = String(s, key, path, where);
      if (!v.ok()) return v.status();
      *field = *v;
    }
    absl::StatusOr<double> year = Number(s, "year", path, where);
    if (!year.ok()) return year.status();
    source.year = static_cast<int>(*year);
    peaks.sources.push_back(std::move(source));
  }
  if (!j.contains("architectures") || !j["architectures"].is_array()) {
    return Error(path, "\"architectures\" must be an array");
  }
  for (const Json& a : j["architectures"]) {
    TensorArchitecture arch;
    const std::string where =
        absl::StrCat("architecture ", peaks.architectures.size() + 1);
    absl::StatusOr<std::string> name = String(a, "name", path, where);
    if (!name.ok()) return name.status();
    absl::StatusOr<std::string> cc =
        String(a, "compute_capability", path, where);
    if (!cc.ok()) return cc.status();
    arch.name = *name;
    arch.compute_capability = *cc;
    if (!a.contains("rates") || !a["rates"].is_array() || a["rates"].empty()) {
      return Error(path,
                   absl::StrCat(where, " needs a non-empty array \"rates\""));
    }
    for (const Json& r : a["rates"]) {
      TensorRate rate;
      const std::string rwhere =
          absl::StrCat(where, " rate ", arch.rates.size() + 1);
      for (auto [field, key] : {std::pair{&rate.dtype, "dtype"},
                                {&rate.source, "source"},
                                {&rate.note, "note"}}) {
        absl::StatusOr<std::string> v = String(r, key, path, rwhere);
        if (!v.ok()) return v.status();
        *field = *v;
      }
      const auto& known = TensorDtypes();
      if (std::find(known.begin(), known.end(), rate.dtype) == known.end()) {
        return Error(
            path, absl::StrCat(rwhere, ": unknown dtype \"", rate.dtype,
                               "\" (one of ", absl::StrJoin(known, ", "), ")"));
      }
      if (peaks.Source(rate.source) == nullptr) {
        return Error(path, absl::StrCat(rwhere, ": unknown source \"",
                                        rate.source, "\""));
      }
      absl::StatusOr<double> dense = Number(r, "dense", path, rwhere);
      if (!dense.ok()) return dense.status();
      absl::StatusOr<double> sparse = Number(r, "sparse", path, rwhere);
      if (!sparse.ok()) return sparse.status();
      if (*dense <= 0)
        return Error(path, absl::StrCat(rwhere, ": \"dense\" must be > 0"));
      rate.dense = *dense;
      rate.sparse = *sparse;
      arch.rates.push_back(std::move(rate));
    }
    peaks.architectures.push_back(std::move(arch));
  }
  return peaks;
}

std::optional<TensorKind> KindOf(std::string_view value) {
  TensorKind kind;
  absl::string_view v = Sv(value);
  if (absl::ConsumePrefix(&v, "sp_")) kind.sparse = true;
  const std::string input(v.substr(0, v.find('_')));
  static const std::pair<const char*, const char*> kInputs[] = {
      {"f16", "fp16"}, {"bf16", "bf16"}, {"tf32", "tf32"}, {"s8", "int8"},
      {"e4m3", "fp8"}, {"e5m2", "fp8"},  {"fp32", "fp32"}, {"fp16", "fp16"},
      {"fp8", "fp8"},  {"int8", "int8"},
  };
  for (const auto& [name, dtype] : kInputs) {
    if (input == name) {
      kind.dtype = dtype;
      return kind;
    }
  }
  return std::nullopt;
}

std::optional<GemmShape> ParseGemmShape(std::string_view shape) {
  std::vector<std::string> parts = absl::StrSplit(Sv(shape), 'x');
  GemmShape s;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &s.m) ||
      !absl::SimpleAtoi(parts[1], &s.n) || !absl::SimpleAtoi(parts[2], &s.k) ||
      s.m <= 0 || s.n <= 0 || s.k <= 0) {
    return std::nullopt;
  }
  return s;
}

std::string RenderTensorSections(const std::vector<ResultFile>& files,
                                 const TensorPeaks& peaks) {
  std::vector<std::string> order;
  std::map<std::string, Device> devices;
  for (const ResultFile& f : files) {
    if (!IsTensorExperiment(f.experiment)) continue;
    Device& d = devices[DeviceKey(f)];
    if (d.first == nullptr) {
      d.first = &f;
      order.push_back(DeviceKey(f));
    }
    for (const Row& row : f.rows) {
      if (std::optional<Measurement> m = Measure(f, row)) d.rows.push_back(*m);
    }
  }
  std::vector<std::string> sections;
  for (const std::string& key : order) {
    const Device& d = devices[key];
    const ResultFile& f = *d.first;
    const TensorArchitecture* arch = peaks.ForComputeCapability(
        f.ContextOr("device_compute_capability", ""));
    // The best TFLOP/s per type among throughput rows with random data.
    std::map<std::string, double> best;
    for (const Measurement& m : d.rows) {
      if (m.mode != "throughput" || m.data != "random" || !m.tflops) continue;
      double& b = best[KindName(m.kind)];
      b = std::max(b, *m.tflops);
    }
    std::vector<const Measurement*> probes, gemm;
    for (const Measurement& m : d.rows) {
      (m.experiment == "cublaslt_gemm" ? gemm : probes).push_back(&m);
    }
    std::string out =
        absl::StrCat("## tensor cores: ", f.ContextOr("device_name", "?"),
                     "\n\n", f.ContextOr("device_name", "?"), " · cc ",
                     f.ContextOr("device_compute_capability", "?"), " · ",
                     f.ContextOr("device_sm_count", "?"), " SMs\n\n",
                     CeilingsBlock(f, arch, peaks));
    if (!probes.empty())
      absl::StrAppend(&out, "\n", ProbeBlock(probes, arch, best));
    if (!gemm.empty())
      absl::StrAppend(&out, "\n", GemmBlock(f, gemm, arch, best));
    sections.push_back(std::move(out));
  }
  return absl::StrJoin(sections, "\n");
}

}  // namespace dissect::analysis
