// See half_float.h.
#include "experiments/half_float.h"

#include <algorithm>
#include <cmath>

namespace dissect {

double HalfToDouble(uint16_t h) {
  const int sign = (h >> 15) ? -1 : 1;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0x1f) return mantissa != 0 ? std::nan("") : sign * HUGE_VAL;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

uint16_t DoubleToHalf(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  // A quiet NaN; which NaN the GPU returns is not modelled
  // (instruction_models.cc, SameValue).
  if (std::isnan(v)) return 0x7e00;
  const double magnitude = std::fabs(v);
  int e = 0;
  std::frexp(magnitude, &e);  // magnitude = m * 2^e, m in [0.5, 1)
  // The spacing of fp16 values near `magnitude` (2^-24 among subnormals);
  // nearbyint rounds to nearest even in the default rounding mode.
  const double quantum = std::ldexp(1.0, std::max(e - 1, -14) - 10);
  const double rounded = std::nearbyint(magnitude / quantum) * quantum;
  if (rounded >= 65536.0 || std::isinf(magnitude)) return sign | 0x7c00;
  if (rounded < std::ldexp(1.0, -14)) {
    return sign | static_cast<uint16_t>(rounded / std::ldexp(1.0, -24));
  }
  std::frexp(rounded, &e);
  const int biased = e - 1 + 15;
  const double mantissa = rounded / std::ldexp(1.0, e - 1) - 1.0;
  return sign | static_cast<uint16_t>((biased << 10) | static_cast<int>(mantissa * 1024));
}

}  // namespace dissect
