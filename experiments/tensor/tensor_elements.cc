// Operand elements, fragment layouts and the CPU reference; see
// tensor_elements.h.
#include "experiments/tensor/tensor_elements.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "experiments/half_float.h"

namespace dissect {
namespace {

// (-1)^sign × (1 + mantissa / 2^mantissa_bits) × 2^(exponent - bias) for a
// normal number, mantissa / 2^mantissa_bits × 2^(1 - bias) for a subnormal.
double FloatFields(uint32_t sign, uint32_t exponent, uint32_t mantissa, int mantissa_bits,
                   int bias) {
  const double fraction = std::ldexp(static_cast<double>(mantissa), -mantissa_bits);
  const double magnitude = exponent == 0
                               ? std::ldexp(fraction, 1 - bias)
                               : std::ldexp(1.0 + fraction, static_cast<int>(exponent) - bias);
  return sign ? -magnitude : magnitude;
}

double DecodeF32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;  // stored bits (tf32: 10, placed above 13 zero bits)
  int bias;
  int shift;  // bits below the mantissa (tf32: 13)
};

bool FormatOf(TensorElement e, FloatFormat* f) {
  switch (e) {
    case TensorElement::kF16:
      *f = {5, 10, 15, 0};
      return true;
    case TensorElement::kBf16:
      *f = {8, 7, 127, 0};
      return true;
    case TensorElement::kTf32:
      *f = {8, 10, 127, 13};
      return true;
    case TensorElement::kE4m3:
      *f = {4, 3, 7, 0};
      return true;
    case TensorElement::kE5m2:
      *f = {5, 2, 15, 0};
      return true;
    default:
      return false;
  }
}

int ElementsPerWord(TensorElement e) { return 32 / ElementBits(e); }

// Appends Σ_k a(k)·b(k) and Σ_k |a(k)·b(k)| over k < count, the elements
// given as bit patterns of `input`.
template <typename A, typename B>
void AppendReference(TensorElement input, int count, A a, B b, std::vector<double>& product,
                     std::vector<double>& magnitude) {
  double sum = 0, abs_sum = 0;
  for (int k = 0; k < count; ++k) {
    const double p = DecodeElement(input, a(k)) * DecodeElement(input, b(k));
    sum += p;
    abs_sum += std::fabs(p);
  }
  product.push_back(sum);
  magnitude.push_back(abs_sum);
}

bool IsFp8(TensorElement e) { return e == TensorElement::kE4m3 || e == TensorElement::kE5m2; }

uint32_t ElementMask(TensorElement e) {
  const int bits = ElementBits(e);
  return bits == 32 ? 0xffffffffu : (1u << bits) - 1;
}

}  // namespace

double DecodeElement(TensorElement e, uint32_t bits) {
  switch (e) {
    case TensorElement::kF32:
      return DecodeF32(bits);
    case TensorElement::kBf16:
      return DecodeF32((bits & 0xffffu) << 16);
    case TensorElement::kTf32:
      return DecodeF32(bits & ~0x1fffu);
    case TensorElement::kS8:
      return static_cast<int8_t>(bits & 0xffu);
    case TensorElement::kS32:
      return static_cast<int32_t>(bits);
    case TensorElement::kE4m3:
      if ((bits & 0x7fu) == 0x7fu) return std::nan("");
      break;
    case TensorElement::kF16:
      return HalfToDouble(static_cast<uint16_t>(bits));
    case TensorElement::kE5m2:
      if (((bits >> 2) & 0x1fu) == 0x1fu) {
        return (bits & 0x3u) ? std::nan("") : ((bits & 0x80u) ? -INFINITY : INFINITY);
      }
      break;
  }
  FloatFormat f;
  FormatOf(e, &f);
  const int total = 1 + f.exponent_bits + f.mantissa_bits;
  const uint32_t sign = (bits >> (f.shift + total - 1)) & 1u;
  const uint32_t exponent = (bits >> (f.shift + f.mantissa_bits)) & ((1u << f.exponent_bits) - 1);
  const uint32_t mantissa = (bits >> f.shift) & ((1u << f.mantissa_bits) - 1);
  return FloatFields(sign, exponent, mantissa, f.mantissa_bits, f.bias);
}

