// Sharded checking (Options::jobs >= 2 on one capture, docs/check.md): the checker's own thread
// reads, decodes, applies the frame rules and pairs the flows; the request streams, each with
// its golden replay, are spread over shards. Each threaded shard is run by a thread of its own,
// fed with batches of commands in capture order. One more shard, the inline shard, is run by
// the checker's thread itself, as it hands each command over, so that this thread is not left
// waiting for the others when its own work is lighter than theirs: while the threads use more
// CPU time than it does, the part of the new streams that evens them out goes to it, and
// streams move between it and the threads when new ones alone do not even the work out (lean,
// Checker::Impl::place_new_stream and rebalance). A stream stays on its shard, except
// when the checker pairs it with the other direction of its QP pair on another shard: then it
// moves there, in order with the work of both shards, so that the two directions share their
// capture-error budget in the order one thread would use it. At the end, the streams are
// finished from one pool by every shard (finish_all).
//
// Nothing a shard finds goes to the report directly: its Judge logs it with its place in the
// single-thread order (JudgeLog), its golden replay keeps its findings the same way, and the
// checker replays both into the report at the end. The report is the one of a single thread,
// byte for byte (tests/check/check_jobs_test.cpp, and the fuzz target compares the two).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "check_internal.h"
#include "golden.h"
#include "stream.h"

namespace rocecert::check::detail {

class Shards {
 public:
  enum class Kind : std::uint8_t {
    Request,
    Response,
    Corrupted,
    Finish,
    Retire,  // Finish, then free the stream (the command owns it: Checker's idle QP pairs)
    JoinBudget,
    Release,
    Acquire,
    FinishPool
  };
  struct Handover;  // a stream moving between shards (shards.cpp)
  struct Pool;      // the streams' ends, shared by all shards (finish_all)
  // A stream's end (Stream::finish) with the dispatch and golden.crowded it would have had.
  struct Ending {
    Stream* stream = nullptr;
    std::uint64_t dispatch = 0;
    bool crowded = false;
  };
  struct Command {
    Stream* stream = nullptr;
    Kind kind = Kind::Request;
    bool hears_all = true;  // Request: Stream::set_hears_all first
    bool crowded = false;   // GoldenReplay::crowded
    std::uint64_t dispatch = 0;
    Judge::Ticket ticket;          // Corrupted: the wire.icrc violation
    Budget* budget = nullptr;      // JoinBudget, Acquire: the budget the stream joins
    Handover* handover = nullptr;  // Release, Acquire
    Pool* pool = nullptr;          // FinishPool
    Pkt p;
  };

  // The inline shard (index 0) and `threads` threaded shards (1 to `threads`), whose threads
  // start at their first command. Their JudgeLogs are numbered from `first_log_id`.
  Shards(const Options& opts, std::size_t threads, std::uint16_t first_log_id);
  ~Shards();  // a checker dropped before the end: what is queued is dropped, the threads stop
  Shards(const Shards&) = delete;
  Shards& operator=(const Shards&) = delete;

  std::size_t size() const { return shards_.size(); }
  Judge& judge(std::size_t i);
  GoldenReplay& golden(std::size_t i);

  // Where the work should go: to the inline shard (this thread waited for the threaded ones),
  // to the threaded shards (they waited for this one), or nowhere (within a tenth of each
  // other), judged by the CPU time each thread used since the last call (the checker's thread
  // calls it now and then). `share`: the part of the busier side's work to move for an even
  // split.
  enum class Lean : std::uint8_t { Even, Inline, Threads };
  struct Balance {
    Lean lean = Lean::Even;
    double share = 0;
  };
  Balance lean();
  // The shard for a new stream: the inline one when the work leans there, else the threaded
  // shard with the fewest batches waiting. Which shard runs a stream never changes the report.
  std::size_t pick(Lean lean);

  // The inline shard runs `c` now; a threaded shard queues it.
  void post(std::size_t shard, Command&& c);
  // The same in two steps, for the checker's every frame: the command is filled in place (the
  // next entry of the shard's batch, or the inline shard's own), then handed over by commit().
  // A frame's packet is copied once, not twice (264 bytes a command).
  Command& next(std::size_t shard);
  void commit(std::size_t shard);
  // Moves `s` from shard `from` to shard `to` and joins it to `budget` there (none: the stream
  // keeps its own): `to` runs nothing more until `from` has run everything it was given before
  // (no shard ever waits for work given after its own, so this cannot deadlock; moved to the
  // inline shard, the checker's thread waits there).
  void move(Stream* s, std::size_t from, std::size_t to, Budget* budget, std::uint64_t dispatch);
  // Ends every stream of `endings`: each shard, once it has run what it was given before, takes
  // the next ending not yet taken, binds the stream to its own Judge and GoldenReplay (whose
  // findings are ordered by dispatch, so which shard runs an ending does not change the report)
  // and finishes it. Streams' ends cost unevenly (the Z3 decisions), so a pool shares them
  // better than any split made in advance. To be called once, with no command after it.
  void finish_all(std::vector<Ending> endings);
  // Runs what is left and stops the threads. Throws what a shard threw.
  void close();
  std::vector<JudgeLog*> logs();
  std::vector<GoldenReplay*> replays();

 private:
  struct Shard;  // shards.cpp
  std::vector<std::unique_ptr<Shard>> shards_;
  std::size_t turn_ = 0;
  std::int64_t cpu_seen_ = 0;  // this thread's CPU time at the last lean()
  std::deque<Handover> handovers_;
  std::unique_ptr<Pool> pool_;
};

}  // namespace rocecert::check::detail
