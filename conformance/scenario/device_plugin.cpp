// A device-under-test plugin (rocecert/dut.h) as the runner's Device: loading the shared object,
// translating the verbs both ways (the ABI uses libibverbs numbering, as the model does), and
// co-simulating its wire and its time with the simulation's event queue (docs/dut.md).
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "device.h"
#include "rocecert/conformance/dut_plugin.h"

namespace rocecert::conformance {

// --- loading ---------------------------------------------------------------------------------

DutPlugin::~DutPlugin() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::unique_ptr<DutPlugin> DutPlugin::load(const std::string& spec) {
  if (spec.rfind("lib:", 0) != 0)
    throw DutError(
        fmt::format("--dut {}: not a device (use lib:PATH.so or lib:PATH.so,ARGS)", spec));
  std::unique_ptr<DutPlugin> p(new DutPlugin());
  std::string rest = spec.substr(4);
  const std::size_t comma = rest.find(',');
  if (comma != std::string::npos) {
    p->args_ = rest.substr(comma + 1);
    rest.resize(comma);
  }
  p->path_ = rest;
  // A bare file name would make dlopen search the library path: say "./x.so" for a local file.
  const std::string open_path = rest.find('/') == std::string::npos ? "./" + rest : rest;
  p->handle_ = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (p->handle_ == nullptr) {
    const char* why = dlerror();
    throw DutError(fmt::format("{}: cannot load the plugin: {}", p->path_, why ? why : "?"));
  }
  const auto sym = [&](auto& fn, const char* name, bool required) {
    dlerror();
    void* f = dlsym(p->handle_, name);
    if (f == nullptr && required)
      throw DutError(
          fmt::format("{}: the plugin does not export {} (rocecert/dut.h)", p->path_, name));
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(f);
  };
  Api& a = p->api_;
  sym(a.abi_version, "rocecert_dut_abi_version", true);
  sym(a.create, "rocecert_dut_create", true);
  sym(a.destroy, "rocecert_dut_destroy", true);
  sym(a.receive, "rocecert_dut_receive", true);
  sym(a.advance, "rocecert_dut_advance", true);
  sym(a.next_event_ns, "rocecert_dut_next_event_ns", true);
  sym(a.capabilities, "rocecert_dut_capabilities", false);
  sym(a.mem_write, "rocecert_dut_mem_write", false);
  sym(a.mem_read, "rocecert_dut_mem_read", false);
  sym(a.alloc_pd, "rocecert_dut_alloc_pd", false);
  sym(a.reg_mr, "rocecert_dut_reg_mr", false);
  sym(a.dereg_mr, "rocecert_dut_dereg_mr", false);
  sym(a.alloc_mw, "rocecert_dut_alloc_mw", false);
  sym(a.mw_rkey, "rocecert_dut_mw_rkey", false);
  sym(a.create_cq, "rocecert_dut_create_cq", false);
  sym(a.create_srq, "rocecert_dut_create_srq", false);
  sym(a.create_qp, "rocecert_dut_create_qp", false);
  sym(a.modify_qp, "rocecert_dut_modify_qp", false);
  sym(a.query_qp_state, "rocecert_dut_query_qp_state", false);
  sym(a.post_send, "rocecert_dut_post_send", false);
  sym(a.post_recv, "rocecert_dut_post_recv", false);
  sym(a.post_srq_recv, "rocecert_dut_post_srq_recv", false);
  sym(a.arm_srq_limit, "rocecert_dut_arm_srq_limit", false);
  sym(a.poll_cq, "rocecert_dut_poll_cq", false);
  sym(a.poll_async_event, "rocecert_dut_poll_async_event", false);
  const std::uint32_t v = a.abi_version();
  if (v != ROCECERT_DUT_ABI_VERSION)
    throw DutError(
        fmt::format("{}: the plugin was built for ABI version {}, this rocecert speaks {}",
                    p->path_, v, ROCECERT_DUT_ABI_VERSION));
  if (a.capabilities != nullptr) {
    const char* c = a.capabilities();
    std::string s = c != nullptr ? c : "";
    std::size_t from = 0;
    while (from <= s.size()) {
      std::size_t to = s.find(',', from);
      if (to == std::string::npos) to = s.size();
      std::string word = s.substr(from, to - from);
      word.erase(0, word.find_first_not_of(" \t"));
      word.erase(word.find_last_not_of(" \t") + 1);
      if (!word.empty()) p->caps_.insert(word);
      from = to + 1;
    }
  }
  return p;
}

// --- the device ------------------------------------------------------------------------------

namespace {

rocecert_dut_av to_c(const qp::AddressVector& v) {
  rocecert_dut_av c{};
  std::memcpy(c.dgid, v.dgid.data(), 16);
  std::memcpy(c.dmac, v.dmac.data(), 6);
  c.sgid_index = v.sgid_index;
  c.hop_limit = v.hop_limit;
  c.traffic_class = v.traffic_class;
  c.flow_label = v.flow_label;
  c.udp_sport = v.udp_sport;
  return c;
}

std::vector<rocecert_dut_sge> to_c(const std::vector<tx::Sge>& sges) {
  std::vector<rocecert_dut_sge> out;
  out.reserve(sges.size());
  for (const tx::Sge& s : sges) out.push_back({s.addr, s.length, s.lkey});
  return out;
}

class PluginDevice final : public Device {
 public:
  // `collect`: a wire-only run (wire-only device below): what the device emits is kept there
  // instead of being sent.
  PluginDevice(const DutPlugin& plugin, model::Adapter& port, sim::EventQueue& events,
               trace::Observer& observer, std::vector<std::vector<std::uint8_t>>* collect = nullptr)
      : api_(plugin.api()),
        plugin_(plugin),
        port_(port),
        events_(events),
        observer_(observer),
        collect_(collect) {}
  ~PluginDevice() override {
    if (wake_ != 0) events_.cancel(wake_);
    if (dut_ != nullptr) api_.destroy(dut_);
  }
  PluginDevice(const PluginDevice&) = delete;
  PluginDevice& operator=(const PluginDevice&) = delete;

