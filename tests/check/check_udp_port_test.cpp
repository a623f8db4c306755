// The UDP source port in the pairing of responses with request streams (docs/check.md,
// "Pairing"), and the requester that acts as if a flow's answers were not its own: two QPs
// between the same hosts may send the same PSNs, one of them with no peer at all, and a
// capture that begins after the other's requests shows nothing else that tells them apart
// (corpus seeds 11455, 13801, 40249, 44724, 81633 and 86128 cut mid-conversation).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "conversation.h"

namespace rocecert {
namespace {

using check::NoteKind;
using check::Profile;
using check::RuleId;
using check::Verdict;
using testing::Conversation;
using testing::count;
using testing::describe;
using testing::strict;
using wire::Opcode;

constexpr std::uint16_t kPortAB = 0xC101;     // A's QP 0x11 and B's QP 0x22, both ways
constexpr std::uint16_t kPortOther = 0xC202;  // the QP pair whose requests the capture misses

bool has_note(const check::Report& r, NoteKind kind, std::string_view words) {
  for (const check::Note& n : r.notes)
    if (n.kind == kind && n.message.find(words) != std::string::npos) return true;
  return false;
}

Profile per_qp_pair() {
  Profile p = strict();
  p.udp_source_port = Profile::UdpSourcePort::PerQpPair;
  return p;
}

void request(Conversation& c, Opcode op, std::uint32_t psn, std::uint16_t sport = kPortAB) {
  wire::FrameSpec s = c.make(true, op, Conversation::kQpB, psn, 64);
  if (op == Opcode::RC_RDMA_WRITE_ONLY) s.reth = {0x3000, 7, 64};
  s.udp.sport = sport;
  c.send(s);
}
void answer(Conversation& c, Opcode op, std::uint32_t dqpn, std::uint32_t psn, std::uint32_t msn,
            std::uint16_t sport, std::uint8_t syndrome = 0x1F) {
  wire::FrameSpec s = c.make(false, op, dqpn, psn, op == Opcode::RC_ACKNOWLEDGE ? 0 : 64);
  s.aeth = {syndrome, msn};
  s.udp.sport = sport;
  c.send(s);
}

// A's QP 0x11 sends a SEND at 209 to B's QP 0x22 (port kPortAB); B answers A's QP 0x14, whose
// requests all came before the capture with the same PSNs, by ACKs and a READ response up to
// 211 (MSN 1 first: the connection's start, as far as the stream can tell), from port
// `answer_port`. With `resends`, A's QP then resends 208 and 209 twice, as a QP whose peer does
// not exist does to the end; with `new_psn`, it sends 212 and 213 afterwards, as a requester
// that took the answers as its own.
Conversation answers_past_the_stream(std::uint16_t answer_port, bool resends = false,
                                     bool new_psn = false) {
  Conversation c;
  request(c, Opcode::RC_SEND_ONLY, 209);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x14, 209, 1, answer_port);
  answer(c, Opcode::RC_RDMA_READ_RESPONSE_ONLY, 0x14, 210, 2, answer_port);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x14, 211, 3, answer_port);
  for (int round = 0; resends && round < 2; ++round) {
    request(c, Opcode::RC_RDMA_WRITE_ONLY, 208);
    request(c, Opcode::RC_SEND_ONLY, 209);
  }
  if (new_psn) {
    request(c, Opcode::RC_SEND_ONLY, 212);
    request(c, Opcode::RC_SEND_ONLY, 213);
  }
  return c;
}

// Another QP pair, A's QP `qp_a` with B's QP `qp_b`, a SEND and its ACK, each way's port given.
void other_pair(Conversation& c, std::uint32_t qp_a, std::uint32_t qp_b, std::uint16_t port_ab,
                std::uint16_t port_ba) {
  wire::FrameSpec s = c.make(true, Opcode::RC_SEND_ONLY, qp_b, 90000, 64);
  s.udp.sport = port_ab;
  c.send(s);
  answer(c, Opcode::RC_ACKNOWLEDGE, qp_a, 90000, 1, port_ba);
}

TEST(CheckUdpPort, WithoutAPortPolicyAcksPastTheOnlyStreamFail) {
  // The ports differ, but the profile declares nothing about them, and the capture shows no
  // other QP pair: the device acknowledged PSNs never sent.
  const check::Report r = answers_past_the_stream(kPortOther).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_GE(count(r, RuleId::AckPsn), 1u) << describe(r);
}

