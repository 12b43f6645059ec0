// `import`: converts other GPU microbenchmark suites' published results
// (gpu-benches logs, mt4g JSON) into dissect result files. See
// analysis/README.md.

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "analysis/importers/import.h"
#include "analysis/results/results.h"
#include "experiments/result_format/atomic_file.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_string(from, "",
              "gpu-benches: RRZE-HPC/gpu-benches logs; which program wrote each one is "
              "detected from its text: gpu-latency -> memory_latency, gpu-cache, gpu-l2-cache, "
              "gpu-stream -> memory_bandwidth. The logs name no device: --device_name is "
              "required. mt4g: caps-tum/mt4g JSON results -> hierarchy_summary (one row per "
              "memory level); device facts from the file (required)");
DEFINE_string(out, "", "output folder (created with its parents if missing; required)");
DEFINE_bool(force, false, "overwrite existing output files (default: refuse)");
DEFINE_string(source_version, "",
              "the suite's commit or version, written as source = <suite>@V (default: "
              "unknown, with a warning)");
DEFINE_string(device_name, "", "the device's name, e.g. \"NVIDIA GH200 480GB\"");
DEFINE_string(compute_capability, "", "e.g. 9.0");
DEFINE_string(sm_count, "", "the number of SMs");
DEFINE_string(l2_bytes, "", "the L2 size: bytes, or with KiB, MiB, GiB (e.g. 50MiB)");
DEFINE_string(sm_clock_mhz, "", "maximum SM clock");
DEFINE_string(dram_peak_gbps, "", "DRAM peak in GB/s");
DEFINE_string(stride_bytes, "",
              "gpu-latency only: stride_bytes axis value (default 128: the log does not say; "
              "source_method says it is assumed)");

namespace {

// The command line: --from, --out, the device facts and the input files.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "import";
  program.args = "FILE...";
  program.about = R"(Converts results published by other GPU microbenchmark suites into dissect
result files (analysis/SCHEMA.md), one per input: DIR/<input name without
extension>.json, written atomically. `report` and `figures` then read them
like dissect's own; every row's label starts `source: <suite>@<version>;
method: ...` and the context names the source file and how the peer measured
(source, source_file, source_format, source_method, imported_by,
import_date), so that no one mistakes a peer's number for ours.

Device facts a file lacks (--device_name to --dram_peak_gbps) are never
guessed; each one still unknown is named on stderr and listed in context
device_facts_missing. A flag that contradicts the file is an error.
)";
  program.flags = {{"from", "gpu-benches|mt4g"},
                   {"out", "DIR"},
                   {"force"},
                   {"source_version", "V", true},
                   {"device_name", "NAME"},
                   {"compute_capability", "X", true},
                   {"sm_count", "N"},
                   {"l2_bytes", "B"},
                   {"sm_clock_mhz", "F"},
                   {"dram_peak_gbps", "F"},
                   {"stride_bytes", "B"}};
  program.more = R"(Prints one line per imported file on stdout. Exit status 0 when every file
was imported; 2 on bad usage or when any file is unknown, corrupt, or its
output exists (each named on stderr, one line; the others are still written).

Examples (the peer data of ../shared/data/peers/):
  bazel run //analysis:import -- --from=gpu-benches \
      --source_version=1038c5d0d0f4 --device_name="NVIDIA GH200 480GB" \
      --compute_capability=9.0 --sm_count=132 --l2_bytes=50MiB \
      --out=results/peers ../shared/data/peers/gpu-benches/gpu-latency_gh200.txt
  bazel run //analysis:import -- --from=gpu-benches \
      --source_version=1038c5d0d0f4 --device_name="NVIDIA A100 80GB" \
      --out=results/peers ../shared/data/peers/gpu-benches/gpu-cache_a100_80.txt \
      ../shared/data/peers/gpu-benches/gpu-l2-cache_a100_80.txt
  bazel run //analysis:import -- --from=mt4g --source_version=4cc55662a954 \
      --out=results/peers ../shared/data/peers/mt4g/NVIDIA_H100_80GB_HBM3.json
  bazel run //analysis:report -- results/peers
)";
  return program;
}

int Fail(const std::string& message) { return dissect::cli::Fail(Cli(), message, 2); }

absl::StatusOr<double> PositiveNumber(const std::string& flag, const std::string& text) {
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value) || value <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "='", text, "' is not a positive number"));
  }
  return value;
}