  void create(const std::string& adapter_json) {
    const model::AdapterConfig& c = port_.config();
    rocecert_dut_config cfg{};
    cfg.abi_version = ROCECERT_DUT_ABI_VERSION;
    cfg.name = c.name.c_str();
    std::memcpy(cfg.mac, c.mac.data(), 6);
    std::memcpy(cfg.gid, c.gid.data(), 16);
    cfg.port_mtu = c.port_mtu;
    cfg.seed = c.seed;
    cfg.adapter_json = adapter_json.c_str();
    cfg.args = plugin_.args().c_str();
    cfg.emit = &PluginDevice::emit_thunk;
    cfg.host = this;
    cfg.wire_only = collect_ != nullptr ? 1 : 0;
    char error[512] = {0};
    dut_ = api_.create(&cfg, error, sizeof error);
    if (dut_ == nullptr)
      throw DutError(fmt::format("{}: rocecert_dut_create refused adapter \"{}\": {}",
                                 plugin_.path(), c.name,
                                 error[0] != 0 ? error : "no reason given"));
    settle();
  }

  // Wire-only: the frames the link brings to the port reach the device too.
  void listen(model::Link& link) {
    link.tap(port_, [this](std::vector<std::uint8_t> frame) {
      sync();
      api_.receive(dut_, frame.data(), frame.size());
      settle();
    });
  }

  void attach(model::Link& link) {
    link_ = &link;
    link.divert(port_, [this](std::vector<std::uint8_t> frame) {
      sync();
      api_.receive(dut_, frame.data(), frame.size());
      settle();
    });
  }

  bool exact_errors() const override { return false; }
  int last_errno() const override { return errno_; }

