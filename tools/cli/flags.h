// The command line of every dissect tool (report, verdict, sweep, ...): its
// flags are gflags, defined with DEFINE_* in the tool's main, and this layer
// parses them, checks them and prints --help, so that every tool reads its
// flags the same way, says what is wrong in one line, and documents itself in
// one format:
//
//   usage: NAME [--help] [--flag] [--flag=VALUE] ... ARGS
//
//   ABOUT
//
//   flags:
//     --flag=VALUE  its gflags description (default: D)
//     --help        print this help and exit
//
//   MORE
//
// Accepted: --name=value, --name value, a boolean --name or --noname, -h,
// and "--" to end the flags; "-" and anything not starting with '-' is a
// positional argument, kept in order. Only the tool's own flags are accepted
// (not gflags' built-in --flagfile, --fromenv, ...): any other flag is an
// error.
#ifndef DISSECT_TOOLS_CLI_FLAGS_H_
#define DISSECT_TOOLS_CLI_FLAGS_H_

#include <optional>
#include <string>
#include <vector>

namespace dissect::cli {

// One of a tool's flags, defined with gflags' DEFINE_* in its main.
struct FlagSpec {
  std::string name;       // the gflags name, without "--"
  std::string value;      // what --help calls its value ("FILE"); "" for a switch
  bool empty_ok = false;  // "--name=" is a value, not a missing one
};

// What a tool's command line takes; the parts of its --help.
struct Program {
  std::string name;             // leads every error line: "report: ..."
  std::string args;             // the positional arguments ("DB PATH..."), shown
                                // after "[--]" in the usage line
  std::string about;            // what the tool does, before the flags
  std::vector<FlagSpec> flags;  // in --help order
  std::string more;             // after the flags: exit statuses, examples
  int min_args = 0;             // positional arguments, checked after the flags
  int max_args = -1;            // -1: no upper bound
  int bad_usage_exit = 2;       // the exit status of bad usage
};

// The --help text.
std::string Help(const Program& program);

struct CommandLine {
  std::vector<std::string> args;   // the positional arguments, in order
  std::optional<int> exit_status;  // set: return it from main now (--help
                                   // printed, or an error already named)
};

// Sets the tool's flags from argv and collects the positional arguments.
// --help or -h prints Help() on stdout (exit status 0). An unknown flag, a
// value gflags cannot read as the flag's type, a missing value or a number of
// positional arguments outside [min_args, max_args] is named on stderr in one
// line (exit status bad_usage_exit).
CommandLine ParseCommandLine(const Program& program, int argc, char** argv);

// "NAME: message" on stderr; returns `status`.
int Fail(const Program& program, const std::string& message, int status);

// "NAME: message (see --help)" on stderr; returns bad_usage_exit.
int UsageError(const Program& program, const std::string& message);

// Help() on stderr, for a tool run without arguments; returns bad_usage_exit.
int UsageOnStderr(const Program& program);

// Whether the command line set flag `name` (even to its default value).
bool Given(const std::string& name);

}  // namespace dissect::cli

#endif  // DISSECT_TOOLS_CLI_FLAGS_H_
