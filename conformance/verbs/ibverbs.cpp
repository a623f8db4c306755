// The Verbs over libibverbs (ibverbs.h): each call passes the player's values to the matching
// ibv_ call. The model's enumerations already carry libibverbs' numbers (static_asserts below),
// so most fields are copied. No unit test (no RDMA device on the build host); run on rxe in the
// live guest (docs/dut.md).
#include "rocecert/verbs/ibverbs.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <infiniband/verbs.h>
#include <sys/mman.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

namespace rocecert::verbs {

namespace {

// The numbering the pass-through relies on.
static_assert(static_cast<int>(qp::QpState::ERR) == IBV_QPS_ERR);
static_assert(static_cast<int>(qp::QpType::UD) == IBV_QPT_UD);
static_assert(static_cast<int>(qp::PathMtu::MTU_4096) == IBV_MTU_4096);
static_assert(static_cast<unsigned>(qp::AttrBit::DEST_QPN) == IBV_QP_DEST_QPN);
static_assert(static_cast<unsigned>(qp::AttrBit::RATE_LIMIT) == IBV_QP_RATE_LIMIT);
static_assert(static_cast<int>(tx::WrOpcode::BIND_MW) == IBV_WR_BIND_MW);
static_assert(static_cast<int>(tx::WrOpcode::ATOMIC_WRITE) == IBV_WR_ATOMIC_WRITE);
static_assert(static_cast<unsigned>(tx::kSendInline) == static_cast<unsigned>(IBV_SEND_INLINE));
static_assert(static_cast<int>(cq::WcStatus::GENERAL_ERR) == IBV_WC_GENERAL_ERR);
static_assert(static_cast<int>(cq::WcOpcode::RECV_RDMA_WITH_IMM) == IBV_WC_RECV_RDMA_WITH_IMM);
static_assert(static_cast<unsigned>(cq::kWcWithInv) == static_cast<unsigned>(IBV_WC_WITH_INV));
static_assert(static_cast<int>(errors::AsyncEventType::SRQ_LIMIT_REACHED) ==
              IBV_EVENT_SRQ_LIMIT_REACHED);
static_assert(static_cast<unsigned>(mem::Access::REMOTE_ATOMIC) == IBV_ACCESS_REMOTE_ATOMIC);

int errno_or(int fallback) {
  return errno != 0 ? errno : fallback;
}

class IbVerbs final : public Verbs {
 public:
  IbVerbs(ibv_context* ctx, std::uint8_t port) : ctx_(ctx) { port_.port_num = port; }
  ~IbVerbs() override {
    for (auto& [q, pd] : qps_) ibv_destroy_qp(q);
    for (ibv_srq* s : srqs_) ibv_destroy_srq(s);
    for (ibv_ah* a : ahs_) ibv_destroy_ah(a);
    for (ibv_mw* m : mws_) ibv_dealloc_mw(m);
    for (ibv_mr* m : mrs_)
      if (m != nullptr) ibv_dereg_mr(m);
    for (ibv_cq* c : cqs_) ibv_destroy_cq(c);
    for (ibv_pd* p : pds_) ibv_dealloc_pd(p);
    ibv_close_device(ctx_);
    for (const auto& [addr, len] : memory_) munmap(reinterpret_cast<void*>(addr), len);
  }
  IbVerbs(const IbVerbs&) = delete;
  IbVerbs& operator=(const IbVerbs&) = delete;

  // The port's first RoCEv2 GID, an IPv4-mapped one if any (IBA Vol. 1 Annex A17.4).
  void find_gid() {
    ibv_port_attr pa{};
    if (ibv_query_port(ctx_, port_.port_num, &pa) != 0)
      throw VerbsError(fmt::format("{}: ibv_query_port {} failed: {}",
                                   ibv_get_device_name(ctx_->device), port_.port_num,
                                   std::strerror(errno)));
    active_mtu_ = static_cast<qp::PathMtu>(pa.active_mtu);
    bool found = false;
    for (int i = 0; i < pa.gid_tbl_len; ++i) {
      ibv_gid_entry e{};
      if (ibv_query_gid_ex(ctx_, port_.port_num, static_cast<std::uint32_t>(i), &e, 0) != 0)
        continue;
      if (e.gid_type != IBV_GID_TYPE_ROCE_V2) continue;
      std::array<std::uint8_t, 16> gid{};
      std::memcpy(gid.data(), e.gid.raw, 16);
      if (found && !qp::is_ipv4_mapped(gid)) continue;
      port_.gid = gid;
      port_.gid_index = static_cast<std::uint8_t>(i);
      found = true;
      if (qp::is_ipv4_mapped(gid)) break;
    }
    if (!found)
      throw VerbsError(fmt::format("{}: port {} has no RoCEv2 GID",
                                   ibv_get_device_name(ctx_->device), port_.port_num));
    // Asynchronous events are taken without waiting (get_async_event).
    const int flags = fcntl(ctx_->async_fd, F_GETFL);
    fcntl(ctx_->async_fd, F_SETFL, flags | O_NONBLOCK);
  }

