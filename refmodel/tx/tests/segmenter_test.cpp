// Segmentation checked against sequences written out by hand from IBA §9.4 / docs/spec-notes.md
// §2.5: every data WR opcode × transport × size class, PSN wrap, pad counts, SE, AckReq.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "rocecert/tx/segmenter.h"

using namespace rocecert;
using tx::SegmentError;
using tx::WrOpcode;
using wire::Transport;

namespace {

std::vector<std::string> names(const tx::SegmentPlan& plan) {
  std::vector<std::string> out;
  for (const auto& s : plan.packets) out.emplace_back(wire::opcode_info(s.opcode).name);
  return out;
}

tx::SegmentPlan seg(Transport t, WrOpcode op, std::uint64_t len, std::uint32_t mtu = 1024,
                    std::uint32_t psn = 100) {
  tx::SegmentRequest r;
  r.transport = t;
  r.opcode = op;
  r.length = len;
  r.mtu = mtu;
  r.first_psn = psn;
  return tx::segment(r);
}

using V = std::vector<std::string>;

}  // namespace

TEST(Segmenter, RcSendSizeClasses) {
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND, 0)), V({"RC_SEND_ONLY"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND, 1)), V({"RC_SEND_ONLY"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND, 1023)), V({"RC_SEND_ONLY"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND, 1024)), V({"RC_SEND_ONLY"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND, 1025)), V({"RC_SEND_FIRST", "RC_SEND_LAST"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND, 3072)),
            V({"RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_LAST"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND, 3077)),
            V({"RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_MIDDLE", "RC_SEND_LAST"}));
  const auto big = seg(Transport::RC, WrOpcode::SEND, 1u << 20, 4096);
  ASSERT_EQ(big.packets.size(), 256u);
  EXPECT_EQ(big.packets.front().opcode, 0x00);
  EXPECT_EQ(big.packets[128].opcode, 0x01);
  EXPECT_EQ(big.packets.back().opcode, 0x02);
}

TEST(Segmenter, ImmediateAndInvalidateOnlyOnTheLastPacket) {
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND_WITH_IMM, 0)),
            V({"RC_SEND_ONLY_WITH_IMMEDIATE"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND_WITH_IMM, 2049)),
            V({"RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_LAST_WITH_IMMEDIATE"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND_WITH_INV, 10)),
            V({"RC_SEND_ONLY_WITH_INVALIDATE"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::SEND_WITH_INV, 1500)),
            V({"RC_SEND_FIRST", "RC_SEND_LAST_WITH_INVALIDATE"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::RDMA_WRITE, 0)), V({"RC_RDMA_WRITE_ONLY"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::RDMA_WRITE, 4096)),
            V({"RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_MIDDLE", "RC_RDMA_WRITE_MIDDLE",
               "RC_RDMA_WRITE_LAST"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::RDMA_WRITE_WITH_IMM, 1024)),
            V({"RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::RDMA_WRITE_WITH_IMM, 1025)),
            V({"RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE"}));
}

TEST(Segmenter, UcAndXrc) {
  EXPECT_EQ(names(seg(Transport::UC, WrOpcode::RDMA_WRITE, 2500)),
            V({"UC_RDMA_WRITE_FIRST", "UC_RDMA_WRITE_MIDDLE", "UC_RDMA_WRITE_LAST"}));
  EXPECT_EQ(names(seg(Transport::UC, WrOpcode::SEND_WITH_IMM, 5)),
            V({"UC_SEND_ONLY_WITH_IMMEDIATE"}));
  EXPECT_EQ(names(seg(Transport::XRC, WrOpcode::SEND, 1025)),
            V({"XRC_SEND_FIRST", "XRC_SEND_LAST"}));
  EXPECT_EQ(names(seg(Transport::XRC, WrOpcode::RDMA_READ, 10)), V({"XRC_RDMA_READ_REQUEST"}));
  // No READ, atomics, SEND_WITH_INV, FLUSH or ATOMIC WRITE on UC (IBA Table 38; docs/spec-notes.md
  // §11.11).
  for (WrOpcode op :
       {WrOpcode::RDMA_READ, WrOpcode::ATOMIC_CMP_AND_SWP, WrOpcode::ATOMIC_FETCH_AND_ADD,
        WrOpcode::SEND_WITH_INV, WrOpcode::FLUSH, WrOpcode::ATOMIC_WRITE}) {
    EXPECT_EQ(seg(Transport::UC, op, 8).error, SegmentError::OPCODE_NOT_ON_TRANSPORT)
        << to_string(op);
  }
}

