// Which SMs share a GPC, inferred from where thread-block clusters ran
// (the intergroup-sharing probe's GPC map). The hardware places all blocks of one cluster on one GPC, so
// two SMs that ran blocks of the same cluster are in the same GPC. CPU only:
// the device side is kernels/topology (it records each block's %smid,
// %clusterid and %cluster_ctarank) and experiments/sharing/topology launches
// it (MeasureGpcMap).
//
// The rule. Groups start as single SMs. Two groups are linked in a launch
// when one cluster of that launch ran on SMs of both. Two groups merge when
// they were linked in at least two different launches; merging repeats
// until nothing changes. Then each SM seen in one launch only (no
// repetition can confirm or contradict it) joins the group that holds most
// of its cluster-mates (counted as placed from one launch in the note), or,
// when all its cluster-mates were seen once too, their group.
//
// A link seen in one launch only between groups that did not merge is an
// observation that the repetitions contradict (an SM that moved between
// GPCs, a misread %smid). It is reported, not hidden: in each cluster whose
// SMs ended up in more than one group, the SMs outside the cluster's
// majority group (all of them on a tie) count as inconsistent_sms and are
// named in the note. A group with more than twice the median group's SMs is
// named in the note too (more SMs than one GPC plausibly holds: two GPCs
// merged by repeated bad observations, or a device whose clusters span
// GPCs). Too few launches leave a GPC split into groups: more GPCs than the
// device has, with inconsistent SMs where the parts met once.
//
// Launches that repeat one placement cannot join what that placement keeps
// apart: a scheduler that always leaves the same 2 SMs of an 18-SM GPC out
// of its 16-block cluster makes those 2 a group of their own, consistently.
// The launches must therefore differ in where they can land (gpc_schedule.h:
// grid, blocks per SM, SMs held by a blocker). And a group smaller than
// min_gpc_sms (the smallest cluster size that fits, which every GPC runs) is
// a part of a GPC no launch joined to the rest: it is reported as unresolved
// (gpc_of_sm -1, unresolved_sms), never as a GPC.
#ifndef DISSECT_PROBES_TOPOLOGY_GPC_MAP_H_
#define DISSECT_PROBES_TOPOLOGY_GPC_MAP_H_

#include <string>
#include <vector>

namespace dissect {

// Where one block of a cluster launch ran.
struct BlockPlacement {
  int sm = -1;       // %smid
  int cluster = -1;  // linear cluster id within the launch (%clusterid.x for 1-D)
  int rank = -1;     // %cluster_ctarank
};

// One launch: every block's placement (any order), and what the launch
// asked for, for checks.
struct LaunchRecord {
  std::vector<BlockPlacement> blocks;
  // Blocks of the launch one SM may run at once (its shared memory allows
  // no more); an SM seen with more is named in the note.
  int blocks_per_sm = 1;
  // SMs a blocker kernel held during the launch, ascending; a block seen on
  // one of them is named in the note (the blocker did not hold it).
  std::vector<int> blocked_sms;
};

struct GpcMap {
  // gpc_of_sm[sm]: the SM's GPC, or -1 for an SM never seen. GPCs are
  // numbered 0.. in order of their lowest SM.
  std::vector<int> gpc_of_sm;
  int gpc_count = 0;
  // SMs per GPC (gpc_sizes[g] for GPC g).
  std::vector<int> gpc_sizes;
  // SMs seen in a cluster with another group's SMs in one launch only,
  // against repeated observations (see the rule above); ids in
  // inconsistent_sm_ids, ascending.
  int inconsistent_sms = 0;
  std::vector<int> inconsistent_sm_ids;
  // SMs never seen in any launch (gpc_of_sm -1).
  int unmapped_sms = 0;
  // SMs seen, but in a group smaller than min_gpc_sms (gpc_of_sm -1, not in
  // gpc_count or gpc_sizes); ids ascending.
  int unresolved_sms = 0;
  std::vector<int> unresolved_sm_ids;
  // Findings in words, sentences separated by ". " (never ';'): unmapped
  // SMs, unresolved SMs, inconsistent SMs, oversized groups, SMs placed from
  // one launch only, out-of-range SM ids, SMs that ran more blocks than
  // their launch allows, blocks on SMs a blocker held.
  std::string note;
};

// Infers the map of a device with `sm_count` SMs from `records` (any number
// of launches, each covering any part of the device). Blocks whose sm lies
// outside [0, sm_count) are ignored and counted in the note. Groups of fewer
// than `min_gpc_sms` SMs are unresolved (0: none are).
GpcMap InferGpcMap(int sm_count, const std::vector<LaunchRecord>& records, int min_gpc_sms = 0);

// Largest %smid the map accepts (PTX allows %smid to be non-contiguous, so
// ids may exceed the SM count; ids this high are taken for garbage).
inline constexpr int kMaxSmId = 4095;

// The SM count to infer with: max(sm_count, highest sm in `records` + 1),
// ids above kMaxSmId left out (InferGpcMap then ignores and counts them).
int SmIdBound(int sm_count, const std::vector<LaunchRecord>& records);

}  // namespace dissect

#endif  // DISSECT_PROBES_TOPOLOGY_GPC_MAP_H_
