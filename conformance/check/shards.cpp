// Shards (shards.h): a thread per threaded shard, a bounded queue of command batches each; the
// inline shard runs on the checker's thread.
#include "shards.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <latch>
#include <mutex>
#include <thread>
#include <utility>

#include <time.h>

namespace rocecert::check::detail {
namespace {

std::int64_t thread_cpu_ns() {
  timespec t{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

struct Shards::Handover {
  std::mutex m;
  std::condition_variable cv;
  bool released = false;
  void release() {
    std::lock_guard lock(m);
    released = true;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return released; });
  }
};

struct Shards::Pool {
  Pool(std::vector<Ending> e, std::size_t shards)
      : endings(std::move(e)), arrivals(static_cast<std::ptrdiff_t>(shards)) {}
  std::vector<Ending> endings;
  std::atomic<std::size_t> next{0};
  // Counts the shards down as each has run everything before its FinishPool.
  std::latch arrivals;
  void arrive() { arrivals.count_down(); }
  void wait() { arrivals.wait(); }
};

struct Shards::Shard {
  static constexpr std::size_t kBatch = 512;
  static constexpr std::size_t kDepth = 16;
  using Batch = std::vector<Command>;

  Shard(const Options& opts, std::uint16_t log_id, bool on_caller)
      : log(log_id), judge(opts, log), golden(opts), inline_(on_caller) {
    if (!inline_) open.reserve(kBatch);
  }

  // The shard's thread writes these all the time, the checker's thread `open`: apart, on cache
  // lines of their own.
  alignas(64) JudgeLog log;
  Judge judge;
  GoldenReplay golden;

  std::mutex m;
  std::condition_variable not_empty, not_full;
  std::deque<Batch> queue;
  std::vector<Batch> spare;  // batches come back for reuse: their memory stays warm
  bool closed = false;
  bool abandoned = false;
  bool arrived = false;        // at the pool of finish_all (this shard's thread only)
  std::exception_ptr failure;  // the first exception of a command (the rest is skipped)
  alignas(64) Batch open;      // filled by the checker's thread
  Command now;                 // the inline shard: the command next() fills
  std::thread thread;
  // Batches queued and not yet taken: read by the checker's thread without the lock (pick).
  std::atomic<std::size_t> backlog{0};
  // The CPU time this shard's thread has used, after each batch (lean).
  std::atomic<std::int64_t> cpu_ns{0};
  std::int64_t cpu_seen = 0;  // cpu_ns at the checker's last look (its thread only)
  const bool inline_;  // run by the checker's thread itself, as each command comes (no thread)
  char pad[64] = {};

  void run(Command& c) {
    if (c.kind == Kind::FinishPool) return finish_from(*c.pool);  // no stream of its own
    log.at(c.dispatch, 1);
    golden.at(c.dispatch);
    golden.crowded = c.crowded;
    Stream& s = *c.stream;
    switch (c.kind) {
      case Kind::Request:
        s.set_hears_all(c.hears_all);
        return s.on_request(c.p);
      case Kind::Response:
        return s.on_response(c.p);
      case Kind::Corrupted:
        return s.corrupted(c.p, c.ticket);
      case Kind::Finish:
        return s.finish();
      case Kind::Retire: {
        // Taken from the command, so that skipped() never frees it twice; freed even if
        // finishing throws.
        const std::unique_ptr<Stream> owned(std::exchange(c.stream, nullptr));
        return owned->finish();
      }
      case Kind::JoinBudget:
        c.budget->used += s.budget().used;
        return s.set_budget(*c.budget);
      case Kind::Release:
        return c.handover->release();
      case Kind::Acquire:
        c.handover->wait();
        s.bind(judge, golden);
        if (c.budget == nullptr) return;  // moved for the balance only: its budget stays
        c.budget->used += s.budget().used;
        return s.set_budget(*c.budget);
      case Kind::FinishPool:
        return;  // above
    }
  }