TEST(CheckUdpPort, APerQpPairPolicyKeepsAnswersFromAnotherPortOffTheStream) {
  const check::Report r = answers_past_the_stream(kPortOther).check(per_qp_pair());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_EQ(count(r, RuleId::AckPsn), 0u) << describe(r);
  EXPECT_TRUE(has_note(r, NoteKind::Assumption, "because the UDP source ports differ"))
      << describe(r);
  EXPECT_TRUE(has_note(r, NoteKind::Assumption, "udp_source_port per_qp_pair")) << describe(r);
}

TEST(CheckUdpPort, APerQpPairPolicyStillFailsAcksPastTheStreamOnItsOwnPort) {
  const check::Report r = answers_past_the_stream(kPortAB).check(per_qp_pair());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_GE(count(r, RuleId::AckPsn), 1u) << describe(r);
  EXPECT_FALSE(has_note(r, NoteKind::Assumption, "UDP source ports differ")) << describe(r);
}

TEST(CheckUdpPort, ACorruptedFramesPortProvesNothing) {
  // The stream's one request reached the tap corrupted (bad ICRC), its port among the bytes
  // that may have changed: it is not held against the answers from kPortOther.
  Conversation c;
  wire::FrameSpec s = c.make(true, Opcode::RC_SEND_ONLY, Conversation::kQpB, 209, 64);
  s.udp.sport = kPortAB;
  s.icrc = 0x12345678;
  c.send(s);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x14, 209, 1, kPortOther);
  const check::Report r = c.check(per_qp_pair());
  EXPECT_FALSE(has_note(r, NoteKind::Assumption, "UDP source ports differ")) << describe(r);
}

TEST(CheckUdpPort, APerQpPairPolicyPairsQpsThatSendTheSamePsns) {
  // Two QPs of A send the same PSNs to two QPs of B; each is answered, from its own port. By
  // the PSNs alone, either flow fits either stream; the ports tell them apart.
  Conversation c;
  for (std::uint32_t psn = 300; psn < 303; ++psn) {
    request(c, Opcode::RC_SEND_ONLY, psn, kPortAB);
    wire::FrameSpec s = c.make(true, Opcode::RC_SEND_ONLY, 0x23, psn, 64);
    s.udp.sport = kPortOther;
    c.send(s);
    answer(c, Opcode::RC_ACKNOWLEDGE, Conversation::kQpA, psn, psn - 299, kPortAB);
    answer(c, Opcode::RC_ACKNOWLEDGE, 0x15, psn, psn - 299, kPortOther);
  }
  const check::Report any = c.check(strict());
  EXPECT_EQ(any.verdict, Verdict::INCONCLUSIVE) << describe(any);
  const check::Report r = c.check(per_qp_pair());
  EXPECT_EQ(r.verdict, Verdict::PASS) << describe(r);
  ASSERT_EQ(r.connections.size(), 2u) << describe(r);
  for (const check::Connection& conn : r.connections) EXPECT_TRUE(conn.a.qpn.has_value());
}

TEST(CheckUdpPort, WithoutAPolicyAPairingAgainstWhatTheCaptureShowsOfPortsIsUndecided) {
  // Another QP pair, with a different QPN at each end, keeps one port both ways: the device
  // derives the port from the pair (or uses one for all), so answers from another port than the
  // stream's are another pair's.
  Conversation c = answers_past_the_stream(kPortOther);
  other_pair(c, 0x31, 0x32, 0xC303, 0xC303);
  const check::Report r = c.check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_note(r, NoteKind::Unpaired, "while the capture's other QP pairs keep one port"))
      << describe(r);
}

TEST(CheckUdpPort, PortsThatDifferEverywhereOrMatchOnlyOnEqualQpnsShowNoPolicy) {
  // The other pair's ports differ too (a port per QP), or agree only where both ends have the
  // same QPN (a port hashed from one QPN would agree there as well): the ACKs past the stream
  // stay ack.psn's.
  for (const auto& [qp_a, qp_b, back] : {std::tuple{0x31u, 0x32u, std::uint16_t{0xC404}},
                                         std::tuple{0x31u, 0x31u, std::uint16_t{0xC303}}}) {
    Conversation c = answers_past_the_stream(kPortOther);
    other_pair(c, qp_a, qp_b, 0xC303, back);
    const check::Report r = c.check(strict());
    EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
    EXPECT_GE(count(r, RuleId::AckPsn), 1u) << describe(r);
  }
}

