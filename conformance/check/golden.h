// The golden replay of one RC request stream (issue 8, "Golden replay"): the requests the
// capture shows are fed to the model's own responder (refmodel/model/responder.cpp, the same
// code that reproduces Linux Soft-RoCE frame by frame), and every response of the device under
// test is compared with the model's answer to the same PSN: the kind of answer (ACK, NAK and
// its code, READ response, atomic ACK), the MSN, the READ response's position and length.
//
// What the wire cannot show is taken from the device, never guessed against it, and said so:
//   - the receive queue: the model always has a receive WQE; an RNR NAK or an invalid-request
//     NAK on a SEND (buffer too small) is the device's RQ speaking, and the replay follows it;
//   - without --setup, the MR table: the model grants every key; a remote access NAK is the
//     device's key table speaking (key.static judges its consistency);
//   - the memory's contents: not compared (the host may change its memory at any time);
//   - what the spec leaves free: ACK coalescing (an ACK may cover any executed PSN, with the MSN
//     of any moment between that PSN's execution and the ACK), timing.
// Loss and the tap: requests are fed in capture order when a response arrives, so a response is
// compared with a model that has seen everything the device could have seen. A request lost
// after the tap shows as a PSN sequence NAK where the model executed it: the replay takes the
// device's expected PSN and starts again (a resync) from there. Any other disagreement while the
// stream showed a disturbance (a gap, a resend, a duplicate, a corrupted frame, a tap error)
// since the last agreement is also a resync; without one it is a golden.response violation,
// reported with the model's answer. Resyncs are counted in a note per connection.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check_internal.h"
#include "ring.h"

namespace rocecert::check::detail {

class GoldenResponder;

// The golden replay of one capture, or of one shard of it (shards.h): what every connection's
// replay found, handed to the Judge at the end (settle) in the order a single thread finds it,
// however the connections were spread over threads: the report does not depend on the number
// of jobs.
class GoldenReplay {
 public:
  explicit GoldenReplay(const Options& opts) : opts_(opts) {}
  GoldenReplay(const GoldenReplay&) = delete;
  GoldenReplay& operator=(const GoldenReplay&) = delete;

  const Options& options() const { return opts_; }

  // Past kModels request streams in the capture, a connection whose device has answered
  // everything fed to its model parks it (drops it, to start again at the next PSN with the MSN
  // it reached), so that memory follows the connections active at once, not all of them. The
  // checker sets `crowded` before each piece of work from its count of streams (not from the
  // models alive, which depend on how the work is spread): the same choice on any number of
  // threads.
  static constexpr std::size_t kModels = 1024;
  bool crowded = false;
  // The dispatch being run (sharded checking): the findings' place in the single-thread order.
  void at(std::uint64_t dispatch) { dispatch_ = dispatch; }

  // What a replay found (called by the replays, on the thread that runs them).
  // `rule`: golden.response (GoldenResponder) or golden.requester (golden_requester.h).
  void checked(ConnIndex c, RuleId rule = RuleId::GoldenResponse);
  void violation(const Pkt& p, ConnIndex c, std::string message, StateSnapshot state,
                 RuleId rule = RuleId::GoldenResponse);
  void note(ConnIndex c, std::uint64_t frame, std::string message);

  // Gives the Judge what the replays found, in the order one thread finds it.
  static void settle(Judge& j, const std::vector<GoldenReplay*>& replays);

 private:
  struct Finding {
    std::uint64_t dispatch = 0;
    std::uint64_t rank = 0;  // in this replay
    bool violation = false;
    RuleId rule = RuleId::GoldenResponse;
    ConnIndex conn = 0;
    Pkt p;                    // violation: the response judged
    std::uint64_t frame = 0;  // note
    std::string message;
    StateSnapshot state;
  };

  const Options& opts_;
  std::uint64_t dispatch_ = 0;
  std::vector<std::uint64_t> checked_;      // per connection index: golden.response
  std::vector<std::uint64_t> checked_req_;  // golden.requester
  std::vector<Finding> findings_;
};

class GoldenResponder {
 public:
  // `responder`/`responder_qpn`: the device QP whose answers are judged. `setup`: the DUT's MR
  // table and QPs when --setup was given (nullptr otherwise).
  GoldenResponder(GoldenReplay& replay, ConnIndex conn, const IpAddr& responder,
                  std::uint32_t responder_qpn, const Setup* setup);
  ~GoldenResponder();
  GoldenResponder(const GoldenResponder&) = delete;
  GoldenResponder& operator=(const GoldenResponder&) = delete;

