#include "probes/ptx_test_util.h"

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace dissect {

std::vector<std::string>& PtxFiles() {
  static auto* files = new std::vector<std::string>();
  return *files;
}

std::vector<std::string> PtxFilesNamed(absl::string_view stem) {
  std::vector<std::string> out;
  for (const std::string& f : PtxFiles()) {
    const absl::string_view base = absl::string_view(f).substr(f.rfind('/') + 1);
    if (absl::StartsWith(base, absl::StrCat(stem, "."))) out.push_back(f);
  }
  return out;
}

std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path << ": cannot open";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<PtxInstruction> EntryCode(const std::string& file, absl::string_view entry) {
  auto body = ExtractEntry(ReadTextFile(file), entry);
  EXPECT_TRUE(body.ok()) << file << ": " << body.status();
  return body.ok() ? ParseInstructions(*body) : std::vector<PtxInstruction>{};
}

int FirstMention(const std::vector<PtxInstruction>& code, absl::string_view needle) {
  for (size_t i = 0; i < code.size(); ++i) {
    if (absl::StrContains(code[i].text, needle)) return static_cast<int>(i);
  }
  return -1;
}

int LastMention(const std::vector<PtxInstruction>& code, absl::string_view needle) {
  for (size_t i = code.size(); i-- > 0;) {
    if (absl::StrContains(code[i].text, needle)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace dissect
