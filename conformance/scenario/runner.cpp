#include "rocecert/conformance/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

#include "device.h"
#include "names.h"
#include "rocecert/conformance/dut_plugin.h"
#include "rocecert/conformance/frame_rules.h"
#include "rocecert/model/simulation.h"
#include "rocecert/wire/decode.h"

namespace rocecert::conformance {

namespace {

// One asynchronous event as the runner keeps it.
struct SeenAsyncEvent {
  sim::SimTime t = 0;
  errors::AsyncEventType kind = errors::AsyncEventType::NONE;
  std::uint32_t object = 0;
};

// One fault the link injected, for the printed log.
struct SeenFault {
  sim::SimTime t = 0;
  std::uint32_t from_adapter = 0;
  std::string action;
  std::string rule;
  std::string frame;  // "RC_RDMA_WRITE_MIDDLE QP=0x12 PSN=101"
};

// A transmitted frame as "frames" expectations compare it.
struct SentFrame {
  std::uint32_t adapter = 0;  // adapter id
  std::uint8_t opcode = 0;
  std::uint32_t dqpn = 0, psn = 0;
  bool ackreq = false;
  std::optional<std::uint8_t> syndrome;
  std::uint32_t msn = 0, payload_len = 0;
  std::optional<std::uint32_t> dmalen;
};

// The fields of a frame that expectations compare; `parsed` when the sender decoded it already.
SentFrame sent_frame(std::uint32_t adapter, wire::ByteSpan bytes, const wire::ParsedFrame* parsed) {
  wire::ParsedFrame local;
  if (parsed == nullptr) {
    wire::DecodeOptions opts;
    opts.verify_icrc = false;
    local = wire::decode(bytes, opts);
  }
  const wire::ParsedFrame& p = parsed != nullptr ? *parsed : local;
  SentFrame f;
  f.adapter = adapter;
  if (p.has_bth && !p.has_error) {
    f.opcode = p.bth.opcode;
    f.dqpn = p.bth.dqpn;
    f.psn = p.bth.psn;
    f.ackreq = p.bth.ackreq;
    f.payload_len = p.payload_len;
    if (p.has(wire::Header::Aeth)) {
      f.syndrome = p.aeth.syndrome;
      f.msn = p.aeth.msn;
    }
    if (p.has(wire::Header::Reth)) f.dmalen = p.reth.dmalen;
  }
  return f;
}

// Counts transmitted frames, remembers when each completion entered its CQ (CQs are FIFO, so
// the n-th completion polled from a CQ is the n-th one pushed), and keeps the asynchronous
// events and the injected faults.
class RunObserver final : public trace::Observer {
 public:
  bool needs_decoded_frames() const override { return record_frames; }
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir != trace::Direction::TX) return;
    ++frames;
    if (!record_frames) return;
    sent.push_back(sent_frame(e.adapter, e.bytes, e.parsed));
  }
  void on_cqe(const trace::CqeEvent& e) override { cqe_times[{e.adapter, e.cq}].push_back(e.t); }
  void on_async_event(const trace::AsyncEvent& e) override {
    async[e.adapter].push_back({e.t, e.kind, e.object});
    async_log.emplace_back(e.adapter, async[e.adapter].back());
  }
  void on_fault(const trace::FaultEvent& e) override {
    ++fault_count;
    if (faults_kept >= kMaxFaultsKept) return;
    ++faults_kept;
    SeenFault f{e.t, e.from_adapter, std::string(e.action), std::string(e.rule), ""};
    wire::DecodeOptions opts;
    opts.verify_icrc = false;
    const wire::ParsedFrame p = wire::decode(e.bytes, opts);
    if (!p.has_error && p.roce && p.has_bth && p.op != nullptr) {
      f.frame = fmt::format("{} QP={:#x} PSN={}", p.op->name, p.bth.dqpn, p.bth.psn);
    } else {
      f.frame = fmt::format("a frame of {} bytes", e.bytes.size());
    }
    faults.push_back(std::move(f));
  }
  void on_rate(const trace::RateEvent& e) override {
    if (rates_kept >= kMaxFaultsKept) return;
    ++rates_kept;
    rates.push_back(e);
    rates.back().cause = {};  // a view into the model's static string; not needed in the row
  }
  // When the oldest unpolled completion of (adapter, cq) was queued; `fallback` if unknown.
  sim::SimTime take(std::uint32_t adapter, std::uint32_t cq, sim::SimTime fallback) {
    auto it = cqe_times.find({adapter, cq});
    if (it == cqe_times.end() || it->second.empty()) return fallback;
    const sim::SimTime t = it->second.front();
    it->second.pop_front();
    return t;
  }
  static constexpr std::size_t kMaxFaultsKept = 1000;
  std::uint64_t frames = 0;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::deque<sim::SimTime>> cqe_times;
  std::map<std::uint32_t, std::vector<SeenAsyncEvent>> async;       // per adapter id, in order
  std::vector<std::pair<std::uint32_t, SeenAsyncEvent>> async_log;  // not yet printed
  std::uint64_t fault_count = 0;
  std::uint64_t faults_kept = 0;  // at most kMaxFaultsKept per run
  std::vector<SeenFault> faults;  // kept and not yet printed
  bool record_frames = false;     // some expect step has "frames"
  std::vector<SentFrame> sent;    // every transmitted frame, when recording
  std::uint64_t rates_kept = 0;
  std::vector<trace::RateEvent> rates;  // reaction-point rate cuts not yet printed
};

std::string hex_bytes(const std::vector<std::uint8_t>& b, std::size_t from, std::size_t max) {
  std::string s;
  for (std::size_t i = from; i < b.size() && i < from + max; ++i) s += fmt::format("{:02x}", b[i]);
  if (b.size() > from + max) s += "...";
  return s;
}

std::string flag_names(std::uint32_t flags) {
  if (flags == 0) return "none";
  std::string s;
  for (const auto& f : names::wc_flags()) {
    if ((flags & f.value) == 0) continue;
    if (!s.empty()) s += "|";
    s += f.name;
    flags &= ~static_cast<std::uint32_t>(f.value);
  }
  if (flags != 0) s += fmt::format("{}{:#x}", s.empty() ? "" : "|", flags);
  return s;
}

