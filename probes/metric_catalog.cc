// The hardware-counter catalog; see metric_catalog.h.
#include "probes/metric_catalog.h"

#include <map>
#include <set>
#include <utility>

#include "absl/base/internal/raw_logging.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "probes/metric_catalog_embedded.h"

namespace dissect {
namespace {

using Json = nlohmann::json;

bool IsShortName(absl::string_view name) {
  if (name.empty() || !absl::ascii_islower(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '_') {
      return false;
    }
  }
  return true;
}

// The non-empty string member `key` of `object`.
absl::StatusOr<std::string> RequiredString(const Json& object, const char* key,
                                           absl::string_view where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string() ||
      absl::StripAsciiWhitespace(it->get<std::string>()).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " needs a non-empty string \"", key, "\""));
  }
  return it->get<std::string>();
}

absl::Status CheckKeys(const Json& object, std::set<std::string> allowed,
                       absl::string_view where) {
  if (!object.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " is not an object"));
  }
  for (const auto& [key, unused] : object.items()) {
    if (allowed.count(key) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has unknown key \"", key, "\""));
    }
  }
  return absl::OkStatus();
}

// The key of "perfworks" that names one metric for every declared chip.
constexpr char kAllChips[] = "all";

// The chip -> string object `key` of metric `m` (absent: empty), each chip
// declared (or "all", where `all_allowed`) and each value one non-empty line.
absl::StatusOr<std::map<std::string, std::string>> ChipStrings(
    const Json& m, const char* key, bool all_allowed,
    const std::map<std::string, std::string>& chips, absl::string_view where) {
  std::map<std::string, std::string> out;
  const Json& object = m.value(key, Json::object());
  if (!object.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": \"", key, "\" must map chips to strings"));
  }
  for (const auto& [chip, value] : object.items()) {
    if (chips.count(chip) == 0 && !(all_allowed && chip == kAllChips)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": chip ", chip, " is not in \"chips\""));
    }
    if (!value.is_string() ||
        absl::StripAsciiWhitespace(value.get<std::string>()).empty() ||
        value.get<std::string>().find('\n') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": the ", chip, " ", key, " entry must be one non-empty line"));
    }
    out[chip] = value.get<std::string>();
  }
  return out;
}

// Fills metric.perfworks (with "all" spread over the declared chips that
// neither name their own metric nor are unavailable) and metric.unavailable
// from `m`, so that every declared chip is in exactly one of the two.
absl::Status ReadChipNames(const Json& m, absl::string_view where,
                           const std::map<std::string, std::string>& chips,
                           const std::vector<CatalogMetric>& earlier,
                           CatalogMetric& metric) {
  absl::StatusOr<std::map<std::string, std::string>> named =
      ChipStrings(m, "perfworks", /*all_allowed=*/true, chips, where);
  if (!named.ok()) return named.status();
  absl::StatusOr<std::map<std::string, std::string>> unavailable =
      ChipStrings(m, "unavailable", /*all_allowed=*/false, chips, where);
  if (!unavailable.ok()) return unavailable.status();
  metric.unavailable = *std::move(unavailable);
  const auto all = named->find(kAllChips);
  for (const auto& [chip, unused] : chips) {
    const auto own = named->find(chip);
    const bool is_unavailable = metric.unavailable.count(chip) != 0;
    if (own != named->end() && is_unavailable) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": chip ", chip, " has a perfworks name and is unavailable"));
    }
    if (is_unavailable) continue;
    if (own == named->end() && all == named->end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": chip ", chip,
          " needs a perfworks name (its own or \"all\") or an "
          "\"unavailable\" reason"));
    }
    const std::string& pw = own != named->end() ? own->second : all->second;
    if (pw.find_first_of(" ,\t") != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": the ", chip, " perfworks name must be one word"));
    }
    for (const CatalogMetric& other : earlier) {
      const auto it = other.perfworks.find(chip);
      if (it != other.perfworks.end() && it->second == pw) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": ", other.name, " already reads ", pw, " on ", chip));
      }
    }
    metric.perfworks[chip] = pw;
  }
  if (metric.perfworks.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": unavailable on every chip"));
  }
  return absl::OkStatus();
}

// Chip -> value turned around: each value with its chips, space-separated,
// or "every chip" where they are all `all_chips`.
std::map<std::string, std::string> ChipsByValue(
    const std::map<std::string, std::string>& by_chip,
    const std::map<std::string, std::string>& all_chips) {
  std::map<std::string, std::vector<std::string>> chips;
  for (const auto& [chip, value] : by_chip) chips[value].push_back(chip);
  std::map<std::string, std::string> out;
  for (const auto& [value, list] : chips) {
    out[value] = list.size() == all_chips.size() ? "every chip"
                                                 : absl::StrJoin(list, " ");
  }
  return out;
}

