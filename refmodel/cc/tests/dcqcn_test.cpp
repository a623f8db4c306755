// Unit tests of the DCQCN reaction point and pacer. Every expected number is worked out by
// hand in the comment next to it, in the model's integer units (rates in kb/s, alpha in
// 1/1024ths; divisions round down, the fast-recovery halving rounds up).
#include <gtest/gtest.h>

#include <vector>

#include "rocecert/cc/dcqcn.h"

using namespace rocecert;
using cc::DcqcnParams;
using cc::DcqcnReactionPoint;
using cc::DcqcnSender;
using cc::DcqcnState;
using cc::RatePacer;

namespace {

constexpr sim::SimTime us(std::uint64_t v) {
  return v * 1'000;
}

// Paper defaults without the byte counter, so only the timer drives increases.
DcqcnParams timer_only() {
  DcqcnParams p;
  p.byte_counter_bytes = 0;
  return p;
}

}  // namespace

TEST(Dcqcn, NoCnpMeansLineRate) {
  DcqcnReactionPoint rp(DcqcnParams{}, 100.0);
  EXPECT_EQ(rp.rate_gbps(0), 100.0);
  rp.on_sent(us(1), 1'000'000'000);  // bytes sent while not limited are not counted
  EXPECT_EQ(rp.rate_gbps(us(1'000'000)), 100.0);
  EXPECT_FALSE(rp.limited());
  EXPECT_EQ(rp.byte_stage(), 0u);
  EXPECT_EQ(rp.state().cuts, 0u);
}

TEST(Dcqcn, FirstCnpHalvesRate) {
  DcqcnReactionPoint rp(DcqcnParams{}, 100.0);
  rp.on_cnp(us(3));
  // alpha starts at 1: Rc = 100 (1 - 1/2) = 50, Rt = the old Rc = 100,
  // alpha = (1 - 1/256) 1 + 1/256 = 1 (exact: 255/256 + 1/256).
  EXPECT_EQ(rp.rate_gbps(us(3)), 50.0);
  EXPECT_EQ(rp.target_rate_gbps(), 100.0);
  EXPECT_EQ(rp.alpha(), 1.0);
  EXPECT_TRUE(rp.limited());
  EXPECT_EQ(rp.state().cuts, 1u);
  EXPECT_EQ(rp.state().last_cut_at, us(3));
}

TEST(Dcqcn, AlphaUpdateAndDecay) {
  DcqcnParams p;
  p.g_q10 = 256;              // 1/4
  p.initial_alpha_q10 = 512;  // 1/2
  p.alpha_update_period_ns = us(10);
  p.rate_increase_period_ns = 0;  // no increases: Rc moves only on cuts
  p.byte_counter_bytes = 0;
  DcqcnReactionPoint rp(p, 100.0);

  rp.on_cnp(0);
  // Rc = 100 (1 - 0.5/2) = 75; alpha = 0.75 * 0.5 + 0.25 = 0.625.
  EXPECT_EQ(rp.current_rate_gbps(), 75.0);
  EXPECT_EQ(rp.alpha(), 0.625);

  rp.advance(us(10) - 1);
  EXPECT_EQ(rp.alpha(), 0.625);  // the first decay is due at 10 us, not before
  rp.advance(us(10));
  EXPECT_EQ(rp.alpha(), 0.46875);  // 0.625 * 0.75: 640 * 768 >> 10 = 480
  rp.advance(us(20));
  EXPECT_EQ(rp.alpha(), 0.3515625);  // 0.46875 * 0.75
  rp.advance(us(35));
  EXPECT_EQ(rp.alpha(), 0.263671875);  // one more decay at 30 us: 0.3515625 * 0.75

  rp.on_cnp(us(35));
  // alpha = 270/1024 = 0.263671875. Rt = 75 Gb/s; Rc = 75000000 - (75000000 * 270 >> 11)
  // = 75000000 - 9887695 = 65112305 kb/s (65.1123046875 exactly);
  // alpha = (768 * 270 + 1024 * 256) >> 10 = 469504 >> 10 = 458 (0.447265625; 0.44775390625).
  EXPECT_EQ(rp.target_rate_gbps(), 75.0);
  EXPECT_EQ(rp.current_rate_kbps(), 65'112'305u);
  EXPECT_EQ(rp.alpha_q10(), 458u);

  // The cut restarted the alpha timer: next decay at 35 + 10 = 45 us.
  rp.advance(us(45) - 1);
  EXPECT_EQ(rp.alpha_q10(), 458u);
  rp.advance(us(45));
  EXPECT_EQ(rp.alpha_q10(), 343u);  // 458 * 768 >> 10 = 343.5, rounded down
}

TEST(Dcqcn, AlphaDecayStopsAtZero) {
  DcqcnParams p;
  p.g_q10 = 512;  // 1/2
  p.alpha_update_period_ns = us(1);
  p.rate_increase_period_ns = 0;
  p.byte_counter_bytes = 0;
  DcqcnReactionPoint rp(p, 100.0);
  rp.on_cnp(0);
  EXPECT_EQ(rp.alpha(), 1.0);  // 0.5 * 1 + 0.5
  // alpha halves every us: 1024 >> 11 is 0, so the decay stops after 11 us (and a far `now`
  // costs 11 steps, not 10^6).
  rp.advance(us(1'000'000));
  EXPECT_EQ(rp.alpha(), 0.0);
  EXPECT_EQ(rp.state().next_alpha_at, sim::kNever);
  EXPECT_EQ(rp.current_rate_gbps(), 50.0);
}

TEST(Dcqcn, MonitorPeriodCoalescesCnps) {
  // Default rate_reduce_monitor_period = 4 us: the leading CNP cuts, the others within 4 us
  // of that cut are counted and ignored.
  DcqcnReactionPoint rp(DcqcnParams{}, 100.0);
  rp.on_cnp(0);
  rp.on_cnp(us(1));
  rp.on_cnp(us(4) - 1);
  EXPECT_EQ(rp.rate_gbps(us(4) - 1), 50.0);
  EXPECT_EQ(rp.target_rate_gbps(), 100.0);
  EXPECT_EQ(rp.state().cnps, 3u);
  EXPECT_EQ(rp.state().cnps_coalesced, 2u);
  EXPECT_EQ(rp.state().cuts, 1u);

  rp.on_cnp(us(4));  // 4 us after the cut: cuts again, Rt = 50, Rc = 25
  EXPECT_EQ(rp.current_rate_gbps(), 25.0);
  EXPECT_EQ(rp.target_rate_gbps(), 50.0);
  EXPECT_EQ(rp.state().cuts, 2u);

  DcqcnParams every;
  every.rate_reduce_monitor_period_ns = 0;  // the paper's RP: every CNP cuts
  DcqcnReactionPoint rp2(every, 100.0);
  rp2.on_cnp(0);
  rp2.on_cnp(0);
  rp2.on_cnp(1);
  EXPECT_EQ(rp2.current_rate_gbps(), 12.5);  // 100 / 2 / 2 / 2 (alpha stays 1)
  EXPECT_EQ(rp2.state().cnps_coalesced, 0u);
}

TEST(Dcqcn, FastRecoveryThenAdditiveIncrease) {
  DcqcnReactionPoint rp(timer_only(), 100.0);
  rp.on_cnp(0);       // Rc 50, Rt 100
  rp.on_cnp(us(10));  // Rt = 50, Rc = 25; timer restarts: stages at 65, 120, 175, ... us
  EXPECT_EQ(rp.current_rate_gbps(), 25.0);

  // Fast recovery, F = 5 stages, Rt fixed at 50: Rc = (50 + Rc) / 2.
  EXPECT_EQ(rp.rate_gbps(us(65) - 1), 25.0);
  EXPECT_EQ(rp.rate_gbps(us(65)), 37.5);
  EXPECT_EQ(rp.rate_gbps(us(120)), 43.75);
  EXPECT_EQ(rp.rate_gbps(us(175)), 46.875);
  EXPECT_EQ(rp.rate_gbps(us(230)), 48.4375);
  EXPECT_EQ(rp.rate_gbps(us(285)), 49.21875);
  EXPECT_EQ(rp.target_rate_gbps(), 50.0);
  EXPECT_EQ(rp.time_stage(), 5u);
  EXPECT_EQ(rp.state().fast_recovery_events, 5u);

  // Stage 6 > F, byte stage 0 <= F: additive increase, Rt += 0.04.
  // Rt = 50.04, Rc = (50.04 + 49.21875) / 2 = 49.629375.
  EXPECT_DOUBLE_EQ(rp.rate_gbps(us(340)), 49.629375);
  EXPECT_DOUBLE_EQ(rp.target_rate_gbps(), 50.04);
  // Stage 7: Rt = 50.08, Rc = ceil((50080000 + 49629375) / 2) = 49854688 kb/s.
  EXPECT_EQ(rp.rate_kbps(us(395)), 49'854'688u);
  EXPECT_DOUBLE_EQ(rp.target_rate_gbps(), 50.08);
  EXPECT_EQ(rp.state().additive_events, 2u);
  EXPECT_EQ(rp.state().hyper_events, 0u);  // the byte counter is off: never hyper
}

TEST(Dcqcn, HyperIncreaseWhenBothCountersPassF) {
  DcqcnParams p;
  p.fast_recovery_stages = 2;
  p.byte_counter_bytes = 1000;
  DcqcnReactionPoint rp(p, 100.0);
  rp.on_cnp(0);
  rp.on_cnp(us(10));  // Rc 25, Rt 50; timer stages at 65, 120, 175, 230 us

  rp.on_sent(us(20), 1000);  // byte stage 1, max 1 <= 2: FR, Rc = 37.5
  EXPECT_EQ(rp.current_rate_gbps(), 37.5);
  rp.on_sent(us(21), 1000);  // byte stage 2: FR, Rc = 43.75
  EXPECT_EQ(rp.current_rate_gbps(), 43.75);
  rp.on_sent(us(22), 1000);  // byte stage 3 > 2, time stage 0: AI, Rt 50.04, Rc 46.895
  EXPECT_DOUBLE_EQ(rp.target_rate_gbps(), 50.04);
  EXPECT_DOUBLE_EQ(rp.current_rate_gbps(), 46.895);

  rp.advance(us(120));  // time stages 1, 2 (min 1, 2 <= F): AI twice
  // 65 us: Rt 50.08, Rc (50.08 + 46.895) / 2 = 48.4875;
  // 120 us: Rt 50.12, Rc (50.12 + 48.4875) / 2 = 49.30375.
  EXPECT_DOUBLE_EQ(rp.target_rate_gbps(), 50.12);
  EXPECT_DOUBLE_EQ(rp.current_rate_gbps(), 49.30375);

  rp.advance(us(175));  // time 3, byte 3: both > F, i = 3 - 2 = 1: Rt += 0.4
  // Rt 50.52, Rc (50.52 + 49.30375) / 2 = 49.911875.
  EXPECT_DOUBLE_EQ(rp.target_rate_gbps(), 50.52);
  EXPECT_DOUBLE_EQ(rp.current_rate_gbps(), 49.911875);

  rp.on_sent(us(180), 1000);  // byte 4, time 3: i = 1, Rt 50.92,
  // Rc = ceil((50920000 + 49911875) / 2) = 50415938 kb/s.
  EXPECT_DOUBLE_EQ(rp.target_rate_gbps(), 50.92);
  EXPECT_EQ(rp.current_rate_kbps(), 50'415'938u);

  rp.advance(us(230));  // time 4, byte 4: i = 2, Rt += 0.8: 51.72,
  // Rc = ceil((51720000 + 50415938) / 2) = 51067969 kb/s.
  EXPECT_DOUBLE_EQ(rp.target_rate_gbps(), 51.72);
  EXPECT_EQ(rp.current_rate_kbps(), 51'067'969u);

  EXPECT_EQ(rp.time_stage(), 4u);
  EXPECT_EQ(rp.byte_stage(), 4u);
  EXPECT_EQ(rp.state().fast_recovery_events, 2u);
  EXPECT_EQ(rp.state().additive_events, 3u);
  EXPECT_EQ(rp.state().hyper_events, 3u);
}

TEST(Dcqcn, ByteCounterCarriesRemainder) {
  DcqcnParams p;
  p.byte_counter_bytes = 1000;
  p.rate_increase_period_ns = 0;
  DcqcnReactionPoint rp(p, 100.0);
  rp.on_cnp(0);         // Rc 50, Rt 100
  rp.on_sent(1, 2500);  // two byte stages (FR twice: 75, 87.5), 500 bytes carried
  EXPECT_EQ(rp.byte_stage(), 2u);
  EXPECT_EQ(rp.state().byte_count, 500u);
  EXPECT_EQ(rp.current_rate_gbps(), 87.5);
  rp.on_sent(2, 499);
  EXPECT_EQ(rp.byte_stage(), 2u);
  rp.on_sent(3, 1);  // 1000 reached: stage 3, Rc 93.75
  EXPECT_EQ(rp.byte_stage(), 3u);
  EXPECT_EQ(rp.current_rate_gbps(), 93.75);
}

TEST(Dcqcn, ClampAtLineRateAndRelease) {
  DcqcnParams p = timer_only();
  p.fast_recovery_stages = 0;  // every stage is additive: Rt = min(100 + 0.04, 100)
  DcqcnReactionPoint rp(p, 100.0);
  rp.on_cnp(0);  // Rc 50, Rt 100
  EXPECT_EQ(rp.rate_gbps(us(55)), 75.0);
  EXPECT_EQ(rp.target_rate_gbps(), 100.0);  // clamped, not 100.04
  EXPECT_EQ(rp.state().additive_events, 1u);

  // The gap to 100 Gb/s halves per stage, rounded down: floor(50000000 / 2^n) kb/s, which is
  // 1 at n = 25 and 0 at n = 26: released at stage 26, at 26 * 55 = 1430 us.
  EXPECT_EQ(rp.rate_kbps(us(1430) - 1), 99'999'999u);
  EXPECT_TRUE(rp.limited());
  EXPECT_EQ(rp.time_stage(), 25u);
  EXPECT_EQ(rp.rate_gbps(us(1430)), 100.0);
  EXPECT_FALSE(rp.limited());
  EXPECT_EQ(rp.state().releases, 1u);
  EXPECT_EQ(rp.alpha(), 1.0);  // back to initial_alpha
  EXPECT_EQ(rp.state().next_increase_at, sim::kNever);
}

TEST(Dcqcn, RecoversToLineRateAfterLongQuiet) {
  DcqcnReactionPoint rp(DcqcnParams{}, 100.0);
  rp.on_cnp(0);
  rp.on_cnp(us(4));
  rp.on_cnp(us(8));  // no timer or alpha event before 55 us: alpha 1, Rc 12.5, Rt 25
  EXPECT_EQ(rp.current_rate_gbps(), 12.5);
  EXPECT_EQ(rp.rate_gbps(1'000'000'000), 100.0);  // one second later
  EXPECT_FALSE(rp.limited());
  EXPECT_EQ(rp.target_rate_gbps(), 100.0);
  EXPECT_EQ(rp.state().releases, 1u);
  // Released means pristine: the next CNP is a first CNP again (alpha 1: half rate).
  rp.on_cnp(1'000'000'000);
  EXPECT_EQ(rp.current_rate_gbps(), 50.0);
  EXPECT_EQ(rp.target_rate_gbps(), 100.0);
}

TEST(Dcqcn, ClampAtMinRate) {
  DcqcnParams p;
  p.min_rate_kbps = 10'000'000;  // 10 Gb/s
  p.rate_reduce_monitor_period_ns = 0;
  DcqcnReactionPoint rp(p, 100.0);
  const double expected[] = {50.0, 25.0, 12.5, 10.0, 10.0};  // 12.5 / 2 = 6.25 -> floor 10
  for (double e : expected) {
    rp.on_cnp(0);
    EXPECT_EQ(rp.current_rate_gbps(), e);
  }
}

TEST(Dcqcn, MinDecFactorBoundsOneCut) {
  DcqcnParams p;
  p.min_dec_factor_pct = 75;  // rpg_min_dec_fac = 75 %
  DcqcnReactionPoint rp(p, 100.0);
  rp.on_cnp(0);
  EXPECT_EQ(rp.current_rate_gbps(), 75.0);  // max(1 - 1/2, 0.75) * 100
}

TEST(Dcqcn, MaxRateCapsLineRate) {
  DcqcnParams p;
  p.max_rate_kbps = 40'000'000;  // 40 Gb/s
  DcqcnReactionPoint rp(p, 100.0);
  EXPECT_EQ(rp.rate_gbps(0), 40.0);
  rp.on_cnp(0);
  EXPECT_EQ(rp.current_rate_gbps(), 20.0);
}

TEST(Dcqcn, RateToSetOnFirstCnp) {
  DcqcnParams p;
  p.rate_on_first_cnp_kbps = 20'000'000;  // 20 Gb/s
  p.initial_alpha_q10 = 512;              // 1/2
  DcqcnReactionPoint rp(p, 100.0);
  rp.on_cnp(0);
  EXPECT_EQ(rp.current_rate_gbps(), 20.0);
  EXPECT_EQ(rp.target_rate_gbps(), 20.0);
  EXPECT_EQ(rp.alpha(), 0.5);  // untouched by the first CNP
  rp.on_cnp(us(10));           // a regular cut: 20 (1 - 0.5/2) = 15
  EXPECT_EQ(rp.current_rate_gbps(), 15.0);
}

TEST(Dcqcn, Mlx5TargetRateClamping) {
  // clamp_tgt_rate off, clamp_tgt_rate_after_time_inc on (the firmware defaults).
  DcqcnParams p = timer_only();
  p.clamp_tgt_rate = false;
  DcqcnReactionPoint rp(p, 100.0);
  rp.on_cnp(0);       // first cut: Rt = Rc = 100, Rc 50
  rp.on_cnp(us(10));  // no timer increase since: Rt stays 100, Rc 25
  EXPECT_EQ(rp.target_rate_gbps(), 100.0);
  EXPECT_EQ(rp.current_rate_gbps(), 25.0);
  EXPECT_EQ(rp.rate_gbps(us(65)), 62.5);  // FR: (100 + 25) / 2
  rp.on_cnp(us(70));                      // a timer increase happened since the last cut: Rt = 62.5
  EXPECT_EQ(rp.target_rate_gbps(), 62.5);
  // alpha decayed once at 10 + 55 = 65 us, to 1024 * 1020 >> 10 = 1020 (255/256), so
  // Rc = 62500000 - (62500000 * 1020 >> 11) = 62500000 - 31127929 = 31372071 kb/s.
  EXPECT_EQ(rp.current_rate_kbps(), 31'372'071u);

  p.clamp_tgt_rate_after_time_inc = false;
  DcqcnReactionPoint rp2(p, 100.0);
  rp2.on_cnp(0);
  rp2.on_cnp(us(10));
  EXPECT_EQ(rp2.rate_gbps(us(65)), 62.5);
  rp2.on_cnp(us(70));  // Rt kept at 100; Rc as above
  EXPECT_EQ(rp2.target_rate_gbps(), 100.0);
  EXPECT_EQ(rp2.current_rate_kbps(), 31'372'071u);
}

TEST(Dcqcn, Mlx5FirmwarePreset) {
  const DcqcnParams p = DcqcnParams::mlx5_firmware();
  EXPECT_EQ(p.g_q10, 5u);
  EXPECT_EQ(p.alpha_update_period_ns, us(1));
  EXPECT_EQ(p.initial_alpha_q10, 1023u);
  EXPECT_EQ(p.rate_reduce_shift, 11u);
  EXPECT_EQ(p.min_dec_factor_pct, 50u);
  EXPECT_EQ(p.rate_increase_period_ns, us(300));
  EXPECT_EQ(p.byte_counter_bytes, 32767u * 64u);
  EXPECT_EQ(p.fast_recovery_stages, 1u);
  EXPECT_EQ(p.ai_rate_kbps, 5'000u);
  EXPECT_EQ(p.hai_rate_kbps, 50'000u);
  EXPECT_EQ(p.min_rate_kbps, 1'000u);
  EXPECT_EQ(p.rate_reduce_monitor_period_ns, us(4));
  EXPECT_FALSE(p.clamp_tgt_rate);
  EXPECT_TRUE(p.clamp_tgt_rate_after_time_inc);
  DcqcnReactionPoint rp(p, 100.0);
  rp.on_cnp(0);
  // alpha 1023/1024: Rc = 100000000 - (100000000 * 1023 >> 11) = 100000000 - 49951171
  // = 50048829 kb/s (50.048828125 Gb/s exactly).
  EXPECT_EQ(rp.current_rate_kbps(), 50'048'829u);
}

TEST(Dcqcn, IntegerStateOnly) {
  // The state is integers (kb/s, 1/1024ths); the Gb/s and fraction accessors are exact
  // conversions of it, so a trace prints the same digits on every machine.
  DcqcnParams p = DcqcnParams::mlx5_firmware();
  DcqcnReactionPoint rp(p, 25.0);
  EXPECT_EQ(rp.line_rate_kbps(), 25'000'000u);
  rp.on_cnp(0);
  rp.on_cnp(us(5));
  // First cut: Rt = 25000000; Rc = 25000000 - (25000000 * 1023 >> 11) = 12512208;
  // alpha = (1019 * 1023 + 1024 * 5) >> 10 = 1023. Five decays (1, 2, ... 5 us), each
  // alpha * 1019 >> 10: 1018, 1013, 1008, 1003, 998. Second cut (clamp_tgt_rate off, no timer
  // increase since: Rt stays): Rc = 12512208 - (12512208 * 998 >> 11) = 6414951;
  // alpha = (1019 * 998 + 5120) >> 10 = 998.
  EXPECT_EQ(rp.state().rc_kbps, 6'414'951u);
  EXPECT_EQ(rp.state().rt_kbps, 25'000'000u);
  EXPECT_EQ(rp.state().alpha_q10, 998u);
  EXPECT_EQ(rp.current_rate_gbps(), 6.414951);
  EXPECT_EQ(rp.alpha(), 998.0 / 1024.0);
}

TEST(Dcqcn, TimeNeverGoesBack) {
  DcqcnReactionPoint rp(DcqcnParams{}, 100.0);
  rp.on_cnp(us(10));
  EXPECT_EQ(rp.rate_gbps(us(5)), 50.0);  // an older `now` is read as 10 us
  EXPECT_EQ(rp.state().last_now, us(10));
  rp.on_cnp(us(1));  // taken as 10 us: within the monitor period
  EXPECT_EQ(rp.state().cnps_coalesced, 1u);
}

namespace {

// A fixed scenario; with `poll`, rate_gbps is also read at every us and half us in between.
std::vector<DcqcnState> run_scenario(const DcqcnParams& p, bool poll, DcqcnState* final_state) {
  DcqcnReactionPoint rp(p, 100.0);
  std::vector<DcqcnState> after_events;
  const std::vector<std::uint64_t> cnp_us = {0, 2, 5, 300, 301, 1200, 1203, 1210, 2500, 2501};
  std::size_t next_cnp = 0;
  for (std::uint64_t t = 0; t <= 5000; ++t) {
    if (poll) {
      (void)rp.rate_gbps(us(t));
      (void)rp.alpha();
    }
    if (t % 7 == 0) {
      rp.on_sent(us(t), 4096);
      after_events.push_back(rp.state());
    }
    while (next_cnp < cnp_us.size() && cnp_us[next_cnp] == t) {
      rp.on_cnp(us(t));
      after_events.push_back(rp.state());
      ++next_cnp;
    }
    if (poll) (void)rp.rate_gbps(us(t) + 500);
  }
  (void)rp.rate_gbps(us(20'000));
  *final_state = rp.state();
  return after_events;
}

}  // namespace

TEST(Dcqcn, LazyEvaluationEqualsStepByStep) {
  DcqcnParams paper;
  paper.byte_counter_bytes = 64 * 1024;
  for (const DcqcnParams& p : {paper, DcqcnParams::mlx5_firmware()}) {
    DcqcnState lazy_end, step_end;
    const auto lazy = run_scenario(p, false, &lazy_end);
    const auto step = run_scenario(p, true, &step_end);
    ASSERT_EQ(lazy.size(), step.size());
    for (std::size_t i = 0; i < lazy.size(); ++i) {
      EXPECT_TRUE(lazy[i] == step[i]) << "event " << i;
    }
    EXPECT_TRUE(lazy_end == step_end);
    // The scenario exercises every phase.
    EXPECT_GT(lazy_end.cuts, 3u);
    EXPECT_GT(lazy_end.cnps_coalesced, 0u);
    EXPECT_GT(lazy_end.fast_recovery_events, 0u);
    EXPECT_GT(lazy_end.additive_events + lazy_end.hyper_events, 0u);
  }
}

TEST(Dcqcn, Deterministic) {
  DcqcnParams p;
  p.byte_counter_bytes = 64 * 1024;
  DcqcnState a, b;
  const auto ea = run_scenario(p, true, &a);
  const auto eb = run_scenario(p, true, &b);
  EXPECT_TRUE(ea == eb);
  EXPECT_TRUE(a == b);

  DcqcnReactionPoint rp(p, 100.0);
  rp.on_cnp(0);
  const double r1 = rp.rate_gbps(us(777));
  const DcqcnState s1 = rp.state();
  const double r2 = rp.rate_gbps(us(777));  // repeating a call changes nothing
  EXPECT_EQ(r1, r2);
  EXPECT_TRUE(s1 == rp.state());
}

TEST(DcqcnPacer, SpacingAtRate) {
  constexpr std::uint64_t kGbps = 1'000'000;                        // in kb/s
  EXPECT_EQ(RatePacer::serialization_ns(1250, 10 * kGbps), 1000u);  // 10000 bits at 10 Gb/s
  EXPECT_EQ(RatePacer::serialization_ns(1000, 3 * kGbps), 2667u);   // 8000 / 3 = 2666.67, up
  EXPECT_EQ(RatePacer::serialization_ns(1, 1), 8'000'000u);         // 8 bits at 1 kb/s: 8 ms
  EXPECT_EQ(RatePacer::serialization_ns(4096, 0), 0u);

  RatePacer pacer;
  EXPECT_EQ(pacer.earliest_send(0), 0u);
  pacer.sent(0, 1250, 10 * kGbps);
  EXPECT_EQ(pacer.earliest_send(0), 1000u);
  EXPECT_EQ(pacer.earliest_send(1500), 1500u);
  pacer.sent(1000, 1000, 3 * kGbps);
  EXPECT_EQ(pacer.earliest_send(1000), 3667u);
  pacer.sent(2000, 1000, 8 * kGbps);  // sent early: accounted from 3667, next 3667 + 1000
  EXPECT_EQ(pacer.next_allowed(), 4667u);
  pacer.sent(5000, 9000, 0);  // unpaced
  EXPECT_EQ(pacer.earliest_send(5000), 5000u);
}

TEST(DcqcnPacer, SenderPacesAtCurrentRate) {
  DcqcnSender s(DcqcnParams{}, 100.0);
  s.sent(0, 1250);  // 10000 bits at 100 Gb/s: 100 ns
  EXPECT_EQ(s.earliest_send(0), 100u);
  s.on_cnp(100);  // 50 Gb/s from now on
  sim::SimTime t = s.earliest_send(100);
  EXPECT_EQ(t, 100u);
  for (int i = 0; i < 10; ++i) {
    s.sent(t, 1250);  // 10000 bits at 50 Gb/s: 200 ns apart
    const sim::SimTime next = s.earliest_send(t);
    EXPECT_EQ(next - t, 200u);
    t = next;
  }
  EXPECT_EQ(t, 2100u);
}

TEST(DcqcnPacer, LineRateZeroIsUnpaced) {
  DcqcnSender s(DcqcnParams{}, 0.0);
  s.on_cnp(0);
  for (sim::SimTime t = 0; t < 10'000; t += 7) {
    EXPECT_EQ(s.earliest_send(t), t);
    s.sent(t, 4096);
  }
  EXPECT_EQ(s.rate_gbps(10'000), 0.0);
  EXPECT_EQ(s.reaction_point().state().cnps, 1u);
  EXPECT_EQ(s.reaction_point().state().cuts, 0u);
}
