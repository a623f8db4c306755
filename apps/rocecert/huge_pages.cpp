// The heap on transparent huge pages (huge_pages.h).
#include "huge_pages.h"

#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace rocecert::cli {
namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb";
// GLIBC_TUNABLES as it was before the rerun ("" when it was not set).
constexpr const char* kBefore = "ROCECERT_GLIBC_TUNABLES_BEFORE";

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

// "always [madvise] never": huge pages are possible unless "never" is the one chosen.
bool kernel_allows_huge_pages() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return false;
  return line.find("[never]") == std::string::npos;
}

}  // namespace

bool huge_pages_possible() {
#ifdef __GLIBC__
  return !sanitized() && kernel_allows_huge_pages();
#else
  return false;
#endif
}

void rerun_with_huge_pages(char** argv) {
#ifdef __GLIBC__
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, kTunable) != nullptr) return;
  if (!huge_pages_possible()) return;
  std::string value = std::string(kTunable) + "=1";
  if (tunables != nullptr && *tunables != '\0') value = std::string(tunables) + ":" + value;
  if (setenv(kBefore, tunables != nullptr ? tunables : "", 1) != 0) return;
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  // glibc reads its tunables once, when the program starts: hence the program again. The
  // process (and its PID, its open files, its standard streams) stays the same.
  execv("/proc/self/exe", argv);
  // Could not: go on with 4 KiB pages (the variable set above changes nothing for this process).
#else
  (void)argv;
#endif
}

void keep_freed_heap() {
#ifdef __GLIBC__
  if (sanitized()) return;  // the sanitizers' allocators are not glibc's
  constexpr int kPad = 64 << 20;
  mallopt(M_TOP_PAD, kPad);
#endif
}

void restore_tunables() {
  const char* before = std::getenv(kBefore);
  if (before == nullptr) return;
  if (*before == '\0') {
    unsetenv("GLIBC_TUNABLES");
  } else {
    setenv("GLIBC_TUNABLES", before, 1);
  }
  unsetenv(kBefore);
}

}  // namespace rocecert::cli
