// The Player (player.h): a vector's verbs steps on real devices, with the name map from the
// vector's names to the devices' handles, keys, QP numbers and addresses.
#include "rocecert/verbs/player.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "device.h"
#include "event_log.h"
#include "expect.h"
#include "host_memory.h"
#include "names.h"
#include "rocecert/qp/timers.h"

namespace rocecert::verbs {

namespace {

using conformance::KeyRef;
using conformance::kNoObj;
using conformance::NamedObject;
using conformance::ObjectKind;
using conformance::ObjId;
using conformance::QpnRef;
using conformance::SgeSpec;
using conformance::Step;

// What a vector object became on its device.
struct ObjState {
  bool created = false;
  Mapped mapped;
  ObjId bound_mr = kNoObj;           // MW: the region its last bind placed it in
  std::optional<qp::QpState> state;  // QP: the state last logged
};

class Play {
 public:
  Play(const conformance::Scenario& sc, const std::vector<Verbs*>& devices,
       const PlayOptions& options)
      : sc_(sc), devices_(devices), options_(options), objs_(sc.objects.size()) {
    for (const conformance::AdapterSpec& a : sc.adapters) {
      const auto it = options.hosts.find(a.config.name);
      hosts_.push_back(it != options.hosts.end() ? it->second : host_of(a.config.gid));
      ports_.push_back(PortInfo{});
    }
    for (std::size_t i = 0; i < devices_.size(); ++i) ports_[i] = devices_[i]->port();
  }

  PlayResult run() {
    if (!place_memory()) return std::move(result_);
    for (const Step& s : sc_.steps) {
      std::visit([&](const auto& b) { exec(s, b); }, s.body);
      if (!result_.unsupported.empty()) return std::move(result_);
    }
    settle(0, true);
    log_qp_states();
    for (const ObjState& o : objs_)
      if (o.created) result_.names.push_back(o.mapped);
    std::sort(result_.names.begin(), result_.names.end(), [](const Mapped& a, const Mapped& b) {
      return a.adapter != b.adapter ? a.adapter < b.adapter : a.name < b.name;
    });
    result_.events = std::move(log_.lines());
    return std::move(result_);
  }

 private:
  // --- helpers ---------------------------------------------------------------------------------

  void error(const Step& s, const std::string& message) {
    result_.errors.push_back(fmt::format("{}: {}: {}: {}", sc_.file, s.path, s.op, message));
  }

  std::size_t adapter_of(ObjId id) const { return sc_.object(id).adapter_index; }
  Verbs& device_of(ObjId id) { return *devices_.at(adapter_of(id)); }
  const std::string& host_of_obj(ObjId id) const { return hosts_.at(adapter_of(id)); }
  std::uint64_t now(std::size_t adapter) { return devices_.at(adapter)->now_ns(); }

  // True when the object exists on its device; otherwise the step is skipped with an error that
  // names the step that should have made it.
  bool need(ObjId id, const Step& s) {
    if (objs_.at(id).created) return true;
    const NamedObject& o = sc_.object(id);
    error(s, fmt::format("skipped: {} \"{}\" does not exist (its {} at {} failed)",
                         conformance::to_string(o.kind), o.name, creator(o.kind),
                         o.step < sc_.steps.size() ? sc_.steps[o.step].path : "?"));
    return false;
  }
  static std::string_view creator(ObjectKind k) {
    switch (k) {
      case ObjectKind::PD:
        return "alloc_pd";
      case ObjectKind::MR:
        return "reg_mr";
      case ObjectKind::MW:
        return "alloc_mw";
      case ObjectKind::CQ:
        return "create_cq";
      case ObjectKind::QP:
        return "create_qp";
      case ObjectKind::SRQ:
        return "create_srq";
      case ObjectKind::ADAPTER:
        break;
    }
    return "creation";
  }

  // What a created object is called on its device, before the step fills in the rest.
  static Mapped handle(std::uint32_t h) {
    Mapped m;
    m.handle = h;
    return m;
  }

  void number(const Step& s, DutNumber::Kind kind, std::uint64_t value) {
    result_.numbers.push_back(
        DutNumber{static_cast<std::size_t>(&s - sc_.steps.data()), kind, value});
  }

