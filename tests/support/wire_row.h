// Test support: the fields of a RoCEv2 packet that comparisons with real captures look at
// (opcode, PSN, AckReq, SE, pad, payload length, RETH DMA length, AETH, ImmDt). Addresses,
// keys, IP id and ports are an implementation's free choices and are left out.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "rocecert/wire/decode.h"

namespace rocecert::testing {

struct WireRow {
  std::uint8_t opcode = 0;
  std::uint32_t psn = 0;
  bool ackreq = false, se = false;
  std::uint8_t padcnt = 0;
  std::uint32_t payload_len = 0;
  std::optional<std::uint32_t> dmalen, syndrome, msn, imm;
  bool operator==(const WireRow&) const = default;
};

inline WireRow wire_row(const wire::ParsedFrame& p) {
  WireRow r;
  r.opcode = p.bth.opcode;
  r.psn = p.bth.psn;
  r.ackreq = p.bth.ackreq;
  r.se = p.bth.se;
  r.padcnt = p.bth.padcnt;
  r.payload_len = p.payload_len;
  if (p.has(wire::Header::Reth)) r.dmalen = p.reth.dmalen;
  if (p.has(wire::Header::Aeth)) {
    r.syndrome = p.aeth.syndrome;
    r.msn = p.aeth.msn;
  }
  if (p.has(wire::Header::ImmDt)) r.imm = p.immdt.value;
  return r;
}

inline std::string describe(const WireRow& r) {
  std::ostringstream o;
  o << wire::opcode_info(r.opcode).name << " psn=" << r.psn << (r.ackreq ? " A" : "")
    << " len=" << r.payload_len;
  if (r.dmalen) o << " dmalen=" << *r.dmalen;
  if (r.syndrome)
    o << " aeth=" << wire::aeth_name(static_cast<std::uint8_t>(*r.syndrome)) << " msn=" << *r.msn;
  return o.str();
}

}  // namespace rocecert::testing
