// gpc_topology's launch records (--gpc_records_dir, GpcRunJson) read back
// off the device: the map they give, and which launches ran blocks on SMs
// their blocker held, more blocks on an SM than their blocks per SM, or had
// a blocker that failed (the row only counts these). The records of an H100
// run tell whether such launches are where the map goes wrong, and what
// the SMs left out of every GPC ran with.
#ifndef DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_RECORDS_H_
#define DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_RECORDS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "experiments/sharing/topology/gpc_map.h"
#include "experiments/sharing/topology/gpc_schedule.h"

namespace dissect {

// One records file: the plan's shapes and every launch.
struct GpcRunFile {
  int sm_count = 0;
  std::vector<GpcClusterShape> shapes;
  // Per launch: its step (shape_index, shape, clusters, blocked_sms), whether
  // its blocker failed, and its blocks (with blocks_per_sm and blocked_sms).
  std::vector<GpcLaunchStep> steps;
  std::vector<bool> blocker_failed;
  std::vector<LaunchRecord> records;
};

// InvalidArgument with the reason for text that is not such a file (not
// JSON, a missing or mistyped field, a shape index out of range).
absl::StatusOr<GpcRunFile> ParseGpcRunJson(const std::string& text);

// In lines: the map InferGpcMap makes of the records (with the floor the
// experiment uses and the check against the recorded max_active_clusters),
// the largest cluster each unresolved SM ran in, per shape the launches
// with blocks on held SMs, overfull SMs or a failed blocker, and each such
// launch.
std::string DescribeGpcRun(const GpcRunFile& run);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_RECORDS_H_
