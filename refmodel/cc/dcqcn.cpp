// DCQCN reaction point and pacer (see rocecert/cc/dcqcn.h and docs/dcqcn.md).
//
// Order of evaluation, fixed so that lazy and step-by-step evaluation agree bit for bit:
// advance(now) first runs the timer-driven rate increases due at or before `now` in time order
// (they never read alpha), then the alpha decays due at or before `now` (they never read the
// rates). A release (return to line rate) resets alpha, so decays past the release are never
// applied. Byte stages and cuts happen only at the `now` of on_sent/on_cnp, after advance(now).
#include "rocecert/cc/dcqcn.h"

#include <algorithm>
#include <cmath>

namespace rocecert::cc {

namespace {

// Rc counts as back at the line rate when within this fraction of it (fast recovery halves
// the gap each stage, so the exact line rate is only reached through rounding).
constexpr double kReleaseTolerance = 1e-9;

constexpr double kMbpsPerGbps = 1000.0;

}  // namespace

DcqcnParams DcqcnParams::mlx5_firmware() {
  DcqcnParams p;
  p.g = (1024.0 - 1019.0) / 1024.0;         // dce_tcp_g = 1019
  p.alpha_update_period_ns = 1'000;         // dce_tcp_rtt = 1 us
  p.initial_alpha = 1023.0 / 1024.0;        // initial_alpha_value = 1023
  p.alpha_rate_divisor = 2.0;               // rpg_gd = 11 over a 10-bit alpha
  p.min_dec_factor = 0.50;                  // rpg_min_dec_fac = 50 %
  p.min_rate_gbps = 1.0 / kMbpsPerGbps;     // rpg_min_rate = 1 Mb/s
  p.rate_reduce_monitor_period_ns = 4'000;  // rate_reduce_monitor_period = 4 us
  p.rate_on_first_cnp_gbps = 0.0;           // rate_to_set_on_first_cnp = 0
  p.clamp_tgt_rate = false;
  p.clamp_tgt_rate_after_time_inc = true;
  p.rate_increase_period_ns = 300'000;    // rpg_time_reset = 300 us
  p.byte_counter_bytes = 32'767ULL * 64;  // rpg_byte_reset = 32767 (64-byte units, unconfirmed)
  p.fast_recovery_stages = 1;             // rpg_threshold = 1
  p.ai_rate_gbps = 5.0 / kMbpsPerGbps;    // rpg_ai_rate = 5 Mb/s
  p.hai_rate_gbps = 50.0 / kMbpsPerGbps;  // rpg_hai_rate = 50 Mb/s
  p.max_rate_gbps = 0.0;                  // rpg_max_rate = 0 (port speed)
  return p;
}

DcqcnReactionPoint::DcqcnReactionPoint(const DcqcnParams& params, double line_rate_gbps)
    : p_(params), line_gbps_(line_rate_gbps > 0.0 ? line_rate_gbps : 0.0) {
  if (p_.max_rate_gbps > 0.0 && line_gbps_ > 0.0)
    line_gbps_ = std::min(line_gbps_, p_.max_rate_gbps);
  p_.min_rate_gbps = std::clamp(p_.min_rate_gbps, 0.0, line_gbps_);
  reset_to_line_rate();
}

void DcqcnReactionPoint::reset_to_line_rate() {
  s_.rc_gbps = line_gbps_;
  s_.rt_gbps = line_gbps_;
  s_.alpha = p_.initial_alpha;
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
  if (!s_.limited) return;  // released: alpha is back at initial_alpha, no decay pending

  const double keep = 1.0 - p_.g;
  while (s_.next_alpha_at != sim::kNever && s_.next_alpha_at <= now) {
    s_.alpha *= keep;
    s_.next_alpha_at += p_.alpha_update_period_ns;
    if (s_.alpha == 0.0) {
      s_.next_alpha_at = sim::kNever;  // stays 0: stop decaying
    }
  }
}

void DcqcnReactionPoint::on_cnp(sim::SimTime now) {
  advance(now);
  now = s_.last_now;
  ++s_.cnps;
  if (line_gbps_ <= 0.0) return;  // unpaced: nothing to slow down
  if (s_.last_cut_at != sim::kNever && now - s_.last_cut_at < p_.rate_reduce_monitor_period_ns) {
    ++s_.cnps_coalesced;
    return;
  }
  cut(now);
}

void DcqcnReactionPoint::cut(sim::SimTime now) {
  const bool first = !s_.limited;
  if (first && p_.rate_on_first_cnp_gbps > 0.0) {
    // mlx5 rate_to_set_on_first_cnp: jump to a fixed rate; alpha stays at its initial value.
    s_.rc_gbps = std::clamp(p_.rate_on_first_cnp_gbps, p_.min_rate_gbps, line_gbps_);
    s_.rt_gbps = s_.rc_gbps;
  } else {
    if (first || p_.clamp_tgt_rate ||
        (p_.clamp_tgt_rate_after_time_inc && s_.timer_increase_since_cut)) {
      s_.rt_gbps = s_.rc_gbps;
    }
    const double factor = std::max(1.0 - s_.alpha / p_.alpha_rate_divisor, p_.min_dec_factor);
    s_.rc_gbps = std::max(s_.rc_gbps * factor, p_.min_rate_gbps);
    s_.alpha = (1.0 - p_.g) * s_.alpha + p_.g;
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
  const double rt_before = s_.rt_gbps;
  if (hi <= f) {
    ++s_.fast_recovery_events;
  } else if (lo > f) {
    s_.rt_gbps += static_cast<double>(lo - f) * p_.hai_rate_gbps;
    ++s_.hyper_events;
  } else {
    s_.rt_gbps += p_.ai_rate_gbps;
    ++s_.additive_events;
  }
  s_.rt_gbps = std::min(s_.rt_gbps, line_gbps_);
  s_.rc_gbps = (s_.rt_gbps + s_.rc_gbps) / 2.0;

  if (s_.rt_gbps >= line_gbps_ && line_gbps_ - s_.rc_gbps <= line_gbps_ * kReleaseTolerance) {
    ++s_.releases;
    reset_to_line_rate();
    return;
  }
  // Degenerate parameters (no AI/HAI step, Rt held below the line rate): once Rc has reached
  // Rt nothing can change any more, so stop the timer instead of ticking forever.
  if (s_.rc_gbps == s_.rt_gbps && s_.rt_gbps == rt_before && p_.ai_rate_gbps <= 0.0 &&
      p_.hai_rate_gbps <= 0.0) {
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

double DcqcnReactionPoint::rate_gbps(sim::SimTime now) {
  advance(now);
  return s_.rc_gbps;
}

sim::SimTime RatePacer::serialization_ns(std::uint32_t bytes, double rate_gbps) {
  if (!(rate_gbps > 0.0)) return 0;
  // bits / (Gb/s) = ns.
  const double ns = std::ceil(static_cast<double>(bytes) * 8.0 / rate_gbps);
  constexpr double kMax = 1.8e19;  // below 2^64
  return ns >= kMax ? sim::kNever : static_cast<sim::SimTime>(ns);
}

void RatePacer::sent(sim::SimTime at, std::uint32_t bytes, double rate_gbps) {
  const sim::SimTime start = earliest_send(at);
  const sim::SimTime gap = serialization_ns(bytes, rate_gbps);
  next_allowed_ = gap >= sim::kNever - start ? sim::kNever : start + gap;
}

void DcqcnSender::sent(sim::SimTime now, std::uint32_t bytes) {
  const double rate = rp_.rate_gbps(now);
  pacer_.sent(now, bytes, rate);
  rp_.on_sent(now, bytes);
}

}  // namespace rocecert::cc
