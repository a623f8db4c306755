// The Player on fake devices: the vector's names become the devices' numbers on both adapters,
// what the devices report is logged as rocecert check reads it, and bad input is named.
#include "rocecert/verbs/player.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <nlohmann/json.hpp>

#include "rocecert/check/events.h"
#include "verbs_test_support.h"

namespace rocecert::verbs {
namespace {

using testing::fake_host;
using testing::load;

const Mapped& named(const PlayResult& r, const std::string& adapter, const std::string& name) {
  for (const Mapped& m : r.names)
    if (m.adapter == adapter && m.name == name) return m;
  throw std::runtime_error("no " + adapter + "/" + name + " in the name map");
}

struct Played {
  explicit Played(const std::string& id) : v(load(id)) {}
  Played(const std::string& id, const FakeVerbs::Options& b_options) : v(load(id)), b(b_options) {}
  vectors::Loaded v;
  FakeVerbs a{fake_host(1)};
  FakeVerbs b{fake_host(2)};
  PlayResult r;
};

void play(Played& p, const PlayOptions& o = {}) {
  p.r = Player(p.v.scenario, {{"A", &p.a}, {"B", &p.b}}, o).play();
}

// The fakes have no wire between them: a receive never completes. Tests of the mapping alone
// do not hold them to the vector's expectations.
const PlayOptions kRecordOnly = [] {
  PlayOptions o;
  o.check_expectations = false;
  return o;
}();

const FakeVerbs::Modify& modify_to(const FakeVerbs& f, std::uint32_t qpn, qp::QpState s) {
  for (const FakeVerbs::Modify& m : f.modifies)
    if (m.qpn == qpn && m.mask.has(qp::AttrBit::STATE) && m.attr.qp_state == s) return m;
  throw std::runtime_error("no modify_qp to that state");
}

TEST(VerbsPlayer, RtrNamesThePeersRealQpnOnBothAdapters) {
  Played p("opcodes/rc-rdma-write-1pkt-00");
  play(p);
  ASSERT_TRUE(p.r.errors.empty()) << p.r.errors.front();
  const std::uint32_t qpa = named(p.r, "A", "qpA").handle;
  const std::uint32_t qpb = named(p.r, "B", "qpB").handle;
  EXPECT_EQ(qpa, 0x111u);
  EXPECT_EQ(qpb, 0x211u);
  const FakeVerbs::Modify& rtr_a = modify_to(p.a, qpa, qp::QpState::RTR);
  const FakeVerbs::Modify& rtr_b = modify_to(p.b, qpb, qp::QpState::RTR);
  EXPECT_EQ(rtr_a.attr.dest_qp_num, qpb);
  EXPECT_EQ(rtr_b.attr.dest_qp_num, qpa);
  // The path's GIDs are the devices' own (192.168.0.n at index 3), not the vector's 10.0.0.n.
  EXPECT_EQ(rtr_a.attr.ah_attr.dgid, fake_host(2).port.gid);
  EXPECT_EQ(rtr_a.attr.ah_attr.sgid_index, 3);
  EXPECT_EQ(rtr_b.attr.ah_attr.dgid, fake_host(1).port.gid);
  // PSNs are the vector's: the map records them.
  EXPECT_EQ(rtr_a.attr.rq_psn, 200u);
  EXPECT_EQ(named(p.r, "A", "qpA").sq_psn, 100u);
  EXPECT_EQ(named(p.r, "B", "qpB").rq_psn, 100u);
}

TEST(VerbsPlayer, WriteCarriesTheNamedRegionsRealKeysAndAddresses) {
  Played p("opcodes/rc-rdma-write-1pkt-00");
  play(p);
  ASSERT_EQ(p.a.sends.size(), 1u);
  const FakeVerbs::PostedSend& s = p.a.sends.front();
  const Mapped& mra = named(p.r, "A", "mrA");
  const Mapped& mrb = named(p.r, "B", "mrB");
  // The RETH's rkey and VA are mrB's on B's device, the SGE mrA's on A's.
  EXPECT_EQ(s.wr.rkey, mrb.rkey);
  EXPECT_EQ(mrb.rkey, p.b.regions.at(mrb.handle).rkey);
  EXPECT_EQ(s.wr.remote_addr, mrb.iova);  // remote_offset 0
  EXPECT_EQ(mrb.iova, p.b.regions.at(mrb.handle).iova);
  ASSERT_EQ(s.sges.size(), 1u);
  EXPECT_EQ(s.sges[0].lkey, mra.lkey);
  EXPECT_EQ(s.sges[0].addr, mra.host_addr);
  EXPECT_EQ(s.sges[0].length, 64u);
  EXPECT_NE(mra.lkey, 0u);
  EXPECT_NE(mra.host_addr, 0x10000u);  // the vector's address is not the host's
}

TEST(VerbsPlayer, RegionContentsAreWrittenBeforeRegistration) {
  Played p("opcodes/rc-rdma-write-1pkt-00");
  play(p);
  const Mapped& mrb = named(p.r, "B", "mrB");
  // mrB's contents: a counter from 128 for 1024 bytes, then the u64 100 at offset 1024.
  const std::vector<std::uint8_t> head = p.b.read_memory(mrb.host_addr, 2);
  EXPECT_EQ(head, (std::vector<std::uint8_t>{128, 129}));
  const std::vector<std::uint8_t> word = p.b.read_memory(mrb.host_addr + 1024, 8);
  EXPECT_EQ(std::count(word.begin(), word.end(), std::uint8_t{100}), 1);
}

// The FLUSH access flags reach only a device with FLUSH: Linux before 6.2 (the rxe of Debian 12)
// refuses them with EINVAL, and a vector that sends no FLUSH does not need them.
TEST(VerbsPlayer, FlushAccessReachesOnlyADeviceWithFlush) {
  const auto flush_bits = [](mem::Access a) {
    return static_cast<std::uint32_t>(a) &
           (static_cast<std::uint32_t>(mem::Access::FLUSH_GLOBAL) |
            static_cast<std::uint32_t>(mem::Access::FLUSH_PERSISTENT));
  };
  for (const bool flush : {false, true}) {
    SCOPED_TRACE(flush ? "with FLUSH" : "without FLUSH");
    FakeVerbs::Options o = fake_host(2);
    o.caps.flush = flush;
    Played p("opcodes/rc-send-1pkt-00", o);  // mrB asks for both FLUSH flags
    play(p, kRecordOnly);
    const Mapped& mrb = named(p.r, "B", "mrB");
    const FakeVerbs::Region& r = p.b.regions.at(mrb.handle);
    EXPECT_EQ(flush_bits(r.access) != 0, flush);
    EXPECT_NE(static_cast<std::uint32_t>(r.access) &
                  static_cast<std::uint32_t>(mem::Access::REMOTE_WRITE),
              0u);  // the other flags go through
  }
}

TEST(VerbsPlayer, EventsParseAsCheckReadsThemWithTheDevicesNumbers) {
  Played p("opcodes/rc-rdma-write-1pkt-00");
  play(p);
  const check::Events ev = check::parse_events(events_text(p.r), "played.jsonl");
  std::size_t wcs = 0, states = 0, keys = 0;
  for (const check::Event& e : ev.events) {
    if (e.kind == check::Event::Kind::Wc) {
      ++wcs;
      EXPECT_EQ(e.qpn, 0x111u);
      EXPECT_EQ(e.wr_id, 1u);
      EXPECT_EQ(e.status, cq::WcStatus::SUCCESS);
      EXPECT_EQ(e.opcode, cq::WcOpcode::RDMA_WRITE);
      EXPECT_EQ(e.host[0], 10);  // the vector's IP: 10.0.0.1
      EXPECT_EQ(e.host[3], 1);
    } else if (e.kind == check::Event::Kind::QpState) {
      ++states;
    } else if (e.kind == check::Event::Kind::Key) {
      ++keys;
    }
  }
  EXPECT_EQ(wcs, 1u);
  EXPECT_EQ(states, 6u);  // INIT, RTR, RTS on each QP
  EXPECT_EQ(keys, 2u);    // mrA and mrB registered
  // The last state of each QP, by its real number.
  std::map<std::uint32_t, std::string> last;
  for (const check::Event& e : ev.events)
    if (e.kind == check::Event::Kind::QpState) last[*e.qpn] = e.name;
  EXPECT_EQ(last[0x111], "RTS");
  EXPECT_EQ(last[0x211], "RTS");
  // The wc line also has the byte count.
  bool saw_len = false;
  for (const std::string& line : p.r.events) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j["event"] == "wc") saw_len = j["byte_len"] == 64;
  }
  EXPECT_TRUE(saw_len);
}

