// DCQCN congestion control at the reaction point (the sender NIC), plus a packet pacer.
//
// What this models: the RP rate controller of Zhu et al., "Congestion Control for Large-Scale
// RDMA Deployments", SIGCOMM 2015 (its reaction-point algorithm), driven by the CNPs of
// RoCEv2 Annex A17.9 (opcode 0x81) that the model's notification point already sends. The
// notification point's own CNP rate limit lives in model::Profile::cnp_interval_ns; the switch
// (congestion point, ECN marking) is not modelled here. docs/dcqcn.md has the equations, the
// parameter table and a worked example.
//
// Everything is pure and deterministic: no clock but the `now` passed in, no randomness, and
// integer arithmetic only, in the units NIC firmware uses: rates in kb/s, alpha in fixed point
// with 10 fraction bits (1024 = 1), times in ns. The same inputs give the same state on every
// machine; the Gb/s and fraction accessors are conversions of that integer state. Time-driven
// updates (alpha decay, timer-driven rate increases) are evaluated lazily: each call first advances
// the state machine over every period that elapsed since the previous call, so the model needs no
// timer events, and calling rate_gbps() at every nanosecond or once at the end yields bit-identical
// state.
#pragma once

#include <concepts>
#include <cstdint>

#include "rocecert/sim/event_queue.h"

namespace rocecert::cc {

// Parameters of the reaction point. Each field names the mlx5 knob it corresponds to: the
// netdev sysfs file /sys/class/net/<if>/ecn/roce_rp/<name>, the same name prefixed "rp_" in
// the mlx5_ib debugfs cc_params (drivers/infiniband/hw/mlx5/cong.c), and upper-cased with a
// _P<port> suffix in mlxconfig. Units are the model's integer ones (ns, kb/s, bytes, and
// fractions in 1/1024ths as the firmware's 10-bit fixed point).
//
// The member defaults are the paper's values where the paper gives one and the ConnectX
// firmware default otherwise; mlx5_firmware() returns the firmware defaults throughout
// (as `mlxconfig -d <dev> query` prints them on ConnectX NICs; NVIDIA DOCA/MLNX_OFED
// "DCQCN CC Parameters" page).
struct DcqcnParams {
  // --- alpha, the congestion estimate ---------------------------------------------------
  // EWMA gain g in 1/1024ths: on a cut alpha = (1 - g) alpha + g; each quiet period
  // alpha = (1 - g) alpha. mlx5 dce_tcp_g, fixed point with 10 fraction bits:
  // g = 1024 - dce_tcp_g (firmware default 1019, i.e. 5). Paper: g = 1/256 = 4.
  std::uint32_t g_q10 = 4;
  // Alpha-update period K: alpha decays once per K without a cut.
  // mlx5 dce_tcp_rtt [us] (firmware default 1 us). Paper: K = 55 us. 0 disables the decay.
  sim::SimTime alpha_update_period_ns = 55'000;
  // Alpha used by the first cut of a flow (and after the flow was released at line rate), in
  // 1/1024ths (at most 1024 = 1). mlx5 initial_alpha_value (firmware default 1023). Paper:
  // alpha = 1, i.e. 1024.
  std::uint32_t initial_alpha_q10 = 1024;

  // --- rate decrease ----------------------------------------------------------------------
  // The cut is Rc -= (Rc alpha_q10) >> rate_reduce_shift, i.e. Rc = Rc (1 - alpha / D) with
  // D = 2^(rate_reduce_shift - 10). mlx5 rpg_gd (firmware default 11, D = 2). Paper: D = 2.
  std::uint32_t rate_reduce_shift = 11;
  // One cut never leaves less than this percentage of the current rate.
  // mlx5 rpg_min_dec_fac [%] (firmware default 50). With alpha <= 1 and D = 2 it never binds.
  std::uint32_t min_dec_factor_pct = 50;
  // Floor of the current rate [kb/s]. mlx5 rpg_min_rate [Mb/s] (firmware default 1). The
  // paper gives none; we take the firmware's 1 Mb/s.
  std::uint64_t min_rate_kbps = 1'000;
  // Minimum time between two cuts: a CNP arriving less than this after the last cut is
  // coalesced (counted, otherwise ignored; see DcqcnReactionPoint). mlx5
  // rate_reduce_monitor_period [us] (firmware default 4). The paper cuts on every CNP and
  // relies on the NP sending at most one CNP per 50 us; 0 here means "cut on every CNP".
  sim::SimTime rate_reduce_monitor_period_ns = 4'000;
  // If nonzero, the first CNP of a flow sets Rc = Rt = this rate [kb/s] instead of cutting.
  // mlx5 rate_to_set_on_first_cnp [Mb/s] (firmware default 0 = off). Not in the paper.
  std::uint64_t rate_on_first_cnp_kbps = 0;
  // On a cut, Rt = Rc (the paper's rule). mlx5 clamp_tgt_rate (firmware default 0: Rt is
  // kept unless clamp_tgt_rate_after_time_inc applies).
  bool clamp_tgt_rate = true;
  // On a cut, Rt = Rc also when a timer-driven increase happened since the previous cut.
  // mlx5 clamp_tgt_rate_after_time_inc (firmware default 1). Moot while clamp_tgt_rate.
  bool clamp_tgt_rate_after_time_inc = true;

