#include "corpus.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "rocecert/check/report_io.h"
#include "rocecert/conformance/runner.h"
#include "rocecert/conformance/scenario.h"
#include "rocecert/errors/async_event.h"
#include "rocecert/pcap/writer.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/headers.h"
#include "rocecert/wire/opcode.h"

namespace rocecert::check_corpus {

namespace {

using nlohmann::json;

// SplitMix64: the only source of the corpus's choices, so a case is a pure function of its seed.
class Rng {
 public:
  // Neighbouring seeds start far apart in the sequence (their first output, not the seed).
  explicit Rng(std::uint64_t seed) : s_(seed) { s_ = next(); }
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(below(v.size()))];
  }

 private:
  std::uint64_t s_;
};

constexpr std::uint64_t kMrA = 0x100000;
constexpr std::uint64_t kMrB = 0x400000;
constexpr std::uint64_t kMrLen = 0x40000;   // 256 KiB each side
constexpr std::uint32_t kRecvLen = 0x8000;  // every receive buffer: 32 KiB

// No case of the corpus needs more than a few ACK timeouts (67 ms at most) and RNR waits: a run
// still busy after a second of simulated time has a timer firing with nothing to send.
constexpr std::uint64_t kBusyLimitNs = 1'000'000'000;

const std::vector<std::uint32_t> kMtus = {256, 512, 1024, 2048, 4096};

// Message sizes around the path MTU: 0, 1, MTU-1, MTU, MTU+1, several MTUs (with and without a
// remainder).
std::uint32_t message_size(Rng& r, std::uint32_t mtu) {
  switch (r.below(8)) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return mtu - 1;
    case 3:
      return mtu;
    case 4:
      return mtu + 1;
    case 5:
      return mtu * static_cast<std::uint32_t>(2 + r.below(3));
    case 6:
      return mtu * static_cast<std::uint32_t>(2 + r.below(3)) + 1 +
             static_cast<std::uint32_t>(r.below(mtu - 1));
    default:
      return 1 + static_cast<std::uint32_t>(r.below(64));
  }
}

// PSNs: near the 2^24 wrap half of the time, so that messages and go-back-N cross it.
std::uint32_t start_psn(Rng& r) {
  if (r.chance(50)) return 0xFFFFFFu - static_cast<std::uint32_t>(r.below(24));
  return static_cast<std::uint32_t>(r.below(0x1000000));
}

std::string hex(std::uint64_t v) {
  return fmt::format("0x{:x}", v);
}

// Builds the scenario's steps.
class Builder {
 public:
  Builder(std::uint64_t seed, Ops ops) : r_(seed), placements_(ops == Ops::with_placements) {}