TEST(Segmenter, UdIsOnePacketOfAtMostTheMtu) {
  EXPECT_EQ(names(seg(Transport::UD, WrOpcode::SEND, 0, 4096)), V({"UD_SEND_ONLY"}));
  EXPECT_EQ(names(seg(Transport::UD, WrOpcode::SEND_WITH_IMM, 4096, 4096)),
            V({"UD_SEND_ONLY_WITH_IMMEDIATE"}));
  EXPECT_EQ(seg(Transport::UD, WrOpcode::SEND, 4097, 4096).error, SegmentError::MESSAGE_TOO_LONG);
  for (WrOpcode op : {WrOpcode::RDMA_WRITE, WrOpcode::RDMA_WRITE_WITH_IMM, WrOpcode::RDMA_READ,
                      WrOpcode::ATOMIC_FETCH_AND_ADD, WrOpcode::SEND_WITH_INV}) {
    EXPECT_EQ(seg(Transport::UD, op, 8).error, SegmentError::OPCODE_NOT_ON_TRANSPORT)
        << to_string(op);
  }
  const auto p = seg(Transport::UD, WrOpcode::SEND, 100, 4096);
  EXPECT_FALSE(p.packets[0].ackreq);  // UD never asks for an ACK
}

TEST(Segmenter, SingleRequestOperations) {
  auto read = seg(Transport::RC, WrOpcode::RDMA_READ, 10000);
  EXPECT_EQ(names(read), V({"RC_RDMA_READ_REQUEST"}));
  EXPECT_EQ(read.packets[0].length, 0u);
  EXPECT_EQ(read.psn_count, 10u);  // ceil(10000 / 1024) response PSNs reserved
  EXPECT_EQ(seg(Transport::RC, WrOpcode::RDMA_READ, 0).psn_count, 1u);
  EXPECT_EQ(seg(Transport::RC, WrOpcode::RDMA_READ, 1024).psn_count, 1u);
  EXPECT_EQ(seg(Transport::RC, WrOpcode::RDMA_READ, 1025).psn_count, 2u);
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::ATOMIC_CMP_AND_SWP, 8)), V({"RC_COMPARE_SWAP"}));
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::ATOMIC_FETCH_AND_ADD, 8)), V({"RC_FETCH_ADD"}));
  EXPECT_EQ(seg(Transport::RC, WrOpcode::ATOMIC_FETCH_AND_ADD, 4).error,
            SegmentError::BAD_ATOMIC_LENGTH);
  EXPECT_EQ(names(seg(Transport::RC, WrOpcode::FLUSH, 4096)), V({"RC_FLUSH"}));
  const auto aw = seg(Transport::RC, WrOpcode::ATOMIC_WRITE, 8);
  EXPECT_EQ(names(aw), V({"RC_ATOMIC_WRITE"}));
  EXPECT_EQ(aw.packets[0].length, 8u);
  EXPECT_TRUE(read.packets[0].ackreq);
  EXPECT_TRUE(aw.packets[0].ackreq);
}

TEST(Segmenter, PayloadSlicesPadAndPsnWrap) {
  const auto p = seg(Transport::RC, WrOpcode::RDMA_WRITE, 2 * 256 + 7, 256, 0xFFFFFE);
  ASSERT_EQ(p.packets.size(), 3u);
  EXPECT_EQ(p.packets[0].psn, 0xFFFFFEu);
  EXPECT_EQ(p.packets[1].psn, 0xFFFFFFu);
  EXPECT_EQ(p.packets[2].psn, 0u);  // 24-bit wrap
  EXPECT_EQ(p.packets[0].offset, 0u);
  EXPECT_EQ(p.packets[1].offset, 256u);
  EXPECT_EQ(p.packets[2].offset, 512u);
  EXPECT_EQ(p.packets[2].length, 7u);
  EXPECT_EQ(p.packets[0].padcnt, 0);
  EXPECT_EQ(p.packets[2].padcnt, 1);  // (4 - 7 % 4) % 4
  EXPECT_EQ(p.psn_count, 3u);
  EXPECT_EQ(seg(Transport::RC, WrOpcode::SEND, 5).packets[0].padcnt, 3);
}

TEST(Segmenter, SolicitedEventOnlyOnTheLastPacketOfSendOrWriteWithImm) {
  tx::SegmentRequest r;
  r.solicited = true;
  r.length = 3000;
  r.opcode = WrOpcode::SEND;
  auto p = tx::segment(r);
  EXPECT_FALSE(p.packets[0].se);
  EXPECT_FALSE(p.packets[1].se);
  EXPECT_TRUE(p.packets[2].se);
  r.opcode = WrOpcode::RDMA_WRITE;
  p = tx::segment(r);
  EXPECT_FALSE(p.packets.back().se);
  r.opcode = WrOpcode::RDMA_WRITE_WITH_IMM;
  p = tx::segment(r);
  EXPECT_TRUE(p.packets.back().se);
}

