#include "experiments/workloads/inputs/npy.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace dissect::sparsity {
namespace {

constexpr absl::string_view kMagic("\x93NUMPY", 6);
// Bounds the element count (and so the memory a bad header could ask for).
constexpr int64_t kMaxElements = int64_t{1} << 36;

uint32_t ReadLe(absl::string_view bytes, size_t at, int size) {
  uint32_t v = 0;
  for (int i = size - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(bytes[at + i]);
  return v;
}

float HalfToFloat(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  float v;
  if (exponent == 0) {
    v = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    v = mantissa != 0 ? std::numeric_limits<float>::quiet_NaN()
                      : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  }
  return (h & 0x8000) != 0 ? -v : v;
}

float BitsToFloat(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

int ItemSize(NpyDtype dtype) { return dtype == NpyDtype::kFloat32 ? 4 : 2; }

// The text after "'key':" in the header dict, leading spaces stripped; empty
// when the key is missing.
absl::string_view DictValue(absl::string_view dict, absl::string_view key) {
  for (const char quote : {'\'', '"'}) {
    const std::string quoted = absl::StrCat(std::string(1, quote), key, std::string(1, quote));
    size_t at = dict.find(quoted);
    if (at == absl::string_view::npos) continue;
    at = dict.find(':', at + quoted.size());
    if (at == absl::string_view::npos) return {};
    return absl::StripLeadingAsciiWhitespace(dict.substr(at + 1));
  }
  return {};
}

class HeaderError {
 public:
  explicit HeaderError(absl::string_view name) : name_(name) {}
  absl::Status operator()(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": ", what));
  }

 private:
  absl::string_view name_;
};

absl::StatusOr<NpyDtype> ParseDescr(absl::string_view value, const NpyOptions& options,
                                    const HeaderError& error) {
  if (value.empty() || (value[0] != '\'' && value[0] != '"')) {
    return error(value.empty() || value[0] != '['
                     ? "malformed .npy header: no 'descr' string"
                     : "unsupported dtype: a structured array (want float32 '<f4', float16 "
                       "'<f2' or bfloat16)");
  }
  const size_t end = value.find(value[0], 1);
  if (end == absl::string_view::npos) return error("malformed .npy header: unterminated 'descr'");
  const absl::string_view descr = value.substr(1, end - 1);
  if (descr == "<f4") return NpyDtype::kFloat32;
  if (descr == "<f2") return NpyDtype::kFloat16;
  if (descr == "bfloat16") return NpyDtype::kBfloat16;
  if (descr == "<V2" || descr == "|V2") {
    if (options.void2_as_bfloat16) return NpyDtype::kBfloat16;
    return error(absl::StrCat("dtype '", descr,
                              "' is 2-byte raw data; if it holds bfloat16 (ml_dtypes, jax), "
                              "ask for it with --activation_dtype=bfloat16"));
  }
  if (!descr.empty() && descr[0] == '>') {
    return error(absl::StrCat("big-endian dtype '", descr,
                              "' is not supported (save little-endian: '<f4', '<f2')"));
  }
  return error(absl::StrCat("unsupported dtype '", descr,
                            "' (want float32 '<f4', float16 '<f2' or bfloat16)"));
}

absl::StatusOr<std::vector<int64_t>> ParseShape(absl::string_view value, const HeaderError& error) {
  const size_t close = value.find(')');
  if (value.empty() || value[0] != '(' || close == absl::string_view::npos) {
    return error("malformed .npy header: no 'shape' tuple");
  }
  std::vector<int64_t> shape;
  for (absl::string_view item : absl::StrSplit(value.substr(1, close - 1), ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (item.empty()) continue;
    int64_t d;
    if (!absl::SimpleAtoi(item, &d)) {
      return error(absl::StrCat("malformed .npy header: shape entry '", item, "'"));
    }
    shape.push_back(d);
  }
  const std::string text = absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
  if (shape.size() != 4 && shape.size() != 2) {
    return error(absl::StrCat("shape ", text, " has rank ", shape.size(),
                              "; want 4 (NCHW or NHWC) or 2 (N x features)"));
  }
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 1) return error(absl::StrCat("shape ", text, " is empty"));
    if (d > kMaxElements / elements) {
      return error(absl::StrCat("shape ", text, " is too large"));
    }
    elements *= d;
  }
  return shape;
}