  json build(Case& c) {
    const bool v6 = r_.chance(25);
    json doc;
    doc["description"] = fmt::format("check corpus, seed {}", c.seed);
    doc["seed"] = c.seed;
    doc["adapters"] = json::array({
        {{"name", "A"}, {"mac", "02:00:00:00:00:01"}, {"ip", v6 ? "fd00::1" : "10.0.0.1"}},
        {{"name", "B"},
         {"mac", "02:00:00:00:00:02"},
         {"ip", v6 ? "fd00::2" : "10.0.0.2"},
         {"first_qpn", hex(0x11 + r_.below(0x400))}},
    });
    json link = {{"a", "A"},
                 {"b", "B"},
                 {"latency_ns", 500 + r_.below(4000)},
                 {"gbps", r_.chance(50) ? 25 : 100}};
    json faults = fault_plan(c.fault_plan);
    if (!faults.empty()) link["faults"] = faults;
    doc["links"] = json::array({link});

    step({{"op", "alloc_pd"}, {"adapter", "A"}, {"as", "pdA"}});
    step({{"op", "alloc_pd"}, {"adapter", "B"}, {"as", "pdB"}});
    json remote = {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND"};
    if (placements_) {
      remote.push_back("FLUSH_GLOBAL");
      remote.push_back("FLUSH_PERSISTENT");
    }
    step({{"op", "reg_mr"},
          {"pd", "pdA"},
          {"as", "mrA"},
          {"addr", hex(kMrA)},
          {"length", kMrLen},
          {"access", remote},
          {"contents", {{"counter", 0}, {"length", kMrLen}}}});
    step({{"op", "reg_mr"},
          {"pd", "pdB"},
          {"as", "mrB"},
          {"addr", hex(kMrB)},
          {"length", kMrLen},
          {"access", remote},
          {"contents", {{"counter", 128}, {"length", kMrLen}}}});
    step({{"op", "create_cq"}, {"adapter", "A"}, {"as", "cqA"}, {"cqe", 4096}});
    step({{"op", "create_cq"}, {"adapter", "B"}, {"as", "cqB"}, {"cqe", 4096}});

    // Several QP pairs between the same two hosts: RC always, UC and UD by the seed; an RC pair
    // whose receives come late (RNR), one whose peer answers a bad rkey with a NAK, and a QP
    // whose peer does not exist (retry exhaustion).
    const unsigned rc_pairs = 1 + static_cast<unsigned>(r_.below(3));
    for (unsigned i = 0; i < rc_pairs; ++i) add_pair("RC", i == 0 && r_.chance(35), false);
    if (r_.chance(60)) add_pair("UC", false, false);
    if (r_.chance(50)) add_pair("UD", false, false);
    const bool bad_rkey = r_.chance(20);
    const bool no_peer = r_.chance(25);
    if (bad_rkey) add_pair("RC", false, true);
    for (std::size_t i = 0; i < pairs_.size(); ++i) setup_pair(i);
    if (no_peer) setup_lonely();
    setup_end_ = steps_.size();

    for (std::size_t i = 0; i < pairs_.size(); ++i) traffic(i);
    if (need_binds_)  // B's BIND_MWs complete before A's SEND_WITH_INVs are posted
      steps_.insert(steps_.begin() + static_cast<std::ptrdiff_t>(setup_end_), json{{"op", "run"}});
    if (no_peer) {
      post_send("qpZ", "mrA", 9000, "RDMA_WRITE", 64, 8,
                {{"rkey", "0x1234"}, {"remote_addr", "0x9000"}});
      post_send("qpZ", "mrA", 9001, "SEND", 200, 0);
    }
    const bool late =
        std::any_of(pairs_.begin(), pairs_.end(), [](const Pair& p) { return p.rnr; });
    if (late) {
      // Let the requests meet empty receive queues (RNR NAKs), then post the receives.
      step({{"op", "run"}, {"for_ns", 20000 + r_.below(200000)}});
      for (Pair& p : pairs_)
        if (p.rnr)
          for (unsigned k = 0; k < p.late_recvs; ++k) post_recv(p.resp(), p.remote_mr(), 7000 + k);
    }
    step({{"op", "run"}});
    doc["steps"] = steps_;
    return doc;
  }

 private:
  struct Pair {
    std::string type;
    bool rnr = false;       // receives posted after the requests
    bool bad_rkey = false;  // one access with an rkey the responder never issued
    bool reversed = false;  // B is the requester (A the responder)
    std::string a, b;       // QP names, on A and on B
    const std::string& req() const { return reversed ? b : a; }
    const std::string& resp() const { return reversed ? a : b; }
    const char* local_mr() const { return reversed ? "mrB" : "mrA"; }
    const char* remote_mr() const { return reversed ? "mrA" : "mrB"; }
    std::uint64_t remote_base() const { return reversed ? kMrA : kMrB; }
    const char* resp_adapter() const { return reversed ? "A" : "B"; }
    const char* resp_pd() const { return reversed ? "pdA" : "pdB"; }
    std::uint32_t mtu = 1024;
    unsigned late_recvs = 0;
    std::vector<std::string> mws;  // B's bound windows, one per SEND_WITH_INV
  };

  void step(json s) { steps_.push_back(std::move(s)); }
  void add_pair(const char* type, bool rnr, bool bad_rkey) {
    Pair p;
    p.type = type;
    p.rnr = rnr;
    p.bad_rkey = bad_rkey;
    // Some pairs other than the first run the other way, so that a host tap sees requests
    // after the faults and responses before them too.
    p.reversed = !pairs_.empty() && r_.chance(30);
    pairs_.push_back(std::move(p));
  }

  json fault_plan(std::string& summary) {
    if (r_.chance(8)) {
      summary = "none";
      return json::object();
    }
    json f = {{"seed", r_.next() >> 12}};
    std::vector<std::string> parts;
    for (const char* dir : {"a_to_b", "b_to_a"}) {
      json rates = json::object();
      for (const char* action : {"drop", "duplicate", "reorder", "delay"}) {
        if (!r_.chance(45)) continue;
        const std::array<double, 4> ps = {0.01, 0.02, 0.05, 0.1};
        const double p = ps[static_cast<std::size_t>(r_.below(ps.size()))];
        rates[action] = p;
        parts.push_back(fmt::format("{} {} {}", dir, action, p));
      }
      if (rates.contains("delay")) {
        rates["delay_ns"] = 1000 + r_.below(60000);
        rates["jitter_ns"] = r_.below(5000);
      }
      if (rates.contains("reorder")) {
        rates["overtake"] = 1 + r_.below(3);
        rates["max_hold_ns"] = 20000 + r_.below(100000);
      }
      if (!rates.empty()) f[dir] = rates;
    }
    // Deterministic rules that hit what random rates rarely do: the first ACK, a READ
    // response, a request duplicated or held back.
    const std::vector<json> rules = {
        {{"action", "drop"}, {"match", {{"class", "ack"}}}, {"nth", 1 + r_.below(3)}},
        {{"action", "drop"}, {"match", {{"class", "read_response"}}}, {"nth", 1 + r_.below(3)}},
        {{"action", "drop"}, {"match", {{"class", "atomic_ack"}}}, {"nth", 1}},
        {{"action", "drop"}, {"match", {{"class", "request"}}}, {"nth", 1 + r_.below(6)}},
        {{"action", "duplicate"}, {"match", {{"class", "request"}}}, {"nth", 1 + r_.below(6)}},
        {{"action", "duplicate"}, {"match", {{"class", "response"}}}, {"nth", 1 + r_.below(4)}},
        {{"action", "reorder"},
         {"match", {{"class", "request"}}},
         {"nth", 1 + r_.below(6)},
         {"overtake", 1 + r_.below(2)}},
        {{"action", "delay"},
         {"match", {{"class", "response"}}},
         {"nth", 1 + r_.below(4)},
         {"delay_ns", 5000 + r_.below(50000)}},
    };
    json list = json::array();
    const std::uint64_t n = r_.below(3);
    for (std::uint64_t i = 0; i < n; ++i) {
      const json& rule = rules[static_cast<std::size_t>(r_.below(rules.size()))];
      list.push_back(rule);
      parts.push_back("rule " + rule.dump());
    }
    if (!list.empty()) f["rules"] = list;
    summary = parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, "; "));
    return parts.empty() ? json::object() : f;
  }

  void modify(const std::string& qp, json attr) {
    step({{"op", "modify_qp"}, {"qp", qp}, {"attr", std::move(attr)}});
  }

  void setup_pair(std::size_t i) {
    Pair& p = pairs_[i];
    p.a = fmt::format("q{}A", i);
    p.b = fmt::format("q{}B", i);
    p.mtu = r_.pick(kMtus);
    for (const auto& [qp, pd, cq] : {std::tuple{p.a, "pdA", "cqA"}, std::tuple{p.b, "pdB", "cqB"}})
      step({{"op", "create_qp"},
            {"pd", pd},
            {"as", qp},
            {"type", p.type},
            {"send_cq", cq},
            {"recv_cq", cq},
            {"cap", {{"max_send_wr", 256}, {"max_recv_wr", 256}}}});
    json access = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"};
    if (placements_) {
      access.push_back("FLUSH_GLOBAL");
      access.push_back("FLUSH_PERSISTENT");
    }
    if (p.type == "UD") {
      for (const std::string& qp : {p.a, p.b}) {
        modify(qp, {{"qp_state", "INIT"}, {"pkey_index", 0}, {"port_num", 1}, {"qkey", "0x1111"}});
        modify(qp, {{"qp_state", "RTR"}});
        modify(qp, {{"qp_state", "RTS"}, {"sq_psn", start_psn(r_)}});
      }
      return;
    }
    const std::uint32_t psn_a = start_psn(r_), psn_b = start_psn(r_);
    const bool rc = p.type == "RC";
    // The bad-rkey pair gives up soon when the NAK is lost (its responder is in ERR then);
    // the others retry forever (retry_cnt 7 in the rxe profile), so that every WR completes.
    const unsigned retry = p.bad_rkey ? 3 : 7;
    const unsigned timeout = 10 + static_cast<unsigned>(r_.below(5));
    for (const auto& [qp, peer, rq, sq] :
         {std::tuple{p.a, p.b, psn_b, psn_a}, std::tuple{p.b, p.a, psn_a, psn_b}}) {
      json init = {{"qp_state", "INIT"}, {"pkey_index", 0}, {"port_num", 1}};
      init["qp_access_flags"] = rc ? access : json{"REMOTE_WRITE"};
      modify(qp, init);
      json rtr = {{"qp_state", "RTR"},
                  {"path_mtu", p.mtu},
                  {"dest_qp_num", peer},
                  {"rq_psn", rq},
                  {"ah_attr", {{"peer", peer}}}};
      if (rc) {
        // With FLUSH among the requests: a FLUSH holds a responder resource that the requester
        // does not count against max_rd_atomic (rxe, docs/spec-notes.md §8.2), so with 4 a
        // repeated atomic can find its resource taken and be dropped for ever (retry_cnt 7 is
        // infinite in rxe). 16 holds the 4 counted and every FLUSH a pair posts (at most 8).
        rtr["max_dest_rd_atomic"] = placements_ ? 16 : 4;
        rtr["min_rnr_timer"] = 1 + r_.below(4);
      }
      modify(qp, rtr);
      json rts = {{"qp_state", "RTS"}, {"sq_psn", sq}};
      if (rc) {
        rts["timeout"] = timeout;
        rts["retry_cnt"] = retry;
        rts["rnr_retry"] = 7;
        // 1 to 4 READ/atomic requests in flight (read.rd_atomic_limit), taken from the start
        // PSN so that the seeds' other draws stay what they were; 3 is rounded up to 4 by the
        // model's rxe QPs (a declared deviation of the rxe profile).
        rts["max_rd_atomic"] = 1 + sq % 4;
      }
      modify(qp, rts);
    }
  }

  // An RC QP on A whose destination QPN does not exist on B: every request is dropped by B's
  // admission, A retries retry_cnt times and completes with RETRY_EXC_ERR.
  void setup_lonely() {
    step({{"op", "create_qp"},
          {"pd", "pdA"},
          {"as", "qpZ"},
          {"type", "RC"},
          {"send_cq", "cqA"},
          {"recv_cq", "cqA"}});
    modify("qpZ", {{"qp_state", "INIT"},
                   {"pkey_index", 0},
                   {"port_num", 1},
                   {"qp_access_flags", {"REMOTE_WRITE"}}});
    modify("qpZ", {{"qp_state", "RTR"},
                   {"path_mtu", 1024},
                   {"dest_qp_num", "0xfffff0"},
                   {"rq_psn", 1},
                   {"ah_attr", {{"peer", "B"}}},
                   {"max_dest_rd_atomic", 1},
                   {"min_rnr_timer", 1}});
    modify("qpZ", {{"qp_state", "RTS"},
                   {"sq_psn", start_psn(r_)},
                   {"timeout", 8},
                   {"retry_cnt", 1 + r_.below(3)},
                   {"rnr_retry", 7},
                   {"max_rd_atomic", 1}});
  }

  void post_recv(const std::string& qp, const char* mr, std::uint64_t wr_id) {
    step({{"op", "post_recv"},
          {"qp", qp},
          {"wr", {{"wr_id", wr_id}, {"sg_list", {{{"lkey", mr}, {"length", kRecvLen}}}}}}});
  }

  // A requester WR of `len` bytes at `offset` in the MR `lkey`.
  void post_send(const std::string& qp, const char* lkey, std::uint64_t wr_id,
                 const std::string& opcode, std::uint32_t len, std::uint64_t offset,
                 json extra = json::object()) {
    json wr = {{"wr_id", wr_id}, {"opcode", opcode}, {"send_flags", {"SIGNALED"}}};
    wr["sg_list"] = {{{"lkey", lkey}, {"offset", offset}, {"length", len}}};
    for (auto& [k, v] : extra.items()) wr[k] = v;
    step({{"op", "post_send"}, {"qp", qp}, {"wr", std::move(wr)}});
  }

  void traffic(std::size_t i) {
    Pair& p = pairs_[i];
    std::vector<std::string> ops;
    if (p.type == "RC")
      ops = {"SEND",      "SEND_WITH_IMM",       "SEND_WITH_INV",      "RDMA_WRITE",
             "RDMA_READ", "RDMA_WRITE_WITH_IMM", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD"};
    else if (p.type == "UC")
      ops = {"SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM"};
    else
      ops = {"SEND", "SEND_WITH_IMM"};
    if (p.type == "RC" && placements_) {
      ops.push_back("FLUSH");
      ops.push_back("ATOMIC_WRITE");
    }
    const unsigned n = 2 + static_cast<unsigned>(r_.below(7));
    unsigned recvs = 0;
    std::vector<json> sends;
    for (unsigned k = 0; k < n; ++k) {
      const std::string op = r_.pick(ops);
      const std::uint64_t wr_id = 100 * (i + 1) + k;
      if (op == "SEND_WITH_INV") {
        if (p.mws.size() >= 2) continue;
        bind_window(p);
      }
      const bool consumes = op.rfind("SEND", 0) == 0 || op == "RDMA_WRITE_WITH_IMM";
      if (consumes) ++recvs;
      const std::uint32_t len = p.type == "UD"
                                    ? std::min<std::uint32_t>(message_size(r_, p.mtu), 4096)
                                    : message_size(r_, p.mtu);
      const std::uint64_t src = r_.below(0x1000) * 8;
      const std::uint64_t dst = r_.below(0x2000) * 8;
      json extra = json::object();
      if (op == "FLUSH") {
        // The remote MR made global or persistent at an address (the scenario format gives a
        // FLUSH no gather list: its RETH length is 0).
        json wr = {{"wr_id", wr_id},
                   {"opcode", op},
                   {"send_flags", {"SIGNALED"}},
                   {"rkey", p.remote_mr()},
                   {"remote_offset", dst},
                   {"flush_type", {r_.chance(50) ? "GLOBAL" : "PERSISTENT"}},
                   {"flush_level", r_.chance(50) ? "RANGE" : "MR"}};
        step({{"op", "post_send"}, {"qp", p.req()}, {"wr", std::move(wr)}});
        continue;
      }
      if (op == "ATOMIC_WRITE") {
        extra = {{"rkey", p.remote_mr()}, {"remote_offset", dst}};
        post_send(p.req(), p.local_mr(), wr_id, op, 8, 0x30000 + k * 8, extra);
        continue;
      }
      if (op.rfind("ATOMIC", 0) == 0) {
        extra = {{"rkey", p.remote_mr()}, {"remote_offset", dst}, {"compare_add", r_.below(1000)}};
        if (op == "ATOMIC_CMP_AND_SWP") extra["swap"] = r_.below(1000);
        post_send(p.req(), p.local_mr(), wr_id, op, 8, 0x30000 + k * 8, extra);
        continue;
      }
      if (op.rfind("RDMA", 0) == 0) extra = {{"rkey", p.remote_mr()}, {"remote_offset", dst}};
      if (op.find("WITH_IMM") != std::string::npos) extra["imm_data"] = hex(r_.next() >> 32);
      if (op == "SEND_WITH_INV") extra["invalidate_rkey"] = p.mws.back();
      if (p.type == "UD") {
        extra["ah"] = {{"peer", p.resp_adapter()}};
        extra["remote_qpn"] = p.resp();
        extra["remote_qkey"] = "0x1111";
      }
      if (op == "RDMA_READ") {
        // The READ lands in A's upper half, away from what A sends.
        post_send(p.req(), p.local_mr(), wr_id, op, len, 0x20000 + src, extra);
        continue;
      }
      post_send(p.req(), p.local_mr(), wr_id, op, len, src, extra);
    }
    if (p.bad_rkey) {
      post_send(p.req(), p.local_mr(), 999, "RDMA_WRITE", 64, 0,
                {{"rkey", "0x7fff00"}, {"remote_addr", hex(p.remote_base())}});
      post_send(p.req(), p.local_mr(), 998, "SEND", 16, 0);  // flushed behind it
    }
    // The receives: before the requests, or after them (RNR).
    if (p.rnr)
      p.late_recvs = recvs + 1;
    else
      for (unsigned k = 0; k < recvs + 1; ++k) post_recv_before(p, 500 + k);
  }

  // Receives must be posted before the requests are; the steps are in order, so they are
  // inserted ahead of this pair's first post_send.
  void post_recv_before(const Pair& p, std::uint64_t wr_id) {
    json s = {
        {"op", "post_recv"},
        {"qp", p.resp()},
        {"wr",
         {{"wr_id", wr_id},
          {"sg_list", {{{"lkey", p.remote_mr()}, {"offset", 0x10000}, {"length", kRecvLen}}}}}}};
    auto it = std::find_if(steps_.begin(), steps_.end(), [&](const json& st) {
      return st["op"] == "post_send" && st["qp"] == p.req();
    });
    steps_.insert(it, std::move(s));
  }

  // A type-2 window on B, bound by B's QP of the pair, for one SEND_WITH_INV to invalidate.
  void bind_window(Pair& p) {
    const std::string mw = fmt::format("mw{}_{}", p.resp(), p.mws.size());
    p.mws.push_back(mw);
    need_binds_ = true;
    // At the end of the set-up, before any traffic.
    const auto pos = static_cast<std::ptrdiff_t>(setup_end_);
    setup_end_ += 2;
    std::vector<json> add = {{{"op", "alloc_mw"}, {"pd", p.resp_pd()}, {"as", mw}, {"type", 2}},
                             {{"op", "post_send"},
                              {"qp", p.resp()},
                              {"wr",
                               {{"wr_id", 800 + p.mws.size()},
                                {"opcode", "BIND_MW"},
                                {"send_flags", {"SIGNALED"}},
                                {"bind",
                                 {{"mw", mw},
                                  {"mr", p.remote_mr()},
                                  {"offset", 0x1000 * p.mws.size()},
                                  {"length", 0x1000},
                                  {"access", {"REMOTE_WRITE", "REMOTE_READ"}}}}}}}};
    steps_.insert(steps_.begin() + pos, add.begin(), add.end());
  }

  Rng r_;
  bool placements_ = false;
  std::vector<json> steps_;
  std::vector<Pair> pairs_;
  bool need_binds_ = false;
  std::size_t setup_end_ = 0;  // index of the first traffic step
};