  void created(ObjId id, Mapped m) {
    const NamedObject& o = sc_.object(id);
    m.adapter = sc_.adapters.at(o.adapter_index).config.name;
    m.name = o.name;
    m.kind = o.kind;
    objs_[id].created = true;
    objs_[id].mapped = std::move(m);
  }

  // A verb's errno against what the vector expects of it (IBA Vol. 1 §11.2: a refused verb
  // returns an error and changes nothing). Devices answer errno values only, so an expected
  // refusal is held to its errno, as with a plugin (docs/dut.md, "Errors").
  template <typename E>
  void check(const Step& s, std::optional<E> expected, int got, conformance::names::Table<E> t) {
    ++result_.verbs;
    const int want = expected ? errno_value(*expected) : 0;
    if (got == want) return;
    if (!expected) {
      error(s, fmt::format("expected success, got {}", conformance::errno_name(got)));
      return;
    }
    error(s, fmt::format("expected {} ({}), got {}", conformance::names::name_of(t, *expected),
                         conformance::errno_name(want), conformance::errno_name(got)));
  }
  void check_ok(const Step& s, int got) {
    ++result_.verbs;
    if (got != 0) error(s, fmt::format("expected success, got {}", conformance::errno_name(got)));
  }

  // --- names to numbers --------------------------------------------------------------------------

  // A vector address in region `mr`'s key space, in the device's: the same offset from the
  // region's start (the vector's iova, the device's iova).
  std::uint64_t translate(ObjId mr, std::uint64_t addr) const {
    if (mr == kNoObj || !objs_[mr].created) return addr;
    return objs_[mr].mapped.iova + (addr - sc_.object(mr).mr_iova);
  }

  // The region a key's addresses are in: an MR's own, a window's last bind's.
  ObjId region_of(const KeyRef& k) const {
    if (k.object == kNoObj) return kNoObj;
    return sc_.object(k.object).kind == ObjectKind::MW ? objs_[k.object].bound_mr : k.object;
  }

  bool key(const KeyRef& k, bool remote, const Step& s, std::uint32_t& out) {
    if (k.object == kNoObj) {
      out = k.value;  // a literal: a key the vector made up on purpose
      return true;
    }
    if (!need(k.object, s)) return false;
    ObjState& o = objs_[k.object];
    if (sc_.object(k.object).kind == ObjectKind::MW) {
      o.mapped.rkey = device_of(k.object).mw_rkey(o.mapped.handle);
      out = o.mapped.rkey;
    } else {
      out = remote ? o.mapped.rkey : o.mapped.lkey;
    }
    return true;
  }

  bool qpn(const QpnRef& q, const Step& s, std::uint32_t& out) {
    if (q.qp == kNoObj) {
      out = q.value;
      return true;
    }
    if (!need(q.qp, s)) return false;
    out = objs_[q.qp].mapped.handle;
    return true;
  }

  bool sges(const std::vector<SgeSpec>& in, const Step& s, std::vector<Sge>& out) {
    for (const SgeSpec& e : in) {
      Sge g{translate(e.lkey.object, e.addr), e.length, 0};
      if (!key(e.lkey, false, s, g.lkey)) return false;
      out.push_back(g);
    }
    return true;
  }

  // The vector's address vector on `adapter`'s device: an adapter's GID is its device's GID,
  // GID index 0 and port 1 are the device's port (the vector's adapters have one port and one
  // GID each). Other values pass as written: a vector that names a port or GID on purpose.
  qp::AddressVector address(const qp::AddressVector& in, std::size_t adapter) const {
    qp::AddressVector av = in;
    for (std::size_t i = 0; i < sc_.adapters.size(); ++i)
      if (in.dgid == sc_.adapters[i].config.gid) av.dgid = ports_[i].gid;
    if (in.sgid_index == 0) av.sgid_index = ports_[adapter].gid_index;
    return av;
  }

  // --- memory ----------------------------------------------------------------------------------

