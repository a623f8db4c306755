// check_files: one capture after another on one thread; with Options::jobs >= 2, one capture
// is spread over threads (the Checker's shards, shards.h; from four jobs on, reading + decoding
// + ICRC on one more), and several captures are checked side by side, one thread each. The
// result is the same report whatever the number of jobs.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "rocecert/check/checker.h"
#include "rocecert/pcap/reader.h"

namespace rocecert::check {
namespace {

// A batch of decoded frames whose bytes live in the batch's own arena.
struct Batch {
  static constexpr std::size_t kArena = std::size_t{256} << 10;
  std::vector<std::uint8_t> arena;
  struct Item {
    std::uint64_t frame;
    std::int64_t ts;
    std::uint32_t wire_len;
    wire::ParsedFrame parsed;
  };
  std::vector<Item> items;
  Batch() { arena.reserve(kArena); }
};

// A bounded queue of batches between the two stages.
class Pipe {
 public:
  void push(std::unique_ptr<Batch> b) {
    std::unique_lock lock(m_);
    not_full_.wait(lock, [&] { return q_.size() < kDepth || stop_; });
    q_.push_back(std::move(b));
    not_empty_.notify_one();
  }
  std::unique_ptr<Batch> pop() {  // nullptr at the end
    std::unique_lock lock(m_);
    not_empty_.wait(lock, [&] { return !q_.empty() || done_; });
    if (q_.empty()) return nullptr;
    auto b = std::move(q_.front());
    q_.pop_front();
    not_full_.notify_one();
    return b;
  }
  void close() {
    std::lock_guard lock(m_);
    done_ = true;
    not_empty_.notify_all();
  }
  void abandon() {  // the consumer stopped: unblock the producer
    std::lock_guard lock(m_);
    stop_ = true;
    not_full_.notify_all();
  }
  // Batches come back empty for reuse, so that their arenas stay mapped and warm (a fresh 4 MiB
  // arena per batch cost more in page faults than the rules themselves).
  void recycle(std::unique_ptr<Batch> b) {
    b->arena.clear();
    b->items.clear();
    std::lock_guard lock(m_);
    free_.push_back(std::move(b));
  }
  std::unique_ptr<Batch> fresh() {
    {
      std::lock_guard lock(m_);
      if (!free_.empty()) {
        auto b = std::move(free_.back());
        free_.pop_back();
        return b;
      }
    }
    return std::make_unique<Batch>();
  }

 private:
  static constexpr std::size_t kDepth = 8;
  std::mutex m_;
  std::condition_variable not_empty_, not_full_;
  std::deque<std::unique_ptr<Batch>> q_;
  std::vector<std::unique_ptr<Batch>> free_;
  bool done_ = false, stop_ = false;
};

Report check_one(const std::string& path, const Options& opts) {
  pcap::Reader reader(path);
  Checker checker(opts);
  pcap::Record rec;
  while (reader.next(rec))
    checker.add_frame(rec.frame, rec.ts_ns, rec.len, rec.data, reader.link());
  return checker.finish(path);
}

Report check_pipelined(const std::string& path, const Options& opts) {
  pcap::Reader reader(path);  // opened here: an unreadable file throws before any thread runs
  Pipe pipe;
  std::exception_ptr failure;
  std::thread producer([&] {
    try {
      pcap::Record rec;
      auto batch = pipe.fresh();
      while (reader.next(rec)) {
        if (batch->arena.size() + rec.data.size() > Batch::kArena) {
          pipe.push(std::move(batch));
          batch = pipe.fresh();
        }
        // The arena never reallocates (capacity reserved), so earlier spans stay valid.
        const std::size_t at = batch->arena.size();
        batch->arena.insert(batch->arena.end(), rec.data.begin(), rec.data.end());
        const std::span<const std::uint8_t> bytes(batch->arena.data() + at, rec.data.size());
        batch->items.push_back({rec.frame, rec.ts_ns, rec.len,
                                wire::decode(bytes, {reader.link(), opts.verify_icrc})});
      }
      pipe.push(std::move(batch));
    } catch (...) {
      failure = std::current_exception();
    }
    pipe.close();
  });
  Checker checker(opts);
  try {
    while (auto batch = pipe.pop()) {
      for (const Batch::Item& it : batch->items)
        checker.add_decoded(it.frame, it.ts, it.wire_len, it.parsed);
      pipe.recycle(std::move(batch));
    }
  } catch (...) {
    pipe.abandon();
    producer.join();
    throw;
  }
  producer.join();
  if (failure) std::rethrow_exception(failure);
  return checker.finish(path);
}

}  // namespace

Report check_files(const std::vector<std::string>& files, const Options& opts) {
  std::vector<Report> parts(files.size());
  if (opts.jobs <= 1) {
    for (std::size_t i = 0; i < files.size(); ++i) parts[i] = check_one(files[i], opts);
  } else if (files.size() == 1) {
    // The Checker's shards on jobs - 1 threads; from four jobs on, reading and decoding on one
    // more (on two cores it was no faster: docs/bench.md).
    if (opts.jobs >= 4) {
      Options rest = opts;
      rest.jobs = opts.jobs - 1;
      parts[0] = check_pipelined(files[0], rest);
    } else {
      parts[0] = check_one(files[0], opts);
    }
  } else {
    // Several captures: one per thread at a time; the first error (in file order) is thrown.
    Options one = opts;  // a thread per capture: no pipeline inside
    one.jobs = 1;
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(files.size());
    auto work = [&] {
      for (std::size_t i; (i = next.fetch_add(1)) < files.size();) {
        try {
          parts[i] = check_one(files[i], one);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    };
    std::vector<std::thread> pool;
    const std::size_t n = std::min<std::size_t>(opts.jobs, files.size());
    for (std::size_t t = 0; t < n; ++t) pool.emplace_back(work);
    for (std::thread& t : pool) t.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }
  if (parts.size() == 1) return std::move(parts.front());
  return merge(std::move(parts));
}

}  // namespace rocecert::check
