// The opcode table checked for totality and consistency, and against layouts written out by
// hand from IBA Vol. 1 Table 38 / §9.3 and the rxe offset tables (independently of the table).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "rocecert/wire/opcode.h"

using namespace rocecert::wire;

TEST(OpcodeTable, TransportMatchesOpcodeBits) {
  for (const OpcodeInfo& op : kOpcodeTable) {
    if (!op.known) continue;
    const unsigned cls = op.value >> 5;
    const Transport expected[] = {Transport::RC, Transport::UC,  Transport::RD,
                                  Transport::UD, Transport::CNP, Transport::XRC};
    ASSERT_LT(cls, 6u) << op.name;
    EXPECT_EQ(op.transport, expected[cls]) << op.name;
    EXPECT_EQ(std::string(op.name).rfind(std::string(to_string(op.transport)) + "_", 0), 0u)
        << op.name;
  }
}

TEST(OpcodeTable, NamesAreUniqueAndResolve) {
  std::set<std::string_view> names;
  for (const OpcodeInfo& op : kOpcodeTable) {
    if (!op.known) continue;
    EXPECT_TRUE(names.insert(op.name).second) << op.name;
    std::uint8_t v = 0;
    ASSERT_TRUE(opcode_from_name(op.name, v));
    EXPECT_EQ(v, op.value);
  }
  std::uint8_t v = 0;
  EXPECT_FALSE(opcode_from_name("RC_BOGUS", v));
}

TEST(OpcodeTable, ExactlyTheDocumentedOpcodesAreKnown) {
  std::set<unsigned> expected;
  for (unsigned v = 0x00; v <= 0x14; ++v) expected.insert(v);
  for (unsigned v : {0x16u, 0x17u, 0x1Cu, 0x1Du}) expected.insert(v);
  for (unsigned v = 0x20; v <= 0x2B; ++v) expected.insert(v);
  for (unsigned v = 0x40; v <= 0x55; ++v) expected.insert(v);
  for (unsigned v : {0x5Cu, 0x5Du, 0x64u, 0x65u, 0x81u}) expected.insert(v);
  for (unsigned v = 0xA0; v <= 0xB4; ++v) expected.insert(v);
  for (unsigned v : {0xB6u, 0xB7u}) expected.insert(v);
  std::set<unsigned> known;
  for (const OpcodeInfo& op : kOpcodeTable)
    if (op.known) known.insert(op.value);
  EXPECT_EQ(known, expected);
}

TEST(OpcodeTable, HeaderOffsetsAreContiguousInWireOrder) {
  for (const OpcodeInfo& op : kOpcodeTable) {
    if (!op.known) continue;
    std::size_t off = kBthLen;
    for (std::size_t h = 0; h < kHeaderCount; ++h) {
      if (op.headers & (1u << h)) {
        EXPECT_EQ(op.offset[h], off) << op.name;
        off += kHeaderSize[h];
      } else {
        EXPECT_EQ(op.offset[h], 0) << op.name;
      }
    }
    EXPECT_EQ(op.header_len, off) << op.name;
  }
}

TEST(OpcodeTable, FamiliesAgree) {
  // UC 0x20-0x2B and the XRC opcodes mirror RC; XRC requests add XRCETH; RD requests add
  // RDETH+DETH, RD responses add RDETH (IBA Table 38, §9.3.1-§9.3.3).
  for (unsigned v = 0; v < 0x20; ++v) {
    const OpcodeInfo& rc = opcode_info(static_cast<std::uint8_t>(v));
    if (!rc.known) continue;
    const OpcodeInfo& uc = opcode_info(static_cast<std::uint8_t>(0x20 + v));
    if (uc.known) {
      EXPECT_EQ(uc.headers, rc.headers) << uc.name;
      EXPECT_EQ(uc.operation, rc.operation) << uc.name;
      EXPECT_TRUE(rc.operation == Operation::SEND || rc.operation == Operation::WRITE) << uc.name;
    }
    const OpcodeInfo& xrc = opcode_info(static_cast<std::uint8_t>(0xA0 + v));
    if (xrc.known) {
      const std::uint16_t extra = rc.is_request() ? kXrceth : 0;
      EXPECT_EQ(xrc.headers, rc.headers | extra) << xrc.name;
      EXPECT_EQ(xrc.position, rc.position);
    }
    const OpcodeInfo& rd = opcode_info(static_cast<std::uint8_t>(0x40 + v));
    if (rd.known) {
      const std::uint16_t extra = rc.is_request() ? (kRdeth | kDeth) : kRdeth;
      EXPECT_EQ(rd.headers, rc.headers | extra) << rd.name;
    }
  }
}

TEST(OpcodeTable, ClassificationIsConsistent) {
  for (const OpcodeInfo& op : kOpcodeTable) {
    if (!op.known) continue;
    EXPECT_EQ((op.flags & kImm) != 0, op.has(Header::ImmDt)) << op.name;
    EXPECT_EQ((op.flags & kInv) != 0, op.has(Header::Ieth)) << op.name;
    if (op.has(Header::ImmDt) || op.has(Header::Ieth)) {
      EXPECT_TRUE(op.ends_message()) << op.name;
    }
    if (op.position == Position::FIRST || op.position == Position::MIDDLE) {
      EXPECT_EQ(op.payload, Payload::DATA) << op.name;
    }
    // RETH only on WRITE FIRST/ONLY, READ request, FLUSH and ATOMIC WRITE.
    if (op.has(Header::Reth)) {
      EXPECT_TRUE((op.operation == Operation::WRITE && op.starts_message()) ||
                  op.operation == Operation::READ_REQUEST || op.operation == Operation::FLUSH ||
                  op.operation == Operation::ATOMIC_WRITE)
          << op.name;
    }
    if (op.operation == Operation::WRITE && op.starts_message()) {
      EXPECT_TRUE(op.has(Header::Reth)) << op.name;
    }
    if (op.operation == Operation::READ_RESPONSE) {
      EXPECT_EQ(op.has(Header::Aeth), op.position != Position::MIDDLE) << op.name;
    }
    if (op.is_response()) {
      EXPECT_FALSE(op.has(Header::Deth) || op.has(Header::Xrceth)) << op.name;
    }
  }
}