TEST(VerbsPlayer, AnErrorCompletionIsLoggedWithoutOpcodeAndTheQpInErr) {
  Played p("opcodes/rc-rdma-write-1pkt-00");
  p.a.script_status(1, cq::WcStatus::REM_ACCESS_ERR);
  play(p);
  const check::Events ev = check::parse_events(events_text(p.r), "played.jsonl");
  const auto wc = std::find_if(ev.events.begin(), ev.events.end(), [](const check::Event& e) {
    return e.kind == check::Event::Kind::Wc;
  });
  ASSERT_NE(wc, ev.events.end());
  EXPECT_EQ(wc->status, cq::WcStatus::REM_ACCESS_ERR);
  EXPECT_FALSE(wc->opcode.has_value());
  // The device moved the QP to ERR; the end-of-run query logs it after the completion.
  const check::Event& last = ev.events.back();
  EXPECT_EQ(last.kind, check::Event::Kind::QpState);
  EXPECT_EQ(last.qpn, 0x111u);
  EXPECT_EQ(last.name, "ERR");
}

TEST(VerbsPlayer, AsyncEventsNameTheQpByItsRealNumber) {
  Played p("opcodes/rc-rdma-write-1pkt-00");
  p.b.push_async({errors::AsyncEventType::QP_FATAL, 0x211});
  p.b.push_async({errors::AsyncEventType::CQ_ERR, 1});
  play(p);
  std::vector<std::string> async;
  for (const std::string& line : p.r.events)
    if (line.find("\"async\"") != std::string::npos) async.push_back(line);
  ASSERT_EQ(async.size(), 2u);
  const nlohmann::json fatal = nlohmann::json::parse(async[0]);
  EXPECT_EQ(fatal["type"], "QP_FATAL");
  EXPECT_EQ(fatal["qpn"], 0x211);
  EXPECT_EQ(fatal["host"], "10.0.0.2");
  const nlohmann::json cq_err = nlohmann::json::parse(async[1]);
  EXPECT_EQ(cq_err["type"], "CQ_ERR");
  EXPECT_FALSE(cq_err.contains("qpn"));
  EXPECT_NO_THROW(check::parse_events(events_text(p.r), "played.jsonl"));
}

