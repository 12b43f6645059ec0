#include "experiments/workloads/inputs/npy.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::sparsity {
namespace {

using ::testing::HasSubstr;

// The bytes numpy.save would write: magic, version, header length, the
// dict padded with spaces and ending in '\n', then `data`.
std::string MakeNpy(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const size_t preamble = major == 1 ? 10 : 12;
  while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < preamble - 8; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string Dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return absl::StrCat("{'descr': '", descr, "', 'fortran_order': ", fortran ? "True" : "False",
                      ", 'shape': ", shape, ", }");
}

template <typename T>
std::string Bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

absl::StatusOr<std::vector<float>> Decode(const std::string& file, NpyOptions options = {},
                                          NpyHeader* header = nullptr) {
  return DecodeNpy(file, "act.npy", options, header);
}

std::string ErrorOf(const std::string& file, NpyOptions options = {}) {
  absl::StatusOr<std::vector<float>> r = Decode(file, options);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : std::string(r.status().message());
}

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(NpyTest, Float32Nchw) {
  NpyHeader header;
  auto x = Decode(MakeNpy(Dict("<f4", "(1, 2, 2, 3)"), Bytes(Iota(12))), {}, &header);
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(*x, Iota(12));
  EXPECT_EQ(header.dims, (Dims{1, 2, 2, 3}));
}

TEST(NpyTest, NhwcIsTransposed) {
  // Stored N=1, H=1, W=2, C=3: w0 = [0 1 2], w1 = [3 4 5].
  NpyHeader header;
  auto x =
      Decode(MakeNpy(Dict("<f4", "(1, 1, 2, 3)"), Bytes(Iota(6))), {Layout::kNhwc, false}, &header);
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(header.dims, (Dims{1, 3, 1, 2}));
  EXPECT_EQ(*x, (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(NpyTest, TwoDimensionsAreFeatures) {
  NpyHeader header;
  auto x = Decode(MakeNpy(Dict("<f4", "(2, 3)"), Bytes(Iota(6))), {Layout::kNhwc, false}, &header);
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(header.dims, (Dims{2, 3, 1, 1}));
  EXPECT_EQ(*x, Iota(6));
}

TEST(NpyTest, Float16) {
  const std::vector<uint16_t> h = {0x3c00, 0xc000, 0x8000, 0x0001, 0x7bff, 0x0000};
  auto x = Decode(MakeNpy(Dict("<f2", "(1, 6)"), Bytes(h)));
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ((*x)[0], 1.0f);
  EXPECT_EQ((*x)[1], -2.0f);
  EXPECT_EQ((*x)[2], 0.0f);
  EXPECT_TRUE(std::signbit((*x)[2]));
  EXPECT_EQ((*x)[3], std::ldexp(1.0f, -24));
  EXPECT_EQ((*x)[4], 65504.0f);
  EXPECT_EQ((*x)[5], 0.0f);
}

TEST(NpyTest, Bfloat16ByNameOrByRequest) {
  const std::vector<uint16_t> b = {0x3f80, 0xc040, 0x0000};  // 1, -3, 0
  const std::vector<float> want = {1.0f, -3.0f, 0.0f};
  auto named = Decode(MakeNpy(Dict("bfloat16", "(1, 3)"), Bytes(b)));
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(*named, want);
  const std::string raw = MakeNpy(Dict("<V2", "(1, 3)"), Bytes(b));
  EXPECT_THAT(ErrorOf(raw), HasSubstr("--activation_dtype=bfloat16"));
  auto asked = Decode(raw, {Layout::kNchw, true});
  ASSERT_TRUE(asked.ok()) << asked.status();
  EXPECT_EQ(*asked, want);
}

TEST(NpyTest, FormatVersions2And3) {
  for (int major : {2, 3}) {
    auto x = Decode(MakeNpy(Dict("<f4", "(1, 4)"), Bytes(Iota(4)), major));
    ASSERT_TRUE(x.ok()) << major << ": " << x.status();
    EXPECT_EQ(*x, Iota(4));
  }
  EXPECT_THAT(ErrorOf(MakeNpy(Dict("<f4", "(1, 4)"), Bytes(Iota(4)), 4)),
              HasSubstr("unsupported .npy format version 4.0"));
}

TEST(NpyTest, ErrorsNameTheFileAndTheProblem) {
  const std::string data = Bytes(Iota(4));
  const struct {
    std::string file;
    std::string message;
  } cases[] = {
      {"PK\x03\x04 not numpy", "not a .npy file (bad magic)"},
      {MakeNpy("['descr']", data), "malformed .npy header: not a dict"},
      {MakeNpy("{'fortran_order': False, 'shape': (1, 4), }", data), "no 'descr'"},
      {MakeNpy(Dict("<f4", "1, 4"), data), "no 'shape' tuple"},
      {MakeNpy(Dict("<f4", "(1, x)"), data), "shape entry 'x'"},
      {MakeNpy(Dict(">f4", "(1, 4)"), data), "big-endian dtype '>f4'"},
      {MakeNpy(Dict("<i4", "(1, 4)"), data), "unsupported dtype '<i4'"},
      {MakeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", data),
       "structured array"},
      {MakeNpy(Dict("<f4", "(1, 4)", true), data), "Fortran order"},
      {MakeNpy(Dict("<f4", "(4,)"), data), "has rank 1"},
      {MakeNpy(Dict("<f4", "(1, 1, 4)"), data), "has rank 3"},
      {MakeNpy(Dict("<f4", "(0, 4)"), ""), "is empty"},
      {MakeNpy(Dict("<f4", "(2, 4)"), data), "truncated: the data needs 32 bytes"},
      {MakeNpy(Dict("<f4", "(1, 3)"), data), "4 bytes follow the data"},
      {MakeNpy(Dict("<f4", "(1, 4)"), data).substr(0, 40), "header: truncated"},
  };
  for (const auto& c : cases) {
    const std::string error = ErrorOf(c.file);
    EXPECT_THAT(error, HasSubstr("act.npy: ")) << c.message;
    EXPECT_THAT(error, HasSubstr(c.message));
  }
}

TEST(NpyTest, NaturalOrder) {
  EXPECT_TRUE(NaturalLess("layer9", "layer10"));
  EXPECT_FALSE(NaturalLess("layer10", "layer9"));
  EXPECT_TRUE(NaturalLess("conv1_2", "conv2_1"));
  EXPECT_TRUE(NaturalLess("a", "b"));
  EXPECT_TRUE(NaturalLess("relu", "relu1"));
  EXPECT_FALSE(NaturalLess("same", "same"));
  EXPECT_TRUE(NaturalLess("x1", "x01"));
}

class NpyFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(std::getenv("TEST_TMPDIR")) / "dumps";
    std::filesystem::create_directories(dir_);
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(NpyFilesTest, FolderInNaturalOrderAndReading) {
  const std::string file = MakeNpy(Dict("<f4", "(1, 2, 1, 2)"), Bytes(Iota(4)));
  Write("layer10.npy", file);
  Write("layer9.npy", file);
  Write("layer1.npy", file);
  Write("notes.txt", "not a dump");
  auto files = ListNpyFiles(dir_.string());
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ((*files)[0].layer, "layer1");
  EXPECT_EQ((*files)[1].layer, "layer9");
  EXPECT_EQ((*files)[2].layer, "layer10");
  auto header = ReadNpyHeader((*files)[2].path, {});
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(header->dims, (Dims{1, 2, 1, 2}));
  auto act = ReadNpy((*files)[0].path, {});
  ASSERT_TRUE(act.ok()) << act.status();
  EXPECT_EQ(act->nchw, Iota(4));
  auto single = ListNpyFiles((*files)[1].path);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(single->front().layer, "layer9");
}

TEST_F(NpyFilesTest, FileErrorsNameThePath) {
  const std::string bad = Write("bad.npy", MakeNpy(Dict("<f4", "(2, 4)"), Bytes(Iota(4))));
  for (const absl::Status& s : {ReadNpyHeader(bad, {}).status(), ReadNpy(bad, {}).status()}) {
    EXPECT_THAT(std::string(s.message()), HasSubstr(bad + ": truncated"));
  }
  const std::string junk = Write("junk.npy", "junk");
  EXPECT_THAT(std::string(ReadNpyHeader(junk, {}).status().message()),
              HasSubstr(junk + ": not a .npy file"));
  EXPECT_EQ(ListNpyFiles((dir_ / "missing").string()).status().code(), absl::StatusCode::kNotFound);
  std::filesystem::create_directories(dir_ / "empty");
  EXPECT_THAT(std::string(ListNpyFiles((dir_ / "empty").string()).status().message()),
              HasSubstr("no .npy files"));
  EXPECT_FALSE(ParseLayout("CHWN").ok());
  EXPECT_EQ(*ParseLayout("NHWC"), Layout::kNhwc);
}

}  // namespace
}  // namespace dissect::sparsity