absl::StatusOr<std::string> ReadBytes(const std::string& path, size_t limit, uint64_t* size) {
  std::error_code ec;
  *size = std::filesystem::file_size(path, ec);
  if (ec) return absl::NotFoundError(absl::StrCat(path, ": cannot read (", ec.message(), ")"));
  std::ifstream in(path, std::ios::binary);
  std::string bytes(std::min<uint64_t>(*size, limit), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot read"));
  }
  return bytes;
}

}  // namespace

absl::StatusOr<Layout> ParseLayout(absl::string_view name) {
  if (name == "NCHW") return Layout::kNchw;
  if (name == "NHWC") return Layout::kNhwc;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown activation layout '", name, "' (choices: NCHW, NHWC)"));
}

absl::StatusOr<NpyHeader> ParseNpyHeader(absl::string_view file, uint64_t file_size,
                                         absl::string_view name, const NpyOptions& options) {
  const HeaderError error(name);
  if (file.size() < 10 || file.substr(0, kMagic.size()) != kMagic) {
    return error("not a .npy file (bad magic)");
  }
  const int major = static_cast<uint8_t>(file[6]);
  const int minor = static_cast<uint8_t>(file[7]);
  if (major < 1 || major > 3) {
    return error(absl::StrCat("unsupported .npy format version ", major, ".", minor));
  }
  const size_t start = major == 1 ? 10 : 12;
  if (file.size() < start) return error("malformed .npy header: truncated");
  const size_t length = ReadLe(file, 8, major == 1 ? 2 : 4);
  if (file.size() < start + length) {
    return error(absl::StrCat("malformed .npy header: truncated (", length, " bytes announced)"));
  }
  const absl::string_view dict = file.substr(start, length);
  if (dict.empty() || dict[0] != '{') return error("malformed .npy header: not a dict");

  NpyHeader header;
  absl::StatusOr<NpyDtype> dtype = ParseDescr(DictValue(dict, "descr"), options, error);
  if (!dtype.ok()) return dtype.status();
  header.dtype = *dtype;
  const absl::string_view order = DictValue(dict, "fortran_order");
  if (absl::StartsWith(order, "True")) {
    return error("Fortran order (fortran_order: True) is not supported; save C order");
  }
  if (!absl::StartsWith(order, "False")) {
    return error("malformed .npy header: no 'fortran_order'");
  }
  absl::StatusOr<std::vector<int64_t>> shape = ParseShape(DictValue(dict, "shape"), error);
  if (!shape.ok()) return shape.status();
  header.shape = *std::move(shape);
  const std::vector<int64_t>& s = header.shape;
  if (s.size() == 2) {
    header.dims = {s[0], s[1], 1, 1};
  } else if (options.layout == Layout::kNchw) {
    header.dims = {s[0], s[1], s[2], s[3]};
  } else {
    header.dims = {s[0], s[3], s[1], s[2]};
  }
  header.data_offset = start + length;
  const uint64_t data_bytes =
      static_cast<uint64_t>(header.dims.elements()) * ItemSize(header.dtype);
  const uint64_t present = file_size - header.data_offset;
  if (present < data_bytes) {
    return error(absl::StrCat("truncated: the data needs ", data_bytes, " bytes, the file has ",
                              present, " after the header"));
  }
  if (present > data_bytes) {
    return error(absl::StrCat(present - data_bytes, " bytes follow the data (not one array)"));
  }
  return header;
}