  // FinishPool: the shard says it got there, then waits for the others.
  void finish_from(Pool& pool) {
    pool.arrive();
    arrived = true;
    pool.wait();
    for (;;) {
      const std::size_t i = pool.next.fetch_add(1, std::memory_order_relaxed);
      if (i >= pool.endings.size()) return;
      const Ending& e = pool.endings[i];
      log.at(e.dispatch, 1);
      golden.at(e.dispatch);
      golden.crowded = e.crowded;
      e.stream->bind(judge, golden);
      e.stream->finish();
    }
  }

  void loop() {
    for (;;) {
      Batch b;
      bool skip = false;
      {
        std::unique_lock lock(m);
        not_empty.wait(lock, [&] { return !queue.empty() || closed; });
        if (queue.empty()) return;
        b = std::move(queue.front());
        queue.pop_front();
        backlog.store(queue.size(), std::memory_order_relaxed);
        not_full.notify_one();
        skip = abandoned || failure != nullptr;
      }
      if (!skip) {
        try {
          for (Command& c : b) run(c);
        } catch (...) {
          std::lock_guard lock(m);
          failure = std::current_exception();
        }
      }
      if (skip || failure)
        for (const Command& c : b) skipped(c);
      b.clear();
      cpu_ns.store(thread_cpu_ns(), std::memory_order_relaxed);
      std::lock_guard lock(m);
      spare.push_back(std::move(b));
    }
  }

  // What is skipped still lets a stream go to the shard waiting for it, and the finishing
  // shards to their ends.
  void skipped(const Command& c) {
    if (c.kind == Kind::Release) c.handover->release();
    if (c.kind == Kind::FinishPool && !arrived) c.pool->arrive();
    if (c.kind == Kind::Retire) delete c.stream;  // still the command's unless run took it
  }

  // The inline shard: the command now, on this thread, as loop() would run it.
  void run_now(Command& c) {
    if (failure != nullptr) return skipped(c);
    try {
      run(c);
    } catch (...) {
      failure = std::current_exception();
      skipped(c);
    }
  }

  void push() {
    if (inline_ || open.empty()) return;
    if (!thread.joinable()) thread = std::thread([this] { loop(); });
    std::unique_lock lock(m);
    not_full.wait(lock, [&] { return queue.size() < kDepth; });
    queue.push_back(std::move(open));
    backlog.store(queue.size(), std::memory_order_relaxed);
    not_empty.notify_one();
    if (!spare.empty()) {
      open = std::move(spare.back());
      spare.pop_back();
    } else {
      open = Batch();
      open.reserve(kBatch);
    }
  }

