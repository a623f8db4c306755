// The golden replay of one RC requester (issue 8, "Golden replay", the requester side): the
// model's own requester (refmodel/model/requester.cpp, reliability.cpp, completer.cpp: the code
// that reproduces Linux Soft-RoCE frame by frame, tests/support/lockstep.h) is given the work
// requests the capture shows and the device's responses, in capture order, and every request
// the device sends is compared with the one the model's requester sends at that point.
//
// The capture decides when, the model decides what: the model may send one packet per request
// of the device (a TxPacer that holds it otherwise), and its time runs only to the deadline it
// waits for (an RNR NAK's delay; its ACK timer, made to fire when the device resends with no
// NAK before it: retransmission timing is free, IBA Vol. 1 §9.7.6.1.3).
//
// Work requests: a message's length is known only at its last packet, so the device's requests
// and responses wait in a queue until every message they touch is known (from any transmission
// of its packets: a packet lost before the tap shows when it is resent), then play in capture
// order. A message is posted as the work request that gives its first packet's header fields
// (RETH, AtomicETH, IETH), its length (a SEND's: the bytes its packets carry), and its opcode.
//
// What is judged (golden.requester): a request at a PSN the model sends next carries what the
// model sends there: the opcode (a go-back-N resend resumes inside a message with the opcodes of
// that message), the payload length, the RETH (a READ re-issued mid-way asks for the rest from
// the PSN of its first missing response: docs/spec-notes.md §5.3, rxe's req_retry), the
// AtomicETH, the IETH, a FLUSH's FETH. The first transmission of a message is golden.request's
// (segmentation). Everything else is explained, never held against the device:
//   - a packet the model sends that the device's next request skips: lost before the tap (held
//     a while in case the network reordered it);
//   - a request at a PSN behind the model's (the device went back where the model did not: a
//     timeout, a response lost after the tap, a NAK the model's rxe-like requester ignores
//     while a retry is in progress): the model's timer is made to fire, then it goes back too;
//   - a request the model cannot send (ahead of it, or when it has nothing to send): the
//     replay starts again (a resync) at the next new message; noted per connection;
//   - link or tap copies of a packet already compared: skipped.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "check_internal.h"
#include "ring.h"

namespace rocecert::check::detail {

class GoldenReplay;

class GoldenRequester {
 public:
  GoldenRequester(GoldenReplay& replay, ConnIndex conn);
  ~GoldenRequester();
  GoldenRequester(const GoldenRequester&) = delete;
  GoldenRequester& operator=(const GoldenRequester&) = delete;

  // A request of the stream (intact), in capture order; `fresh`: its PSN is the next new one
  // (a first transmission). `mtu`: the stream's path MTU when known.
  void on_request(const Pkt& p, bool fresh, std::optional<std::uint32_t> mtu);
  // A response toward the requester (intact), in capture order.
  void on_response(const Pkt& p, std::optional<std::uint32_t> mtu);
  void finish();
  // Its queues' buffers cut down to what they hold (Ring::trim), between two packets.
  void trim() {
    queue_.trim();
    seen_.trim();
    held_.trim();
    recent_.trim();
  }
  // Where it reports from now on (its stream moved to another shard).
  void bind(GoldenReplay& replay) { replay_ = &replay; }

 private:
  struct Model;  // the model adapter, its requester QP and what it sent (golden_requester.cpp)
  // What is compared of a request (the model's or the device's): the headers its opcode
  // carries, zero where it has none. Kept apart from Pkt, a third of its size, because each
  // model remembers the latest 256 it sent (golden_requester.cpp, kSentLog).
  struct Sent {
    std::uint32_t psn = 0;
    std::uint8_t opcode = 0;
    std::uint32_t payload = 0;
    wire::Reth reth{};
    wire::AtomicEth atomic{};
    wire::Ieth ieth{};
    wire::Feth feth{};
    unsigned age = 0;  // device requests compared since the model sent it (held); not compared

    static Sent of(const wire::Bth& bth, std::uint32_t payload, const wire::Reth& reth,
                   const wire::AtomicEth& atomic, const wire::Ieth& ieth, const wire::Feth& feth);
    bool same(const Sent& o) const {
      return psn == o.psn && opcode == o.opcode && payload == o.payload && reth == o.reth &&
             atomic == o.atomic && ieth == o.ieth && feth == o.feth;
    }
  };
  struct Event {
    Pkt p;
    bool request = false;
    bool fresh = false;
  };

  void start(std::uint32_t psn, std::optional<std::uint32_t> mtu);
  void learn(const Pkt& p);
  void post_ready();
  void drain();
  void request(const Pkt& p, bool fresh);
  void response(const Pkt& p);
  bool next_from_model(Sent& s);
  void compare(const Pkt& p, bool fresh, const Sent& s);
  void resync(std::string why);
  void stop_in_error(const Pkt& p);
  void park_if_idle();
  std::string describe(const Sent& s) const;

  GoldenReplay* replay_;
  ConnIndex conn_;
  std::unique_ptr<Model> model_;
  // Restart only at a new message at this PSN or after (a parked model; nullopt: any).
  std::optional<std::uint32_t> want_start_;
  Ring<Event> queue_;                  // requests and responses not played yet (capture order)
  std::optional<std::uint32_t> mtu_;   // the stream's path MTU, once known
  std::uint64_t messages_posted_ = 0;  // to the current model
  std::uint64_t longest_guessed_ = 0;  // the longest message posted to it at a guessed MTU
  std::uint32_t post_psn_ = 0;         // the first PSN of the next message to post
  Ring<std::optional<Pkt>> seen_;      // the packets the tap showed from post_psn_ on
  Ring<Sent> held_;                    // sent by the model, not matched yet
  // Requests compared lately (their link or tap copies are skipped).
  Ring<Pkt::CopyKey> recent_;
  bool ending_ = false;  // finish(): nothing more will come
  bool stopped_ = false;
  std::string stop_reason_;
  std::uint64_t first_frame_ = 0;
  std::uint64_t compared_ = 0, agreed_ = 0, lost_ = 0, timeouts_ = 0, resyncs_ = 0, messages_ = 0;
  std::uint64_t unheard_ = 0;  // resends of PSNs the model had seen acknowledged
  std::string last_resync_;
};

}  // namespace rocecert::check::detail