  mem::Result<mem::Pd> alloc_pd() override {
    std::uint32_t pd = 0;
    const int e = call("alloc_pd", api_.alloc_pd, &pd);
    return {mem_error(e), mem::Pd{pd}};
  }
  bool write_memory(std::uint64_t addr, const std::vector<std::uint8_t>& bytes) override {
    return call("mem_write", api_.mem_write, addr, bytes.data(), bytes.size()) == 0;
  }
  std::vector<std::uint8_t> read_memory(std::uint64_t addr, std::size_t len) override {
    if (len > 0 && addr + len - 1 < addr) len = static_cast<std::size_t>(0 - addr);  // to 2^64
    std::vector<std::uint8_t> out(len);
    if (call("mem_read", api_.mem_read, addr, out.data(), out.size()) != 0) out.clear();
    return out;
  }
  mem::Result<mem::MrKeys> reg_mr(const mem::MrRegistration& r) override {
    return reg_mr_as(r, {});
  }
  // With the keys imposed (wire-only; zero otherwise).
  mem::Result<mem::MrKeys> reg_mr_as(const mem::MrRegistration& r, const mem::MrKeys& imposed) {
    std::uint32_t lkey = imposed.lkey.value(), rkey = imposed.rkey.value();
    const int e = call("reg_mr", api_.reg_mr, r.pd.value, r.addr, r.length, r.iova.value_or(r.addr),
                       static_cast<std::uint32_t>(r.access), &lkey, &rkey);
    mem::MrKeys k;
    k.id = mem::MrId{lkey >> 8};
    k.lkey = mem::Key(lkey);
    k.rkey = mem::Key(rkey);
    return {mem_error(e), k};
  }
  mem::MemErrc dereg_mr(const mem::MrKeys& mr) override {
    return mem_error(call("dereg_mr", api_.dereg_mr, mr.lkey.value()));
  }
  mem::Result<mem::MwKeys> alloc_mw(mem::Pd pd, mem::MwType type) override {
    return alloc_mw_as(pd, type, {});
  }
  mem::Result<mem::MwKeys> alloc_mw_as(mem::Pd pd, mem::MwType type, const mem::MwKeys& imposed) {
    std::uint32_t mw = 0, rkey = imposed.rkey.value();
    const int e =
        call("alloc_mw", api_.alloc_mw, pd.value, static_cast<std::uint32_t>(type), &mw, &rkey);
    if (e == 0) mw_rkeys_[mw] = rkey;
    return {mem_error(e), mem::MwKeys{mem::MwId{mw}, mem::Key(rkey)}};
  }
  std::uint32_t mw_rkey(const mem::MwKeys& mw) override {
    std::uint32_t rkey = mw.rkey.value();
    if (call("mw_rkey", api_.mw_rkey, mw.id.index, &rkey) != 0) return mw.rkey.value();
    mw_rkeys_[mw.id.index] = rkey;
    return rkey;
  }
  qp::CqId create_cq(std::uint32_t cqe) override {
    std::uint32_t cq = 0;
    call("create_cq", api_.create_cq, cqe, &cq);
    return qp::CqId{cq};
  }
  qp::CreateResult create_qp(const qp::CreateQpParams& p) override { return create_qp_as(p, {}); }
  qp::CreateResult create_qp_as(const qp::CreateQpParams& p, qp::Qpn imposed) {
    rocecert_dut_qp_init init{};
    init.qp_type = static_cast<std::uint32_t>(p.type);
    init.pd = p.pd.value;
    init.send_cq = p.send_cq.value;
    init.recv_cq = p.recv_cq.value;
    init.has_srq = p.srq.has_value() ? 1 : 0;
    init.srq = p.srq ? p.srq->value : 0;
    init.max_send_wr = p.caps.max_send_wr;
    init.max_recv_wr = p.caps.max_recv_wr;
    init.max_send_sge = p.caps.max_send_sge;
    init.max_recv_sge = p.caps.max_recv_sge;
    init.max_inline_data = p.caps.max_inline_data;
    init.sq_sig_all = p.sq_sig_all ? 1 : 0;
    std::uint32_t qpn = imposed.value();
    const int e = call("create_qp", api_.create_qp, &init, &qpn);
    qp::CreateResult r;
    r.error = e == 0 ? qp::ModifyError::OK : qp::ModifyError::INVALID_CAP;
    r.qpn = qp::Qpn(qpn);
    return r;
  }
  qp::SrqId create_srq(std::uint32_t max_wr, std::uint32_t max_sge) override {
    std::uint32_t srq = 0;
    call("create_srq", api_.create_srq, max_wr, max_sge, &srq);
    return qp::SrqId{srq};
  }
  model::PostError post_srq_recv(qp::SrqId srq, const model::RecvWr& wr) override {
    const std::vector<rocecert_dut_sge> sges = to_c(wr.sg_list);
    return post_error(call("post_srq_recv", api_.post_srq_recv, srq.value, wr.wr_id, sges.data(),
                           static_cast<std::uint32_t>(sges.size())));
  }
  bool arm_srq_limit(qp::SrqId srq, std::uint32_t limit) override {
    return call("arm_srq_limit", api_.arm_srq_limit, srq.value, limit) == 0;
  }
  qp::ModifyResult modify_qp(qp::Qpn qpn, const qp::QpAttr& a, qp::AttrMask mask) override {
    rocecert_dut_qp_attr c{};
    c.qp_state = static_cast<std::uint32_t>(a.qp_state);
    c.cur_qp_state = static_cast<std::uint32_t>(a.cur_qp_state);
    c.path_mtu = static_cast<std::uint32_t>(a.path_mtu);
    c.qkey = a.qkey;
    c.rq_psn = a.rq_psn;
    c.sq_psn = a.sq_psn;
    c.dest_qp_num = a.dest_qp_num;
    c.qp_access_flags = a.qp_access_flags;
    c.pkey_index = a.pkey_index;
    c.port_num = a.port_num;
    c.ah_attr = to_c(a.ah_attr);
    c.timeout = a.timeout;
    c.retry_cnt = a.retry_cnt;
    c.rnr_retry = a.rnr_retry;
    c.min_rnr_timer = a.min_rnr_timer;
    c.max_rd_atomic = a.max_rd_atomic;
    c.max_dest_rd_atomic = a.max_dest_rd_atomic;
    c.path_mig_state = static_cast<std::uint32_t>(a.path_mig_state);
    c.en_sqd_async_notify = a.en_sqd_async_notify ? 1 : 0;
    c.rate_limit = a.rate_limit;
    const int e = call("modify_qp", api_.modify_qp, qpn.value(), &c, mask.raw());
    qp::ModifyResult r;
    r.check.error = e == 0 ? qp::ModifyError::OK : qp::ModifyError::ILLEGAL_TRANSITION;
    return r;
  }
  model::PostError post_recv(qp::Qpn qpn, const model::RecvWr& wr) override {
    const std::vector<rocecert_dut_sge> sges = to_c(wr.sg_list);
    return post_error(call("post_recv", api_.post_recv, qpn.value(), wr.wr_id, sges.data(),
                           static_cast<std::uint32_t>(sges.size())));
  }
  model::PostError post_send(qp::Qpn qpn, tx::SendWr wr,
                             const std::optional<qp::AddressVector>& ah) override {
    const std::vector<rocecert_dut_sge> sges = to_c(wr.sg_list);
    rocecert_dut_send_wr c{};
    c.wr_id = wr.wr_id;
    c.opcode = static_cast<std::uint32_t>(wr.opcode);
    c.send_flags = wr.send_flags;
    c.sg_list = sges.data();
    c.num_sge = static_cast<std::uint32_t>(sges.size());
    c.inline_len = static_cast<std::uint32_t>(wr.inline_data.size());
    c.inline_data = wr.inline_data.data();
    c.imm_data = wr.imm_data;
    c.invalidate_rkey = wr.invalidate_rkey;
    c.remote_addr = wr.remote_addr;
    c.rkey = wr.rkey;
    c.remote_qpn = wr.remote_qpn;
    c.remote_qkey = wr.remote_qkey;
    if (ah) {
      c.has_ah = 1;
      c.ah = to_c(*ah);
    }
    c.compare_add = wr.compare_add;
    c.swap = wr.swap;
    c.bind_mw = bind_handle(wr.bind_mw_handle);
    c.bind_mr_lkey = wr.bind_mr_lkey;
    c.bind_addr = wr.bind_addr;
    c.bind_length = wr.bind_length;
    c.bind_access = wr.bind_access;
    c.flush_type = wr.flush_type;
    c.flush_level = wr.flush_level;
    return post_error(call("post_send", api_.post_send, qpn.value(), &c));
  }
  std::vector<cq::Wc> poll_cq(qp::CqId cq, std::size_t max) override {
    std::vector<rocecert_dut_wc> buf(max);
    const int n = call("poll_cq", api_.poll_cq, cq.value, buf.data(), static_cast<int>(max));
    std::vector<cq::Wc> out;
    for (int i = 0; i < n && i < static_cast<int>(max); ++i) {
      const rocecert_dut_wc& c = buf[static_cast<std::size_t>(i)];
      cq::Wc w;
      w.wr_id = c.wr_id;
      w.status = static_cast<cq::WcStatus>(c.status);
      w.opcode = static_cast<cq::WcOpcode>(c.opcode);
      w.vendor_err = c.vendor_err;
      w.byte_len = c.byte_len;
      w.imm_data = c.imm_data;
      w.qp_num = c.qp_num;
      w.src_qp = c.src_qp;
      w.wc_flags = c.wc_flags;
      w.pkey_index = static_cast<std::uint16_t>(c.pkey_index);
      out.push_back(w);
    }
    return out;
  }
  std::optional<qp::QpState> qp_state(qp::Qpn qpn) override {
    std::uint32_t s = 0;
    if (call("query_qp_state", api_.query_qp_state, qpn.value(), &s) != 0) return std::nullopt;
    return static_cast<qp::QpState>(s);
  }
  std::vector<std::pair<errors::AsyncEventType, std::uint32_t>> take_async_events() override {
    std::vector<std::pair<errors::AsyncEventType, std::uint32_t>> out;
    if (api_.poll_async_event == nullptr) return out;
    sync();
    rocecert_dut_async_event e{};
    while (api_.poll_async_event(dut_, &e) == 1 && out.size() < 4096)
      out.emplace_back(static_cast<errors::AsyncEventType>(e.type), e.element);
    settle();
    return out;
  }

