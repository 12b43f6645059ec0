// Published reference values (see published.h).

#include "analysis/sections/published.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using Json = nlohmann::json;

// Debian's Abseil has its own absl::string_view; the API uses std's.
absl::string_view Sv(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

struct QuantityInfo {
  const char* name;
  const char* unit;
};

constexpr QuantityInfo kQuantities[] = {
    {"latency_cycles", "cycles"},
    {"latency_ns", "ns"},
    {"capacity_bytes", "B"},
    {"line_bytes", "B"},
    {"sector_bytes", "B"},
    {"bandwidth_gbps", "GB/s"},
    {"bandwidth_bytes_per_clk_per_sm", "B/clk/SM"},
    {"bandwidth_bytes_per_clk", "B/clk"},
};

// Reads the string member `key` of `object` into `out`. Missing is an error
// when `required`.
absl::Status GetString(const Json& object, const char* key, bool required,
                       const std::string& where, std::string& out) {
  const auto it = object.find(key);
  if (it == object.end()) {
    if (!required) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(where, " has no \"", key, "\""));
  }
  if (!it->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " \"", key, "\" is not a string"));
  }
  out = it->get<std::string>();
  if (required && absl::StripAsciiWhitespace(out).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " \"", key, "\" is empty"));
  }
  return absl::OkStatus();
}

absl::StatusOr<DeviceMatch> ParseDevice(const Json& j,
                                        const std::string& where) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " \"device\" is not an object"));
  }
  DeviceMatch match;
  for (const auto& [key, value] : j.items()) {
    if (key == "name_contains") {
      if (!value.is_array() || value.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, " device \"name_contains\" must be a non-empty array"));
      }
      for (const Json& name : value) {
        if (!name.is_string() || name.get<std::string>().empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, " device \"name_contains\" holds a non-string or empty"));
        }
        match.name_contains.push_back(name.get<std::string>());
      }
    } else if (key == "compute_capability") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where,
                         " device \"compute_capability\" must be a string like "
                         "\"9.0\""));
      }
      match.compute_capability = value.get<std::string>();
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " device has unknown key \"", key, "\""));
    }
  }
  if (match.name_contains.empty() && match.compute_capability.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " device needs name_contains and/or compute_capability"));
  }
  return match;
}

absl::StatusOr<PublishedSource> ParseSource(const Json& j,
                                            const std::string& where) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " \"source\" is not an object"));
  }
  const std::string in = absl::StrCat(where, " source");
  PublishedSource source;
  for (const auto& [key, unused] : j.items()) {
    static constexpr absl::string_view kKeys[] = {"authors", "title", "venue",
                                                  "year",    "where", "url"};
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return absl::InvalidArgumentError(
          absl::StrCat(in, " has unknown key \"", key, "\""));
    }
  }
  for (auto [key, out] :
       {std::pair<const char*, std::string*>{"authors", &source.authors},
        {"title", &source.title},
        {"venue", &source.venue},
        {"where", &source.where}}) {
    if (absl::Status s = GetString(j, key, true, in, *out); !s.ok()) return s;
  }
  if (absl::Status s = GetString(j, "url", false, in, source.url); !s.ok()) {
    return s;
  }
  const auto year = j.find("year");
  if (year == j.end() || !year->is_number_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat(in, " needs an integer \"year\""));
  }
  source.year = year->get<int>();
  return source;
}

// An error unless `v`'s level is one of the table's and its unit the one of
// its quantity.
absl::Status CheckLevelAndUnit(const PublishedValue& v, const std::string& where) {
  const std::vector<std::string>& levels = HierarchyLevels();
  if (std::find(levels.begin(), levels.end(), v.level) == levels.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " level \"", v.level,
                     "\" is not one of the table's"
                     " levels (shared, L1, L2, L2 near, L2 far, DRAM, tex, "
                     "ldg, const)"));
  }
  const std::string unit = QuantityUnit(v.quantity);
  if (unit.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " unknown quantity \"", v.quantity, "\""));
  }
  if (v.unit != unit) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " unit of ", v.quantity, " must be \"", unit,
                     "\", not \"", v.unit, "\""));
  }
  return absl::OkStatus();
}

