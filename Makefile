# rocecert — every entry point sets up what it needs first (Debian packages, configure, build).
#   make demo   install missing packages, build, decode the bundled real captures
#   make test   install missing packages, check the format, build (release with GCC, ASan/UBSan
#               with clang and the fuzz targets in it), run every test
#   make format        apply .clang-format to every tracked C/C++ source
#   make check-format  check it (scripts/check-format.sh); `make test` runs it first
#   make bench  install missing packages, build, run the benchmarks (figures in docs/bench.md)
#   make check-campaign  `rocecert check` on the model's traffic under faults, SEEDS=N seeds
#               (default 5000; docs/check-validation.md); not part of `make test`
#   make mutation-sweep  the mutation score of `rocecert check` over MUTATION_SEEDS (default
#               1-20) and MUTATION_CAPTURES (default the real captures): scripts/mutation-sweep.py,
#               docs/mutate.md; not part of `make test` (the unit test runs seeds 1-3)
#   make fuzz-campaign   the long fuzz runs: FUZZ_RUNS executions (default 10 M) of each of
#               FUZZ_TARGETS on FUZZ_WORKERS processes (FUZZ_SECONDS bounds a part of it,
#               FUZZ_ASAN_PASS=0 leaves out a part's ASan pass for a later part's), the
#               corpus and a ledger of executions per code kept in build/fuzz-campaign;
#               hours, not part of `make test` (docs/bench.md)
#   make live-smoke  Linux Soft-RoCE as a live device under test: build a Debian 12 guest
#               (cached in build/live), boot it under QEMU/TCG, capture ibv_rc_pingpong,
#               ib_write_bw and ib_read_bw between two rxe devices, `rocecert check --profile
#               rxe` each capture (docs/live.md); root, a few minutes, not part of `make test`
#   make live   the vectors on Linux Soft-RoCE in that guest: every generated vector played by
#               `rocecert vectors run --dut verbs:rxe_a,rxe_b`, its traffic captured and judged by
#               `rocecert check --profile rxe --setup --events`, a table vectors x verdicts;
#               fails on a FAIL that is neither declared nor a known rxe bug (docs/live.md)
#   make live-full  `make live`, then the same set again under netem loss, duplication and
#               delay with reordering on the veth (LIVE_FULL_NETEM); longer, not in CI
JOBS    ?= 2
BUILD   ?= build
CMAKE   ?= cmake
GEN     := -G Ninja
WERROR  := -DROCECERT_WERROR=ON

.PHONY: all deps build build-asan demo test test-release test-asan test-fuzz bench clean \
        format check-format check-campaign mutation-sweep fuzz-campaign live-smoke live live-full

all: build

deps:
	@bash scripts/install-deps.sh

# Without the benchmarks: `make test` and `make demo` do not need them (about 20 s of a fresh
# build); `make bench` turns them on in the same tree.
$(BUILD)/release/build.ninja: | deps
	$(CMAKE) -S . -B $(BUILD)/release $(GEN) -DCMAKE_BUILD_TYPE=Release $(WERROR) -DROCECERT_BENCH=OFF

# The ASan/UBSan build with clang and lld: it built in 283 s where GCC took about 611 s, and the
# suite then runs under a second compiler (the release build is GCC's). At -O1 rather than the
# Debug build's -O0: the suite in half the time, the build about 3 min longer (docs/bench.md,
# "make test itself"). It builds the libFuzzer targets too, whose short runs are in its suite
# (label fuzz): one build less than a configuration of their own (docs/bench.md, session 44).
# A build/asan configured earlier keeps its compiler and flags until `make clean`.
CLANG_LLD := -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
             -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld
ASAN_OPT := "-DCMAKE_C_FLAGS_DEBUG=-O1 -g" "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g"
$(BUILD)/asan/build.ninja: | deps
	$(CMAKE) -S . -B $(BUILD)/asan $(GEN) -DCMAKE_BUILD_TYPE=Debug -DROCECERT_SANITIZE=ON $(WERROR) \
	  $(CLANG_LLD) $(ASAN_OPT)