  bool place_memory() {
    std::vector<HostMemory>& mem = memory_;
    mem.resize(sc_.adapters.size());
    // A region the vector expects to be refused gets no memory: its registration tests the
    // refusal, and may name more than the host has.
    for (const Step& s : sc_.steps)
      if (const auto* r = std::get_if<conformance::RegMrStep>(&s.body); r && !r->expect_error)
        mem[adapter_of(r->mr)].plan(r->addr, r->length);
    for (std::size_t i = 0; i < mem.size(); ++i) {
      std::pair<std::uint64_t, std::uint64_t> failed;
      if (!mem[i].allocate(*devices_[i], failed)) {
        result_.errors.push_back(fmt::format(
            "{}: adapter {}: cannot allocate {} bytes of host memory for the range at {:#x}",
            sc_.file, sc_.adapters[i].config.name, failed.second, failed.first));
        return false;
      }
    }
    return true;
  }

  // --- steps -------------------------------------------------------------------------------------

  void exec(const Step& s, const conformance::AllocPdStep& b) {
    const Made r = device_of(b.pd).alloc_pd();
    check_ok(s, r.err);
    if (r.ok()) created(b.pd, handle(r.handle));
  }

  void exec(const Step& s, const conformance::RegMrStep& b) {
    if (!need(b.pd, s)) return;
    Verbs& d = device_of(b.mr);
    const std::uint64_t host = memory_[adapter_of(b.mr)].host(b.addr).value_or(b.addr);
    for (const conformance::MemoryPiece& p : b.contents) {
      const std::optional<std::uint64_t> at = memory_[adapter_of(b.mr)].host(b.addr + p.offset);
      if (at) d.write_memory(*at, p.bytes);
    }
    // The FLUSH access flags (IBA 1.5 FLUSH, IBV_ACCESS_FLUSH_*) exist only on devices that
    // support FLUSH; Linux before 6.2 refuses them with EINVAL. A vector that sends a FLUSH is
    // gated UNSUPPORTED on such a device (gate.cpp), so for every other one they cannot matter.
    mem::Access access = b.access;
    if (!d.query_device().flush)
      access = static_cast<mem::Access>(static_cast<std::uint32_t>(access) &
                                        ~static_cast<std::uint32_t>(mem::Access::FLUSH_GLOBAL) &
                                        ~static_cast<std::uint32_t>(mem::Access::FLUSH_PERSISTENT));
    const MadeMr r = d.reg_mr(objs_[b.pd].mapped.handle, host, b.length, access, b.iova);
    check(s, b.expect_error, r.err, conformance::names::mem_errors());
    if (!r.ok()) return;
    Mapped m = handle(r.handle);
    m.lkey = r.lkey;
    m.rkey = r.rkey;
    m.host_addr = host;
    m.iova = r.iova;
    created(b.mr, std::move(m));
    number(s, DutNumber::Kind::RKEY, r.rkey);
    number(s, DutNumber::Kind::IOVA, r.iova);
    log_.key(host_of_obj(b.mr), now(adapter_of(b.mr)), r.rkey, "register");
  }

  void exec(const Step& s, const conformance::DeregMrStep& b) {
    if (!need(b.mr, s)) return;
    const int e = device_of(b.mr).dereg_mr(objs_[b.mr].mapped.handle);
    check(s, b.expect_error, e, conformance::names::mem_errors());
    // The name keeps its keys: a later work request naming it carries the stale key, which is
    // how a vector tests that a deregistered key is refused (scenario.h, DeregMrStep).
    if (e == 0)
      log_.key(host_of_obj(b.mr), now(adapter_of(b.mr)), objs_[b.mr].mapped.rkey, "deregister");
  }

  void exec(const Step& s, const conformance::AllocMwStep& b) {
    if (!need(b.pd, s)) return;
    const MadeMw r = device_of(b.mw).alloc_mw(objs_[b.pd].mapped.handle, b.type);
    check(s, b.expect_error, r.err, conformance::names::mem_errors());
    if (!r.ok()) return;
    Mapped m = handle(r.handle);
    m.rkey = r.rkey;
    created(b.mw, std::move(m));
  }