TEST(VerbsPlayer, HostsCanBeTheDevicesAddresses) {
  Played p("opcodes/rc-rdma-write-1pkt-00");
  PlayOptions o;
  o.hosts = {{"A", "192.168.0.1"}, {"B", "192.168.0.2"}};
  play(p, o);
  const check::Events ev = check::parse_events(events_text(p.r), "played.jsonl");
  for (const check::Event& e : ev.events) EXPECT_EQ(e.host[0], 192);
}

TEST(VerbsPlayer, ExpectedRefusalsAreHeldToTheirErrno) {
  // rc-from-err: steps[30] expects UNEXPECTED_ATTR, steps[31..35] ILLEGAL_TRANSITION, [37]
  // UNEXPECTED_ATTR: EINVAL each (qp::errno_value). The fake refuses nothing by itself, so
  // refusals are scripted for the first; the others accepted are differences.
  Played p("transitions/rc-from-err-00");
  play(p);
  ASSERT_FALSE(p.r.errors.empty());
  EXPECT_NE(p.r.errors.front().find("steps[30]: modify_qp: expected UNEXPECTED_ATTR (EINVAL), "
                                    "got success"),
            std::string::npos)
      << p.r.errors.front();
  EXPECT_NE(p.r.errors.front().find(testing::vector_path("transitions/rc-from-err-00")),
            std::string::npos);
}

