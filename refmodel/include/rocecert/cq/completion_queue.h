// A completion queue: bounded, FIFO, with solicited/any notification arming
// (ibv_req_notify_cq) and overflow detection (IBA §11.4.2.1: a CQ overrun is a CQ error,
// reported as the affiliated asynchronous event CQ_ERR; rxe: vectors/real/cq_overflow.pcap).
// It reports outcomes as values; what overflow does to the QPs is decided by refmodel/errors.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "rocecert/cq/wc.h"

namespace rocecert::cq {

enum class PushResult : std::uint8_t {
  OK,           // queued, no notification due
  OK_NOTIFY,    // queued, and the armed notification fires (completion event)
  OVERFLOW,     // no room: the completion is lost (and, if overruns stick, the CQ is in error)
  CQ_IN_ERROR,  // the CQ already overflowed earlier and overruns stick; nothing is queued
};

// What an overrun leaves behind. IBA §11.4.2.1: the CQ is in error from then on (STICKY).
// rxe (rxe_cq_post): the completion that did not fit is lost and CQ_ERR raised, but the CQ
// goes on taking completions once there is room again (TRANSIENT): one CQ_ERR per lost
// completion, as the cq_overflow capture shows (vectors/real/README.md).
enum class OverrunMode : std::uint8_t { STICKY, TRANSIENT };

class CompletionQueue {
 public:
  CompletionQueue(std::uint32_t id, std::uint32_t capacity,
                  OverrunMode overrun = OverrunMode::STICKY)
      : id_(id), capacity_(capacity), overrun_(overrun) {}

  std::uint32_t id() const { return id_; }
  std::uint32_t capacity() const { return capacity_; }
  std::size_t size() const { return entries_.size(); }
  bool in_error() const { return in_error_; }

  // `solicited`: the completion is for a message whose last packet had BTH.SE set, or it is
  // an error completion (IBA §11.4.2.2: errors always satisfy a solicited-only arm).
  PushResult push(const Wc& wc, bool solicited);

  // ibv_poll_cq: up to `max` entries, oldest first.
  std::vector<Wc> poll(std::size_t max);

  // ibv_req_notify_cq: arm for the next completion (solicited_only: the next solicited one).
  // One-shot, as in verbs.
  void arm(bool solicited_only);
  bool armed() const { return armed_; }

 private:
  std::uint32_t id_;
  std::uint32_t capacity_;
  std::deque<Wc> entries_;
  bool armed_ = false;
  bool solicited_only_ = false;
  OverrunMode overrun_;
  bool in_error_ = false;
};

}  // namespace rocecert::cq