// Reads one number flag `name` into `field` when it is given.
absl::Status SetNumber(const std::string& name, const std::string& text,
                       std::optional<double>* field) {
  if (!dissect::cli::Given(name)) return absl::OkStatus();
  const bool bytes = absl::EndsWith(name, "_bytes");
  absl::StatusOr<double> value =
      bytes ? dissect::analysis::ParseByteCount(text) : PositiveNumber(name, text);
  if (!value.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(bytes ? "--" + name + ": " : "", value.status().message()));
  }
  *field = *value;
  return absl::OkStatus();
}

// The import options from the flags, checked.
absl::StatusOr<dissect::analysis::ImportOptions> OptionsFromFlags() {
  dissect::analysis::ImportOptions options;
  options.from = FLAGS_from;
  options.source_version = FLAGS_source_version;
  if (dissect::cli::Given("device_name")) options.device_name = FLAGS_device_name;
  if (dissect::cli::Given("compute_capability")) {
    options.compute_capability = FLAGS_compute_capability;
  }
  if (dissect::cli::Given("sm_count")) {
    int count = 0;
    if (!absl::SimpleAtoi(FLAGS_sm_count, &count) || count <= 0) {
      return absl::InvalidArgumentError("--sm_count='" + FLAGS_sm_count +
                                        "' is not a positive integer");
    }
    options.sm_count = count;
  }
  for (absl::Status status :
       {SetNumber("l2_bytes", FLAGS_l2_bytes, &options.l2_bytes),
        SetNumber("sm_clock_mhz", FLAGS_sm_clock_mhz, &options.sm_clock_mhz),
        SetNumber("dram_peak_gbps", FLAGS_dram_peak_gbps, &options.dram_peak_gbps),
        SetNumber("stride_bytes", FLAGS_stride_bytes, &options.stride_bytes)}) {
    if (!status.ok()) return status;
  }
  return options;
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  const std::vector<std::string>& files = line.args;
  const std::string out_dir = FLAGS_out;
  const bool force = FLAGS_force;
  absl::StatusOr<dissect::analysis::ImportOptions> parsed = OptionsFromFlags();
  if (!parsed.ok()) return Fail(std::string(parsed.status().message()));
  const dissect::analysis::ImportOptions& options = *parsed;
  if (options.from.empty()) return Fail("--from=gpu-benches or --from=mt4g is required");
  if (options.from != "gpu-benches" && options.from != "mt4g") {
    return Fail("unknown --from='" + options.from + "' (gpu-benches or mt4g)");
  }
  if (files.empty()) return Fail("no input files (see --help)");
  if (out_dir.empty()) return Fail("--out=DIR is required");
  if (options.from == "gpu-benches" && !options.device_name.has_value()) {
    return Fail("--device_name is required with --from=gpu-benches (its logs name no device)");
  }

  if (absl::Status entered = dissect::cli::EnterCallerDirectory(); !entered.ok()) {
    return Fail(std::string(entered.message()));
  }
  if (std::error_code error; !std::filesystem::create_directories(out_dir, error) && error) {
    return Fail(out_dir + ": cannot create: " + error.message());
  }

  int status = 0;
  for (const std::string& file : files) {
    absl::StatusOr<std::string> text = ReadText(file);
    if (!text.ok()) {
      status = Fail(std::string(text.status().message()));
      continue;
    }
    absl::StatusOr<dissect::analysis::ImportedFile> imported =
        dissect::analysis::ImportPeerText(*text, file, options);
    if (!imported.ok()) {
      status = Fail(std::string(imported.status().message()));
      continue;
    }
    std::string out_path = out_dir;
    if (!absl::EndsWith(out_path, "/")) out_path += "/";
    out_path += dissect::analysis::ImportedFileName(file);
    if (!force && Exists(out_path)) {
      status = Fail(out_path + " exists (from " + file + "; pass --force to overwrite)");
      continue;
    }
    for (const std::string& warning : imported->warnings) {
      std::cerr << "import: " << warning << "\n";
    }
    if (absl::Status written = dissect::result_format::WriteFileAtomically(out_path, imported->json);
        !written.ok()) {
      status = Fail(std::string(written.message()));
      continue;
    }
    std::cout << "imported " << file << " (" << imported->format << "): " << imported->rows
              << " rows -> " << out_path << "\n";
  }
  return status;
}
