// The golden model re-wrapped as a device-under-test plugin: every function of rocecert/dut.h
// implemented on one model::Adapter with an event queue of its own. It is the reference a
// plugin author can compare with (docs/dut.md), and what the tests use to check the plugin path
// end to end: the whole vector set must pass through it as it passes on the model directly.
//
//   rocecert vectors run vectors --dut lib:build/release/examples/dut/librocecert_model_dut.so
//
// Only rocecert/dut.h defines its interface with the runner; the model inside is linked in
// statically and hidden (-Wl,--exclude-libs,ALL).
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rocecert/conformance/scenario.h"
#include "rocecert/dut.h"
#include "rocecert/model/adapter.h"
#include "rocecert/wire/bytes.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/headers.h"
#include "rocecert/wire/icrc.h"

namespace {

using namespace rocecert;

// Faults on purpose, named in the plugin's args (--dut lib:PATH.so,ARG[,ARG...]): each makes
// this device behave as a real one did in a bug of ../docs/bug-classes.md, so that the tests can
// show the vector written for that bug failing on it (tests/vectors/vectors_dut_test.cpp), and a
// plugin author can see what a failing run looks like (docs/dut.md).
struct Faults {
  // The responder never sends an RC ACKNOWLEDGE (a silent engine).
  bool drop_acks = false;
  // ibv_dereg_mr answers success and leaves the MR, its rkey still valid (a stale rkey that
  // kept working after deregistration: ydb-platform/nbs issue #5729).
  bool keep_mr_on_dereg = false;
  // In ERR only the receive queue is flushed; the send queue's WRs never complete (X722: ceph
  // issue #25447).
  bool no_sq_flush = false;
  // Flushed unsignaled send WRs complete nothing (libfabric issue #4756).
  bool drop_unsignaled_flushes = false;
  // An unsignaled send WR that fails locally (bad lkey) completes nothing (rxe before Linux
  // fix abe31d25facd).
  bool no_error_wc_unsignaled = false;
  // post_recv on a QP in RESET answers success (rxe before rdma-core PR #1139).
  bool accept_recv_in_reset = false;
  // RESET then RTS with a new sq_psn: the requester keeps sending from its old PSN
  // (slaclab/rogue PR #1268).
  bool keep_sq_psn = false;
  // An RNR NAK's timer code 0 taken as "retry at once" (0.01 ms, code 1) instead of 655.36 ms
  // (IBA Vol. 1 Table 45; NVIDIA/daqiri issue #138).
  bool rnr_timer_zero_at_once = false;
  // A READ of zero bytes gets no READ RESPONSE (the responder drops it).
  bool no_empty_read_response = false;

