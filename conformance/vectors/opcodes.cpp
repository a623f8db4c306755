// The `opcodes` area (vectors/README.md), from the opcode table
// (refmodel/include/rocecert/wire/opcodes.def): every opcode the model puts on the wire gets the
// work request that carries it (a SEND, WRITE or READ of one packet for ONLY, of three path MTUs
// for FIRST/MIDDLE/LAST; the atomic, FLUSH or ATOMIC WRITE itself; a CE-marked packet for the
// CNP), and opcodes that share a work request share its vector. Responses come with the requests
// that draw them.
#include <fmt/format.h>

#include <map>
#include <optional>

#include "internal.h"

namespace rocecert::vectors::detail {
namespace {

using wire::Operation;
using wire::Position;
using wire::Transport;

constexpr std::uint32_t kMtu = 1024;
constexpr std::uint32_t kShort = 64;           // an ONLY packet's payload
constexpr std::uint32_t kLong = 3 * kMtu;      // FIRST, MIDDLE, LAST
constexpr std::uint64_t kAddrA = 0x10000;      // A's buffer
constexpr std::uint64_t kAddrB = 0x20000;      // B's buffer (the remote side)
constexpr std::uint32_t kBufLen = 0x4000;      // each buffer
constexpr std::uint32_t kAtomicOffset = 1024;  // B's 64-bit target (8-byte aligned)
constexpr std::uint32_t kRecvOffset = 8192;    // B's receive buffer

// What one vector of the `opcodes` area posts.
struct Recipe {
  Transport transport = Transport::RC;
  std::string wr;  // the post_send opcode (docs/scenario.md), or "CNP"
  std::uint32_t length = 0;
  std::string slug;  // the objective in the id: "rc-send-with-imm-3mtu"
};

// An id's part: lower case, '_' as '-' ("SEND_WITH_IMM" -> "send-with-imm").
std::string id_part(std::string s) {
  for (char& c : s) {
    if (c == '_') c = '-';
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

// The work request that puts `op` on the wire, if the model sends it.
std::optional<Recipe> recipe_for(const wire::OpcodeInfo& op) {
  if (!op.known) return std::nullopt;
  const Transport t = op.transport;
  if (t == Transport::CNP) return Recipe{t, "CNP", kShort, "cnp"};
  if (t != Transport::RC && t != Transport::UC && t != Transport::UD) return std::nullopt;
  const bool imm = (op.flags & wire::kImm) != 0;
  const bool inv = (op.flags & wire::kInv) != 0;
  const std::uint32_t len = op.position == Position::ONLY ? kShort : kLong;
  std::string wr;
  switch (op.operation) {
    case Operation::SEND:
      wr = inv ? "SEND_WITH_INV" : imm ? "SEND_WITH_IMM" : "SEND";
      break;
    case Operation::WRITE:
      wr = imm ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE";
      break;
    case Operation::READ_REQUEST:
      return Recipe{t, "RDMA_READ", kShort, "rc-rdma-read-1pkt"};
    case Operation::READ_RESPONSE:
      return Recipe{t, "RDMA_READ", len, len == kShort ? "rc-rdma-read-1pkt" : "rc-rdma-read-3mtu"};
    case Operation::ACK:
      return Recipe{t, "SEND", kShort, "rc-send-1pkt"};
    case Operation::ATOMIC_ACK:
    case Operation::FETCH_ADD:
      return Recipe{t, "ATOMIC_FETCH_AND_ADD", 8, "rc-atomic-fetch-and-add"};
    case Operation::COMPARE_SWAP:
      return Recipe{t, "ATOMIC_CMP_AND_SWP", 8, "rc-atomic-cmp-and-swp"};
    case Operation::FLUSH:
      return Recipe{t, "FLUSH", kShort, "rc-flush"};
    case Operation::ATOMIC_WRITE:
      return Recipe{t, "ATOMIC_WRITE", 8, "rc-atomic-write"};
    case Operation::RESYNC:
    case Operation::CNP:
      return std::nullopt;
  }
  return Recipe{t, wr, len,
                id_part(transport_name(t) + "-" + wr) + (len == kShort ? "-1pkt" : "-3mtu")};
}

json scenario_for(const Recipe& r) {
  const bool cnp = r.wr == "CNP";
  const Transport t = cnp ? Transport::RC : r.transport;
  json s;
  s["description"] = "";  // set by the caller
  s["seed"] = 1;
  json pa = json::object(), pb = json::object();
  if (cnp) {
    pa["dcqcn"] = {{"line_rate_gbps", 25}, {"preset", "PAPER"}};
    pb["send_cnp"] = true;
  }
  s["adapters"] = json::array({adapter("A", "02:00:00:00:00:01", "10.0.0.1", pa),
                               adapter("B", "02:00:00:00:00:02", "10.0.0.2", pb)});
  json link = {{"a", "A"}, {"b", "B"}, {"latency_ns", 1000}, {"gbps", 25}};
  if (cnp)
    link["faults"] = {
        {"description", "A switch marks A's first packet CE."},
        {"rules", json::array({{{"action", "ecn_ce"}, {"direction", "a_to_b"}, {"nth", 1}}})}};
  s["links"] = json::array({link});

  json steps = json::array();
  const char* type = t == Transport::RC ? "RC" : t == Transport::UC ? "UC" : "UD";
  json remote_access = t == Transport::RC
                           ? json::array({"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ",
                                          "REMOTE_ATOMIC", "FLUSH_GLOBAL", "FLUSH_PERSISTENT"})
                           : json::array({"LOCAL_WRITE", "REMOTE_WRITE"});
  if (r.wr == "SEND_WITH_INV") remote_access.push_back("MW_BIND");
  steps.push_back(step({{"op", "alloc_pd"}, {"adapter", "A"}, {"as", "pdA"}}));
  steps.push_back(step({{"op", "alloc_pd"}, {"adapter", "B"}, {"as", "pdB"}}));
  steps.push_back(step({{"op", "reg_mr"},
                        {"pd", "pdA"},
                        {"as", "mrA"},
                        {"addr", fmt::format("{:#x}", kAddrA)},
                        {"length", kBufLen},
                        {"access", json::array({"LOCAL_WRITE"})},
                        {"contents", {{"counter", 0}}}}));
  steps.push_back(step({{"op", "reg_mr"},
                        {"pd", "pdB"},
                        {"as", "mrB"},
                        {"addr", fmt::format("{:#x}", kAddrB)},
                        {"length", kBufLen},
                        {"access", remote_access},
                        {"contents", json::array({{{"counter", 128}, {"length", kAtomicOffset}},
                                                  {{"offset", kAtomicOffset}, {"u64", 100}}})}}));
  if (r.wr == "SEND_WITH_INV") {
    // What the SEND invalidates: a type 2 window B binds on its QP (an MR is not remotely
    // invalidated: docs/spec-notes.md §7.4).
    steps.push_back(step({{"op", "alloc_mw"}, {"pd", "pdB"}, {"as", "mwB"}, {"type", 2}}));
  }
  steps.push_back(step({{"op", "create_cq"}, {"adapter", "A"}, {"as", "cqA"}, {"cqe", 16}}));
  steps.push_back(step({{"op", "create_cq"}, {"adapter", "B"}, {"as", "cqB"}, {"cqe", 16}}));
  steps.push_back(step(
      {{"op", "create_qp"}, {"pd", "pdA"}, {"as", "qpA"}, {"type", type}, {"send_cq", "cqA"}}));
  steps.push_back(step(
      {{"op", "create_qp"}, {"pd", "pdB"}, {"as", "qpB"}, {"type", type}, {"send_cq", "cqB"}}));
  for (const char* q : {"qpA", "qpB"}) {
    json init = {{"qp_state", "INIT"}, {"pkey_index", 0}, {"port_num", 1}};
    if (t == Transport::UD)
      init["qkey"] = kQkey;
    else
      init["qp_access_flags"] = t == Transport::RC
                                    ? json::array({"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC",
                                                   "FLUSH_GLOBAL", "FLUSH_PERSISTENT"})
                                    : json::array({"REMOTE_WRITE"});
    steps.push_back(step({{"op", "modify_qp"}, {"qp", q}, {"attr", init}}));
  }
  for (const auto& [q, peer, rq, sq] :
       {std::tuple{"qpA", "qpB", 200, 100}, std::tuple{"qpB", "qpA", 100, 200}}) {
    json rtr = {{"qp_state", "RTR"}};
    if (t != Transport::UD) {
      rtr["path_mtu"] = kMtu;
      rtr["dest_qp_num"] = peer;
      rtr["rq_psn"] = rq;
      rtr["ah_attr"] = {{"peer", peer}};
    }
    if (t == Transport::RC) {
      rtr["max_dest_rd_atomic"] = 4;
      rtr["min_rnr_timer"] = 12;
    }
    steps.push_back(step({{"op", "modify_qp"}, {"qp", q}, {"attr", rtr}}));
    json rts = {{"qp_state", "RTS"}, {"sq_psn", sq}};
    if (t == Transport::RC) {
      rts["timeout"] = 14;
      rts["retry_cnt"] = 7;
      rts["rnr_retry"] = 7;
      rts["max_rd_atomic"] = 4;
    }
    steps.push_back(step({{"op", "modify_qp"}, {"qp", q}, {"attr", rts}}));
  }
  if (r.wr == "SEND_WITH_INV")
    steps.push_back(step({{"op", "post_send"},
                          {"qp", "qpB"},
                          {"wr",
                           {{"wr_id", 50},
                            {"opcode", "BIND_MW"},
                            {"bind",
                             {{"mw", "mwB"},
                              {"mr", "mrB"},
                              {"offset", 0},
                              {"length", 4096},
                              {"access", json::array({"REMOTE_WRITE"})}}}}}}));
  if (r.wr == "SEND_WITH_INV") steps.push_back(step({{"op", "run"}}));  // bound: its rkey is known
  const bool recv = r.wr.rfind("SEND", 0) == 0 || r.wr == "RDMA_WRITE_WITH_IMM";
  if (recv) {
    const std::uint32_t len = t == Transport::UD ? kShort + 40 : kLong;  // UD: the GRH first
    steps.push_back(
        step({{"op", "post_recv"},
              {"qp", "qpB"},
              {"wr",
               {{"wr_id", 100},
                {"sg_list",
                 json::array({{{"lkey", "mrB"}, {"offset", kRecvOffset}, {"length", len}}})}}}}));
  }
  json wr = {{"wr_id", 1}};
  const std::string op = cnp ? "RDMA_WRITE" : r.wr;
  wr["opcode"] = op;
  wr["send_flags"] = json::array({"SIGNALED"});
  if (op == "ATOMIC_FETCH_AND_ADD" || op == "ATOMIC_CMP_AND_SWP") {
    wr["sg_list"] = json::array({{{"lkey", "mrA"}, {"offset", 512}, {"length", 8}}});
    wr["rkey"] = "mrB";
    wr["remote_offset"] = kAtomicOffset;
    wr["compare_add"] = op == "ATOMIC_CMP_AND_SWP" ? 100 : 5;
    if (op == "ATOMIC_CMP_AND_SWP") wr["swap"] = 7;
  } else if (op == "FLUSH") {
    wr["rkey"] = "mrB";
    wr["remote_offset"] = 0;
    wr["flush_type"] = json::array({"GLOBAL"});
    wr["flush_level"] = "RANGE";
  } else {
    wr["sg_list"] = json::array({{{"lkey", "mrA"}, {"length", r.length}}});
  }
  if (op.find("WITH_IMM") != std::string::npos) wr["imm_data"] = "0x12345678";
  if (op == "SEND_WITH_INV") wr["invalidate_rkey"] = "mwB";
  if (op.rfind("RDMA_", 0) == 0 || op == "ATOMIC_WRITE") {
    wr["rkey"] = "mrB";
    wr["remote_offset"] = op == "ATOMIC_WRITE" ? kAtomicOffset : 0;
  }
  if (t == Transport::UD) {
    wr["ah"] = {{"peer", "B"}};
    wr["remote_qpn"] = "qpB";
    wr["remote_qkey"] = kQkey;
  }
  steps.push_back(step({{"op", "post_send"}, {"qp", "qpA"}, {"wr", wr}}));
  steps.push_back(step({{"op", "run"}}));
  s["steps"] = std::move(steps);
  return s;
}

// ------------------------------------------------------------------------------ vectors

std::vector<std::string> clauses_of(const Recipe& r) {
  std::vector<std::string> c = {"IBA Vol. 1 §9.2 (BTH OpCode); docs/spec-notes.md §2",
                                "IBA Vol. 1 §9.4 (packet sequences); docs/spec-notes.md §2.5"};
  if (r.wr == "CNP") return {"IBA Vol. 1 Annex A17.9 (CNP); docs/spec-notes.md §1.4, §10"};
  if (r.transport == Transport::RC)
    c.push_back("IBA Vol. 1 §9.7 (RC acknowledgement); docs/spec-notes.md §3.4-3.5");
  if (r.transport == Transport::UD)
    c.push_back("IBA Vol. 1 §9.8 (UD, DETH); docs/spec-notes.md §2.3");
  return c;
}

std::vector<std::string> capabilities_of(const Recipe& r) {
  std::vector<std::string> c;
  if (r.wr == "CNP") return {"RC", "CNP"};
  c.push_back(transport_name(r.transport));
  if (r.wr.rfind("ATOMIC_", 0) == 0 && r.wr != "ATOMIC_WRITE") c.push_back("ATOMIC");
  if (r.wr == "ATOMIC_WRITE") c.push_back("ATOMIC_WRITE");
  if (r.wr == "FLUSH") c.push_back("FLUSH");
  if (r.wr == "SEND_WITH_INV") c.push_back("SEND_WITH_INV");
  return c;
}

std::string objective_of(const Recipe& r) {
  if (r.wr == "CNP")
    return "A CE-marked RC packet draws a CNP from the notification point (RoCEv2 congestion "
           "control)";
  const std::string size =
      r.length == kLong ? fmt::format("{} bytes, three packets at path MTU {}", r.length, kMtu)
                        : fmt::format("{} bytes, one packet", r.length);
  return fmt::format("{} {} ({}) on the wire, with its responses and completions",
                     transport_name(r.transport), r.wr, size);
}

}  // namespace

std::vector<Generated> opcode_vectors() {
  std::map<std::string, Recipe> recipes;  // by slug: opcodes that share a WR share a vector
  for (const wire::OpcodeInfo& op : wire::kOpcodeTable)
    if (const std::optional<Recipe> r = recipe_for(op)) recipes.emplace(r->slug, *r);
  std::vector<Generated> out;
  for (const auto& [slug, r] : recipes) {
    Vector v;
    v.id = "opcodes/" + r.slug + "-00";
    v.objective = objective_of(r);
    v.clauses = clauses_of(r);
    v.capabilities = capabilities_of(r);
    json sc = scenario_for(r);
    sc["description"] = v.objective;
    out.push_back(record(std::move(v), std::move(sc)));
  }
  return out;
}

std::string no_vector_reason(const wire::OpcodeInfo& op) {
  if (op.transport == Transport::RD)
    return "RD is not used on RoCE (docs/spec-notes.md §2.4): decode-only";
  if (op.transport == Transport::XRC)
    return "XRC: the model has no XRC QP yet; decode-only (rocecert decode)";
  if (op.operation == Operation::RESYNC) return "RESYNC is RD only";
  return {};
}

}  // namespace rocecert::vectors::detail