# The campaign's build: the fuzz targets without ASan, optimised (scripts/fuzz-campaign.sh;
# fuzz_check: 1.25x the executions a second of an unoptimised build, docs/bench.md).
$(BUILD)/fuzz-fast/build.ninja: | deps
	$(CMAKE) -S . -B $(BUILD)/fuzz-fast $(GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROCECERT_FUZZ=ON \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++

build: deps $(BUILD)/release/build.ninja
	$(CMAKE) --build $(BUILD)/release -j $(JOBS)

build-asan: deps $(BUILD)/asan/build.ninja
	$(CMAKE) --build $(BUILD)/asan -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/release/apps/rocecert/rocecert

test-release: build
	cd $(BUILD)/release && ctest -j $(JOBS) --output-on-failure

# The tshark oracle (label `oracle`: tests/tshark_oracle_test.cpp) runs in the release suite only:
# its time is tshark's own (starting and decoding), and the decoder it compares is run under
# ASan by the other suites and fuzz_decode. The fuzz targets' short runs are part of this suite.
test-asan: build-asan
	cd $(BUILD)/asan && ASAN_OPTIONS=detect_leaks=1 ctest -j $(JOBS) --output-on-failure -LE oracle

# The fuzz targets' short runs alone (they are in test-asan too).
test-fuzz: build-asan
	cd $(BUILD)/asan && ctest -j $(JOBS) --output-on-failure -L fuzz

format: deps
	@bash scripts/check-format.sh --fix

check-format: deps
	@bash scripts/check-format.sh

# The format check first, alone, so that a badly formatted tree fails before anything builds.
test: check-format
	@$(MAKE) --no-print-directory test-release test-asan
	@echo "make test: format check, release and ASan/UBSan suites (fuzz targets included) passed"

bench: deps $(BUILD)/release/build.ninja
	$(CMAKE) -S . -B $(BUILD)/release -DROCECERT_BENCH=ON
	$(CMAKE) --build $(BUILD)/release -j $(JOBS)
	@bash scripts/bench.sh $(BUILD)/release

SEEDS ?= 5000
check-campaign: build
	SEEDS=$(SEEDS) $(BUILD)/release/tests/check_corpus/check_campaign

MUTATION_SEEDS    ?= 1-20
MUTATION_CAPTURES ?= $(wildcard vectors/real/*.pcap)
mutation-sweep: build
	python3 scripts/mutation-sweep.py --seeds $(MUTATION_SEEDS) --jobs $(JOBS) \
	  --rocecert $(BUILD)/release/apps/rocecert/rocecert $(MUTATION_CAPTURES)

fuzz-campaign: build-asan $(BUILD)/fuzz-fast/build.ninja
	$(CMAKE) --build $(BUILD)/fuzz-fast -j $(JOBS)
	bash scripts/fuzz-campaign.sh $(BUILD)/fuzz-fast $(BUILD)/asan $(BUILD)/fuzz-campaign

live-smoke: build
	LIVE_DIR=$(BUILD)/live bash scripts/live/smoke.sh $(BUILD)/release/apps/rocecert/rocecert

live: build
	LIVE_DIR=$(BUILD)/live bash scripts/live/live.sh $(BUILD)/release/apps/rocecert/rocecert

# Each fault plan of LIVE_FULL_NETEM (";"-separated WHERE:NETEM, WHERE va, vb or both; see
# scripts/live/live-full.sh) is one more run of the whole set, in LIVE_DIR/run-N.
LIVE_FULL_NETEM ?= both:loss 2%;both:duplicate 2%;vb:delay 1ms 1ms reorder 10%
live-full: live
	bash scripts/live/live-full.sh $(BUILD)/release/apps/rocecert/rocecert "$(LIVE_FULL_NETEM)" $(BUILD)/live

clean:
	rm -rf $(BUILD)