  bool lose_completions() const {
    return no_sq_flush || drop_unsignaled_flushes || no_error_wc_unsignaled;
  }
};

// The plugin's args: its own choices (coalesce_acks, ackreq_every_packet) and the faults above,
// separated by commas. An argument it does not know is refused, so a misspelt fault cannot pass
// for a device without one.
struct Args {
  Faults faults;
  bool coalesce_acks = false;
  bool ackreq_every_packet = false;
};

Args parse_args(const char* text) {
  Args a;
  const std::pair<std::string_view, bool*> known[] = {
      {"coalesce_acks", &a.coalesce_acks},
      {"ackreq_every_packet", &a.ackreq_every_packet},
      {"drop_acks", &a.faults.drop_acks},
      {"keep_mr_on_dereg", &a.faults.keep_mr_on_dereg},
      {"no_sq_flush", &a.faults.no_sq_flush},
      {"drop_unsignaled_flushes", &a.faults.drop_unsignaled_flushes},
      {"no_error_wc_unsignaled", &a.faults.no_error_wc_unsignaled},
      {"accept_recv_in_reset", &a.faults.accept_recv_in_reset},
      {"keep_sq_psn", &a.faults.keep_sq_psn},
      {"rnr_timer_zero_at_once", &a.faults.rnr_timer_zero_at_once},
      {"no_empty_read_response", &a.faults.no_empty_read_response},
  };
  const std::string_view all = text != nullptr ? text : "";
  std::size_t at = 0;
  while (at <= all.size()) {
    std::size_t end = all.find(',', at);
    if (end == std::string_view::npos) end = all.size();
    const std::string_view word = all.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    bool found = false;
    for (const auto& [name, flag] : known)
      if (word == name) *flag = found = true;
    if (!found) {
      std::string names;
      for (const auto& k : known)
        names += std::string(names.empty() ? "" : ", ") + std::string(k.first);
      throw std::runtime_error("unknown argument '" + std::string(word) + "' (known: " + names +
                               ")");
    }
  }
  return a;
}

// A frame decoded without checking its ICRC: the frames the faults look at are the model's own
// or the runner's.
wire::ParsedFrame decode_unchecked(std::span<const std::uint8_t> frame) {
  wire::DecodeOptions opts;
  opts.verify_icrc = false;
  return wire::decode(frame, opts);
}

bool is_op(const wire::ParsedFrame& p, std::string_view name) {
  return p.has_bth && p.op != nullptr && p.op->name == name;
}

// What leaves the adapter goes to the runner's emit callback; its asynchronous events queue up
// for rocecert_dut_poll_async_event.
struct Port final : model::FramePort, trace::Observer {
  rocecert_dut_emit_fn emit = nullptr;
  void* host = nullptr;
  const Faults* faults = nullptr;
  std::deque<rocecert_dut_async_event> async;
  void transmit(const model::Adapter&, std::vector<std::uint8_t> frame) override {
    if (faults->drop_acks || faults->no_empty_read_response) {
      const wire::ParsedFrame p = decode_unchecked(frame);
      if (faults->drop_acks && is_op(p, "RC_ACKNOWLEDGE")) return;
      if (faults->no_empty_read_response && is_op(p, "RC_RDMA_READ_RESPONSE_ONLY") &&
          p.payload_len == 0)
        return;
    }
    emit(host, frame.data(), frame.size());
  }
  void on_async_event(const trace::AsyncEvent& e) override {
    async.push_back({static_cast<std::uint32_t>(e.kind), e.object});
  }
};

// rnr_timer_zero_at_once: an incoming RNR NAK (AETH syndrome 001xxxxx, IBA Vol. 1 §9.7.5.2.8)
// with timer code 0 is read as code 1; the frame's ICRC is computed again so that the model
// takes it.
void misread_rnr_timer_zero(std::vector<std::uint8_t>& frame) {
  const wire::ParsedFrame p = decode_unchecked(frame);
  if (!is_op(p, "RC_ACKNOWLEDGE") || !p.has_ip || !p.has_icrc) return;
  if (p.aeth.syndrome != wire::rnr_nak_syndrome(0)) return;
  frame[p.bth_off + p.op->offset[static_cast<std::size_t>(wire::Header::Aeth)]] =
      wire::rnr_nak_syndrome(1);
  const std::span<const std::uint8_t> packet(frame.data() + p.ip_off, p.icrc_off - p.ip_off);
  wire::store_le32(frame, p.icrc_off, wire::compute_icrc(packet, p.ip.version, p.ip_header_len));
}

// The vector's adapter declaration read by the scenario loader: profile, MTU, QP and key tables.
model::AdapterConfig config_from(const rocecert_dut_config& c) {
  model::AdapterConfig a;
  if (c.adapter_json != nullptr && c.adapter_json[0] != '\0') {
    const std::string doc = std::string(R"({"adapters":[)") + c.adapter_json + R"(],"steps":[]})";
    a = conformance::parse_scenario(doc, "adapter_json").adapters.at(0).config;
  }
  a.name = c.name != nullptr ? c.name : "DUT";
  std::memcpy(a.mac.data(), c.mac, 6);
  std::memcpy(a.gid.data(), c.gid, 16);
  a.port_mtu = c.port_mtu;
  a.seed = c.seed;
  return a;
}

qp::AddressVector av_from(const rocecert_dut_av& c) {
  qp::AddressVector v;
  std::memcpy(v.dgid.data(), c.dgid, 16);
  std::memcpy(v.dmac.data(), c.dmac, 6);
  v.sgid_index = c.sgid_index;
  v.hop_limit = c.hop_limit;
  v.traffic_class = c.traffic_class;
  v.flow_label = c.flow_label;
  v.udp_sport = c.udp_sport;
  return v;
}

std::vector<tx::Sge> sges_from(const rocecert_dut_sge* s, std::uint32_t n) {
  std::vector<tx::Sge> out;
  for (std::uint32_t i = 0; i < n; ++i) out.push_back({s[i].addr, s[i].length, s[i].lkey});
  return out;
}

}  // namespace