// Captures what the tap sees in memory, and counts what the adapters sent and the link did.
class Recorder final : public trace::Observer {
 public:
  Recorder(conformance::Tap tap, Run& run) : tap_(tap), run_(run) {}
  void on_frame(const trace::FrameEvent& e) override {
    if (e.dir == trace::Direction::TX) ++run_.sent;
    if (!tap_.taps(e)) return;
    run_.frames.push_back({static_cast<std::int64_t>(e.t), {e.bytes.begin(), e.bytes.end()}});
  }
  void on_fault(const trace::FaultEvent& e) override { ++run_.faults[std::string(e.action)]; }
  void on_nak(const trace::NakEvent& e) override {
    const std::string name(wire::aeth_name(e.syndrome));
    ++run_.events[name.substr(0, name.find(' '))];
  }
  void on_retry(const trace::RetryEvent& e) override {
    ++run_.events["retry " + std::string(trace::to_string(e.kind))];
  }
  // RESET → INIT by modify_qp, in the order the scenario's steps ran: names the QPNs. Every
  // modify_qp is also what a test program logs as a QP state.
  void on_qp_transition(const trace::QpTransitionEvent& e) override {
    if (e.cause != "modify_qp") return;
    if (e.from == qp::QpState::RESET && e.to == qp::QpState::INIT) inits.push_back(e.qpn);
    check::Event ev;
    ev.kind = check::Event::Kind::QpState;
    ev.qpn = e.qpn;
    ev.name = std::string(qp::to_string(e.to));
    logged.push_back({static_cast<std::int64_t>(e.t), e.adapter, std::move(ev)});
  }
  void on_async_event(const trace::AsyncEvent& e) override {
    check::Event ev;
    ev.kind = check::Event::Kind::Async;
    if (errors::event_target(e.kind) == errors::EventTarget::QP) ev.qpn = e.object;
    ev.name = std::string(errors::to_string(e.kind));
    logged.push_back({static_cast<std::int64_t>(e.t), e.adapter, std::move(ev)});
  }
  struct Logged {
    std::int64_t t = 0;
    std::uint32_t adapter = 0;
    check::Event event;
  };
  std::vector<std::uint32_t> inits;
  std::vector<Logged> logged;