uint32_t RandomElementBits(TensorElement e, std::mt19937_64& rng) {
  if (e == TensorElement::kS8 || e == TensorElement::kS32) {
    return static_cast<uint32_t>(rng()) & ElementMask(e);
  }
  FloatFormat f;
  if (!FormatOf(e, &f)) f = {8, 23, 127, 0};  // f32
  const uint32_t sign = static_cast<uint32_t>(rng() & 1u);
  // Exponents bias-4 ... bias: magnitudes in [1/16, 2).
  const uint32_t exponent = static_cast<uint32_t>(f.bias - 4 + rng() % 5);
  const uint32_t mantissa = static_cast<uint32_t>(rng()) & ((1u << f.mantissa_bits) - 1);
  const int total = 1 + f.exponent_bits + f.mantissa_bits;
  return ((sign << (total - 1)) | (exponent << f.mantissa_bits) | mantissa) << f.shift;
}

const ProbeData& FindProbeData(absl::string_view name) {
  for (const ProbeData& d : kProbeData) {
    if (name == d.name) return d;
  }
  return kProbeData[0];
}

std::vector<std::string> ProbeDataNames() {
  std::vector<std::string> names;
  for (const ProbeData& d : kProbeData) names.push_back(d.name);
  return names;
}

const char kProbeDataHelp[] =
    "operands: random: random normal numbers (random integers for s8) in one A and B "
    "fragment that every step reads, so the multipliers' inputs never change; "
    "random_cycling: 4 fragments of different random numbers read in turn, so consecutive "
    "instructions get different inputs as in a GEMM (compare the two rows' SM clocks); "
    "zeros: all zeros";

// Columns of A as stored: K, or K / 2 for sparse forms.
int StoredK(const MmaFormInfo& form) { return form.sparse ? form.k / 2 : form.k; }
int StoredK(const WgmmaFormInfo& form) { return form.sparse ? form.k / 2 : form.k; }

MatrixCoord MmaACoord(const MmaFormInfo& form, int lane, int reg, int i) {
  const int group = lane / 4, thread = lane % 4;
  const int per_word = ElementsPerWord(form.input);
  return {group + 8 * (reg % 2), (reg / 2) * (StoredK(form) / 2) + thread * per_word + i};
}

MatrixCoord MmaBCoord(const MmaFormInfo& form, int lane, int reg, int i) {
  const int group = lane / 4, thread = lane % 4;
  const int per_word = ElementsPerWord(form.input);
  return {reg * (form.k / 2) + thread * per_word + i, group};
}

MatrixCoord MmaCCoord(int lane, int e) { return {lane / 4 + 8 * (e / 2), 2 * (lane % 4) + e % 2}; }