  // --- rate increase ----------------------------------------------------------------------
  // Rate-increase timer T: one timer stage per T since the last cut.
  // mlx5 rpg_time_reset [us] (firmware default 300). Paper: T = 55 us. 0 disables the timer.
  sim::SimTime rate_increase_period_ns = 55'000;
  // Byte counter B: one byte stage per B bytes sent since the last cut.
  // mlx5 rpg_byte_reset (firmware default 32767; unit not confirmed, taken as 64 B, which
  // gives ~2 MiB). Paper: B = 10 MB. 0 disables the byte counter.
  std::uint64_t byte_counter_bytes = 10'000'000;
  // F, the number of fast-recovery stages. mlx5 rpg_threshold (firmware default 1).
  // Paper: F = 5.
  std::uint32_t fast_recovery_stages = 5;
  // Additive-increase step R_AI [kb/s]. mlx5 rpg_ai_rate [Mb/s] (firmware default 5).
  // Paper: 40 Mb/s (from memory of the paper, not confirmed against its text).
  std::uint64_t ai_rate_kbps = 40'000;
  // Hyper-increase step R_HAI [kb/s]. mlx5 rpg_hai_rate [Mb/s] (firmware default 50). The
  // paper's value could not be confirmed; we keep the firmware's 1:10 AI:HAI ratio, 400 Mb/s.
  std::uint64_t hai_rate_kbps = 400'000;
  // Rate cap below the line rate [kb/s]. mlx5 rpg_max_rate [Mb/s] (firmware default 0 = port
  // speed). 0 here means "the line rate".
  std::uint64_t max_rate_kbps = 0;

  // ConnectX firmware defaults, converted (see each field).
  static DcqcnParams mlx5_firmware();
};

// All per-QP reaction-point state, one plain struct so tests and traces can compare it whole.
struct DcqcnState {
  std::uint64_t rc_kbps = 0;     // current rate Rc (equals the line rate while not limited)
  std::uint64_t rt_kbps = 0;     // target rate Rt
  std::uint32_t alpha_q10 = 0;   // alpha in 1/1024ths
  bool limited = false;          // false: never cut, or recovered to line rate and released
  std::uint32_t time_stage = 0;  // timer stages since the last cut
  std::uint32_t byte_stage = 0;  // byte-counter stages since the last cut
  std::uint64_t byte_count = 0;  // bytes toward the next byte stage
  bool timer_increase_since_cut = false;
  sim::SimTime last_now = 0;                    // latest time seen (time never goes back)
  sim::SimTime last_cut_at = sim::kNever;       // kNever: no cut yet
  sim::SimTime next_alpha_at = sim::kNever;     // next alpha decay; kNever: none pending
  sim::SimTime next_increase_at = sim::kNever;  // next timer stage; kNever: timer stopped
  // Counters (never reset).
  std::uint64_t cnps = 0;            // CNPs handed to on_cnp
  std::uint64_t cnps_coalesced = 0;  // of which fell in a monitor period and did not cut
  std::uint64_t cuts = 0;
  std::uint64_t fast_recovery_events = 0;
  std::uint64_t additive_events = 0;
  std::uint64_t hyper_events = 0;
  std::uint64_t releases = 0;  // returns to line rate

  bool operator==(const DcqcnState&) const = default;
};

// The reaction point of one QP.
//
// On a CNP at `now` (Zhu et al. 2015, reaction point): if a cut happened less than
// rate_reduce_monitor_period ago the CNP is coalesced: it is counted and has no other effect
// (it neither cuts, nor raises alpha, nor restarts the timers), so CNPs within a period cause
// at most one cut, the leading one. Otherwise:
//   Rt = Rc (see clamp_tgt_rate*);
//   Rc = max(Rc - min((Rc alpha) >> rate_reduce_shift, Rc - Rc min_dec_pct / 100), min_rate);
//   alpha = ((1024 - g) alpha + 1024 g) >> 10;  stages and byte count = 0;  timers restart.
// Each K without a cut: alpha = ((1024 - g) alpha) >> 10.
// Each rate-increase event (timer stage every T, byte stage every B bytes sent), with
// i = min(time_stage, byte_stage) after counting the event:
//   max(stages) <= F: fast recovery       Rc = ceil((Rt + Rc) / 2)
//   i > F:            hyper increase      Rt += (i - F) R_HAI;  Rc = ceil((Rt + Rc) / 2)
//   otherwise:        additive increase   Rt += R_AI;           Rc = ceil((Rt + Rc) / 2)
// with Rt clamped to the line rate (divisions round down unless marked; the halving rounds up
// so that Rc reaches Rt). When Rt and Rc are both at the line rate the flow is released (as
// mlx5 releases its rate limiter at rpg_max_rate): timers stop, alpha returns to its initial
// value, and the next CNP is a first CNP again.
//
// A line rate of 0 means "unpaced": the reaction point is inert and rate_gbps() returns 0.
class DcqcnReactionPoint {
 public:
  // The line rate is taken in kb/s, rounded to the nearest (the only conversion of a double).
  explicit DcqcnReactionPoint(const DcqcnParams& params, double line_rate_gbps);

