// gpc_records_check FILE: what a gpc_topology launch records file
// (--gpc_records_dir) shows (DescribeGpcRun). Runs without a GPU.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "experiments/sharing/topology/gpc_records.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

namespace {

dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "gpc_records_check";
  program.args = "FILE";
  program.about =
      "Reads a gpc_topology launch records file (--gpc_records_dir) and prints the map the "
      "records give, the largest cluster each unresolved SM ran in, and the launches with "
      "blocks on held SMs, overfull SMs or a failed blocker.";
  program.more =
      "exit status: 0 printed, 1 the file cannot be read or is not launch records, 2 bad usage";
  program.min_args = 1;
  program.max_args = 1;
  return program;
}

}  // namespace

int main(int argc, char** argv) {
  const dissect::cli::Program program = Cli();
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(program, argc, argv);
  if (line.exit_status) return *line.exit_status;
  const std::string path = dissect::cli::UserPath(line.args[0]);
  std::ifstream in(path);
  if (!in) return dissect::cli::Fail(program, "cannot read " + line.args[0], 1);
  std::stringstream text;
  text << in.rdbuf();
  const auto run = dissect::ParseGpcRunJson(text.str());
  if (!run.ok()) {
    return dissect::cli::Fail(program, line.args[0] + ": " + std::string(run.status().message()),
                              1);
  }
  std::cout << dissect::DescribeGpcRun(*run);
  return 0;
}
