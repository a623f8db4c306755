// Unit tests of `rocecert mutate` (docs/mutate.md): on real captures (vectors/real/), each kind
// makes exactly the change it claims, re-encodes it consistently, and leaves every other frame
// byte-identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mutate_command.h"
#include "rocecert/check/catalog.h"
#include "rocecert/mutate/mutate.h"
#include "rocecert/wire/bytes.h"
#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/headers.h"

namespace rocecert::mutate {
namespace {

using wire::ParsedFrame;

std::string real(const std::string& name) {
  return std::string(ROCECERT_SOURCE_DIR) + "/vectors/real/" + name + ".pcap";
}

struct Mutant {
  Capture in;
  Result r;
  std::vector<ParsedFrame> in_dec;
  std::vector<ParsedFrame> out_dec;
  std::set<std::size_t> touched;  // 0-based output frames named by a change (not "removed")
  std::size_t removed = 0;
  std::size_t inserted = 0;

  const ParsedFrame& out(std::size_t k) const { return out_dec[k]; }
  const ParsedFrame& orig(std::size_t k) const {
    return in_dec[static_cast<std::size_t>(r.origin[k])];
  }
  std::vector<std::size_t> touched_list() const { return {touched.begin(), touched.end()}; }
};

std::vector<ParsedFrame> decode_all(const Capture& c) {
  std::vector<ParsedFrame> out;
  for (const Frame& f : c.frames) out.push_back(wire::decode(f.data, {c.link, true}));
  return out;
}

// Applies the mutation and checks what every kind must guarantee: frames not named in a change
// are byte-identical to their origin with its timestamp, timestamps never go back, and every
// frame decodes whole with its IPv4 checksum, IP and UDP lengths and ICRC right (the ICRC
// except for icrc_corrupt's frame).
Mutant run(const std::string& capture, Kind kind, std::uint64_t seed = 1) {
  Mutant m;
  m.in = read_capture(real(capture));
  m.r = apply(m.in, kind, seed);
  m.in_dec = decode_all(m.in);
  m.out_dec = decode_all(m.r.capture);
  EXPECT_EQ(m.r.capture.linktype, m.in.linktype);
  EXPECT_EQ(m.r.origin.size(), m.r.capture.frames.size());
  EXPECT_FALSE(m.r.changes.empty());
  for (const Change& c : m.r.changes) {
    EXPECT_GE(c.frame, 1u);
    if (c.field == "removed") {
      ++m.removed;
    } else {
      EXPECT_LE(c.frame, m.r.capture.frames.size());
      m.touched.insert(c.frame - 1);
      if (c.field == "inserted") ++m.inserted;
    }
  }
  EXPECT_EQ(m.r.capture.frames.size() + m.removed, m.in.frames.size() + m.inserted);
  for (std::size_t k = 0; k < m.r.capture.frames.size(); ++k) {
    const Frame& f = m.r.capture.frames[k];
    SCOPED_TRACE("output frame " + std::to_string(k + 1));
    if (k > 0) {
      EXPECT_GE(f.ts_ns, m.r.capture.frames[k - 1].ts_ns);
    }
    EXPECT_EQ(f.orig_len, f.data.size());
    const std::int64_t o = m.r.origin[k];
    if (o >= 0 && m.touched.count(k) == 0) {
      EXPECT_EQ(f.data, m.in.frames[static_cast<std::size_t>(o)].data);
      EXPECT_EQ(f.ts_ns, m.in.frames[static_cast<std::size_t>(o)].ts_ns);
    }
    if (m.touched.count(k) == 0) continue;
    const ParsedFrame& p = m.out_dec[k];
    if (kind == Kind::udp_length_short) {
      // No BTH inside the datagram any more: the decoder says so, and nothing else changed.
      EXPECT_EQ(p.error.code, wire::DecodeErrc::truncated_bth);
      EXPECT_EQ(p.udp.length, wire::kUdpLen);
      continue;
    }
    EXPECT_TRUE(p.roce && !p.has_error) << to_string(p.error.code);
    if (!p.roce || p.has_error) continue;
    if (p.ip.version == 4) {
      const auto header = wire::ByteSpan(f.data).subspan(p.ip_off, p.ip_header_len);
      EXPECT_EQ(p.ip.checksum, wire::ipv4_checksum(header));
      EXPECT_EQ(p.ip.total_length, f.data.size() - p.ip_off);
    } else {
      EXPECT_EQ(p.ip.total_length, f.data.size() - p.ip_off - wire::kIpv6Len);
    }
    EXPECT_EQ(p.udp.length, f.data.size() - p.udp_off);
    if (kind != Kind::icrc_corrupt) {
      EXPECT_TRUE(p.icrc_ok);
    }
  }
  return m;
}

std::size_t one_touched(const Mutant& m) {
  EXPECT_EQ(m.touched.size(), 1u);
  return m.touched.empty() ? 0 : *m.touched.begin();
}

// --- the table ------------------------------------------------------------------------------

TEST(MutateKinds, EveryRuleExistsAndNamesAreUnique) {
  std::set<std::string_view> names;
  std::size_t controls = 0;
  for (const KindInfo& k : kinds()) {
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
    EXPECT_EQ(find_kind(k.name), k.kind);
    EXPECT_FALSE(k.description.empty());
    if (k.control()) {
      ++controls;
    } else {
      EXPECT_TRUE(check::find_rule(k.rule).has_value()) << k.name << ": " << k.rule;
    }
  }
  EXPECT_EQ(controls, 7u);
  EXPECT_FALSE(find_kind("no_such_kind").has_value());
}

// --- forbidden kinds ------------------------------------------------------------------------

TEST(Mutate, PsnSkipShiftsTheRequestsAndResponsesFromOneOn) {
  const Mutant m = run("rc_write_bw_4096_mtu1024", Kind::psn_skip, 2);
  ASSERT_GE(m.touched.size(), 2u);
  std::uint32_t qp = 0;
  bool saw_request = false;
  bool saw_response = false;
  for (std::size_t k : m.touched) {
    EXPECT_EQ(m.out(k).bth.psn, (m.orig(k).bth.psn + 5000) & wire::kMask24);
    if (m.out(k).op->is_request()) {
      if (!saw_request) qp = m.out(k).bth.dqpn;
      EXPECT_EQ(m.out(k).bth.dqpn, qp);
      saw_request = true;
    } else {
      saw_response = true;
    }
  }
  EXPECT_TRUE(saw_request);
  EXPECT_TRUE(saw_response);
  // Every request of that QP after the first shifted one is shifted too.
  const std::size_t first = *m.touched.begin();
  for (std::size_t k = first; k < m.out_dec.size(); ++k) {
    if (m.out(k).op->is_request() && m.out(k).bth.dqpn == qp) {
      EXPECT_EQ(m.touched.count(k), 1u);
    }
  }
}

TEST(Mutate, RkeyChangeGivesAnAckedAccessTheRefusedKey) {
  const Mutant m = run("multi_qp_errors", Kind::rkey_change);
  const std::size_t k = one_touched(m);
  ASSERT_TRUE(m.out(k).has(wire::Header::Reth));
  EXPECT_NE(m.out(k).reth.rkey, m.orig(k).reth.rkey);
  EXPECT_EQ(m.out(k).reth.dmalen, m.orig(k).reth.dmalen);
  // A later access on the same QP with that rkey is NAKed remote access error.
  bool refused = false;
  for (std::size_t j = k + 1; j + 1 < m.out_dec.size(); ++j) {
    const ParsedFrame& p = m.out(j);
    if (p.op->is_request() && p.bth.dqpn == m.out(k).bth.dqpn && p.has(wire::Header::Reth) &&
        p.reth.rkey == m.out(k).reth.rkey && p.reth.va == m.out(k).reth.va) {
      for (std::size_t n = j + 1; n < m.out_dec.size(); ++n) {
        const ParsedFrame& a = m.out(n);
        refused |= a.has(wire::Header::Aeth) && a.bth.psn == p.bth.psn &&
                   a.aeth.syndrome == wire::nak_syndrome(wire::NakCode::REMOTE_ACCESS_ERROR);
      }
    }
  }
  EXPECT_TRUE(refused);
}

TEST(Mutate, RkeyChangeNaksAReadOfAGrantedRange) {
  const Mutant m = run("rc_read_bw_10000_mtu1024", Kind::rkey_change, 3);
  const std::size_t k = one_touched(m);
  const ParsedFrame& nak = m.out(k);
  EXPECT_EQ(nak.bth.opcode, wire::to_u8(wire::Opcode::RC_ACKNOWLEDGE));
  EXPECT_EQ(nak.aeth.syndrome, wire::nak_syndrome(wire::NakCode::REMOTE_ACCESS_ERROR));
  EXPECT_EQ(m.orig(k).bth.opcode, wire::to_u8(wire::Opcode::RC_RDMA_READ_RESPONSE_FIRST));
  EXPECT_EQ(nak.bth.psn, m.orig(k).bth.psn);
  EXPECT_GT(m.removed, 0u);
  // The READ it refuses, and an earlier READ of the same rkey and range that was answered.
  std::size_t read = 0;
  for (std::size_t j = 0; j < k; ++j) {
    if (m.out(j).op->operation == wire::Operation::READ_REQUEST && m.out(j).bth.psn == nak.bth.psn)
      read = j;
  }
  ASSERT_GT(read, 0u);
  bool granted = false;
  for (std::size_t j = 0; j < read; ++j) {
    const ParsedFrame& p = m.out(j);
    granted |= p.op->operation == wire::Operation::READ_REQUEST &&
               p.reth.rkey == m.out(read).reth.rkey && p.reth.va == m.out(read).reth.va;
  }
  EXPECT_TRUE(granted);
  // Nothing of that QP pair after the NAK.
  for (std::size_t j = k + 1; j < m.out_dec.size(); ++j) {
    EXPECT_FALSE(m.out(j).ip.src == nak.ip.src && m.out(j).bth.dqpn == nak.bth.dqpn);
    EXPECT_FALSE(m.out(j).ip.src == nak.ip.dst && m.out(j).bth.dqpn == m.out(read).bth.dqpn);
  }
}

// A WRITE granted on an rkey says nothing about READs on it (an MR may allow one and not the
// other): rc_ops_mtu4096's only earlier access covering its READs' range is a WRITE.
TEST(Mutate, RkeyChangePairsOnlyAccessesOfOneOperation) {
  const Capture in = read_capture(real("rc_ops_mtu4096"));
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    EXPECT_THROW((void)apply(in, Kind::rkey_change, seed), NoEligibleFrame) << "seed " << seed;
  }
}

// The READ refused is a first request, never a re-request the responder answers as a
// duplicate (rc_read_bw_10000_mtu1024_resploss10 re-requests READs whose responses were lost).
TEST(Mutate, RkeyChangeNeverRefusesAReRequestedRead) {
  const Capture in = read_capture(real("rc_read_bw_10000_mtu1024_resploss10"));
  const std::vector<ParsedFrame> dec = decode_all(in);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    Result r;
    try {
      r = apply(in, Kind::rkey_change, seed);
    } catch (const NoEligibleFrame&) {
      continue;
    }
    std::size_t nak = 0;
    for (const Change& c : r.changes) {
      if (c.field == "bth.opcode") nak = static_cast<std::size_t>(r.origin[c.frame - 1]);
    }
    std::size_t requests = 0;
    for (const ParsedFrame& p : dec) {
      if (p.op->operation == wire::Operation::READ_REQUEST && p.bth.psn == dec[nak].bth.psn) {
        ++requests;
      }
    }
    EXPECT_EQ(requests, 1u) << "seed " << seed;
  }
}

