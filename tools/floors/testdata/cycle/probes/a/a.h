#include "probes/b/b.h"
int A();