// metrics[i] of the catalog; `names` holds the names taken so far (it
// gains this one). Errors are the message after "<origin>: ".
absl::StatusOr<CatalogMetric> ParseMetric(const Json& m, size_t i,
                                          const std::map<std::string, std::string>& chips,
                                          const std::vector<CatalogMetric>& earlier,
                                          std::set<std::string>& names) {
  const auto fail = [](absl::string_view message) {
    return absl::InvalidArgumentError(message);
  };
  std::string where = absl::StrCat("metrics[", i, "]");
  if (absl::Status s = CheckKeys(
          m, {"name", "unit", "help", "perfworks", "unavailable"}, where);
      !s.ok()) {
    return fail(s.message());
  }
  CatalogMetric metric;
  absl::StatusOr<std::string> name = RequiredString(m, "name", where);
  if (!name.ok()) return fail(name.status().message());
  metric.name = *name;
  where = absl::StrCat("metric ", metric.name);
  if (!IsShortName(metric.name)) {
    return fail(absl::StrCat(where, ": names are [a-z][a-z0-9_]*"));
  }
  if (!names.insert(metric.name).second) {
    return fail(absl::StrCat(where, ": defined twice"));
  }
  absl::StatusOr<std::string> unit = RequiredString(m, "unit", where);
  if (!unit.ok()) return fail(unit.status().message());
  metric.unit = *unit;
  absl::StatusOr<std::string> help = RequiredString(m, "help", where);
  if (!help.ok()) return fail(help.status().message());
  metric.help = *help;
  if (absl::Status s = ReadChipNames(m, where, chips, earlier, metric); !s.ok()) {
    return fail(s.message());
  }
  return metric;
}

// groups[i] of the catalog, whose members must be metrics of `catalog`;
// `names` as for ParseMetric.
absl::StatusOr<CatalogGroup> ParseGroup(const Json& g, size_t i, const MetricCatalog& catalog,
                                        std::set<std::string>& names) {
  const auto fail = [](absl::string_view message) {
    return absl::InvalidArgumentError(message);
  };
  std::string where = absl::StrCat("groups[", i, "]");
  if (absl::Status s = CheckKeys(g, {"name", "help", "metrics"}, where);
      !s.ok()) {
    return fail(s.message());
  }
  CatalogGroup group;
  absl::StatusOr<std::string> name = RequiredString(g, "name", where);
  if (!name.ok()) return fail(name.status().message());
  group.name = *name;
  where = absl::StrCat("group ", group.name);
  if (!IsShortName(group.name)) {
    return fail(absl::StrCat(where, ": names are [a-z][a-z0-9_]*"));
  }
  if (!names.insert(group.name).second) {
    return fail(absl::StrCat(where, ": the name is taken"));
  }
  absl::StatusOr<std::string> help = RequiredString(g, "help", where);
  if (!help.ok()) return fail(help.status().message());
  group.help = *help;
  const Json& members = g.value("metrics", Json::array());
  if (!members.is_array() || members.empty()) {
    return fail(
        absl::StrCat(where, ": \"metrics\" must be a non-empty array"));
  }
  for (const Json& member : members) {
    if (!member.is_string() ||
        catalog.FindMetric(member.get<std::string>()) == nullptr) {
      return fail(absl::StrCat(where, ": member ", member.dump(),
                               " is not a metric"));
    }
    group.metrics.push_back(member.get<std::string>());
  }
  return group;
}

}  // namespace

absl::StatusOr<MetricCatalog> MetricCatalog::Parse(absl::string_view json,
                                                   absl::string_view origin) {
  const auto fail = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": ", message));
  };
  Json doc = Json::parse(json.begin(), json.end(), nullptr,
                         /*allow_exceptions=*/false);
  if (doc.is_discarded()) return fail("not valid JSON");
  if (absl::Status s =
          CheckKeys(doc, {"format", "about", "chips", "metrics", "groups"},
                    "the document");
      !s.ok()) {
    return fail(s.message());
  }
  if (doc.value("format", "") != kMetricCatalogFormat) {
    return fail(
        absl::StrCat("\"format\" must be \"", kMetricCatalogFormat, "\""));
  }
  MetricCatalog catalog;
  const Json& chips = doc.value("chips", Json::object());
  if (!chips.is_object() || chips.empty()) {
    return fail(
        "\"chips\" must be a non-empty object: chip name -> description");
  }
  for (const auto& [chip, text] : chips.items()) {
    if (!text.is_string())
      return fail(absl::StrCat("chip ", chip, ": not a string"));
    catalog.chips_[chip] = text.get<std::string>();
  }
  std::set<std::string> names;
  const Json& metrics = doc.value("metrics", Json::array());
  if (!metrics.is_array() || metrics.empty()) {
    return fail("\"metrics\" must be a non-empty array");
  }
  for (size_t i = 0; i < metrics.size(); ++i) {
    absl::StatusOr<CatalogMetric> metric =
        ParseMetric(metrics[i], i, catalog.chips_, catalog.metrics_, names);
    if (!metric.ok()) return fail(metric.status().message());
    catalog.metrics_.push_back(*std::move(metric));
  }
  const Json& groups = doc.value("groups", Json::array());
  if (!groups.is_array()) return fail("\"groups\" must be an array");
  for (size_t i = 0; i < groups.size(); ++i) {
    absl::StatusOr<CatalogGroup> group = ParseGroup(groups[i], i, catalog, names);
    if (!group.ok()) return fail(group.status().message());
    catalog.groups_.push_back(*std::move(group));
  }
  return catalog;
}