  void on_cnp(sim::SimTime now);
  // `bytes` left the QP at `now` (counted by the byte counter while the flow is limited).
  void on_sent(sim::SimTime now, std::uint32_t bytes);
  // The sending rate at `now` (advances the state to `now` first).
  std::uint64_t rate_kbps(sim::SimTime now);
  double rate_gbps(sim::SimTime now) { return to_gbps(rate_kbps(now)); }
  // Evaluates the time-driven updates due up to `now` without any other event.
  void advance(sim::SimTime now);

  // State as of the last call (call advance(now) first for a fresher view).
  const DcqcnState& state() const { return s_; }
  std::uint64_t current_rate_kbps() const { return s_.rc_kbps; }
  std::uint64_t target_rate_kbps() const { return s_.rt_kbps; }
  std::uint32_t alpha_q10() const { return s_.alpha_q10; }
  // The same as Gb/s and as a fraction, for traces and reports.
  double current_rate_gbps() const { return to_gbps(s_.rc_kbps); }
  double target_rate_gbps() const { return to_gbps(s_.rt_kbps); }
  double alpha() const { return static_cast<double>(s_.alpha_q10) / 1024.0; }
  std::uint32_t time_stage() const { return s_.time_stage; }
  std::uint32_t byte_stage() const { return s_.byte_stage; }
  bool limited() const { return s_.limited; }
  double line_rate_gbps() const { return to_gbps(line_kbps_); }
  std::uint64_t line_rate_kbps() const { return line_kbps_; }
  const DcqcnParams& params() const { return p_; }

  static double to_gbps(std::uint64_t kbps) { return static_cast<double>(kbps) / 1e6; }

 private:
  void reset_to_line_rate();
  void cut(sim::SimTime now);
  void increase();

  DcqcnParams p_;
  std::uint64_t line_kbps_;  // min(line rate, max_rate); 0 = unpaced
  DcqcnState s_;
};

// Spaces packets so that they leave at no more than a given rate: after a packet of `bytes`
// sent at time t with rate R [kb/s], the next may leave at t + ceil(bytes * 8 * 10^6 / R) ns
// (rounded up, so never faster than R). A rate of 0 means unpaced: earliest_send(now) == now.
class RatePacer {
 public:
  sim::SimTime earliest_send(sim::SimTime now) const {
    return now < next_allowed_ ? next_allowed_ : now;
  }
  // Records a packet sent at `at` at `rate_gbps`. A packet sent before earliest_send() is
  // accounted from earliest_send(), so early sends cannot raise the long-run rate.
  void sent(sim::SimTime at, std::uint32_t bytes, std::uint64_t rate_kbps);
  sim::SimTime next_allowed() const { return next_allowed_; }

  // ceil(bytes * 8 * 10^6 / rate_kbps) in ns; 0 for a rate of 0.
  static sim::SimTime serialization_ns(std::uint32_t bytes, std::uint64_t rate_kbps);
  // Rates are kb/s integers: a Gb/s double would silently become a tiny rate.
  static sim::SimTime serialization_ns(std::uint32_t bytes, std::floating_point auto) = delete;
  void sent(sim::SimTime at, std::uint32_t bytes, std::floating_point auto) = delete;

 private:
  sim::SimTime next_allowed_ = 0;
};

// One QP's DCQCN sender: reaction point + pacer, the object the requester consults.
// Before sending a packet at `now`, wait until earliest_send(now); when it leaves, call
// sent(t, bytes): the packet is spaced at the rate in force when it leaves, then counted by the
// byte counter.
class DcqcnSender {
 public:
  DcqcnSender(const DcqcnParams& params, double line_rate_gbps) : rp_(params, line_rate_gbps) {}

  void on_cnp(sim::SimTime now) { rp_.on_cnp(now); }
  sim::SimTime earliest_send(sim::SimTime now) const { return pacer_.earliest_send(now); }
  void sent(sim::SimTime now, std::uint32_t bytes);
  double rate_gbps(sim::SimTime now) { return rp_.rate_gbps(now); }

  const DcqcnReactionPoint& reaction_point() const { return rp_; }
  const RatePacer& pacer() const { return pacer_; }

 private:
  DcqcnReactionPoint rp_;
  RatePacer pacer_;
};

}  // namespace rocecert::cc