 private:
  conformance::Tap tap_;
  Run& run_;
};

}  // namespace

std::uint64_t number_before(const std::string& note, std::string_view what) {
  const auto at = note.find(what);
  if (at == std::string::npos || at == 0) return 0;
  auto from = note.rfind(' ', at - 1);
  from = from == std::string::npos ? 0 : from + 1;
  return std::strtoull(note.substr(from, at - from).c_str(), nullptr, 10);
}

std::string_view verdict_name(check::Verdict v) {
  switch (v) {
    case check::Verdict::PASS:
      return "PASS";
    case check::Verdict::DEVIATION:
      return "DEVIATION";
    case check::Verdict::UNSUPPORTED:
      return "UNSUPPORTED";
    case check::Verdict::INCONCLUSIVE:
      return "INCONCLUSIVE";
    case check::Verdict::FAIL:
      return "FAIL";
  }
  return "?";
}

Case make_case(std::uint64_t seed, Ops ops) {
  Case c;
  c.seed = seed;
  c.ops = ops;
  Builder b(seed, ops);
  c.scenario = b.build(c).dump();
  Rng r(seed ^ 0x7A9ull);
  switch (r.below(4)) {
    case 0:
      c.tap = {conformance::Tap::Point::EGRESS, 0};
      break;
    case 1:
      c.tap = {conformance::Tap::Point::INGRESS, 0};
      break;
    case 2:
      c.tap = {conformance::Tap::Point::HOST, 0};
      break;
    default:
      c.tap = {conformance::Tap::Point::HOST, 1};
      break;
  }
  return c;
}

