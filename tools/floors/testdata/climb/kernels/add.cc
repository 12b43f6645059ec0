#include "probes/twice.h"
int Add(int a, int b) { return a + b; }