absl::StatusOr<std::vector<float>> DecodeNpy(absl::string_view file, absl::string_view name,
                                             const NpyOptions& options, NpyHeader* header_out) {
  absl::StatusOr<NpyHeader> header = ParseNpyHeader(file, file.size(), name, options);
  if (!header.ok()) return header.status();
  const Dims& d = header->dims;
  const bool nhwc = header->shape.size() == 4 && options.layout == Layout::kNhwc;
  const int item = ItemSize(header->dtype);
  std::vector<float> out(d.elements());
  const char* data = file.data() + header->data_offset;
  for (int64_t i = 0; i < d.elements(); ++i) {
    const uint32_t bits = ReadLe(absl::string_view(data, file.size()), i * item, item);
    float v;
    switch (header->dtype) {
      case NpyDtype::kFloat32:
        v = BitsToFloat(bits);
        break;
      case NpyDtype::kFloat16:
        v = HalfToFloat(static_cast<uint16_t>(bits));
        break;
      case NpyDtype::kBfloat16:
        v = BitsToFloat(bits << 16);
        break;
    }
    if (nhwc) {
      // Stored index ((n*H + h)*W + w)*C + c.
      const int64_t c = i % d.c;
      const int64_t w = (i / d.c) % d.w;
      const int64_t h = (i / (d.c * d.w)) % d.h;
      const int64_t n = i / (d.c * d.w * d.h);
      out[d.Index(n, c, h, w)] = v;
    } else {
      out[i] = v;
    }
  }
  if (header_out != nullptr) *header_out = *header;
  return out;
}

absl::StatusOr<std::vector<NpyFile>> ListNpyFiles(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    return std::vector<NpyFile>{{path, fs::path(path).stem().string()}};
  }
  if (!fs::is_directory(path, ec)) {
    return absl::NotFoundError(absl::StrCat(path, ": no such file or folder"));
  }
  std::vector<NpyFile> files;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
    if (e.path().extension() == ".npy" && e.is_regular_file(ec)) {
      files.push_back({e.path().string(), e.path().stem().string()});
    }
  }
  if (ec) return absl::NotFoundError(absl::StrCat(path, ": cannot list (", ec.message(), ")"));
  if (files.empty()) return absl::NotFoundError(absl::StrCat(path, ": no .npy files in it"));
  std::sort(files.begin(), files.end(),
            [](const NpyFile& a, const NpyFile& b) { return NaturalLess(a.layer, b.layer); });
  return files;
}

absl::StatusOr<NpyHeader> ReadNpyHeader(const std::string& path, const NpyOptions& options) {
  uint64_t size = 0;
  absl::StatusOr<std::string> prefix = ReadBytes(path, 12, &size);
  if (!prefix.ok()) return prefix.status();
  size_t need = prefix->size();
  if (prefix->size() == 12 && absl::StartsWith(*prefix, kMagic)) {
    need = static_cast<uint8_t>((*prefix)[6]) == 1 ? 10 + ReadLe(*prefix, 8, 2)
                                                   : 12 + ReadLe(*prefix, 8, 4);
  }
  prefix = ReadBytes(path, need, &size);
  if (!prefix.ok()) return prefix.status();
  return ParseNpyHeader(*prefix, size, path, options);
}

absl::StatusOr<Activation> ReadNpy(const std::string& path, const NpyOptions& options) {
  uint64_t size = 0;
  absl::StatusOr<std::string> bytes = ReadBytes(path, std::numeric_limits<size_t>::max(), &size);
  if (!bytes.ok()) return bytes.status();
  NpyHeader header;
  absl::StatusOr<std::vector<float>> data = DecodeNpy(*bytes, path, options, &header);
  if (!data.ok()) return data.status();
  return Activation{header.dims, *std::move(data)};
}

bool NaturalLess(absl::string_view a, absl::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (absl::ascii_isdigit(a[i]) && absl::ascii_isdigit(b[j])) {
      size_t ei = i, ej = j;
      while (ei < a.size() && absl::ascii_isdigit(a[ei])) ++ei;
      while (ej < b.size() && absl::ascii_isdigit(b[ej])) ++ej;
      absl::string_view da = a.substr(i, ei - i), db = b.substr(j, ej - j);
      const size_t za = std::min(da.find_first_not_of('0'), da.size() - 1);
      const size_t zb = std::min(db.find_first_not_of('0'), db.size() - 1);
      const absl::string_view va = da.substr(za), vb = db.substr(zb);
      if (va.size() != vb.size()) return va.size() < vb.size();
      if (va != vb) return va < vb;
      if (da.size() != db.size()) return da.size() < db.size();
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return static_cast<uint8_t>(a[i]) < static_cast<uint8_t>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace dissect::sparsity
