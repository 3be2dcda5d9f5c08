// The work queue's board (mpi/scheduler.h): the cutoff kept as pieces finish
// against a walk over every finished piece (the definition), and batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include "mpi/scheduler.h"

using namespace isocheck;
using namespace isocheck::dist;

namespace {

// The definition: pieces in order; the first error ends the run after that
// piece (it is the run's error: merge_on_root reports the pieces below the
// cutoff); otherwise, once every level has a violating piece, the pieces up to
// the highest of those lowest violators matter.
uint32_t cutoff_by_walk(const Job& job, const std::map<int32_t, PieceResult>& done) {
  std::map<Level, uint32_t> lowest;
  for (auto& [i, r] : done) {
    if (r.error_code) return std::min<uint32_t>(job.pieces(), static_cast<uint32_t>(i) + 1);
    for (Level l : job.levels_of(static_cast<uint32_t>(i))) {
      bool bad = !r.anomalies.empty();
      for (auto& o : r.levels) bad |= static_cast<Level>(o.level) == l && !o.holds && o.decided;
      if (bad && !lowest.count(l)) lowest[l] = static_cast<uint32_t>(i);
    }
  }
  std::vector<Level> all = job.split_levels;
  if (job.whole_sser) all.push_back(Level::sser);
  uint32_t c = 0;
  for (Level l : all) {
    if (!lowest.count(l)) return job.pieces();
    c = std::max(c, lowest[l]);
  }
  return c + 1;
}

// What a Job refers to; only the number of blocks matters to the board.
struct Fixture {
  History h;
  Partition p;
  std::vector<uint8_t> included;
  SessionTxns index;
  CheckOptions opt;
  explicit Fixture(uint32_t blocks) { p.comp_sessions.resize(blocks); }
};

PieceResult random_result(uint32_t piece, const Job& job, std::mt19937_64& rng) {
  PieceResult r;
  r.piece = static_cast<int32_t>(piece);
  const unsigned roll = rng() % 100;
  if (roll < 3) r.error_code = 2 + static_cast<int>(rng() % 2);
  if (roll >= 3 && roll < 8) r.anomalies.push_back({});
  for (Level l : job.levels_of(piece)) {
    LevelOutcome o;
    o.level = static_cast<uint8_t>(l);
    o.holds = rng() % 100 >= 10;
    o.decided = rng() % 100 >= 5;
    r.levels.push_back(o);
  }
  return r;
}

}  // namespace

TEST(WorkQueueBoard, CutoffKeptAsPiecesFinishEqualsTheWalk) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 400; ++round) {
    Fixture f(1 + static_cast<uint32_t>(rng() % 60));
    std::vector<Level> split;
    if (rng() % 2) split.push_back(Level::ser);
    if (rng() % 2) split.push_back(Level::si);
    const bool sser = split.empty() || rng() % 2;
    Job job{f.h, f.p, f.included, f.index, f.opt, sser, split, false};
    for (bool all_violations : {false, true}) {
      Board board{job, all_violations, {}, 0};
      std::map<int32_t, PieceResult> reference;
      std::vector<uint32_t> order(job.pieces());
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin(), order.end(), rng);
      for (uint32_t i : order) {
        PieceResult r = random_result(i, job, rng);
        reference[r.piece] = r;
        board.add(std::move(r));
        const uint32_t want = all_violations ? job.pieces() : cutoff_by_walk(job, reference);
        ASSERT_EQ(board.cutoff(), want) << "round " << round << " after piece " << i;
        ASSERT_EQ(board.done.size(), reference.size());
      }
    }
  }
}

TEST(WorkQueueBoard, BatchesHandEachPieceOnceUpToTheOperationBound) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 100; ++round) {
    const uint32_t comps = 1 + static_cast<uint32_t>(rng() % 500);
    Fixture f(comps);
    Job job{f.h, f.p, f.included, f.index, f.opt, false, {Level::ser}, false};
    Board board{job, false, {}, 0};
    const int ranks = 1 + static_cast<int>(rng() % 4);
    board.owner.resize(comps), board.weight.resize(comps);
    for (uint32_t i = 0; i < comps; ++i) {
      board.owner[i] = static_cast<int>(rng() % ranks);
      board.weight[i] = rng() % 3 == 0 ? Board::kBatchOps / 2 + rng() % Board::kBatchOps : 1 + rng() % 4000;
    }
    std::vector<int> handed(comps, 0);
    for (int who = 0; who < ranks; ++who) {
      int prev = -1;
      while (true) {
        std::vector<int> batch = board.take_batch(who, board.take(who));
        if (batch[0] < 0) break;
        uint64_t before_last = 0;
        for (size_t k = 0; k < batch.size(); ++k) {
          const int i = batch[k];
          ASSERT_EQ(board.owner[i], who);
          ASSERT_GT(i, prev) << "a rank's pieces in order";
          prev = i, ++handed[i];
          if (k + 1 < batch.size()) before_last += board.weight[i];
        }
        // More pieces join only while the batch is under the bound.
        ASSERT_LT(before_last, Board::kBatchOps);
        ASSERT_LE(batch.size(), Board::kBatchPieces);
      }
    }
    for (uint32_t i = 0; i < comps; ++i) ASSERT_EQ(handed[i], 1) << "piece " << i;
  }
}

TEST(WorkQueueBoard, BatchesStopAtTheCutoff) {
  Fixture f(100);
  Job job{f.h, f.p, f.included, f.index, f.opt, false, {Level::ser}, false};
  Board board{job, false, {}, 0};
  board.owner.assign(100, 0), board.weight.assign(100, 10);
  PieceResult bad;
  bad.piece = 20;
  LevelOutcome o;
  o.level = static_cast<uint8_t>(Level::ser), o.holds = false;
  bad.levels.push_back(o);
  board.add(std::move(bad));
  ASSERT_EQ(board.cutoff(), 21u);
  std::vector<int> batch = board.take_batch(0, board.take(0));
  ASSERT_EQ(batch.size(), 20u) << "pieces 0..19: piece 20 is done, the rest past the cutoff";
  EXPECT_EQ(batch.front(), 0);
  EXPECT_EQ(batch.back(), 19);
}

// Regression: the cutoff stopped below the failing piece, so the run's merge
// (which reports the errors of pieces below the cutoff) never saw it, and a
// history refused by one process "held" on the ranks.
TEST(WorkQueueBoard, AFailedPieceIsInsideTheCutoff) {
  Fixture f(5);
  const std::vector<Level> split{Level::ser};
  Job job{f.h, f.p, f.included, f.index, f.opt, false, split, false};
  for (uint32_t failed = 0; failed < 5; ++failed) {
    Board board{job, false, {}, 0};
    PieceResult r;
    r.piece = static_cast<int32_t>(failed);
    r.error_code = 2;
    board.add(r);
    EXPECT_EQ(board.cutoff(), failed + 1);
  }
}
