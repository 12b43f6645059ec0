// A small C++ program for tools/glibc_versions_test.sh: like the bundled
// binaries, it asks the host's glibc and libstdc++ for versioned symbols.
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  const std::string name(argc > 0 ? argv[0] : "");
  std::cout << name.size() << "\n";
  return 0;
}
