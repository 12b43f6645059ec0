// The same_code_as row note: the format analysis/SCHEMA.md documents and
// analysis/sections/l1_bypass.cc parses.

#include "experiments/l1_bypass/variant_aliases.h"

#include <string>

#include "gtest/gtest.h"

namespace dissect::l1_bypass {
namespace {

TEST(SameCodeNoteTest, CompiledTwinNamesItsLoads) {
  const SameCode* cg = FindSameCode("cg");
  ASSERT_NE(cg, nullptr);
  EXPECT_EQ(SameCodeNote(*cg), "same_code_as: dlcm_cg (LDG.E.STRONG.GPU)");
}

TEST(SameCodeNoteTest, RuntimeVariantNamesItsSetting) {
  const SameCode* stream = FindSameCode("l2_stream");
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(SameCodeNote(*stream),
            "same_code_as: default + L2 streaming access-policy window over the input");
}

TEST(SameCodeNoteTest, NotesHoldNoLabelSeparator) {
  for (const SameCode& s : kSameCode) {
    EXPECT_EQ(SameCodeNote(s).find(';'), std::string::npos) << s.variant;
  }
}

TEST(SameCodeNoteTest, VariantsWithCodeOfTheirOwnHaveNoEntry) {
  EXPECT_EQ(FindSameCode("default"), nullptr);
  EXPECT_EQ(FindSameCode("dlcm_cg"), nullptr);
}

}  // namespace
}  // namespace dissect::l1_bypass