namespace {

// Adds `from` element by element to `into` (empty: copies it).
void AddInto(std::vector<double>& into, const std::vector<double>& from) {
  if (into.empty()) into.assign(from.size(), 0.0);
  for (size_t i = 0; i < from.size(); ++i) into[i] += from[i];
}

// Appends one fragment of `form` (its own random A and B) to ops.a and
// ops.b, and its D += A·B reference to `product` and `magnitude`.
void AppendMmaFragment(const MmaFormInfo& form, OperandData data, std::mt19937_64& rng,
                       MmaOperands& ops, std::vector<double>& product,
                       std::vector<double>& magnitude) {
  const int per_word = ElementsPerWord(form.input);
  const int bits = ElementBits(form.input);
  const int stored_k = StoredK(form);
  // Matrices as element bit patterns, then packed by the fragment layout.
  // Sparse forms: A is the stored half, B one value per column.
  std::vector<uint32_t> a(static_cast<size_t>(form.m) * stored_k, 0);
  std::vector<uint32_t> b(static_cast<size_t>(form.sparse ? 1 : form.k) * form.n, 0);
  if (data == OperandData::kRandom) {
    for (uint32_t& v : a) v = RandomElementBits(form.input, rng);
    for (uint32_t& v : b) v = RandomElementBits(form.input, rng);
  }
  // B[k][n] as stored in `b`.
  auto b_at = [&](int k, int n) { return form.sparse ? b[n] : b[k * form.n + n]; };
  const size_t a_base = ops.a.size(), b_base = ops.b.size();
  ops.a.resize(a_base + 32 * form.a_regs, 0);
  ops.b.resize(b_base + 32 * form.b_regs, 0);
  for (int lane = 0; lane < 32; ++lane) {
    for (int r = 0; r < form.a_regs; ++r) {
      for (int i = 0; i < per_word; ++i) {
        const MatrixCoord c = MmaACoord(form, lane, r, i);
        ops.a[a_base + lane * form.a_regs + r] |= a[c.row * stored_k + c.col] << (i * bits);
      }
    }
    for (int r = 0; r < form.b_regs; ++r) {
      for (int i = 0; i < per_word; ++i) {
        const MatrixCoord c = form.sparse ? MatrixCoord{0, lane / 4} : MmaBCoord(form, lane, r, i);
        ops.b[b_base + lane * form.b_regs + r] |= b_at(c.row, c.col) << (i * bits);
      }
    }
    for (int e = 0; e < kMmaAccElements; ++e) {
      const MatrixCoord c = MmaCCoord(lane, e);
      AppendReference(
          form.input, stored_k, [&](int k) { return a[c.row * stored_k + k]; },
          [&](int k) { return b_at(k, c.col); }, product, magnitude);
    }
  }
}

}  // namespace

MmaOperands MakeMmaOperands(const MmaFormInfo& form, OperandData data, uint64_t seed,
                            int fragments) {
  std::mt19937_64 rng(seed);
  MmaOperands ops;
  ops.fragments = fragments;
  if (form.sparse) ops.metadata.assign(32, kMmaSparseMetadata);
  for (int f = 0; f < fragments; ++f) {
    std::vector<double> product, magnitude;
    AppendMmaFragment(form, data, rng, ops, product, magnitude);
    AddInto(ops.product, product);
    AddInto(ops.magnitude, magnitude);
  }
  return ops;
}

double AccumulatorTolerance(TensorElement input, TensorElement accumulator) {
  switch (accumulator) {
    case TensorElement::kS32:
      return 0;
    case TensorElement::kF16:
      return std::ldexp(1.0, -7);
    default:
      return std::ldexp(1.0, -12);  // fp8 inputs: Fp8AccumulationBound
  }
}

double Fp8AccumulationBound(double magnitude, const Accumulation& shape) {
  const int64_t per_chain = shape.steps * shape.fragments / std::max(shape.chains, 1);
  // Σ over the chain's instructions of L_j / magnitude.
  double largest_terms = 0;
  for (int64_t j = 1; j <= per_chain; ++j) {
    const int64_t passes = (j - 1 + shape.fragments - 1) / shape.fragments;
    largest_terms += static_cast<double>(std::max<int64_t>(passes, 1));
  }
  const double unit = std::ldexp(1.0, 1 - kFp8AccumulationBits);  // u / L
  const double chain_bound = (shape.terms + 1) * unit * largest_terms * magnitude;
  // The kernel's f32 sum of the chains: one rounding per addition.
  const double chain_sum = (shape.chains - 1) * std::ldexp(1.0, -24) *
                           static_cast<double>(shape.steps) * magnitude;
  return shape.chains * chain_bound + chain_sum;
}

