// The verdict's ranges file (see verdict_ranges.h).

#include "analysis/sections/verdict_ranges.h"

#include <cmath>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using Json = nlohmann::json;

// A problem deep inside the nested entries, thrown up to ParseVerdictRanges,
// which turns it into one error line: the readers stay one call per field.
struct BadRanges {
  std::string message;
};

[[noreturn]] void Bad(const std::string& where, const std::string& what) {
  throw BadRanges{absl::StrCat(where, ": ", what)};
}

// Only these keys, each known to the reader: a typo is an error, not an
// ignored field.
void OnlyKeys(const Json& j, const std::string& where, const std::set<std::string>& keys) {
  if (!j.is_object()) Bad(where, "is not an object");
  for (const auto& [key, value] : j.items()) {
    if (keys.count(key) == 0) {
      Bad(where, absl::StrCat("unknown key \"", key, "\" (", absl::StrJoin(keys, ", "), ")"));
    }
  }
}

std::string String(const Json& j, const std::string& where, const char* key, bool required = true) {
  const auto it = j.find(key);
  if (it == j.end()) {
    if (required) Bad(where, absl::StrCat("has no \"", key, "\""));
    return "";
  }
  if (!it->is_string() || (required && it->get<std::string>().empty())) {
    Bad(where, absl::StrCat("\"", key, "\" is not a non-empty string"));
  }
  return it->get<std::string>();
}

std::vector<std::string> Strings(const Json& j, const std::string& where, const char* key,
                                 bool required) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it == j.end()) {
    if (required) Bad(where, absl::StrCat("has no \"", key, "\""));
    return out;
  }
  if (!it->is_array() || (required && it->empty())) {
    Bad(where, absl::StrCat("\"", key, "\" is not a non-empty array of strings"));
  }
  for (const Json& s : *it) {
    if (!s.is_string() || s.get<std::string>().empty()) {
      Bad(where, absl::StrCat("\"", key, "\" holds something other than a non-empty string"));
    }
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::optional<double> Number(const Json& j, const std::string& where, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>())) {
    Bad(where, absl::StrCat("\"", key, "\" is not a finite number"));
  }
  return it->get<double>();
}

std::optional<int> PositiveInt(const Json& j, const std::string& where, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (!it->is_number_integer() || it->get<int>() <= 0) {
    Bad(where, absl::StrCat("\"", key, "\" is not a positive integer"));
  }
  return it->get<int>();
}

VerdictSelector ParseSelector(const Json& j, const std::string& where) {
  OnlyKeys(j, where, {"experiment", "axes", "between", "metric", "reduce", "knob"});
  VerdictSelector s;
  s.experiment = String(j, where, "experiment");
  s.metric = String(j, where, "metric");
  s.reduce = String(j, where, "reduce");
  if (s.reduce != "median" && s.reduce != "max" && s.reduce != "best_of_medians") {
    Bad(where, "\"reduce\" must be median, max or best_of_medians");
  }
  s.knob = String(j, where, "knob", s.reduce == "best_of_medians");
  if (!s.knob.empty() && s.reduce != "best_of_medians") {
    Bad(where, "\"knob\" is only for reduce best_of_medians");
  }
  if (j.contains("axes")) {
    if (!j["axes"].is_object()) Bad(where, "\"axes\" is not an object");
    for (const auto& [axis, value] : j["axes"].items()) {
      if (!value.is_string()) Bad(where, absl::StrCat("axes \"", axis, "\" is not a string"));
      s.axes.emplace_back(axis, value.get<std::string>());
    }
  }
  if (j.contains("between")) {
    if (!j["between"].is_object()) Bad(where, "\"between\" is not an object");
    for (const auto& [axis, bounds] : j["between"].items()) {
      const std::string at = absl::StrCat(where, ": between \"", axis, "\"");
      if (!bounds.is_array() || bounds.size() != 2) Bad(at, "is not [low, high]");
      VerdictSelector::Between b{axis, std::nullopt, std::nullopt};
      for (int i = 0; i < 2; ++i) {
        if (bounds[i].is_null()) continue;
        if (!bounds[i].is_number()) Bad(at, "a bound is neither a number nor null");
        (i == 0 ? b.low : b.high) = bounds[i].get<double>();
      }
      if (b.low && b.high && *b.low > *b.high) Bad(at, "low > high");
      s.between.push_back(b);
    }
  }
  return s;
}