TEST(Mutate, NakCodeChangeSetsAReservedCode) {
  const Mutant m = run("err_send_too_long", Kind::nak_code_change);
  const std::size_t k = one_touched(m);
  EXPECT_EQ(wire::aeth_kind(m.orig(k).aeth.syndrome), wire::AethKind::NAK);
  EXPECT_EQ(wire::aeth_kind(m.out(k).aeth.syndrome), wire::AethKind::NAK);
  EXPECT_GE(wire::aeth_value(m.out(k).aeth.syndrome), wire::kFirstReservedNakCode);
  EXPECT_EQ(m.out(k).aeth.msn, m.orig(k).aeth.msn);
}

TEST(Mutate, ReadTruncateDropsPayloadAndFixesLengths) {
  const Mutant m = run("rc_ops_mtu4096", Kind::read_truncate);
  const std::size_t k = one_touched(m);
  EXPECT_EQ(m.out(k).op->operation, wire::Operation::READ_RESPONSE);
  EXPECT_EQ(m.out(k).payload_len, m.orig(k).payload_len / 2);
  EXPECT_EQ((m.out(k).payload_len + m.out(k).bth.padcnt) % 4, 0u);
  EXPECT_TRUE(std::equal(m.out(k).payload().begin(), m.out(k).payload().end(),
                         m.orig(k).payload().begin()));
}

