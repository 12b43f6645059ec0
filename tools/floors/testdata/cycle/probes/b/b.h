#include "probes/a/a.h"
int B();