std::string duration(sim::SimTime ns) {
  if (ns < 10'000) return fmt::format("{} ns", ns);
  if (ns < 10'000'000) return fmt::format("{:.1f} us", static_cast<double>(ns) / 1e3);
  return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6);
}

// What a scenario object became in the model.
struct ObjState {
  bool created = false;
  mem::Pd pd{};
  mem::MrKeys mr{};
  mem::MwKeys mw{};
  qp::CqId cq;
  qp::Qpn qpn{};
  qp::SrqId srq;
};

class Runner {
 public:
  Runner(const Scenario& sc, const RunOptions& opt)
      : sc_(sc), opt_(opt), objs_(sc.objects.size()) {}

  RunResult run() {
    for (const Step& s : sc_.steps)
      if (const auto* e = std::get_if<ExpectStep>(&s.body); e != nullptr && e->frames)
        counter_.record_frames = true;
    if (opt_.dut != nullptr && opt_.wire_only) counter_.record_frames = true;
    for (trace::Observer* o : opt_.observers) sim_.observers().add(o);
    sim_.observers().add(&counter_);  // after record_frames: it says whether frames are decoded
    for (std::size_t i = 0; i < sc_.adapters.size(); ++i) {
      model::AdapterConfig c = sc_.adapters[i].config;
      c.seed = adapter_seed(opt_.seed, i);  // the adapter derives its key seed from it
      model::Adapter& a = sim_.add_adapter(c);
      adapters_.push_back(&a);
      // A plugin plays the adapter --dut-as names: the model adapter then only lends the link
      // end its identity (device.h).
      if (plays(i) && opt_.wire_only) {
        devices_.push_back(make_wire_only_device(*opt_.dut, sc_.adapters[i].json, a, sim_.events(),
                                                 sim_.observers(), dut_sent_));
      } else if (plays(i)) {
        devices_.push_back(make_plugin_device(*opt_.dut, sc_.adapters[i].json, a, sim_.events(),
                                              sim_.observers()));
      } else {
        devices_.push_back(make_model_device(a));
      }
      objs_[sc_.adapters[i].object].created = true;
    }
    for (const LinkSpec& l : sc_.links) {
      links_.push_back(
          &sim_.connect(*adapters_[l.a], *adapters_[l.b], l.latency_ns, l.gbps,
                        l.install_after_step == SIZE_MAX ? l.faults : model::FaultPlan{}));
      for (const std::size_t end : {l.a, l.b}) {
        if (!plays(end)) continue;
        if (opt_.wire_only) {
          listen_wire_only_device(*devices_[end], *links_.back());
        } else {
          attach_plugin_device(*devices_[end], *links_.back());
        }
      }
    }
    if (opt_.out && !opt_.quiet && !sc_.description.empty())
      fmt::print(opt_.out, "{}: {}\n", sc_.file, sc_.description);
    try {
      for (std::size_t i = 0; i < sc_.steps.size(); ++i) {
        const Step& s = sc_.steps[i];
        std::visit([&](const auto& body) { exec(s, body); }, s.body);
        for (const auto& d : devices_)
          for (const std::string& diff : d->take_differences()) fail(s.path, "device: " + diff);
        install_faults_after(i);
      }
      poll_all();
      if (opt_.dut != nullptr && opt_.wire_only) compare_wire();
    } catch (const DeviceUnsupported& e) {
      result_.unsupported = e.what();
    }
    result_.end_time = sim_.events().now();
    verdict();
    return std::move(result_);
  }

 private:
  // --- helpers -------------------------------------------------------------------------------

  void fail(const std::string& path, std::string message) {
    result_.failures.push_back({path, std::move(message)});
  }

  Device& device_of(ObjId id) { return *devices_.at(sc_.objects.at(id).adapter_index); }

  bool plays(std::size_t adapter) const {
    return opt_.dut != nullptr && sc_.adapters[adapter].config.name == opt_.dut_as;
  }

  // A link whose fault rules name QPs gets its plan once the last of them exists: the rules'
  // DestQP is then that QP's number.
  void install_faults_after(std::size_t step) {
    for (std::size_t i = 0; i < sc_.links.size(); ++i) {
      const LinkSpec& l = sc_.links[i];
      if (l.install_after_step != step) continue;
      model::FaultPlan plan = l.faults;
      bool ok = true;
      for (const RuleQpRef& r : l.rule_qps) {
        if (!objs_[r.qp].created) {
          fail(r.path, fmt::format("the link's faults are not installed: QP \"{}\" does not exist",
                                   sc_.objects[r.qp].name));
          ok = false;
          continue;
        }
        plan.rules.at(r.rule).match.dest_qp = objs_[r.qp].qpn.value();
      }
      if (ok) links_[i]->set_faults(std::move(plan));
    }
  }

  // True when the object exists; otherwise the step is skipped with a failure naming why.
  bool need(ObjId id, const Step& s) {
    if (objs_.at(id).created) return true;
    const NamedObject& o = sc_.objects[id];
    fail(s.path, fmt::format("{} skipped: {} \"{}\" does not exist ({} at {} failed)", s.op,
                             to_string(o.kind), o.name,
                             o.kind == ObjectKind::QP   ? "create_qp"
                             : o.kind == ObjectKind::CQ ? "create_cq"
                                                        : "its creation",
                             sc_.steps.at(o.step).path));
    return false;
  }

  bool resolve(const KeyRef& k, bool remote, const Step& s, std::uint32_t& out) {
    if (k.object == kNoObj) {
      out = k.value;
      return true;
    }
    if (!need(k.object, s)) return false;
    const ObjState& o = objs_[k.object];
    if (sc_.objects[k.object].kind == ObjectKind::MW) {
      // The window's current rkey: a BIND_MW gives it a new one (rxe_do_bind_mw; docs/spec-notes.md
      // §7.4), so the key it was allocated with is stale after a bind.
      out = device_of(k.object).mw_rkey(o.mw);
    } else {
      out = remote ? o.mr.rkey.value() : o.mr.lkey.value();
    }
    return true;
  }

  bool resolve(const QpnRef& q, const Step& s, std::uint32_t& out) {
    if (q.qp == kNoObj) {
      out = q.value;
      return true;
    }
    if (!need(q.qp, s)) return false;
    out = objs_[q.qp].qpn.value();
    return true;
  }