TEST(Mutate, OpcodeSequenceBreakTurnsLastIntoMiddleOrOnlyIntoFirst) {
  for (const char* capture : {"rc_send_bw_10000_mtu1024", "rc_pingpong_64_mtu1024"}) {
    const Mutant m = run(capture, Kind::opcode_sequence_break);
    const std::size_t k = one_touched(m);
    const wire::OpcodeInfo& from = *m.orig(k).op;
    const wire::OpcodeInfo& to = *m.out(k).op;
    EXPECT_EQ(from.operation, to.operation);
    EXPECT_EQ(from.headers, to.headers);
    EXPECT_TRUE((from.position == wire::Position::LAST && to.position == wire::Position::MIDDLE) ||
                (from.position == wire::Position::ONLY && to.position == wire::Position::FIRST));
  }
}

TEST(Mutate, IcrcCorruptChangesOnlyTheIcrc) {
  const Mutant m = run("rc_pingpong_64_mtu1024", Kind::icrc_corrupt);
  const std::size_t k = one_touched(m);
  EXPECT_FALSE(m.out(k).icrc_ok);
  EXPECT_NE(m.out(k).icrc, m.orig(k).icrc);
  const auto& a = m.r.capture.frames[k].data;
  const auto& b = m.in.frames[static_cast<std::size_t>(m.r.origin[k])].data;
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + m.out(k).icrc_off, b.begin()));
}

TEST(Mutate, AckUnsentPsnMovesAnAck) {
  const Mutant m = run("rc_write_bw_4096_mtu1024", Kind::ack_unsent_psn);
  const std::size_t k = one_touched(m);
  EXPECT_EQ(m.out(k).op->operation, wire::Operation::ACK);
  EXPECT_EQ(wire::aeth_kind(m.out(k).aeth.syndrome), wire::AethKind::ACK);
  EXPECT_EQ(m.out(k).bth.psn, (m.orig(k).bth.psn + 5000) & wire::kMask24);
}

TEST(Mutate, MsnJump) {
  const Mutant m = run("rc_read_bw_10000_mtu1024", Kind::msn_jump);
  const std::size_t k = one_touched(m);
  EXPECT_EQ(m.out(k).aeth.msn, (m.orig(k).aeth.msn + 1000) & wire::kMask24);
  EXPECT_EQ(m.out(k).aeth.syndrome, m.orig(k).aeth.syndrome);
}

