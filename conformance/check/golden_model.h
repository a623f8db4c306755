// The model adapter both golden replays drive (golden.h: the responder; golden_requester.h:
// the requester). It has no link: the observer reads its packets from FrameEvent::spec. Its
// memory discards what is written (contents are never compared), and it has one CQ and one RC
// QP, brought up toward a made-up peer (::1, QPN 1) that exists only in the QP's address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "check_internal.h"
#include "rocecert/mem/keys.h"
#include "rocecert/model/adapter.h"
#include "rocecert/model/bring_up.h"
#include "rocecert/sim/event_queue.h"

namespace rocecert::check::detail {

struct ReplayModel {
  // The adapter's configuration every replay starts from: `name`, the error profile `o`'s
  // profile names, the largest path MTU (the QP's own is set at bring-up).
  static model::AdapterConfig base_config(std::string name, const Options& o);

  ReplayModel(model::AdapterConfig config, trace::Observer& observer);
  ReplayModel(const ReplayModel&) = delete;
  ReplayModel& operator=(const ReplayModel&) = delete;

  // Creates the CQ and an RC QP with `caps` on `pd` and brings it to RTS with `b`; the QP's
  // MTU is `path_mtu`, or a guess of 4096 when the capture has not shown it yet (mtu_guessed).
  // False: the model refused the QP or a transition.
  bool open_rc(mem::Pd pd, const qp::QpCaps& caps, std::optional<std::uint32_t> path_mtu,
               model::BringUp b);

  // The path MTU the capture showed once the model had begun with the guess, set in place
  // (Adapter::replay_set_path_mtu): the caller has posted nothing that `path_mtu` would cut
  // into more packets than the guess did. False: not a path MTU.
  bool learn_mtu(std::uint32_t path_mtu);

  const qp::QpContext& ctx() const { return *ad.qps().find(qpn); }
  void drain_cq();

  sim::EventQueue events;
  model::Adapter ad;
  qp::Qpn qpn{};
  qp::CqId cq{};
  std::uint32_t mtu = 4096;
  bool mtu_guessed = true;
  std::uint32_t start_psn = 0;  // where the replay started this model
};

}  // namespace rocecert::check::detail
