// main() of every sass_test (tools/cuda/sass_test.bzl).
#include "probes/sass_test_util.h"

int main(int argc, char** argv) { return dissect::SassTestMain(argc, argv); }