// An ACK's MSN when the capture has ACKs (rc_ops_mtu4096 also has READ responses and atomic
// ACKs); only a capture without ACKs gets another AETH changed.
TEST(Mutate, MsnJumpPrefersAnAck) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const Mutant m = run("rc_ops_mtu4096", Kind::msn_jump, seed);
    const std::size_t k = one_touched(m);
    EXPECT_EQ(m.out(k).op->operation, wire::Operation::ACK) << "seed " << seed;
  }
}

TEST(Mutate, RequestAfterFatalNakIsACopyWithTheNextPsn50msLater) {
  const Mutant m = run("err_write_bad_rkey", Kind::request_after_fatal_nak);
  ASSERT_EQ(m.r.capture.frames.size(), 3u);
  EXPECT_EQ(m.r.origin[2], -1);
  const ParsedFrame& copy = m.out(2);
  const ParsedFrame& nak = m.out(1);
  EXPECT_EQ(wire::aeth_kind(nak.aeth.syndrome), wire::AethKind::NAK);
  EXPECT_EQ(copy.bth.opcode, m.out(0).bth.opcode);
  EXPECT_EQ(copy.bth.psn, (m.out(0).bth.psn + 1) & wire::kMask24);
  EXPECT_EQ(m.r.capture.frames[2].ts_ns, m.r.capture.frames[1].ts_ns + 50'000'000);
}

TEST(Mutate, PadWrongKeepsThePayloadAndBreaksPadCnt) {
  const Mutant m = run("rc_ops_mtu4096", Kind::pad_wrong, 4);
  const std::size_t k = one_touched(m);
  EXPECT_NE(m.out(k).bth.padcnt, m.orig(k).bth.padcnt);
  EXPECT_EQ(m.out(k).payload_len, m.orig(k).payload_len);
  EXPECT_NE((m.out(k).payload_len + m.out(k).bth.padcnt) % 4, 0u);
}

// The mutant changed one frame's BTH, and `undo` (which checks the field it resets) makes it
// the input's again: nothing else in the BTH moved.
template <typename Undo>
void expect_one_bth_field(const Mutant& m, Undo undo) {
  const std::size_t k = one_touched(m);
  wire::Bth b = m.out(k).bth;
  undo(b);
  EXPECT_EQ(b, m.orig(k).bth);
}

TEST(Mutate, TverNonzero) {
  expect_one_bth_field(run("rc_pingpong_10000_mtu1024_v6", Kind::tver_nonzero), [](wire::Bth& b) {
    EXPECT_NE(b.tver, 0);
    b.tver = 0;
  });
}

TEST(Mutate, AtomicReplayValueRepeatsTheAtomicWithAnotherValue) {
  const Mutant m = run("rc_atomic_fadd_bw", Kind::atomic_replay_value);
  ASSERT_EQ(m.inserted, 2u);
  const auto t = m.touched_list();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1], t[0] + 1);
  const ParsedFrame& req = m.out(t[0]);
  const ParsedFrame& ack = m.out(t[1]);
  EXPECT_EQ(req.op->operation, wire::Operation::FETCH_ADD);
  EXPECT_EQ(ack.op->operation, wire::Operation::ATOMIC_ACK);
  EXPECT_EQ(req.bth.psn, ack.bth.psn);
  // The original request and ACK come before, byte-identical apart from the ACK's value.
  std::size_t orig_req = 0, orig_ack = 0;
  for (std::size_t j = 0; j < t[0]; ++j) {
    if (m.r.capture.frames[j].data == m.r.capture.frames[t[0]].data) orig_req = j + 1;
    if (m.out(j).op->operation == wire::Operation::ATOMIC_ACK && m.out(j).bth.psn == ack.bth.psn)
      orig_ack = j + 1;
  }
  ASSERT_GT(orig_req, 0u);
  ASSERT_GT(orig_ack, orig_req);
  EXPECT_NE(m.out(orig_ack - 1).atomicacketh.orig, ack.atomicacketh.orig);
}

TEST(Mutate, RnrWaitShortMovesTheResend) {
  const Mutant m = run("rnr_nak_then_ok", Kind::rnr_wait_short);
  const std::size_t k = one_touched(m);
  EXPECT_EQ(m.removed, 1u);
  // The moved frame keeps its bytes; it follows the RNR NAK with its PSN by 1 µs.
  EXPECT_EQ(m.r.capture.frames[k].data, m.in.frames[static_cast<std::size_t>(m.r.origin[k])].data);
  bool found = false;
  for (std::size_t j = 0; j < k; ++j) {
    const ParsedFrame& p = m.out(j);
    if (p.has(wire::Header::Aeth) && wire::aeth_kind(p.aeth.syndrome) == wire::AethKind::RNR_NAK &&
        p.bth.psn == m.out(k).bth.psn) {
      found = m.r.capture.frames[k].ts_ns == m.r.capture.frames[j].ts_ns + 1000;
    }
  }
  EXPECT_TRUE(found);
}

