#include "frame_format.h"

#include <arpa/inet.h>

#include <iterator>

#include "rocecert/trace/json_trace.h"

namespace rocecert::cli {

using wire::Header;
using wire::ParsedFrame;

namespace {

using Out = fmt::memory_buffer;

void append_ip(Out& out, const wire::IpHeader& ip, bool src) {
  const auto& a = src ? ip.src : ip.dst;
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(ip.version == 6 ? AF_INET6 : AF_INET, a.data(), text, sizeof text);
  out.append(std::string_view(text));
}

void append_mac(Out& out, const wire::MacAddr& m) {
  fmt::format_to(std::back_inserter(out), "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", m[0], m[1],
                 m[2], m[3], m[4], m[5]);
}

int bit(bool b) {
  return b ? 1 : 0;
}

// A JSON string value, quotes included: the tables' names as they are, anything else escaped
// (trace::json_string).
void append_string(Out& out, std::string_view s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x80 || c == '"' || c == '\\') {
      out.append(trace::json_string(s));
      return;
    }
  }
  out.push_back('"');
  out.append(s);
  out.push_back('"');
}

}  // namespace

void append_json(Out& out, const ParsedFrame& p, const FrameContext& c) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, R"({{"frame":{},"ts":{},"len":{})", c.frame, c.ts_ns, c.len);
  if (c.caplen != c.len) fmt::format_to(o, R"(,"caplen":{})", c.caplen);
  fmt::format_to(o, R"(,"roce":{})", p.roce ? "true" : "false");
  if (p.has_eth) {
    out.append(std::string_view(R"(,"eth":{"src":")"));
    append_mac(out, p.eth.src);
    if (p.link == wire::LinkType::Ethernet) {
      out.append(std::string_view(R"(","dst":")"));
      append_mac(out, p.eth.dst);
    }
    fmt::format_to(o, R"(","type":{})", p.eth.ethertype);
    if (p.eth.has_vlan)
      fmt::format_to(o, R"(,"vlan":{{"id":{},"pcp":{},"dei":{}}})", p.eth.vlan.vid, p.eth.vlan.pcp,
                     bit(p.eth.vlan.dei));
    out.push_back('}');
  }
  if (p.has_ip) {
    fmt::format_to(o, R"(,"ip":{{"version":{},"src":")", p.ip.version);
    append_ip(out, p.ip, true);
    out.append(std::string_view(R"(","dst":")"));
    append_ip(out, p.ip, false);
    fmt::format_to(o, R"(","dscp":{},"ecn":{},"ttl":{})", p.ip.dscp, p.ip.ecn, p.ip.ttl);
    if (p.ip.version == 6) fmt::format_to(o, R"(,"flow_label":{})", p.ip.flow_label);
    out.push_back('}');
  }
  if (p.has_udp) fmt::format_to(o, R"(,"udp":{{"sport":{},"dport":{}}})", p.udp.sport, p.udp.dport);
  if (p.has_bth) {
    const wire::Bth& b = p.bth;
    fmt::format_to(o, R"(,"bth":{{"opcode":{},"opcode_name":)", b.opcode);
    append_string(out, p.op->known ? p.op->name : std::string_view("UNKNOWN"));
    fmt::format_to(o,
                   R"(,"se":{},"m":{},"padcnt":{},"tver":{},)"
                   R"("pkey":{},"fecn":{},"becn":{},"dqpn":{},"ackreq":{},"psn":{}}})",
                   bit(b.se), bit(b.m), b.padcnt, b.tver, b.pkey, bit(b.fecn), bit(b.becn), b.dqpn,
                   bit(b.ackreq), b.psn);
  }
  const bool headers_ok = p.has_icrc;  // every extended header was inside the packet
  if (headers_ok) {
    if (p.has(Header::Rdeth)) fmt::format_to(o, R"(,"rdeth":{{"eecnxt":{}}})", p.rdeth.eecnxt);
    if (p.has(Header::Deth))
      fmt::format_to(o, R"(,"deth":{{"qkey":{},"srcqp":{}}})", p.deth.qkey, p.deth.srcqp);
    if (p.has(Header::Xrceth)) fmt::format_to(o, R"(,"xrceth":{{"xrcsrq":{}}})", p.xrceth.xrcsrq);
    if (p.has(Header::Feth))
      fmt::format_to(o, R"(,"feth":{{"placement":{},"selectivity":{}}})", p.feth.placement,
                     p.feth.selectivity);
    if (p.has(Header::Reth))
      fmt::format_to(o, R"(,"reth":{{"va":{},"rkey":{},"dmalen":{}}})", p.reth.va, p.reth.rkey,
                     p.reth.dmalen);
    if (p.has(Header::Aeth))
      fmt::format_to(o, R"(,"aeth":{{"syndrome":{},"msn":{}}})", p.aeth.syndrome, p.aeth.msn);
    if (p.has(Header::AtomicEth))
      fmt::format_to(o, R"(,"atomiceth":{{"va":{},"rkey":{},"swap_add":{},"compare":{}}})",
                     p.atomiceth.va, p.atomiceth.rkey, p.atomiceth.swap_add, p.atomiceth.compare);
    if (p.has(Header::AtomicAckEth))
      fmt::format_to(o, R"(,"atomicacketh":{{"orig":{}}})", p.atomicacketh.orig);
    if (p.has(Header::ImmDt)) fmt::format_to(o, R"(,"immdt":{})", p.immdt.value);
    if (p.has(Header::Ieth)) fmt::format_to(o, R"(,"ieth":{{"rkey":{}}})", p.ieth.rkey);
    if (!p.has_error) fmt::format_to(o, R"(,"payload_len":{})", p.payload_len);
    fmt::format_to(o, R"(,"icrc":{})", p.icrc);
    if (p.icrc_checked) fmt::format_to(o, R"(,"icrc_ok":{})", p.icrc_ok ? "true" : "false");
  }
  if (p.has_error) {
    out.append(std::string_view(R"(,"error":{"code":)"));
    append_string(out, wire::to_string(p.error.code));
    fmt::format_to(o, R"(,"offset":{},"message":)", p.error.offset);
    append_string(out, wire::describe(p.error.code));
    out.push_back('}');
  }
  out.append(std::string_view("}\n"));
}