struct rocecert_dut {
  sim::EventQueue events;
  Args args;
  Port port;
  std::unique_ptr<model::Adapter> adapter;
  // A wire-only run imposes the keys and QP numbers the runner's model gave. This model cannot
  // take numbers from outside, but with the same seed and the same verbs it hands out the same
  // ones: it checks that, and refuses (EINVAL) if they ever differ.
  bool wire_only = false;
  // What the faults need to remember: the send WRs posted and not yet completed (QP, wr_id →
  // signaled; a receive WR with a send WR's wr_id on the same QP would be taken for it: an
  // example's shortcut), and keep_sq_psn's PSN from before a RESET.
  std::map<std::pair<std::uint32_t, std::uint64_t>, bool> sends;
  std::map<std::uint32_t, std::uint32_t> psn_before_reset;
};

namespace {
int imposed(const rocecert_dut* dut, std::uint32_t wanted, std::uint32_t got) {
  return dut->wire_only && wanted != got ? EINVAL : 0;
}

constexpr std::uint32_t kIbvSendSignaled = 1u << 1;  // IBV_SEND_SIGNALED (rocecert/dut.h)

// keep_sq_psn: remember the next PSN when the QP goes to RESET, and send from it again at the
// next RTS instead of the sq_psn given.
void keep_sq_psn(rocecert_dut& dut, std::uint32_t qpn, qp::QpAttr& a, qp::AttrMask mask) {
  if (!mask.has(qp::AttrBit::STATE)) return;
  if (a.qp_state == qp::QpState::RESET) {
    if (const std::optional<qp::QpAttr> now = dut.adapter->qps().query_qp(qp::Qpn(qpn)))
      dut.psn_before_reset[qpn] = now->sq_psn;
  } else if (a.qp_state == qp::QpState::RTS && mask.has(qp::AttrBit::SQ_PSN)) {
    const auto kept = dut.psn_before_reset.find(qpn);
    if (kept != dut.psn_before_reset.end()) a.sq_psn = kept->second;
  }
}

// Whether a fault makes the device lose this completion; a send WR's record ends with it.
bool lost_by_fault(rocecert_dut& dut, const cq::Wc& w) {
  const auto sent = dut.sends.find({w.qp_num, w.wr_id});
  if (sent == dut.sends.end()) return false;  // a receive WR's
  const bool signaled = sent->second;
  dut.sends.erase(sent);
  const Faults& f = dut.args.faults;
  const bool flushed = w.status == cq::WcStatus::WR_FLUSH_ERR;
  if (flushed) return f.no_sq_flush || (f.drop_unsignaled_flushes && !signaled);
  return f.no_error_wc_unsignaled && w.status != cq::WcStatus::SUCCESS && !signaled;
}
}  // namespace

