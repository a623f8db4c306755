// The `boundary` area (vectors/README.md): the edges of the transport's numbers, on two connected
// RC QPs: every path MTU, zero-length and MTU-multiple messages, a message over 2^31 bytes and a
// misaligned atomic refused at post time, a message across the 24-bit PSN wrap, accesses that
// end at an MR's last byte or one byte past it, and a range that wraps past 2^64.
#include <fmt/format.h>

#include <functional>

#include "internal.h"

namespace rocecert::vectors::detail {
namespace {

struct Case {
  std::string slug;
  std::string objective;
  std::vector<std::string> clauses;
  Pair pair;
  std::function<void(json& steps)> stimulus;
  std::vector<std::string> capabilities = {"RC"};
};

json send_into_b(std::uint32_t length) {
  json s = json::array();
  s.push_back(recv("qpB", sge("mrB", std::max<std::uint32_t>(length, 1), 0)));
  s.push_back(post("qpA", wr("SEND", length == 0 ? json::array() : sge("mrA", length))));
  return s;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (std::uint32_t mtu : {256u, 512u, 1024u, 2048u, 4096u}) {
    Pair p;
    p.mtu = mtu;
    out.push_back({fmt::format("mtu-{}", mtu),
                   fmt::format("path MTU {}: a SEND of three MTUs is FIRST, MIDDLE and LAST of "
                               "{} bytes each",
                               mtu, mtu),
                   {"IBA Vol. 1 §9.4 (packet sizes at the path MTU), Annex A17.3 (RoCEv2 MTUs)",
                    "docs/spec-notes.md §2.5"},
                   p,
                   [mtu](json& s) {
                     for (json& x : send_into_b(3 * mtu)) s.push_back(std::move(x));
                   }});
  }
  out.push_back(
      {"zero-length-send",
       "a SEND of zero bytes is one SEND ONLY without payload",
       {"IBA Vol. 1 §9.4 (a message of zero bytes is one packet)", "docs/spec-notes.md §2.1, §2.5"},
       Pair{},
       [](json& s) {
         for (json& x : send_into_b(0)) s.push_back(std::move(x));
       }});
  out.push_back({"mtu-multiple-send",
                 "a SEND of exactly two MTUs is FIRST and LAST, both full (no empty LAST)",
                 {"IBA Vol. 1 §9.4 (packets = ceil(length / MTU))", "docs/spec-notes.md §2.5"},
                 Pair{},
                 [](json& s) {
                   for (json& x : send_into_b(2048)) s.push_back(std::move(x));
                 }});
  out.push_back({"message-over-2g-refused",
                 "a work request of 2^31 + 1 bytes is refused by post_send (a message is at most "
                 "2^31 bytes)",
                 {"IBA Vol. 1 §9.4 (message length at most 2^31)", "docs/spec-notes.md §2.5"},
                 Pair{},
                 [](json& s) {
                   json p = post("qpA", wr("SEND", json::array({{{"lkey", 4660},
                                                                 {"addr", "0x10000"},
                                                                 {"length", 0x80000001u}}})));
                   p["expect_error"] = "MESSAGE_TOO_LONG";
                   s.push_back(std::move(p));
                 }});
  out.push_back({"misaligned-atomic-refused",
                 "an atomic whose remote address is not 8-byte aligned is refused by post_send",
                 {"IBA Vol. 1 §9.4.5 (atomic operations on aligned 64-bit words)",
                  "docs/spec-notes.md §2.5, §7.6"},
                 Pair{},
                 [](json& s) {
                   json w = remote(wr("ATOMIC_FETCH_AND_ADD", sge("mrA", 8)));
                   w["remote_offset"] = 4;
                   w["compare_add"] = 1;
                   json p = post("qpA", std::move(w));
                   p["expect_error"] = "BAD_ATOMIC";
                   s.push_back(std::move(p));
                 }});
  Pair wrap;
  wrap.a_sq_psn = 0xFFFFFE;
  out.push_back({"psn-wrap-in-message",
                 "a three-packet SEND from PSN 0xFFFFFE: its PSNs wrap to 0 inside the message, "
                 "and the ACK covers them",
                 {"IBA Vol. 1 §9.7.1 (PSN modulo 2^24)", "docs/spec-notes.md §3.1"},
                 wrap,
                 [](json& s) {
                   for (json& x : send_into_b(3072)) s.push_back(std::move(x));
                 }});
  // The responder's PSN window (IBA Vol. 1 §9.7.5.1.1, docs/spec-notes.md §3.1, §3.3): from its
  // expected PSN, the 2^23 - 1 PSNs after it are the future (a PSN sequence NAK), the 2^23 before
  // it, the value 2^23 ahead included, are duplicates (not executed again). A's first SEND
  // arrives at each edge; A gives up after one retry (retry_cnt 1).
  for (const auto& [slug, objective, back] :
       {std::tuple{"psn-window-future-edge",
                   "a SEND whose PSN is 2^23 - 1 after the responder's expected PSN, the last "
                   "PSN of the future: a PSN sequence NAK naming the expected PSN",
                   0x7FFFFFu},
        std::tuple{"psn-window-duplicate-edge",
                   "a SEND whose PSN is 2^23 away from the responder's expected PSN, the oldest "
                   "duplicate: acknowledged as a duplicate, not executed",
                   0x800000u}}) {
    Pair p;
    p.b_rq_psn_back = back;
    p.retry_cnt = 1;
    p.timeout = 8;
    out.push_back({slug,
                   objective,
                   {"IBA Vol. 1 §9.7.5.1.1 (PSN windows: valid, duplicate, invalid)",
                    "docs/spec-notes.md §3.1, §3.3"},
                   p,
                   [](json& s) {
                     for (json& x : send_into_b(64)) s.push_back(std::move(x));
                   }});
  }
  out.push_back(
      {"write-to-mr-end",
       "a WRITE whose last byte is the MR's last byte is granted",
       {"IBA Vol. 1 §10.6 (R_Key check: the range lies in the region)", "docs/spec-notes.md §7.3"},
       Pair{},
       [](json& s) {
         json w = remote(wr("RDMA_WRITE", sge("mrA", 64)));
         w["remote_offset"] = 0x4000 - 64;
         s.push_back(post("qpA", std::move(w)));
       }});
  out.push_back(
      {"write-one-byte-past-mr-end",
       "a WRITE that ends one byte past the MR is refused (NAK remote access error)",
       {"IBA Vol. 1 §10.6 (R_Key check: the range lies in the region)", "docs/spec-notes.md §7.3"},
       Pair{},
       [](json& s) {
         json w = remote(wr("RDMA_WRITE", sge("mrA", 64)));
         w.erase("remote_offset");
         w["remote_addr"] = fmt::format("{:#x}", 0x20000 + 0x4000 - 63);
         s.push_back(post("qpA", std::move(w)));
       }});
  // A type 2 window B binds on its QP over 256 bytes of its MR (at offset 0x1000): the window's
  // bounds, not the MR's, are what an rkey of the window grants (IBA Vol. 1 §10.6.7.3).
  Pair window;
  window.b_mr_access =
      json::array({"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND"});
  const auto bind_window = [](json& s) {
    s.push_back(step({{"op", "alloc_mw"}, {"pd", "pdB"}, {"as", "mwB"}, {"type", 2}}));
    s.push_back(
        post("qpB", bind_mw("mwB", "mrB", 0x1000, 0x100, json::array({"REMOTE_WRITE"}), 50)));
    s.push_back(step({{"op", "run"}}));
  };
  for (const auto& [slug, objective, end] :
       {std::tuple{"write-to-mw-end",
                   "a WRITE through a memory window whose last byte is the "
                   "window's last byte is granted",
                   0x21100u},
        std::tuple{"write-one-byte-past-mw-end",
                   "a WRITE through a memory window that ends one byte past the window, inside "
                   "its MR, is refused (NAK remote access error)",
                   0x21101u}}) {
    out.push_back({slug,
                   objective,
                   {"IBA Vol. 1 §10.6.7.3 (memory windows: the R_Key grants the window's range)",
                    "docs/spec-notes.md §7.3, §7.4"},
                   window,
                   [bind_window, end = end](json& s) {
                     bind_window(s);
                     json w = remote(wr("RDMA_WRITE", sge("mrA", 64)), "mwB");
                     w.erase("remote_offset");
                     w["remote_addr"] = fmt::format("{:#x}", end - 64);
                     s.push_back(post("qpA", std::move(w)));
                   },
                   {"RC", "MW"}});
  }
  out.push_back({"write-range-wraps-2-64",
                 "a WRITE whose range wraps past 2^64 is refused, whatever the key (NAK remote "
                 "access error)",
                 {"IBA Vol. 1 §10.6 (R_Key check)", "docs/spec-notes.md §7.3 (64-bit wrap)"},
                 Pair{},
                 [](json& s) {
                   json w = remote(wr("RDMA_WRITE", sge("mrA", 128)));
                   w.erase("remote_offset");
                   w["remote_addr"] = "0xffffffffffffffc0";
                   s.push_back(post("qpA", std::move(w)));
                 }});
  return out;
}

}  // namespace

std::vector<Generated> boundary_vectors() {
  std::vector<Generated> out;
  for (const Case& c : cases()) {
    Vector v;
    v.id = fmt::format("boundary/{}-00", c.slug);
    v.objective = c.objective;
    v.clauses = c.clauses;
    v.capabilities = c.capabilities;
    out.push_back(pair_vector(std::move(v), c.pair, "RXE", c.stimulus));
  }
  return out;
}

}  // namespace rocecert::vectors::detail