TEST(VerbsPlayer, AStepNamingAnObjectItsDeviceRefusedIsSkippedAndNamed) {
  Played p("opcodes/rc-rdma-write-1pkt-00");
  p.a.refuse("create_qp", ENOMEM);
  play(p);
  // The scenario's file: the vector's path, as the loader names it.
  const std::string& file = p.v.scenario.file;
  ASSERT_NE(file.find(testing::vector_path("opcodes/rc-rdma-write-1pkt-00")), std::string::npos);
  ASSERT_GE(p.r.errors.size(), 2u);
  EXPECT_EQ(p.r.errors[0], file + ": steps[6]: create_qp: expected success, got ENOMEM");
  EXPECT_EQ(p.r.errors[1], file +
                               ": steps[8]: modify_qp: skipped: QP \"qpA\" does not exist (its "
                               "create_qp at steps[6] failed)");
  EXPECT_TRUE(p.a.sends.empty());
  // B goes on; its RTR names a QP that does not exist: skipped too.
  EXPECT_NE(std::find_if(p.r.errors.begin(), p.r.errors.end(),
                         [](const std::string& e) { return e.find("steps[12]") != e.npos; }),
            p.r.errors.end());
}

TEST(VerbsPlayer, ARegionExpectedToBeRefusedGetsNoHostMemory) {
  // A 1 TiB region the vector expects to be refused: its registration tests the refusal, so the
  // host is not asked for the memory; the device's refusal is what the vector expects.
  const vectors::Loaded v = vectors::parse(testing::with_refused_huge_region(), "huge.json");
  FakeVerbs a(fake_host(1)), b(fake_host(2));
  a.refuse("reg_mr", ENOMEM);  // INDEX_EXHAUSTED is ENOMEM
  const PlayResult r = Player(v.scenario, {{"A", &a}, {"B", &b}}).play();
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  for (const std::uint64_t len : a.allocations) EXPECT_LT(len, 1ull << 40);
  EXPECT_THROW(named(r, "A", "mrHuge"), std::runtime_error);  // never created
  EXPECT_EQ(named(r, "A", "mrA").lkey, 0x1000u);              // the next one is A's first key
}

TEST(VerbsPlayer, AnUnknownNameIsRefusedWithTheFileAndTheStep) {
  std::string text = testing::read_text(testing::vector_path("opcodes/rc-rdma-write-1pkt-00"));
  const std::string from = "\"rkey\": \"mrB\"";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "\"rkey\": \"mrZ\"");
  try {
    (void)vectors::parse(text, "bad.json");
    FAIL() << "an unknown MR was accepted";
  } catch (const vectors::VectorError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
    EXPECT_NE(what.find("steps[14].wr.rkey"), std::string::npos) << what;
    EXPECT_NE(what.find("mrZ"), std::string::npos) << what;
  }
}