TEST(CheckUdpPort, ARequesterThatResendsWhatTheAnswersAcknowledgedDisownsThem) {
  // No policy, no other pair: A's QP resends 208 and 209 after ACKs of 211, and sends nothing
  // new, as if it never had those answers (a QP whose peer does not exist).
  const check::Report r = answers_past_the_stream(kPortOther, /*resends=*/true).check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_note(r, NoteKind::Unpaired, "as if it never had these answers")) << describe(r);
}

TEST(CheckUdpPort, ARequesterThatGoesOnPastTheAnswersOwnsThem) {
  // The same resends, then new PSNs: the requester took the answers as its own, and the ACKs
  // of PSNs it had not sent yet are the device's (the mutation test's ack_unsent_psn).
  const check::Report r =
      answers_past_the_stream(kPortOther, /*resends=*/true, /*new_psn=*/true).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_GE(count(r, RuleId::AckPsn), 1u) << describe(r);
}

// Within what the stream sent (corpus seed 13801 cut at frame 36): A's QP sends a WRITE at 199
// and a SEND at 200; B answers A's QP 0x15 with an ACK of 199 carrying MSN 4 (the connection
// began before the capture) and a NAK remote access error at 200, which a SEND cannot earn;
// then, with `disowned`, A's QP resends 199 and 200 to the end, as if it never had them.
Conversation nak_within_the_stream(bool disowned) {
  Conversation c;
  request(c, Opcode::RC_RDMA_WRITE_ONLY, 199);
  request(c, Opcode::RC_SEND_ONLY, 200);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x15, 199, 4, kPortOther);
  answer(c, Opcode::RC_ACKNOWLEDGE, 0x15, 200, 4, kPortOther, 0x62);  // NAK remote access
  for (int round = 0; disowned && round < 3; ++round) {
    request(c, Opcode::RC_RDMA_WRITE_ONLY, 199);
    request(c, Opcode::RC_SEND_ONLY, 200);
  }
  return c;
}

TEST(CheckUdpPort, ANakToARequesterThatDisownsItIsUndecided) {
  const check::Report r = nak_within_the_stream(true).check(strict());
  EXPECT_NE(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_TRUE(has_note(r, NoteKind::Unpaired, "acknowledge PSNs its requester resent afterwards"))
      << describe(r);
}

TEST(CheckUdpPort, ANakToARequesterThatStopsIsJudged) {
  // The requester stops after the fatal NAK: the answers are its own, and the golden replay's
  // ACK for the SEND stands against the NAK.
  const check::Report r = nak_within_the_stream(false).check(strict());
  EXPECT_EQ(r.verdict, Verdict::FAIL) << describe(r);
  EXPECT_GE(count(r, RuleId::GoldenResponse), 1u) << describe(r);
}

TEST(CheckUdpPort, TheRxeProfilesPolicyHoldsOnEveryRealCapture) {
  // rxe keeps one UDP source port both ways of each QP pair in every capture of vectors/real/
  // (several QP pairs between the same hosts in some): the policy the rxe profile declares rules
  // out no pairing there, and every verdict is the same as with no policy declared.
  std::vector<std::string> paths;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(ROCECERT_SOURCE_DIR) + "/vectors/real"))
    if (e.path().extension() == ".pcap") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  ASSERT_GE(paths.size(), 28u);
  check::Options rxe;
  rxe.profile = check::load_profile("rxe");
  ASSERT_EQ(rxe.profile.udp_source_port, Profile::UdpSourcePort::PerQpPair);
  check::Options any = rxe;
  any.profile.udp_source_port = Profile::UdpSourcePort::Any;
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const check::Report r = check::check_files({path}, rxe);
    EXPECT_FALSE(has_note(r, NoteKind::Assumption, "UDP source ports differ")) << describe(r);
    const check::Report a = check::check_files({path}, any);
    EXPECT_EQ(r.verdict, a.verdict) << describe(r);
    ASSERT_EQ(r.connections.size(), a.connections.size());
    for (std::size_t i = 0; i < r.connections.size(); ++i)
      EXPECT_EQ(r.connections[i].verdict, a.connections[i].verdict) << i;
  }
}

}  // namespace
}  // namespace rocecert
