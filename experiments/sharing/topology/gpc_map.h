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
//
// Groups of one TPC. What the clusters reveal is where the cluster
// scheduler may place a cluster, and from Hopper on that is not the whole
// GPC: the driver takes a few TPCs out of their GPC's virtual GPC for
// cluster (CGA) scheduling, "singleton TPCs", each a cluster domain of its
// own (NVIDIA's nvgpu driver: the comments in
// gb10b_gr_config_init_sm_id_table, which say this holds from Hopper on,
// and nvgpu_gr_config_get_skyline_info; the resource manager's
// NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SINGLETON_GPCS in
// NVIDIA/open-gpu-kernel-modules, src/common/sdk/nvidia/inc/ctrl/ctrl2080/
// ctrl2080gr.h).
// Such a TPC's 2 SMs share clusters with each other only, whatever the
// schedule, so no launch can tell which GPC holds them. The H100 80GB HBM3
// of 2026-11-27 showed 4 of them (SMs 124..131, in 2-SM groups) beside 8
// groups of 8 to 18 SMs, and cudaOccupancyMaxActiveClusters agreed with
// exactly that: 7, 15, 30, 66 clusters of 16, 8, 4, 2 at one block per SM
// (a GPC of 16 SMs holding those TPCs would fit 8, 16, 32 and 66). So a
// group of at most kSmsPerTpc SMs is never a GPC: it is unresolved, and one
// of exactly kSmsPerTpc SMs that ran a cluster over both is counted as a
// single-TPC group (a singleton TPC, or a part of a GPC that no launch
// joined: ClustersThatFit against the occupancy calculator tells which).
// GPC sizes therefore count the SMs a cluster can use, without the GPC's
// singleton TPCs, and gpc_count counts the GPCs with more than one TPC
// in their cluster domain (on the H100, all 8).
#ifndef DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_MAP_H_
#define DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_MAP_H_

#include <string>
#include <vector>

namespace dissect {

// SMs per TPC on every part with clusters (GH100: 72 TPCs of 2 SMs, NVIDIA's
// H100 whitepaper, as cited by configs/verdict/h100.json).
inline constexpr int kSmsPerTpc = 2;

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
  // SMs seen, but in a group smaller than min_gpc_sms or of at most
  // kSmsPerTpc SMs (gpc_of_sm -1, not in gpc_count or gpc_sizes); ids
  // ascending.
  int unresolved_sms = 0;
  std::vector<int> unresolved_sm_ids;
  // The unresolved SMs in groups of exactly kSmsPerTpc SMs that ran a
  // cluster over the whole group: single-TPC groups (see above); ids
  // ascending.
  int single_tpc_sms = 0;
  std::vector<int> single_tpc_sm_ids;
  // SMs of every group of seen SMs, GPC or not, in order of the group's
  // lowest SM: the cluster domains the launches saw (ClustersThatFit).
  std::vector<int> group_sizes;
  // Findings in words, sentences separated by ". " (never ';'): unmapped
  // SMs, unresolved SMs, single-TPC groups, inconsistent SMs, oversized
  // groups, SMs placed from one launch only, out-of-range SM ids, SMs that
  // ran more blocks than their launch allows, blocks on SMs a blocker held.
  std::string note;
};

// What one launch's records say about the launch itself (InferGpcMap adds
// these up in its note; experiments/sharing/topology's gpc_records_check
// lists them per launch).
struct LaunchCheck {
  int out_of_range = 0;         // blocks with an SM id outside [0, sm_count)
  int overfull_sms = 0;         // SMs with more blocks than blocks_per_sm
  int blocks_on_held = 0;       // blocks on SMs the launch's blocker held
  int largest_cluster_sms = 0;  // the most distinct SMs one cluster ran on
};
LaunchCheck CheckLaunch(int sm_count, const LaunchRecord& record);

// Infers the map of a device with `sm_count` SMs from `records` (any number
// of launches, each covering any part of the device). Blocks whose sm lies
// outside [0, sm_count) are ignored and counted in the note. Groups of fewer
// than `min_gpc_sms` SMs (0: no floor) or of at most kSmsPerTpc SMs are
// unresolved.
GpcMap InferGpcMap(int sm_count, const std::vector<LaunchRecord>& records, int min_gpc_sms = 0);

// Largest %smid the map accepts (PTX allows %smid to be non-contiguous, so
// ids may exceed the SM count; ids this high are taken for garbage).
inline constexpr int kMaxSmId = 4095;

// Clusters of `cluster_size` blocks at one block per SM that fit at once if
// the map's groups (group_sizes) are the device's cluster domains: the
// sum of size / cluster_size over the groups. Where it differs from
// cudaOccupancyMaxActiveClusters the map has split or merged a domain.
int ClustersThatFit(const GpcMap& map, int cluster_size);

// The SM count to infer with: max(sm_count, highest sm in `records` + 1),
// ids above kMaxSmId left out (InferGpcMap then ignores and counts them).
int SmIdBound(int sm_count, const std::vector<LaunchRecord>& records);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_MAP_H_
