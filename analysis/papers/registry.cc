#include "analysis/papers/registry.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace dissect::analysis::papers {
namespace {

const std::map<std::string, Generator, std::less<>>& Table() {
  static const auto* table = new std::map<std::string, Generator, std::less<>>{
      {"latency_pair", &GenerateLatencyPair},
      {"layer_transactions", &GenerateLayerTransactions},
      {"l1_bypass_speedup", &GenerateL1BypassSpeedup},
      {"fc_heatmap", &GenerateFcHeatmap},
      {"tensor_good_bad_ugly", &GenerateTensorGoodBadUgly},
      {"intergroup_sharing", &GenerateIntergroupSharing},
      {"activation_sparsity", &GenerateActivationSparsity},
      {"fusion_speedup", &GenerateFusionSpeedup},
      {"layer_bandwidth", &GenerateLayerBandwidth},
      {"op_breakdown", &GenerateOpBreakdown},
      {"conv_algorithms", &GenerateConvAlgorithms},
      {"workspace_limit", &GenerateWorkspaceLimit},
      {"roofline", &GenerateRoofline},
      {"decode_step_model", &GenerateDecodeStepModel},
      {"communication_breakdown", &GenerateCommunicationBreakdown},
  };
  return *table;
}

}  // namespace

Generator FindGenerator(std::string_view name) {
  const auto it = Table().find(name);
  return it == Table().end() ? nullptr : it->second;
}

std::vector<std::string> GeneratorNames() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : Table()) names.push_back(name);
  return names;
}

}  // namespace dissect::analysis::papers