TEST(Mutate, PkeyZero) {
  const Mutant m = run("rc_pingpong_64_mtu1024_vlan", Kind::pkey_zero);
  const std::size_t k = one_touched(m);
  EXPECT_EQ(m.out(k).bth.pkey & 0x7FFF, 0);
  EXPECT_TRUE(m.out(k).eth.has_vlan);
}

TEST(Mutate, PsnSpillSetsResv7) {
  expect_one_bth_field(run("rc_read_bw_10000_mtu1024", Kind::psn_spill, 5), [](wire::Bth& b) {
    EXPECT_EQ(b.resv7, 1);
    b.resv7 = 0;
  });
}

TEST(Mutate, UdpLengthShortEndsTheDatagramAtItsHeader) {
  const Mutant m = run("rc_pingpong_64_mtu1024", Kind::udp_length_short, 3);
  const std::size_t k = one_touched(m);
  EXPECT_FALSE(m.out(k).has_bth);
  // Every byte but the length's two is the input frame's.
  const std::vector<std::uint8_t>& in = m.in.frames[static_cast<std::size_t>(m.r.origin[k])].data;
  std::vector<std::uint8_t> out = m.r.capture.frames[k].data;
  const std::size_t at = m.orig(k).udp_off + 4;
  out[at] = in[at];
  out[at + 1] = in[at + 1];
  EXPECT_EQ(out, in);
}

TEST(Mutate, ReadResponseStrayAnswersASendOrWriteWithAReadResponse) {
  const Mutant m = run("rc_send_bw_10000_mtu1024", Kind::read_response_stray, 2);
  const std::size_t k = one_touched(m);
  EXPECT_EQ(m.inserted, 1u);
  EXPECT_EQ(m.removed, 0u);
  EXPECT_EQ(m.r.origin[k], -1);
  ASSERT_GT(k, 0u);
  const ParsedFrame& resp = m.out(k);
  const ParsedFrame& req = m.out(k - 1);  // inserted right after its request
  EXPECT_EQ(resp.op->value, wire::to_u8(wire::Opcode::RC_RDMA_READ_RESPONSE_ONLY));
  EXPECT_EQ(resp.payload_len, 0u);
  EXPECT_EQ(resp.bth.psn, req.bth.psn);
  EXPECT_TRUE(req.op->operation == wire::Operation::SEND ||
              req.op->operation == wire::Operation::WRITE);
  EXPECT_TRUE(req.op->ends_message());
  EXPECT_EQ(wire::aeth_kind(resp.aeth.syndrome), wire::AethKind::ACK);
  // Toward the requester: the addresses of the request swapped.
  EXPECT_EQ(resp.ip.src, req.ip.dst);
  EXPECT_EQ(resp.ip.dst, req.ip.src);
  // The ACK that answers the same PSN comes later with the same MSN.
  bool acked = false;
  for (std::size_t j = k + 1; j < m.out_dec.size() && !acked; ++j)
    acked = m.out(j).has_bth && m.out(j).op->operation == wire::Operation::ACK &&
            m.out(j).bth.psn == resp.bth.psn && m.out(j).aeth.msn == resp.aeth.msn;
  EXPECT_TRUE(acked);
}

// Seed 2 picks a WRITE with payload, seed 1 the capture's zero-length WRITE with immediate,
// whose request stays as it was.
TEST(Mutate, ZeroLengthNakRefusesAnEmptyWriteAndCutsTheQp) {
  for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{2}}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Mutant m = run("rc_ops_mtu4096", Kind::zero_length_nak, seed);
    EXPECT_EQ(m.inserted, 0u);
    EXPECT_GT(m.removed, 0u);
    const std::size_t n = *m.touched.rbegin();
    const ParsedFrame& nak = m.out(n);
    EXPECT_EQ(nak.aeth.syndrome, wire::nak_syndrome(wire::NakCode::REMOTE_ACCESS_ERROR));
    EXPECT_EQ(wire::aeth_kind(m.orig(n).aeth.syndrome), wire::AethKind::ACK);
    EXPECT_EQ(nak.aeth.msn, (m.orig(n).aeth.msn - 1) & wire::kMask24);
    // The WRITE it refuses: the last request before it with its PSN.
    std::optional<std::size_t> w;
    for (std::size_t j = 0; j < n; ++j)
      if (m.out(j).has_bth && m.out(j).bth.psn == nak.bth.psn && m.out(j).ip.src == nak.ip.dst)
        w = j;
    ASSERT_TRUE(w.has_value());
    const ParsedFrame& write = m.out(*w);
    EXPECT_EQ(write.op->operation, wire::Operation::WRITE);
    EXPECT_EQ(write.op->position, wire::Position::ONLY);
    EXPECT_EQ(write.reth.dmalen, 0u);
    EXPECT_EQ(write.payload_len, 0u);
    EXPECT_EQ(write.bth.padcnt, 0u);
    // Everything else of the WRITE is the original's; it was touched only if it carried data.
    EXPECT_EQ(write.reth.rkey, m.orig(*w).reth.rkey);
    EXPECT_EQ(write.reth.va, m.orig(*w).reth.va);
    EXPECT_EQ(m.touched.count(*w), m.orig(*w).reth.dmalen > 0 ? 1u : 0u);
    EXPECT_EQ(m.touched.size(), m.orig(*w).reth.dmalen > 0 ? 2u : 1u);
    EXPECT_EQ(m.orig(*w).reth.dmalen > 0, seed == 2);
    // The QP pair's traffic ends with the NAK; the other QP pair's goes on (both QPs are 0x2f:
    // requests and responses are told by their opcodes).
    bool others = false;
    for (std::size_t j = n + 1; j < m.out_dec.size(); ++j) {
      const ParsedFrame& p = m.out(j);
      const bool is_response = p.op->operation == wire::Operation::ACK ||
                               p.op->operation == wire::Operation::READ_RESPONSE ||
                               p.op->operation == wire::Operation::ATOMIC_ACK;
      const bool request = !is_response && p.ip.src == write.ip.src && p.bth.dqpn == write.bth.dqpn;
      const bool response = is_response && p.ip.src == nak.ip.src && p.bth.dqpn == nak.bth.dqpn;
      EXPECT_FALSE(request || response) << "output frame " << j + 1;
      others = others || !(request || response);
    }
    EXPECT_TRUE(others);
  }
}