  bool resolve(const std::vector<SgeSpec>& in, const Step& s, std::vector<tx::Sge>& out) {
    for (const SgeSpec& e : in) {
      tx::Sge sge{e.addr, e.length, 0};
      if (!resolve(e.lkey, false, s, sge.lkey)) return false;
      out.push_back(sge);
    }
    return true;
  }

  // A device that answers errno values only (a plugin) is held to the errno of the expected
  // error: EINVAL for INVALID_STATE passes on any EINVAL.
  template <typename E>
  void check_result(const Step& s, const Device& d, std::optional<E> expected, E got,
                    names::Table<E> table, std::string_view detail = {}) {
    if (expected) ++result_.checks;
    const E want = expected.value_or(E{});
    if (!d.exact_errors()) {
      const int want_errno = errno_value(want);
      if (d.last_errno() == want_errno) return;
      fail(s.path, fmt::format("{}: expected {} ({}), got {}", s.op, names::name_of(table, want),
                               errno_name(want_errno), errno_name(d.last_errno())));
      return;
    }
    if (got == want) return;
    fail(s.path, fmt::format("{}: expected {}, got {}{}", s.op, names::name_of(table, want),
                             names::name_of(table, got), detail));
  }

  // --- steps ---------------------------------------------------------------------------------

  void exec(const Step& s, const AllocPdStep& b) {
    Device& d = device_of(b.pd);
    const mem::Result<mem::Pd> r = d.alloc_pd();
    check_result(s, d, std::optional<mem::MemErrc>{}, r.error, names::mem_errors());
    if (r.ok()) {
      objs_[b.pd].pd = r.value;
      objs_[b.pd].created = true;
    }
  }

  void exec(const Step& s, const RegMrStep& b) {
    if (!need(b.pd, s)) return;
    Device& a = device_of(b.mr);
    for (const MemoryPiece& p : b.contents) {
      if (!a.write_memory(b.addr + p.offset, p.bytes))
        fail(s.path, "contents: the range wraps past 2^64");
    }
    mem::MrRegistration reg;
    reg.pd = objs_[b.pd].pd;
    reg.addr = b.addr;
    reg.length = b.length;
    reg.access = b.access;
    reg.iova = b.iova;
    const mem::Result<mem::MrKeys> r = a.reg_mr(reg);
    check_result(s, a, b.expect_error, r.error, names::mem_errors());
    if (r.ok()) {
      objs_[b.mr].mr = r.value;
      objs_[b.mr].created = true;
    }
  }

  void exec(const Step& s, const AllocMwStep& b) {
    if (!need(b.pd, s)) return;
    Device& d = device_of(b.mw);
    const mem::Result<mem::MwKeys> r = d.alloc_mw(objs_[b.pd].pd, b.type);
    check_result(s, d, b.expect_error, r.error, names::mem_errors());
    if (r.ok()) {
      objs_[b.mw].mw = r.value;
      objs_[b.mw].created = true;
    }
  }

  void exec(const Step& s, const DeregMrStep& b) {
    if (!need(b.mr, s)) return;
    Device& d = device_of(b.mr);
    const mem::MemErrc e = d.dereg_mr(objs_[b.mr].mr);
    check_result(s, d, b.expect_error, e, names::mem_errors());
  }

  void exec(const Step&, const CreateCqStep& b) {
    objs_[b.cq].cq = device_of(b.cq).create_cq(b.cqe);
    objs_[b.cq].created = true;
  }

  void exec(const Step& s, const CreateQpStep& b) {
    if (!need(b.pd, s) || !need(b.send_cq, s) || !need(b.recv_cq, s)) return;
    qp::CreateQpParams p;
    p.type = b.type;
    p.pd = qp::PdId{objs_[b.pd].pd.value};
    p.send_cq = objs_[b.send_cq].cq;
    p.recv_cq = objs_[b.recv_cq].cq;
    p.caps = b.caps;
    p.sq_sig_all = b.sq_sig_all;
    if (b.srq != kNoObj) {
      if (!need(b.srq, s)) return;
      p.srq = objs_[b.srq].srq;
    }
    Device& d = device_of(b.qp);
    const qp::CreateResult r = d.create_qp(p);
    check_result(s, d, b.expect_error, r.error, names::modify_errors());
    if (r.ok()) {
      objs_[b.qp].qpn = r.qpn;
      objs_[b.qp].created = true;
      qp_names_[{sc_.objects[b.qp].adapter_index, r.qpn.value()}] = b.qp;
    }
  }

  void exec(const Step&, const CreateSrqStep& b) {
    objs_[b.srq].srq = device_of(b.srq).create_srq(b.max_wr, b.max_sge);
    objs_[b.srq].created = true;
  }

  void exec(const Step& s, const PostSrqRecvStep& b) {
    if (!need(b.srq, s)) return;
    model::RecvWr wr;
    wr.wr_id = b.wr_id;
    if (!resolve(b.sg_list, s, wr.sg_list)) return;
    Device& d = device_of(b.srq);
    const model::PostError e = d.post_srq_recv(objs_[b.srq].srq, wr);
    check_result(s, d, b.expect_error, e, names::post_errors());
  }

  void exec(const Step& s, const ArmSrqLimitStep& b) {
    if (!need(b.srq, s)) return;
    if (!device_of(b.srq).arm_srq_limit(objs_[b.srq].srq, b.limit))
      fail(s.path,
           fmt::format("arm_srq_limit: the model refused limit {} (above max_wr?)", b.limit));
  }

  void exec(const Step& s, const ModifyQpStep& b) {
    if (!need(b.qp, s)) return;
    qp::QpAttr attr = b.attr;
    if (!resolve(b.dest_qpn, s, attr.dest_qp_num)) return;
    Device& d = device_of(b.qp);
    const qp::ModifyResult r = d.modify_qp(objs_[b.qp].qpn, attr, b.mask);
    const std::string detail =
        r.check.attrs.empty() ? "" : fmt::format(" ({})", qp::to_string(r.check.attrs));
    check_result(s, d, b.expect_error, r.check.error, names::modify_errors(), detail);
  }

