#include <gtest/gtest.h>

#include <string>

#include "rocecert/sim/event_queue.h"

using rocecert::sim::EventQueue;
using rocecert::sim::kNever;

TEST(EventQueue, OrdersByTimeThenBySchedulingOrder) {
  EventQueue q;
  std::string log;
  q.schedule_at(30, [&] { log += "c"; });
  q.schedule_at(10, [&] { log += "a"; });
  q.schedule_at(10, [&] { log += "b"; });
  q.schedule_at(20, [&] {
    log += "x";
    q.schedule_in(0, [&] { log += "y"; });  // same instant, after everything already queued
    q.schedule_in(5, [&] { log += "z"; });
  });
  EXPECT_EQ(q.run_until(kNever), 6u);
  EXPECT_EQ(log, "abxyzc");
  EXPECT_EQ(q.now(), 30);
}

TEST(EventQueue, CancelAndRunUntil) {
  EventQueue q;
  int fired = 0;
  const auto timer = q.schedule_at(100, [&] { ++fired; });
  q.schedule_at(50, [&] { EXPECT_TRUE(q.cancel(timer)); });
  EXPECT_EQ(q.run_until(75), 1u);
  EXPECT_EQ(q.now(), 75);  // time advances to the horizon
  EXPECT_FALSE(q.cancel(timer));
  EXPECT_EQ(q.run_until(kNever), 0u);
  EXPECT_EQ(fired, 0);
  EXPECT_EQ(q.next_time(), kNever);
}

TEST(EventQueue, PastIsClampedToNow) {
  EventQueue q;
  q.run_until(1000);
  rocecert::sim::SimTime seen = 0;
  q.schedule_at(5, [&] { seen = q.now(); });
  q.run_until(kNever);
  EXPECT_EQ(seen, 1000);
}