// Both QPs of this capture are numbered 0x3a: the directions are told by their addresses.
TEST(Mutate, IgnoredNakSendsANewPsnAfterASequenceNakAndNoResend) {
  const Mutant m = run("rc_write_bw_10000_mtu1024_loss5", Kind::ignored_nak);
  EXPECT_EQ(m.inserted, 1u);
  EXPECT_GT(m.removed, 0u);
  const std::size_t k = one_touched(m);
  EXPECT_EQ(m.r.origin[k], -1);
  // The NAK PSN sequence error toward the copy's sender before it, 50 ms earlier, with nothing
  // of the QP pair between; the copy's PSN is new: past every PSN its sender used before.
  const ParsedFrame& copy = m.out(k);
  std::optional<std::size_t> nak;
  for (std::size_t j = 0; j < k; ++j) {
    const ParsedFrame& p = m.out(j);
    if (!p.has_bth) continue;
    if (p.ip.src == copy.ip.dst &&
        p.aeth.syndrome == wire::nak_syndrome(wire::NakCode::PSN_SEQUENCE_ERROR))
      nak = j;
    if (p.ip.src == copy.ip.src) {
      const std::uint32_t behind = (copy.bth.psn - p.bth.psn) & wire::kMask24;
      EXPECT_TRUE(behind > 0 && behind < 0x800000u) << j;
    }
  }
  ASSERT_TRUE(nak.has_value());
  EXPECT_EQ(m.r.capture.frames[k].ts_ns, m.r.capture.frames[*nak].ts_ns + 50'000'000);
  EXPECT_EQ(*nak + 1, k);
  EXPECT_EQ(k + 1, m.r.capture.frames.size());
}

TEST(Mutate, CnpUnmarkedInsertsACnpToTheRequester) {
  const Mutant m = run("rc_pingpong_64_mtu1024", Kind::cnp_unmarked);
  const std::size_t k = one_touched(m);
  EXPECT_EQ(m.inserted, 1u);
  const ParsedFrame& cnp = m.out(k);
  EXPECT_EQ(cnp.bth.opcode, wire::to_u8(wire::Opcode::CNP_CNP));
  EXPECT_TRUE(cnp.bth.becn);
  EXPECT_EQ(cnp.bth.padcnt, 0);
  EXPECT_EQ(cnp.payload_len, 0u);
  // It goes where the responses before it went, to the requester's QP.
  const ParsedFrame& before = m.out(k - 1);
  EXPECT_EQ(cnp.ip.dst, before.ip.dst);
  EXPECT_EQ(cnp.bth.dqpn, before.bth.dqpn);
  for (const ParsedFrame& p : m.out_dec) EXPECT_NE(p.ip.ecn, 3);
}

// --- controls -------------------------------------------------------------------------------

TEST(MutateControl, TtlChangeKeepsTheIcrc) {
  for (const char* capture : {"rc_pingpong_64_mtu1024", "rc_pingpong_10000_mtu1024_v6"}) {
    const Mutant m = run(capture, Kind::ttl_change);
    const std::size_t k = one_touched(m);
    EXPECT_LT(m.out(k).ip.ttl, m.orig(k).ip.ttl);
    EXPECT_EQ(m.out(k).icrc, m.orig(k).icrc);
  }
}

TEST(MutateControl, EcnToggle) {
  for (const char* capture : {"rc_pingpong_64_mtu1024", "rc_pingpong_10000_mtu1024_v6"}) {
    const Mutant m = run(capture, Kind::ecn_toggle);
    const std::size_t k = one_touched(m);
    EXPECT_EQ(m.orig(k).ip.ecn, 0);
    EXPECT_EQ(m.out(k).ip.ecn, 2);
    EXPECT_EQ(m.out(k).ip.dscp, m.orig(k).ip.dscp);
    EXPECT_EQ(m.out(k).ip.flow_label, m.orig(k).ip.flow_label);
    EXPECT_EQ(m.out(k).icrc, m.orig(k).icrc);
  }
}

