// See tensor_sass_checks.h.
#include "experiments/tensor/tensor_sass_checks.h"

#include <algorithm>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
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

bool IsTensorOp(const std::string& op) {
  return std::find(TensorOps().begin(), TensorOps().end(), op) != TensorOps().end();
}

// "R4" of "R4.reuse".
std::string WithoutReuse(const std::string& operand) {
  const size_t dot = operand.find(".reuse");
  return dot == std::string::npos ? operand : operand.substr(0, dot);
}

// The instructions of the timed loop that are neither tensor instructions
// nor NOPs.
int LoopWork(const SassFunction& f, const SassLoop& loop) {
  int work = 0;
  for (size_t i = loop.head; i <= loop.branch; ++i) {
    work += !IsTensorOp(f.code[i].op) && f.code[i].op != "NOP";
  }
  return work;
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

absl::Status CheckTimedTensorCount(const SassFunction& f, int want, bool allow_multiple) {
  absl::StatusOr<SassLoop> loop = TimedTensorLoop(f);
  if (!loop.ok()) return loop.status();
  const int got = CountOps(f, *loop, TensorOps());
  if (got == want || (allow_multiple && want > 0 && got > 0 && got % want == 0)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat(f.name, " (", f.arch, "): the timed loop holds ", got,
                   " tensor instructions, want ", want, allow_multiple ? " or a multiple" : "",
                   "; its body:\n", LoopListing(f, *loop)));
}

absl::StatusOr<std::vector<std::string>> TimedFragments(const SassFunction& f) {
  absl::StatusOr<SassLoop> loop = TimedTensorLoop(f);
  if (!loop.ok()) return loop.status();
  std::set<std::string> fragments;
  for (size_t i : IndicesOfOps(f, *loop, TensorOps())) {
    const std::vector<std::string>& operands = f.code[i].operands;
    if (operands.size() < 3) continue;
    std::string a = WithoutReuse(operands[1]);
    // A descriptor operand names A's and B's tiles together.
    if (!absl::StartsWith(a, "gdesc")) absl::StrAppend(&a, " ", WithoutReuse(operands[2]));
    fragments.insert(a);
  }
  return std::vector<std::string>(fragments.begin(), fragments.end());
}

absl::Status CheckTimedFragments(const SassFunction& f, int min_fragments) {
  absl::StatusOr<std::vector<std::string>> fragments = TimedFragments(f);
  if (!fragments.ok()) return fragments.status();
  if (static_cast<int>(fragments->size()) >= min_fragments) return absl::OkStatus();
  const absl::StatusOr<SassLoop> loop = TimedTensorLoop(f);
  return absl::FailedPreconditionError(absl::StrCat(
      f.name, " (", f.arch, "): the timed loop reads ", fragments->size(),
      " distinct A/B fragment(s) (", absl::StrJoin(*fragments, "; "), "), want at least ",
      min_fragments, "; its body:\n", LoopListing(f, *loop)));
}

absl::Status CheckNoAddedLoopWork(const SassFunction& constant, const SassFunction& cycling) {
  absl::StatusOr<SassLoop> constant_loop = TimedTensorLoop(constant);
  if (!constant_loop.ok()) return constant_loop.status();
  absl::StatusOr<SassLoop> cycling_loop = TimedTensorLoop(cycling);
  if (!cycling_loop.ok()) return cycling_loop.status();
  const int before = LoopWork(constant, *constant_loop);
  const int after = LoopWork(cycling, *cycling_loop);
  if (after <= before) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      cycling.name, " (", cycling.arch, "): the timed loop holds ", after,
      " instructions besides tensor instructions and NOPs, the constant-operand loop ", before,
      "; cycling:\n", LoopListing(cycling, *cycling_loop), "constant:\n",
      LoopListing(constant, *constant_loop)));
}

absl::Status CheckTimedRegionStart(const SassFunction& f, int acc_regs) {
  absl::StatusOr<SassLoop> loop = TimedTensorLoop(f);
  if (!loop.ok()) return loop.status();
  std::set<int> accumulators;
  for (size_t i = loop->head; i <= loop->branch; ++i) {
    const SassInstruction& in = f.code[i];
    if (!IsTensorOp(in.op)) continue;
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
