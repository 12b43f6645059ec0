// How a result file encodes a row, shared by the reader's two parsers
// (reader.cc, fast_parser.cc): the members Google Benchmark writes itself,
// the non-finite numbers it writes as bare tokens, and the axes in a row's
// name. Not part of the reader's API (reader.h).
#ifndef DISSECT_EXPERIMENTS_RESULT_FORMAT_ROW_ENCODING_H_
#define DISSECT_EXPERIMENTS_RESULT_FORMAT_ROW_ENCODING_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "experiments/result_format/reader.h"

namespace dissect::result_format::internal {

// Debian's Abseil is built with its own absl::string_view, distinct from
// std::string_view; the public API uses std::string_view.
inline absl::string_view Sv(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// Members Google Benchmark writes itself; every other numeric member of a row
// is a counter.
bool IsFixedRowMember(absl::string_view key);

// `s` quoted and C-escaped, as error messages show names and values.
std::string Quote(absl::string_view s);

// Google Benchmark writes non-finite doubles as bare NaN / Infinity /
// -Infinity, which is not JSON. Sanitize() wraps those tokens (outside
// strings) in quotes so the parser accepts them; counters read them back.
// `insert_ends` holds, for each wrapped token, its end offset in the
// sanitized text, so parser byte offsets can be mapped back.
struct Sanitized {
  std::string text;
  std::vector<size_t> insert_ends;
};

// True when `in` has no NaN / Infinity token to wrap: Sanitize would
// return it unchanged.
bool NeedsNoSanitizing(absl::string_view in);

Sanitized Sanitize(absl::string_view in);

// The value of a wrapped non-finite token ("NaN", "-Infinity", ...), or
// nullopt for any other string.
std::optional<double> NonFiniteToken(absl::string_view s);

// The comma-separated items of `list`, trimmed, empty ones dropped.
std::vector<std::string> SplitList(absl::string_view list);

// The axes of `row` (its name set) from its name: the experiment prefix and
// the axis:value segments. Errors name the row as benchmarks[index].
absl::Status ParseRowAxes(size_t index, const ResultFile& file, Row& row);

// The dissect keys of a file's context (already in file.context): schema
// version, experiment, axes and metrics (reader.cc).
absl::Status CheckContext(absl::string_view path, ResultFile& file);

// The fast reader of a file of the common shape (fast_parser.cc); nullopt
// where it gives up, and the nlohmann::json reader takes over.
std::optional<ResultFile> ParseCommonShape(absl::string_view text, absl::string_view path);

}  // namespace dissect::result_format::internal

#endif  // DISSECT_EXPERIMENTS_RESULT_FORMAT_ROW_ENCODING_H_