  void stop(bool abandon) {
    if (inline_) return;
    if (!abandon) push();
    // A batch never queued: the streams its Retire commands own are freed here.
    if (abandon)
      for (const Command& c : open)
        if (c.kind == Kind::Retire) delete c.stream;
    {
      std::lock_guard lock(m);
      closed = true;
      abandoned = abandoned || abandon;
      not_empty.notify_all();
    }
    if (thread.joinable()) thread.join();
  }
};

Shards::Shards(const Options& opts, std::size_t threads, std::uint16_t first_log_id) {
  for (std::size_t i = 0; i <= threads; ++i)
    shards_.push_back(
        std::make_unique<Shard>(opts, static_cast<std::uint16_t>(first_log_id + i), i == 0));
}

std::size_t Shards::pick(Lean lean) {
  if (lean == Lean::Inline) return 0;
  // The threaded shard with the fewest batches waiting, taken in turn among equals.
  const std::size_t threads = shards_.size() - 1;
  std::size_t best = 0, least = 0;
  for (std::size_t k = 0; k < threads; ++k) {
    const std::size_t i = 1 + (turn_ + k) % threads;
    const std::size_t waiting = shards_[i]->backlog.load(std::memory_order_relaxed);
    if (best == 0 || waiting < least) {
      best = i;
      least = waiting;
    }
  }
  turn_ = (turn_ + 1) % threads;
  return best;
}

Shards::Balance Shards::lean() {
  const std::int64_t own = thread_cpu_ns();
  const std::int64_t mine = own - cpu_seen_;
  cpu_seen_ = own;
  std::int64_t theirs = 0;
  const std::size_t threads = shards_.size() - 1;
  for (std::size_t i = 1; i < shards_.size(); ++i) {
    Shard& sh = *shards_[i];
    const std::int64_t now = sh.cpu_ns.load(std::memory_order_relaxed);
    theirs += now - sh.cpu_seen;
    sh.cpu_seen = now;
  }
  theirs /= static_cast<std::int64_t>(threads);
  // Moving w of the threads' work to this one evens them out at mine + w = theirs - w / threads.
  Balance b;
  const std::int64_t more = std::max(mine, theirs);
  const std::int64_t gap = std::abs(mine - theirs);
  if (more <= 0 || 10 * gap < more) return b;  // within a tenth: even
  b.lean = mine < theirs ? Lean::Inline : Lean::Threads;
  const double moved = static_cast<double>(gap) / (1.0 + 1.0 / static_cast<double>(threads));
  b.share = mine < theirs ? moved / static_cast<double>(theirs * static_cast<std::int64_t>(threads))
                          : moved / static_cast<double>(mine);
  return b;
}

Shards::~Shards() {
  for (auto& s : shards_) s->stop(true);
}

Judge& Shards::judge(std::size_t i) {
  return shards_[i]->judge;
}
GoldenReplay& Shards::golden(std::size_t i) {
  return shards_[i]->golden;
}

void Shards::post(std::size_t shard, Command&& c) {
  next(shard) = std::move(c);
  commit(shard);
}

Shards::Command& Shards::next(std::size_t shard) {
  Shard& s = *shards_[shard];
  if (s.inline_) return s.now = Command();
  return s.open.emplace_back();
}

void Shards::commit(std::size_t shard) {
  Shard& s = *shards_[shard];
  if (s.inline_) return s.run_now(s.now);
  if (s.open.size() >= Shard::kBatch) s.push();
}

void Shards::move(Stream* s, std::size_t from, std::size_t to, Budget* budget,
                  std::uint64_t dispatch) {
  Handover& h = handovers_.emplace_back();
  Command release;
  release.stream = s;
  release.kind = Kind::Release;
  release.dispatch = dispatch;
  release.handover = &h;
  post(from, std::move(release));
  shards_[from]->push();  // now: the shard `to` waits for it
  Command acquire;
  acquire.stream = s;
  acquire.kind = Kind::Acquire;
  acquire.dispatch = dispatch;
  acquire.handover = &h;
  acquire.budget = budget;
  post(to, std::move(acquire));
}

void Shards::finish_all(std::vector<Ending> endings) {
  pool_ = std::make_unique<Pool>(std::move(endings), shards_.size());
  Command c;
  c.kind = Kind::FinishPool;
  c.pool = pool_.get();
  // The threaded shards first, and started now: the inline shard, which runs its part at once,
  // waits at the pool for every other shard to get there.
  for (std::size_t i = 1; i < shards_.size(); ++i) {
    post(i, Command(c));
    shards_[i]->push();
  }
  post(0, std::move(c));
}

void Shards::close() {
  for (auto& s : shards_) s->stop(false);
  for (auto& s : shards_)
    if (s->failure) std::rethrow_exception(s->failure);
}

std::vector<JudgeLog*> Shards::logs() {
  std::vector<JudgeLog*> v;
  for (auto& s : shards_) v.push_back(&s->log);
  return v;
}

std::vector<GoldenReplay*> Shards::replays() {
  std::vector<GoldenReplay*> v;
  for (auto& s : shards_) v.push_back(&s->golden);
  return v;
}

}  // namespace rocecert::check::detail
