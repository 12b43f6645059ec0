#include "experiments/layer_breakdown/op_rows.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace dissect::layer_breakdown {
namespace {

TEST(OpsNoteTest, NamesAndTypesInOrder) {
  const absl::StatusOr<forward::NetworkSpec> net =
      forward::BuiltinNetwork("alexnet", forward::NetworkPart::kFull);
  ASSERT_TRUE(net.ok()) << net.status();
  const absl::StatusOr<std::string> note = OpsNote(*net);
  ASSERT_TRUE(note.ok()) << note.status();
  EXPECT_EQ(note->rfind("ops=features.0:conv,features.1:relu,features.2:maxpool,", 0), 0u) << *note;
  EXPECT_NE(note->find(",classifier.1:fc,classifier.2:relu,"), std::string::npos) << *note;
  const std::string tail = ",classifier.6:fc,softmax:softmax";
  ASSERT_GT(note->size(), tail.size());
  EXPECT_EQ(note->substr(note->size() - tail.size()), tail);
}

TEST(OpsNoteTest, EveryBuiltinNetworkFits) {
  for (const std::string& name : forward::AllBuiltinNetworkNames()) {
    const forward::NetworkSpec net = *forward::BuiltinNetwork(name, forward::NetworkPart::kFull);
    const absl::StatusOr<std::string> note = OpsNote(net);
    ASSERT_TRUE(note.ok()) << name << ": " << note.status();
    EXPECT_EQ(std::count(note->begin(), note->end(), ','), net.layers.size() - 1) << name;
  }
}

TEST(OpsNoteTest, RejectsSeparatorsInNames) {
  forward::NetworkSpec net;
  net.layers.resize(1);
  net.layers[0].name = "a,b";
  EXPECT_FALSE(OpsNote(net).ok());
  net.layers[0].name = "a;b";
  EXPECT_FALSE(OpsNote(net).ok());
}

TEST(SummarizeOpTimesTest, MedianMinMaxPerOp) {
  const absl::StatusOr<OpTimes> t = SummarizeOpTimes({{1, 10}, {3, 40}, {2, 20}, {9, 30}});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->median, (std::vector<double>{2.5, 25}));
  EXPECT_EQ(t->min, (std::vector<double>{1, 10}));
  EXPECT_EQ(t->max, (std::vector<double>{9, 40}));
  const absl::StatusOr<OpTimes> odd = SummarizeOpTimes({{5}, {1}, {3}});
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->median, std::vector<double>{3});
}

TEST(SummarizeOpTimesTest, Errors) {
  EXPECT_FALSE(SummarizeOpTimes({}).ok());
  EXPECT_FALSE(SummarizeOpTimes({{1, 2}, {1}}).ok());
}

}  // namespace
}  // namespace dissect::layer_breakdown