absl::Status CheckAccumulators(absl::string_view name, TensorElement input,
                               TensorElement accumulator, const std::vector<double>& product,
                               const std::vector<double>& magnitude, const Accumulation& shape,
                               absl::Span<const uint32_t> out) {
  const size_t per_block = product.size();
  if (per_block == 0 || out.empty() || out.size() % per_block != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": output holds ", out.size(), " words, not a multiple of ", per_block));
  }
  if (shape.chains < 1 || shape.steps % shape.chains != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": ", shape.steps, " steps do not spread evenly over ", shape.chains, " chains"));
  }
  const int64_t steps = shape.steps;
  const bool fp8_model = IsFp8(input) && accumulator == TensorElement::kF32;
  const double tolerance = AccumulatorTolerance(input, accumulator);
  const bool integer = accumulator == TensorElement::kS32;
  size_t bad = 0;
  std::string first;
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t slot = i % per_block;
    bool ok;
    std::string got, want;
    if (integer) {
      const int64_t exact = static_cast<int64_t>(product[slot]) * steps;
      const int32_t expected = static_cast<int32_t>(static_cast<uint32_t>(exact));
      const int32_t value = static_cast<int32_t>(out[i]);
      ok = value == expected;
      got = absl::StrCat(value);
      want = absl::StrCat(expected);
    } else {
      const double expected = product[slot] * static_cast<double>(steps);
      const double bound = fp8_model ? Fp8AccumulationBound(magnitude[slot], shape)
                                     : tolerance * magnitude[slot] * static_cast<double>(steps);
      const double value = DecodeElement(TensorElement::kF32, out[i]);
      ok = std::isfinite(value) && std::fabs(value - expected) <= bound;
      got = absl::StrFormat("%.9g", value);
      want = absl::StrFormat("%.9g ± %.3g", expected, bound);
    }
    if (!ok && bad++ == 0) {
      first = absl::StrCat("block ", i / per_block, " slot ", slot, ": got ", got, ", want ", want);
    }
  }
  if (bad == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(name, ": ", bad, " of ", out.size(),
                                          " accumulator values differ from the CPU "
                                          "reference; first: ",
                                          first));
}

namespace {

// Steps per fragment of `steps` spread evenly over `fragments`.
absl::StatusOr<int64_t> StepsPerFragment(absl::string_view name, int64_t steps, int fragments) {
  if (fragments < 1 || steps % fragments != 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", steps,
                                                   " steps do not spread evenly over ",
                                                   fragments, " fragments"));
  }
  return steps / fragments;
}

}  // namespace

absl::Status CheckMmaOutput(const MmaFormInfo& form, const MmaOperands& operands, int64_t steps,
                            absl::Span<const uint32_t> out, int chains) {
  const absl::StatusOr<int64_t> per_fragment =
      StepsPerFragment(form.name, steps, operands.fragments);
  if (!per_fragment.ok()) return per_fragment.status();
  return CheckAccumulators(form.name, form.input, form.accumulator, operands.product,
                           operands.magnitude,
                           {*per_fragment, chains, operands.fragments, StoredK(form)}, out);
}

MatrixCoord WgmmaDCoord(int thread, int v) {
  const int warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((v / 2) % 2), 8 * (v / 4) + 2 * (lane % 4) + v % 2};
}

MatrixCoord WgmmaACoord(const WgmmaFormInfo& form, int thread, int reg, int i) {
  MmaFormInfo tile{};
  tile.m = 16;
  tile.k = StoredK(form);
  tile.input = form.input;
  MatrixCoord c = MmaACoord(tile, thread % 32, reg, i);
  c.row += 16 * (thread / 32);
  return c;
}