  void exec(const Step& s, const PostRecvStep& b) {
    if (!need(b.qp, s)) return;
    model::RecvWr wr;
    wr.wr_id = b.wr_id;
    if (!resolve(b.sg_list, s, wr.sg_list)) return;
    Device& d = device_of(b.qp);
    const model::PostError e = d.post_recv(objs_[b.qp].qpn, wr);
    check_result(s, d, b.expect_error, e, names::post_errors());
  }

  void exec(const Step& s, const PostSendStep& b) {
    if (!need(b.qp, s)) return;
    Device& a = device_of(b.qp);
    tx::SendWr wr = b.wr;
    if (!resolve(b.sg_list, s, wr.sg_list)) return;
    if (b.inline_from_sg) {
      // ibv_post_send copies inline data from the SGEs' addresses at post time. An SGE whose
      // lkey names an MR is translated from the MR's iova to its host address.
      for (const SgeSpec& e : b.sg_list) {
        std::uint64_t host = e.addr;
        if (e.lkey.object != kNoObj) {
          const NamedObject& mr = sc_.objects[e.lkey.object];
          host = mr.mr_addr + (e.addr - mr.mr_iova);
        }
        const std::vector<std::uint8_t> bytes = a.read_memory(host, e.length);
        wr.inline_data.insert(wr.inline_data.end(), bytes.begin(), bytes.end());
      }
    }
    const bool local_inv = wr.opcode == tx::WrOpcode::LOCAL_INV;
    if (!resolve(b.rkey, true, s, wr.rkey) ||
        !resolve(b.invalidate_rkey, !local_inv, s, wr.invalidate_rkey) ||
        !resolve(b.bind_mw, true, s, wr.bind_mw_handle) ||
        !resolve(b.bind_mr, false, s, wr.bind_mr_lkey) || !resolve(b.remote_qpn, s, wr.remote_qpn))
      return;
    const model::PostError e = a.post_send(objs_[b.qp].qpn, std::move(wr), b.ah);
    check_result(s, a, b.expect_error, e, names::post_errors());
  }

  // The frame is built now, with the numbers the objects it names have on this run (the
  // device's, when a plugin plays that adapter), and handed to the link as if `from` had sent
  // it: the link's faults, diverts and taps apply as to any frame.
  void exec(const Step& s, const InjectStep& b) {
    wire::FrameSpec f = b.spec;
    if (!resolve(b.dest_qp, s, f.bth.dqpn)) return;
    std::uint32_t rkey = 0;
    if (!resolve(b.rkey, true, s, rkey)) return;
    f.reth.rkey = rkey;
    f.atomiceth.rkey = rkey;
    if (b.va_mr) {
      f.reth.va += sc_.objects[*b.va_mr].mr_iova;
      f.atomiceth.va += sc_.objects[*b.va_mr].mr_iova;
    }
    if (!resolve(b.invalidate_rkey, true, s, f.ieth.rkey)) return;
    if (!resolve(b.src_qp, s, f.deth.srcqp)) return;
    wire::finalize(f);
    std::vector<std::uint8_t> frame = wire::encode(f);
    if (b.bad_icrc)
      for (std::size_t i = frame.size() - wire::kIcrcLen; i < frame.size(); ++i) frame[i] ^= 0xFF;
    if (b.truncate && *b.truncate < frame.size()) frame.resize(*b.truncate);
    const sim::SimTime now = sim_.events().now();
    const std::uint32_t id = adapters_[b.from]->id();
    if (opt_.out && !opt_.quiet) {
      print_header();
      const wire::OpcodeInfo& op = wire::opcode_info(f.bth.opcode);
      fmt::print(opt_.out, "{:>12}  {:<8} inject: {} \u2192 {}: {} QP={:#x} PSN={} ({} bytes)\n",
                 now, sc_.adapters[b.from].config.name, sc_.adapters[b.from].config.name,
                 sc_.adapters[b.to].config.name,
                 op.known ? std::string(op.name) : fmt::format("opcode {:#04x}", f.bth.opcode),
                 f.bth.dqpn, f.bth.psn, frame.size());
    }
    sim_.observers().on_inject({now, id, trace::Direction::TX, frame, nullptr});
    links_[b.link]->transmit(*adapters_[b.from], std::move(frame));
  }

  void exec(const Step& s, const RunStep& b) {
    sim::EventQueue& q = sim_.events();
    const sim::SimTime now = q.now();
    if (b.until_ns != sim::kNever) {
      if (b.until_ns < now) {
        fail(s.path, fmt::format("run: until_ns {} is in the past (simulated time is {} ns)",
                                 b.until_ns, now));
      } else {
        sim_.run_until(b.until_ns);
      }
    } else if (b.for_ns > 0) {
      sim_.run_until(now + b.for_ns);
    } else {
      // Until idle: event by event, so that time stops at the last event.
      const sim::SimTime limit = now + kIdleLimitNs;
      while (!q.empty() && q.next_time() <= limit) q.step();
      if (!q.empty() && opt_.out)
        fmt::print(opt_.out,
                   "note: {}: still busy after {} of simulated time ({} events pending)\n", s.path,
                   duration(kIdleLimitNs), q.pending());
    }
    if (b.poll) {
      poll_all();
    } else {
      print_events();
    }
  }

  void exec(const Step& s, const ExpectStep& b) {
    poll_all();
    if (b.frames) check_frames(s, *b.frames);
    for (const CqExpect& e : b.completions) check_completions(s, e);
    for (const MemoryExpect& m : b.memory) check_memory(m);
    for (const QpStateExpect& q : b.qp_states) check_qp_state(s, q);
    for (const AsyncExpect& a : b.async_events) check_async_events(s, a);
  }

  // --- polling and checks ----------------------------------------------------------------------

  void poll_all() {
    take_device_events();
    print_events();
    for (std::size_t id = 0; id < sc_.objects.size(); ++id) {
      if (sc_.objects[id].kind != ObjectKind::CQ || !objs_[id].created) continue;
      const auto obj = static_cast<ObjId>(id);
      Device& d = device_of(obj);
      const std::uint32_t adapter_id = adapters_[sc_.objects[id].adapter_index]->id();
      for (;;) {
        const std::vector<cq::Wc> got = d.poll_cq(objs_[id].cq, 16);
        if (got.empty()) break;
        for (const cq::Wc& wc : got) {
          const sim::SimTime t = counter_.take(adapter_id, objs_[id].cq.value, sim_.events().now());
          const PolledCompletion pc{t, sc_.objects[id].adapter_index, obj, wc};
          print_row(pc);
          result_.completions.push_back(pc);
          pending_[obj].push_back(wc);
        }
      }
    }
  }

