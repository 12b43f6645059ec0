// The shared command line; see flags.h.
#include "tools/cli/flags.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gflags/gflags.h"

namespace dissect::cli {
namespace {

constexpr size_t kWidth = 80;
// Flag labels longer than this put their description on the next line.
constexpr size_t kMaxLabel = 22;

// `words` filled into lines of at most kWidth, the first starting after
// `first_used` columns, every further one indented by `indent` columns.
std::string Wrap(absl::string_view text, size_t first_used, size_t indent) {
  std::string out;
  size_t column = first_used;
  bool line_empty = true;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    if (!line_empty && column + 1 + word.size() > kWidth) {
      absl::StrAppend(&out, "\n", std::string(indent, ' '));
      column = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++column;
    }
    absl::StrAppend(&out, word);
    column += word.size();
    line_empty = false;
  }
  return out;
}

std::string Label(const FlagSpec& flag) {
  return flag.value.empty() ? "--" + flag.name : absl::StrCat("--", flag.name, "=", flag.value);
}

const FlagSpec* FindFlag(const Program& program, absl::string_view name) {
  for (const FlagSpec& flag : program.flags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

gflags::CommandLineFlagInfo InfoOf(const FlagSpec& flag) {
  gflags::CommandLineFlagInfo info;
  if (!gflags::GetCommandLineFlagInfo(flag.name.c_str(), &info)) {
    // A Program naming a flag its main never defined: a programming error.
    std::cerr << "flag --" << flag.name << " is not defined\n";
    std::abort();
  }
  return info;
}

// The description of one flag, with its default where it has one worth
// showing (not false, not empty).
std::string Description(const FlagSpec& flag) {
  const gflags::CommandLineFlagInfo info = InfoOf(flag);
  std::string text = info.description;
  const bool quiet_default =
      info.default_value.empty() || (info.type == "bool" && info.default_value == "false");
  if (!quiet_default) absl::StrAppend(&text, " (default: ", info.default_value, ")");
  return text;
}

std::string WhatType(const std::string& type) {
  if (type == "double") return "a number";
  if (type == "bool") return "true or false";
  if (type == "string") return "a string";
  return "a whole number";
}

// Sets `flag` from `value`; an error message, or "" when it is set.
std::string Set(const FlagSpec& flag, const std::string& value) {
  if (value.empty() && !flag.empty_ok && !flag.value.empty()) {
    return absl::StrCat("--", flag.name, " needs ", flag.value);
  }
  if (gflags::SetCommandLineOption(flag.name.c_str(), value.c_str()).empty()) {
    return absl::StrCat("--", flag.name, "='", value, "' is not ", WhatType(InfoOf(flag).type));
  }
  return "";
}

// One flag argument `arg` ("--name[=value]", argv[*i]); may take the next
// argument as its value. An error message, or "".
std::string TakeFlag(const Program& program, const std::string& arg, int argc, char** argv,
                     int* i) {
  const std::string unknown = "unknown flag '" + arg + "'";
  absl::string_view body = absl::string_view(arg).substr(2);
  const size_t equals = body.find('=');
  const absl::string_view name = body.substr(0, equals);
  const FlagSpec* flag = FindFlag(program, name);
  const bool is_switch = flag != nullptr && flag->value.empty();
  if (equals != absl::string_view::npos) {
    if (flag == nullptr) return unknown;
    return Set(*flag, std::string(body.substr(equals + 1)));
  }
  if (flag == nullptr) {
    const FlagSpec* negated =
        absl::StartsWith(name, "no") ? FindFlag(program, name.substr(2)) : nullptr;
    if (negated == nullptr || !negated->value.empty()) return unknown;
    return Set(*negated, "false");
  }
  if (is_switch) return Set(*flag, "true");
  if (*i + 1 >= argc) return absl::StrCat("--", flag->name, " needs ", flag->value);
  return Set(*flag, argv[++*i]);
}

std::string CountError(const Program& program, const std::vector<std::string>& args) {
  if (program.max_args == 0) return "takes no arguments, got '" + args.front() + "'";
  return absl::StrCat("needs ", program.args, ", got ", args.size(), " argument(s)");
}

}  // namespace

std::string Help(const Program& program) {
  const std::string lead = "usage: " + program.name + " ";
  std::string usage = "[--help]";
  for (const FlagSpec& flag : program.flags) absl::StrAppend(&usage, " [", Label(flag), "]");
  if (!program.args.empty()) absl::StrAppend(&usage, " [--] ", program.args);
  std::string text = lead + Wrap(usage, lead.size(), lead.size()) + "\n\n";
  if (!program.about.empty()) absl::StrAppend(&text, program.about, "\n");

  std::vector<std::pair<std::string, std::string>> rows;
  for (const FlagSpec& flag : program.flags) rows.emplace_back(Label(flag), Description(flag));
  rows.emplace_back("--help", "print this help and exit");
  size_t label_width = 0;
  for (const auto& [label, description] : rows) {
    if (label.size() <= kMaxLabel) label_width = std::max(label_width, label.size());
  }
  const size_t indent = 2 + label_width + 2;
  text += "flags:\n";
  for (const auto& [label, description] : rows) {
    text += "  " + label;
    if (label.size() > label_width) {
      text += "\n" + std::string(indent, ' ');
    } else {
      text += std::string(label_width - label.size() + 2, ' ');
    }
    text += Wrap(description, indent, indent) + "\n";
  }
  if (!program.more.empty()) absl::StrAppend(&text, "\n", program.more);
  return text;
}

CommandLine ParseCommandLine(const Program& program, int argc, char** argv) {
  CommandLine line;
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      line.args.push_back(arg);
    } else if (arg == "--") {
      flags_done = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << Help(program);
      line.exit_status = 0;
      return line;
    } else if (!absl::StartsWith(arg, "--")) {
      line.exit_status = UsageError(program, "unknown flag '" + arg + "'");
      return line;
    } else if (std::string error = TakeFlag(program, arg, argc, argv, &i); !error.empty()) {
      line.exit_status = UsageError(program, error);
      return line;
    }
  }
  const int count = static_cast<int>(line.args.size());
  if (count < program.min_args || (program.max_args >= 0 && count > program.max_args)) {
    line.exit_status = UsageError(program, CountError(program, line.args));
  }
  return line;
}

int Fail(const Program& program, const std::string& message, int status) {
  std::cerr << program.name << ": " << message << "\n";
  return status;
}

int UsageError(const Program& program, const std::string& message) {
  return Fail(program, message + " (see --help)", program.bad_usage_exit);
}

int UsageOnStderr(const Program& program) {
  std::cerr << Help(program);
  return program.bad_usage_exit;
}

bool Given(const std::string& name) {
  gflags::CommandLineFlagInfo info;
  return gflags::GetCommandLineFlagInfo(name.c_str(), &info) && !info.is_default;
}

}  // namespace dissect::cli
