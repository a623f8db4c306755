// The model adapter of the golden replays (golden_model.h).
#include "golden_model.h"

#include <array>
#include <utility>

namespace rocecert::check::detail {

model::AdapterConfig ReplayModel::base_config(std::string name, const Options& o) {
  model::AdapterConfig c;
  c.name = std::move(name);
  c.profile.error_profile = model_error_profile(o.profile);
  c.qp.device.active_mtu = qp::PathMtu::MTU_4096;
  return c;
}

ReplayModel::ReplayModel(model::AdapterConfig config, trace::Observer& observer)
    : ad(0, std::move(config), events, observer) {
  ad.memory().set_discard(true);
}

bool ReplayModel::open_rc(mem::Pd pd, const qp::QpCaps& caps, std::optional<std::uint32_t> path_mtu,
                          model::BringUp b) {
  cq = ad.create_cq(1024);
  qp::CreateQpParams cp;
  cp.type = qp::QpType::RC;
  cp.pd = qp::PdId{pd.value};
  cp.send_cq = cp.recv_cq = cq;
  cp.caps = caps;
  const qp::CreateResult cr = ad.create_qp(cp);
  qpn = cr.qpn;
  mtu = path_mtu.value_or(4096);
  mtu_guessed = !path_mtu.has_value();
  b.mtu = mtu;
  std::array<std::uint8_t, 16> peer{};
  peer[15] = 1;
  return cr.ok() && !model::bring_up(ad, qpn, peer, {}, qp::Qpn(1), b);
}

bool ReplayModel::learn_mtu(std::uint32_t path_mtu) {
  if (!ad.replay_set_path_mtu(qpn, path_mtu)) return false;
  mtu = path_mtu;
  mtu_guessed = false;
  return true;
}

void ReplayModel::drain_cq() {
  while (!ad.poll_cq(cq, 256).empty()) {
  }
}

}  // namespace rocecert::check::detail
