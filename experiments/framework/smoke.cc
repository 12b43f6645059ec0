#include "experiments/framework/smoke.h"

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "experiments/result_format/reader.h"
#include "experiments/framework/runner.h"

namespace dissect {
namespace {

struct Expectation {
  std::string metric;
  double lo = 0;
  double hi = 0;
};

}  // namespace

int RunSmoke(Experiment& experiment, int argc, char** argv) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string out = std::string(tmp != nullptr ? tmp : "/tmp") + "/gpu_smoke.json";
  std::vector<Expectation> expectations;
  std::vector<std::string> forwarded = {argv[0], "--benchmark_out=" + out};
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (absl::ConsumePrefix(&arg, "--expect=")) {
      std::vector<std::string> parts = absl::StrSplit(arg, ':');
      Expectation e;
      if (parts.size() != 3 || !absl::SimpleAtod(parts[1], &e.lo) ||
          !absl::SimpleAtod(parts[2], &e.hi)) {
        std::cerr << "bad --expect=" << arg << " (want metric:lo:hi)\n";
        return 1;
      }
      e.metric = parts[0];
      expectations.push_back(e);
    } else {
      forwarded.emplace_back(arg);
    }
  }
  std::vector<char*> ptrs;
  for (std::string& s : forwarded) ptrs.push_back(s.data());
  const int rc = RunMain(experiment, static_cast<int>(ptrs.size()), ptrs.data());
  if (rc != 0) {
    std::cerr << "FAIL: experiment exited with " << rc << "\n";
    return 1;
  }
  absl::StatusOr<result_format::ResultFile> result = result_format::ReadResultFile(out);
  if (!result.ok() || result->rows.empty()) {
    std::cerr << "FAIL: no result rows: "
              << (result.ok() ? out : std::string(result.status().message())) << "\n";
    return 1;
  }
  int failed = 0;
  for (const result_format::Row& row : result->rows) {
    // Not a failure: the experiment declared that it cannot run on this GPU.
    if (row.error && IsComputeCapabilitySkip(row.error_message)) {
      std::cerr << "SKIPPED: " << row.name << ": " << row.error_message << "\n";
      continue;
    }
    if (row.error) {
      std::cerr << "FAIL: " << row.name << ": " << row.error_message << "\n";
      ++failed;
      continue;
    }
    for (const Expectation& e : expectations) {
      const std::optional<double> v = row.Counter(e.metric);
      if (!v.has_value()) {
        // Counters or kernel activity that could not be collected say why
        // in the context (for the run) or in the row's label (for one point).
        const std::string key = absl::StartsWith(e.metric, "activity/") ? "activity_unavailable"
                                                                        : "counters_unavailable";
        const std::string why = result->ContextOr(key, "");
        std::cerr << "FAIL: " << row.name << ": no metric " << e.metric
                  << (!why.empty()         ? " (" + key + ": " + why + ")"
                      : !row.label.empty() ? " (" + row.label + ")"
                                           : "")
                  << "\n";
        ++failed;
        continue;
      }
      const bool ok = *v >= e.lo && *v <= e.hi;
      std::cerr << (ok ? "ok:   " : "FAIL: ") << row.name << ": " << e.metric << " = " << *v
                << " (plausible: " << e.lo << " .. " << e.hi << ")\n";
      failed += ok ? 0 : 1;
    }
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace dissect