std::string tap_name(const conformance::Tap& tap) {
  switch (tap.point) {
    case conformance::Tap::Point::EGRESS:
      return "egress (before the faults)";
    case conformance::Tap::Point::INGRESS:
      return "ingress (after the faults)";
    case conformance::Tap::Point::HOST:
      return tap.adapter == 0 ? "host A" : "host B";
  }
  return "?";
}

Run run_case(const Case& c) {
  Run run;
  const conformance::Scenario s =
      conformance::parse_scenario(c.scenario, fmt::format("corpus-seed-{}.json", c.seed));
  Recorder rec(c.tap, run);
  conformance::RunOptions opt;
  opt.seed = c.seed;
  opt.observers.push_back(&rec);
  const conformance::RunResult res = conformance::run_scenario(s, opt);
  for (const conformance::Failure& f : res.failures)
    run.failures.push_back(f.path + ": " + f.message);
  run.completions = res.completions.size();
  run.end_ns = res.end_time;
  for (const conformance::PolledCompletion& pc : res.completions)
    if (pc.wc.status != cq::WcStatus::SUCCESS)
      ++run.events["completion " + std::string(cq::to_string(pc.wc.status))];
  wire::DecodeOptions dopt;
  dopt.verify_icrc = false;
  std::map<std::uint32_t, unsigned>
      wrap;  // DestQP -> bit 0: a PSN just below 2^24, bit 1: just above 0
  for (const CapturedFrame& f : run.frames) {
    const wire::ParsedFrame p = wire::decode(f.bytes, dopt);
    if (!p.has_bth || p.has_error) continue;
    run.opcodes.insert(std::string(p.op->name));
    if (p.bth.psn >= 0xFFFFF0) wrap[p.bth.dqpn] |= 1;
    if (p.bth.psn < 0x10) wrap[p.bth.dqpn] |= 2;
  }
  for (const auto& [qpn, bits] : wrap)
    if (bits == 3) ++run.events["PSN wrap"];
  // The QPN of each QP: its RESET → INIT step, matched in order with the transitions seen.
  std::vector<std::string> init_steps;
  for (const conformance::Step& step : s.steps)
    if (const auto* m = std::get_if<conformance::ModifyQpStep>(&step.body);
        m != nullptr && m->mask.has(qp::AttrBit::STATE) && m->attr.qp_state == qp::QpState::INIT)
      init_steps.push_back(s.object(m->qp).name);
  if (init_steps.size() == rec.inits.size())  // else a step failed: no QP is numbered
    for (std::size_t i = 0; i < init_steps.size(); ++i)
      run.qpns.emplace(init_steps[i], rec.inits[i]);
  run.setup = std::make_shared<const check::Setup>(
      check::make_setup(s, fmt::format("corpus-seed-{}.json", c.seed), &run.qpns));
  // The log: completions (when they entered their CQ) merged with the states and events.
  for (const conformance::PolledCompletion& pc : res.completions) {
    check::Event ev;
    ev.kind = check::Event::Kind::Wc;
    ev.qpn = pc.wc.qp_num;
    ev.wr_id = pc.wc.wr_id;
    ev.status = pc.wc.status;
    if (pc.wc.status == cq::WcStatus::SUCCESS) ev.opcode = pc.wc.opcode;
    rec.logged.push_back(
        {static_cast<std::int64_t>(pc.t), static_cast<std::uint32_t>(pc.adapter), std::move(ev)});
  }
  std::stable_sort(rec.logged.begin(), rec.logged.end(),
                   [](const auto& a, const auto& b) { return a.t < b.t; });
  auto log = std::make_shared<check::Events>();
  log->file = fmt::format("corpus-seed-{}.events.jsonl", c.seed);
  for (auto& l : rec.logged) {
    const std::array<std::uint8_t, 16>& gid = s.adapters.at(l.adapter).config.gid;
    bool mapped = gid[10] == 0xFF && gid[11] == 0xFF;
    for (std::size_t i = 0; i < 10; ++i) mapped = mapped && gid[i] == 0;
    l.event.host = {};
    if (mapped) {
      std::copy(gid.begin() + 12, gid.end(), l.event.host.begin());
    } else {
      l.event.host = gid;
      l.event.ip_version = 6;
    }
    l.event.line = log->events.size() + 1;
    log->events.push_back(std::move(l.event));
  }
  run.log = std::move(log);
  return run;
}

