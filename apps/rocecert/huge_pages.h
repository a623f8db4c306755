// The heap on transparent huge pages for the commands whose working set is large (`check`).
#pragma once

namespace rocecert::cli {

// Runs this program again, at once and with the same arguments, with glibc's malloc asked to
// put its heap on transparent huge pages (GLIBC_TUNABLES glibc.malloc.hugetlb=1, glibc 2.35 and
// later). `rocecert check` holds a few hundred MB of connection state, touched once: on 4 KiB
// pages that is a page fault for every 4 KiB, and in a virtual machine the faults were a third
// of the time of a check (docs/bench.md). Returns without doing anything when the tunable is
// already set (by this function, or by the user: `GLIBC_TUNABLES=glibc.malloc.hugetlb=0` keeps
// 4 KiB pages), when the kernel has transparent huge pages off, in a sanitizer build (its own
// allocator ignores the tunable), off glibc, or when the program cannot be run again.
void rerun_with_huge_pages(char** argv);

// Whether rerun_with_huge_pages would run the program again if the tunable were not set: glibc,
// no sanitizer, transparent huge pages not off in the kernel.
bool huge_pages_possible();

// Asks malloc to keep 64 MiB of freed memory at the top of each heap instead of giving it back
// to the kernel at once (mallopt M_TOP_PAD; glibc only). `check` frees and allocates the model's
// per-packet state all the time: in a shard's thread glibc shrank and regrew its heap tens of
// thousands of times a capture (an mprotect each, and the pages faulted and zeroed again), which
// cost a two-job check a third of its time on this project's VM (docs/bench.md). Call it after
// rerun_with_huge_pages, which may start the program again.
void keep_freed_heap();

// Gives GLIBC_TUNABLES back the value it had before rerun_with_huge_pages, for the programs this
// one starts (check_bench's tshark runs as a user runs it).
void restore_tunables();

}  // namespace rocecert::cli