const MetricCatalog& MetricCatalog::Embedded() {
  static const MetricCatalog* catalog = [] {
    absl::StatusOr<MetricCatalog> c =
        Parse(kEmbeddedMetricCatalogJson, kEmbeddedMetricCatalogOrigin);
    // //probes:metric_catalog_test parses the same text: this cannot fail in
    // a binary whose tests passed.
    ABSL_RAW_CHECK(c.ok(), "the built-in metric catalog does not parse");
    return new MetricCatalog(*std::move(c));
  }();
  return *catalog;
}

const CatalogMetric* MetricCatalog::FindMetric(absl::string_view name) const {
  for (const CatalogMetric& m : metrics_) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const CatalogGroup* MetricCatalog::FindGroup(absl::string_view name) const {
  for (const CatalogGroup& g : groups_) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

absl::StatusOr<std::vector<const CatalogMetric*>> MetricCatalog::Resolve(
    absl::string_view spec) const {
  std::vector<const CatalogMetric*> out;
  std::set<std::string> seen;
  const auto add = [&](const CatalogMetric* m) {
    if (seen.insert(m->name).second) out.push_back(m);
  };
  for (absl::string_view token : absl::StrSplit(spec, ',')) {
    token = absl::StripAsciiWhitespace(token);
    if (token.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "empty metric name in '", spec, "'; valid metrics: ", MetricNames(),
          "; groups: ", GroupNames()));
    }
    if (const CatalogMetric* m = FindMetric(token); m != nullptr) {
      add(m);
    } else if (const CatalogGroup* g = FindGroup(token); g != nullptr) {
      for (const std::string& member : g->metrics) add(FindMetric(member));
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown metric '", token, "'; valid metrics: ", MetricNames(),
          "; groups: ", GroupNames()));
    }
  }
  return out;
}

std::string MetricCatalog::MetricNames() const {
  return absl::StrJoin(
      metrics_, ", ",
      [](std::string* out, const CatalogMetric& m) { out->append(m.name); });
}

std::string MetricCatalog::GroupNames() const {
  return absl::StrJoin(
      groups_, ", ",
      [](std::string* out, const CatalogGroup& g) { out->append(g.name); });
}

std::string MetricCatalog::Describe() const {
  std::string text = absl::StrCat(
      "Hardware counters (--metrics=NAME,NAME,... or a group; values land in "
      "each\n"
      "row as cupti/<name>, collected in replay passes after the timed "
      "samples).\n"
      "Chips (as CUPTI names them):\n");
  for (const auto& [chip, about] : chips_) {
    absl::StrAppendFormat(&text, "  %-8s %s\n", chip, about);
  }
  absl::StrAppend(&text, "\n");
  absl::StrAppendFormat(&text, "  %-24s %-12s %s\n", "metric", "unit", "help");
  for (const CatalogMetric& m : metrics_) {
    absl::StrAppendFormat(&text, "  %-24s %-12s %s\n", m.name, m.unit, m.help);
    for (const auto& [name, chips] : ChipsByValue(m.perfworks, chips_)) {
      absl::StrAppend(&text, std::string(40, ' '), name, " (", chips, ")\n");
    }
    for (const auto& [reason, chips] : ChipsByValue(m.unavailable, chips_)) {
      absl::StrAppend(&text, std::string(40, ' '), "unavailable on ", chips,
                      ": ", reason, "\n");
    }
  }
  absl::StrAppend(&text, "\nGroups:\n");
  for (const CatalogGroup& g : groups_) {
    absl::StrAppendFormat(&text, "  %-24s %s\n", g.name, g.help);
    absl::StrAppend(&text, "  ", std::string(24, ' '), " = ",
                    absl::StrJoin(g.metrics, ", "), "\n");
  }
  return text;
}

}  // namespace dissect