  void exec(const Step& s, const conformance::CreateCqStep& b) {
    const Made r = device_of(b.cq).create_cq(b.cqe);
    check_ok(s, r.err);
    if (!r.ok()) return;
    created(b.cq, handle(r.handle));
    // A device may give a CQ more entries than asked (ibv_create_cq(3)); a vector that needs
    // it to overflow (it expects a CQ_ERR of its adapter) cannot have that happen.
    const std::uint32_t size = device_of(b.cq).cq_size(r.handle);
    if (size > b.cqe && expects_cq_error(adapter_of(b.cq)))
      result_.unsupported = fmt::format(
          "{}: {}: CQ \"{}\" got {} entries for the {} asked, and the vector needs it to overflow "
          "(it expects CQ_ERR)",
          sc_.adapters.at(adapter_of(b.cq)).config.name, s.path, sc_.object(b.cq).name, size,
          b.cqe);
  }

  bool expects_cq_error(std::size_t adapter) const {
    for (const Step& s : sc_.steps)
      if (const auto* e = std::get_if<conformance::ExpectStep>(&s.body))
        for (const conformance::AsyncExpect& a : e->async_events)
          if (a.adapter == adapter)
            for (const conformance::AsyncEventExpect& x : a.events)
              if (x.kind == "CQ_ERR") return true;
    return false;
  }

  void exec(const Step& s, const conformance::CreateSrqStep& b) {
    // The loader keeps no PD for an SRQ (scenario.h): the first PD of its adapter serves.
    std::uint32_t pd = 0;
    for (std::size_t i = 0; i < sc_.objects.size(); ++i)
      if (sc_.objects[i].kind == ObjectKind::PD && objs_[i].created &&
          adapter_of(static_cast<ObjId>(i)) == adapter_of(b.srq)) {
        pd = objs_[i].mapped.handle;
        break;
      }
    const Made r = device_of(b.srq).create_srq(pd, b.max_wr, b.max_sge);
    check_ok(s, r.err);
    if (r.ok()) created(b.srq, handle(r.handle));
  }

  void exec(const Step& s, const conformance::CreateQpStep& b) {
    if (!need(b.pd, s) || !need(b.send_cq, s) || !need(b.recv_cq, s)) return;
    QpInit init;
    init.type = b.type;
    init.pd = objs_[b.pd].mapped.handle;
    init.send_cq = objs_[b.send_cq].mapped.handle;
    init.recv_cq = objs_[b.recv_cq].mapped.handle;
    init.caps = b.caps;
    init.sq_sig_all = b.sq_sig_all;
    if (b.srq != kNoObj) {
      if (!need(b.srq, s)) return;
      init.srq = objs_[b.srq].mapped.handle;
    }
    const Made r = device_of(b.qp).create_qp(init);
    check(s, b.expect_error, r.err, conformance::names::modify_errors());
    if (!r.ok()) return;
    created(b.qp, handle(r.handle));
    number(s, DutNumber::Kind::QPN, r.handle);
    objs_[b.qp].state = qp::QpState::RESET;  // a new QP is in RESET (IBA Vol. 1 §10.3.1)
  }

  void exec(const Step& s, const conformance::ModifyQpStep& b) {
    if (!need(b.qp, s)) return;
    qp::QpAttr attr = b.attr;
    // RTR's remote QP number is the peer's real one (IBA Vol. 1 §10.3.1, RTR needs the
    // destination QP).
    if (!qpn(b.dest_qpn, s, attr.dest_qp_num)) return;
    const std::size_t a = adapter_of(b.qp);
    if (b.mask.has(qp::AttrBit::AV)) attr.ah_attr = address(b.attr.ah_attr, a);
    if (b.mask.has(qp::AttrBit::PORT) && b.attr.port_num == 1) attr.port_num = ports_[a].port_num;
    const int e = device_of(b.qp).modify_qp(objs_[b.qp].mapped.handle, attr, b.mask);
    check(s, b.expect_error, e, conformance::names::modify_errors());
    if (e != 0) return;
    Mapped& m = objs_[b.qp].mapped;
    if (b.mask.has(qp::AttrBit::SQ_PSN)) m.sq_psn = attr.sq_psn;
    if (b.mask.has(qp::AttrBit::RQ_PSN)) m.rq_psn = attr.rq_psn;
    if (b.mask.has(qp::AttrBit::STATE)) log_state(b.qp, attr.qp_state);
  }

