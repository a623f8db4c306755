#include "rocecert/cq/completion_queue.h"

namespace rocecert::cq {

PushResult CompletionQueue::push(const Wc& wc, bool solicited) {
  if (in_error_) return PushResult::CQ_IN_ERROR;
  if (entries_.size() >= capacity_) {
    in_error_ = overrun_ == OverrunMode::STICKY;
    return PushResult::OVERFLOW;
  }
  entries_.push_back(wc);
  const bool counts = !solicited_only_ || solicited || wc.status != WcStatus::SUCCESS;
  if (armed_ && counts) {
    armed_ = false;
    return PushResult::OK_NOTIFY;
  }
  return PushResult::OK;
}

std::vector<Wc> CompletionQueue::poll(std::size_t max) {
  std::vector<Wc> out;
  while (out.size() < max && !entries_.empty()) {
    out.push_back(entries_.front());
    entries_.pop_front();
  }
  return out;
}

void CompletionQueue::arm(bool solicited_only) {
  armed_ = true;
  solicited_only_ = solicited_only;
}

}  // namespace rocecert::cq
