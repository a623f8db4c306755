// Shards (shards.h): a thread per shard, a bounded queue of command batches each.
#include "shards.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <latch>
#include <mutex>
#include <thread>

namespace rocecert::check::detail {

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
  Pool(std::vector<Ending> e, std::size_t capture_shards)
      : endings(std::move(e)), arrivals(static_cast<std::ptrdiff_t>(capture_shards)) {}
  std::vector<Ending> endings;
  std::atomic<std::size_t> next{0};
  // Counts the capture shards down as each has run everything before its FinishPool.
  std::latch arrivals;
  void arrive() { arrivals.count_down(); }
  void wait() { arrivals.wait(); }
};

struct Shards::Shard {
  static constexpr std::size_t kBatch = 512;
  static constexpr std::size_t kDepth = 16;
  using Batch = std::vector<Command>;

  Shard(const Options& opts, std::uint16_t log_id) : log(log_id), judge(opts, log), golden(opts) {
    open.reserve(kBatch);
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
  std::thread thread;
  char pad[64] = {};

  void run(const Command& c) {
    if (c.kind == Kind::FinishPool) return finish_from(*c.pool, c.capture);  // no stream of its own
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
      case Kind::JoinBudget:
        c.budget->used += s.budget().used;
        return s.set_budget(*c.budget);
      case Kind::Release:
        return c.handover->release();
      case Kind::Acquire:
        c.handover->wait();
        s.bind(judge, golden);
        c.budget->used += s.budget().used;
        return s.set_budget(*c.budget);
      case Kind::FinishPool:
        return;  // above
    }
  }

  // FinishPool: `capture` (a shard that ran streams) first says it got there.
  void finish_from(Pool& pool, bool capture) {
    if (capture) {
      pool.arrive();
      arrived = true;
    }
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
        not_full.notify_one();
        skip = abandoned || failure != nullptr;
      }
      if (!skip) {
        try {
          for (const Command& c : b) run(c);
        } catch (...) {
          std::lock_guard lock(m);
          failure = std::current_exception();
        }
      }
      // What is skipped still lets a stream go to the shard waiting for it, and the finishing
      // shards to their ends.
      if (skip || failure)
        for (const Command& c : b) {
          if (c.kind == Kind::Release) c.handover->release();
          if (c.kind == Kind::FinishPool && c.capture && !arrived) c.pool->arrive();
        }
      b.clear();
      std::lock_guard lock(m);
      spare.push_back(std::move(b));
    }
  }

  void push() {
    if (open.empty()) return;
    if (!thread.joinable()) thread = std::thread([this] { loop(); });
    std::unique_lock lock(m);
    not_full.wait(lock, [&] { return queue.size() < kDepth; });
    queue.push_back(std::move(open));
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
    if (!abandon) push();
    {
      std::lock_guard lock(m);
      closed = true;
      abandoned = abandoned || abandon;
      not_empty.notify_all();
    }
    if (thread.joinable()) thread.join();
  }
};

Shards::Shards(const Options& opts, std::size_t n, std::size_t finishers,
               std::uint16_t first_log_id)
    : finishers_(finishers) {
  for (std::size_t i = 0; i < n; ++i)
    shards_.push_back(std::make_unique<Shard>(opts, static_cast<std::uint16_t>(first_log_id + i)));
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
  Shard& s = *shards_[shard];
  s.open.push_back(std::move(c));
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
  pool_ = std::make_unique<Pool>(std::move(endings), shards_.size() - finishers_);
  for (std::size_t i = 0; i < shards_.size(); ++i) {
    Command c;
    c.kind = Kind::FinishPool;
    c.pool = pool_.get();
    c.capture = i < shards_.size() - finishers_;
    post(i, std::move(c));
  }
  // Now, not at close(): the shards wait for each other at the pool, and each must start.
  for (auto& s : shards_) s->push();
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
