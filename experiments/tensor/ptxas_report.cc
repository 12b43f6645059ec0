// ptxas -v report reading; see ptxas_report.h.
#include "experiments/tensor/ptxas_report.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dissect {
namespace {

// The text between the first pair of single quotes after `from`.
absl::string_view Quoted(absl::string_view line, size_t from) {
  const size_t open = line.find('\'', from);
  if (open == absl::string_view::npos) return {};
  const size_t close = line.find('\'', open + 1);
  if (close == absl::string_view::npos) return {};
  return line.substr(open + 1, close - open - 1);
}

// The integer right before `suffix` in `line` ("984 bytes stack frame").
bool NumberBefore(absl::string_view line, absl::string_view suffix, int* value) {
  const size_t at = line.find(suffix);
  if (at == absl::string_view::npos) return false;
  absl::string_view head = absl::StripTrailingAsciiWhitespace(line.substr(0, at));
  const size_t space = head.find_last_of(" ,:");
  const absl::string_view number = space == absl::string_view::npos ? head : head.substr(space + 1);
  return absl::SimpleAtoi(number, value);
}

absl::Status Complete(const KernelResources& k) {
  if (k.spill_store_bytes < 0 || k.spill_load_bytes < 0 || k.stack_frame_bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("no 'spill stores/loads' line for entry ", k.entry));
  }
  if (k.registers < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("no 'Used N registers' line for entry ", k.entry));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<KernelResources>> ParsePtxasReport(absl::string_view text) {
  std::vector<KernelResources> kernels;
  KernelResources* current = nullptr;
  constexpr absl::string_view kEntry = "Compiling entry function";
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (const size_t at = line.find(kEntry); at != absl::string_view::npos) {
      if (current != nullptr) {
        if (absl::Status s = Complete(*current); !s.ok()) return s;
      }
      KernelResources k;
      k.entry = std::string(Quoted(line, at));
      const size_t for_at = line.find(" for ", at);
      if (for_at != absl::string_view::npos) k.arch = std::string(Quoted(line, for_at));
      if (k.entry.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("unreadable line: ", line));
      }
      kernels.push_back(std::move(k));
      current = &kernels.back();
      continue;
    }
    if (current == nullptr) continue;
    if (absl::StrContains(line, "bytes spill stores")) {
      if (!NumberBefore(line, "bytes stack frame", &current->stack_frame_bytes) ||
          !NumberBefore(line, "bytes spill stores", &current->spill_store_bytes) ||
          !NumberBefore(line, "bytes spill loads", &current->spill_load_bytes)) {
        return absl::InvalidArgumentError(absl::StrCat("unreadable line: ", line));
      }
    } else if (absl::StrContains(line, "Used ") && absl::StrContains(line, " registers")) {
      const size_t used = line.find("Used ");
      if (!NumberBefore(line.substr(used), " registers", &current->registers)) {
        return absl::InvalidArgumentError(absl::StrCat("unreadable line: ", line));
      }
    }
  }
  if (kernels.empty()) return absl::InvalidArgumentError("no 'Compiling entry function' line");
  if (absl::Status s = Complete(*current); !s.ok()) return s;
  return kernels;
}

}  // namespace dissect
