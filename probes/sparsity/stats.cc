#include "probes/sparsity/stats.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dissect::sparsity {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

double Fraction(int64_t part, int64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

int64_t WarpVectorCount(const Dims& d) { return d.n * d.plane() * CeilDiv(d.c, kWarpVector); }
int64_t TileCount(const Dims& d) { return CeilDiv(d.c, kTile) * CeilDiv(d.n * d.plane(), kTile); }
int64_t GroupCount(const Dims& d) { return d.n * d.plane() * CeilDiv(d.c, kGroup); }

absl::StatusOr<SparsityCounts> CountSparsity(const Dims& d, absl::Span<const float> x) {
  if (d.n < 1 || d.c < 1 || d.h < 1 || d.w < 1) {
    return absl::InvalidArgumentError(absl::StrCat("tensor dimensions must be >= 1 (got ", d.n, "x",
                                                   d.c, "x", d.h, "x", d.w, ")"));
  }
  if (static_cast<int64_t>(x.size()) != d.elements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor has ", x.size(), " values, dimensions say ", d.elements()));
  }
  SparsityCounts counts;
  counts.dims = d;
  counts.channel_zeros.assign(d.c, 0);
  const int64_t columns = d.n * d.plane();
  const auto at = [&](int64_t c, int64_t column) {
    const int64_t n = column / d.plane();
    return x[(n * d.c + c) * d.plane() + column % d.plane()];
  };
  // Zero flags of the column's channels, reused per column.
  std::vector<uint8_t> zero(d.c);
  // Per column tile row: whether the tile row's channels are all zero in
  // every column of the current column tile so far.
  std::vector<uint8_t> tile_zero(CeilDiv(d.c, kTile), 1);
  for (int64_t j = 0; j < columns; ++j) {
    for (int64_t c = 0; c < d.c; ++c) {
      zero[c] = at(c, j) == 0.0f;
      counts.zeros += zero[c];
      counts.channel_zeros[c] += zero[c];
    }
    for (int64_t g = 0; g * kWarpVector < d.c; ++g) {
      counts.zero_warp_vectors += std::all_of(zero.begin() + g * kWarpVector,
                                              zero.begin() + std::min(d.c, (g + 1) * kWarpVector),
                                              [](uint8_t z) { return z != 0; });
    }
    for (int64_t g = 0; g * kGroup < d.c; ++g) {
      const int64_t end = std::min(d.c, (g + 1) * kGroup);
      int64_t nonzeros = 0;
      for (int64_t c = g * kGroup; c < end; ++c) nonzeros += !zero[c];
      counts.two_four_groups += nonzeros <= 2;
    }
    for (int64_t t = 0; t * kTile < d.c; ++t) {
      for (int64_t c = t * kTile; c < std::min(d.c, (t + 1) * kTile); ++c) {
        tile_zero[t] &= zero[c];
      }
    }
    if (j % kTile == kTile - 1 || j == columns - 1) {
      for (uint8_t& t : tile_zero) {
        counts.zero_tiles += t;
        t = 1;
      }
    }
  }
  return counts;
}

LayerSparsity Summarize(const SparsityCounts& counts) {
  const Dims& d = counts.dims;
  LayerSparsity s;
  s.elements = d.elements();
  s.zero_fraction = Fraction(counts.zeros, s.elements);
  s.warp_zero_fraction = Fraction(counts.zero_warp_vectors, WarpVectorCount(d));
  s.tile_zero_fraction = Fraction(counts.zero_tiles, TileCount(d));
  s.two_four_fraction = Fraction(counts.two_four_groups, GroupCount(d));
  const int64_t per_channel = d.n * d.plane();
  int64_t dead = 0;
  for (int64_t z : counts.channel_zeros) {
    s.channel_sparsity.push_back(Fraction(z, per_channel));
    dead += z == per_channel;
  }
  s.dead_channel_fraction = Fraction(dead, static_cast<int64_t>(counts.channel_zeros.size()));
  std::sort(s.channel_sparsity.begin(), s.channel_sparsity.end());
  if (!s.channel_sparsity.empty()) {
    const std::vector<double>& v = s.channel_sparsity;
    s.channel_min = v.front();
    s.channel_max = v.back();
    const size_t mid = v.size() / 2;
    s.channel_median = v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  }
  return s;
}

std::string DescribeDifference(const SparsityCounts& e, const SparsityCounts& a) {
  if (!(e.dims == a.dims)) return "dimensions differ";
  const auto differ = [](const char* what, int64_t want, int64_t got) {
    return absl::StrCat(what, ": expected ", want, ", got ", got);
  };
  if (e.zeros != a.zeros) return differ("zeros", e.zeros, a.zeros);
  if (e.zero_warp_vectors != a.zero_warp_vectors) {
    return differ("zero warp vectors", e.zero_warp_vectors, a.zero_warp_vectors);
  }
  if (e.zero_tiles != a.zero_tiles) return differ("zero tiles", e.zero_tiles, a.zero_tiles);
  if (e.two_four_groups != a.two_four_groups) {
    return differ("2:4 groups", e.two_four_groups, a.two_four_groups);
  }
  if (e.channel_zeros.size() != a.channel_zeros.size()) return "channel counts differ";
  for (size_t c = 0; c < e.channel_zeros.size(); ++c) {
    if (e.channel_zeros[c] != a.channel_zeros[c]) {
      return differ(absl::StrCat("zeros of channel ", c).c_str(), e.channel_zeros[c],
                    a.channel_zeros[c]);
    }
  }
  return "";
}

}  // namespace dissect::sparsity
