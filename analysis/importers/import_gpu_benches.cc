// Readers of gpu-benches' text logs (gpu-latency, gpu-cache, gpu-l2-cache,
// gpu-stream): the format check and one parser each.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "analysis/importers/import.h"
#include "analysis/importers/import_internal.h"
#include "analysis/results/results.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using import_internal::FileError;
using import_internal::LineError;
using import_internal::Number;
using import_internal::Sv;

// --- text logs --------------------------------------------------------------

struct Line {
  int number = 0;
  absl::string_view text;
};

// The lines of `text` that are not blank, with their 1-based numbers.
std::vector<Line> NonBlankLines(absl::string_view text) {
  std::vector<Line> lines;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) lines.push_back({number, line});
  }
  return lines;
}

std::vector<std::string> Tokens(absl::string_view line) {
  return absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
}

// Splits a unit glued to a number ("103ms" -> "103", "ms"; "1.0%" -> "1.0",
// "%"; also "kB"); other tokens are kept as they are.
std::vector<std::string> SplitGluedUnits(const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  for (const std::string& token : tokens) {
    size_t end = 0;
    while (end < token.size() && (std::isdigit(static_cast<unsigned char>(token[end])) ||
                                  token[end] == '.' || token[end] == '-' || token[end] == '+')) {
      ++end;
    }
    const std::string unit = token.substr(std::min(end, token.size()));
    if (end > 0 && (unit == "ms" || unit == "%" || unit == "kB")) {
      out.push_back(token.substr(0, end));
      out.push_back(token.substr(end));
    } else {
      out.push_back(token);
    }
  }
  return out;
}
bool AllNumbers(const std::vector<std::string>& tokens) {
  if (tokens.empty()) return false;
  for (const std::string& token : tokens) {
    if (!Number(token).has_value()) return false;
  }
  return true;
}

int CountNumbers(const std::vector<std::string>& tokens) {
  return static_cast<int>(std::count_if(tokens.begin(), tokens.end(), [](const std::string& token) {
    return Number(token).has_value();
  }));
}

// A row of numbers each followed by its unit (`units[i]`, "" for none).
absl::StatusOr<std::vector<double>> ParseUnitRow(const Line& line, absl::string_view path,
                                                 const std::vector<std::string>& units) {
  const std::vector<std::string> tokens = SplitGluedUnits(Tokens(line.text));
  const auto count_error = [&]() {
    std::vector<std::string> layout;
    for (const std::string& unit : units) layout.push_back(unit.empty() ? "<number>" : unit);
    return LineError(path, line.number,
                     absl::StrCat("expected ", units.size(), " fields (",
                                  absl::StrJoin(layout, " "), "), found ", CountNumbers(tokens)));
  };
  std::vector<double> values;
  size_t t = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    if (t >= tokens.size()) return count_error();
    const std::optional<double> value = Number(tokens[t]);
    if (!value.has_value()) {
      return LineError(path, line.number,
                       absl::StrCat("field ", i + 1, " '", tokens[t], "' is not a number"));
    }
    values.push_back(*value);
    ++t;
    if (units[i].empty()) continue;
    if (t >= tokens.size()) return count_error();
    if (tokens[t] != units[i]) {
      return LineError(path, line.number,
                       absl::StrCat("field ", i + 1, ": expected unit '", units[i], "', found '",
                                    tokens[t], "'"));
    }
    ++t;
  }
  if (t != tokens.size()) return count_error();
  return values;
}

// Reads an optional `clock: <MHz>...` line at lines[*next]; advances *next.
absl::Status ReadClockLine(const std::vector<Line>& lines, absl::string_view path, size_t* next,
                           std::vector<double>* readings) {
  if (*next >= lines.size() || !absl::StartsWith(lines[*next].text, "clock:")) {
    return absl::OkStatus();
  }
  const Line& line = lines[*next];
  for (const std::string& token : Tokens(line.text.substr(6))) {
    const std::optional<double> value = Number(token);
    if (!value.has_value()) {
      return LineError(path, line.number,
                       absl::StrCat("clock reading '", token, "' is not a number"));
    }
    readings->push_back(*value);
  }
  ++*next;
  return absl::OkStatus();
}

absl::Status NoRows(absl::string_view path, absl::string_view format) {
  return FileError(path, absl::StrCat("no ", format, " rows"));
}

