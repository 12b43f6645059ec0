#include "experiments/sharing/topology/gpc_map.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dissect {
namespace {

// Launches in which two groups must be linked to merge.
constexpr int kConfirmingLaunches = 2;
// At most this many SM ids are listed per note sentence.
constexpr size_t kMaxListedIds = 24;

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(static_cast<size_t>(n)) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int Find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  // True when a and b were in different sets.
  bool Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return false;
    parent_[std::max(a, b)] = std::min(a, b);
    return true;
  }

 private:
  std::vector<int> parent_;
};

// One launch: the distinct SMs of each cluster, ascending.
using Clusters = std::vector<std::vector<int>>;

std::string IdList(const std::vector<int>& ids) {
  std::vector<int> shown(ids.begin(), ids.begin() + std::min(ids.size(), kMaxListedIds));
  std::string list = absl::StrJoin(shown, " ");
  if (ids.size() > shown.size())
    absl::StrAppend(&list, " and ", ids.size() - shown.size(), " more");
  return list;
}

// Groups (union-find roots) of a cluster's SMs with their member counts.
std::map<int, int> GroupCounts(UnionFind& groups, const std::vector<int>& cluster) {
  std::map<int, int> counts;
  for (const int sm : cluster) ++counts[groups.Find(sm)];
  return counts;
}

// Merges groups linked in at least kConfirmingLaunches launches, until
// nothing changes.
void MergeConfirmedLinks(const std::vector<Clusters>& launches, UnionFind& groups) {
  bool merged = true;
  while (merged) {
    merged = false;
    std::map<std::pair<int, int>, int> linked_launches;
    for (const Clusters& clusters : launches) {
      std::set<std::pair<int, int>> links;
      for (const std::vector<int>& cluster : clusters) {
        const std::map<int, int> counts = GroupCounts(groups, cluster);
        for (auto a = counts.begin(); a != counts.end(); ++a) {
          for (auto b = std::next(a); b != counts.end(); ++b) links.insert({a->first, b->first});
        }
      }
      for (const auto& link : links) ++linked_launches[link];
    }
    for (const auto& [link, count] : linked_launches) {
      if (count >= kConfirmingLaunches) merged |= groups.Union(link.first, link.second);
    }
  }
}

// Places each SM seen in one launch only with its cluster-mates (see the
// header).
void PlaceOnceSeenSms(const std::vector<Clusters>& launches, const std::vector<int>& seen,
                      UnionFind& groups) {
  for (const Clusters& clusters : launches) {
    for (const std::vector<int>& cluster : clusters) {
      std::vector<int> once;
      std::map<int, int> anchors;
      for (const int sm : cluster) {
        if (seen[sm] == 1) {
          once.push_back(sm);
        } else {
          ++anchors[groups.Find(sm)];
        }
      }
      if (once.empty()) continue;
      int target = once.front();
      int best = 0;
      for (const auto& [root, count] : anchors) {
        if (count > best) {
          best = count;
          target = root;
        }
      }
      for (const int sm : once) groups.Union(sm, target);
    }
  }
}

// Each launch's clusters (distinct SMs, ascending), and what the checks
// count while reading them.
struct ReadRecords {
  std::vector<Clusters> launches;
  std::vector<int> seen;  // launches in which each SM ran a block
  int out_of_range = 0;
  int overfull_sms = 0;     // SM-launches with more blocks than blocks_per_sm
  int blocks_on_held = 0;   // blocks on SMs the launch's blocker held
};

// Each cluster's distinct SMs, ascending; blocks outside [0, sm_count)
// left out.
Clusters ClustersOf(int sm_count, const LaunchRecord& record) {
  std::map<int, std::vector<int>> by_cluster;
  for (const BlockPlacement& block : record.blocks) {
    if (block.sm >= 0 && block.sm < sm_count) by_cluster[block.cluster].push_back(block.sm);
  }
  Clusters clusters;
  for (auto& [id, sms] : by_cluster) {
    std::sort(sms.begin(), sms.end());
    sms.erase(std::unique(sms.begin(), sms.end()), sms.end());
    clusters.push_back(std::move(sms));
  }
  return clusters;
}

ReadRecords Read(int sm_count, const std::vector<LaunchRecord>& records) {
  ReadRecords read;
  read.seen.assign(static_cast<size_t>(sm_count), 0);
  for (const LaunchRecord& record : records) {
    const LaunchCheck check = CheckLaunch(sm_count, record);
    read.out_of_range += check.out_of_range;
    read.overfull_sms += check.overfull_sms;
    read.blocks_on_held += check.blocks_on_held;
    read.launches.push_back(ClustersOf(sm_count, record));
    std::set<int> sms;
    for (const std::vector<int>& cluster : read.launches.back()) {
      sms.insert(cluster.begin(), cluster.end());
    }
    for (const int sm : sms) ++read.seen[sm];
  }
  return read;
}