check::Report check_run(const Run& run, const check::Profile& profile, const std::string& name,
                        unsigned jobs, std::uint32_t shard_drill, bool with_log) {
  check::Options opt;
  opt.jobs = jobs;
  opt.shard_drill = shard_drill;
  opt.profile = profile;
  opt.setup = run.setup;
  if (with_log) opt.events = run.log;
  check::Checker checker(opt);
  std::uint64_t n = 0;
  for (const CapturedFrame& f : run.frames)
    checker.add_frame(++n, f.ts_ns, static_cast<std::uint32_t>(f.bytes.size()), f.bytes,
                      wire::LinkType::Ethernet);
  return checker.finish(name);
}

void write_pcap(const Run& run, const std::string& path) {
  pcap::Writer w(path, 1, pcap::Precision::Nano, pcap::Format::Pcap);
  for (const CapturedFrame& f : run.frames) w.write(f.ts_ns, f.bytes);
  w.close();
}

std::vector<const check::Violation*> failing_violations(const check::Report& report) {
  std::vector<const check::Violation*> out;
  for (const check::Violation& v : report.violations)
    if (!v.deviation && v.explained.empty() &&
        check::rule(v.rule).severity == check::Severity::Error)
      out.push_back(&v);
  return out;
}

bool only_declared(const check::Report& report, const check::Profile& declared) {
  for (const check::Violation* v : failing_violations(report)) {
    const bool covered = std::any_of(
        declared.deviations.begin(), declared.deviations.end(), [&](const check::Deviation& d) {
          return d.rule == v->rule && (d.cause == "*" || d.cause == v->cause);
        });
    if (!covered) return false;
  }
  return true;
}

