// Sweep files (see sweep_config.h).

#include "experiments/drivers/sweep/sweep_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "experiments/drivers/sweep/cli_util.h"
#include "nlohmann/json.hpp"
#include "tools/cli/user_path.h"

namespace dissect::sweep {
namespace {

// ordered_json keeps the axes in file order.
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

absl::Status Bad(const std::string& where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// Letters, digits and `extra`; non-empty.
bool IsToken(const std::string& s, absl::string_view extra) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [extra](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
           extra.find(c) != absl::string_view::npos;
  });
}

// JSON type names for messages.
std::string TypeOf(const Json& j) {
  if (j.is_number_integer()) return "integer";
  if (j.is_number()) return "number";
  return j.type_name();
}

absl::Status GetString(const Json& j, const std::string& where, const char* key, std::string& out) {
  if (!j.is_string()) {
    return Bad(where, absl::StrCat("\"", key, "\" must be a string, not ", TypeOf(j)));
  }
  out = j.get<std::string>();
  return absl::OkStatus();
}

// An integer >= `min`.
absl::Status GetInt(const Json& j, const std::string& where, const char* key, int min, int& out) {
  if (!j.is_number_integer()) {
    return Bad(where, absl::StrCat("\"", key, "\" must be an integer, not ", TypeOf(j)));
  }
  const int64_t v = j.get<int64_t>();
  if (v < min || v > 1000000) {
    return Bad(where, absl::StrCat("\"", key, "\" is ", v, "; it must be in ", min, "..1000000"));
  }
  out = static_cast<int>(v);
  return absl::OkStatus();
}

// A finite number, > 0 (`positive`) or >= 0.
absl::Status GetSeconds(const Json& j, const std::string& where, const char* key, bool positive,
                        double& out) {
  if (!j.is_number()) {
    return Bad(where, absl::StrCat("\"", key, "\" must be a number of seconds, not ", TypeOf(j)));
  }
  const double v = j.get<double>();
  if (!std::isfinite(v) || (positive ? v <= 0 : v < 0)) {
    return Bad(where, absl::StrCat("\"", key, "\" is ", j.dump(), "; it must be ",
                                   positive ? "positive" : "zero or positive", " (seconds)"));
  }
  out = v;
  return absl::OkStatus();
}

// Flags the runner sets itself, with the key that sets them.
struct ReservedFlag {
  const char* flag;
  const char* instead;
};
constexpr ReservedFlag kReservedFlags[] = {
    {"--benchmark_out", "the runner chooses the result file"},
    {"--samples", "use the entry's \"samples\""},
    {"--warmup", "use the entry's \"warmup\""},
    {"--axis", "use the entry's \"axes\""},
    {"--cooldown_s", "use \"defaults\": {\"cooldown_s\"}"},
    {"--resume", "the runner passes it when resuming"},
    {"--list", "the schema check passes it"},
    {"--help", "not for sweeps"},
};

absl::Status CheckArg(const std::string& arg, const std::string& where) {
  if (!absl::StartsWith(arg, "--") || arg.size() < 3) {
    return Bad(where, absl::StrCat("\"args\" entry \"", arg, "\" is not a --flag"));
  }
  const std::string name = arg.substr(0, arg.find('='));
  for (const ReservedFlag& r : kReservedFlags) {
    if (name == r.flag) {
      return Bad(where, absl::StrCat("\"args\" may not set ", r.flag, " (", r.instead, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckBinary(const std::string& binary, const std::string& where) {
  if (binary.empty() || binary.front() == '/' || binary.back() == '/') {
    return Bad(where, absl::StrCat("\"binary\" \"", binary,
                                   "\" must be a workspace-relative file path, e.g. "
                                   "\"experiments/tensor/wgmma\""));
  }
  for (const fs::path& part : fs::path(binary)) {
    if (part == ".." || part == ".") {
      return Bad(where, absl::StrCat("\"binary\" \"", binary, "\" may not contain . or .."));
    }
  }
  return absl::OkStatus();
}

// The sweep-wide defaults of "defaults".
struct Defaults {
  int samples = 0;
  int warmup = -1;
  double time_limit_s = 0;
};

absl::Status ParseDefaults(const Json& j, const std::string& where, Defaults& d,
                           double& cooldown_s) {
  if (!j.is_object()) return Bad(where, "\"defaults\" must be an object");
  for (const auto& [key, value] : j.items()) {
    absl::Status s;
    if (key == "samples") {
      s = GetInt(value, where + " defaults", "samples", 1, d.samples);
    } else if (key == "warmup") {
      s = GetInt(value, where + " defaults", "warmup", 0, d.warmup);
    } else if (key == "time_limit_s") {
      s = GetSeconds(value, where + " defaults", "time_limit_s", true, d.time_limit_s);
    } else if (key == "cooldown_s") {
      s = GetSeconds(value, where + " defaults", "cooldown_s", false, cooldown_s);
      // The harness's --cooldown_s range.
      if (s.ok() && cooldown_s > 3600) {
        s = Bad(where + " defaults", absl::StrCat("\"cooldown_s\" is ", value.dump(),
                                                  "; it must be at most 3600 (seconds)"));
      }
    } else {
      s = Bad(where, absl::StrCat("defaults: unknown key \"", key,
                                  "\" (known: samples, warmup, time_limit_s, cooldown_s)"));
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ParseAxes(const Json& j, const std::string& where, SweepEntry& e) {
  if (!j.is_object()) {
    return Bad(where,
               "\"axes\" must be an object of axis name -> values, e.g. "
               "{\"footprint_bytes\": \"4MiB,8MiB\"}");
  }
  for (const auto& [name, value] : j.items()) {
    if (!IsToken(name, "_")) {
      return Bad(where, absl::StrCat("axis name \"", name, "\" is not letters, digits and _"));
    }
    if (!value.is_string()) {
      return Bad(where,
                 absl::StrCat("axis \"", name, "\" value must be a string in --axis syntax (",
                              "e.g. \"4096\", \"1KiB:64KiB:*2\", \"hot,cold\"), not ",
                              TypeOf(value), " ", value.dump()));
    }
    const std::string values = value.get<std::string>();
    if (values.empty() || values != absl::StripAsciiWhitespace(values)) {
      return Bad(where, absl::StrCat("axis \"", name, "\" value \"", values,
                                     "\" is empty or has surrounding spaces"));
    }
    e.axes.emplace_back(name, values);
  }
  return absl::OkStatus();
}

absl::StatusOr<SweepEntry> ParseEntry(const Json& j, const std::string& file, size_t index,
                                      const Defaults& defaults) {
  std::string where = absl::StrCat(file, ": entry ", index + 1);
  if (!j.is_object()) return Bad(where, "is not an object");
  SweepEntry e;
  e.samples = defaults.samples;
  e.warmup = defaults.warmup;
  e.time_limit_s = defaults.time_limit_s;
  // The id first, so that every later message names the entry by it.
  if (const auto id = j.find("id"); id != j.end()) {
    if (absl::Status s = GetString(*id, where, "id", e.id); !s.ok()) return s;
    if (!IsToken(e.id, "_-.")) {
      return Bad(where, absl::StrCat("\"id\" \"", e.id,
                                     "\" must be letters, digits, _, - and . (it names files)"));
    }
    where = absl::StrCat(file, ": entry \"", e.id, "\"");
  } else {
    return Bad(where, "has no \"id\"");
  }
  bool has_binary = false;
  for (const auto& [key, value] : j.items()) {
    absl::Status s;
    if (key == "id") {
      continue;
    } else if (key == "experiment") {
      s = GetString(value, where, "experiment", e.experiment);
      if (s.ok() && !IsToken(e.experiment, "_")) {
        s = Bad(where,
                absl::StrCat("\"experiment\" \"", e.experiment, "\" is not letters, digits and _"));
      }
    } else if (key == "binary") {
      has_binary = true;
      s = GetString(value, where, "binary", e.binary);
      if (s.ok()) s = CheckBinary(e.binary, where);
    } else if (key == "axes") {
      s = ParseAxes(value, where, e);
    } else if (key == "samples") {
      s = GetInt(value, where, "samples", 1, e.samples);
    } else if (key == "warmup") {
      s = GetInt(value, where, "warmup", 0, e.warmup);
    } else if (key == "time_limit_s") {
      s = GetSeconds(value, where, "time_limit_s", true, e.time_limit_s);
    } else if (key == "args") {
      if (!value.is_array()) {
        s = Bad(where, "\"args\" must be an array of strings");
      }
      for (size_t i = 0; s.ok() && i < value.size(); ++i) {
        std::string arg;
        s = GetString(value[i], where, "args", arg);
        if (s.ok()) s = CheckArg(arg, where);
        if (s.ok()) e.args.push_back(arg);
      }
    } else if (key == "why") {
      s = GetString(value, where, "why", e.why);
    } else {
      s = Bad(where, absl::StrCat("unknown key \"", key,
                                  "\" (known: id, experiment, binary, axes, samples, warmup, "
                                  "time_limit_s, args, why)"));
    }
    if (!s.ok()) return s;
  }
  if (e.experiment.empty()) return Bad(where, "has no \"experiment\"");
  if (!has_binary) e.binary = "experiments/" + e.experiment;
  if (e.time_limit_s <= 0) {
    return Bad(where, "has no \"time_limit_s\" (give it one, or \"defaults\": {\"time_limit_s\"})");
  }
  return e;
}

// Parses `text`, reporting a key repeated within one object (which
// nlohmann::json would silently resolve) as an error.
absl::StatusOr<Json> ParseStrict(std::string_view text, const std::string& path) {
  std::vector<std::set<std::string>> keys;  // one set per open object
  std::string duplicate;
  const Json::parser_callback_t track = [&](int, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    if (event == Event::object_start) {
      keys.emplace_back();
    } else if (event == Event::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == Event::key && !keys.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!keys.back().insert(key).second && duplicate.empty()) duplicate = key;
    }
    return true;
  };
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end(), track);
  } catch (const Json::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    return Bad(path, absl::StrCat("malformed JSON: ", what));
  }
  if (!duplicate.empty()) {
    return Bad(path, absl::StrCat("key \"", duplicate, "\" appears twice in one object"));
  }
  return doc;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return text.str();
}

bool IsFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// The sweep names (file stems) under the first root that has configs/sweeps.
std::vector<std::string> KnownSweeps(const std::vector<std::string>& roots) {
  for (const std::string& root : roots) {
    std::error_code ec;
    fs::directory_iterator it(root + "/configs/sweeps", ec);
    if (ec) continue;
    std::vector<std::string> names;
    for (const fs::directory_entry& f : it) {
      if (f.path().extension() == ".json") names.push_back(f.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  return {};
}

}  // namespace

double Sweep::TotalTimeLimit() const {
  double total = 0;
  for (const SweepEntry& e : entries) total += e.time_limit_s;
  return total;
}

absl::StatusOr<Sweep> ParseSweepJson(std::string_view text, std::string_view path_in) {
  const std::string path(path_in);
  absl::StatusOr<Json> parsed = ParseStrict(text, path);
  if (!parsed.ok()) return parsed.status();
  const Json& doc = *parsed;
  if (!doc.is_object()) return Bad(path, "top level is not an object");
  const auto format = doc.find("format");
  if (format == doc.end() || !format->is_string() || format->get<std::string>() != kSweepFormat) {
    return Bad(path,
               absl::StrCat("\"format\" must be \"", kSweepFormat, "\"",
                            format == doc.end() ? "" : absl::StrCat(", not ", format->dump())));
  }
  Sweep sweep;
  sweep.path = path;
  Defaults defaults;
  const Json* entries = nullptr;
  for (const auto& [key, value] : doc.items()) {
    absl::Status s;
    if (key == "format") {
      continue;
    } else if (key == "name") {
      s = GetString(value, path, "name", sweep.name);
      if (s.ok() && !IsToken(sweep.name, "_-")) {
        s = Bad(path,
                absl::StrCat("\"name\" \"", sweep.name, "\" must be letters, digits, _ and -"));
      }
    } else if (key == "description") {
      s = GetString(value, path, "description", sweep.description);
    } else if (key == "defaults") {
      s = ParseDefaults(value, path, defaults, sweep.cooldown_s);
    } else if (key == "budget_s") {
      double budget = 0;
      s = GetSeconds(value, path, "budget_s", true, budget);
      sweep.budget_s = budget;
    } else if (key == "needs_gpu") {
      if (!value.is_boolean()) {
        s = Bad(path, absl::StrCat("\"needs_gpu\" must be true or false, not ", TypeOf(value)));
      } else {
        sweep.needs_gpu = value.get<bool>();
      }
    } else if (key == "entries") {
      entries = &value;
    } else {
      s = Bad(path, absl::StrCat("unknown key \"", key,
                                 "\" (known: format, name, description, defaults, budget_s, "
                                 "needs_gpu, entries)"));
    }
    if (!s.ok()) return s;
  }
  if (sweep.name.empty()) return Bad(path, "has no \"name\"");
  if (entries == nullptr || !entries->is_array() || entries->empty()) {
    return Bad(path, "\"entries\" must be a non-empty array");
  }
  std::set<std::string> ids;
  for (size_t i = 0; i < entries->size(); ++i) {
    absl::StatusOr<SweepEntry> e = ParseEntry((*entries)[i], path, i, defaults);
    if (!e.ok()) return e.status();
    if (!ids.insert(e->id).second) {
      return Bad(path, absl::StrCat("entry ", i + 1, ": duplicate id \"", e->id, "\""));
    }
    sweep.entries.push_back(*std::move(e));
  }
  return sweep;
}

absl::StatusOr<Sweep> LoadSweep(const std::string& name_or_path) {
  std::string file;
  if (absl::EndsWith(name_or_path, ".json") || name_or_path.find('/') != std::string::npos) {
    file = cli::UserPath(name_or_path);
    if (!IsFile(file)) {
      return absl::NotFoundError(absl::StrCat("sweep file ", name_or_path, " not found"));
    }
  } else {
    if (!IsToken(name_or_path, "_-")) {
      return absl::InvalidArgumentError(
          absl::StrCat("sweep name \"", name_or_path,
                       "\" is not a name (letters, digits, _ and -) or a .json path"));
    }
    const std::vector<std::string> roots = ConfigRoots();
    for (const std::string& root : roots) {
      const std::string candidate = root + "/configs/sweeps/" + name_or_path + ".json";
      if (IsFile(candidate)) {
        file = candidate;
        break;
      }
    }
    if (file.empty()) {
      const std::vector<std::string> known = KnownSweeps(roots);
      return absl::NotFoundError(
          absl::StrCat("no sweep \"", name_or_path, "\" (configs/sweeps/", name_or_path, ".json); ",
                       known.empty() ? "no configs/sweeps folder found"
                                     : absl::StrCat("known: ", absl::StrJoin(known, ", "))));
    }
  }
  absl::StatusOr<std::string> text = ReadFile(file);
  if (!text.ok()) return text.status();
  return ParseSweepJson(*text, file);
}

std::vector<std::string> EntryArguments(const SweepEntry& e, double cooldown_s,
                                        const std::string& out_file, bool resume) {
  std::vector<std::string> args = {"--benchmark_out=" + out_file};
  if (e.samples > 0) args.push_back(absl::StrCat("--samples=", e.samples));
  if (e.warmup >= 0) args.push_back(absl::StrCat("--warmup=", e.warmup));
  for (const auto& [name, values] : e.axes) {
    args.push_back(absl::StrCat("--axis=", name, "=", values));
  }
  args.push_back(absl::StrCat("--cooldown_s=", cooldown_s));
  if (resume) args.push_back("--resume");
  args.insert(args.end(), e.args.begin(), e.args.end());
  return args;
}

}  // namespace dissect::sweep