TEST(Segmenter, AckReqOnLastPacketAndEvery64AsRxe) {
  // RC: A on the last packet only for short messages (rc_ops_mtu4096 capture: SEND of
  // 4096+4096+1808 bytes goes FIRST, MIDDLE, LAST_WITH_IMMEDIATE A).
  auto p = seg(Transport::RC, WrOpcode::SEND_WITH_IMM, 10000, 4096);
  EXPECT_FALSE(p.packets[0].ackreq);
  EXPECT_FALSE(p.packets[1].ackreq);
  EXPECT_TRUE(p.packets[2].ackreq);
  // 200 packets: rxe sets A once 65 packets without A have gone (noack_pkts++ > 64).
  p = seg(Transport::RC, WrOpcode::RDMA_WRITE, 200 * 256, 256);
  std::vector<std::size_t> with_a;
  for (std::size_t i = 0; i < p.packets.size(); ++i)
    if (p.packets[i].ackreq) with_a.push_back(i);
  EXPECT_EQ(with_a, (std::vector<std::size_t>{65, 131, 197, 199}));
  EXPECT_EQ(p.packets_since_ackreq, 0u);
  // UC never sets A.
  p = seg(Transport::UC, WrOpcode::RDMA_WRITE, 200 * 256, 256);
  for (const auto& s : p.packets) EXPECT_FALSE(s.ackreq);
  // The policy is configuration: no mid-message AckReq.
  tx::SegmentRequest r;
  r.length = 200 * 256;
  r.mtu = 256;
  r.opcode = WrOpcode::RDMA_WRITE;
  r.ackreq.every_n_packets = 0;
  p = tx::segment(r);
  for (std::size_t i = 0; i + 1 < p.packets.size(); ++i) EXPECT_FALSE(p.packets[i].ackreq);
  EXPECT_TRUE(p.packets.back().ackreq);
}

TEST(Segmenter, Errors) {
  EXPECT_EQ(seg(Transport::RC, WrOpcode::LOCAL_INV, 0).error, SegmentError::NOT_A_WIRE_OPERATION);
  EXPECT_EQ(seg(Transport::RC, WrOpcode::BIND_MW, 0).error, SegmentError::NOT_A_WIRE_OPERATION);
  EXPECT_EQ(seg(Transport::RC, WrOpcode::SEND, 10, 1000).error, SegmentError::BAD_MTU);
  EXPECT_EQ(seg(Transport::RC, WrOpcode::SEND, (1ull << 31) + 1).error,
            SegmentError::MESSAGE_TOO_LONG);
  EXPECT_EQ(seg(Transport::RC, WrOpcode::SEND, 1ull << 31, 4096).packets.size(), (1u << 31) / 4096);
}

TEST(Segmenter, EveryPlannedOpcodeMatchesTheWireTable) {
  // Whatever the segmenter emits is a known opcode of the right transport, FIRST..LAST in order.
  for (Transport t : {Transport::RC, Transport::UC, Transport::UD, Transport::XRC}) {
    for (int op = 0; op < 16; ++op) {
      for (std::uint64_t len : {0ull, 8ull, 1000ull, 5000ull}) {
        const auto p = seg(t, static_cast<WrOpcode>(op), len, 1024);
        for (std::size_t i = 0; i < p.packets.size(); ++i) {
          const auto& info = wire::opcode_info(p.packets[i].opcode);
          ASSERT_TRUE(info.known);
          EXPECT_EQ(info.transport, t);
          wire::Position expected = wire::Position::MIDDLE;
          if (p.packets.size() == 1) {
            expected = wire::Position::ONLY;
          } else if (i == 0) {
            expected = wire::Position::FIRST;
          } else if (i + 1 == p.packets.size()) {
            expected = wire::Position::LAST;
          }
          EXPECT_EQ(info.position, expected);
        }
      }
    }
  }
}