  // Asynchronous events of devices the observer does not hear (plugins), as the observer keeps
  // them, at the time they are collected.
  void take_device_events() {
    for (std::size_t i = 0; i < devices_.size(); ++i)
      for (const auto& [type, element] : devices_[i]->take_async_events())
        counter_.on_async_event({sim_.events().now(), adapters_[i]->id(), type, element});
  }

  // The faults injected and the asynchronous events raised since the last call, one row each
  // (at most RunObserver::kMaxFaultsKept faults per run; the trace has them all).
  void print_events() {
    if (!opt_.out || opt_.quiet) {
      counter_.faults.clear();
      counter_.rates.clear();
      counter_.async_log.clear();
      return;
    }
    // Faults and rate cuts, merged in time order (each list is in time order already).
    std::vector<std::pair<sim::SimTime, std::string>> rows;
    for (const SeenFault& f : counter_.faults) {
      const std::size_t from = adapter_index(f.from_adapter);
      std::string to = "?";
      for (const LinkSpec& l : sc_.links) {
        if (l.a == from) to = sc_.adapters[l.b].config.name;
        if (l.b == from) to = sc_.adapters[l.a].config.name;
      }
      rows.emplace_back(f.t, fmt::format("{:>12}  {:<8} fault: {} {} \u2192 {}: {} [{}]\n", f.t,
                                         sc_.adapters[from].config.name, f.action,
                                         sc_.adapters[from].config.name, to, f.frame, f.rule));
    }
    for (const trace::RateEvent& e : counter_.rates) {
      const std::size_t a = adapter_index(e.adapter);
      rows.emplace_back(
          e.t,
          fmt::format(
              "{:>12}  {:<8} rate: {} cut by a CNP to {:.3f} Gb/s (target {:.3f}, alpha {:.3f})\n",
              e.t, sc_.adapters[a].config.name, qp_label(a, e.qpn), e.rate_gbps, e.target_gbps,
              e.alpha));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& row : rows) {
      print_header();
      fmt::print(opt_.out, "{}", row.second);
    }
    if (counter_.fault_count > RunObserver::kMaxFaultsKept && !faults_capped_) {
      fmt::print(opt_.out, "note: only the first {} faults are listed; --trace records them all\n",
                 RunObserver::kMaxFaultsKept);
      faults_capped_ = true;
    }
    counter_.faults.clear();
    counter_.rates.clear();
    for (const auto& [id, e] : counter_.async_log) {
      const std::size_t a = adapter_index(id);
      print_header();
      fmt::print(opt_.out, "{:>12}  {:<8} async event: {} {}\n", e.t, sc_.adapters[a].config.name,
                 errors::to_string(e.kind), element_label(a, e.kind, e.object));
    }
    counter_.async_log.clear();
  }

  std::size_t adapter_index(std::uint32_t id) const {
    for (std::size_t i = 0; i < adapters_.size(); ++i)
      if (adapters_[i]->id() == id) return i;
    return 0;
  }

  // The scenario name of the QP, CQ or SRQ an asynchronous event names.
  std::string element_label(std::size_t adapter, errors::AsyncEventType type,
                            std::uint32_t value) const {
    ObjectKind k = ObjectKind::QP;
    switch (errors::event_target(type)) {
      case errors::EventTarget::QP:
        return qp_label(adapter, value);
      case errors::EventTarget::CQ:
        k = ObjectKind::CQ;
        break;
      case errors::EventTarget::SRQ:
        k = ObjectKind::SRQ;
        break;
      case errors::EventTarget::NONE:
      case errors::EventTarget::WQ:
      case errors::EventTarget::PORT:
      case errors::EventTarget::DEVICE:
        return fmt::format("{}", value);
    }
    for (std::size_t id = 0; id < sc_.objects.size(); ++id) {
      const NamedObject& o = sc_.objects[id];
      if (o.kind != k || o.adapter_index != adapter || !objs_[id].created) continue;
      if ((k == ObjectKind::CQ ? objs_[id].cq.value : objs_[id].srq.value) == value)
        return fmt::format("{} ({})", o.name, value);
    }
    return fmt::format("{}", value);
  }

  void check_async_events(const Step& s, const AsyncExpect& e) {
    const std::size_t adapter = e.adapter;
    std::vector<SeenAsyncEvent>& got = counter_.async[adapters_[adapter]->id()];
    const std::string& aname = sc_.adapters[adapter].config.name;
    for (std::size_t i = 0; i < e.events.size(); ++i) {
      const AsyncEventExpect& x = e.events[i];
      ++result_.checks;
      if (i >= got.size()) {
        fail(x.path, fmt::format("missing: adapter \"{}\" raised {} asynchronous event{}", aname,
                                 got.size(), got.size() == 1 ? "" : "s"));
        continue;
      }
      const SeenAsyncEvent& g = got[i];
      // The scenario names the event; the loader checked the name against this table.
      errors::AsyncEventType want_kind = errors::AsyncEventType::NONE;
      for (const auto& n : names::async_events())
        if (n.name == x.kind) want_kind = n.value;
      std::vector<std::string> diffs;
      if (g.kind != want_kind)
        diffs.push_back(
            fmt::format("event: expected {}, got {}", x.kind, errors::to_string(g.kind)));
      if (x.element != kNoObj && need(x.element, s)) {
        const ObjState& o = objs_[x.element];
        const ObjectKind k = sc_.objects[x.element].kind;
        const std::uint32_t want = k == ObjectKind::QP   ? o.qpn.value()
                                   : k == ObjectKind::CQ ? o.cq.value
                                                         : o.srq.value;
        if (want != g.object)
          diffs.push_back(fmt::format("element: expected {}, got {}",
                                      element_label(adapter, want_kind, want),
                                      element_label(adapter, g.kind, g.object)));
      }
      if (!diffs.empty()) {
        std::string msg;
        for (const std::string& d : diffs) msg += (msg.empty() ? "" : "; ") + d;
        fail(x.path, msg);
      }
    }
    for (std::size_t i = e.events.size(); i < got.size(); ++i)
      fail(e.path, fmt::format("unexpected asynchronous event #{}: {} {} at {} ns", i,
                               errors::to_string(got[i].kind),
                               element_label(adapter, got[i].kind, got[i].object), got[i].t));
    got.clear();
  }