VerdictJudgement ParseJudgement(const Json& j, const std::string& where,
                                const VerdictRanges& ranges) {
  OnlyKeys(j, where, {"devices", "range", "why", "published"});
  VerdictJudgement judgement;
  judgement.devices = String(j, where, "devices");
  if (ranges.FindDeviceSet(judgement.devices) == nullptr) {
    Bad(where, absl::StrCat("device set \"", judgement.devices, "\" is not in device_sets"));
  }
  const auto range = j.find("range");
  if (range == j.end() || !range->is_array() || range->size() != 2 || !(*range)[0].is_number() ||
      !(*range)[1].is_number()) {
    Bad(where, "\"range\" is not [low, high] (numbers)");
  }
  judgement.low = (*range)[0].get<double>();
  judgement.high = (*range)[1].get<double>();
  if (!std::isfinite(judgement.low) || !std::isfinite(judgement.high) ||
      judgement.low > judgement.high) {
    Bad(where, "\"range\" low > high");
  }
  judgement.why = String(j, where, "why");
  if (!j.contains("published") || !j["published"].is_array()) {
    Bad(where, "\"published\" is not an array (empty when nothing is published)");
  }
  for (size_t i = 0; i < j["published"].size(); ++i) {
    const std::string at = absl::StrCat(where, ": published[", i, "]");
    const Json& p = j["published"][i];
    OnlyKeys(p, at, {"value", "unit", "source"});
    VerdictPublished published{String(p, at, "value"), String(p, at, "unit"),
                               String(p, at, "source")};
    const std::string key = published.source.substr(0, published.source.find(','));
    if (ranges.sources.count(key) == 0) {
      Bad(at, absl::StrCat("source \"", published.source,
                           "\" does not start with a key of \"sources\" and a comma"));
    }
    judgement.published.push_back(std::move(published));
  }
  return judgement;
}

VerdictHeadline ParseHeadline(const Json& j, const std::string& where,
                              const VerdictRanges& ranges) {
  OnlyKeys(j, where, {"id", "title", "unit", "measure", "peer", "judge", "likely_causes_low",
                      "likely_causes_high"});
  VerdictHeadline h;
  h.id = String(j, where, "id");
  const std::string at = absl::StrCat(where, " (", h.id, ")");
  h.title = String(j, at, "title");
  h.unit = String(j, at, "unit");
  if (!j.contains("measure") || !j["measure"].is_array() || j["measure"].empty()) {
    Bad(at, "\"measure\" is not a non-empty array");
  }
  for (size_t i = 0; i < j["measure"].size(); ++i) {
    h.measure.push_back(ParseSelector(j["measure"][i], absl::StrCat(at, ": measure[", i, "]")));
  }
  if (j.contains("peer")) {
    const std::string pw = absl::StrCat(at, ": peer");
    OnlyKeys(j["peer"], pw, {"levels", "quantity"});
    h.peer_levels = Strings(j["peer"], pw, "levels", true);
    h.peer_quantity = String(j["peer"], pw, "quantity");
    if (h.peer_quantity != "latency_cycles" && h.peer_quantity != "bandwidth") {
      Bad(pw, "\"quantity\" must be latency_cycles or bandwidth");
    }
  }
  if (!j.contains("judge") || !j["judge"].is_array() || j["judge"].empty()) {
    Bad(at, "\"judge\" is not a non-empty array");
  }
  for (size_t i = 0; i < j["judge"].size(); ++i) {
    h.judge.push_back(ParseJudgement(j["judge"][i], absl::StrCat(at, ": judge[", i, "]"), ranges));
  }
  h.causes_low = Strings(j, at, "likely_causes_low", true);
  h.causes_high = Strings(j, at, "likely_causes_high", true);
  return h;
}

VerdictDeviceSet ParseDeviceSet(const Json& j, const std::string& where) {
  OnlyKeys(j, where, {"id", "name_contains", "compute_capability", "sm_count", "about"});
  VerdictDeviceSet set;
  set.id = String(j, where, "id");
  set.name_contains = Strings(j, where, "name_contains", false);
  set.compute_capability = String(j, where, "compute_capability", false);
  set.sm_count = PositiveInt(j, where, "sm_count");
  set.about = String(j, where, "about", false);
  if (set.name_contains.empty() && set.compute_capability.empty() && !set.sm_count) {
    Bad(where, "matches every device (give name_contains, compute_capability or sm_count)");
  }
  return set;
}

VerdictPeer ParsePeer(const Json& j, const std::string& where) {
  OnlyKeys(j, where, {"file", "from", "source_version", "kind", "note", "device_name",
                      "compute_capability", "sm_count", "l2_bytes"});
  VerdictPeer peer;
  peer.file = String(j, where, "file");
  peer.from = String(j, where, "from");
  if (peer.from != "gpu-benches" && peer.from != "mt4g") Bad(where, "\"from\" must be gpu-benches or mt4g");
  peer.source_version = String(j, where, "source_version");
  peer.kind = String(j, where, "kind");
  peer.note = String(j, where, "note", false);
  if (j.contains("device_name")) peer.device_name = String(j, where, "device_name");
  if (j.contains("compute_capability")) peer.compute_capability = String(j, where, "compute_capability");
  peer.sm_count = PositiveInt(j, where, "sm_count");
  peer.l2_bytes = Number(j, where, "l2_bytes");
  if (peer.from == "gpu-benches" && !peer.device_name) {
    Bad(where, "a gpu-benches log names no device: \"device_name\" is required");
  }
  return peer;
}