TEST(VerbsPlayer, AnAdapterWithoutADeviceIsRefusedUpFront) {
  const vectors::Loaded v = load("opcodes/rc-rdma-write-1pkt-00");
  FakeVerbs a(fake_host(1));
  try {
    Player(v.scenario, {{"A", &a}});
    FAIL() << "B has no device";
  } catch (const PlayError& e) {
    EXPECT_NE(std::string(e.what()).find("adapter \"B\" has no device"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(v.path), std::string::npos) << e.what();
  }
}

TEST(VerbsPlayer, SendWithInvalidateCarriesThePeersRealRkey) {
  Played p("opcodes/rc-send-with-inv-1pkt-00");
  play(p, kRecordOnly);
  ASSERT_TRUE(p.r.errors.empty()) << p.r.errors.front();
  const auto s = std::find_if(p.a.sends.begin(), p.a.sends.end(), [](const auto& x) {
    return x.wr.opcode == tx::WrOpcode::SEND_WITH_INV;
  });
  ASSERT_NE(s, p.a.sends.end());
  // The rkey to invalidate is one B's device gave (a region's or a window's).
  bool known = false;
  for (const Mapped& m : p.r.names)
    known = known || (m.adapter == "B" && m.rkey == s->wr.invalidate_rkey && m.rkey != 0);
  EXPECT_TRUE(known) << s->wr.invalidate_rkey;
}

TEST(VerbsPlayer, AWindowIsBoundByHandleAndLaterWorkRequestsUseItsNewRkey) {
  Played p("boundary/write-one-byte-past-mw-end-00");
  play(p, kRecordOnly);
  ASSERT_TRUE(p.r.errors.empty()) << p.r.errors.front();
  const auto bind = std::find_if(p.b.sends.begin(), p.b.sends.end(), [](const auto& x) {
    return x.wr.opcode == tx::WrOpcode::BIND_MW;
  });
  ASSERT_NE(bind, p.b.sends.end());
  std::uint32_t mw_handle = 0, mw_rkey = 0;
  for (const Mapped& m : p.r.names)
    if (m.kind == conformance::ObjectKind::MW) {
      mw_handle = m.handle;
      mw_rkey = m.rkey;
    }
  EXPECT_EQ(bind->wr.bind_mw_handle, mw_handle);
  EXPECT_EQ(p.b.mw_rkey(mw_handle), mw_rkey);
  // A's WRITE names the window: its rkey is the one after the bind, its VA in B's memory.
  const auto write = std::find_if(p.a.sends.begin(), p.a.sends.end(), [](const auto& x) {
    return x.wr.opcode == tx::WrOpcode::RDMA_WRITE;
  });
  ASSERT_NE(write, p.a.sends.end());
  EXPECT_EQ(write->wr.rkey, mw_rkey);
  EXPECT_GE(write->wr.remote_addr, fake_host(2).memory_base);
  // The bind is logged as a key change of B.
  const check::Events ev = check::parse_events(events_text(p.r), "played.jsonl");
  EXPECT_TRUE(std::any_of(ev.events.begin(), ev.events.end(), [&](const check::Event& e) {
    return e.kind == check::Event::Kind::Key && e.name == "bind" && e.rkey == mw_rkey;
  }));
}

TEST(VerbsPlayer, UdWorkRequestsNameThePeersRealQpnAndGid) {
  Played p("opcodes/ud-send-1pkt-00");
  play(p, kRecordOnly);
  ASSERT_TRUE(p.r.errors.empty()) << p.r.errors.front();
  ASSERT_FALSE(p.a.sends.empty());
  const FakeVerbs::PostedSend& s = p.a.sends.front();
  EXPECT_EQ(s.wr.remote_qpn, named(p.r, "B", "qpB").handle);
  ASSERT_TRUE(s.ah.has_value());
  EXPECT_EQ(s.ah->dgid, fake_host(2).port.gid);
}

// Every committed vector on two fake devices with rxe's limits: gated, or played through with
// every name resolved (no step skipped) and a log rocecert check reads. The fake accepts every
// verb, so the only differences are the refusals the vectors expect.
TEST(VerbsPlayer, EveryCommittedVectorIsGatedOrPlaysThrough) {
  std::size_t played = 0, gated = 0;
  for (const std::string& path : vectors::find(std::string(ROCECERT_SOURCE_DIR) + "/vectors")) {
    const vectors::Loaded v = vectors::load(path);
    std::map<std::string, DeviceCaps> caps;
    for (const conformance::AdapterSpec& a : v.scenario.adapters)
      caps[a.config.name] = testing::rxe_like_caps();
    if (!gate(v.vector, v.scenario, caps).runs) {
      ++gated;
      continue;
    }
    std::vector<std::unique_ptr<FakeVerbs>> fakes;
    std::map<std::string, Verbs*> devices;
    std::uint32_t n = 0;
    for (const conformance::AdapterSpec& a : v.scenario.adapters) {
      fakes.push_back(std::make_unique<FakeVerbs>(fake_host(++n)));
      devices[a.config.name] = fakes.back().get();
    }
    const PlayResult r = Player(v.scenario, devices, kRecordOnly).play();
    ++played;
    for (const std::string& e : r.errors)
      EXPECT_NE(e.find(", got success"), std::string::npos) << v.vector.id << ": " << e;
    EXPECT_NO_THROW(check::parse_events(events_text(r), v.vector.id)) << v.vector.id;
  }
  // Most vectors run; those that inject frames or need link faults or CNPs cannot.
  EXPECT_GT(played, 80u);
  EXPECT_GT(gated, 10u);
}

TEST(VerbsPlayer, TheVectorsExpectationsAreHeldToTheDevices) {
  // The fake completes the WRITE as the vector expects: nothing differs.
  Played ok("opcodes/rc-rdma-write-1pkt-00");
  play(ok);
  EXPECT_TRUE(ok.r.errors.empty()) << ok.r.errors.front();
  // A remote access error: the completion's status and the QP's state differ, named by the
  // expectation's path; an asynchronous event nobody expected is named too.
  Played bad("opcodes/rc-rdma-write-1pkt-00");
  bad.a.script_status(1, cq::WcStatus::REM_ACCESS_ERR);
  bad.b.push_async({errors::AsyncEventType::QP_FATAL, 0x211});
  play(bad);
  const std::string& file = bad.v.scenario.file;
  const std::vector<std::string> want = {
      file + ": steps[16].qp_state.qpA: expected RTS, got ERR",
      file +
          ": steps[16].completions.cqA[0]: status: expected SUCCESS, got "
          "REM_ACCESS_ERR",
      file +
          ": steps[16].async_events.B: unexpected asynchronous event #0: QP_FATAL "
          "(0x211)"};
  EXPECT_EQ(bad.r.errors, want);
}

TEST(VerbsPlayer, ACqBiggerThanAskedIsUnsupportedWhereTheVectorNeedsAnOverflow) {
  // cq-overflow-00 fills B's CQ of 2 entries; rxe makes it 3 (a power of two minus one).
  FakeVerbs::Options rounding = fake_host(2);
  rounding.cq_extra = 1;
  Played p("reliability/cq-overflow-00", rounding);
  play(p, kRecordOnly);
  EXPECT_EQ(p.r.unsupported,
            "B: steps[5]: CQ \"cqB\" got 3 entries for the 2 asked, and the vector needs it to "
            "overflow (it expects CQ_ERR)");
  // The same CQ where nothing needs to overflow is no reason.
  Played q("opcodes/rc-send-1pkt-00", rounding);
  play(q, kRecordOnly);
  EXPECT_TRUE(q.r.unsupported.empty()) << q.r.unsupported;
}

TEST(VerbsPlayer, MemoryIsReadBackFromTheHost) {
  // stale-rkey-after-dereg expects mrB's first 64 bytes unchanged (a counter from 0): the
  // player wrote the contents into the host buffer and reads the expectation back from there.
  Played p("bugs/stale-rkey-after-dereg-00");
  play(p);
  for (const std::string& e : p.r.errors) EXPECT_EQ(e.find(".memory"), std::string::npos) << e;
  // The same expectation with a counter from 7 differs from the first byte.
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(
      testing::read_text(testing::vector_path("bugs/stale-rkey-after-dereg-00")));
  j["scenario"]["steps"][19]["memory"][0]["counter"] = 7;
  const vectors::Loaded v = vectors::parse(j.dump(), "mem.json");
  FakeVerbs a(fake_host(1)), b(fake_host(2));
  const PlayResult r = Player(v.scenario, {{"A", &a}, {"B", &b}}).play();
  const auto mem = std::find_if(r.errors.begin(), r.errors.end(),
                                [](const std::string& e) { return e.find(".memory") != e.npos; });
  ASSERT_NE(mem, r.errors.end());
  EXPECT_NE(mem->find("bytes differ from offset 0 (address 0x20000): expected 0708090a"),
            std::string::npos)
      << *mem;
  EXPECT_NE(mem->find("got 00010203"), std::string::npos) << *mem;
}

TEST(VerbsPlayer, HostAddressesKeepTheVectorsAlignment) {
  // A region at 0x10003 in the vector is at 3 bytes into a page on the host, so an atomic's
  // address keeps its (mis)alignment.
  std::string text = testing::read_text(testing::vector_path("opcodes/rc-rdma-write-1pkt-00"));
  const std::string from = "\"addr\": \"0x10000\"";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "\"addr\": \"0x10003\"");
  const vectors::Loaded v = vectors::parse(text, "odd.json");
  FakeVerbs a(fake_host(1)), b(fake_host(2));
  const PlayResult r = Player(v.scenario, {{"A", &a}, {"B", &b}}).play();
  EXPECT_EQ(named(r, "A", "mrA").host_addr % 4096, 3u);
  EXPECT_EQ(named(r, "B", "mrB").host_addr % 4096, 0u);
}

}  // namespace
}  // namespace rocecert::verbs