  DeviceCaps query_device() override {
    DeviceCaps c;
    c.name = ibv_get_device_name(ctx_->device);
    ibv_device_attr a{};
    if (ibv_query_device(ctx_, &a) != 0) return c;  // nothing offered
    const auto u = [](int v) { return v < 0 ? 0u : static_cast<std::uint32_t>(v); };
    c.max_mr_size = a.max_mr_size;
    c.max_qp = u(a.max_qp);
    c.max_qp_wr = u(a.max_qp_wr);
    c.max_sge = u(a.max_sge);
    c.max_cq = u(a.max_cq);
    c.max_cqe = u(a.max_cqe);
    c.max_mr = u(a.max_mr);
    c.max_pd = u(a.max_pd);
    c.max_qp_rd_atom = u(a.max_qp_rd_atom);
    c.max_qp_init_rd_atom = u(a.max_qp_init_rd_atom);
    c.max_srq = u(a.max_srq);
    c.max_srq_wr = u(a.max_srq_wr);
    c.max_srq_sge = u(a.max_srq_sge);
    c.max_mw = u(a.max_mw);
    c.atomic = a.atomic_cap != IBV_ATOMIC_NONE;
    c.mw_type1 = (a.device_cap_flags & IBV_DEVICE_MEM_WINDOW) != 0;
    c.mw_type2 =
        (a.device_cap_flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
    c.mem_mgt_extensions = (a.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS) != 0;
    // FLUSH and ATOMIC WRITE need the extended work request API, which this thin layer does
    // not use: not offered.
    c.active_mtu = active_mtu_;
    return c;
  }
  PortInfo port() override { return port_; }

  std::uint64_t now_ns() override {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);  // the capture's clock (docs/check.md, "Events")
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
  }
  void pause(std::uint64_t ns) override {
    timespec ts{static_cast<time_t>(ns / 1'000'000'000u), static_cast<long>(ns % 1'000'000'000u)};
    nanosleep(&ts, nullptr);
  }

  std::uint64_t alloc_memory(std::uint64_t length) override {
    void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return 0;
    const auto addr = reinterpret_cast<std::uint64_t>(p);
    memory_[addr] = length;
    return addr;
  }
  void write_memory(std::uint64_t addr, std::span<const std::uint8_t> bytes) override {
    std::memcpy(reinterpret_cast<void*>(addr), bytes.data(), bytes.size());
  }
  std::vector<std::uint8_t> read_memory(std::uint64_t addr, std::size_t length) override {
    std::vector<std::uint8_t> out(length);
    std::memcpy(out.data(), reinterpret_cast<const void*>(addr), length);
    return out;
  }