std::string describe(const Case& c, const Run& run, const check::Report& report,
                     const std::string& pcap_path) {
  std::string s = fmt::format(
      "seed {}: verdict {} with profile {}\n  tap: {}\n  faults: {}\n  frames captured {}, "
      "sent {}\n  capture written to {} (replay: rocecert check {} --profile {})\n",
      c.seed, verdict_name(report.verdict), report.profile, tap_name(c.tap), c.fault_plan,
      run.frames.size(), run.sent, pcap_path, pcap_path, report.profile);
  for (const auto& [action, n] : run.faults) s += fmt::format("  fault {}: {} frames\n", action, n);
  std::size_t shown = 0;
  for (const check::Violation& v : report.violations) {
    if (++shown > 8) break;
    s += fmt::format("  frame {}: {} ({}) qpn 0x{:x} psn {}{}: {}\n", v.frame,
                     check::rule(v.rule).id, v.cause, v.qpn, v.psn,
                     v.deviation ? " [deviation]" : "", v.message);
  }
  for (const check::Note& n : report.notes) {
    if (++shown > 12) break;
    s += fmt::format("  note frame {}: {}\n", n.frame, n.message);
  }
  return s;
}

std::vector<check::Profile> corpus_profiles() {
  return {check::load_profile("rxe"), check::load_profile("iba")};
}

std::vector<std::string> judge(const std::vector<check::Report>& reports,
                               const std::vector<check::Profile>& profiles) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < reports.size() && i < profiles.size(); ++i) {
    const check::Report& r = reports[i];
    const std::string& name = profiles[i].name;
    if (i == 0 && r.verdict == check::Verdict::FAIL)
      out.push_back(fmt::format("verdict FAIL with profile {}", name));
    if (i > 0 && !only_declared(r, profiles[0]))
      out.push_back(fmt::format("profile {}: a violation that profile {} does not declare", name,
                                profiles[0].name));
    if (r.verdict == check::Verdict::INCONCLUSIVE && r.notes.empty())
      out.push_back(fmt::format("profile {}: INCONCLUSIVE without a note saying why", name));
    if (r.verdict == check::Verdict::UNSUPPORTED)
      out.push_back(fmt::format("profile {}: UNSUPPORTED on RC/UC/UD traffic", name));
  }
  return out;
}