struct Layout {
  std::uint8_t opcode;
  std::size_t header_len;  // BTH + extended headers, from the spec, typed independently
};

TEST(OpcodeTable, HeaderLengthsMatchTheSpec) {
  const Layout layouts[] = {
      {0x00, 12}, {0x03, 16}, {0x04, 12}, {0x05, 16}, {0x06, 28}, {0x07, 12}, {0x09, 16},
      {0x0A, 28}, {0x0B, 32}, {0x0C, 28}, {0x0D, 16}, {0x0E, 12}, {0x0F, 16}, {0x10, 16},
      {0x11, 16}, {0x12, 24}, {0x13, 40}, {0x14, 40}, {0x16, 16}, {0x17, 16}, {0x1C, 32},
      {0x1D, 28}, {0x24, 12}, {0x2B, 32}, {0x64, 20}, {0x65, 24}, {0x81, 28}, {0xA4, 16},
      {0xAA, 32}, {0xAC, 32}, {0xB1, 16}, {0xB3, 44}, {0xB7, 20}, {0x44, 24}, {0x4A, 40},
      {0x51, 20}, {0x55, 24}, {0x53, 52},
  };
  for (const Layout& l : layouts) {
    const OpcodeInfo& op = opcode_info(l.opcode);
    ASSERT_TRUE(op.known) << int{l.opcode};
    EXPECT_EQ(op.header_len, l.header_len) << op.name;
  }
  // FLUSH: FETH then RETH (rxe_opcode.c); ATOMIC ACK: AETH then AtomicAckETH.
  EXPECT_EQ(opcode_info(0x1C).offset[static_cast<std::size_t>(Header::Feth)], 12);
  EXPECT_EQ(opcode_info(0x1C).offset[static_cast<std::size_t>(Header::Reth)], 16);
  EXPECT_EQ(opcode_info(0x12).offset[static_cast<std::size_t>(Header::AtomicAckEth)], 16);
  EXPECT_EQ(opcode_info(0x0B).offset[static_cast<std::size_t>(Header::ImmDt)], 28);
  EXPECT_EQ(opcode_info(0xB3).offset[static_cast<std::size_t>(Header::AtomicEth)], 16);
  EXPECT_EQ(opcode_info(0x65).offset[static_cast<std::size_t>(Header::ImmDt)], 20);
}

TEST(OpcodeTable, NamedConstantsMatchValues) {
  EXPECT_EQ(to_u8(Opcode::RC_SEND_ONLY), 0x04);
  EXPECT_EQ(to_u8(Opcode::RC_ACKNOWLEDGE), 0x11);
  EXPECT_EQ(to_u8(Opcode::RC_SEND_ONLY_WITH_INVALIDATE), 0x17);
  EXPECT_EQ(to_u8(Opcode::UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE), 0x2B);
  EXPECT_EQ(to_u8(Opcode::UD_SEND_ONLY_WITH_IMMEDIATE), 0x65);
  EXPECT_EQ(to_u8(Opcode::CNP_CNP), 0x81);
  EXPECT_EQ(to_u8(Opcode::XRC_SEND_ONLY_WITH_INVALIDATE), 0xB7);
  EXPECT_FALSE(opcode_info(0x15).known);  // RC RESYNC does not exist
  EXPECT_FALSE(opcode_info(0x80).known);
  EXPECT_FALSE(opcode_info(0xE0).known);
}

// docs/spec-notes.md §2.1 "RWQE": the packets a responder takes a receive WQE for, one per
// message: the first packet of a SEND, the last of an RDMA WRITE with immediate.
TEST(OpcodeTable, ReceiveWqesAreTakenOncePerMessage) {
  for (const Opcode op :
       {Opcode::RC_SEND_FIRST, Opcode::RC_SEND_ONLY, Opcode::RC_SEND_ONLY_WITH_IMMEDIATE,
        Opcode::RC_SEND_ONLY_WITH_INVALIDATE, Opcode::UC_SEND_FIRST, Opcode::UD_SEND_ONLY,
        Opcode::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, Opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
        Opcode::UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE})
    EXPECT_TRUE(opcode_info(to_u8(op)).takes_recv_wqe()) << opcode_info(to_u8(op)).name;
  for (const Opcode op :
       {Opcode::RC_SEND_MIDDLE, Opcode::RC_SEND_LAST, Opcode::RC_SEND_LAST_WITH_IMMEDIATE,
        Opcode::RC_RDMA_WRITE_FIRST, Opcode::RC_RDMA_WRITE_ONLY, Opcode::RC_RDMA_WRITE_LAST,
        Opcode::RC_RDMA_READ_REQUEST, Opcode::RC_FETCH_ADD, Opcode::RC_ACKNOWLEDGE})
    EXPECT_FALSE(opcode_info(to_u8(op)).takes_recv_wqe()) << opcode_info(to_u8(op)).name;
}