// The entry's "value", or its "range" (either bound may be null), into `v`.
absl::Status ParseValueOrRange(const Json& j, const std::string& where, PublishedValue& v) {
  const auto value = j.find("value");
  const auto range = j.find("range");
  if ((value == j.end()) == (range == j.end())) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " needs exactly one of \"value\" and \"range\""));
  }
  auto positive = [](const Json& x) {
    return x.is_number() && std::isfinite(x.get<double>()) &&
           x.get<double>() > 0;
  };
  if (value != j.end()) {
    if (!positive(*value)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " needs a positive number \"value\""));
    }
    v.value = value->get<double>();
  } else {
    const auto bad_range = absl::InvalidArgumentError(absl::StrCat(
        where,
        " \"range\" must be [low, high] of positive numbers, low <= high, "
        "one of them may be null"));
    if (!range->is_array() || range->size() != 2 ||
        ((*range)[0].is_null() && (*range)[1].is_null())) {
      return bad_range;
    }
    for (int i = 0; i < 2; ++i) {
      const Json& bound = (*range)[i];
      if (bound.is_null()) continue;
      if (!positive(bound)) return bad_range;
      (i == 0 ? v.range_low : v.range_high) = bound.get<double>();
    }
    if (v.range_low && v.range_high && *v.range_low > *v.range_high) {
      return bad_range;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PublishedValue> ParseEntry(const Json& j,
                                          const std::string& where) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " is not an object"));
  }
  static constexpr absl::string_view kKeys[] = {
      "device", "measured_on", "level",  "quantity",
      "value",  "range",       "unit",   "source", "note"};
  for (const auto& [key, unused] : j.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has unknown key \"", key, "\""));
    }
  }
  PublishedValue v;
  const auto device = j.find("device");
  if (device == j.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " has no \"device\""));
  }
  absl::StatusOr<DeviceMatch> match = ParseDevice(*device, where);
  if (!match.ok()) return match.status();
  v.device = *std::move(match);
  for (auto [key, out] :
       {std::pair<const char*, std::string*>{"measured_on", &v.measured_on},
        {"level", &v.level},
        {"quantity", &v.quantity},
        {"unit", &v.unit}}) {
    if (absl::Status s = GetString(j, key, true, where, *out); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = GetString(j, "note", false, where, v.note); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckLevelAndUnit(v, where); !s.ok()) return s;
  if (absl::Status s = ParseValueOrRange(j, where, v); !s.ok()) return s;
  const auto source = j.find("source");
  if (source == j.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " has no \"source\""));
  }
  absl::StatusOr<PublishedSource> parsed_source = ParseSource(*source, where);
  if (!parsed_source.ok()) return parsed_source.status();
  v.source = *std::move(parsed_source);
  return v;
}

}  // namespace

bool IsRange(const PublishedValue& v) {
  return v.range_low.has_value() || v.range_high.has_value();
}

bool InRange(const PublishedValue& v, double measured) {
  return (!v.range_low || measured >= *v.range_low) &&
         (!v.range_high || measured <= *v.range_high);
}

const std::vector<std::string>& PublishedQuantities() {
  static const auto* const kNames = [] {
    auto* names = new std::vector<std::string>;
    for (const QuantityInfo& q : kQuantities) names->push_back(q.name);
    return names;
  }();
  return *kNames;
}

std::string QuantityUnit(std::string_view quantity) {
  for (const QuantityInfo& q : kQuantities) {
    if (quantity == q.name) return q.unit;
  }
  return "";
}

const std::vector<std::string>& HierarchyLevels() {
  static const auto* const kLevels = new std::vector<std::string>{
      "shared", "L1", "L2", "L2 near", "L2 far", "DRAM", "tex", "ldg", "const"};
  return *kLevels;
}

absl::StatusOr<std::vector<PublishedValue>> ParsePublishedJson(
    std::string_view text, std::string_view path_in) {
  const std::string path(path_in);
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": malformed JSON: ", what));
  }
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": top level is not an object"));
  }
  const auto format = doc.find("format");
  if (format == doc.end() || !format->is_string() ||
      format->get<std::string>() != kPublishedFormat) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": \"format\" must be \"", Sv(kPublishedFormat), "\""));
  }
  const auto entries = doc.find("entries");
  if (entries == doc.end() || !entries->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no \"entries\" array"));
  }
  std::vector<PublishedValue> values;
  for (size_t i = 0; i < entries->size(); ++i) {
    absl::StatusOr<PublishedValue> v =
        ParseEntry((*entries)[i], absl::StrCat(path, ": entries[", i, "]"));
    if (!v.ok()) return v.status();
    values.push_back(*std::move(v));
  }
  return values;
}

bool DeviceMatches(const DeviceMatch& match, std::string_view device_name,
                   std::string_view compute_capability) {
  if (!match.compute_capability.empty() &&
      match.compute_capability != compute_capability) {
    return false;
  }
  if (match.name_contains.empty()) return true;
  for (const std::string& name : match.name_contains) {
    if (absl::StrContains(absl::AsciiStrToLower(Sv(device_name)),
                          absl::AsciiStrToLower(name))) {
      return true;
    }
  }
  return false;
}

std::string ShortCitation(const PublishedSource& source) {
  const std::vector<std::string> authors =
      absl::StrSplit(source.authors, ',', absl::SkipWhitespace());
  std::string first = authors.empty() ? source.authors : authors.front();
  first = std::string(absl::StripAsciiWhitespace(first));
  const size_t space = first.rfind(' ');
  if (space != std::string::npos) first = first.substr(space + 1);
  return absl::StrCat(first, authors.size() > 1 ? " et al." : "", ", ",
                      source.venue, ", ", source.where);
}

}  // namespace dissect::analysis