 private:
  static void emit_thunk(void* host, const std::uint8_t* frame, std::size_t len) {
    auto* self = static_cast<PluginDevice*>(host);
    if (frame == nullptr && len > 0) return;
    self->outbox_.emplace_back(frame, frame + len);
  }

  // The runner names a BIND_MW's window by its current rkey (as the model does); the ABI names
  // it by its handle: the window whose last known rkey that is (or the value itself).
  std::uint32_t bind_handle(std::uint32_t rkey) const {
    for (const auto& [handle, key] : mw_rkeys_)
      if (key == rkey) return handle;
    return rkey;
  }

  // Brings the device to the simulation's current time before a call, when time has moved: calls
  // at one instant do not run each other's deferred work, as on the model, where verbs at one
  // instant run back to back before any event.
  void sync() {
    const sim::SimTime now = events_.now();
    if (now > advanced_to_ || !advanced_once_) {
      api_.advance(dut_, now);
      advanced_to_ = now;
      advanced_once_ = true;
    }
  }

  // Sends what the device emitted and schedules its next wake-up.
  void settle() {
    std::vector<std::vector<std::uint8_t>> out;
    out.swap(outbox_);
    for (std::vector<std::uint8_t>& f : out) {
      if (collect_ != nullptr) {
        collect_->push_back(std::move(f));
        continue;
      }
      observer_.on_frame({events_.now(), port_.id(), trace::Direction::TX, f, nullptr});
      if (link_ != nullptr) link_->transmit(port_, std::move(f));
    }
    const std::uint64_t next = api_.next_event_ns(dut_);
    if (next == ROCECERT_DUT_NEVER) {
      if (wake_ != 0) events_.cancel(wake_);
      wake_ = 0;
      return;
    }
    sim::SimTime at = std::max<sim::SimTime>(next, events_.now());
    // A device that keeps asking to run at the same instant without getting anywhere would
    // stop simulated time: after 10,000 wake-ups at one instant it is moved on by 1 ns.
    if (at == events_.now()) {
      if (at == busy_at_ && ++busy_count_ > 10'000) at += 1;
      if (at != busy_at_) busy_count_ = 0;
      busy_at_ = events_.now();
    }
    if (wake_ != 0 && wake_at_ == at) return;
    if (wake_ != 0) events_.cancel(wake_);
    wake_at_ = at;
    wake_ = events_.schedule_at(at, [this] {
      // The device asked to run now: advance even if time has not moved since the last call.
      wake_ = 0;
      const sim::SimTime now = events_.now();
      api_.advance(dut_, now);
      advanced_to_ = now;
      advanced_once_ = true;
      settle();
    });
  }

  // Calls an optional function of the plugin at the current time; a missing one makes the run
  // UNSUPPORTED. Returns the errno (or the count, for poll_cq).
  template <typename Fn, typename... Args>
  int call(const char* name, Fn fn, Args... args) {
    if (fn == nullptr)
      throw DeviceUnsupported(
          fmt::format("the plugin does not export rocecert_dut_{} (rocecert/dut.h)", name));
    sync();
    const int r = fn(dut_, args...);
    settle();
    errno_ = r < 0 ? -r : r;
    return r;
  }

  static mem::MemErrc mem_error(int e) {
    if (e == 0) return mem::MemErrc::OK;
    return e == ENOMEM ? mem::MemErrc::INDEX_EXHAUSTED : mem::MemErrc::INVALID_PD;
  }
  static model::PostError post_error(int e) {
    if (e == 0) return model::PostError::OK;
    return e == ENOMEM ? model::PostError::QUEUE_FULL : model::PostError::INVALID_STATE;
  }

  const DutPlugin::Api& api_;
  const DutPlugin& plugin_;
  model::Adapter& port_;
  sim::EventQueue& events_;
  trace::Observer& observer_;
  std::vector<std::vector<std::uint8_t>>* collect_;
  model::Link* link_ = nullptr;
  rocecert_dut* dut_ = nullptr;
  std::vector<std::vector<std::uint8_t>> outbox_;
  sim::SimTime advanced_to_ = 0;
  bool advanced_once_ = false;
  sim::EventId wake_ = 0;
  sim::SimTime wake_at_ = 0;
  sim::SimTime busy_at_ = sim::kNever;
  std::uint32_t busy_count_ = 0;
  int errno_ = 0;
  std::map<std::uint32_t, std::uint32_t> mw_rkeys_;  // window handle -> its last known rkey
};

// Wire-only (rocecert/dut.h): the model's adapter answers the runner; the plugin gets the same
// verbs with the model's keys and QP numbers imposed, its own handles (PD, CQ, SRQ, MW) mapped
// from the model's. A verb the model and the device answer differently (at errno level) is a
// difference; what the device emits is collected by its PluginDevice.
class WireOnlyDevice final : public Device {
 public:
  WireOnlyDevice(std::unique_ptr<Device> shadow, std::unique_ptr<PluginDevice> dut)
      : shadow_(std::move(shadow)), dut_(std::move(dut)) {}

