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
#include "analysis/import.h"
#include "analysis/results.h"
#include "experiments/harness/result_writer.h"
#include "tools/cli/user_path.h"

namespace {

constexpr char kUsage[] =
    R"(usage: import --from=gpu-benches|mt4g --out=DIR [flags] [--] FILE...

Converts results published by other GPU microbenchmark suites into dissect
result files (analysis/SCHEMA.md), one per input: DIR/<input name without
extension>.json, written atomically. `report` and `figures` then read them
like dissect's own; every row's label starts `source: <suite>@<version>;
method: ...` and the context names the source file and how the peer measured
(source, source_file, source_format, source_method, imported_by,
import_date), so that no one mistakes a peer's number for ours.

  --from=gpu-benches  RRZE-HPC/gpu-benches logs; which program wrote each
                      one is detected from its text: gpu-latency ->
                      memory_latency, gpu-cache, gpu-l2-cache, gpu-stream ->
                      memory_bandwidth. The logs name no device:
                      --device_name is required.
  --from=mt4g         caps-tum/mt4g JSON results -> hierarchy_summary (one
                      row per memory level); device facts from the file
  --out=DIR           output folder (created with its parents if missing)
  --force             overwrite existing output files (default: refuse)
  --source_version=V  the suite's commit or version, written as
                      source = <suite>@V (default: unknown, with a warning)

Device facts a file lacks (never guessed; each one still unknown is named on
stderr and listed in context device_facts_missing). A flag that contradicts
the file is an error.
  --device_name=NAME      e.g. "NVIDIA GH200 480GB"
  --compute_capability=X  e.g. 9.0
  --sm_count=N
  --l2_bytes=B            bytes, or with KiB, MiB, GiB (e.g. 50MiB)
  --sm_clock_mhz=F        maximum SM clock
  --dram_peak_gbps=F      DRAM peak in GB/s
gpu-latency only:
  --stride_bytes=B        stride_bytes axis value (default 128: the log does
                          not say; source_method says it is assumed)

Prints one line per imported file on stdout. Exit status 0 when every file
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

int Fail(const std::string& message) {
  std::cerr << "import: " << message << "\n";
  return 2;
}

// The value of `--name=value` in `arg`, or nullopt if `arg` is another flag.
std::optional<std::string> FlagValue(const std::string& arg, const std::string& name) {
  const std::string prefix = "--" + name + "=";
  if (arg.rfind(prefix, 0) != 0) return std::nullopt;
  return arg.substr(prefix.size());
}

absl::StatusOr<double> PositiveNumber(const std::string& flag, const std::string& text) {
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value) || value <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "='", text, "' is not a positive number"));
  }
  return value;
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
  dissect::analysis::ImportOptions options;
  std::vector<std::string> files;
  std::string out_dir;
  bool force = false;
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (flags_done || arg.empty() || arg[0] != '-' || arg == "-") {
      files.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--force") {
      force = true;
    } else if (auto v = FlagValue(arg, "from")) {
      options.from = *v;
    } else if (auto v = FlagValue(arg, "out")) {
      out_dir = *v;
    } else if (auto v = FlagValue(arg, "source_version")) {
      options.source_version = *v;
    } else if (auto v = FlagValue(arg, "device_name")) {
      if (v->empty()) return Fail("--device_name needs a name");
      options.device_name = *v;
    } else if (auto v = FlagValue(arg, "compute_capability")) {
      options.compute_capability = *v;
    } else if (auto v = FlagValue(arg, "sm_count")) {
      int count = 0;
      if (!absl::SimpleAtoi(*v, &count) || count <= 0) {
        return Fail("--sm_count='" + *v + "' is not a positive integer");
      }
      options.sm_count = count;
    } else if (auto v = FlagValue(arg, "l2_bytes")) {
      absl::StatusOr<double> bytes = dissect::analysis::ParseByteCount(*v);
      if (!bytes.ok()) return Fail("--l2_bytes: " + std::string(bytes.status().message()));
      options.l2_bytes = *bytes;
    } else if (auto v = FlagValue(arg, "sm_clock_mhz")) {
      absl::StatusOr<double> mhz = PositiveNumber("sm_clock_mhz", *v);
      if (!mhz.ok()) return Fail(std::string(mhz.status().message()));
      options.sm_clock_mhz = *mhz;
    } else if (auto v = FlagValue(arg, "dram_peak_gbps")) {
      absl::StatusOr<double> gbps = PositiveNumber("dram_peak_gbps", *v);
      if (!gbps.ok()) return Fail(std::string(gbps.status().message()));
      options.dram_peak_gbps = *gbps;
    } else if (auto v = FlagValue(arg, "stride_bytes")) {
      absl::StatusOr<double> bytes = dissect::analysis::ParseByteCount(*v);
      if (!bytes.ok()) return Fail("--stride_bytes: " + std::string(bytes.status().message()));
      options.stride_bytes = *bytes;
    } else {
      return Fail("unknown flag '" + arg + "' (see --help)");
    }
  }
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
    if (absl::Status written = dissect::WriteFileAtomically(out_path, imported->json);
        !written.ok()) {
      status = Fail(std::string(written.message()));
      continue;
    }
    std::cout << "imported " << file << " (" << imported->format << "): " << imported->rows
              << " rows -> " << out_path << "\n";
  }
  return status;
}