// Clusters whose SMs ended in more than one group: the SMs outside the
// majority group (all of them on a tie), ascending.
std::vector<int> InconsistentSms(const std::vector<Clusters>& launches, UnionFind& groups) {
  std::set<int> inconsistent;
  for (const Clusters& clusters : launches) {
    for (const std::vector<int>& cluster : clusters) {
      const std::map<int, int> counts = GroupCounts(groups, cluster);
      if (counts.size() < 2) continue;
      int best = 0;
      int best_groups = 0;
      int majority = -1;
      for (const auto& [root, count] : counts) {
        if (count > best) {
          best = count;
          best_groups = 1;
          majority = root;
        } else if (count == best) {
          ++best_groups;
        }
      }
      for (const int sm : cluster) {
        if (best_groups > 1 || groups.Find(sm) != majority) inconsistent.insert(sm);
      }
    }
  }
  return std::vector<int>(inconsistent.begin(), inconsistent.end());
}

// Roots of the groups that one cluster covered whole (every SM of the
// group ran a block of that cluster).
std::set<int> GroupsRunAsOneCluster(const std::vector<Clusters>& launches,
                                    const std::map<int, int>& group_size, UnionFind& groups) {
  std::set<int> whole;
  for (const Clusters& clusters : launches) {
    for (const std::vector<int>& cluster : clusters) {
      for (const auto& [root, count] : GroupCounts(groups, cluster)) {
        if (count == group_size.at(root)) whole.insert(root);
      }
    }
  }
  return whole;
}

// The fewest SMs a GPC's group has: min_gpc_sms, and more than one TPC's.
int GpcFloor(int min_gpc_sms) { return std::max(min_gpc_sms, kSmsPerTpc + 1); }

// Numbers the groups of seen SMs as GPCs in order of their lowest SM
// (ascending SMs meet each group first at its lowest); groups of fewer
// than GpcFloor(min_gpc_sms) SMs are unresolved instead, those of one TPC
// that ran a cluster of their own also counted as single-TPC groups.
void NumberGpcs(const std::vector<Clusters>& launches, const std::vector<int>& seen,
                int min_gpc_sms, UnionFind& groups, GpcMap& map) {
  const int sm_count = static_cast<int>(seen.size());
  std::map<int, int> group_size;
  for (int sm = 0; sm < sm_count; ++sm) {
    if (seen[sm] > 0) ++group_size[groups.Find(sm)];
  }
  const std::set<int> run_whole = GroupsRunAsOneCluster(launches, group_size, groups);
  std::set<int> listed;
  std::map<int, int> gpc_of_root;
  for (int sm = 0; sm < sm_count; ++sm) {
    if (seen[sm] == 0) {
      ++map.unmapped_sms;
      continue;
    }
    const int root = groups.Find(sm);
    const int size = group_size[root];
    if (listed.insert(root).second) map.group_sizes.push_back(size);
    if (size < GpcFloor(min_gpc_sms)) {
      map.unresolved_sm_ids.push_back(sm);
      if (size == kSmsPerTpc && run_whole.count(root) > 0) map.single_tpc_sm_ids.push_back(sm);
      continue;
    }
    const auto [it, added] = gpc_of_root.emplace(root, static_cast<int>(gpc_of_root.size()));
    if (added) map.gpc_sizes.push_back(0);
    map.gpc_of_sm[sm] = it->second;
    ++map.gpc_sizes[it->second];
  }
  map.gpc_count = static_cast<int>(map.gpc_sizes.size());
  map.unresolved_sms = static_cast<int>(map.unresolved_sm_ids.size());
  map.single_tpc_sms = static_cast<int>(map.single_tpc_sm_ids.size());
}

// The GPCs with more than twice the median GPC's SMs, in words.
void NoteOversizedGpcs(const GpcMap& map, std::vector<std::string>& notes) {
  if (map.gpc_count == 0) return;
  std::vector<int> sorted = map.gpc_sizes;
  std::sort(sorted.begin(), sorted.end());
  const int median = sorted[sorted.size() / 2];
  for (int g = 0; g < map.gpc_count; ++g) {
    if (map.gpc_sizes[g] > 2 * median) {
      notes.push_back(absl::StrCat("GPC ", g, " has ", map.gpc_sizes[g],
                                   " SMs, more than twice the median group (", median,
                                   " SMs): more than one GPC plausibly holds"));
    }
  }
}