  void exec(const Step& s, const conformance::PostRecvStep& b) {
    if (!need(b.qp, s)) return;
    std::vector<Sge> sg;
    if (!sges(b.sg_list, s, sg)) return;
    const int e = device_of(b.qp).post_recv(objs_[b.qp].mapped.handle, b.wr_id, sg);
    check(s, b.expect_error, e, conformance::names::post_errors());
  }

  void exec(const Step& s, const conformance::PostSrqRecvStep& b) {
    if (!need(b.srq, s)) return;
    std::vector<Sge> sg;
    if (!sges(b.sg_list, s, sg)) return;
    const int e = device_of(b.srq).post_srq_recv(objs_[b.srq].mapped.handle, b.wr_id, sg);
    check(s, b.expect_error, e, conformance::names::post_errors());
  }

  void exec(const Step& s, const conformance::ArmSrqLimitStep& b) {
    if (!need(b.srq, s)) return;
    check_ok(s, device_of(b.srq).arm_srq_limit(objs_[b.srq].mapped.handle, b.limit));
  }

  void exec(const Step& s, const conformance::PostSendStep& b) {
    if (!need(b.qp, s)) return;
    tx::SendWr wr = b.wr;
    std::vector<Sge> sg;
    if (!sges(b.sg_list, s, sg)) return;
    // INLINE without inline_data: the device copies the SGEs' bytes at post time, from the
    // translated addresses (ibv_post_send(3), IBV_SEND_INLINE).
    const bool local_inv = wr.opcode == tx::WrOpcode::LOCAL_INV;
    if (!key(b.rkey, true, s, wr.rkey) ||
        !key(b.invalidate_rkey, !local_inv, s, wr.invalidate_rkey) ||
        !key(b.bind_mr, false, s, wr.bind_mr_lkey) || !qpn(b.remote_qpn, s, wr.remote_qpn))
      return;
    wr.remote_addr = translate(region_of(b.rkey), b.wr.remote_addr);
    if (wr.opcode == tx::WrOpcode::BIND_MW) {
      // The window by its handle (verbs.h); its region's addresses are the device's.
      if (b.bind_mw.object == kNoObj) {
        wr.bind_mw_handle = b.bind_mw.value;
      } else {
        if (!need(b.bind_mw.object, s)) return;
        wr.bind_mw_handle = objs_[b.bind_mw.object].mapped.handle;
      }
      wr.bind_addr = translate(b.bind_mr.object, b.wr.bind_addr);
    }
    std::optional<qp::AddressVector> ah;
    if (b.ah) ah = address(*b.ah, adapter_of(b.qp));
    Verbs& d = device_of(b.qp);
    const int e = d.post_send(objs_[b.qp].mapped.handle, wr, sg, ah);
    check(s, b.expect_error, e, conformance::names::post_errors());
    if (e != 0) return;
    const std::uint64_t t = now(adapter_of(b.qp));
    if (wr.opcode == tx::WrOpcode::BIND_MW && b.bind_mw.object != kNoObj) {
      // A bind gives the window a new rkey, for the region it now covers (IBA Vol. 1 §10.6).
      ObjState& mw = objs_[b.bind_mw.object];
      mw.bound_mr = b.bind_mr.object;
      mw.mapped.rkey = d.mw_rkey(mw.mapped.handle);
      number(s, DutNumber::Kind::BIND_RKEY, mw.mapped.rkey);
      number(s, DutNumber::Kind::BIND_ADDR, wr.bind_addr);
      log_.key(host_of_obj(b.qp), t, mw.mapped.rkey, "bind");
    }
    if (local_inv) {
      // The log names keys by rkey: an MR invalidated by its lkey is logged with its rkey.
      const ObjId inv = b.invalidate_rkey.object;
      const bool mr = inv != kNoObj && sc_.object(inv).kind == ObjectKind::MR;
      log_.key(host_of_obj(b.qp), t, mr ? objs_[inv].mapped.rkey : wr.invalidate_rkey,
               "invalidate");
    }
  }

  void exec(const Step& s, const conformance::RunStep& b) {
    // Simulated time means nothing to a real device: a run is polls until nothing happens any
    // more, at least as long as the vector asks (for_ns) when it asks.
    settle(b.for_ns, b.poll);
    (void)s;
  }