  std::string qp_label(std::size_t adapter, std::uint32_t qpn) const {
    auto it = qp_names_.find({adapter, qpn});
    if (it == qp_names_.end()) return fmt::format("{:#08x}", qpn);
    return fmt::format("{} ({:#x})", sc_.objects[it->second].name, qpn);
  }

  void print_header() {
    if (header_printed_) return;
    fmt::print(opt_.out, "{:>12}  {:<8} {:<8} {:>10}  {:<18} {:<18} {:>8}  {}\n", "time_ns",
               "adapter", "cq", "wr_id", "status", "opcode", "byte_len", "qp");
    header_printed_ = true;
  }

  void print_row(const PolledCompletion& pc) {
    if (!opt_.out || opt_.quiet) return;
    print_header();
    const cq::Wc& w = pc.wc;
    // ibv_poll_cq(3): the opcode of an error completion is not valid.
    const std::string_view opcode =
        w.status == cq::WcStatus::SUCCESS ? cq::to_string(w.opcode) : "-";
    fmt::print(opt_.out, "{:>12}  {:<8} {:<8} {:>10}  {:<18} {:<18} {:>8}  {}\n", pc.t,
               sc_.adapters[pc.adapter].config.name, sc_.objects[pc.cq].name, w.wr_id,
               cq::to_string(w.status), opcode, w.byte_len, qp_label(pc.adapter, w.qp_num));
  }

  std::string describe(const cq::Wc& w, std::size_t adapter) const {
    return fmt::format("wr_id {} {} {} byte_len {} qp {}", w.wr_id, cq::to_string(w.status),
                       cq::to_string(w.opcode), w.byte_len, qp_label(adapter, w.qp_num));
  }

  std::string describe(const SentFrame& f) const {
    const std::size_t a = adapter_index(f.adapter);
    std::string s = fmt::format("{} sent {} PSN={}", sc_.adapters[a].config.name,
                                wire::opcode_info(f.opcode).name, f.psn);
    if (f.syndrome) s += fmt::format(" {} MSN={}", wire::aeth_name(*f.syndrome), f.msn);
    return s;
  }

  // The frames sent since the previous "frames" expectation, against the list (every
  // difference named, with its JSON path). Each stream is matched on its own: a sender's frames
  // to one destination QP (an expectation's "qp"), or its frames without one. The interleaving
  // of streams is timing and QP scheduling, which an implementation chooses; the order inside a
  // stream is the protocol's. An optional expected frame (a coalescable ACK) that the next frame
  // of its stream does not match is skipped.
  void check_frames(const Step& s, const FramesExpect& e) {
    const std::vector<SentFrame>& sent = counter_.sent;
    const std::size_t from = frames_checked_;
    constexpr std::uint64_t kAnyQp = UINT64_MAX;
    // A stream: (sender, destination QP, CNP or not). A CNP is not ordered with the sender's
    // responses (Annex A17.9: the notification point sends it when a marked packet arrives).
    using Key = std::tuple<std::size_t, std::uint64_t, bool>;
    const auto is_cnp = [](std::uint8_t opcode) {
      return wire::opcode_info(opcode).transport == wire::Transport::CNP;
    };
    // The streams the expectation names, in the order they first appear.
    std::map<Key, std::vector<std::size_t>> expected;
    std::vector<Key> order;
    // With a device under test (not wire-only), only its own frames are judged: the model's are
    // its reactions, which legitimately follow the device's choices (AckReq cadence, timing).
    const auto judged = [&](std::size_t adapter) {
      return opt_.dut == nullptr || opt_.wire_only || plays(adapter);
    };
    for (std::size_t i = 0; i < e.frames.size(); ++i) {
      const FrameExpect& x = e.frames[i];
      if (!judged(x.from)) continue;
      std::uint64_t qpn = kAnyQp;
      if (x.qp != kNoObj && need(x.qp, s)) qpn = objs_[x.qp].qpn.value();
      const Key k{x.from, qpn, is_cnp(x.opcode)};
      auto& list = expected[k];
      if (list.empty()) order.push_back(k);
      list.push_back(i);
    }
    std::map<Key, std::vector<std::size_t>> got;
    std::vector<std::size_t> stray;  // frames of no expected stream
    for (std::size_t k = from; k < sent.size(); ++k) {
      const std::size_t a = adapter_index(sent[k].adapter);
      if (!judged(a)) continue;
      const bool cnp = is_cnp(sent[k].opcode);
      if (expected.count(Key{a, sent[k].dqpn, cnp}) != 0) {
        got[Key{a, sent[k].dqpn, cnp}].push_back(k);
      } else if (expected.count(Key{a, kAnyQp, cnp}) != 0) {
        got[Key{a, kAnyQp, cnp}].push_back(k);
      } else {
        stray.push_back(k);
      }
    }
    std::size_t reported = 0;
    for (const auto& stream : order) {
      const std::vector<std::size_t>& want = expected[stream];
      const std::vector<std::size_t>& have = got[stream];
      std::size_t h = 0;
      for (const std::size_t i : want) {
        const FrameExpect& x = e.frames[i];
        if (h >= have.size()) {
          if (x.optional) continue;
          ++result_.checks;
          fail(x.path, fmt::format("missing: {} sent {} frame{} of this stream since the last "
                                   "\"frames\" check",
                                   sc_.adapters[x.from].config.name, have.size(),
                                   have.size() == 1 ? "" : "s"));
          break;
        }
        const SentFrame& f = sent[have[h]];
        const std::string diffs = frame_differences(s, x, f);
        if (!diffs.empty() && x.optional) continue;  // coalesced away: the next one must match
        ++result_.checks;
        ++h;
        if (diffs.empty()) continue;
        fail(x.path, fmt::format("{} (frame {} since the last check: {})", diffs,
                                 have[h - 1] - from + 1, describe(f)));
        if (++reported == 10) break;  // the rest would mostly repeat one shift
      }
      if (h < have.size() && reported < 10) {
        ++result_.checks;
        fail(e.path,
             fmt::format("{} more frame{} than expected from {}, the first: {}", have.size() - h,
                         have.size() - h == 1 ? "" : "s",
                         sc_.adapters[std::get<0>(stream)].config.name, describe(sent[have[h]])));
      }
    }
    if (!stray.empty()) {
      ++result_.checks;
      fail(e.path, fmt::format("{} frame{} of no expected stream, the first: {}", stray.size(),
                               stray.size() == 1 ? "" : "s", describe(sent[stray.front()])));
    }
    frames_checked_ = sent.size();
  }