  Made alloc_pd() override {
    ibv_pd* p = ibv_alloc_pd(ctx_);
    if (p == nullptr) return {errno_or(ENOMEM), 0};
    pds_.push_back(p);
    return {0, static_cast<std::uint32_t>(pds_.size())};
  }
  MadeMr reg_mr(std::uint32_t pd, std::uint64_t addr, std::uint64_t length, mem::Access access,
                std::optional<std::uint64_t> iova) override {
    ibv_pd* p = at(pds_, pd);
    if (p == nullptr) return {EINVAL, 0, 0, 0, 0};
    errno = 0;
    ibv_mr* m = ibv_reg_mr_iova2(p, reinterpret_cast<void*>(addr), length, iova.value_or(addr),
                                 static_cast<unsigned>(access));
    if (m == nullptr) return {errno_or(EINVAL), 0, 0, 0, 0};
    mrs_.push_back(m);
    return {0, static_cast<std::uint32_t>(mrs_.size()), m->lkey, m->rkey, iova.value_or(addr)};
  }
  int dereg_mr(std::uint32_t mr) override {
    ibv_mr* m = at(mrs_, mr);
    if (m == nullptr) return EINVAL;
    const int e = ibv_dereg_mr(m);
    if (e == 0) mrs_[mr - 1] = nullptr;
    return e;
  }
  MadeMw alloc_mw(std::uint32_t pd, mem::MwType type) override {
    ibv_pd* p = at(pds_, pd);
    if (p == nullptr) return {EINVAL, 0, 0};
    errno = 0;
    ibv_mw* m = ibv_alloc_mw(p, type == mem::MwType::TYPE_1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
    if (m == nullptr) return {errno_or(EINVAL), 0, 0};
    mws_.push_back(m);
    const auto h = static_cast<std::uint32_t>(mws_.size());
    mw_rkeys_[h] = m->rkey;
    return {0, h, m->rkey};
  }
  std::uint32_t mw_rkey(std::uint32_t mw) override { return mw_rkeys_[mw]; }
  Made create_cq(std::uint32_t cqe) override {
    ibv_cq* c = ibv_create_cq(ctx_, static_cast<int>(cqe), nullptr, nullptr, 0);
    if (c == nullptr) return {errno_or(EINVAL), 0};
    cqs_.push_back(c);
    return {0, static_cast<std::uint32_t>(cqs_.size())};
  }
  std::uint32_t cq_size(std::uint32_t cq) override {
    const ibv_cq* c = at(cqs_, cq);
    return c == nullptr || c->cqe < 0 ? 0 : static_cast<std::uint32_t>(c->cqe);
  }
  Made create_srq(std::uint32_t pd, std::uint32_t max_wr, std::uint32_t max_sge) override {
    ibv_pd* p = at(pds_, pd);
    if (p == nullptr) return {EINVAL, 0};
    ibv_srq_init_attr init{};
    init.attr.max_wr = max_wr;
    init.attr.max_sge = max_sge;
    ibv_srq* s = ibv_create_srq(p, &init);
    if (s == nullptr) return {errno_or(EINVAL), 0};
    srqs_.push_back(s);
    return {0, static_cast<std::uint32_t>(srqs_.size())};
  }
  Made create_qp(const QpInit& in) override {
    ibv_pd* p = at(pds_, in.pd);
    ibv_cq* scq = at(cqs_, in.send_cq);
    ibv_cq* rcq = at(cqs_, in.recv_cq);
    if (p == nullptr || scq == nullptr || rcq == nullptr) return {EINVAL, 0};
    ibv_qp_init_attr init{};
    init.send_cq = scq;
    init.recv_cq = rcq;
    if (in.srq) {
      init.srq = at(srqs_, *in.srq);
      if (init.srq == nullptr) return {EINVAL, 0};
    }
    init.qp_type = static_cast<ibv_qp_type>(in.type);
    init.sq_sig_all = in.sq_sig_all ? 1 : 0;
    init.cap.max_send_wr = in.caps.max_send_wr;
    init.cap.max_recv_wr = in.caps.max_recv_wr;
    init.cap.max_send_sge = in.caps.max_send_sge;
    init.cap.max_recv_sge = in.caps.max_recv_sge;
    init.cap.max_inline_data = in.caps.max_inline_data;
    errno = 0;
    ibv_qp* q = ibv_create_qp(p, &init);
    if (q == nullptr) return {errno_or(EINVAL), 0};
    qps_[q] = p;
    by_qpn_[q->qp_num] = q;
    return {0, q->qp_num};
  }
  int modify_qp(std::uint32_t qpn, const qp::QpAttr& a, qp::AttrMask mask) override {
    ibv_qp* q = qp_of(qpn);
    if (q == nullptr) return EINVAL;
    ibv_qp_attr c{};
    c.qp_state = static_cast<ibv_qp_state>(a.qp_state);
    c.cur_qp_state = static_cast<ibv_qp_state>(a.cur_qp_state);
    c.path_mtu = static_cast<ibv_mtu>(a.path_mtu);
    c.path_mig_state = static_cast<ibv_mig_state>(a.path_mig_state);
    c.qkey = a.qkey;
    c.rq_psn = a.rq_psn;
    c.sq_psn = a.sq_psn;
    c.dest_qp_num = a.dest_qp_num;
    c.qp_access_flags = a.qp_access_flags;
    c.pkey_index = a.pkey_index;
    c.port_num = a.port_num;
    c.ah_attr = ah_attr(a.ah_attr);
    c.timeout = a.timeout;
    c.retry_cnt = a.retry_cnt;
    c.rnr_retry = a.rnr_retry;
    c.min_rnr_timer = a.min_rnr_timer;
    c.max_rd_atomic = a.max_rd_atomic;
    c.max_dest_rd_atomic = a.max_dest_rd_atomic;
    c.en_sqd_async_notify = a.en_sqd_async_notify ? 1 : 0;
    c.rate_limit = a.rate_limit;
    return ibv_modify_qp(q, &c, static_cast<int>(mask.raw()));
  }
  std::optional<qp::QpState> query_qp_state(std::uint32_t qpn) override {
    ibv_qp* q = qp_of(qpn);
    if (q == nullptr) return std::nullopt;
    ibv_qp_attr a{};
    ibv_qp_init_attr init{};
    if (ibv_query_qp(q, &a, IBV_QP_STATE, &init) != 0) return std::nullopt;
    return static_cast<qp::QpState>(a.qp_state);
  }
  int post_send(std::uint32_t qpn, const tx::SendWr& wr, std::span<const Sge> sges,
                const std::optional<qp::AddressVector>& ah) override {
    ibv_qp* q = qp_of(qpn);
    if (q == nullptr) return EINVAL;
    std::vector<ibv_sge> sg = to_ibv(sges);
    // Inline bytes the vector gives literally are one SGE; the device copies them at post time.
    if (!wr.inline_data.empty())
      sg = {ibv_sge{reinterpret_cast<std::uint64_t>(wr.inline_data.data()),
                    static_cast<std::uint32_t>(wr.inline_data.size()), 0}};
    ibv_send_wr w{};
    w.wr_id = wr.wr_id;
    w.sg_list = sg.data();
    w.num_sge = static_cast<int>(sg.size());
    w.opcode = static_cast<ibv_wr_opcode>(wr.opcode);
    w.send_flags = wr.send_flags;
    using tx::WrOpcode;
    switch (wr.opcode) {
      case WrOpcode::RDMA_WRITE_WITH_IMM:
      case WrOpcode::SEND_WITH_IMM:
        w.imm_data = htonl(wr.imm_data);  // ImmDt as the wire carries it
        [[fallthrough]];
      case WrOpcode::RDMA_WRITE:
      case WrOpcode::RDMA_READ:
      case WrOpcode::ATOMIC_WRITE:
      case WrOpcode::FLUSH:
        w.wr.rdma.remote_addr = wr.remote_addr;
        w.wr.rdma.rkey = wr.rkey;
        break;
      case WrOpcode::ATOMIC_CMP_AND_SWP:
      case WrOpcode::ATOMIC_FETCH_AND_ADD:
        w.wr.atomic.remote_addr = wr.remote_addr;
        w.wr.atomic.rkey = wr.rkey;
        w.wr.atomic.compare_add = wr.compare_add;
        w.wr.atomic.swap = wr.swap;
        break;
      case WrOpcode::SEND_WITH_INV:
      case WrOpcode::LOCAL_INV:
        w.invalidate_rkey = wr.invalidate_rkey;
        break;
      case WrOpcode::BIND_MW:
        return bind_mw(q, wr);
      case WrOpcode::SEND:
      case WrOpcode::TSO:
      case WrOpcode::DRIVER1:
        break;
    }
    if (ah) {
      ibv_ah_attr attr = ah_attr(*ah);
      ibv_ah* h = ibv_create_ah(qps_[q], &attr);
      if (h == nullptr) return errno_or(EINVAL);
      ahs_.push_back(h);
      w.wr.ud.ah = h;
      w.wr.ud.remote_qpn = wr.remote_qpn;
      w.wr.ud.remote_qkey = wr.remote_qkey;
    }
    ibv_send_wr* bad = nullptr;
    return ibv_post_send(q, &w, &bad);
  }
  int post_recv(std::uint32_t qpn, std::uint64_t wr_id, std::span<const Sge> sges) override {
    ibv_qp* q = qp_of(qpn);
    if (q == nullptr) return EINVAL;
    std::vector<ibv_sge> sg = to_ibv(sges);
    ibv_recv_wr w = recv_wr(wr_id, sg);
    ibv_recv_wr* bad = nullptr;
    return ibv_post_recv(q, &w, &bad);
  }
  int post_srq_recv(std::uint32_t srq, std::uint64_t wr_id, std::span<const Sge> sges) override {
    ibv_srq* s = at(srqs_, srq);
    if (s == nullptr) return EINVAL;
    std::vector<ibv_sge> sg = to_ibv(sges);
    ibv_recv_wr w = recv_wr(wr_id, sg);
    ibv_recv_wr* bad = nullptr;
    return ibv_post_srq_recv(s, &w, &bad);
  }
  int arm_srq_limit(std::uint32_t srq, std::uint32_t limit) override {
    ibv_srq* s = at(srqs_, srq);
    if (s == nullptr) return EINVAL;
    ibv_srq_attr a{};
    a.srq_limit = limit;
    return ibv_modify_srq(s, &a, IBV_SRQ_LIMIT);
  }
  int poll_cq(std::uint32_t cq, std::size_t max, std::vector<cq::Wc>& out) override {
    ibv_cq* c = at(cqs_, cq);
    if (c == nullptr) return -EINVAL;
    std::vector<ibv_wc> wc(max);
    const int n = ibv_poll_cq(c, static_cast<int>(max), wc.data());
    for (int i = 0; i < n; ++i) {
      const ibv_wc& w = wc[static_cast<std::size_t>(i)];
      cq::Wc r;
      r.wr_id = w.wr_id;
      r.status = static_cast<cq::WcStatus>(w.status);
      r.opcode = static_cast<cq::WcOpcode>(w.opcode);
      r.vendor_err = w.vendor_err;
      r.byte_len = w.byte_len;
      // invalidated_rkey is host order, imm_data the wire's bytes.
      r.imm_data = (w.wc_flags & IBV_WC_WITH_INV) != 0 ? w.invalidated_rkey : ntohl(w.imm_data);
      r.qp_num = w.qp_num;
      r.src_qp = w.src_qp;
      r.wc_flags = w.wc_flags;
      r.pkey_index = w.pkey_index;
      out.push_back(r);
    }
    return n;
  }
  std::optional<AsyncEvent> get_async_event() override {
    ibv_async_event e{};
    if (ibv_get_async_event(ctx_, &e) != 0) return std::nullopt;  // EAGAIN: none
    AsyncEvent r;
    r.type = static_cast<errors::AsyncEventType>(e.event_type);
    switch (errors::event_target(r.type)) {
      case errors::EventTarget::QP:
        r.element = e.element.qp->qp_num;
        break;
      case errors::EventTarget::CQ:
        r.element = handle_of(cqs_, e.element.cq);
        break;
      case errors::EventTarget::SRQ:
        r.element = handle_of(srqs_, e.element.srq);
        break;
      case errors::EventTarget::PORT:
        r.element = static_cast<std::uint32_t>(e.element.port_num);
        break;
      case errors::EventTarget::NONE:
      case errors::EventTarget::WQ:
      case errors::EventTarget::DEVICE:
        break;
    }
    ibv_ack_async_event(&e);
    return r;
  }

 private:
  template <typename T>
  static T* at(const std::vector<T*>& v, std::uint32_t handle) {
    return handle == 0 || handle > v.size() ? nullptr : v[handle - 1];
  }
  template <typename T>
  static std::uint32_t handle_of(const std::vector<T*>& v, const T* p) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] == p) return static_cast<std::uint32_t>(i + 1);
    return 0;
  }
  ibv_qp* qp_of(std::uint32_t qpn) const {
    const auto it = by_qpn_.find(qpn);
    return it == by_qpn_.end() ? nullptr : it->second;
  }
  static std::vector<ibv_sge> to_ibv(std::span<const Sge> sges) {
    std::vector<ibv_sge> out;
    for (const Sge& s : sges) out.push_back({s.addr, s.length, s.lkey});
    return out;
  }
  // A receive work request over `sg` (which must outlive the post).
  static ibv_recv_wr recv_wr(std::uint64_t wr_id, std::vector<ibv_sge>& sg) {
    ibv_recv_wr w{};
    w.wr_id = wr_id;
    w.sg_list = sg.data();
    w.num_sge = static_cast<int>(sg.size());
    return w;
  }
  // RoCE addresses are GIDs: every address vector has a GRH (IBA Vol. 1 Annex A17.4).
  ibv_ah_attr ah_attr(const qp::AddressVector& v) const {
    ibv_ah_attr a{};
    a.is_global = 1;
    std::memcpy(a.grh.dgid.raw, v.dgid.data(), 16);
    a.grh.sgid_index = v.sgid_index;
    a.grh.hop_limit = v.hop_limit;
    a.grh.traffic_class = v.traffic_class;
    a.grh.flow_label = v.flow_label;
    a.port_num = port_.port_num;
    return a;
  }
  // A type 2 window is bound by a work request, with the next key of the window (the low byte
  // is the consumer's, ibv_inc_rkey); a type 1 window by ibv_bind_mw.
  int bind_mw(ibv_qp* q, const tx::SendWr& wr) {
    ibv_mw* mw = at(mws_, wr.bind_mw_handle);
    if (mw == nullptr) return EINVAL;
    ibv_mr* mr = nullptr;
    for (ibv_mr* m : mrs_)
      if (m != nullptr && m->lkey == wr.bind_mr_lkey) mr = m;
    ibv_mw_bind_info info{};
    info.mr = mr;
    info.addr = wr.bind_addr;
    info.length = wr.bind_length;
    info.mw_access_flags = wr.bind_access;
    std::uint32_t& rkey = mw_rkeys_[wr.bind_mw_handle];
    if (mw->type == IBV_MW_TYPE_1) {
      ibv_mw_bind b{};
      b.wr_id = wr.wr_id;
      b.send_flags = wr.send_flags;
      b.bind_info = info;
      const int e = ibv_bind_mw(q, mw, &b);
      if (e == 0) rkey = mw->rkey;
      return e;
    }
    ibv_send_wr w{};
    w.wr_id = wr.wr_id;
    w.opcode = IBV_WR_BIND_MW;
    w.send_flags = wr.send_flags;
    w.bind_mw.mw = mw;
    w.bind_mw.rkey = ibv_inc_rkey(rkey);
    w.bind_mw.bind_info = info;
    ibv_send_wr* bad = nullptr;
    const int e = ibv_post_send(q, &w, &bad);
    if (e == 0) rkey = w.bind_mw.rkey;
    return e;
  }

