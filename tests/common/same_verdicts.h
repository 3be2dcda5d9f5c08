// check() run twice on one history with two sets of options (a shortcut on
// and off): the same verdicts, level by level.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "core/history.h"
#include "solver/check.h"

namespace isocheck::testkit {

// Both runs check the same levels in the same order and give the same
// decided/holds on each and as many anomalies; `what` (the history's text)
// is shown with a failure.
inline void expect_same_verdicts(const History& h, const CheckOptions& on, const CheckOptions& off,
                                 const std::string& what) {
  CheckResult a = check(h, on), b = check(h, off);
  ASSERT_EQ(a.levels.size(), b.levels.size());
  for (size_t i = 0; i < a.levels.size(); ++i) {
    EXPECT_EQ(a.levels[i].level, b.levels[i].level) << what;
    EXPECT_EQ(a.levels[i].decided, b.levels[i].decided) << what;
    EXPECT_EQ(a.levels[i].holds, b.levels[i].holds) << what;
  }
  EXPECT_EQ(a.anomalies.size(), b.anomalies.size()) << what;
}

}  // namespace isocheck::testkit