Outcome evaluate(std::uint64_t seed, const std::vector<check::Profile>& profiles,
                 const EvalOptions& how) {
  const unsigned compare_jobs = how.compare_jobs;
  const bool with_log = how.with_log && !how.cut_head;
  Outcome o;
  o.c = make_case(seed, how.ops);
  o.run = run_case(o.c);
  std::uint64_t cut = 0;  // frames the tap missed at the start (EvalOptions::cut_head)
  if (how.cut_head && o.run.frames.size() >= 2) {
    std::uint64_t h = seed * 0x9E3779B97F4A7C15ull;  // splitmix64 of the seed
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    cut = 1 + h % (o.run.frames.size() - 1);
    o.run.frames.erase(o.run.frames.begin(),
                       o.run.frames.begin() + static_cast<std::ptrdiff_t>(cut));
  }
  for (const std::string& f : o.run.failures) o.problems.push_back("the model refused: " + f);
  if (o.run.end_ns > kBusyLimitNs)
    o.problems.push_back(fmt::format("the model was still busy after {} ms of simulated time",
                                     o.run.end_ns / 1'000'000));
  if (o.run.frames.empty()) o.problems.push_back("nothing captured");
  const auto fault = [&](const char* a) {
    const auto it = o.run.faults.find(a);
    return it == o.run.faults.end() ? std::uint64_t{0} : it->second;
  };
  // What the tap saw must be what the link did: everything sent at the egress, everything sent
  // less the drops plus the duplicates at the ingress.
  std::uint64_t want = o.run.sent;
  if (o.c.tap.point == conformance::Tap::Point::INGRESS)
    want = o.run.sent - fault("drop") + fault("duplicate");
  if (o.c.tap.point != conformance::Tap::Point::HOST && o.run.frames.size() + cut != want)
    o.problems.push_back(
        fmt::format("the tap saw {} frames, {} expected", o.run.frames.size(), want));
  const std::string name = fmt::format("corpus-seed-{}.pcap", seed);
  for (const check::Profile& p : profiles)
    o.reports.push_back(check_run(o.run, p, name, 1, 0, with_log));
  for (std::string& p : judge(o.reports, profiles)) o.problems.push_back(std::move(p));
  if (compare_jobs >= 2 && !profiles.empty()) {
    std::ostringstream one, many;
    check::write_json(o.reports.front(), one);
    // Half the seeds with streams moving between threads every few frames (Options::shard_drill).
    const auto drill = static_cast<std::uint32_t>(seed % 2 == 0 ? 0 : 1 + seed / 2 % 7);
    check::write_json(check_run(o.run, profiles.front(), name, compare_jobs, drill, with_log),
                      many);
    if (one.str() != many.str())
      o.problems.push_back(
          fmt::format("the report on {} threads differs from one thread's", compare_jobs));
  }
  // A seed with a problem leaves its capture and scenario behind; with ROCECERT_CORPUS_KEEP=1
  // in the environment every seed does (to look into one that passed).
  const char* keep = std::getenv("ROCECERT_CORPUS_KEEP");
  if (!o.problems.empty() || (keep != nullptr && std::string_view(keep) == "1")) {
    const std::string path =
        (std::filesystem::temp_directory_path() / fmt::format("rocecert-corpus-{}.pcap", seed))
            .string();
    const std::string scenario_path =
        (std::filesystem::temp_directory_path() / fmt::format("rocecert-corpus-{}.json", seed))
            .string();
    write_pcap(o.run, path);
    std::ofstream(scenario_path) << o.c.scenario << "\n";
    for (const std::string& p : o.problems) o.detail += "  problem: " + p + "\n";
    o.detail += fmt::format("  scenario written to {}\n", scenario_path);
    if (cut != 0)
      o.detail +=
          fmt::format("  the capture's first {} frames cut (the pcap holds the rest)\n", cut);
    for (const check::Report& r : o.reports) o.detail += describe(o.c, o.run, r, path);
  }
  return o;
}

const std::vector<std::string>& required_opcodes(Ops ops) {
  if (ops == Ops::with_placements) {
    static const std::vector<std::string> kWith = [] {
      std::vector<std::string> v = required_opcodes(Ops::classic);
      v.push_back("RC_FLUSH");
      v.push_back("RC_ATOMIC_WRITE");
      return v;
    }();
    return kWith;
  }
  static const std::vector<std::string> kOpcodes = {
      // RC requests
      "RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_LAST", "RC_SEND_ONLY",
      "RC_SEND_LAST_WITH_IMMEDIATE", "RC_SEND_ONLY_WITH_IMMEDIATE", "RC_SEND_LAST_WITH_INVALIDATE",
      "RC_SEND_ONLY_WITH_INVALIDATE", "RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_MIDDLE",
      "RC_RDMA_WRITE_LAST", "RC_RDMA_WRITE_ONLY", "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
      "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RC_RDMA_READ_REQUEST", "RC_COMPARE_SWAP",
      "RC_FETCH_ADD",
      // RC responses
      "RC_RDMA_READ_RESPONSE_FIRST", "RC_RDMA_READ_RESPONSE_MIDDLE", "RC_RDMA_READ_RESPONSE_LAST",
      "RC_RDMA_READ_RESPONSE_ONLY", "RC_ACKNOWLEDGE", "RC_ATOMIC_ACKNOWLEDGE",
      // UC
      "UC_SEND_FIRST", "UC_SEND_MIDDLE", "UC_SEND_LAST", "UC_SEND_ONLY",
      "UC_SEND_LAST_WITH_IMMEDIATE", "UC_SEND_ONLY_WITH_IMMEDIATE", "UC_RDMA_WRITE_FIRST",
      "UC_RDMA_WRITE_MIDDLE", "UC_RDMA_WRITE_LAST", "UC_RDMA_WRITE_ONLY",
      "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
      // UD
      "UD_SEND_ONLY", "UD_SEND_ONLY_WITH_IMMEDIATE"};
  return kOpcodes;
}

}  // namespace rocecert::check_corpus