namespace {

// The operation a WR opcode's packets carry (IBA Vol. 1 Table 38), and whether its LAST / ONLY
// packet carries ImmDt or IETH; nullopt for the WR opcodes that put nothing on the wire.
struct Expected {
  wire::Operation operation;
  bool imm;
  bool inv;
};
std::optional<Expected> expected_class(WrOpcode op) {
  using wire::Operation;
  switch (op) {
    case WrOpcode::SEND:
      return Expected{Operation::SEND, false, false};
    case WrOpcode::SEND_WITH_IMM:
      return Expected{Operation::SEND, true, false};
    case WrOpcode::SEND_WITH_INV:
      return Expected{Operation::SEND, false, true};
    case WrOpcode::RDMA_WRITE:
      return Expected{Operation::WRITE, false, false};
    case WrOpcode::RDMA_WRITE_WITH_IMM:
      return Expected{Operation::WRITE, true, false};
    case WrOpcode::RDMA_READ:
      return Expected{Operation::READ_REQUEST, false, false};
    case WrOpcode::ATOMIC_CMP_AND_SWP:
      return Expected{Operation::COMPARE_SWAP, false, false};
    case WrOpcode::ATOMIC_FETCH_AND_ADD:
      return Expected{Operation::FETCH_ADD, false, false};
    case WrOpcode::FLUSH:
      return Expected{Operation::FLUSH, false, false};
    case WrOpcode::ATOMIC_WRITE:
      return Expected{Operation::ATOMIC_WRITE, false, false};
    case WrOpcode::LOCAL_INV:
    case WrOpcode::BIND_MW:
    case WrOpcode::TSO:
    case WrOpcode::DRIVER1:
      break;
  }
  return std::nullopt;
}

constexpr wire::Position kPositions[] = {wire::Position::FIRST, wire::Position::MIDDLE,
                                         wire::Position::LAST, wire::Position::ONLY};
constexpr Transport kMessageTransports[] = {Transport::RC, Transport::UC, Transport::UD,
                                            Transport::XRC};

}  // namespace

TEST(Segmenter, SelectedOpcodesHaveTheClassBitsOfTheirWrOpcode) {
  // For every WR opcode x transport x position, the chosen opcode is a request of that
  // transport and position whose operation and ImmDt / IETH flags are the WR opcode's.
  for (Transport t : kMessageTransports) {
    for (unsigned raw = 0; raw < 16; ++raw) {
      const auto op = static_cast<WrOpcode>(raw);
      const std::optional<Expected> e = expected_class(op);
      for (wire::Position pos : kPositions) {
        SCOPED_TRACE(std::string(wire::to_string(t)) + " WR " + std::to_string(raw) + " " +
                     std::string(wire::to_string(pos)));
        const std::uint8_t value = tx::wire_opcode(t, op, pos);
        if (!e) {
          EXPECT_EQ(value, tx::kNoOpcode);
          continue;
        }
        if (value == tx::kNoOpcode) continue;
        const wire::OpcodeInfo& info = wire::opcode_info(value);
        ASSERT_TRUE(info.known);
        EXPECT_TRUE(info.is_request());
        EXPECT_EQ(info.transport, t);
        EXPECT_EQ(info.position, pos);
        EXPECT_EQ(info.operation, e->operation);
        const bool ends = info.ends_message();
        EXPECT_EQ((info.flags & wire::kImm) != 0, e->imm && ends);
        EXPECT_EQ((info.flags & wire::kInv) != 0, e->inv && ends);
        EXPECT_EQ(info.has(wire::Header::ImmDt), e->imm && ends);
        EXPECT_EQ(info.has(wire::Header::Ieth), e->inv && ends);
      }
      // Every wire WR opcode has an ONLY form on RC, and RC has what any transport has.
      if (e && t == Transport::RC) {
        EXPECT_NE(tx::wire_opcode(t, op, wire::Position::ONLY), tx::kNoOpcode);
      }
    }
  }
  EXPECT_EQ(tx::wire_opcode(Transport::RD, WrOpcode::SEND, wire::Position::ONLY), tx::kNoOpcode);
  EXPECT_EQ(tx::wire_opcode(Transport::CNP, WrOpcode::SEND, wire::Position::ONLY), tx::kNoOpcode);
}

TEST(Segmenter, EveryRequestOpcodeOfTheModelledTransportsIsReachable) {
  // The other direction: each request opcode the wire table lists for RC, UC, UD and XRC is
  // what some WR opcode selects at its position, so no table row is left unused or retyped.
  for (const wire::OpcodeInfo& info : wire::kOpcodeTable) {
    if (!info.known || !info.is_request()) continue;
    bool modelled = false;
    for (Transport t : kMessageTransports) modelled = modelled || info.transport == t;
    if (!modelled) continue;
    bool chosen = false;
    for (unsigned raw = 0; raw < 16 && !chosen; ++raw) {
      const auto op = static_cast<WrOpcode>(raw);
      chosen = tx::wire_opcode(info.transport, op, info.position) == info.value;
    }
    EXPECT_TRUE(chosen) << info.name;
  }
}