extern "C" {

uint32_t rocecert_dut_abi_version(void) {
  return ROCECERT_DUT_ABI_VERSION;
}

const char* rocecert_dut_capabilities(void) {
  return "RC,UC,UD,ATOMIC,ATOMIC_WRITE,FLUSH,MW,SEND_WITH_INV,SRQ,CNP,IPV6,ACK_EVERY_ACKREQ";
}

rocecert_dut* rocecert_dut_create(const struct rocecert_dut_config* config, char* error,
                                  size_t error_len) {
  try {
    if (config->abi_version != ROCECERT_DUT_ABI_VERSION || config->emit == nullptr)
      throw std::runtime_error("ABI version mismatch or no emit callback");
    auto d = std::make_unique<rocecert_dut>();
    d->port.emit = config->emit;
    d->port.host = config->host;
    d->args = parse_args(config->args);
    d->port.faults = &d->args.faults;
    model::AdapterConfig ac = config_from(*config);
    // With `coalesce_acks` in the args, the responder coalesces its ACKs (hfi1-like: one ACK for
    // up to 16 packets or after 2 us), which IBA Vol. 1 §9.7.5.1.1 allows: vectors must accept it.
    if (d->args.coalesce_acks) ac.profile.ack.mode = model::AckCoalescing::Mode::COALESCE;
    // With `ackreq_every_packet`, the requester asks for an ACK on every RC packet, not only on
    // the last of a message: a policy of its own (docs/spec-notes.md §3.4), also allowed.
    if (d->args.ackreq_every_packet) ac.profile.ackreq.every_n_packets = 1;
    d->adapter = std::make_unique<model::Adapter>(0, std::move(ac), d->events, d->port);
    d->adapter->attach(&d->port);
    d->wire_only = config->wire_only != 0;
    return d.release();
  } catch (const std::exception& e) {
    if (error != nullptr && error_len > 0) {
      std::strncpy(error, e.what(), error_len - 1);
      error[error_len - 1] = '\0';
    }
    return nullptr;
  }
}

void rocecert_dut_destroy(rocecert_dut* dut) {
  delete dut;
}

void rocecert_dut_receive(rocecert_dut* dut, const uint8_t* frame, size_t len) {
  std::vector<std::uint8_t> bytes(frame, frame + len);
  if (dut->args.faults.rnr_timer_zero_at_once) misread_rnr_timer_zero(bytes);
  dut->adapter->receive(std::move(bytes));
}

void rocecert_dut_advance(rocecert_dut* dut, uint64_t now_ns) {
  dut->events.run_until(now_ns);
}

uint64_t rocecert_dut_next_event_ns(rocecert_dut* dut) {
  return dut->events.empty() ? ROCECERT_DUT_NEVER : dut->events.next_time();
}

int rocecert_dut_mem_write(rocecert_dut* dut, uint64_t addr, const void* bytes, size_t len) {
  const auto* p = static_cast<const std::uint8_t*>(bytes);
  return dut->adapter->memory().write(addr, std::vector<std::uint8_t>(p, p + len)) ? 0 : EFAULT;
}

int rocecert_dut_mem_read(rocecert_dut* dut, uint64_t addr, void* bytes, size_t len) {
  const std::vector<std::uint8_t> got = dut->adapter->memory().read_bytes(addr, len);
  if (got.size() != len) return EFAULT;
  if (len > 0) std::memcpy(bytes, got.data(), len);
  return 0;
}

int rocecert_dut_alloc_pd(rocecert_dut* dut, uint32_t* pd) {
  const mem::Result<mem::Pd> r = dut->adapter->alloc_pd();
  *pd = r.value.value;
  return mem::errno_value(r.error);
}

int rocecert_dut_reg_mr(rocecert_dut* dut, uint32_t pd, uint64_t addr, uint64_t length,
                        uint64_t iova, uint32_t access, uint32_t* lkey, uint32_t* rkey) {
  mem::MrRegistration reg;
  reg.pd = mem::Pd{pd};
  reg.addr = addr;
  reg.length = length;
  reg.access = static_cast<mem::Access>(access);
  if (iova != addr) reg.iova = iova;
  const std::uint32_t want_lkey = *lkey, want_rkey = *rkey;
  const mem::Result<mem::MrKeys> r = dut->adapter->reg_mr(reg);
  *lkey = r.value.lkey.value();
  *rkey = r.value.rkey.value();
  if (r.ok() && (imposed(dut, want_lkey, *lkey) != 0 || imposed(dut, want_rkey, *rkey) != 0))
    return EINVAL;
  return mem::errno_value(r.error);
}

int rocecert_dut_dereg_mr(rocecert_dut* dut, uint32_t lkey) {
  if (dut->args.faults.keep_mr_on_dereg) return 0;
  // The model's MR index is the key without its low (key) byte (mem/keys.h Key::make).
  return mem::errno_value(dut->adapter->mem_table().dereg_mr(mem::MrId{lkey >> 8}));
}

int rocecert_dut_alloc_mw(rocecert_dut* dut, uint32_t pd, uint32_t type, uint32_t* mw,
                          uint32_t* rkey) {
  const mem::Result<mem::MwKeys> r =
      dut->adapter->mem_table().alloc_mw(mem::Pd{pd}, static_cast<mem::MwType>(type));
  const std::uint32_t want_rkey = *rkey;
  *mw = r.value.id.index;
  *rkey = r.value.rkey.value();
  if (r.ok() && imposed(dut, want_rkey, *rkey) != 0) return EINVAL;
  return mem::errno_value(r.error);
}

int rocecert_dut_mw_rkey(rocecert_dut* dut, uint32_t mw, uint32_t* rkey) {
  const mem::MemoryWindow* w = dut->adapter->mem_table().find_mw(mem::MwId{mw});
  if (w == nullptr) return EINVAL;
  *rkey = w->rkey.value();
  return 0;
}

int rocecert_dut_create_cq(rocecert_dut* dut, uint32_t cqe, uint32_t* cq) {
  *cq = dut->adapter->create_cq(cqe).value;
  return 0;
}

int rocecert_dut_create_srq(rocecert_dut* dut, uint32_t max_wr, uint32_t max_sge, uint32_t* srq) {
  *srq = dut->adapter->create_srq(max_wr, max_sge).value;
  return 0;
}

int rocecert_dut_create_qp(rocecert_dut* dut, const struct rocecert_dut_qp_init* init,
                           uint32_t* qpn) {
  qp::CreateQpParams p;
  p.type = static_cast<qp::QpType>(init->qp_type);
  p.pd = qp::PdId{init->pd};
  p.send_cq = qp::CqId{init->send_cq};
  p.recv_cq = qp::CqId{init->recv_cq};
  if (init->has_srq != 0) p.srq = qp::SrqId{init->srq};
  p.caps = {init->max_send_wr, init->max_recv_wr, init->max_send_sge, init->max_recv_sge,
            init->max_inline_data};
  p.sq_sig_all = init->sq_sig_all != 0;
  const std::uint32_t want = *qpn;
  const qp::CreateResult r = dut->adapter->create_qp(p);
  *qpn = r.qpn.value();
  if (r.ok() && imposed(dut, want, *qpn) != 0) return EINVAL;
  return qp::errno_value(r.error);
}

int rocecert_dut_modify_qp(rocecert_dut* dut, uint32_t qpn, const struct rocecert_dut_qp_attr* c,
                           uint32_t mask) {
  qp::QpAttr a;
  a.qp_state = static_cast<qp::QpState>(c->qp_state);
  a.cur_qp_state = static_cast<qp::QpState>(c->cur_qp_state);
  a.path_mtu = static_cast<qp::PathMtu>(c->path_mtu);
  a.qkey = c->qkey;
  a.rq_psn = c->rq_psn;
  a.sq_psn = c->sq_psn;
  a.dest_qp_num = c->dest_qp_num;
  a.qp_access_flags = c->qp_access_flags;
  a.pkey_index = static_cast<std::uint16_t>(c->pkey_index);
  a.port_num = static_cast<std::uint8_t>(c->port_num);
  a.ah_attr = av_from(c->ah_attr);
  a.timeout = static_cast<std::uint8_t>(c->timeout);
  a.retry_cnt = static_cast<std::uint8_t>(c->retry_cnt);
  a.rnr_retry = static_cast<std::uint8_t>(c->rnr_retry);
  a.min_rnr_timer = static_cast<std::uint8_t>(c->min_rnr_timer);
  a.max_rd_atomic = static_cast<std::uint8_t>(c->max_rd_atomic);
  a.max_dest_rd_atomic = static_cast<std::uint8_t>(c->max_dest_rd_atomic);
  a.path_mig_state = static_cast<qp::PathMigState>(c->path_mig_state);
  a.en_sqd_async_notify = c->en_sqd_async_notify != 0;
  a.rate_limit = c->rate_limit;
  const qp::AttrMask m = qp::AttrMask::from_raw(mask);
  if (dut->args.faults.keep_sq_psn) keep_sq_psn(*dut, qpn, a, m);
  const qp::ModifyResult r = dut->adapter->modify_qp(qp::Qpn(qpn), a, m);
  return qp::errno_value(r.check.error);
}

int rocecert_dut_query_qp_state(rocecert_dut* dut, uint32_t qpn, uint32_t* state) {
  const qp::QpContext* ctx = dut->adapter->qps().find(qp::Qpn(qpn));
  if (ctx == nullptr) return EINVAL;
  *state = static_cast<std::uint32_t>(ctx->state());
  return 0;
}

int rocecert_dut_post_send(rocecert_dut* dut, uint32_t qpn, const struct rocecert_dut_send_wr* c) {
  tx::SendWr wr;
  wr.wr_id = c->wr_id;
  wr.opcode = static_cast<tx::WrOpcode>(c->opcode);
  wr.send_flags = c->send_flags;
  wr.sg_list = sges_from(c->sg_list, c->num_sge);
  if (c->inline_len > 0) wr.inline_data.assign(c->inline_data, c->inline_data + c->inline_len);
  wr.imm_data = c->imm_data;
  wr.invalidate_rkey = c->invalidate_rkey;
  wr.remote_addr = c->remote_addr;
  wr.rkey = c->rkey;
  wr.compare_add = c->compare_add;
  wr.swap = c->swap;
  wr.remote_qpn = c->remote_qpn;
  wr.remote_qkey = c->remote_qkey;
  if (c->has_ah != 0) wr.ah = dut->adapter->create_ah(av_from(c->ah));
  // The model names a BIND_MW's window by its current rkey; the ABI by its handle.
  if (wr.opcode == tx::WrOpcode::BIND_MW) {
    const mem::MemoryWindow* w = dut->adapter->mem_table().find_mw(mem::MwId{c->bind_mw});
    wr.bind_mw_handle = w != nullptr ? w->rkey.value() : c->bind_mw;
  }
  wr.bind_mr_lkey = c->bind_mr_lkey;
  wr.bind_addr = c->bind_addr;
  wr.bind_length = c->bind_length;
  wr.bind_access = c->bind_access;
  wr.flush_type = c->flush_type;
  wr.flush_level = c->flush_level;
  const int err = model::errno_value(dut->adapter->post_send(qp::Qpn(qpn), wr));
  if (err == 0 && dut->args.faults.lose_completions())
    dut->sends[{qpn, c->wr_id}] = (c->send_flags & kIbvSendSignaled) != 0 ||
                                  dut->adapter->qps().find(qp::Qpn(qpn))->sq_sig_all;
  return err;
}

int rocecert_dut_post_recv(rocecert_dut* dut, uint32_t qpn, uint64_t wr_id,
                           const struct rocecert_dut_sge* sg_list, uint32_t num_sge) {
  model::RecvWr wr;
  wr.wr_id = wr_id;
  wr.sg_list = sges_from(sg_list, num_sge);
  const int err = model::errno_value(dut->adapter->post_recv(qp::Qpn(qpn), wr));
  if (err != 0 && dut->args.faults.accept_recv_in_reset) {
    const qp::QpContext* ctx = dut->adapter->qps().find(qp::Qpn(qpn));
    if (ctx != nullptr && ctx->state() == qp::QpState::RESET) return 0;
  }
  return err;
}

int rocecert_dut_post_srq_recv(rocecert_dut* dut, uint32_t srq, uint64_t wr_id,
                               const struct rocecert_dut_sge* sg_list, uint32_t num_sge) {
  model::RecvWr wr;
  wr.wr_id = wr_id;
  wr.sg_list = sges_from(sg_list, num_sge);
  return model::errno_value(dut->adapter->post_srq_recv(qp::SrqId{srq}, wr));
}

int rocecert_dut_arm_srq_limit(rocecert_dut* dut, uint32_t srq, uint32_t limit) {
  return dut->adapter->arm_srq_limit(qp::SrqId{srq}, limit) ? 0 : EINVAL;
}

int rocecert_dut_poll_cq(rocecert_dut* dut, uint32_t cq, struct rocecert_dut_wc* wc, int max) {
  if (max <= 0) return 0;
  std::vector<cq::Wc> got = dut->adapter->poll_cq(qp::CqId{cq}, static_cast<std::size_t>(max));
  if (dut->args.faults.lose_completions())
    std::erase_if(got, [dut](const cq::Wc& w) { return lost_by_fault(*dut, w); });
  for (std::size_t i = 0; i < got.size(); ++i) {
    const cq::Wc& w = got[i];
    wc[i] = {w.wr_id,
             static_cast<std::uint32_t>(w.status),
             static_cast<std::uint32_t>(w.opcode),
             w.vendor_err,
             w.byte_len,
             w.imm_data,
             w.qp_num,
             w.src_qp,
             w.wc_flags,
             w.pkey_index,
             0};
  }
  return static_cast<int>(got.size());
}

int rocecert_dut_poll_async_event(rocecert_dut* dut, struct rocecert_dut_async_event* event) {
  if (dut->port.async.empty()) return 0;
  *event = dut->port.async.front();
  dut->port.async.pop_front();
  return 1;
}

}  // extern "C"