void append_text(Out& out, const ParsedFrame& p, const FrameContext& c) {
  auto o = std::back_inserter(out);
  const std::int64_t rel = c.ts_ns - c.first_ts_ns;
  const char* sign = rel < 0 ? "-" : "";
  const std::uint64_t mag = static_cast<std::uint64_t>(rel < 0 ? -rel : rel);
  fmt::format_to(o, "{:>6} {}{}.{:09} ", c.frame, sign, mag / 1000000000u, mag % 1000000000u);
  if (p.has_ip) {
    append_ip(out, p.ip, true);
    out.append(std::string_view(" → "));
    append_ip(out, p.ip, false);
    out.push_back(' ');
  }
  if (!p.roce) {
    if (p.has_error) {
      fmt::format_to(o, "ERROR {} at byte {}: {}\n", wire::to_string(p.error.code), p.error.offset,
                     wire::describe(p.error.code));
    } else if (p.has_udp) {
      fmt::format_to(o, "not RoCEv2 (UDP port {}) len={}\n", p.udp.dport, c.len);
    } else if (p.has_ip) {
      fmt::format_to(o, "not RoCEv2 (IP protocol {}) len={}\n", p.ip.next_header, c.len);
    } else {
      fmt::format_to(o, "not RoCEv2 (EtherType 0x{:04x}) len={}\n", p.eth.ethertype, c.len);
    }
    return;
  }
  if (p.has_bth) {
    const wire::Bth& b = p.bth;
    if (p.op->known) {
      out.append(p.op->name);
    } else {
      fmt::format_to(o, "UNKNOWN(0x{:02x})", b.opcode);
    }
    fmt::format_to(o, " QP=0x{:06x} PSN={}", b.dqpn, b.psn);
    if (b.ackreq) out.append(std::string_view(" A"));
    if (b.se) out.append(std::string_view(" SE"));
    if (b.becn) out.append(std::string_view(" BECN"));
    if (p.ip.ecn == 3) out.append(std::string_view(" CE"));
  }
  if (p.has_icrc) {
    if (p.has(Header::Reth))
      fmt::format_to(o, " va=0x{:x} rkey=0x{:x} dmalen={}", p.reth.va, p.reth.rkey, p.reth.dmalen);
    if (p.has(Header::AtomicEth))
      fmt::format_to(o, " va=0x{:x} rkey=0x{:x} swap_add=0x{:x} compare=0x{:x}", p.atomiceth.va,
                     p.atomiceth.rkey, p.atomiceth.swap_add, p.atomiceth.compare);
    if (p.has(Header::Aeth)) {
      fmt::format_to(o, " {}", wire::aeth_name(p.aeth.syndrome));
      if (wire::aeth_kind(p.aeth.syndrome) == wire::AethKind::RNR_NAK)
        fmt::format_to(o, "(timer={})", p.aeth.syndrome & 0x1F);
      fmt::format_to(o, " MSN={}", p.aeth.msn);
    }
    if (p.has(Header::AtomicAckEth)) fmt::format_to(o, " orig=0x{:x}", p.atomicacketh.orig);
    if (p.has(Header::Deth))
      fmt::format_to(o, " qkey=0x{:x} srcqp=0x{:06x}", p.deth.qkey, p.deth.srcqp);
    if (p.has(Header::Xrceth)) fmt::format_to(o, " xrcsrq=0x{:06x}", p.xrceth.xrcsrq);
    if (p.has(Header::ImmDt)) fmt::format_to(o, " imm=0x{:08x}", p.immdt.value);
    if (p.has(Header::Ieth)) fmt::format_to(o, " inv_rkey=0x{:x}", p.ieth.rkey);
    if (!p.has_error) fmt::format_to(o, " len={}", p.payload_len);
    if (p.icrc_checked) {
      if (p.icrc_ok) {
        out.append(std::string_view(" ICRC ok"));
      } else {
        fmt::format_to(o, " ICRC BAD (carried 0x{:08x}, computed 0x{:08x})", p.icrc,
                       p.icrc_computed);
      }
    }
  }
  if (p.has_error) {
    fmt::format_to(o, " ERROR {} at byte {}: {}", wire::to_string(p.error.code), p.error.offset,
                   wire::describe(p.error.code));
    if (c.caplen < c.len) fmt::format_to(o, " (captured {} of {} bytes)", c.caplen, c.len);
  }
  out.push_back('\n');
}

}  // namespace rocecert::cli
