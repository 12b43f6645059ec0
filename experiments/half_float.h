// IEEE 754 binary16 (fp16) bit patterns on the host: the instruction
// experiments' CPU models of the fp16 ops and the tensor probes' operand
// decoding both read them.
#ifndef DISSECT_EXPERIMENTS_HALF_FLOAT_H_
#define DISSECT_EXPERIMENTS_HALF_FLOAT_H_

#include <cstdint>

namespace dissect {

// The value of an fp16 bit pattern, and the fp16 nearest `v` (ties to even;
// overflow to infinity; NaN to 0x7e00).
double HalfToDouble(uint16_t h);
uint16_t DoubleToHalf(double v);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_HALF_FLOAT_H_