  // "field: expected X, got Y; ..." for the fields of `x` that `f` does not match; empty if all do.
  std::string frame_differences(const Step& s, const FrameExpect& x, const SentFrame& f) {
    std::string out = field_differences(x, f);
    if (x.qp != kNoObj && need(x.qp, s)) {
      const std::size_t a = sc_.objects[x.qp].adapter_index;
      const std::uint32_t want = objs_[x.qp].qpn.value();
      if (want != f.dqpn)
        out += fmt::format("{}qp: expected {}, got {}", out.empty() ? "" : "; ", qp_label(a, want),
                           qp_label(a, f.dqpn));
    }
    return out;
  }

  // frame_differences() but for the destination QP.
  std::string field_differences(const FrameExpect& x, const SentFrame& f) const {
    std::string out;
    const auto diff = [&](std::string_view field, const std::string& want,
                          const std::string& have) {
      if (want != have)
        out += fmt::format("{}{}: expected {}, got {}", out.empty() ? "" : "; ", field, want, have);
    };
    diff("from", sc_.adapters[x.from].config.name,
         sc_.adapters[adapter_index(f.adapter)].config.name);
    diff("opcode", std::string(wire::opcode_info(x.opcode).name),
         std::string(wire::opcode_info(f.opcode).name));
    if (x.psn) diff("psn", std::to_string(*x.psn), std::to_string(f.psn));
    if (x.ackreq) diff("ackreq", *x.ackreq ? "true" : "false", f.ackreq ? "true" : "false");
    if (x.aeth)
      diff("aeth", *x.aeth, f.syndrome ? std::string(wire::aeth_name(*f.syndrome)) : "none");
    if (x.msn) diff("msn", std::to_string(*x.msn), f.syndrome ? std::to_string(f.msn) : "none");
    if (x.payload_len)
      diff("payload_len", std::to_string(*x.payload_len), std::to_string(f.payload_len));
    if (x.dmalen)
      diff("dmalen", std::to_string(*x.dmalen), f.dmalen ? std::to_string(*f.dmalen) : "none");
    return out;
  }

  // What a vector would expect of the model's frame `w`: every field, AckReq where a vector
  // checks it (frame_rules.h).
  FrameExpect expect_of(const SentFrame& w) const {
    FrameExpect x;
    x.from = adapter_index(w.adapter);
    x.opcode = w.opcode;
    x.psn = w.psn;
    if (!wire::opcode_info(w.opcode).ackreq_is_requesters_choice()) x.ackreq = w.ackreq;
    if (w.syndrome) {
      x.aeth = std::string(wire::aeth_name(*w.syndrome));
      x.msn = w.msn;
    }
    x.payload_len = w.payload_len;
    x.dmalen = w.dmalen;
    return x;
  }
  static AckView ack_view(const SentFrame& f) { return AckView{f.opcode, f.syndrome, f.psn}; }

  // Wire-only: the frames the device emitted against those the model sent as its adapter, stream
  // by stream as check_frames() matches them (per destination QP, CNPs apart), an ACK of the
  // model's that a later acknowledgement of its stream covers being one the device may leave out
  // (coalesced). The first ten differences are named.
  void compare_wire() {
    std::size_t index = SIZE_MAX;
    for (std::size_t i = 0; i < sc_.adapters.size(); ++i)
      if (plays(i)) index = i;
    if (index == SIZE_MAX) return;
    const std::uint32_t id = adapters_[index]->id();
    const std::string& name = sc_.adapters[index].config.name;
    using Key = std::pair<std::uint32_t, bool>;  // destination QP, CNP
    const auto key = [](const SentFrame& f) {
      return Key{f.dqpn, wire::opcode_info(f.opcode).transport == wire::Transport::CNP};
    };
    std::map<Key, std::vector<SentFrame>> want, have;
    std::vector<Key> order;
    for (const SentFrame& f : counter_.sent) {
      if (f.adapter != id) continue;
      auto& list = want[key(f)];
      if (list.empty()) order.push_back(key(f));
      list.push_back(f);
    }
    for (const std::vector<std::uint8_t>& bytes : dut_sent_) {
      const SentFrame g = sent_frame(id, bytes, nullptr);
      if (want.count(key(g)) == 0) order.push_back(key(g));
      want[key(g)];
      have[key(g)].push_back(g);
    }
    std::size_t reported = 0;
    for (const Key& k : order) {
      const std::vector<SentFrame>& w = want[k];
      const std::vector<SentFrame>& g = have[k];
      std::size_t h = 0;
      for (std::size_t i = 0; i < w.size() && reported < 10; ++i) {
        // A plain ACK that a later acknowledgement at or after its PSN covers may be absent.
        bool optional = false;
        for (std::size_t j = i + 1; j < w.size() && !optional; ++j)
          optional = ack_covered_by(ack_view(w[i]), ack_view(w[j]));
        if (h >= g.size()) {
          if (optional) continue;
          ++result_.checks;
          fail("wire",
               fmt::format("{} sent {} frame{} to QP {:#x}, the model more; the first "
                           "missing: {}",
                           name, g.size(), g.size() == 1 ? "" : "s", k.first, describe(w[i])));
          ++reported;
          break;
        }
        const std::string diffs = field_differences(expect_of(w[i]), g[h]);
        if (!diffs.empty() && optional) continue;
        ++result_.checks;
        ++h;
        if (diffs.empty()) continue;
        fail("wire", fmt::format("frame {} from {} to QP {:#x}: {} (the model's: {})", h, name,
                                 k.first, diffs, describe(w[i])));
        ++reported;
      }
      if (h < g.size() && reported < 10) {
        ++result_.checks;
        fail("wire", fmt::format("{} sent {} more frame{} to QP {:#x} than the model, the "
                                 "first: {}",
                                 name, g.size() - h, g.size() - h == 1 ? "" : "s", k.first,
                                 describe(g[h])));
        ++reported;
      }
    }
  }

