// The fault plan's rule language and the per-frame decisions of the fault injector.
#include "rocecert/model/faults.h"

#include <charconv>
#include <cstdio>

#include "rocecert/wire/decode.h"
#include "rocecert/wire/encode.h"
#include "rocecert/wire/sample_frames.h"

namespace rocecert::model {

namespace {

constexpr std::array<std::string_view, kFaultActionCount> kActionNames = {
    "drop", "duplicate", "reorder", "delay", "corrupt", "ecn_ce"};

constexpr std::array<std::string_view, 13> kClassNames = {
    "any",    "request",    "response",    "send", "write", "read_request", "read_response",
    "atomic", "atomic_ack", "acknowledge", "ack",  "nak",   "cnp"};

constexpr std::array<std::string_view, 4> kPositionNames = {"first", "middle", "last", "only"};

// Per frame, the stream gives one value per action (in FaultAction order), then these two.
constexpr std::size_t kJitterDraw = kFaultActionCount;
constexpr std::size_t kCorruptBitDraw = kFaultActionCount + 1;
constexpr std::uint64_t kDrawsPerFrame = kFaultActionCount + 2;
constexpr std::uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ull;  // SplitMix64's increment

// A uniform double in [0, 1) from the top 53 bits, so p = 0 never fires and p = 1 always does.
double unit(std::uint64_t x) {
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

bool is_acknowledge(const wire::OpcodeInfo& op) {
  return op.operation == wire::Operation::ACK;
}

bool class_matches(OpcodeClass c, const wire::ParsedFrame& p) {
  const wire::OpcodeInfo& op = *p.op;
  // AETH syndrome bits 6:5 (rocecert/wire/headers.h; bit 7 is not looked at here).
  const unsigned aeth_type = p.aeth.syndrome & wire::kAethTypeMask;
  switch (c) {
    case OpcodeClass::ANY:
      return true;
    case OpcodeClass::REQUEST:
      return op.direction == wire::Direction::REQ;
    case OpcodeClass::RESPONSE:
      return op.direction == wire::Direction::RESP;
    case OpcodeClass::SEND:
      return op.operation == wire::Operation::SEND;
    case OpcodeClass::WRITE:
      return op.operation == wire::Operation::WRITE;
    case OpcodeClass::READ_REQUEST:
      return op.operation == wire::Operation::READ_REQUEST;
    case OpcodeClass::READ_RESPONSE:
      return op.operation == wire::Operation::READ_RESPONSE;
    case OpcodeClass::ATOMIC:
      return op.operation == wire::Operation::COMPARE_SWAP ||
             op.operation == wire::Operation::FETCH_ADD;
    case OpcodeClass::ATOMIC_ACK:
      return op.operation == wire::Operation::ATOMIC_ACK;
    case OpcodeClass::ACKNOWLEDGE:
      return is_acknowledge(op);
    case OpcodeClass::ACK:
      return is_acknowledge(op) && aeth_type == wire::kAethTypeAck;
    case OpcodeClass::NAK:
      return is_acknowledge(op) &&
             (aeth_type == wire::kAethTypeRnrNak || aeth_type == wire::kAethTypeNak);
    case OpcodeClass::CNP:
      return op.transport == wire::Transport::CNP;
  }
  return false;
}

bool only_direction(const FrameMatch& m) {
  return !m.opcode && m.opcode_class == OpcodeClass::ANY && !m.position && !m.dest_qp && !m.psn &&
         !m.ackreq;
}

bool matches(const FrameMatch& m, LinkDirection d, const wire::ParsedFrame& p) {
  if (m.direction && *m.direction != d) return false;
  const bool transport = p.roce && !p.has_error && p.has_bth;
  if (!transport) return only_direction(m);
  if (m.opcode && *m.opcode != p.bth.opcode) return false;
  if (!class_matches(m.opcode_class, p)) return false;
  if (m.position && *m.position != p.op->position) return false;
  if (m.dest_qp && *m.dest_qp != p.bth.dqpn) return false;
  if (m.psn && *m.psn != p.bth.psn) return false;
  if (m.ackreq && *m.ackreq != p.bth.ackreq) return false;
  return true;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Shortest text that reads back as the same double.
std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

bool parse_u32(std::string_view s, std::uint32_t& out, std::uint64_t max = UINT32_MAX) {
  std::uint64_t v = 0;
  if (!parse_u64(s, v) || v > max) return false;
  out = static_cast<std::uint32_t>(v);
  return true;
}

template <std::size_t N>
int index_of(const std::array<std::string_view, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<int>(i);
  return -1;
}

}  // namespace

std::string_view to_string(FaultAction a) {
  return kActionNames[static_cast<std::size_t>(a)];
}

bool fault_action_from_name(std::string_view name, FaultAction& out) {
  const int i = index_of(kActionNames, name);
  if (i < 0) return false;
  out = static_cast<FaultAction>(i);
  return true;
}

std::string_view to_string(LinkDirection d) {
  return d == LinkDirection::A_TO_B ? "a>b" : "b>a";
}

std::string_view to_string(OpcodeClass c) {
  return kClassNames[static_cast<std::size_t>(c)];
}

bool opcode_class_from_name(std::string_view name, OpcodeClass& out) {
  const int i = index_of(kClassNames, name);
  if (i < 0) return false;
  out = static_cast<OpcodeClass>(i);
  return true;
}

double FaultRates::of(FaultAction a) const {
  switch (a) {
    case FaultAction::DROP:
      return drop;
    case FaultAction::DUPLICATE:
      return duplicate;
    case FaultAction::REORDER:
      return reorder;
    case FaultAction::DELAY:
      return delay;
    case FaultAction::CORRUPT:
      return corrupt;
    case FaultAction::ECN_CE:
      return ecn_ce;
  }
  return 0;
}

bool FaultRates::any() const {
  return drop > 0 || duplicate > 0 || reorder > 0 || delay > 0 || corrupt > 0 || ecn_ce > 0;
}

// ---- the rule language ------------------------------------------------------------------------

std::string format_rule(const FaultRule& r) {
  std::string s(to_string(r.action));
  const FrameMatch& m = r.match;
  if (m.direction) s += " dir=" + std::string(to_string(*m.direction));
  if (m.opcode) {
    const wire::OpcodeInfo& op = wire::opcode_info(*m.opcode);
    s += " opcode=" + (op.known ? std::string(op.name) : hex(*m.opcode));
  }
  if (m.opcode_class != OpcodeClass::ANY) s += " class=" + std::string(to_string(m.opcode_class));
  if (m.position) s += " pos=" + std::string(kPositionNames[static_cast<std::size_t>(*m.position)]);
  if (m.dest_qp) s += " qp=" + hex(*m.dest_qp);
  if (m.psn) s += " psn=" + hex(*m.psn);
  if (m.ackreq) s += *m.ackreq ? " ackreq=1" : " ackreq=0";
  if (r.first == r.last) {
    s += " nth=" + std::to_string(r.first);
  } else if (r.last == kEveryOccurrence) {
    if (r.first != 1) s += " nth=" + std::to_string(r.first) + "..";
  } else {
    s += " nth=" + std::to_string(r.first) + ".." + std::to_string(r.last);
  }
  // Timing terms only where they mean something, and only when they differ from the defaults.
  const FaultTiming def{};
  if (r.action == FaultAction::DELAY) {
    if (r.timing.delay_ns != def.delay_ns) s += " delay=" + std::to_string(r.timing.delay_ns);
    if (r.timing.jitter_ns != def.jitter_ns) s += " jitter=" + std::to_string(r.timing.jitter_ns);
  }
  if (r.action == FaultAction::REORDER) {
    if (r.timing.overtake != def.overtake) s += " overtake=" + std::to_string(r.timing.overtake);
    if (r.timing.max_hold_ns != def.max_hold_ns)
      s += " hold=" + std::to_string(r.timing.max_hold_ns);
  }
  return s;
}

RuleParseResult parse_fault_rule(std::string_view text) {
  RuleParseResult res;
  FaultRule& r = res.rule;
  auto fail = [&](std::string_view term, std::string_view why) {
    // Appended piece by piece: g++ 12 warns (-Wrestrict, falsely) on "..." + std::string.
    res.error.assign(1, '"');
    res.error.append(term).append("\": ").append(why);
    return res;
  };
  std::size_t pos = 0;
  auto next_term = [&]() -> std::string_view {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] != ' ') ++pos;
    return text.substr(start, pos - start);
  };
  const std::string_view action = next_term();
  if (action.empty()) return fail(text, "empty rule");
  if (!fault_action_from_name(action, r.action))
    return fail(action, "unknown action (drop, duplicate, reorder, delay, corrupt, ecn_ce)");
  for (std::string_view term = next_term(); !term.empty(); term = next_term()) {
    const std::size_t eq = term.find('=');
    if (eq == std::string_view::npos) return fail(term, "expected key=value");
    const std::string_view key = term.substr(0, eq);
    const std::string_view val = term.substr(eq + 1);
    FrameMatch& m = r.match;
    if (key == "dir") {
      if (val == "a>b")
        m.direction = LinkDirection::A_TO_B;
      else if (val == "b>a")
        m.direction = LinkDirection::B_TO_A;
      else if (val == "any")
        m.direction.reset();
      else
        return fail(term, "dir is a>b, b>a or any");
    } else if (key == "opcode") {
      std::uint8_t op = 0;
      std::uint32_t v = 0;
      if (wire::opcode_from_name(val, op))
        m.opcode = op;
      else if (parse_u32(val, v, 0xFF))
        m.opcode = static_cast<std::uint8_t>(v);
      else
        return fail(term, "unknown opcode name (use the table's, e.g. RC_SEND_ONLY) or 0..0xff");
    } else if (key == "class") {
      if (!opcode_class_from_name(val, m.opcode_class)) return fail(term, "unknown opcode class");
    } else if (key == "pos") {
      const int i = index_of(kPositionNames, val);
      if (i < 0) return fail(term, "pos is first, middle, last or only");
      m.position = static_cast<wire::Position>(i);
    } else if (key == "qp") {
      std::uint32_t v = 0;
      if (!parse_u32(val, v, wire::kMask24)) return fail(term, "qp is a 24-bit number");
      m.dest_qp = v;
    } else if (key == "psn") {
      std::uint32_t v = 0;
      if (!parse_u32(val, v, wire::kMask24)) return fail(term, "psn is a 24-bit number");
      m.psn = v;
    } else if (key == "ackreq") {
      if (val == "1")
        m.ackreq = true;
      else if (val == "0")
        m.ackreq = false;
      else
        return fail(term, "ackreq is 0 or 1");
    } else if (key == "nth") {
      if (val == "every") {
        r.first = 1;
        r.last = kEveryOccurrence;
        continue;
      }
      const std::size_t dots = val.find("..");
      std::uint64_t a = 0, b = 0;
      if (dots == std::string_view::npos) {
        if (!parse_u64(val, a)) return fail(term, "nth is N, N..M, N.. or every");
        b = a;
      } else {
        if (!parse_u64(val.substr(0, dots), a)) return fail(term, "nth is N, N..M, N.. or every");
        const std::string_view rest = val.substr(dots + 2);
        if (rest.empty())
          b = kEveryOccurrence;
        else if (!parse_u64(rest, b))
          return fail(term, "nth is N, N..M, N.. or every");
      }
      if (a == 0 || b < a)
        return fail(term, "occurrences count from 1 and a range must not be empty");
      r.first = a;
      r.last = b;
    } else if (key == "delay" || key == "jitter" || key == "overtake" || key == "hold") {
      const bool delay_term = key == "delay" || key == "jitter";
      if (delay_term && r.action != FaultAction::DELAY)
        return fail(term, "only a delay rule takes delay= and jitter=");
      if (!delay_term && r.action != FaultAction::REORDER)
        return fail(term, "only a reorder rule takes overtake= and hold=");
      std::uint64_t v = 0;
      if (!parse_u64(val, v)) return fail(term, "expected a number");
      if (key == "delay")
        r.timing.delay_ns = v;
      else if (key == "jitter")
        r.timing.jitter_ns = v;
      else if (key == "hold")
        r.timing.max_hold_ns = v;
      else if (v == 0 || v > UINT32_MAX)
        return fail(term, "overtake is 1 or more");
      else
        r.timing.overtake = static_cast<std::uint32_t>(v);
    } else {
      return fail(term,
                  "unknown key (dir, opcode, class, pos, qp, psn, ackreq, nth, delay, "
                  "jitter, overtake, hold)");
    }
  }
  return res;
}

// ---- byte-level faults ------------------------------------------------------------------------

bool mark_ecn_ce(wire::MutableByteSpan frame) {
  wire::DecodeOptions opts;
  opts.verify_icrc = false;
  const wire::ParsedFrame p = wire::decode(frame, opts);
  if (!p.has_ip || p.has_error) return false;
  if (p.ip.version == 4) {
    // TOS bits 1:0 (RFC 3168); the header checksum covers TOS, so it is recomputed (IBTA Vol. 1
    // Annex A17.9; docs/spec-notes.md §10.1).
    frame[p.ip_off + 1] = static_cast<std::uint8_t>(frame[p.ip_off + 1] | 0x03u);
    const std::uint16_t sum =
        wire::ipv4_checksum(wire::ByteSpan(frame).subspan(p.ip_off, p.ip_header_len));
    wire::store_be16(frame, p.ip_off + 10, sum);
  } else {
    // Traffic class = byte 0 bits 3:0 ‖ byte 1 bits 7:4; its ECN bits are byte 1 bits 5:4.
    frame[p.ip_off + 1] = static_cast<std::uint8_t>(frame[p.ip_off + 1] | 0x30u);
  }
  return true;
}

std::optional<std::size_t> corrupt_frame(wire::MutableByteSpan frame, std::uint64_t draw) {
  wire::DecodeOptions opts;
  opts.verify_icrc = false;
  const wire::ParsedFrame p = wire::decode(frame, opts);
  if (!p.roce || p.has_error || !p.has_bth || !p.has_icrc) return std::nullopt;
  // Region 1: BTH bytes 8..11 (AckReq, Resv7, PSN), invariant and not looked at before the
  // ICRC check (docs/spec-notes.md §1.9). Region 2: from the end of the addressing headers (RDETH,
  // DETH with the Q_Key that UD admission checks first, XRCETH) to the end of the ICRC.
  std::size_t addressing = 0;
  for (wire::Header h : {wire::Header::Rdeth, wire::Header::Deth, wire::Header::Xrceth})
    if (p.op->has(h)) addressing += wire::kHeaderSize[static_cast<std::size_t>(h)];
  const std::size_t r1 = p.bth_off + 8;
  const std::size_t r1_len = 4;
  const std::size_t r2 = p.bth_off + wire::kBthLen + addressing;
  const std::size_t r2_len = p.icrc_off + wire::kIcrcLen - r2;
  const std::size_t bits = (r1_len + r2_len) * 8;
  const std::size_t bit = static_cast<std::size_t>(draw % bits);
  const std::size_t byte = bit / 8;
  const std::size_t off = byte < r1_len ? r1 + byte : r2 + (byte - r1_len);
  frame[off] = static_cast<std::uint8_t>(frame[off] ^ (1u << (bit % 8)));
  return off;
}

// ---- the injector -----------------------------------------------------------------------------

FaultInjector::FaultInjector(FaultPlan plan) : plan_(std::move(plan)) {
  wire::SplitMix64 seeder(plan_.seed);
  stream_seed_[0] = seeder.next();
  stream_seed_[1] = seeder.next();
  rule_hits_.assign(plan_.rules.size(), 0);
  rule_text_.reserve(plan_.rules.size());
  for (std::size_t i = 0; i < plan_.rules.size(); ++i)
    rule_text_.push_back("rule " + std::to_string(i) + ": " + format_rule(plan_.rules[i]));
  for (std::size_t d = 0; d < 2; ++d)
    for (std::size_t a = 0; a < kFaultActionCount; ++a)
      random_text_[d][a] =
          "random p=" +
          shortest(plan_.rates(static_cast<LinkDirection>(d)).of(static_cast<FaultAction>(a)));
}

FaultDecision FaultInjector::decide(LinkDirection d, wire::ByteSpan frame) {
  const auto di = static_cast<std::size_t>(d);
  FaultCounts& counts = counts_[di];
  const std::uint64_t k = counts.frames++;
  FaultDecision out;
  if (plan_.empty()) return out;

  // The k-th frame's values 8k..8k+7 of the direction's stream. SplitMix64 advances its
  // state by a constant per value, so jumping there is one multiplication: no frame's draws
  // depend on what happened to earlier frames.
  wire::SplitMix64 stream(stream_seed_[di] + k * kDrawsPerFrame * kSplitMixGamma);
  std::array<std::uint64_t, kDrawsPerFrame> draw{};
  for (auto& v : draw) v = stream.next();

  wire::DecodeOptions opts;
  opts.verify_icrc = false;
  const wire::ParsedFrame parsed = wire::decode(frame, opts);

  std::array<std::string_view, kFaultActionCount> source{};  // empty: the action does not fire
  const FaultTiming* delay_timing = nullptr;
  const FaultTiming* hold_timing = nullptr;
  // Every rule sees every frame, so each rule's occurrence count is independent of the others.
  bool by_rule = false;
  for (std::size_t i = 0; i < plan_.rules.size(); ++i) {
    const FaultRule& r = plan_.rules[i];
    if (!matches(r.match, d, parsed)) continue;
    const std::uint64_t n = ++rule_hits_[i];
    if (n < r.first || n > r.last) continue;
    by_rule = true;
    const auto a = static_cast<std::size_t>(r.action);
    if (!source[a].empty()) continue;  // an earlier rule already decided this action
    source[a] = rule_text_[i];
    if (r.action == FaultAction::DELAY) delay_timing = &r.timing;
    if (r.action == FaultAction::REORDER) hold_timing = &r.timing;
  }
  // A frame a rule has taken gets exactly what the rules say; otherwise the probabilities.
  if (!by_rule) {
    const FaultRates& rates = plan_.rates(d);
    for (std::size_t a = 0; a < kFaultActionCount; ++a)
      if (unit(draw[a]) < rates.of(static_cast<FaultAction>(a))) source[a] = random_text_[di][a];
    delay_timing = hold_timing = &rates.timing;
  }

  auto fire = [&](FaultAction a) {
    out.fired.push_back({a, source[static_cast<std::size_t>(a)]});
    ++counts.fired[static_cast<std::size_t>(a)];
  };
  auto wants = [&](FaultAction a) { return !source[static_cast<std::size_t>(a)].empty(); };
  // A dropped frame is gone: nothing else is done to it or reported.
  if (wants(FaultAction::DROP)) {
    out.drop = true;
    fire(FaultAction::DROP);
    return out;
  }
  if (wants(FaultAction::DUPLICATE)) {
    out.copies = 2;
    fire(FaultAction::DUPLICATE);
  }
  if (wants(FaultAction::REORDER)) {
    out.hold = true;
    out.hold_timing = *hold_timing;
    fire(FaultAction::REORDER);
  }
  if (wants(FaultAction::DELAY)) {
    const FaultTiming& t = *delay_timing;
    const std::uint64_t j = draw[kJitterDraw];
    out.extra_delay_ns = t.delay_ns + (t.jitter_ns == 0            ? 0
                                       : t.jitter_ns == UINT64_MAX ? j
                                                                   : j % (t.jitter_ns + 1));
    fire(FaultAction::DELAY);
  }
  // Byte faults only where they make sense (the same conditions corrupt_frame and mark_ecn_ce
  // test); a frame they cannot touch is not reported.
  if (wants(FaultAction::CORRUPT) && parsed.roce && !parsed.has_error && parsed.has_bth &&
      parsed.has_icrc) {
    out.corrupt = true;
    out.corrupt_draw = draw[kCorruptBitDraw];
    fire(FaultAction::CORRUPT);
  }
  if (wants(FaultAction::ECN_CE) && parsed.has_ip && !parsed.has_error) {
    out.ecn_ce = true;
    fire(FaultAction::ECN_CE);
  }
  return out;
}

void apply_byte_faults(const FaultDecision& decision, wire::MutableByteSpan frame) {
  if (decision.corrupt) corrupt_frame(frame, decision.corrupt_draw);
  if (decision.ecn_ce) mark_ecn_ce(frame);
}

}  // namespace rocecert::model
