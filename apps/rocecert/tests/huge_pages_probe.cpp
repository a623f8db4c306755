// For huge_pages_test: runs itself again as `rocecert check` does, then says what it sees.
#include <cstdio>
#include <cstdlib>

#include "huge_pages.h"

int main(int argc, char** argv) {
  rocecert::cli::rerun_with_huge_pages(argv);
  auto show = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "(unset)";
  };
  std::printf("possible=%d\n", rocecert::cli::huge_pages_possible() ? 1 : 0);
  std::printf("tunables=%s\n", show("GLIBC_TUNABLES"));
  for (int i = 1; i < argc; ++i) std::printf("arg=%s\n", argv[i]);
  rocecert::cli::restore_tunables();
  std::printf("restored=%s\n", show("GLIBC_TUNABLES"));
  return 0;
}