TEST(MutateControl, IpIdChange) {
  const Mutant m = run("rc_pingpong_64_mtu1024", Kind::ip_id_change);
  const std::size_t k = one_touched(m);
  EXPECT_NE(m.out(k).ip.id, m.orig(k).ip.id);
  EXPECT_EQ(m.out(k).bth, m.orig(k).bth);
}

TEST(MutateControl, DropResponseRemovesOneAck) {
  const Mutant m = run("rc_send_bw_10000_mtu1024", Kind::drop_response);
  EXPECT_TRUE(m.touched.empty());
  EXPECT_EQ(m.removed, 1u);
  const auto gone = std::find(m.r.origin.begin(), m.r.origin.end(), -1);
  EXPECT_EQ(gone, m.r.origin.end());
  std::set<std::int64_t> kept(m.r.origin.begin(), m.r.origin.end());
  for (std::size_t i = 0; i < m.in.frames.size(); ++i) {
    if (kept.count(static_cast<std::int64_t>(i)) == 0) {
      EXPECT_EQ(m.in_dec[i].op->operation, wire::Operation::ACK);
      EXPECT_EQ(wire::aeth_kind(m.in_dec[i].aeth.syndrome), wire::AethKind::ACK);
    }
  }
}

TEST(MutateControl, DuplicateFrameRepeatsItRightAfter) {
  const Mutant m = run("ud_pingpong_1024", Kind::duplicate_frame);
  const std::size_t k = one_touched(m);
  ASSERT_GT(k, 0u);
  EXPECT_EQ(m.r.capture.frames[k].data, m.r.capture.frames[k - 1].data);
}

// A link's reordering: the request comes right after the QP's next request, at a time no
// earlier than that one's (a frame moved before the time it was sent made the RNR resend of
// rnr_nak_then_ok look too early).
TEST(MutateControl, ReorderAdjacentDelaysARequestPastItsQpsNext) {
  for (const char* capture : {"rc_write_bw_4096_mtu1024_q8", "rnr_nak_then_ok"}) {
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      SCOPED_TRACE(std::string(capture) + " seed " + std::to_string(seed));
      const Mutant m = run(capture, Kind::reorder_adjacent, seed);
      ASSERT_EQ(m.removed, 1u);
      ASSERT_EQ(m.inserted, 1u);
      const std::size_t k = one_touched(m);
      ASSERT_GT(k, 0u);
      const auto o = static_cast<std::size_t>(m.r.origin[k]);
      EXPECT_EQ(m.r.capture.frames[k].data, m.in.frames[o].data);
      ASSERT_TRUE(m.in_dec[o].op->is_request());
      std::size_t next = o + 1;
      while (next < m.in.frames.size() &&
             !(m.in_dec[next].roce && m.in_dec[next].op->is_request() &&
               m.in_dec[next].bth.dqpn == m.in_dec[o].bth.dqpn))
        ++next;
      ASSERT_LT(next, m.in.frames.size());
      EXPECT_EQ(m.r.origin[k - 1], static_cast<std::int64_t>(next));
      EXPECT_GE(m.r.capture.frames[k].ts_ns, m.in.frames[next].ts_ns);
    }
  }
}

TEST(MutateControl, DropRequestRemovesAFrameThatIsResent) {
  const Mutant m = run("rc_write_bw_10000_mtu1024_loss5", Kind::drop_request);
  EXPECT_EQ(m.removed, 1u);
  std::set<std::int64_t> kept(m.r.origin.begin(), m.r.origin.end());
  std::size_t gone = 0;
  for (std::size_t i = 0; i < m.in.frames.size(); ++i) {
    if (kept.count(static_cast<std::int64_t>(i)) == 0) gone = i;
  }
  bool resent = false;
  for (std::size_t j = gone + 1; j < m.in.frames.size(); ++j) {
    resent |= m.in_dec[j].bth.psn == m.in_dec[gone].bth.psn &&
              m.in_dec[j].bth.opcode == m.in_dec[gone].bth.opcode;
  }
  EXPECT_TRUE(resent);
}

// A request frame removed as lost before the tap must not have been answered before its resend:
// the responder cannot answer what never reached it.
TEST(MutateControl, DropRequestNeverRemovesAFrameTheResponderAnswered) {
  for (const char* capture :
       {"rc_send_bw_64_mtu1024_corrupt2", "rc_write_bw_10000_mtu1024_loss5"}) {
    const Capture in = read_capture(real(capture));
    const std::vector<ParsedFrame> dec = decode_all(in);
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      Result r;
      try {
        r = apply(in, Kind::drop_request, seed);
      } catch (const NoEligibleFrame&) {
        continue;
      }
      std::set<std::int64_t> kept(r.origin.begin(), r.origin.end());
      std::size_t gone = 0;
      for (std::size_t i = 0; i < in.frames.size(); ++i) {
        if (kept.count(static_cast<std::int64_t>(i)) == 0) gone = i;
      }
      const ParsedFrame& g = dec[gone];
      SCOPED_TRACE(std::string(capture) + " seed " + std::to_string(seed) + ": input frame " +
                   std::to_string(gone + 1));
      // Nor may a response follow it at once (a NAK PSN sequence error it set off). The QP pairs
      // of these captures are alone between their two hosts.
      if (gone + 1 < in.frames.size()) {
        EXPECT_TRUE(dec[gone + 1].op->is_request()) << "followed by input frame " << gone + 2;
      }
      for (std::size_t j = gone + 1; j < in.frames.size(); ++j) {
        const ParsedFrame& p = dec[j];
        if (p.op->is_request() && p.bth.dqpn == g.bth.dqpn && p.bth.psn == g.bth.psn) break;
        const bool answers = p.op->is_response() && p.ip.src == g.ip.dst && p.ip.dst == g.ip.src &&
                             ((p.bth.psn - g.bth.psn) & wire::kMask24) < 0x800000;
        EXPECT_FALSE(answers) << "answered by input frame " << j + 1;
      }
    }
  }
}

