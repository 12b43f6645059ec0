#include "experiments/sharing/topology/gpc_records.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/sharing/topology/gpc_measure.h"
#include "nlohmann/json.hpp"

namespace dissect {
namespace {

std::string ShapeName(const GpcClusterShape& shape) {
  return absl::StrCat(shape.cluster_size, "x", shape.blocks_per_sm, "/SM");
}

absl::StatusOr<GpcRunFile> FromJson(const nlohmann::json& json) {
  GpcRunFile run;
  run.sm_count = json.at("sm_count").get<int>();
  for (const nlohmann::json& s : json.at("shapes")) {
    run.shapes.push_back({s.at("cluster_size").get<int>(), s.at("blocks_per_sm").get<int>(),
                          s.at("max_active_clusters").get<int>()});
  }
  for (const nlohmann::json& l : json.at("launches")) {
    GpcLaunchStep step;
    step.shape_index = l.at("shape").get<int>();
    if (step.shape_index < 0 || step.shape_index >= static_cast<int>(run.shapes.size())) {
      return absl::InvalidArgumentError(absl::StrCat("launch ", run.steps.size(), ": shape ",
                                                     step.shape_index, " is not one of the ",
                                                     run.shapes.size(), " shapes"));
    }
    step.shape = run.shapes[static_cast<size_t>(step.shape_index)];
    step.clusters = l.at("clusters").get<int>();
    step.blocked_sms = l.at("blocked_sms").get<std::vector<int>>();
    LaunchRecord record;
    for (const nlohmann::json& b : l.at("blocks")) {
      record.blocks.push_back({b.at(0).get<int>(), b.at(1).get<int>(), b.at(2).get<int>()});
    }
    record.blocks_per_sm = step.shape.blocks_per_sm;
    record.blocked_sms = step.blocked_sms;
    run.steps.push_back(std::move(step));
    run.blocker_failed.push_back(l.at("blocker_failed").get<bool>());
    run.records.push_back(std::move(record));
  }
  return run;
}

// The most distinct SMs of one cluster each SM ran in, over every launch.
std::vector<int> LargestClusterOfSm(int sm_count, const std::vector<LaunchRecord>& records) {
  std::vector<int> largest(static_cast<size_t>(sm_count), 0);
  for (const LaunchRecord& record : records) {
    std::map<int, std::vector<int>> by_cluster;
    for (const BlockPlacement& b : record.blocks) {
      if (b.sm >= 0 && b.sm < sm_count) by_cluster[b.cluster].push_back(b.sm);
    }
    for (auto& [id, sms] : by_cluster) {
      std::sort(sms.begin(), sms.end());
      sms.erase(std::unique(sms.begin(), sms.end()), sms.end());
      for (const int sm : sms) largest[sm] = std::max(largest[sm], static_cast<int>(sms.size()));
    }
  }
  return largest;
}

void DescribeMap(const GpcRunFile& run, std::vector<std::string>& lines) {
  const int sm_count = SmIdBound(run.sm_count, run.records);
  const GpcMap map = InferGpcMap(sm_count, run.records, SmallestClusterSize(run.shapes));
  lines.push_back(absl::StrCat("map: ", map.gpc_count, " GPCs of ",
                               absl::StrJoin(map.gpc_sizes, " "), " SMs, ", map.unresolved_sms,
                               " unresolved SMs (", map.single_tpc_sms, " in single-TPC groups), ",
                               map.inconsistent_sms, " inconsistent"));
  const std::vector<std::string> mismatches = CapacityMismatches(run.shapes, map);
  lines.push_back(mismatches.empty()
                      ? "capacity: the groups hold what max_active_clusters says fits"
                      : absl::StrCat("capacity: ", absl::StrJoin(mismatches, ", ")));
  if (!map.note.empty()) lines.push_back(absl::StrCat("note: ", map.note));
  const std::vector<int> largest = LargestClusterOfSm(sm_count, run.records);
  for (const int sm : map.unresolved_sm_ids) {
    lines.push_back(absl::StrCat("unresolved SM ", sm, ": in clusters of at most ",
                                 largest[sm], " SMs"));
  }
}

}  // namespace

absl::StatusOr<GpcRunFile> ParseGpcRunJson(const std::string& text) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::InvalidArgumentError("not JSON");
  try {
    return FromJson(json);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("not gpc_topology launch records: ", e.what()));
  }
}

std::string DescribeGpcRun(const GpcRunFile& run) {
  std::vector<std::string> lines;
  DescribeMap(run, lines);
  struct ShapeTally {
    int launches = 0, failed = 0, on_held = 0, overfull = 0;
  };
  std::map<int, ShapeTally> tally;
  std::vector<std::string> launch_lines;
  for (size_t i = 0; i < run.records.size(); ++i) {
    const GpcLaunchStep& step = run.steps[i];
    const LaunchCheck check = CheckLaunch(SmIdBound(run.sm_count, run.records), run.records[i]);
    ShapeTally& t = tally[step.shape_index];
    ++t.launches;
    t.failed += run.blocker_failed[i] ? 1 : 0;
    t.on_held += check.blocks_on_held;
    t.overfull += check.overfull_sms;
    if (!run.blocker_failed[i] && check.blocks_on_held == 0 && check.overfull_sms == 0) continue;
    launch_lines.push_back(absl::StrCat(
        "launch ", i, " (", ShapeName(step.shape), ", ", step.clusters, " clusters, ",
        step.blocked_sms.size(), " SMs held", run.blocker_failed[i] ? ", blocker failed" : "",
        "): ", check.blocks_on_held, " blocks on held SMs, ", check.overfull_sms,
        " overfull SMs, largest cluster ", check.largest_cluster_sms, " SMs"));
  }
  for (const auto& [index, t] : tally) {
    lines.push_back(absl::StrCat("shape ", ShapeName(run.shapes[static_cast<size_t>(index)]), ": ",
                                 t.launches, " launches, ", t.failed, " with a failed blocker, ",
                                 t.on_held, " blocks on held SMs, ", t.overfull,
                                 " overfull SM-launches"));
  }
  lines.insert(lines.end(), launch_lines.begin(), launch_lines.end());
  return absl::StrJoin(lines, "\n") + "\n";
}

}  // namespace dissect
