// DCQCN reaction point and pacer (see rocecert/cc/dcqcn.h and docs/dcqcn.md).
//
// Integer arithmetic throughout (rates in kb/s, alpha in 1/1024ths), as NIC firmware keeps
// it, so the state is the same on every machine. Order of evaluation, fixed so that lazy and
// step-by-step evaluation agree exactly: advance(now) first runs the timer-driven rate
// increases due at or before `now` in time order (they never read alpha), then the alpha
// decays due at or before `now` (they never read the rates). A release (return to line rate)
// resets alpha, so decays past the release are never applied. Byte stages and cuts happen only
// at the `now` of on_sent/on_cnp, after advance(now).
#include "rocecert/cc/dcqcn.h"

#include <algorithm>
#include <cmath>

namespace rocecert::cc {

namespace {

constexpr std::uint32_t kAlphaOne = 1024;  // alpha = 1 in 10-bit fixed point
constexpr std::uint64_t kKbpsPerMbps = 1'000;
constexpr std::uint64_t kKbpsPerGbps = 1'000'000;
// bits / (kb/s) = 10^6 ns / ... : ns = bits * 10^6 / kbps.
constexpr std::uint64_t kNsBitsPerKbps = 1'000'000;

}  // namespace

DcqcnParams DcqcnParams::mlx5_firmware() {
  DcqcnParams p;
  p.g_q10 = 1024 - 1019;                    // dce_tcp_g = 1019
  p.alpha_update_period_ns = 1'000;         // dce_tcp_rtt = 1 us
  p.initial_alpha_q10 = 1023;               // initial_alpha_value = 1023
  p.rate_reduce_shift = 11;                 // rpg_gd = 11
  p.min_dec_factor_pct = 50;                // rpg_min_dec_fac = 50 %
  p.min_rate_kbps = 1 * kKbpsPerMbps;       // rpg_min_rate = 1 Mb/s
  p.rate_reduce_monitor_period_ns = 4'000;  // rate_reduce_monitor_period = 4 us
  p.rate_on_first_cnp_kbps = 0;             // rate_to_set_on_first_cnp = 0
  p.clamp_tgt_rate = false;
  p.clamp_tgt_rate_after_time_inc = true;
  p.rate_increase_period_ns = 300'000;    // rpg_time_reset = 300 us
  p.byte_counter_bytes = 32'767ULL * 64;  // rpg_byte_reset = 32767 (64-byte units, unconfirmed)
  p.fast_recovery_stages = 1;             // rpg_threshold = 1
  p.ai_rate_kbps = 5 * kKbpsPerMbps;      // rpg_ai_rate = 5 Mb/s
  p.hai_rate_kbps = 50 * kKbpsPerMbps;    // rpg_hai_rate = 50 Mb/s
  p.max_rate_kbps = 0;                    // rpg_max_rate = 0 (port speed)
  return p;
}

DcqcnReactionPoint::DcqcnReactionPoint(const DcqcnParams& params, double line_rate_gbps)
    : p_(params),
      line_kbps_(line_rate_gbps > 0.0 ? static_cast<std::uint64_t>(std::llround(
                                            line_rate_gbps * static_cast<double>(kKbpsPerGbps)))
                                      : 0) {
  if (p_.max_rate_kbps > 0 && line_kbps_ > 0) line_kbps_ = std::min(line_kbps_, p_.max_rate_kbps);
  p_.min_rate_kbps = std::min(p_.min_rate_kbps, line_kbps_);
  p_.initial_alpha_q10 = std::min(p_.initial_alpha_q10, kAlphaOne);
  p_.g_q10 = std::min(p_.g_q10, kAlphaOne);
  p_.min_dec_factor_pct = std::min<std::uint32_t>(p_.min_dec_factor_pct, 100);
  p_.rate_reduce_shift = std::min<std::uint32_t>(p_.rate_reduce_shift, 63);
  reset_to_line_rate();
}

void DcqcnReactionPoint::reset_to_line_rate() {
  s_.rc_kbps = line_kbps_;
  s_.rt_kbps = line_kbps_;
  s_.alpha_q10 = p_.initial_alpha_q10;
  s_.limited = false;
  s_.time_stage = 0;
  s_.byte_stage = 0;
  s_.byte_count = 0;
  s_.timer_increase_since_cut = false;
  s_.next_alpha_at = sim::kNever;
  s_.next_increase_at = sim::kNever;
}

void DcqcnReactionPoint::advance(sim::SimTime now) {
  // Time never goes back: an older `now` is taken as the latest time seen.
  if (now < s_.last_now) now = s_.last_now;
  s_.last_now = now;
  if (!s_.limited) return;

  while (s_.limited && s_.next_increase_at != sim::kNever && s_.next_increase_at <= now) {
    s_.next_increase_at += p_.rate_increase_period_ns;
    ++s_.time_stage;
    s_.timer_increase_since_cut = true;
    increase();
  }
  if (!s_.limited) return;  // released: alpha is back at its initial value, no decay pending

  const std::uint32_t keep = kAlphaOne - p_.g_q10;
  while (s_.next_alpha_at != sim::kNever && s_.next_alpha_at <= now) {
    s_.alpha_q10 = (s_.alpha_q10 * keep) >> 10;
    s_.next_alpha_at += p_.alpha_update_period_ns;
    if (s_.alpha_q10 == 0 || p_.g_q10 == 0) {
      s_.next_alpha_at = sim::kNever;  // stays where it is: stop decaying
    }
  }
}

void DcqcnReactionPoint::on_cnp(sim::SimTime now) {
  advance(now);
  now = s_.last_now;
  ++s_.cnps;
  if (line_kbps_ == 0) return;  // unpaced: nothing to slow down
  if (s_.last_cut_at != sim::kNever && now - s_.last_cut_at < p_.rate_reduce_monitor_period_ns) {
    ++s_.cnps_coalesced;
    return;
  }
  cut(now);
}

void DcqcnReactionPoint::cut(sim::SimTime now) {
  const bool first = !s_.limited;
  if (first && p_.rate_on_first_cnp_kbps > 0) {
    // mlx5 rate_to_set_on_first_cnp: jump to a fixed rate; alpha stays at its initial value.
    s_.rc_kbps = std::clamp(p_.rate_on_first_cnp_kbps, p_.min_rate_kbps, line_kbps_);
    s_.rt_kbps = s_.rc_kbps;
  } else {
    if (first || p_.clamp_tgt_rate ||
        (p_.clamp_tgt_rate_after_time_inc && s_.timer_increase_since_cut)) {
      s_.rt_kbps = s_.rc_kbps;
    }
    // Rc -= Rc alpha >> rpg_gd, never more than (100 - min_dec_factor) % of Rc. Rc is below
    // 2^40 kb/s for any real line rate and alpha at most 2^10, so the product fits.
    const std::uint64_t rc = s_.rc_kbps;
    const std::uint64_t dec = std::min((rc * s_.alpha_q10) >> p_.rate_reduce_shift,
                                       rc - rc * p_.min_dec_factor_pct / 100);
    s_.rc_kbps = std::max(rc - dec, p_.min_rate_kbps);
    s_.alpha_q10 = ((kAlphaOne - p_.g_q10) * s_.alpha_q10 + kAlphaOne * p_.g_q10) >> 10;
  }
  s_.limited = true;
  s_.time_stage = 0;
  s_.byte_stage = 0;
  s_.byte_count = 0;
  s_.timer_increase_since_cut = false;
  s_.last_cut_at = now;
  s_.next_alpha_at = p_.alpha_update_period_ns > 0 ? now + p_.alpha_update_period_ns : sim::kNever;
  s_.next_increase_at =
      p_.rate_increase_period_ns > 0 ? now + p_.rate_increase_period_ns : sim::kNever;
  ++s_.cuts;
}

void DcqcnReactionPoint::increase() {
  const std::uint32_t f = p_.fast_recovery_stages;
  const std::uint32_t hi = std::max(s_.time_stage, s_.byte_stage);
  const std::uint32_t lo = std::min(s_.time_stage, s_.byte_stage);
  const std::uint64_t rt_before = s_.rt_kbps;
  if (hi <= f) {
    ++s_.fast_recovery_events;
  } else if (lo > f) {
    s_.rt_kbps += std::uint64_t{lo - f} * p_.hai_rate_kbps;
    ++s_.hyper_events;
  } else {
    s_.rt_kbps += p_.ai_rate_kbps;
    ++s_.additive_events;
  }
  s_.rt_kbps = std::min(s_.rt_kbps, line_kbps_);
  // Rounded up, so that Rc reaches Rt (and the line rate) instead of stopping one short.
  s_.rc_kbps = (s_.rt_kbps + s_.rc_kbps + 1) / 2;

  if (s_.rt_kbps >= line_kbps_ && s_.rc_kbps >= line_kbps_) {
    ++s_.releases;
    reset_to_line_rate();
    return;
  }
  // Degenerate parameters (no AI/HAI step, Rt held below the line rate): once Rc has reached
  // Rt nothing can change any more, so stop the timer instead of ticking forever.
  if (s_.rc_kbps == s_.rt_kbps && s_.rt_kbps == rt_before && p_.ai_rate_kbps == 0 &&
      p_.hai_rate_kbps == 0) {
    s_.next_increase_at = sim::kNever;
  }
}

void DcqcnReactionPoint::on_sent(sim::SimTime now, std::uint32_t bytes) {
  advance(now);
  if (!s_.limited || p_.byte_counter_bytes == 0) return;
  s_.byte_count += bytes;
  while (s_.limited && s_.byte_count >= p_.byte_counter_bytes) {
    s_.byte_count -= p_.byte_counter_bytes;
    ++s_.byte_stage;
    increase();
  }
}

std::uint64_t DcqcnReactionPoint::rate_kbps(sim::SimTime now) {
  advance(now);
  return s_.rc_kbps;
}

sim::SimTime RatePacer::serialization_ns(std::uint32_t bytes, std::uint64_t rate_kbps) {
  if (rate_kbps == 0) return 0;
  // At most 2^32 bytes: bits * 10^6 stays below 2^56.
  const std::uint64_t scaled = std::uint64_t{bytes} * 8 * kNsBitsPerKbps;
  return (scaled + rate_kbps - 1) / rate_kbps;
}

void RatePacer::sent(sim::SimTime at, std::uint32_t bytes, std::uint64_t rate_kbps) {
  const sim::SimTime start = earliest_send(at);
  const sim::SimTime gap = serialization_ns(bytes, rate_kbps);
  next_allowed_ = gap >= sim::kNever - start ? sim::kNever : start + gap;
}

void DcqcnSender::sent(sim::SimTime now, std::uint32_t bytes) {
  const std::uint64_t rate = rp_.rate_kbps(now);
  pacer_.sent(now, bytes, rate);
  rp_.on_sent(now, bytes);
}

}  // namespace rocecert::cc