  void exec(const Step& s, const conformance::ExpectStep& b) {
    poll_all();
    take_async_events();
    // A QP state the vector expects is read back from the device, and logged when it moved.
    for (const conformance::QpStateExpect& q : b.qp_states) {
      if (!need(q.qp, s)) continue;
      ++result_.verbs;
      const auto st = device_of(q.qp).query_qp_state(objs_[q.qp].mapped.handle);
      if (!st) {
        error(s, fmt::format("query_qp_state of QP \"{}\" failed", sc_.object(q.qp).name));
        continue;
      }
      log_state(q.qp, *st);
      if (options_.check_expectations && *st != q.state)
        expected(fmt::format("{}: expected {}, got {}", q.path, qp::to_string(q.state),
                             qp::to_string(*st)));
    }
    if (!options_.check_expectations) return;
    const NumberOf number = [this](ObjId id) -> std::optional<std::uint32_t> {
      if (!objs_.at(id).created) return std::nullopt;
      return objs_[id].mapped.handle;
    };
    // Completions and events are compared with what came since the previous expect step.
    for (const conformance::CqExpect& e : b.completions) {
      for (const std::string& d : compare_completions(e, pending_[e.cq], sc_, number)) expected(d);
      pending_[e.cq].clear();
    }
    for (const conformance::AsyncExpect& e : b.async_events) {
      for (const std::string& d : compare_async_events(e, async_[e.adapter], sc_, number))
        expected(d);
      async_[e.adapter].clear();
    }
    // Memory is read back from the host, where the device wrote it.
    for (const conformance::MemoryExpect& m : b.memory) {
      const std::optional<std::uint64_t> host = memory_[m.adapter].host(m.addr);
      if (!host) {
        expected(fmt::format("{}: {:#x} is in no region of adapter {}", m.path, m.addr,
                             sc_.adapters[m.adapter].config.name));
        continue;
      }
      const std::string d =
          compare_memory(m, devices_[m.adapter]->read_memory(*host, m.bytes.size()));
      if (!d.empty()) expected(d);
    }
  }

  void expected(const std::string& difference) {
    result_.errors.push_back(fmt::format("{}: {}", sc_.file, difference));
  }

  // Filtered out by gate(); reaching one is a caller that did not gate.
  void exec(const Step& s, const conformance::InjectStep&) {
    error(s, "skipped: verbs cannot put forged frames on the wire");
  }

  // --- what the devices report -------------------------------------------------------------------

  void log_state(ObjId qp, qp::QpState st) {
    ObjState& o = objs_[qp];
    if (o.state == st) return;
    o.state = st;
    log_.qp_state(host_of_obj(qp), now(adapter_of(qp)), o.mapped.handle, st);
  }

  // Every created CQ polled empty, in the vector's order; how many completions were found.
  std::size_t poll_all() {
    std::size_t found = 0;
    for (std::size_t i = 0; i < sc_.objects.size(); ++i) {
      if (sc_.objects[i].kind != ObjectKind::CQ || !objs_[i].created) continue;
      const auto id = static_cast<ObjId>(i);
      Verbs& d = device_of(id);
      // Bounded: a device that never runs dry must not hang the run.
      for (int round = 0; round < 4096; ++round) {
        std::vector<cq::Wc> got;
        const int n = d.poll_cq(objs_[i].mapped.handle, 16, got);
        if (n <= 0) break;
        const std::uint64_t t = now(adapter_of(id));
        for (const cq::Wc& wc : got) {
          log_.wc(host_of_obj(id), t, wc);
          pending_[id].push_back(wc);
          // A SEND with invalidate made the rkey it carried invalid here, on the receiver
          // (IBA Vol. 1 §10.6; the completion names it with IBV_WC_WITH_INV).
          if (wc.status == cq::WcStatus::SUCCESS && (wc.wc_flags & cq::kWcWithInv) != 0)
            log_.key(host_of_obj(id), t, wc.imm_data, "invalidate");
        }
        found += got.size();
      }
    }
    return found;
  }