VerdictCrossCheck ParseCrossCheck(const Json& j, const std::string& where) {
  OnlyKeys(j, where, {"id", "title", "ncu_metric", "row", "max_difference_pct", "why",
                      "likely_causes"});
  VerdictCrossCheck c;
  c.id = String(j, where, "id");
  c.title = String(j, where, "title");
  c.ncu_metric = String(j, where, "ncu_metric");
  c.why = String(j, where, "why");
  if (!j.contains("row")) Bad(where, "has no \"row\"");
  c.row = ParseSelector(j["row"], where + ": row");
  const std::optional<double> pct = Number(j, where, "max_difference_pct");
  if (!pct || *pct <= 0) Bad(where, "\"max_difference_pct\" is not a positive number");
  c.max_difference_pct = *pct;
  c.causes = Strings(j, where, "likely_causes", true);
  return c;
}

// The array member `key` (required when `required`), each element parsed
// by `parse(element, "<origin>: key[i]")`.
template <typename T, typename Parse>
std::vector<T> Array(const Json& j, const std::string& origin, const char* key, bool required,
                     Parse parse) {
  std::vector<T> out;
  if (!j.contains(key)) {
    if (required) Bad(origin, absl::StrCat("has no \"", key, "\""));
    return out;
  }
  if (!j[key].is_array() || (required && j[key].empty())) {
    Bad(origin, absl::StrCat("\"", key, "\" is not a non-empty array"));
  }
  for (size_t i = 0; i < j[key].size(); ++i) {
    out.push_back(parse(j[key][i], absl::StrCat(origin, ": ", key, "[", i, "]")));
  }
  return out;
}

void Parse(const Json& j, VerdictRanges& r) {
  const std::string& origin = r.origin;
  OnlyKeys(j, origin, {"format", "about", "sources", "device_sets", "kinds", "peers", "headlines",
                       "cross_checks"});
  if (!j.contains("sources") || !j["sources"].is_object() || j["sources"].empty()) {
    Bad(origin, "\"sources\" is not a non-empty object");
  }
  for (const auto& [key, text] : j["sources"].items()) {
    if (!text.is_string() || text.get<std::string>().empty()) {
      Bad(origin, absl::StrCat("sources \"", key, "\" is not a non-empty string"));
    }
    r.sources[key] = text.get<std::string>();
  }
  r.device_sets = Array<VerdictDeviceSet>(j, origin, "device_sets", true, ParseDeviceSet);
  r.kinds = Array<VerdictKind>(j, origin, "kinds", false, [](const Json& k, const std::string& w) {
    OnlyKeys(k, w, {"kind", "name_contains"});
    return VerdictKind{String(k, w, "kind"), Strings(k, w, "name_contains", true)};
  });
  r.peers = Array<VerdictPeer>(j, origin, "peers", false, ParsePeer);
  r.headlines = Array<VerdictHeadline>(
      j, origin, "headlines", true,
      [&r](const Json& h, const std::string& w) { return ParseHeadline(h, w, r); });
  r.cross_checks = Array<VerdictCrossCheck>(j, origin, "cross_checks", false, ParseCrossCheck);
  std::set<std::string> ids;
  for (const VerdictDeviceSet& s : r.device_sets) {
    if (!ids.insert("set " + s.id).second) Bad(origin, "device set \"" + s.id + "\" twice");
  }
  for (const VerdictHeadline& h : r.headlines) {
    if (!ids.insert(h.id).second) Bad(origin, "headline or cross-check id \"" + h.id + "\" twice");
  }
  for (const VerdictCrossCheck& c : r.cross_checks) {
    if (!ids.insert(c.id).second) Bad(origin, "headline or cross-check id \"" + c.id + "\" twice");
  }
}

}  // namespace

const VerdictDeviceSet* VerdictRanges::FindDeviceSet(std::string_view id) const {
  for (const VerdictDeviceSet& s : device_sets) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

absl::StatusOr<VerdictRanges> ParseVerdictRanges(std::string_view text, std::string_view origin) {
  const Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  VerdictRanges ranges;
  ranges.origin = std::string(origin);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(ranges.origin, ": not valid JSON"));
  }
  if (!json.is_object() || !json.contains("format") || json["format"] != kVerdictRangesFormat) {
    return absl::InvalidArgumentError(absl::StrCat(
        ranges.origin, ": not a verdict ranges file (\"format\" is not \"",
        std::string(kVerdictRangesFormat), "\")"));
  }
  try {
    Parse(json, ranges);
  } catch (const BadRanges& bad) {
    return absl::InvalidArgumentError(bad.message);
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(ranges.origin, ": ", e.what()));
  }
  return ranges;
}

}  // namespace dissect::analysis
