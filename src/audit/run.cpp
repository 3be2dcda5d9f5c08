// The audit's round loop: pass 1 or a resumption, then per round read (the
// next one read ahead on a thread), duplicates, intake, check, forget and the
// checkpoint; the final check at the end. The entry point run_audit.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>

#include "audit/auditor.h"
#include "core/allocator.h"
#include "core/errors.h"
#include "core/timer.h"

namespace isocheck {

const char* to_string(ForgetRule r) {
  switch (r) {
    case ForgetRule::fence: return "fence";
    case ForgetRule::time: return "time";
    default: return "none";
  }
}

int AuditResult::exit_code() const {
  bool undecided = false;
  for (auto& l : levels) {
    if (l.verdict == "violated") return 1;
    if (l.verdict == "undecided") undecided = true;
  }
  return undecided ? 3 : 0;
}

namespace audit_detail {
namespace {

// ---------------------------------------------------------------- memory
uint64_t proc_status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  size_t n = std::strlen(field);
  while (std::getline(in, line))
    if (line.compare(0, n, field) == 0) return std::strtoull(line.c_str() + n + 1, nullptr, 10);
  return 0;
}
void reset_peak_rss() {
  if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}
uint64_t peak_rss_bytes() { return proc_status_kb("VmHWM:") * 1024; }

}  // namespace

std::string Auditor::options_fingerprint() const {
  std::string s = file_fingerprint(path_) + " round=" + std::to_string(opt_.round_txns) + " rule=" + opt_.rule +
                  " fence_key=" + opt_.fence_key + " skew=" + std::to_string(opt_.check.clock_skew) +
                   " time_order=" + std::to_string(opt_.check.time_order) +
                  " dup=" + std::to_string(opt_.duplicate_check) + " defer_min=" + std::to_string(opt_.defer_min_txns) +
                  " symbols=file levels=";
  for (Level l : opt_.check.levels) s += std::string(to_string(l)) + ",";
  return s;
}

std::string Auditor::checkpoint_path() const {
  std::string base = std::filesystem::path(path_).filename().string();
  return (std::filesystem::path(opt_.checkpoint_dir) / (base + ".ckpt")).string();
}

// A resumption: the checkpoint's state (s_) loaded; the derived indices
// rebuilt.
void Auditor::resume() {
  ++s_.result.resumptions;
  gather_predicate_keys();
  reader_.seek(s_.pos);
  if (reader_.hdf5() && s_.carry.keys.named()) rest_.make_dense(s_.carry.keys.size());
  if (reader_.hdf5()) build_file_hashes();
  for (auto& [k, v] : s_.summary_rest) rest_.set(k, v);
  if (s_.spilled) open_scratch();
  if (dup_check() && s_.spilled) {
    const uint64_t from = s_.round_write_base.at(std::min<size_t>(s_.next_round, s_.round_write_base.size() - 1));
    if (!open_hits(from)) {
      say("the duplicate-write fingerprints are not in " + scratch_->dir() + ": sorting them again");
      build_spilled_fingerprints();
      if (!open_hits(from)) throw InputError(scratch_->path("dups"), "written just now, but cannot be read back");
    }
  } else if (dup_check()) {
    rebuild_fingerprints(s_.pos.txn);
  }
  // Rebuild the derived indices.
  for (size_t i = 0; i < s_.carry.session_count(); ++i) session_index_[s_.carry.session_name[i]] = static_cast<uint32_t>(i);
  for (auto& [k, v] : s_.last_fence) last_fence_[k] = v;
  awaiting_nf_.assign(s_.carry.session_count(), {});
  for (size_t t = 0; t < s_.carry.txn_count(); ++t)
    if (s_.nf[t] == kPosInf && !(s_.has_summary && t < s_.summary_txns)) awaiting_nf_[s_.carry.txn_session[t]].push_back(static_cast<uint32_t>(t));
  find_fence_sym();
  if (s_.rule != ForgetRule::none && opt_.later_reads && starts_with_blind_writes() &&
      !(s_.spilled && open_later_reads_file())) {
    if (s_.spilled) say("the later-reads index is not in " + scratch_->dir() + ": building it again");
    build_later_reads(s_.pos.txn);
  }
  if (s_.spilled) update_scratch_bytes();
  say("resuming at round " + std::to_string(s_.next_round) + " (transaction " + std::to_string(s_.pos.txn) + ")");
}

// A run from the start: pass 1, the rule, the later-reads index. False when
// stopped (a signal) during pass 1, with a checkpoint written.
bool Auditor::start() {
  s_ = AuditState{};
  s_.fingerprint = options_fingerprint();
  s_.result.log = path_;
  for (Level l : opt_.check.levels) s_.result.levels.push_back(AuditLevel{l});
  stage("audit pass 1 (scanning for fences and times)");
  say("pass 1: scanning " + path_ + " for fences and times");
  Timer pass1;
  prescan();
  if (opt_.debug_timing) std::fprintf(stderr, "pass 1: %.3f s\n", pass1.seconds());
  refuse_repeated_ids();
  if (lists_and_registers_) refuse_list_key_misuse();
  if (reader_.hdf5()) {
    // The carry uses the file's symbols: rounds are appended without
    // looking a symbol up (append_same_symbols).
    reader_.hdf5_file().take_tables(s_.carry.keys, s_.carry.values);
    build_file_hashes();
    find_fence_sym();
    if (s_.carry.keys.named()) rest_.make_dense(s_.carry.keys.size());
  }
  choose_rule();
  s_.result.rule = s_.rule;
  const bool later_reads = s_.rule != ForgetRule::none && opt_.later_reads && starts_with_blind_writes();
  decide_spill(later_reads);
  if (later_reads) {
    stage("audit pass 1 (indexing later reads)");
    say("later reads: indexing every read of " + path_ + " (the log has blind writes)");
    Timer lr;
    build_later_reads(0);
    if (opt_.debug_timing)
      std::fprintf(stderr, "later reads: %.3f s, %llu pairs\n", lr.seconds(), (unsigned long long)later_reads_.entries());
  }
  s_.result.duplicate_check = dup_check();
  if (dup_check() && s_.spilled) {
    stage("audit pass 1 (sorting the written fingerprints)");
    say("duplicate writes: sorting the fingerprint of every write of " + path_ + " in " + scratch_->dir());
    build_spilled_fingerprints();
    if (!open_hits(0)) throw InputError(scratch_->path("dups"), "written just now, but cannot be read back");
  } else if (dup_check()) {
    written_.reserve(log_writes_);
  }
  if (s_.spilled) update_scratch_bytes();
  release_free_memory();  // (what pass 1 sorted and indexed, before the rounds' first peak)
  say("rule: " + std::string(to_string(s_.rule)) + " (" + s_.result.rule_reason + ")");
  if (opt_.stop && opt_.stop->load() && !opt_.checkpoint_dir.empty()) {  // stopped during pass 1
    s_.result.complete = false;
    save_state();
    return false;
  }
  return true;
}

AuditResult Auditor::run() {
  Timer timer;
  std::string fp = options_fingerprint();
  bool resumed = false;
  if (!opt_.checkpoint_dir.empty()) std::filesystem::create_directories(opt_.checkpoint_dir);
  // An unusable --scratch-dir is refused now (exit 2), whether or not the
  // state goes there.
  if (!opt_.scratch_dir.empty()) ScratchDir(opt_.scratch_dir, "isocheck", "probe");
  if (opt_.resume && !opt_.checkpoint_dir.empty()) {
    stage("audit (loading the checkpoint)");
    AuditState loaded;
    if (load_checkpoint(loaded, checkpoint_path())) {
      if (loaded.fingerprint == fp) {
        s_ = std::move(loaded);
        resumed = true;
      } else {
        say("checkpoint " + checkpoint_path() + " belongs to another input or other options; starting over");
      }
    }
  }
  if (resumed) {
    if (s_.result.complete) return s_.result;  // finished before: report again
    resume();
  } else if (!start()) {
    return s_.result;  // stopped during pass 1
  }
  compute_suffixes();
  uint32_t run = s_.result.resumptions;
  uint64_t rounds_this_run = 0;
  double base_seconds = s_.result.seconds;
  struct ReadAhead {
    History chunk;
    KeyIds key_ids;     // the reader's numbers of its keys
    LogPosition after;  // the reader's position after it
    RoundFingerprints fingerprints;  // when dup_check()
  };
  std::future<ReadAhead> ahead;
  LogPosition consumed = reader_.position();  // after the round in hand
  while (true) {
    if (open_levels().empty()) {  // every level violated: the verdict is final
      // ... unless a later round of scans, inserts and deletes cannot be
      // expanded: verify, which expands the whole log before it checks,
      // refuses such a log (exit 2, or 3 "not decided"), and so does the
      // audit. The rest is read, expanded and dropped.
      if (pred_keys_) {
        if (ahead.valid()) ahead.get();
        while (reader_.next(opt_.round_txns).txn_count() > 0) {
        }
      }
      break;
    }
    Timer rt;
    stage("audit round (reading)");
    reset_peak_rss();
    uint64_t first = consumed.txn;
    // The round read ahead while the last one was checked, or read now.
    History chunk;
    KeyIds key_ids;
    RoundFingerprints fingerprints;
    if (ahead.valid()) {
      ReadAhead got = ahead.get();
      chunk = std::move(got.chunk);
      key_ids = std::move(got.key_ids);
      consumed = got.after;
      fingerprints = std::move(got.fingerprints);
    } else {
      chunk = reader_.next(opt_.round_txns);
      key_ids = reader_.take_key_ids();
      consumed = reader_.position();
      if (dup_check()) fingerprints = fingerprint_round(chunk);
    }
    double t_read = rt.seconds();
    if (chunk.txn_count() == 0) break;
    uint64_t round = s_.next_round;
    RoundStat st;
    st.round = round;
    st.first_txn = first;
    st.txns = chunk.txn_count();
    st.run = run;
    if (dup_check()) check_duplicates(chunk, fingerprints, first, round);
    fingerprints = RoundFingerprints{};
    double t_dup = rt.seconds();
    append_round(chunk, key_ids);
    chunk = History{};
    key_ids = KeyIds{};
    bool last = consumed.txn >= s_.total_txns;
    // Read the next round, and fingerprint its writes, on another thread
    // while this one is checked. Only that thread uses the reader (and the
    // HDF5 library) and the fingerprint set until it is joined at the top of
    // the next round (duplicate re-reads come after the join).
    if (!last)
      ahead = std::async(std::launch::async, [this] {
        ReadAhead r;
        r.chunk = reader_.next(opt_.round_txns);
        r.key_ids = reader_.take_key_ids();
        r.after = reader_.position();
        if (dup_check()) r.fingerprints = fingerprint_round(r.chunk);
        return r;
      });
    // Deferred: the last attempt forgot little (blind-write logs: docs/audit.md,
    // "Deferred checks"), so this round is only read; the next check (at the
    // latest the last round's) covers it.
    const bool deferred = !last && s_.rule != ForgetRule::none && s_.carry.txn_count() < s_.defer_until;
    st.deferred = deferred;
    st.checked = deferred ? 0 : s_.carry.txn_count();
    Timer tc;
    stage("audit round (checking)");
    const bool will_forget = s_.rule != ForgetRule::none && !last && !deferred;
    if ((s_.rule != ForgetRule::none && !deferred) || last) check_round(round, will_forget && audit_threads() > 1);
    double t_check = tc.seconds();
    for (uint8_t p : s_.pending) st.pending += p;
    if (will_forget) {
      const uint64_t held = s_.carry.txn_count();
      stage("audit round (forgetting)");
      forget(round, st);
      join_check();  // (forget may have returned before replacing the carry)
      later_reads_.drop_through(round);  // (later rounds are never asked about this one)
      // Under 1/16 of what was held forgotten: checking and trying to forget
      // every round would make the audit quadratic in the log. Defer both
      // until the carry has doubled (total work then stays linear).
      if (st.forgotten * 16 < held && held >= opt_.defer_min_txns) {
        if (s_.defer_until == 0)
          s_.result.warnings.push_back("round " + std::to_string(round) + " forgot " + std::to_string(st.forgotten) +
                                       " of " + std::to_string(held) +
                                       " transactions (blind writes leave version orders open: docs/audit.md); "
                                       "checks are deferred while the kept transactions double, and memory grows");
        s_.defer_until = 2 * s_.carry.txn_count();
      } else {
        s_.defer_until = 0;
      }
    }
    if (opt_.debug_timing)
      std::fprintf(stderr, "round %llu: read %.3f s, duplicates %.3f s, append %.3f s, check %.3f s, forget %.3f s\n",
                   (unsigned long long)round, t_read, t_dup - t_read, rt.seconds() - tc.seconds() - t_dup, t_check,
                   tc.seconds() - t_check);
    st.kept = s_.carry.txn_count();
    st.seconds = rt.seconds();
    // The allocator keeps freed blocks for reuse (core/allocator.h); rounds
    // of changing sizes leave some it cannot reuse, and over a day-long log
    // they added up (10^8 transactions: 1.8 GB resident for ~0.6 GB in use).
    // Handed back every kPurgeRounds rounds, at the cost of faulting in what
    // the next rounds take again.
    if ((round + 1) % kPurgeRounds == 0) release_free_memory();
    st.peak_rss = peak_rss_bytes();
    auto& res = s_.result;
    res.txns += st.txns;
    res.rounds = round + 1;
    res.max_kept = std::max(res.max_kept, st.kept);
    res.max_checked = std::max(res.max_checked, st.checked);
    res.peak_rss = std::max(res.peak_rss, st.peak_rss);
    res.round_stats.push_back(st);
    s_.next_round = round + 1;
    s_.pos = consumed;
    s_.last_fence.assign(last_fence_.begin(), last_fence_.end());
    res.seconds = base_seconds + timer.seconds();
    if (s_.rule == ForgetRule::none && st.kept > 4 * opt_.round_txns && round % 16 == 0)
      say("warning: no forgetting rule; " + std::to_string(st.kept) + " transactions kept");
    say("round " + std::to_string(round) + ": " + std::to_string(st.txns) + " read, " +
        (deferred ? std::string("check deferred") : std::to_string(st.checked) + " checked") + ", " +
        std::to_string(st.forgotten) + " forgotten, " + std::to_string(st.kept) + " kept, peak " +
        std::to_string(st.peak_rss >> 20) + " MiB");
    ++rounds_this_run;
    bool stop = (opt_.stop && opt_.stop->load()) || (opt_.stop_after_rounds && rounds_this_run >= opt_.stop_after_rounds);
    if (!opt_.checkpoint_dir.empty() && (stop || !last)) {
      stage("audit checkpoint");
      save_state();
    }
    if (stop && !last) {
      res.complete = false;
      say("stopping after round " + std::to_string(round) + "; rerun with --requeue to resume");
      return res;
    }
  }
  stage("audit final check");
  finish();
  s_.result.seconds = base_seconds + timer.seconds();
  if (!opt_.checkpoint_dir.empty()) save_state();
  remove_scratch_files();  // (a finished audit's checkpoint needs none)
  return s_.result;
}

}  // namespace audit_detail

AuditResult run_audit(const std::string& log, const AuditOptions& opt) {
  if (opt.round_txns == 0) throw UsageError("--round must be at least 1");
  if (opt.rule != "auto" && opt.rule != "fence" && opt.rule != "time" && opt.rule != "none")
    throw UsageError("--rule: expected auto, fence, time or none, got \"" + opt.rule + "\"");
  audit_detail::Auditor a(log, opt);
  return a.run();
}

}  // namespace isocheck
