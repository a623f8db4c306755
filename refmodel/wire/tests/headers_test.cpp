// Each header against bytes written out by hand from the IBA layouts.
#include <gtest/gtest.h>

#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "rocecert/wire/headers.h"

using namespace rocecert::wire;
using Bytes = std::vector<std::uint8_t>;

template <typename T, typename Read, typename Write>
void check(const Bytes& wire, const T& value, Read read, Write write) {
  EXPECT_EQ(read(ByteSpan(wire)), value);
  Bytes out(wire.size(), 0xEE);
  write(MutableByteSpan(out), value);
  EXPECT_EQ(out, wire);
}

TEST(Headers, Bth) {
  // SE, M, PadCnt 3, TVer 0xA, P_Key 0x8001, FECN, BECN, resv6a 0x15, DestQP 0x123456,
  // A, resv7 0x55, PSN 0xABCDEF
  Bth h{0x0B, true, true, 3, 0xA, 0x8001, true, true, 0x15, 0x123456, true, 0x55, 0xABCDEF};
  check(Bytes{0x0B, 0xFA, 0x80, 0x01, 0xD5, 0x12, 0x34, 0x56, 0xD5, 0xAB, 0xCD, 0xEF}, h, read_bth,
        write_bth);
  Bth zero{};
  zero.pkey = 0xFFFF;
  check(Bytes{0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0}, zero, read_bth, write_bth);
}

TEST(Headers, ExtendedHeaders) {
  check(Bytes{0x00, 0xAB, 0xCD, 0xEF}, Rdeth{0xABCDEF}, read_rdeth, write_rdeth);
  check(Bytes{0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A}, Deth{0x80010000, 0x2A}, read_deth,
        write_deth);
  check(Bytes{0x00, 0x01, 0x02, 0x03}, Xrceth{0x010203}, read_xrceth, write_xrceth);
  check(Bytes{0x00, 0x00, 0x00, 0x12}, Feth{2, 1}, read_feth, write_feth);
  check(Bytes{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0x00,
              0x10, 0x00},
        Reth{0x0102030405060708ull, 0xDEADBEEF, 4096}, read_reth, write_reth);
  check(Bytes{0x00, 0x00, 0x7F, 0x00, 0x00, 0x00, 0x10, 0x08, 0x00, 0x00, 0x05, 0x5B, 0x11, 0x22,
              0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00},
        AtomicEth{0x00007F0000001008ull, 0x55B, 0x1122334455667788ull, 0x99AABBCCDDEEFF00ull},
        read_atomiceth, write_atomiceth);
  check(Bytes{0x62, 0x00, 0x00, 0x07}, Aeth{0x62, 7}, read_aeth, write_aeth);
  check(Bytes{0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10}, AtomicAckEth{0xFEDCBA9876543210ull},
        read_atomicacketh, write_atomicacketh);
  check(Bytes{0x12, 0x34, 0x56, 0x78}, ImmDt{0x12345678}, read_immdt, write_immdt);
  check(Bytes{0x00, 0x00, 0x12, 0x01}, Ieth{0x1201}, read_ieth, write_ieth);
}

TEST(Headers, WritersMaskOversizedFields) {
  Bytes out(12, 0);
  Bth h;
  h.padcnt = 7;  // only 2 bits exist
  h.dqpn = 0x1FFFFFF;
  h.psn = 0x1000001;
  write_bth(out, h);
  const Bth back = read_bth(out);
  EXPECT_EQ(back.padcnt, 3);
  EXPECT_EQ(back.dqpn, 0xFFFFFFu);
  EXPECT_EQ(back.psn, 1u);
}

TEST(Headers, AethSyndromeKinds) {
  EXPECT_EQ(aeth_kind(0x1F), AethKind::ACK);  // ACK, credits invalid (rxe)
  EXPECT_EQ(aeth_kind(0x00), AethKind::ACK);
  EXPECT_EQ(aeth_kind(0x32), AethKind::RNR_NAK);  // RNR NAK, timer 18
  EXPECT_EQ(aeth_kind(0x40), AethKind::RESERVED);
  EXPECT_EQ(aeth_kind(0x60), AethKind::NAK);       // PSN sequence error
  EXPECT_EQ(aeth_kind(0x63), AethKind::NAK);       // remote operational error
  EXPECT_EQ(aeth_kind(0x9F), AethKind::RESERVED);  // bit 7 set
}

TEST(Headers, NakCodesAreTheIbaSyndromes) {
  // IBA Vol. 1 §9.7.5.1 (rxe_hdr.h AETH_NAK_*): the five NAK syndromes.
  EXPECT_EQ(nak_syndrome(NakCode::PSN_SEQUENCE_ERROR), 0x60);
  EXPECT_EQ(nak_syndrome(NakCode::INVALID_REQUEST), 0x61);
  EXPECT_EQ(nak_syndrome(NakCode::REMOTE_ACCESS_ERROR), 0x62);
  EXPECT_EQ(nak_syndrome(NakCode::REMOTE_OPERATIONAL_ERROR), 0x63);
  EXPECT_EQ(nak_syndrome(NakCode::INVALID_RD_REQUEST), 0x64);
  EXPECT_EQ(std::size(kAllNakCodes), 5u);
  EXPECT_EQ(kFirstReservedNakCode, 5);
  EXPECT_EQ(rnr_nak_syndrome(18), 0x32);
  EXPECT_EQ(rnr_nak_syndrome(0x3F), 0x3F);  // the timer is 5 bits
  EXPECT_EQ(ack_syndrome(0x1F), 0x1F);
}

TEST(Headers, EverySyndromeNameComesFromTheOneVocabulary) {
  // Over all 256 syndromes: kind, value, NAK code and name agree with each other, and every NAK
  // code round-trips through its syndrome.
  for (unsigned raw = 0; raw < 256; ++raw) {
    const auto s = static_cast<std::uint8_t>(raw);
    SCOPED_TRACE(raw);
    const AethKind kind = aeth_kind(s);
    EXPECT_EQ(aeth_value(s), raw & 0x1F);
    const std::optional<NakCode> code = nak_code(s);
    EXPECT_EQ(code.has_value(), kind == AethKind::NAK && aeth_value(s) < kFirstReservedNakCode);
    const std::string_view name = aeth_name(s);
    switch (kind) {
      case AethKind::ACK:
        EXPECT_EQ(name, "ACK");
        EXPECT_EQ(ack_syndrome(aeth_value(s)), s);
        break;
      case AethKind::RNR_NAK:
        EXPECT_EQ(name, "RNR_NAK");
        EXPECT_EQ(rnr_nak_syndrome(aeth_value(s)), s);
        break;
      case AethKind::RESERVED:
        EXPECT_EQ(name, "RESERVED");
        break;
      case AethKind::NAK:
        if (code) {
          EXPECT_EQ(name, nak_name(*code));
          EXPECT_EQ(nak_syndrome(*code), s);
        } else {
          EXPECT_EQ(name, "NAK_RESERVED");
        }
        break;
    }
  }
  for (NakCode c : kAllNakCodes) {
    EXPECT_EQ(nak_code(nak_syndrome(c)), c);
    EXPECT_EQ(nak_name(c).substr(0, 4), "NAK_");
  }
}