  ibv_context* ctx_;
  PortInfo port_;
  qp::PathMtu active_mtu_ = qp::PathMtu::MTU_1024;
  std::vector<ibv_pd*> pds_;
  std::vector<ibv_mr*> mrs_;  // nullptr once deregistered
  std::vector<ibv_mw*> mws_;
  std::vector<ibv_cq*> cqs_;
  std::vector<ibv_srq*> srqs_;
  std::vector<ibv_ah*> ahs_;
  std::map<ibv_qp*, ibv_pd*> qps_;
  std::map<std::uint32_t, ibv_qp*> by_qpn_;
  std::map<std::uint32_t, std::uint32_t> mw_rkeys_;  // by handle: the current rkey
  std::map<std::uint64_t, std::uint64_t> memory_;    // mmap'ed: address, length
};

}  // namespace

std::unique_ptr<Verbs> open_ibverbs(const std::string& device, std::uint8_t port) {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr)
    throw VerbsError(fmt::format("{}: no RDMA devices ({})", device, std::strerror(errno)));
  ibv_context* ctx = nullptr;
  std::string names;
  for (int i = 0; i < n; ++i) {
    const char* name = ibv_get_device_name(list[i]);
    names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
    if (device == name) ctx = ibv_open_device(list[i]);
  }
  ibv_free_device_list(list);
  if (ctx == nullptr)
    throw VerbsError(fmt::format("{}: no such RDMA device (devices: {})", device,
                                 names.empty() ? "none" : names));
  auto v = std::make_unique<IbVerbs>(ctx, port);
  v->find_gid();
  return v;
}

}  // namespace rocecert::verbs
