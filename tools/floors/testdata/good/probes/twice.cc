#include "kernels/add.h"
int Twice(int a) { return Add(a, a); }