  PluginDevice& dut() { return *dut_; }

  bool exact_errors() const override { return true; }
  std::vector<std::string> take_differences() override {
    std::vector<std::string> out;
    out.swap(diffs_);
    return out;
  }

  mem::Result<mem::Pd> alloc_pd() override {
    const mem::Result<mem::Pd> r = shadow_->alloc_pd();
    const mem::Result<mem::Pd> d = dut_->alloc_pd();
    agree("alloc_pd", mem::errno_value(r.error));
    if (r.ok()) pds_[r.value.value] = d.value.value;
    return r;
  }
  bool write_memory(std::uint64_t addr, const std::vector<std::uint8_t>& bytes) override {
    dut_->write_memory(addr, bytes);
    return shadow_->write_memory(addr, bytes);
  }
  std::vector<std::uint8_t> read_memory(std::uint64_t addr, std::size_t len) override {
    return shadow_->read_memory(addr, len);
  }
  mem::Result<mem::MrKeys> reg_mr(const mem::MrRegistration& reg) override {
    const mem::Result<mem::MrKeys> r = shadow_->reg_mr(reg);
    mem::MrRegistration d = reg;
    d.pd = mem::Pd{map(pds_, reg.pd.value)};
    (void)dut_->reg_mr_as(d, r.value);
    agree("reg_mr", mem::errno_value(r.error));
    return r;
  }
  mem::MemErrc dereg_mr(const mem::MrKeys& mr) override {
    const mem::MemErrc e = shadow_->dereg_mr(mr);
    (void)dut_->dereg_mr(mr);
    agree("dereg_mr", mem::errno_value(e));
    return e;
  }
  mem::Result<mem::MwKeys> alloc_mw(mem::Pd pd, mem::MwType type) override {
    const mem::Result<mem::MwKeys> r = shadow_->alloc_mw(pd, type);
    const mem::Result<mem::MwKeys> d =
        dut_->alloc_mw_as(mem::Pd{map(pds_, pd.value)}, type, r.value);
    agree("alloc_mw", mem::errno_value(r.error));
    if (r.ok()) mws_[r.value.id.index] = d.value.id.index;
    return r;
  }
  std::uint32_t mw_rkey(const mem::MwKeys& mw) override {
    // Keeps the plugin device's record of the window's key current (BIND_MW names it by key).
    (void)dut_->mw_rkey(mem::MwKeys{mem::MwId{map(mws_, mw.id.index)}, mw.rkey});
    return shadow_->mw_rkey(mw);
  }
  qp::CqId create_cq(std::uint32_t cqe) override {
    const qp::CqId c = shadow_->create_cq(cqe);
    cqs_[c.value] = dut_->create_cq(cqe).value;
    return c;
  }
  qp::CreateResult create_qp(const qp::CreateQpParams& p) override {
    const qp::CreateResult r = shadow_->create_qp(p);
    qp::CreateQpParams d = p;
    d.pd = qp::PdId{map(pds_, p.pd.value)};
    d.send_cq = qp::CqId{map(cqs_, p.send_cq.value)};
    d.recv_cq = qp::CqId{map(cqs_, p.recv_cq.value)};
    if (p.srq) d.srq = qp::SrqId{map(srqs_, p.srq->value)};
    (void)dut_->create_qp_as(d, r.qpn);
    agree("create_qp", qp::errno_value(r.error));
    return r;
  }
  qp::SrqId create_srq(std::uint32_t max_wr, std::uint32_t max_sge) override {
    const qp::SrqId s = shadow_->create_srq(max_wr, max_sge);
    srqs_[s.value] = dut_->create_srq(max_wr, max_sge).value;
    return s;
  }
  model::PostError post_srq_recv(qp::SrqId srq, const model::RecvWr& wr) override {
    const model::PostError e = shadow_->post_srq_recv(srq, wr);
    (void)dut_->post_srq_recv(qp::SrqId{map(srqs_, srq.value)}, wr);
    agree("post_srq_recv", model::errno_value(e));
    return e;
  }
  bool arm_srq_limit(qp::SrqId srq, std::uint32_t limit) override {
    (void)dut_->arm_srq_limit(qp::SrqId{map(srqs_, srq.value)}, limit);
    return shadow_->arm_srq_limit(srq, limit);
  }
  qp::ModifyResult modify_qp(qp::Qpn qpn, const qp::QpAttr& attr, qp::AttrMask mask) override {
    const qp::ModifyResult r = shadow_->modify_qp(qpn, attr, mask);
    (void)dut_->modify_qp(qpn, attr, mask);
    agree("modify_qp", qp::errno_value(r.check.error));
    return r;
  }
  model::PostError post_recv(qp::Qpn qpn, const model::RecvWr& wr) override {
    const model::PostError e = shadow_->post_recv(qpn, wr);
    (void)dut_->post_recv(qpn, wr);
    agree("post_recv", model::errno_value(e));
    return e;
  }
  model::PostError post_send(qp::Qpn qpn, tx::SendWr wr,
                             const std::optional<qp::AddressVector>& ah) override {
    const model::PostError e = shadow_->post_send(qpn, wr, ah);
    (void)dut_->post_send(qpn, std::move(wr), ah);
    agree("post_send", model::errno_value(e));
    return e;
  }
  std::vector<cq::Wc> poll_cq(qp::CqId cq, std::size_t max) override {
    // The device's completions are not judged in a wire-only run; its CQs are kept empty.
    if (dut_has_poll_) {
      try {
        while (!dut_->poll_cq(qp::CqId{map(cqs_, cq.value)}, 64).empty()) {
        }
      } catch (const DeviceUnsupported&) {
        dut_has_poll_ = false;
      }
    }
    return shadow_->poll_cq(cq, max);
  }
  std::optional<qp::QpState> qp_state(qp::Qpn qpn) override { return shadow_->qp_state(qpn); }

