// Helpers shared by the report sections that group result files per device
// and turn rows into markdown cells: intergroup sharing (sharing.h) and
// activation sparsity (sparsity.h).

#ifndef DISSECT_ANALYSIS_SECTIONS_SECTION_UTIL_H_
#define DISSECT_ANALYSIS_SECTIONS_SECTION_UTIL_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/format/format.h"
#include "analysis/results/results.h"

namespace dissect::analysis {

// Files of one device (name, compute capability, SM count) and one source
// (ours, or an imported suite's `source`) share a section.
std::string SectionDeviceKey(const ResultFile& file);

// The section title of a file's device: its name, "(<source>)" for imported
// results.
std::string SectionTitle(const ResultFile& file);

// "<name> · cc 9.0 · 132 SMs".
std::string SectionDeviceLine(const ResultFile& file);

// A counter's value where it is finite.
std::optional<double> FiniteCounter(const Row& row, std::string_view counter);

// The row's real_time in µs; nullopt for an error row or an unknown unit.
std::optional<double> RowRealTimeUs(const Row& row);

// The value of note `key=<value>` in a row label whose notes are separated
// by ';' (usually "; "): the note's text after "key=", whitespace-trimmed;
// nullopt without such a note. `separator` ':' reads notes `key: <value>`.
std::optional<std::string> LabelNote(std::string_view label, std::string_view key,
                                     char separator = '=');

// A number (FormatNumber) or a percentage of a fraction (FormatPercent);
// kEmptyCell without a value.
std::string OptionalCell(const std::optional<double>& value);
std::string OptionalPercentCell(const std::optional<double>& fraction);

// An empty table of (header, right-aligned) columns.
MarkdownTable ColumnsTable(const std::vector<std::pair<std::string, bool>>& columns);

// Appends `text` to `list` unless it is already there (first-seen order).
void AddOnce(std::vector<std::string>& list, const std::string& text);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_SECTION_UTIL_H_