  // A request of the stream (an intact one), in capture order; `fresh`: its PSN is the next
  // one (not a resend, a duplicate or after a gap).
  void on_request(const Pkt& p, bool fresh);
  // A response of the device. `mtu`: the stream's path MTU when known. `disturbances`: the
  // stream's count of gaps, resends, duplicates and corrupted frames so far. `opening`: the
  // stream's opening (stream.h): the device may hold requests the capture does not show, so a
  // disagreement on what the model could not know is a resync.
  void on_response(const Pkt& p, std::optional<std::uint32_t> mtu, std::uint64_t disturbances,
                   bool opening);
  void finish();
  // The device had requests the capture does not show before it began (Stream::lead): the
  // model starts again at `epsn` with the device's `msn` (when known; else at the next new
  // message), and, as at the capture's start, one disagreement may be its state's.
  void lead(std::optional<std::uint32_t> epsn, std::optional<std::uint32_t> msn,
            std::string_view why) {
    if (stopped_) return;
    resync(epsn, msn, why);
    free_resync_ = true;
  }
  // Its queues' buffers cut down to what they hold (Ring::trim), between two packets.
  void trim() {
    pending_.trim();
    log_.trim();
  }
  // Where it reports from now on (its stream moved to another shard).
  void bind(GoldenReplay& replay) { replay_ = &replay; }

 private:
  struct Model;  // the model adapter and what it answered (golden.cpp)

  void feed_pending(std::optional<std::uint32_t> mtu);
  void refeed_with_mtu(std::uint32_t mtu);
  void remember(const Pkt& p);  // into the log
  void start(std::uint32_t epsn, std::optional<std::uint32_t> mtu);
  // Drops the model; it starts again on the next request that begins a message, at `at_psn`
  // (with the device's MSN offset) when the device named its expected PSN.
  void resync(std::optional<std::uint32_t> at_psn, std::optional<std::uint32_t> msn_offset,
              std::string_view why);
  // After a PSN sequence NAK for a request the model executed: the model starts again at
  // `epsn` from the log's latest copy of it (golden.cpp). False: no such copy.
  bool restart_from_log(std::uint32_t epsn, std::uint32_t device_msn, std::string_view why);
  void stop(std::string why);
  void set_model(std::unique_ptr<Model> m);
  void park_if_idle(const Pkt& p);
  void agree(std::uint64_t disturbances, std::uint32_t psn);  // an answer at `psn` agreed
  // A disagreement: a resync when the model may not know what the device saw, else a
  // golden.response violation (then a resync). `content`: it is about what the request itself
  // holds (a refusal where the model executed it, or the reverse), which no hidden state
  // explains: always a violation.
  void mismatch(const Pkt& p, std::uint64_t disturbances, std::string message, std::string expected,
                bool content = false);
  // The response's MSN against the model's range for its PSN, [lo, the model's MSN now]; the
  // device's MSN offset is learnt first, from an answer the model gave `exact`ly once.
  bool msn_ok(const Pkt& p, std::uint32_t lo, bool exact);

  GoldenReplay* replay_;
  ConnIndex conn_;
  IpAddr responder_;
  std::uint32_t responder_qpn_;
  const Setup* setup_;

  std::unique_ptr<Model> model_;
  struct Pending {
    Pkt p;
    bool fresh = false;
  };
  Ring<Pending> pending_;  // requests not fed yet (capture order)
  Ring<Pkt> log_;          // requests fed since the model started (bounded)
  bool log_full_ = false;
  bool stopped_ = false;  // the responder left the exchange (fatal NAK): nothing to compare
  std::string stop_reason_;
  // One disagreement may be a resync without a disturbance: the capture may start
  // mid-connection, where the device's state is not known.
  bool free_resync_ = true;
  bool opening_ = false;                   // on_response's
  std::uint64_t sync_disturbances_ = 0;    // the stream's count at the last agreement or resync
  std::optional<std::uint32_t> previous_;  // the PSN of the latest request
  // Requests more than one PSN past the request before them (gaps the tap showed), each until an
  // answer at its PSN or later agrees (mismatch); the latest kMaxGaps. A resync keeps them: the
  // requests around a gap may not have reached the model yet.
  std::vector<std::uint32_t> gaps_;
  std::optional<std::uint32_t> want_start_;  // PSN to restart from (after a resync)
  std::optional<std::uint32_t> want_msn_offset_;
  std::uint64_t compared_ = 0, agreed_ = 0, resyncs_ = 0, unjudged_mtu_ = 0;
  std::uint64_t first_frame_ = 0;
  std::string last_resync_;
};

}  // namespace rocecert::check::detail