// Reads the `data set ...` header at lines[*next]; advances *next.
absl::Status ReadDataSetHeader(const std::vector<Line>& lines, absl::string_view path,
                               absl::string_view format, size_t* next) {
  if (*next >= lines.size()) return NoRows(path, format);
  if (!absl::StrContains(lines[*next].text, "data set")) {
    return LineError(path, lines[*next].number,
                     absl::StrCat("expected the ", format, " header (data set  exec time ...)"));
  }
  ++*next;
  if (*next >= lines.size()) return NoRows(path, format);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> DetectGpuBenchesFormat(std::string_view text_in,
                                                   std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-benches output)");
  size_t next = 0;
  std::vector<double> clocks;
  if (absl::Status clock = ReadClockLine(lines, path, &next, &clocks); !clock.ok()) return clock;
  if (next >= lines.size()) return FileError(path, "only a clock line, no gpu-benches rows");
  const Line& first = lines[next];
  if (absl::StartsWith(first.text, "blockSize")) return std::string("gpu-stream");
  if (absl::StrContains(first.text, "data set")) {
    if (next + 1 < lines.size()) {
      const std::vector<std::string> row = SplitGluedUnits(Tokens(lines[next + 1].text));
      if (row.size() >= 4 && row[1] == "kB" && row[3] == "kB") return std::string("gpu-l2-cache");
    }
    return std::string("gpu-cache");
  }
  if (AllNumbers(Tokens(first.text))) return std::string("gpu-latency");
  std::string excerpt(first.text.substr(0, 40));
  return LineError(path, first.number,
                   absl::StrCat("unknown format: not gpu-latency, gpu-cache, gpu-l2-cache or "
                                "gpu-stream output (starts '",
                                excerpt, "')"));
}

absl::StatusOr<GpuLatencyLog> ParseGpuLatencyLog(std::string_view text_in,
                                                 std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-latency output)");
  GpuLatencyLog log;
  size_t next = 0;
  if (absl::Status clock = ReadClockLine(lines, path, &next, &log.clock_readings_mhz);
      !clock.ok()) {
    return clock;
  }
  if (next >= lines.size()) return NoRows(path, "gpu-latency");
  const std::vector<std::string> units(8, "");
  for (; next < lines.size(); ++next) {
    absl::StatusOr<std::vector<double>> v = ParseUnitRow(lines[next], path, units);
    if (!v.ok()) return v.status();
    GpuLatencyRow row;
    row.line = lines[next].number;
    row.iterations = (*v)[0];
    row.clock_mhz = (*v)[1];
    row.footprint_kb = (*v)[2];
    row.time_ms = (*v)[3];
    row.cycles_typical = (*v)[4];
    row.cycles_median = (*v)[5];
    row.cycles_p05 = (*v)[6];
    row.cycles_p95 = (*v)[7];
    if (row.clock_mhz <= 0) return LineError(path, row.line, "SM clock (field 2) is not positive");
    log.rows.push_back(row);
  }
  return log;
}

absl::StatusOr<GpuCacheLog> ParseGpuCacheLog(std::string_view text_in, std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-cache output)");
  GpuCacheLog log;
  size_t next = 0;
  if (absl::Status clock = ReadClockLine(lines, path, &next, &log.clock_readings_mhz);
      !clock.ok()) {
    return clock;
  }
  if (absl::Status header = ReadDataSetHeader(lines, path, "gpu-cache", &next); !header.ok()) {
    return header;
  }
  const std::vector<std::string> units = {"kB", "ms", "%", "GB/s", "GB/s", "GB/s", "GB/s", "GB/s"};
  for (; next < lines.size(); ++next) {
    absl::StatusOr<std::vector<double>> v = ParseUnitRow(lines[next], path, units);
    if (!v.ok()) return v.status();
    GpuCacheRow row;
    row.line = lines[next].number;
    row.data_set_kb = (*v)[0];
    row.time_ms = (*v)[1];
    row.spread_pct = (*v)[2];
    row.bandwidth_gbps = (*v)[3];
    row.dram_read_gbps = (*v)[4];
    row.dram_write_gbps = (*v)[5];
    row.l2_read_gbps = (*v)[6];
    row.l2_write_gbps = (*v)[7];
    log.rows.push_back(row);
  }
  return log;
}