  std::size_t take_async_events() {
    std::size_t found = 0;
    for (std::size_t a = 0; a < devices_.size(); ++a) {
      for (int i = 0; i < 4096; ++i) {
        const std::optional<AsyncEvent> e = devices_[a]->get_async_event();
        if (!e) break;
        ++found;
        std::optional<std::uint32_t> qpn;
        if (errors::event_target(e->type) == errors::EventTarget::QP) qpn = e->element;
        log_.async(hosts_[a], now(a), e->type, qpn);
        async_[a].push_back(*e);
      }
    }
    return found;
  }

  // Polls (when `poll`) and takes events until nothing has happened for quiet_ns_ and at least
  // `at_least` has passed, or max_run_ns has.
  void settle(std::uint64_t at_least, bool poll) {
    if (devices_.empty()) return;
    Verbs& clock = *devices_.front();
    const std::uint64_t start = clock.now_ns();
    std::uint64_t last = start;
    for (;;) {
      const std::size_t n = (poll ? poll_all() : 0) + take_async_events();
      const std::uint64_t t = clock.now_ns();
      if (n > 0) last = t;
      if (t - last >= quiet_ns_ && t - start >= at_least) break;
      if (t - start >= options_.max_run_ns) break;
      clock.pause(options_.poll_pause_ns);
    }
  }

  // At the end: every QP's state as the device has it, logged where it moved (an error moved it
  // to ERR, IBA Vol. 1 §10.3.1).
  void log_qp_states() {
    for (std::size_t i = 0; i < sc_.objects.size(); ++i) {
      if (sc_.objects[i].kind != ObjectKind::QP || !objs_[i].created) continue;
      const auto id = static_cast<ObjId>(i);
      if (const auto st = device_of(id).query_qp_state(objs_[i].mapped.handle)) log_state(id, *st);
    }
  }

  // How long nothing must happen before a `run` is over: settle_ns, or longer than the longest
  // timer the vector gives a QP (a local ACK timeout, an RNR wait: min_rnr_timer 0 is 655 ms,
  // IBA Vol. 1 §9.7.5.2.8), so that a retry the device has pending is seen.
  static std::uint64_t quiet_ns(const conformance::Scenario& sc, const PlayOptions& o) {
    std::uint64_t longest = 0;
    for (const Step& s : sc.steps)
      if (const auto* m = std::get_if<conformance::ModifyQpStep>(&s.body)) {
        if (m->mask.has(qp::AttrBit::TIMEOUT) && m->attr.timeout != 0)
          longest = std::max<std::uint64_t>(longest, qp::local_ack_timeout_ns(m->attr.timeout));
        if (m->mask.has(qp::AttrBit::MIN_RNR_TIMER))
          longest = std::max<std::uint64_t>(longest, qp::rnr_timer_ns(m->attr.min_rnr_timer));
      }
    return std::clamp<std::uint64_t>(longest + longest / 4, o.settle_ns,
                                     std::max(o.settle_ns, o.max_run_ns / 2));
  }

  const conformance::Scenario& sc_;
  const std::vector<Verbs*>& devices_;
  const PlayOptions& options_;
  const std::uint64_t quiet_ns_ = quiet_ns(sc_, options_);
  std::vector<ObjState> objs_;
  std::vector<std::string> hosts_;  // per adapter
  std::vector<PortInfo> ports_;     // per adapter
  std::vector<HostMemory> memory_;  // per adapter
  EventLog log_;
  std::map<ObjId, std::vector<cq::Wc>> pending_;  // per CQ: polled since the last expect step
  std::map<std::size_t, std::vector<AsyncEvent>> async_;  // per adapter, likewise
  PlayResult result_;
};

}  // namespace

Player::Player(const conformance::Scenario& sc, std::map<std::string, Verbs*> devices,
               PlayOptions options)
    : sc_(sc), options_(std::move(options)) {
  for (const conformance::AdapterSpec& a : sc.adapters) {
    const auto it = devices.find(a.config.name);
    if (it == devices.end() || it->second == nullptr)
      throw PlayError(fmt::format("{}: {}: adapter \"{}\" has no device to play it", sc.file,
                                  a.path, a.config.name));
    devices_.push_back(it->second);
  }
}

PlayResult Player::play() {
  return Play(sc_, devices_, options_).run();
}

std::string events_text(const PlayResult& r) {
  std::string out;
  for (const std::string& line : r.events) out += line + "\n";
  return out;
}

}  // namespace rocecert::verbs
