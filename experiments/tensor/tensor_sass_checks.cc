// See tensor_sass_checks.h.
#include "experiments/tensor/tensor_sass_checks.h"

#include <algorithm>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// The first general register of `operand` ("R12" of "R12"), if any.
std::optional<int> RegisterNumber(const std::string& operand) {
  const std::vector<int> regs = RegisterNumbers(operand);
  if (regs.empty()) return std::nullopt;
  return regs.front();
}

}  // namespace

const std::vector<std::string>& TensorOps() {
  static const auto* ops =
      new std::vector<std::string>{"HMMA", "IMMA", "QMMA", "HGMMA", "IGMMA", "QGMMA"};
  return *ops;
}

int CountOp(const SassFunction& f, const std::string& op) {
  return CountOps(f, 0, f.code.size(), {op});
}

absl::StatusOr<SassLoop> TimedTensorLoop(const SassFunction& f) {
  return FindTimedLoop(f, TensorOps());
}

absl::Status CheckTimedTensorCount(const SassFunction& f, int want) {
  absl::StatusOr<SassLoop> loop = TimedTensorLoop(f);
  if (!loop.ok()) return loop.status();
  const int got = CountOps(f, *loop, TensorOps());
  if (got == want) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat(f.name, " (", f.arch, "): the timed loop holds ", got,
                   " tensor instructions, want ", want, "; its body:\n", LoopListing(f, *loop)));
}

absl::Status CheckTimedRegionStart(const SassFunction& f, int acc_regs) {
  absl::StatusOr<SassLoop> loop = TimedTensorLoop(f);
  if (!loop.ok()) return loop.status();
  std::set<int> accumulators;
  for (size_t i = loop->head; i <= loop->branch; ++i) {
    const SassInstruction& in = f.code[i];
    if (std::find(TensorOps().begin(), TensorOps().end(), in.op) == TensorOps().end()) continue;
    if (const std::optional<int> d = RegisterNumber(DestinationRegister(in))) {
      for (int r = 0; r < acc_regs; ++r) accumulators.insert(*d + r);
    }
  }
  if (accumulators.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(f.name, " (", f.arch,
                                                      "): no tensor instruction with a register "
                                                      "destination in the timed loop"));
  }
  const size_t first_clock = ClockReads(f).front();
  static const std::set<std::string> kLoads = {"LDG", "LDS", "LDSM", "LD", "LDL"};
  std::vector<std::string> problems;
  std::optional<size_t> last_load;
  for (size_t i = 0; i < first_clock; ++i) {
    if (kLoads.count(f.code[i].op) > 0) last_load = i;
  }
  if (last_load.has_value() && CountOps(f, *last_load + 1, first_clock, TensorOps()) == 0) {
    problems.push_back(
        absl::StrCat("no tensor instruction consumes the loads before the clock "
                     "starts; the last load: ",
                     f.code[*last_load].text));
  }
  for (size_t i = first_clock + 1; i < loop->head; ++i) {
    const SassInstruction& in = f.code[i];
    if (kLoads.count(in.op) > 0) problems.push_back(absl::StrCat("load: ", in.text));
    if (const std::optional<int> d = RegisterNumber(DestinationRegister(in))) {
      for (int r = *d; r < *d + ValueWidth(in); ++r) {
        if (accumulators.count(r) > 0) {
          problems.push_back(absl::StrCat("accumulator write: ", in.text));
          break;
        }
      }
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      f.name, " (", f.arch, "): at the start of the timed region:\n  ",
      absl::StrJoin(problems, "\n  "), "\nthat stretch:\n", Listing(f, first_clock, loop->head)));
}

}  // namespace dissect
