#include "analysis/nightly/outliers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/results/results.h"

namespace dissect::analysis {
namespace {

constexpr double kMadScale = 1.4826;

// Identity of the card a run measured.
std::string CardKey(const RunInfo& info) {
  if (!info.device_uuid.empty()) return info.device_uuid;
  if (!info.device_serial.empty()) return info.device_serial;
  return absl::StrCat(info.host, "/", info.run_id);
}

// How a card is named in findings.
std::string CardName(const RunInfo& info) {
  if (!info.device_serial.empty()) return info.device_serial;
  if (!info.device_uuid.empty()) return info.device_uuid;
  return absl::StrCat(info.host, " ", info.run_id);
}

std::string SignedPercent(double fraction) {
  return absl::StrCat(fraction > 0 ? "+" : (fraction < 0 ? "-" : ""),
                      FormatPercent(std::fabs(fraction)));
}

std::string ValueText(double value, const std::string& unit) {
  return unit.empty() || unit == "-" ? FormatNumber(value)
                                     : absl::StrCat(FormatNumber(value), " ", unit);
}

std::string Describe(const OutlierFinding& finding) {
  return absl::StrCat(
      finding.point, " ", finding.metric, " ", ValueText(finding.value, finding.unit),
      " vs fleet median ", ValueText(finding.fleet_median, finding.unit), " (",
      SignedPercent(finding.deviation), ", band ±", FormatPercent(finding.threshold), ", ",
      finding.fleet_cards, " cards", finding.worse ? "" : ", better than the fleet",
      finding.throttled ? ", throttled" : "", ")");
}

// The cards of each model (device name -> card key -> the run used; the
// later run where a card was measured twice, said in `notes`), and the
// card keys in input order.
struct Fleets {
  std::map<std::string, std::map<std::string, const RunData*>> runs;
  std::map<std::string, std::vector<std::string>> order;
};

Fleets ChooseCards(const std::vector<RunData>& all_runs, std::vector<std::string>& notes) {
  Fleets f;
  auto& fleets = f.runs;
  auto& order = f.order;
  for (const RunData& run : all_runs) {
    const std::string model =
        run.info.device_name.empty() ? "unknown device" : run.info.device_name;
    const std::string key = CardKey(run.info);
    const RunData*& slot = fleets[model][key];
    if (slot == nullptr) {
      slot = &run;
      order[model].push_back(key);
      continue;
    }
    const RunData* later = run.info.started >= slot->info.started ? &run : slot;
    const RunData* earlier = later == &run ? slot : &run;
    notes.push_back(absl::StrCat("card ", CardName(run.info), " (", model,
                                 ") was measured twice: run ", later->info.run_id, " used, run ",
                                 earlier->info.run_id, " left out"));
    slot = later;
  }
  return f;
}

// One card's value of a (point, metric).
struct CardValue {
  const RunData* run;
  const RunPoint* point;
  const MetricValue* metric;
};

// Checks one (point, metric) `key` of `model`'s fleet against its band;
// counts it in `fleet`, adds the cards outside it to `outliers`.
void CheckFleetValue(const std::string& model, const std::pair<std::string, std::string>& key,
                     const std::vector<CardValue>& card_values, const Thresholds& thresholds,
                     FleetModel& fleet, std::vector<OutlierFinding>& outliers) {
  const std::string& experiment = card_values.front().point->experiment;
  const MetricThreshold& threshold = thresholds.For(experiment, key.second);
  if (threshold.ignore) return;
  if (static_cast<int>(card_values.size()) < kMinFleetCards) {
    ++fleet.skipped_few_cards;
    return;
  }
  ++fleet.checked;
  std::vector<double> numbers;
  for (const CardValue& value : card_values) numbers.push_back(value.metric->value);
  const double median = Median(numbers);
  std::vector<double> deviations;
  for (double number : numbers) deviations.push_back(std::fabs(number - median));
  const double scaled_mad = kMadScale * Median(deviations);
  const double band =
      std::max(threshold.fleet_k * scaled_mad, threshold.relative_tolerance * std::fabs(median));
  for (const CardValue& value : card_values) {
    const double difference = value.metric->value - median;
    if (std::fabs(difference) <= band) continue;
    OutlierFinding finding;
    finding.device_name = model;
    finding.card = CardName(value.run->info);
    finding.host = value.run->info.host;
    finding.run_id = value.run->info.run_id;
    finding.experiment = experiment;
    finding.point = key.first;
    finding.metric = key.second;
    finding.unit = value.metric->unit;
    finding.value = value.metric->value;
    finding.fleet_median = median;
    finding.scaled_mad = scaled_mad;
    finding.deviation = median != 0 ? difference / std::fabs(median) : std::nan("");
    finding.threshold = median != 0 ? band / std::fabs(median) : std::nan("");
    finding.fleet_cards = static_cast<int>(card_values.size());
    finding.worse = threshold.direction == Direction::kEither ||
                    (threshold.direction == Direction::kHigherIsBetter && difference < 0) ||
                    (threshold.direction == Direction::kLowerIsBetter && difference > 0);
    finding.throttled = value.point->throttled;
    outliers.push_back(std::move(finding));
  }
}

// One row per model: its cards, what was checked and how many were flagged.
MarkdownTable ModelsTable(const OutlierReport& report) {
  MarkdownTable models;
  models.columns = {
      {"model"}, {"cards", true}, {"(point, metric) checked", true}, {"outliers", true}, {"notes"}};
  for (const FleetModel& model : report.models) {
    std::set<std::string> flagged;
    for (const OutlierFinding& finding : report.outliers) {
      if (finding.device_name == model.device_name) flagged.insert(finding.card);
    }
    std::string notes;
    if (!model.enough_cards) {
      notes = absl::StrCat("fewer than ", kMinFleetCards, " cards: not checked");
    } else if (model.skipped_few_cards > 0) {
      notes =
          absl::StrCat(model.skipped_few_cards, " (point, metric) pair(s) measured on fewer than ",
                       kMinFleetCards, " cards: not checked");
    }
    models.rows.push_back({CellText(model.device_name), std::to_string(model.cards.size()),
                           std::to_string(model.checked), absl::StrCat(flagged.size(), " card(s)"),
                           notes.empty() ? std::string(kEmptyCell) : notes});
  }
  return models;
}

// Flagged cards: one row per (model, card).
MarkdownTable FlaggedCardsTable(const OutlierReport& report) {
  MarkdownTable cards;
  cards.columns = {{"model"},
                   {"card"},
                   {"host"},
                   {"run"},
                   {"outlying metrics", true},
                   {"largest deviation", true},
                   {"notes"}};
  std::map<std::pair<std::string, std::string>, std::vector<const OutlierFinding*>> by_card;
  for (const OutlierFinding& finding : report.outliers) {
    by_card[{finding.device_name, finding.card}].push_back(&finding);
  }
  for (const auto& [key, findings] : by_card) {
    const OutlierFinding* largest = findings.front();
    bool throttled = false;
    for (const OutlierFinding* finding : findings) {
      if (std::fabs(finding->deviation) > std::fabs(largest->deviation)) largest = finding;
      throttled = throttled || finding->throttled;
    }
    cards.rows.push_back({CellText(key.first), CellText(key.second), CellText(largest->host),
                          CellText(largest->run_id), std::to_string(findings.size()),
                          absl::StrCat(SignedPercent(largest->deviation), " ", largest->metric),
                          throttled ? "throttled points" : std::string(kEmptyCell)});
  }
  return cards;
}

// One row per outlying value.
MarkdownTable OutlyingValuesTable(const OutlierReport& report) {
  MarkdownTable rows;
  rows.columns = {{"model"},
                  {"card"},
                  {"experiment"},
                  {"point"},
                  {"metric"},
                  {"value", true},
                  {"fleet median", true},
                  {"deviation", true},
                  {"band", true},
                  {"cards", true},
                  {"notes"}};
  for (const OutlierFinding& finding : report.outliers) {
    std::vector<std::string> notes;
    if (!finding.worse) notes.push_back("better than the fleet");
    if (finding.throttled) notes.push_back("throttled");
    rows.rows.push_back(
        {CellText(finding.device_name), CellText(finding.card), CellText(finding.experiment),
         CellText(
             absl::StrCat("`", PointWithoutExperiment(finding.point, finding.experiment), "`")),
         CellText(finding.metric), CellText(ValueText(finding.value, finding.unit)),
         CellText(ValueText(finding.fleet_median, finding.unit)), SignedPercent(finding.deviation),
         absl::StrCat("±", FormatPercent(finding.threshold)), std::to_string(finding.fleet_cards),
         notes.empty() ? std::string(kEmptyCell) : absl::StrJoin(notes, "; ")});
  }
  return rows;
}

}  // namespace

OutlierReport FindFleetOutliers(const std::vector<RunData>& runs, const Thresholds& thresholds) {
  OutlierReport report;
  const Fleets chosen = ChooseCards(runs, report.notes);
  const auto& fleets = chosen.runs;
  const auto& order = chosen.order;
  for (const auto& [model, cards] : fleets) {
    FleetModel fleet;
    fleet.device_name = model;
    std::vector<std::pair<const RunData*, std::map<std::string, const RunPoint*>>> points;
    for (const std::string& key : order.at(model)) {
      const RunData* run = cards.at(key);
      fleet.cards.push_back(run->info);
      points.emplace_back(run, LatestAttempts(*run));
    }
    fleet.enough_cards = static_cast<int>(fleet.cards.size()) >= kMinFleetCards;
    if (!fleet.enough_cards) {
      report.models.push_back(std::move(fleet));
      continue;
    }
    std::map<std::pair<std::string, std::string>, std::vector<CardValue>> values;
    for (const auto& [run, by_point] : points) {
      for (const auto& [key, point] : by_point) {
        for (const auto& [name, metric] : point->metrics) {
          if (std::isfinite(metric.value)) values[{key, name}].push_back({run, point, &metric});
        }
      }
    }
    for (const auto& [key, card_values] : values) {
      CheckFleetValue(model, key, card_values, thresholds, fleet, report.outliers);
    }
    report.models.push_back(std::move(fleet));
  }
  return report;
}

std::string RenderOutliersMarkdown(const OutlierReport& report) {
  std::ostringstream out;
  out << "# Fleet outliers\n\n";
  const MarkdownTable models = ModelsTable(report);
  out << RenderMarkdownTable(models);
  out << "\nA card is flagged where its value lies outside the fleet's median ± max(fleet_k × "
         "scaled MAD, relative_tolerance × median) (scaled MAD = 1.4826 × median absolute "
         "deviation; configs/regression/thresholds.json).\n";
  for (const std::string& note : report.notes) out << "\n- " << note;
  if (!report.notes.empty()) out << "\n";
  if (report.outliers.empty()) {
    out << "\n**No outliers.**\n";
    return out.str();
  }
  const MarkdownTable cards = FlaggedCardsTable(report);
  out << "\n## Flagged cards\n\n" << RenderMarkdownTable(cards);
  const MarkdownTable rows = OutlyingValuesTable(report);
  out << "\n## Outlying values\n\n" << RenderMarkdownTable(rows);
  return out.str();
}

std::string RenderOutliersJUnit(const OutlierReport& report) {
  size_t tests = 0;
  std::set<std::pair<std::string, std::string>> failed;
  for (const OutlierFinding& finding : report.outliers) {
    failed.insert({finding.device_name, finding.card});
  }
  size_t skipped = 0;
  for (const FleetModel& model : report.models) {
    if (model.enough_cards) {
      tests += model.cards.size();
    } else {
      ++tests;
      ++skipped;
    }
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"dissect outliers\" tests=\"" << tests << "\" failures=\""
      << failed.size() << "\" errors=\"0\" skipped=\"" << skipped << "\">\n";
  for (const FleetModel& model : report.models) {
    size_t model_failures = 0;
    for (const auto& [name, card] : failed) model_failures += name == model.device_name ? 1 : 0;
    const std::string suite = XmlEscape(absl::StrCat("fleet outliers: ", model.device_name));
    out << "  <testsuite name=\"" << suite << "\" tests=\""
        << (model.enough_cards ? model.cards.size() : 1) << "\" failures=\"" << model_failures
        << "\" errors=\"0\" skipped=\"" << (model.enough_cards ? 0 : 1) << "\">\n";
    if (!model.enough_cards) {
      out << "    <testcase classname=\"" << XmlEscape(model.device_name)
          << "\" name=\"fleet\">\n      <skipped message=\""
          << XmlEscape(absl::StrCat(model.cards.size(), " card(s), fewer than ", kMinFleetCards,
                                    ": not checked"))
          << "\"/>\n    </testcase>\n";
    }
    for (const RunInfo& card : model.enough_cards ? model.cards : std::vector<RunInfo>{}) {
      const std::string name = CardName(card);
      std::vector<const OutlierFinding*> findings;
      for (const OutlierFinding& finding : report.outliers) {
        if (finding.device_name == model.device_name && finding.card == name) {
          findings.push_back(&finding);
        }
      }
      out << "    <testcase classname=\"" << XmlEscape(model.device_name) << "\" name=\""
          << XmlEscape(card.host.empty() ? name : absl::StrCat(name, " on ", card.host)) << "\"";
      if (findings.empty()) {
        out << "/>\n";
        continue;
      }
      std::vector<std::string> lines;
      for (const OutlierFinding* finding : findings) lines.push_back(Describe(*finding));
      out << ">\n      <failure type=\"outlier\" message=\""
          << XmlEscape(absl::StrCat(findings.size(),
                                    " metric(s) outside the fleet; first: ", lines.front()))
          << "\">" << XmlEscape(absl::StrJoin(lines, "\n")) << "</failure>\n    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace dissect::analysis
