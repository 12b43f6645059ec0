// The verdict's inputs beside the result files (see verdict.h): the peers'
// published files, imported in-process, and ncu's CSV logs.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "analysis/importers/import.h"
#include "analysis/sections/verdict.h"

namespace dissect::analysis {
namespace {

std::optional<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

VerdictPeerTable LoadPeer(const VerdictPeer& peer, const std::string& dir) {
  VerdictPeerTable table{peer, std::nullopt, ""};
  const std::string path = dir + "/" + peer.file;
  const std::optional<std::string> text = ReadWhole(path);
  if (!text) {
    table.problem = path + ": cannot read";
    return table;
  }
  ImportOptions options;
  options.from = peer.from;
  options.source_version = peer.source_version;
  options.device_name = peer.device_name;
  options.compute_capability = peer.compute_capability;
  options.sm_count = peer.sm_count;
  options.l2_bytes = peer.l2_bytes;
  absl::StatusOr<ImportedFile> imported = ImportPeerText(*text, path, options);
  if (!imported.ok()) {
    table.problem = std::string(imported.status().message());
    return table;
  }
  absl::StatusOr<ResultFile> file = ParseResultJson(imported->json, path);
  if (!file.ok()) {
    table.problem = std::string(file.status().message());
    return table;
  }
  absl::StatusOr<std::vector<DeviceHierarchy>> tables = InferMemoryHierarchies({*std::move(file)});
  if (!tables.ok() || tables->empty()) {
    table.problem = path + ": no memory hierarchy inferred" +
                    (tables.ok() ? "" : ": " + std::string(tables.status().message()));
    return table;
  }
  table.hierarchy = tables->front();
  return table;
}

// The fields of one CSV line (RFC 4180 quoting; ncu quotes every field).
std::vector<std::string> CsvFields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

// ncu scales a unit with decimal prefixes (Kbyte = 1e3 byte) unless run
// with --print-units base: the factor to base units, 1 for a unit without
// one.
double UnitScale(const std::string& unit) {
  if (unit.size() > 1 && absl::ascii_islower(unit[1])) {
    switch (unit[0]) {
      case 'K': return 1e3;
      case 'M': return 1e6;
      case 'G': return 1e9;
      case 'T': return 1e12;
      default: break;
    }
  }
  return 1;
}

// A value as ncu prints it ("1,073,741,824" or "1073741824"); nullopt for
// text ("n/a").
std::optional<double> NcuNumber(const std::string& text) {
  double value = 0;
  const std::string bare = absl::StrReplaceAll(absl::StripAsciiWhitespace(text), {{",", ""}});
  if (bare.empty() || !absl::SimpleAtod(bare, &value) || !std::isfinite(value)) return std::nullopt;
  return value;
}

int Column(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

// The details page: one row per metric, "ID", ..., "Metric Name", "Metric
// Unit", "Metric Value"; the rows of the first ID (the first kernel).
void ReadDetails(const std::vector<std::vector<std::string>>& rows, NcuCsv& csv) {
  const std::vector<std::string>& header = rows.front();
  const int id = Column(header, "ID"), name = Column(header, "Metric Name");
  const int unit = Column(header, "Metric Unit"), value = Column(header, "Metric Value");
  std::string first_id;
  for (size_t r = 1; r < rows.size(); ++r) {
    const std::vector<std::string>& f = rows[r];
    if (static_cast<int>(f.size()) != static_cast<int>(header.size())) continue;
    if (id >= 0 && first_id.empty()) first_id = f[id];
    if (id >= 0 && f[id] != first_id) break;
    const std::optional<double> number = NcuNumber(f[value]);
    if (!number) continue;
    csv.values.emplace(f[name], *number * (unit >= 0 ? UnitScale(f[unit]) : 1));
  }
}

// The raw page: one column per metric, a row of units, then one row per
// kernel; the first kernel's.
void ReadRaw(const std::vector<std::vector<std::string>>& rows, NcuCsv& csv) {
  if (rows.size() < 3) return;
  const std::vector<std::string>& header = rows[0];
  const std::vector<std::string>& units = rows[1];
  const std::vector<std::string>& first = rows[2];
  for (size_t c = 0; c < header.size() && c < first.size(); ++c) {
    if (header[c].find("__") == std::string::npos) continue;
    const std::optional<double> number = NcuNumber(first[c]);
    if (number) csv.values.emplace(header[c], *number * (c < units.size() ? UnitScale(units[c]) : 1));
  }
}

}  // namespace

VerdictPeers LoadVerdictPeers(const VerdictRanges& ranges, const std::string& dir) {
  VerdictPeers peers;
  peers.dir = dir;
  for (const VerdictPeer& peer : ranges.peers) peers.tables.push_back(LoadPeer(peer, dir));
  return peers;
}

absl::StatusOr<NcuCsv> ParseNcuCsv(std::string_view text, std::string_view path) {
  NcuCsv csv;
  csv.path = std::string(path);
  std::vector<std::vector<std::string>> rows;
  const std::vector<std::string> lines = absl::StrSplit(std::string(text), '\n');
  for (const std::string& line : lines) {
    if (rows.empty() && !absl::StartsWith(line, "\"ID\"") && !absl::StartsWith(line, "ID,")) {
      continue;  // ==PROF== lines and the application's own output
    }
    if (!line.empty()) rows.push_back(CsvFields(line));
  }
  if (rows.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(csv.path, ": no ncu CSV header (\"ID\",...)"));
  }
  if (Column(rows.front(), "Metric Name") >= 0 && Column(rows.front(), "Metric Value") >= 0) {
    ReadDetails(rows, csv);
  } else {
    ReadRaw(rows, csv);
  }
  return csv;
}

std::vector<std::string> CollectCsvPaths(const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const std::string& arg : args) {
    std::error_code error;
    if (fs::is_directory(arg, error)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(arg, error), end; !error && it != end;
           it.increment(error)) {
        if (it->is_regular_file(error) && it->path().extension() == ".csv") {
          found.push_back(it->path().string());
        }
      }
      std::sort(found.begin(), found.end());
      paths.insert(paths.end(), found.begin(), found.end());
    } else if (absl::EndsWith(arg, ".csv")) {
      paths.push_back(arg);
    }
  }
  return paths;
}

}  // namespace dissect::analysis
