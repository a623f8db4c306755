#include "rocecert/wire/sample_frames.h"

namespace rocecert::wire {

std::vector<std::uint8_t> known_opcodes() {
  std::vector<std::uint8_t> ops;
  for (const OpcodeInfo& info : kOpcodeTable)
    if (info.known) ops.push_back(info.value);
  return ops;
}

FrameSpec sample_frame(std::uint8_t opcode, const SampleOptions& o) {
  SplitMix64 rng(o.seed * 0x100 + opcode);
  auto u8 = [&] { return static_cast<std::uint8_t>(rng.next()); };
  auto u16 = [&] { return static_cast<std::uint16_t>(rng.next()); };
  auto u24 = [&] { return static_cast<std::uint32_t>(rng.next() & kMask24); };
  auto u32 = [&] { return static_cast<std::uint32_t>(rng.next()); };
  const OpcodeInfo& op = opcode_info(opcode);

  FrameSpec s;
  for (auto& b : s.eth.dst) b = u8();
  for (auto& b : s.eth.src) b = u8();
  s.eth.src[0] &= 0xFE;  // unicast source
  if (o.vlan) {
    s.eth.has_vlan = true;
    s.eth.vlan = {static_cast<std::uint8_t>(rng.below(8)), rng.below(2) == 1,
                  static_cast<std::uint16_t>(1 + rng.below(4094))};
  }
  s.ip.version = static_cast<std::uint8_t>(o.ip_version);
  s.ip.dscp = static_cast<std::uint8_t>(rng.below(64));
  s.ip.ecn = static_cast<std::uint8_t>(rng.below(4));
  s.ip.ttl = static_cast<std::uint8_t>(1 + rng.below(255));
  if (o.ip_version == 6) {
    s.ip.src = {0xFD, 0x00};
    s.ip.dst = {0xFD, 0x00};
    for (std::size_t i = 2; i < 16; ++i) s.ip.src[i] = u8(), s.ip.dst[i] = u8();
    s.ip.flow_label = u32() & 0xFFFFF;
  } else {
    s.ip.src = {10, u8(), u8(), static_cast<std::uint8_t>(1 + rng.below(254))};
    s.ip.dst = {10, u8(), u8(), static_cast<std::uint8_t>(1 + rng.below(254))};
    s.ip.id = u16();
  }
  s.udp.sport = static_cast<std::uint16_t>(0xC000 | (u16() & 0x3FFF));

  Bth& b = s.bth;
  b.opcode = opcode;
  b.se = op.ends_message() && (op.operation == Operation::SEND || (op.flags & kImm)) &&
         rng.below(2) == 1;
  b.m = rng.below(4) == 0;
  b.pkey = static_cast<std::uint16_t>(0x8000 | (u16() & 0x7FFF));
  b.dqpn = u24();
  b.ackreq = op.is_request() && op.transport != Transport::UD && rng.below(2) == 1;
  b.psn = u24();
  if (op.operation == Operation::CNP) {
    b.becn = true;  // Annex A17.9.3
    b.psn = 0;
    b.ackreq = false;
  }
  s.rdeth.eecnxt = u24();
  s.deth = {u32(), u24()};
  s.xrceth.xrcsrq = u24();
  s.feth = {static_cast<std::uint8_t>(1 + rng.below(3)), static_cast<std::uint8_t>(rng.below(2))};
  s.reth = {rng.next(), u32(), o.payload_len};
  s.atomiceth = {rng.next() & ~7ull, u32(), rng.next(), rng.next()};
  // A valid syndrome of the right family: ACK with credits, or a NAK / RNR NAK for ACKs.
  s.aeth.syndrome = static_cast<std::uint8_t>(rng.below(32));
  if (op.operation == Operation::ACK) {
    const std::uint32_t kinds[] = {kAethTypeAck, kAethTypeRnrNak, kAethTypeNak};
    const std::uint32_t kind = kinds[rng.below(3)];
    // A NAK carries one of the codes before the RD-only Invalid RD Request.
    const auto rc_nak_codes = static_cast<std::uint32_t>(NakCode::INVALID_RD_REQUEST);
    s.aeth.syndrome = static_cast<std::uint8_t>(
        kind | (kind == kAethTypeNak ? rng.below(rc_nak_codes) : rng.below(kAethValueMask + 1u)));
  }
  s.aeth.msn = u24();
  s.atomicacketh.orig = rng.next();
  s.immdt.value = u32();
  s.ieth.rkey = u32();

  std::uint32_t len = 0;
  if (op.payload == Payload::DATA) len = o.payload_len;
  if (op.payload == Payload::ATOMIC8) len = 8;
  s.payload.resize(len);
  for (auto& x : s.payload) x = u8();

  // Headers the opcode does not carry stay at their defaults, so that a decoded frame's spec
  // compares equal to this one.
  if (!op.has(Header::Rdeth)) s.rdeth = {};
  if (!op.has(Header::Deth)) s.deth = {};
  if (!op.has(Header::Xrceth)) s.xrceth = {};
  if (!op.has(Header::Feth)) s.feth = {};
  if (!op.has(Header::Reth)) s.reth = {};
  if (!op.has(Header::AtomicEth)) s.atomiceth = {};
  if (!op.has(Header::Aeth)) s.aeth = {};
  if (!op.has(Header::AtomicAckEth)) s.atomicacketh = {};
  if (!op.has(Header::ImmDt)) s.immdt = {};
  if (!op.has(Header::Ieth)) s.ieth = {};
  return finalize(s);
}

}  // namespace rocecert::wire