 private:
  static std::uint32_t map(const std::map<std::uint32_t, std::uint32_t>& m, std::uint32_t v) {
    const auto it = m.find(v);
    return it != m.end() ? it->second : v;
  }
  void agree(const char* verb, int model_errno) {
    const int got = dut_->last_errno();
    if (got == model_errno) return;
    diffs_.push_back(fmt::format("{}: the model answered {}, the device {}", verb,
                                 errno_name(model_errno), errno_name(got)));
  }

  std::unique_ptr<Device> shadow_;
  std::unique_ptr<PluginDevice> dut_;
  std::map<std::uint32_t, std::uint32_t> pds_, cqs_, srqs_, mws_;  // model's -> device's
  std::vector<std::string> diffs_;
  bool dut_has_poll_ = true;
};

}  // namespace

std::unique_ptr<Device> make_wire_only_device(const DutPlugin& plugin,
                                              const std::string& adapter_json,
                                              model::Adapter& adapter, sim::EventQueue& events,
                                              trace::Observer& observer,
                                              std::vector<std::vector<std::uint8_t>>& sent) {
  auto dut = std::make_unique<PluginDevice>(plugin, adapter, events, observer, &sent);
  dut->create(adapter_json);
  return std::make_unique<WireOnlyDevice>(make_model_device(adapter), std::move(dut));
}

void listen_wire_only_device(Device& device, model::Link& link) {
  static_cast<WireOnlyDevice&>(device).dut().listen(link);
}

std::unique_ptr<Device> make_plugin_device(const DutPlugin& plugin, const std::string& adapter_json,
                                           model::Adapter& port, sim::EventQueue& events,
                                           trace::Observer& observer) {
  auto d = std::make_unique<PluginDevice>(plugin, port, events, observer);
  d->create(adapter_json);
  return d;
}

void attach_plugin_device(Device& device, model::Link& link) {
  static_cast<PluginDevice&>(device).attach(link);
}

}  // namespace rocecert::conformance