  void check_completions(const Step& s, const CqExpect& e) {
    if (!need(e.cq, s)) return;
    const std::size_t adapter = sc_.objects[e.cq].adapter_index;
    std::vector<cq::Wc>& got = pending_[e.cq];
    for (std::size_t i = 0; i < e.completions.size(); ++i) {
      const CompletionExpect& x = e.completions[i];
      ++result_.checks;
      if (i >= got.size()) {
        fail(x.path, fmt::format("missing: CQ \"{}\" had {} completion{}", sc_.objects[e.cq].name,
                                 got.size(), got.size() == 1 ? "" : "s"));
        continue;
      }
      const cq::Wc& w = got[i];
      std::vector<std::string> diffs;
      const auto diff = [&](std::string_view field, const std::string& want,
                            const std::string& have) {
        if (want != have)
          diffs.push_back(fmt::format("{}: expected {}, got {}", field, want, have));
      };
      diff("wr_id", std::to_string(x.wr_id), std::to_string(w.wr_id));
      diff("status", std::string(cq::to_string(x.status)), std::string(cq::to_string(w.status)));
      if (x.opcode)
        diff("opcode", std::string(cq::to_string(*x.opcode)), std::string(cq::to_string(w.opcode)));
      if (x.byte_len) diff("byte_len", std::to_string(*x.byte_len), std::to_string(w.byte_len));
      if (x.imm_data)
        diff("imm_data", fmt::format("{:#x}", *x.imm_data), fmt::format("{:#x}", w.imm_data));
      if (x.wc_flags) diff("wc_flags", flag_names(*x.wc_flags), flag_names(w.wc_flags));
      if (x.src_qp) {
        std::uint32_t want = 0;
        if (resolve(*x.src_qp, s, want))
          diff("src_qp", fmt::format("{:#x}", want), fmt::format("{:#x}", w.src_qp));
      }
      if (x.qp != kNoObj && need(x.qp, s))
        diff("qp", qp_label(adapter, objs_[x.qp].qpn.value()), qp_label(adapter, w.qp_num));
      if (!diffs.empty()) {
        std::string msg;
        for (const std::string& d : diffs) msg += (msg.empty() ? "" : "; ") + d;
        fail(x.path, msg);
      }
    }
    for (std::size_t i = e.completions.size(); i < got.size(); ++i)
      fail(e.path, fmt::format("unexpected completion #{}: {}", i, describe(got[i], adapter)));
    got.clear();
  }

  void check_memory(const MemoryExpect& m) {
    ++result_.checks;
    const std::vector<std::uint8_t> have = devices_[m.adapter]->read_memory(m.addr, m.bytes.size());
    if (have == m.bytes) return;
    if (have.size() != m.bytes.size()) {
      fail(m.path, "the range wraps past 2^64");
      return;
    }
    std::size_t first = 0;
    while (have[first] == m.bytes[first]) ++first;
    fail(m.path,
         fmt::format("bytes differ from offset {} (address {:#x}): expected {}, got {}", first,
                     m.addr + first, hex_bytes(m.bytes, first, 16), hex_bytes(have, first, 16)));
  }

  void check_qp_state(const Step& s, const QpStateExpect& q) {
    if (!need(q.qp, s)) return;
    ++result_.checks;
    const std::optional<qp::QpState> state = device_of(q.qp).qp_state(objs_[q.qp].qpn);
    if (!state) {
      fail(q.path, "the QP no longer exists");
      return;
    }
    if (*state != q.state)
      fail(q.path,
           fmt::format("expected {}, got {}", qp::to_string(q.state), qp::to_string(*state)));
  }

  void verdict() {
    if (!opt_.out) return;
    for (const Failure& f : result_.failures)
      fmt::print(opt_.out, "FAIL {}: {}\n", f.path, f.message);
    const std::string faults = counter_.fault_count == 0
                                   ? std::string()
                                   : fmt::format("{} fault{}, ", counter_.fault_count,
                                                 counter_.fault_count == 1 ? "" : "s");
    const std::string stats =
        fmt::format("{} frames, {}{} completions, {} simulated, seed {}", counter_.frames, faults,
                    result_.completions.size(), duration(result_.end_time), opt_.seed);
    const char* plural = result_.checks == 1 ? "expectation" : "expectations";
    if (result_.passed()) {
      fmt::print(opt_.out, "PASS {}: {} {} met ({})\n", sc_.file, result_.checks, plural, stats);
    } else {
      fmt::print(opt_.out, "FAIL {}: {} failure{}, {} {} checked ({})\n", sc_.file,
                 result_.failures.size(), result_.failures.size() == 1 ? "" : "s", result_.checks,
                 plural, stats);
    }
  }

  const Scenario& sc_;
  const RunOptions& opt_;
  RunObserver counter_;             // before sim_: the simulation holds a pointer to it
  std::size_t frames_checked_ = 0;  // counter_.sent[0, this) were matched by "frames" already
  model::Simulation sim_;
  std::vector<model::Adapter*> adapters_;
  std::vector<std::unique_ptr<Device>> devices_;     // per adapter: the model's or a plugin's
  std::vector<std::vector<std::uint8_t>> dut_sent_;  // wire-only: what the plugin emitted
  std::vector<model::Link*> links_;
  std::vector<ObjState> objs_;
  std::map<ObjId, std::vector<cq::Wc>> pending_;
  std::map<std::pair<std::size_t, std::uint32_t>, ObjId> qp_names_;
  RunResult result_;
  bool header_printed_ = false;
  bool faults_capped_ = false;
};

}  // namespace

RunResult run_scenario(const Scenario& scenario, const RunOptions& options) {
  return Runner(scenario, options).run();
}

}  // namespace rocecert::conformance