// The map's findings and the reading's counts, in words.
std::string Notes(const GpcMap& map, const ReadRecords& read, size_t launches, int min_gpc_sms) {
  const int sm_count = static_cast<int>(map.gpc_of_sm.size());
  std::vector<std::string> notes;
  std::vector<int> unmapped;
  for (int sm = 0; sm < sm_count; ++sm) {
    if (read.seen[sm] == 0) unmapped.push_back(sm);
  }
  if (map.gpc_count == 0 && map.unresolved_sms == 0) {
    notes.push_back(absl::StrCat("no SM seen in ", launches, " launches"));
  } else if (!unmapped.empty()) {
    notes.push_back(absl::StrCat(unmapped.size(), " of ", sm_count,
                                 " SMs never seen (GPC -1): ", IdList(unmapped)));
  }
  if (map.unresolved_sms > 0) {
    notes.push_back(absl::StrCat(map.unresolved_sms, " SMs unresolved (GPC -1: in groups of fewer ",
                                 "than ", GpcFloor(min_gpc_sms),
                                 " SMs, the smallest cluster size that fits and more than one "
                                 "TPC, so not GPCs): ",
                                 IdList(map.unresolved_sm_ids)));
  }
  if (map.single_tpc_sms > 0) {
    notes.push_back(absl::StrCat(
        map.single_tpc_sms, " of them in groups of one TPC (", kSmsPerTpc,
        " SMs that ran clusters with each other only): TPCs the cluster scheduler keeps out of "
        "their GPC (singleton TPCs, whose GPC no cluster can show), or parts of GPCs no launch "
        "joined: ",
        IdList(map.single_tpc_sm_ids)));
  }
  if (map.inconsistent_sms > 0) {
    notes.push_back(absl::StrCat(map.inconsistent_sms,
                                 " SMs inconsistent (in a cluster with another group's SMs in "
                                 "one launch against repeated observations): ",
                                 IdList(map.inconsistent_sm_ids)));
  }
  NoteOversizedGpcs(map, notes);
  const int placed_once = static_cast<int>(std::count(read.seen.begin(), read.seen.end(), 1));
  if (placed_once > 0) {
    notes.push_back(absl::StrCat(
        placed_once, " SMs seen in one launch only (their GPC unconfirmed by repetition)"));
  }
  if (read.out_of_range > 0) {
    notes.push_back(absl::StrCat(read.out_of_range, " blocks with an SM id outside 0..",
                                 sm_count - 1, " ignored"));
  }
  if (read.overfull_sms > 0) {
    notes.push_back(absl::StrCat(read.overfull_sms,
                                 " times an SM ran more blocks of a launch than the launch's "
                                 "blocks per SM (a second wave, or shared memory that did not "
                                 "limit the occupancy)"));
  }
  if (read.blocks_on_held > 0) {
    notes.push_back(absl::StrCat(read.blocks_on_held,
                                 " blocks ran on SMs a blocker was to hold (the blocker did not "
                                 "hold them)"));
  }
  return absl::StrJoin(notes, ". ");
}

}  // namespace

int SmIdBound(int sm_count, const std::vector<LaunchRecord>& records) {
  int bound = std::max(sm_count, 0);
  for (const LaunchRecord& record : records) {
    for (const BlockPlacement& block : record.blocks) {
      if (block.sm >= bound && block.sm <= kMaxSmId) bound = block.sm + 1;
    }
  }
  return bound;
}

LaunchCheck CheckLaunch(int sm_count, const LaunchRecord& record) {
  LaunchCheck check;
  std::vector<int> blocks_on_sm(static_cast<size_t>(std::max(sm_count, 0)), 0);
  for (const BlockPlacement& block : record.blocks) {
    if (block.sm < 0 || block.sm >= sm_count) {
      ++check.out_of_range;
      continue;
    }
    ++blocks_on_sm[block.sm];
    if (std::binary_search(record.blocked_sms.begin(), record.blocked_sms.end(), block.sm)) {
      ++check.blocks_on_held;
    }
  }
  for (const int blocks : blocks_on_sm) {
    if (blocks > std::max(record.blocks_per_sm, 1)) ++check.overfull_sms;
  }
  for (const std::vector<int>& cluster : ClustersOf(sm_count, record)) {
    check.largest_cluster_sms =
        std::max(check.largest_cluster_sms, static_cast<int>(cluster.size()));
  }
  return check;
}

int ClustersThatFit(const GpcMap& map, int cluster_size) {
  if (cluster_size < 1) return 0;
  int clusters = 0;
  for (const int size : map.group_sizes) clusters += size / cluster_size;
  return clusters;
}

GpcMap InferGpcMap(int sm_count, const std::vector<LaunchRecord>& records, int min_gpc_sms) {
  sm_count = std::max(sm_count, 0);
  GpcMap map;
  map.gpc_of_sm.assign(static_cast<size_t>(sm_count), -1);
  const ReadRecords read = Read(sm_count, records);

  UnionFind groups(sm_count);
  MergeConfirmedLinks(read.launches, groups);
  PlaceOnceSeenSms(read.launches, read.seen, groups);
  map.inconsistent_sm_ids = InconsistentSms(read.launches, groups);
  map.inconsistent_sms = static_cast<int>(map.inconsistent_sm_ids.size());
  NumberGpcs(read.launches, read.seen, min_gpc_sms, groups, map);
  map.note = Notes(map, read, records.size(), min_gpc_sms);
  return map;
}

}  // namespace dissect
