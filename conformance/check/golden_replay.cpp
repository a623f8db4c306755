// GoldenReplay (golden.h): the replays of one capture run inline, or on a thread of their own fed
// with batches of commands, and what they find is handed to the Judge at the end.
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "golden.h"

namespace rocecert::check::detail {

struct GoldenReplay::Command {
  enum class Kind : std::uint8_t { Request, Response, Finish };
  GoldenResponder* g = nullptr;
  Kind kind = Kind::Request;
  bool fresh = false;
  std::optional<std::uint32_t> mtu;
  std::uint64_t disturbances = 0;
  Pkt p;

  void run() const {
    switch (kind) {
      case Kind::Request:
        return g->run_request(p, fresh);
      case Kind::Response:
        return g->run_response(p, mtu, disturbances);
      case Kind::Finish:
        return g->run_finish();
    }
  }
};

// Batches of commands, a bounded queue of them, and the thread that runs them in order. Batches
// come back for reuse so that their memory stays warm.
struct GoldenReplay::Worker {
  static constexpr std::size_t kBatch = 1024;
  static constexpr std::size_t kDepth = 16;
  using Batch = std::vector<Command>;

  std::mutex m;
  std::condition_variable not_empty, not_full;
  std::deque<Batch> queue;
  std::vector<Batch> spare;
  bool closed = false;
  bool abandoned = false;      // the checker is going away: run nothing more
  std::exception_ptr failure;  // the first exception a replay threw (the rest is skipped)
  Batch open;                  // filled by the checker's thread
  std::thread thread;

  Worker() {
    open.reserve(kBatch);
    thread = std::thread([this] { loop(); });
  }

  void loop() {
    for (;;) {
      Batch b;
      {
        std::unique_lock lock(m);
        not_empty.wait(lock, [&] { return !queue.empty() || closed; });
        if (queue.empty()) return;
        b = std::move(queue.front());
        queue.pop_front();
        not_full.notify_one();
        if (abandoned || failure) continue;
      }
      try {
        for (const Command& c : b) c.run();
      } catch (...) {
        std::lock_guard lock(m);
        failure = std::current_exception();
      }
      b.clear();
      std::lock_guard lock(m);
      spare.push_back(std::move(b));
    }
  }

  void add(Command&& c) {
    open.push_back(std::move(c));
    if (open.size() >= kBatch) push();
  }

  void push() {
    if (open.empty()) return;
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

  // Runs what is left and joins the thread; with `abandon`, what is queued is dropped.
  void close(bool abandon) {
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

GoldenReplay::GoldenReplay(Judge& j, bool threaded) : j_(j), threaded_(threaded) {}

GoldenReplay::~GoldenReplay() {
  if (worker_) worker_->close(true);
}

void GoldenReplay::post(Command&& c) {
  if (!threaded_) return c.run();
  if (!worker_) worker_ = std::make_unique<Worker>();
  worker_->add(std::move(c));
}

void GoldenReplay::checked(ConnIndex c) {
  if (checked_.size() <= c) checked_.resize(c + 1);
  ++checked_[c];
}

void GoldenReplay::violation(const Pkt& p, ConnIndex c, std::string message, StateSnapshot state) {
  findings_.push_back({true, c, p, p.frame, std::move(message), std::move(state)});
}

void GoldenReplay::note(ConnIndex c, std::uint64_t frame, std::string message) {
  findings_.push_back({false, c, Pkt{}, frame, std::move(message), {}});
}

void GoldenReplay::settle() {
  if (worker_) {
    worker_->close(false);
    const std::exception_ptr failure = worker_->failure;
    worker_.reset();
    if (failure) std::rethrow_exception(failure);
  }
  for (std::size_t c = 0; c < checked_.size(); ++c)
    if (checked_[c] != 0)
      j_.checked(RuleId::GoldenResponse, static_cast<ConnIndex>(c), checked_[c]);
  checked_.clear();
  for (Finding& f : findings_) {
    if (f.violation)
      j_.violation(RuleId::GoldenResponse, "differs", f.p, f.conn, std::move(f.message),
                   std::move(f.state));
    else
      j_.note(NoteKind::Replay, f.conn, f.frame, std::move(f.message));
  }
  findings_.clear();
}

void GoldenResponder::on_request(const Pkt& p, bool fresh) {
  if (!replay_.threaded_) return run_request(p, fresh);
  replay_.post({this, GoldenReplay::Command::Kind::Request, fresh, std::nullopt, 0, p});
}

void GoldenResponder::on_response(const Pkt& p, std::optional<std::uint32_t> mtu,
                                  std::uint64_t disturbances) {
  if (!replay_.threaded_) return run_response(p, mtu, disturbances);
  replay_.post({this, GoldenReplay::Command::Kind::Response, false, mtu, disturbances, p});
}

void GoldenResponder::finish() {
  if (!replay_.threaded_) return run_finish();
  replay_.post({this, GoldenReplay::Command::Kind::Finish, false, std::nullopt, 0, Pkt{}});
}

}  // namespace rocecert::check::detail