// The responses to a READ cannot be told from the answers to its resend, so a READ is never
// the request dropped: rc_read_bw_10000_mtu1024_resploss10 re-requests only READs.
TEST(MutateControl, DropRequestNeverDropsARead) {
  const Capture in = read_capture(real("rc_read_bw_10000_mtu1024_resploss10"));
  EXPECT_THROW((void)apply(in, Kind::drop_request, 1), NoEligibleFrame);
}

// A LAST turned into a MIDDLE must not be resent later as a LAST (that is another rule's case).
TEST(Mutate, OpcodeSequenceBreakPicksAPsnNeverSentAgain) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const Mutant m = run("rc_write_bw_10000_mtu1024_loss5", Kind::opcode_sequence_break, seed);
    const std::size_t k = one_touched(m);
    std::size_t sent = 0;
    for (const ParsedFrame& p : m.out_dec) {
      if (p.op->is_request() && p.bth.dqpn == m.out(k).bth.dqpn && p.bth.psn == m.out(k).bth.psn) {
        ++sent;
      }
    }
    EXPECT_EQ(sent, 1u) << "seed " << seed;
  }
}

// The shift starts at a request the responder answered afterwards, so the jump cannot be taken
// for requests the tap missed at the end of the capture.
TEST(Mutate, PsnSkipStartsBeforeAResponse) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const Mutant m = run("cq_overflow", Kind::psn_skip, seed);
    const bool response = std::any_of(m.touched.begin(), m.touched.end(),
                                      [&](std::size_t k) { return m.out(k).op->is_response(); });
    EXPECT_TRUE(response) << "seed " << seed;
  }
}

// --- seeds, eligibility, files and the command ----------------------------------------------

TEST(Mutate, SameSeedSameMutantOtherSeedsPickOtherFrames) {
  const Capture in = read_capture(real("rc_send_bw_10000_mtu1024"));
  const Result a = apply(in, Kind::tver_nonzero, 7);
  const Result b = apply(in, Kind::tver_nonzero, 7);
  EXPECT_EQ(a.capture.frames.size(), b.capture.frames.size());
  for (std::size_t k = 0; k < a.capture.frames.size(); ++k) {
    EXPECT_EQ(a.capture.frames[k].data, b.capture.frames[k].data);
  }
  std::set<std::uint64_t> picked;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    picked.insert(apply(in, Kind::tver_nonzero, seed).changes.at(0).frame);
  }
  EXPECT_GT(picked.size(), 1u);
}

TEST(Mutate, NoEligibleFrameNamesTheKind) {
  const Capture in = read_capture(real("ud_pingpong_1024"));
  try {
    (void)apply(in, Kind::rkey_change, 1);
    FAIL() << "expected NoEligibleFrame";
  } catch (const NoEligibleFrame& e) {
    EXPECT_STREQ(e.what(), "no eligible frame for rkey_change");
  }
}

TEST(Mutate, WrittenCaptureReadsBackWithLinkTypeAndTimestamps) {
  const Capture in = read_capture(real("rc_pingpong_64_mtu1024_vlan"));
  const Result r = apply(in, Kind::duplicate_frame, 5);
  const std::string path = ::testing::TempDir() + "mutate_roundtrip.pcap";
  write_capture(r.capture, path);
  const Capture back = read_capture(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.linktype, in.linktype);
  ASSERT_EQ(back.frames.size(), r.capture.frames.size());
  for (std::size_t k = 0; k < back.frames.size(); ++k) {
    EXPECT_EQ(back.frames[k].ts_ns, r.capture.frames[k].ts_ns);
    EXPECT_EQ(back.frames[k].data, r.capture.frames[k].data);
  }
}

TEST(MutateCommand, ExitCodes) {
  const std::string out = ::testing::TempDir() + "mutate_cmd.pcap";
  cli::MutateArgs args;
  args.in = real("ud_pingpong_1024");
  args.out = out;
  args.op = "rkey_change";
  EXPECT_EQ(cli::run_mutate(args), 3);
  args.op = "ttl_change";
  EXPECT_EQ(cli::run_mutate(args), 0);
  EXPECT_TRUE(std::filesystem::exists(out));
  args.op = "no_such_kind";
  EXPECT_EQ(cli::run_mutate(args), 2);
  args.op = "ttl_change";
  args.in = real("no_such_capture");
  EXPECT_EQ(cli::run_mutate(args), 2);
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace rocecert::mutate