absl::StatusOr<GpuL2CacheLog> ParseGpuL2CacheLog(std::string_view text_in,
                                                 std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-l2-cache output)");
  GpuL2CacheLog log;
  size_t next = 0;
  if (absl::Status clock = ReadClockLine(lines, path, &next, &log.clock_readings_mhz);
      !clock.ok()) {
    return clock;
  }
  if (absl::Status header = ReadDataSetHeader(lines, path, "gpu-l2-cache", &next); !header.ok()) {
    return header;
  }
  const std::vector<std::string> units = {"kB",   "kB",   "ms",   "%",   "GB/s",
                                          "GB/s", "GB/s", "GB/s", "GB/s"};
  for (; next < lines.size(); ++next) {
    absl::StatusOr<std::vector<double>> v = ParseUnitRow(lines[next], path, units);
    if (!v.ok()) return v.status();
    GpuL2CacheRow row;
    row.line = lines[next].number;
    row.block_data_set_kb = (*v)[0];
    row.footprint_kb = (*v)[1];
    row.time_ms = (*v)[2];
    row.spread_pct = (*v)[3];
    row.bandwidth_gbps = (*v)[4];
    row.dram_read_gbps = (*v)[5];
    row.dram_write_gbps = (*v)[6];
    row.l2_read_gbps = (*v)[7];
    row.l2_write_gbps = (*v)[8];
    log.rows.push_back(row);
  }
  return log;
}

absl::StatusOr<GpuStreamLog> ParseGpuStreamLog(std::string_view text_in, std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-stream output)");
  const Line& header = lines.front();
  const std::vector<std::string> head = Tokens(header.text);
  const auto bar = std::find(head.begin(), head.end(), "|");
  if (head.empty() || head.front() != "blockSize" || bar == head.end() || bar + 1 == head.end()) {
    return LineError(path, header.number,
                     "expected the gpu-stream header (blockSize threads %occ | <kernels>)");
  }
  GpuStreamLog log;
  log.kernels.assign(bar + 1, head.end());
  if (lines.size() < 2) return NoRows(path, "gpu-stream");
  for (size_t i = 1; i < lines.size(); ++i) {
    const Line& line = lines[i];
    const std::vector<std::string> tokens = Tokens(line.text);
    // <blockSize> <threads> <occ> % | GB/s: then the values.
    if (tokens.size() < 6 || tokens[3] != "%" || tokens[4] != "|" || tokens[5] != "GB/s:") {
      return LineError(path, line.number,
                       "expected '<blockSize> <threads> <occ> % | GB/s: <values>'");
    }
    GpuStreamRow row;
    row.line = line.number;
    for (int f = 0; f < 3; ++f) {
      const std::optional<double> value = Number(tokens[f]);
      if (!value.has_value()) {
        return LineError(path, line.number,
                         absl::StrCat("field ", f + 1, " '", tokens[f], "' is not a number"));
      }
      if (f == 0) row.block_size = static_cast<int>(std::lround(*value));
      if (f == 1) row.threads = *value;
      if (f == 2) row.occupancy_pct = *value;
    }
    int note = 0;
    for (size_t t = 6; t < tokens.size(); ++t) {
      if (tokens[t] == "!") {
        // "! <n> blocks per SM" before a value.
        std::optional<double> blocks = t + 1 < tokens.size() ? Number(tokens[t + 1]) : std::nullopt;
        if (!blocks.has_value() || t + 4 >= tokens.size() || tokens[t + 2] != "blocks" ||
            tokens[t + 3] != "per" || tokens[t + 4] != "SM") {
          return LineError(path, line.number, "malformed '! <n> blocks per SM' note");
        }
        note = static_cast<int>(std::lround(*blocks));
        t += 4;
        continue;
      }
      const std::optional<double> value = Number(tokens[t]);
      if (!value.has_value()) {
        return LineError(path, line.number,
                         absl::StrCat("bandwidth '", tokens[t], "' is not a number"));
      }
      row.gbps.push_back(*value);
      row.blocks_per_sm_note.push_back(note);
      note = 0;
    }
    if (row.gbps.size() != log.kernels.size()) {
      return LineError(path, line.number,
                       absl::StrCat("expected ", log.kernels.size(), " bandwidths (",
                                    absl::StrJoin(log.kernels, " "), "), found ", row.gbps.size()));
    }
    log.rows.push_back(std::move(row));
  }
  return log;
}

}  // namespace dissect::analysis