WgmmaOperands MakeWgmmaOperands(const WgmmaFormInfo& form, int n, OperandData data, uint64_t seed,
                                int fragments) {
  std::mt19937_64 rng(seed);
  const int bytes = ElementBits(form.input) / 8;
  const int bits = ElementBits(form.input);
  const int per_word = ElementsPerWord(form.input);
  const int stored_k = StoredK(form);
  const int b_row_bytes = WgmmaBRowBytes(form);
  // The images: A's rows and B's columns of every fragment's window.
  const int a_rows = WgmmaImageRows(kWgmmaM, fragments);
  const int b_cols = WgmmaImageRows(n, fragments);
  std::vector<uint32_t> a(static_cast<size_t>(a_rows) * stored_k, 0);
  std::vector<uint32_t> b(static_cast<size_t>(form.sparse ? 1 : form.k) * b_cols, 0);
  if (data == OperandData::kRandom) {
    for (uint32_t& v : a) v = RandomElementBits(form.input, rng);
    for (uint32_t& v : b) v = RandomElementBits(form.input, rng);
  }
  auto b_at = [&](int k, int col) { return form.sparse ? b[col] : b[k * b_cols + col]; };
  WgmmaOperands ops;
  ops.fragments = fragments;
  ops.a_tile.assign(static_cast<size_t>(a_rows) * kWgmmaRowBytes, 0);
  ops.b_tile.assign(static_cast<size_t>(b_cols) * b_row_bytes, 0);
  if (form.sparse) ops.metadata.assign(kWarpgroupThreads, kMmaSparseMetadata);
  auto put = [&](std::vector<uint8_t>& tile, int row, int k, int row_bytes, uint32_t value) {
    for (int byte = 0; byte < bytes; ++byte) {
      tile[WgmmaTileOffset(row, k * bytes + byte, row_bytes)] =
          static_cast<uint8_t>(value >> (8 * byte));
    }
  };
  for (int row = 0; row < a_rows; ++row) {
    for (int k = 0; k < stored_k; ++k) {
      put(ops.a_tile, row, k, kWgmmaRowBytes, a[row * stored_k + k]);
    }
  }
  for (int col = 0; col < b_cols; ++col) {
    for (int k = 0; k < form.k; ++k) put(ops.b_tile, col, k, b_row_bytes, b_at(k, col));
  }
  ops.a_fragments.assign(static_cast<size_t>(fragments) * kWarpgroupThreads * kWgmmaARegs, 0);
  ops.product.assign(static_cast<size_t>(kWarpgroupThreads) * (n / 2), 0.0);
  ops.magnitude.assign(ops.product.size(), 0.0);
  for (int f = 0; f < fragments; ++f) {
    // Fragment f: the windows 8 f rows (columns of B) into the images.
    const int shift = 8 * f;
    std::vector<double> product, magnitude;
    for (int t = 0; t < kWarpgroupThreads; ++t) {
      for (int r = 0; r < kWgmmaARegs; ++r) {
        for (int i = 0; i < per_word; ++i) {
          const MatrixCoord c = WgmmaACoord(form, t, r, i);
          ops.a_fragments[(f * kWarpgroupThreads + t) * kWgmmaARegs + r] |=
              a[(c.row + shift) * stored_k + c.col] << (i * bits);
        }
      }
      for (int v = 0; v < n / 2; ++v) {
        const MatrixCoord c = WgmmaDCoord(t, v);
        AppendReference(
            form.input, stored_k, [&](int k) { return a[(c.row + shift) * stored_k + k]; },
            [&](int k) { return b_at(k, c.col + shift); }, product, magnitude);
      }
    }
    AddInto(ops.product, product);
    AddInto(ops.magnitude, magnitude);
  }
  return ops;
}

absl::Status CheckWgmmaOutput(const WgmmaFormInfo& form, int n, const WgmmaOperands& operands,
                              int64_t steps, absl::Span<const uint32_t> out, int chains) {
  const std::string name = absl::StrCat("wgmma ", form.name, " n", n);
  const absl::StatusOr<int64_t> per_fragment = StepsPerFragment(name, steps, operands.fragments);
  if (!per_fragment.ok()) return per_fragment.status();
  return CheckAccumulators(name, form.input, form.accumulator, operands.product,
                           operands.magnitude,
                           {*per_fragment, chains, operands.fragments, StoredK(form)}, out);
}

}  // namespace dissect
