#include "mpi/driver.h"

#include "graph/known_graph.h"

#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "core/limits.h"
#include "graph/known_graph.h"
#include "io/hdf5.h"
#include "io/hdf5_range.h"
#include "io/load.h"
#include "io/output_file.h"
#include "mpi/accounting.h"
#include "mpi/checkpoint.h"
#include "mpi/collectives.h"
#include "mpi/exchange.h"
#include "mpi/key_shards.h"
#include "mpi/messages.h"
#include "mpi/mpi_env.h"
#include "mpi/owned.h"
#include "mpi/range_names.h"
#include "mpi/scheduler.h"
#include "mpi/shard_partition.h"
#include "partition/partition.h"
#include "report/report.h"
#include "core/timer.h"

namespace isocheck::dist {

namespace {

// A history read on rank 0 (JSONL with scans, inserts or deletes, or with
// string names and lists; the imported formats). The ranks carry the scans'
// marks (History::predicate_mark) and their value predicates
// (History::value_predicates) with the operations, scattered, broadcast or
// in a piece's records.
History load_on_ranks(const std::string& file, Format f, ImportStats* stats) { return load_history(file, f, stats); }

// run_distributed's stages as methods; they share the checkpoint, the
// history, the stage times and the result through members. execute() calls
// them in the order they always ran, so every rank makes the same collective
// calls in the same order.
class DistributedRun {
 public:
  DistributedRun(const std::string& file, Format f, const CheckOptions& opt, const DistOptions& d)
      : file(file), f(f), opt(opt), d(d) {
    run.root = me == 0;
  }

  DistRun execute() {
    resume_from_checkpoint();
    // ---- read
    g_stage = ("read");
    collective([&] {
      if (f == Format::unknown) f = sniff_format(file);
    });
    if (!d.key_shards_unused.empty() && me == 0 && !d.quiet)
      std::fprintf(stderr, "isocheck: key shards not used: %s; checking the usual way\n", d.key_shards_unused.c_str());
    if (!d.key_shards) {
      run_on_owned_data();
      return std::move(run);
    }
    read_replicated_or_ranges();
    if (decided_by_key_shards()) return std::move(run);
    partition_solve_and_merge();
    return std::move(run);
  }

 private:
  const std::string& file;
  Format f;
  const CheckOptions& opt;
  const DistOptions& d;
  DistRun run;
  const int P = size(), me = rank();
  std::vector<std::pair<std::string, double>> times;
  Timer stage_timer, total;
  std::string header;
  Checkpoint ck;
  bool have_ck = false;
  History h;
  uint64_t sizes[2] = {0, 0};  // the history's transactions and operations, for --stage-times
  KeyShardOutcome ks;          // when key shards ran: their outcome
  int64_t largest_piece_ops = -1;  // owned components: the largest piece's operations
  int64_t stolen_pieces = -1;      // owned components: pieces solved by a rank other than their owner
  // With key shards on HDF5 every rank keeps only its own range until key
  // shards refuse the history (rank 0 reads the whole one when it needs it).
  History mine;
  bool ranges = false, scattered = false, use_key_shards = d.key_shards;
  // Key shards on HDF5 read their range slice by slice (key_shards.h).
  uint64_t range_lo = 0, range_hi = 0;
  // Key shards on JSONL: each rank's lines, read slice by slice the same way
  // (null when JSONL is read on rank 0: scans, inserts, deletes; string
  // symbols with list operations).
  std::unique_ptr<RangeSource> jsonl;
  // Its string keys or values, numbered across ranks (null: none, or not yet).
  std::unique_ptr<RangeNames> names;
  bool whole_loaded = false;  // set by the read: rank 0 holds the whole history

  void end_stage(const char* name) {
    MPI_Barrier(MPI_COMM_WORLD);
    times.push_back({name, stage_timer.seconds()});
    stage_timer.reset();
    // Like the one-process progress: a line per stage once the run has taken a second.
    if (!d.quiet && me == 0 && total.seconds() > 1.0)
      std::fprintf(stderr, "isocheck: [%d ranks] %s done (%.2f s)\n", P, name, times.back().second);
  }

  // Checkpoint: fingerprint of the input (rank 0 hashes the bytes).
  void resume_from_checkpoint() {
    collective([&] {
      if (d.checkpoint_dir.empty() || me != 0) return;
      Fingerprint fp = fingerprint_file(file);
      header = header_line(fp, d.options_text);
      have_ck = load_checkpoint(d.checkpoint_dir, fp, d.options_text, ck);
    });
    {
      int flag = have_ck;
      MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
      have_ck = flag;
      std::string bytes = me == 0 && have_ck ? to_bytes(ck) : std::string();
      if (have_ck) {
        bcast_string(bytes, 0);
        if (me != 0) from_bytes(bytes, ck);
      }
    }
    run.resumed = have_ck;
    if (have_ck && !d.quiet && me == 0)
      std::fprintf(stderr, "isocheck: resuming from checkpoint %s (stage %d, %zu pieces done)\n",
                   checkpoint_path(d.checkpoint_dir).c_str(), ck.stage, ck.results.size());
  }
  void save(int32_t stage) {
    if (d.checkpoint_dir.empty() || me != 0) return;
    ck.stage = std::max(ck.stage, stage);
    write_checkpoint(d.checkpoint_dir, header, ck);
  }

  // The levels checked on pieces split by component; SSER (`wants_sser`)
  // runs on the whole history.
  std::vector<Level> split_levels(bool& wants_sser) const {
    std::vector<Level> split;
    wants_sser = false;
    for (Level l : opt.levels) (l == Level::sser ? wants_sser = true : (split.push_back(l), false));
    return split;
  }

  // The partition: the checkpoint's when it has one, else made by `make`
  // and checkpointed.
  template <class Make> Partition partition_or_resume(Make&& make) {
    if (have_ck && ck.has_partition) return ck.partition.to();
    Partition part = make();
    ck.partition = PartitionMsg::from(part);
    ck.has_partition = true;
    collective([&] { save(stage_partition); });
    return part;
  }

  // The pieces solved (run_work_queue), each result checkpointed, at most
  // every 2 s while solving. True when a signal stopped the run: then the
  // checkpoint is written and the run marked interrupted.
  bool solve_stopped(const Job& job, Board& board, const std::function<PieceResult(uint32_t)>& solve = {},
                     const PieceMover* mover = nullptr) {
    Timer since_save;
    const bool stop_all = run_work_queue(
        job, board,
        [&](PieceResult&& r) {
          ck.results.push_back(r);
          board.add(std::move(r));
          if (!d.checkpoint_dir.empty() && since_save.seconds() > 2.0) {
            // On a worker thread: a failed save must not escape it; the next
            // save (the final one, or the one on a signal) reports the failure.
            try {
              save(stage_solve);
            } catch (const std::exception&) {
            }
            since_save.reset();
          }
        },
        solve, mover);
    if (!stop_all) return false;
    collective([&] { save(stage_solve); });
    if (me == 0 && !d.quiet)
      std::fprintf(stderr, "isocheck: stopped by a signal; checkpoint %s written (%zu of %u pieces done); run the same command again to resume\n",
                   d.checkpoint_dir.empty() ? "(none: no --checkpoint-dir)" : checkpoint_path(d.checkpoint_dir).c_str(),
                   ck.results.size(), job.pieces());
    run.interrupted = true;
    run.exit_code = kExitInterrupted;
    return true;
  }

  // Rank 0: the pieces' results merged (a piece's error before the cutoff is
  // the run's error) and the final checkpoint; the exit code.
  int merge_on_root(const Job& job, const Board& board, uint64_t txns, uint64_t committed) {
    uint32_t cutoff = board.cutoff();
    for (auto& [i, r] : board.done)
      if (r.error_code && static_cast<uint32_t>(i) < cutoff) {
        if (r.error_code == 2) throw InputError(file, r.error);
        throw ResourceError(r.error);
      }
    run.r = merge(job, board.done, cutoff, txns, committed);
    if (job.replay) merge_replays(board.done, cutoff, job.whole_piece(), opt, *job.replay, run.r);
    ck.stage = stage_done;
    save(stage_done);
    return exit_code(run.r);
  }

  // Rank 0's exit code, the run's on every rank.
  void agree_exit_code(int code) {
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    run.exit_code = code;
  }

  // --stage-times: the stages' times, the sizes and every rank's peak memory.
  void write_times(size_t components, uint32_t pieces) {
    if (d.stage_times.empty()) return;
    long rss = peak_rss_kib();
    std::vector<long> all(P);
    MPI_Gather(&rss, 1, MPI_LONG, all.data(), 1, MPI_LONG, 0, MPI_COMM_WORLD);
    uint64_t held = ops_held_peak();
    std::vector<uint64_t> all_held(P);
    MPI_Gather(&held, 1, MPI_UINT64_T, all_held.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    // Every rank's step times ("name=seconds;" text), for "rank_steps".
    std::vector<char> steps_text;
    for (const auto& [name, sec] : steps_noted()) {
      const std::string one = name + "=" + std::to_string(sec) + ";";
      steps_text.insert(steps_text.end(), one.begin(), one.end());
    }
    std::vector<uint64_t> steps_at;
    const std::vector<char> all_steps = gather_records(steps_text, 0, &steps_at);
    collective([&] {
      if (me != 0) return;
      std::ostringstream out;
      out << "{\"ranks\":" << P << ",\"txns\":" << sizes[0] << ",\"ops\":" << sizes[1]
          << ",\"components\":" << components << ",\"pieces\":" << pieces
          << ",\"key_shards\":" << (run.key_sharded ? "true" : "false");
      if (run.key_sharded)  // the distributed acyclicity test (dist_acyclic.h)
        out << ",\"peel_supersteps\":" << ks.supersteps << ",\"cross_edges\":" << ks.cross_edges
            << ",\"gathered\":" << (ks.gathered ? "true" : "false");
      if (largest_piece_ops >= 0) out << ",\"largest_piece_ops\":" << largest_piece_ops;
      if (stolen_pieces >= 0) out << ",\"stolen_pieces\":" << stolen_pieces;
      out << ",\"stages\":{";
      for (size_t i = 0; i < times.size(); ++i) out << (i ? "," : "") << "\"" << times[i].first << "\":" << times[i].second;
      out << "},\"total_s\":" << total.seconds() << ",\"peak_rss_kib\":[";
      for (int r = 0; r < P; ++r) out << (r ? "," : "") << all[r];
      // The most operations each rank held at once (mpi/accounting.h).
      out << "],\"ops_held\":[";
      for (int r = 0; r < P; ++r) out << (r ? "," : "") << all_held[r];
      // Each step's seconds per rank, 0 where a rank did not note it.
      std::vector<std::string> names;
      std::vector<std::vector<double>> secs;
      for (int r = 0; r < P; ++r) {
        std::istringstream in(std::string(all_steps.begin() + steps_at[r], all_steps.begin() + steps_at[r + 1]));
        for (std::string item; std::getline(in, item, ';');) {
          const size_t eq = item.find('=');
          const std::string name = item.substr(0, eq);
          size_t i = std::find(names.begin(), names.end(), name) - names.begin();
          if (i == names.size()) names.push_back(name), secs.emplace_back(P, 0.0);
          secs[i][r] = std::stod(item.substr(eq + 1));
        }
      }
      out << "],\"rank_steps\":{";
      for (size_t i = 0; i < names.size(); ++i) {
        out << (i ? "," : "") << "\"" << names[i] << "\":[";
        for (int r = 0; r < P; ++r) out << (r ? "," : "") << secs[i][r];
        out << "]";
      }
      out << "}}\n";
      write_file_atomically(d.stage_times, "--stage-times", out.str());
    });
  }

  // Components on owned data (mpi/owned.h): no rank holds the whole history.
  void run_on_owned_data() {
    std::unique_ptr<RangeSource> src;
    // Read on rank 0 and scattered in consecutive ranges; rank 0's copy is
    // freed before anything else is built.
    auto read_on_rank0 = [&] {
      src.reset();
      History whole;
      collective([&] {
        if (me == 0) whole = load_on_ranks(file, f, &run.import);
        note_ops_held(whole.op_count());
      });
      src = scattered_source(std::move(whole), 0);
      src->file = file;  // (for its messages)
    };
    if (f == Format::hdf5) collective([&] { src = hdf5_source(file); });
    else if (f == Format::jsonl) {
      src = jsonl_source(file);
      if (src->states_predicates) read_on_rank0();  // expanded over the whole file
    } else {
      read_on_rank0();
    }
    if (!have_ck) collective([&] { save(stage_read); });
    end_stage("read");

    // ---- partition: sessions, rows and the included set from a first pass
    g_stage = ("partition");
    StepTime scan_time("partition.scan");
    OwnedScan scan = scan_owned(*src);
    scan_time.stop();
    if (scan.named && f == Format::jsonl && !src->states_predicates) {
      // JSONL with string keys or values: symbols are numbered by first
      // appearance in the whole file, which ranges parsed apart cannot give:
      // the ranks number them together, then read their ranges again.
      StepTime names_time("partition.names");
      if (number_names(*src, scan.named)) {
        src->names = names.get();
        names_time.stop();
        scan = scan_owned(*src);
      }
    }
    if (scan.named) {
      // (With list operations besides: read on rank 0.)
      names.reset();
      read_on_rank0();
      scan = scan_owned(*src);
    }
    sizes[0] = scan.txns, sizes[1] = scan.ops;
    bool wants_sser = false;
    const std::vector<Level> split = split_levels(wants_sser);
    StepTime blocks_time("partition.blocks");
    Partition part = partition_or_resume([&] { return partition_from_triples(std::move(scan.triples), scan.sessions); });
    blocks_time.stop();
    std::vector<KeyTriple>().swap(scan.triples);
    end_stage("partition");
    test_hold("ISOCHECK_TEST_HOLD_AFTER_PARTITION");

    // ---- distribute: pieces assigned largest-first, each piece's
    // operations sent once to the rank that solves it
    g_stage = ("distribute");
    const History none;
    const std::vector<uint8_t> no_included;
    const SessionTxns no_index;
    Job job{none, part, no_included, no_index, opt, wants_sser, split, part.comp_sessions.size() <= 1};
    job.replay = &scan.replay;
    const uint32_t np = job.pieces(), base = wants_sser ? 1 : 0;
    std::vector<uint64_t> weight(np);
    for (uint32_t i = 0; i < np; ++i) {
      const bool whole = (wants_sser && i == 0) || job.whole_split;
      weight[i] = whole ? scan.ops : part.comp_ops[i - base];
    }
    largest_piece_ops = static_cast<int64_t>(np ? *std::max_element(weight.begin(), weight.end()) : 0);
    Board board{job, d.all_violations, {}, 0};
    board.owner = assign_largest_first(weight, P);
    board.weight = weight;
    std::vector<uint8_t> skip(np, 0);
    for (auto& r : ck.results) board.add(r), skip[static_cast<uint32_t>(r.piece)] = 1;
    OwnedPieces pieces;
    pieces.distribute(*src, job, part, scan.included, board.owner, skip);
    ck.partition.comp_txns = part.comp_txns;
    src->release();
    std::vector<uint8_t>().swap(scan.included);
    // --history-budget: what this rank holds (its pieces, one of them decoded at a time).
    collective([&] {
      const uint64_t held = pieces.bytes() + pieces.largest_bytes();
      if (d.history_budget && held > d.history_budget)
        throw ResourceError("rank " + std::to_string(me) + " holds " + std::to_string(held >> 20) +
                            " MiB of the history (the pieces it solves) and --history-budget is " +
                            std::to_string(d.history_budget >> 20) + " MiB; raise --history-budget or run more ranks");
    });
    end_stage("distribute");

    // ---- solve: every rank its own pieces, in piece order
    g_stage = ("solve");
    PieceMover mover;
    mover.send = [&](uint32_t i, int to) { pieces.send_piece(i, to); };
    mover.finish = [&] { pieces.finish_sends(); };
    mover.recv = [&](uint32_t i, int from) { pieces.recv_piece(i, from); };
    auto solve_one = [&](uint32_t i) {
      StepTime piece_time("solve.pieces");
      return pieces.solve(job, i);
    };
    if (solve_stopped(job, board, solve_one, &mover)) return;
    pieces.clear();
    stolen_pieces = static_cast<int64_t>(board.stolen);
    end_stage("solve");

    // ---- merge and report (rank 0). Only a witness or an anomaly names
    // transactions and operations: then those transactions are read again by
    // the ranks holding them and gathered on rank 0, after every piece is
    // freed (a history scattered from rank 0 is read there whole again).
    g_stage = ("report");
    int code = 0;
    std::vector<TxnIdx> named;
    collective([&] {
      if (me != 0) return;
      code = merge_on_root(job, board, scan.txns, scan.committed);
      named = named_transactions(run.r);
    });
    bcast_vec(named, 0);
    if (!named.empty() && src->can_fetch()) {
      History part = fetch_transactions(*src, named);
      if (me == 0) {
        run.report_h = std::move(part);
        run.report_r = renumber_result(run.r, named);
        run.compact_report = true;
      }
      if (names) collective([&] { names->name_report(me == 0, run.report_h, run.report_r); });
      collective([&] {
        if (me != 0 || !report_needs_whole(run.report_r, run.report_h)) return;
        run.compact_report = false;
        run.h = load_history(file, f, &run.import), note_ops_held(run.h.op_count());
      });
    } else if (!named.empty()) {
      collective([&] {
        if (me == 0) run.h = load_history(file, f, &run.import), note_ops_held(run.h.op_count());
      });
    }
    src.reset();
    agree_exit_code(code);
    end_stage("merge");
    write_times(part.comp_sessions.size(), job.pieces());
    return;
  }

  // ---- read, replicated: every rank the whole history, or (key shards)
  // its own transaction range, read by range (HDF5) or scattered from rank 0.
  void read_replicated_or_ranges() {
    if (f == Format::hdf5) {
      ranges = use_key_shards && P > 1;  // one rank holds everything anyway
      collective([&] {
        uint64_t n = hdf5_txn_count(file);
        range_lo = n * me / P, range_hi = n * (me + 1) / P;
        if (!ranges) mine = read_hdf5_range(file, range_lo, range_hi);
      });
      // With key shards rank 0 reads the whole history only when it needs it:
      // for the gather (a level fails) or, after the shards, for the report.
      if (!ranges) {
        collective([&] {
          h = allgather_ranges(std::move(mine));
        });
      }
    } else if (f == Format::jsonl && use_key_shards && P > 1 && !(jsonl = jsonl_source(file))->states_predicates) {
      // JSONL: every rank takes the lines starting in its share of the bytes,
      // as on owned data; the shards read them slice by slice. (Scans,
      // inserts and deletes are expanded over the whole file: rank 0.)
      ranges = true;
      range_lo = jsonl->first, range_hi = jsonl->last;
    } else {
      jsonl.reset();
      read_on_rank0_and_scatter();
    }
    note_ops_held(h.op_count() + mine.op_count());
    note_history_size();
    if (!ranges) check_history_budget();
    if (!have_ck) collective([&] { save(stage_read); });
    end_stage("read");
    whole_loaded = !ranges || scattered;
  }

  // The history's size, for --stage-times (rank 0 may not hold it): the
  // ranges summed, or the whole history every rank holds. (Ranges read in
  // slices by the key shards hold nothing yet: their outcome gives it.)
  void note_history_size() {
    sizes[0] = ranges ? mine.txn_count() : h.txn_count(), sizes[1] = ranges ? mine.op_count() : h.op_count();
    if (ranges) MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }

  // Rank 0 reads the whole file (JSONL, imported formats) unless it holds it.
  void load_on_rank0() {
    collective([&] {
      if (me == 0 && !whole_loaded) h = load_on_ranks(file, f, &run.import);
    });
    whole_loaded = true;
  }

  // JSONL and imported formats: read on rank 0. Key shards: the history is
  // scattered in transaction ranges, as if each rank had read its own (lists
  // are exchanged only replicated: broadcast them).
  void read_on_rank0_and_scatter() {
    load_on_rank0();
    int lists = 0;
    if (me == 0)
      for (OpKind k : h.op_kind) lists |= k == OpKind::append || k == OpKind::read_list;
    MPI_Bcast(&lists, 1, MPI_INT, 0, MPI_COMM_WORLD);
    scattered = use_key_shards && P > 1 && !lists;
    ranges = scattered;
    if (scattered) collective([&] { mine = scatter_ranges(h, 0); });
    else bcast_history(h, 0);
  }

  // Every rank holds the whole history from here on (except with per-rank
  // key shards, until they refuse): within --history-budget or exit 3.
  void check_history_budget() {
    collective([&] {
      if (d.history_budget && h.resident_bytes() > d.history_budget)
        throw ResourceError("every rank holds the whole history (" + std::to_string(h.resident_bytes() >> 20) +
                            " MiB) and --history-budget is " + std::to_string(d.history_budget >> 20) +
                            " MiB; raise --history-budget or run fewer ranks per node");
    });
  }

  // Rank 0 with per-rank HDF5 reads: the whole history, read once when needed
  // (after the shards' data is freed, so never next to it).
  void load_whole() {
    if (me != 0 || whole_loaded) return;
    h = load_history(file, f, &run.import);
    whole_loaded = true;
    note_ops_held(h.op_count());
  }

  // Key shards (mpi/key_shards.h): the whole history decided on key shards,
  // from the replicated history or (`ranges`) from the per-rank reads. True
  // when they decided; refused: a note says why (`note`), the caller goes on.
  bool run_key_shards(bool from_ranges, bool note) {
    g_stage = "key shards";
    KeyShardOptions ko;
    ko.history_budget = d.history_budget;
    ko.end_stage = [&](const char* name) { end_stage(name); };
    ko.whole_on_demand = [&]() -> const History* {
      load_whole();
      return &h;
    };
    ko.stop = [&] {
      // Test hook (tests/dist/key_shards_preempt.sh): hold after the shard
      // stage until a signal arrives, so a test can stop the job there.
      static bool held = false;
      if (!held) held = true, test_hold("ISOCHECK_TEST_HOLD_AFTER_SHARD");
      int stop = g_terminate ? 1 : 0;
      MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      return stop != 0;
    };
    collective([&] {
      if (from_ranges && jsonl) {
        ko.duplicate_id = [&](int64_t id, uint64_t a, uint64_t b) { jsonl->duplicate_id(id, a, b); };
        ko.names = names.get();
        ks = check_key_sharded_read(range_hi - range_lo, [&](uint64_t lo, uint64_t hi) {
          return jsonl->chunk(range_lo + lo, range_lo + hi);
        }, opt, ko);
        sizes[0] = ks.txns, sizes[1] = ks.ops;
      } else if (from_ranges && !scattered) {
        Hdf5RangeReader reader(file);
        ko.symbol_tables = [&](History& x) { reader.take_tables(x.keys, x.values); };
        ko.duplicate_id = [&](int64_t id, uint64_t a, uint64_t b) { throw_hdf5_duplicate_id(file, id, a, b); };
        ks = check_key_sharded_read(range_hi - range_lo, [&](uint64_t lo, uint64_t hi) {
          return reader.range(range_lo + lo, range_lo + hi);
        }, opt, ko);
        sizes[0] = ks.txns, sizes[1] = ks.ops;
      } else {
        // (JSONL scattered: rank 0 read the whole history, and keeps it)
        ks = from_ranges ? check_key_sharded_ranges(mine, me == 0 && scattered ? &h : nullptr, opt, ko)
                         : check_key_sharded(h, opt, ko);
      }
    });
    if (ks.interrupted) {
      if (me == 0 && !d.quiet)
        std::fprintf(stderr, "isocheck: stopped by a signal during key shards; %s; run the same command again to rerun them\n",
                     d.checkpoint_dir.empty() ? "no --checkpoint-dir" : ("checkpoint " + checkpoint_path(d.checkpoint_dir) + " (read stage) kept").c_str());
      run.key_sharded = true;
      run.interrupted = true;
      run.exit_code = kExitInterrupted;
      return true;
    }
    if (ks.refused) {
      if (note && me == 0 && !d.quiet)
        std::fprintf(stderr, "isocheck: key shards not used: %s; checking the usual way\n", ks.why.c_str());
      return false;
    }
    run.key_sharded = true;
    // Rank 0, for the report: only a witness or an anomaly names operations
    // (a report of levels that hold needs the counts alone, in ks.r.stats);
    // those come with the gather, which read it already.
    bool names_ops = !ks.r.anomalies.empty();
    for (const LevelResult& lr : ks.r.levels) names_ops |= lr.witness.has_value();
    // Without the whole history, the key shards fetched the transactions
    // the result names (ks.report_h, with the result renumbered to them).
    collective([&] {
      if (from_ranges && names_ops && !ks.has_report) load_whole();
    });
    // Names numbered across ranks: the report's fetched from the ranks holding them.
    if (names) collective([&] { names->name_report(ks.has_report, ks.report_h, ks.report_r); });
    agree_exit_code(me == 0 ? exit_code(ks.r) : 0);
    if (me == 0) run.r = std::move(ks.has_report ? ks.report_r : ks.r);
    write_times(1, 1);
    if (me == 0) run.h = std::move(ks.has_report ? ks.report_h : h);
    return true;
  }

  // JSONL read by ranges with string keys or values (ks.named_tables: the
  // tables the refused slices had names in): the names numbered across ranks
  // as one process numbers them (mpi/range_names.h). False (names null) when
  // the file holds list operations: the caller reads it on rank 0.
  bool number_names() {
    g_stage = "key shards";
    StepTime names_time("shard.names");
    return number_names(*jsonl, ks.named_tables);
  }
  // The same for any JSONL source (`tables`: those known to hold names).
  bool number_names(RangeSource& src, int tables) {
    names = std::make_unique<RangeNames>();
    int found = 0;
    for (;;) {  // (a table with names only past the refused slices: once more with it)
      collective([&] {
        found = names->number(src.last - src.first, [&](uint64_t lo, uint64_t hi) {
          return src.chunk(src.first + lo, src.first + hi);
        }, tables);
      });
      if (found == RangeNames::kLists) {
        names.reset();
        return false;
      }
      if ((found & ~tables) == 0) return true;
      tables |= found;
    }
  }

  // Key shards, from the ranges first, then on the replicated history;
  // true when they decided (or were interrupted): the run is over.
  bool decided_by_key_shards() {
    if (ranges) {
      // Key shards from the per-rank reads: operations exchanged by key. Lists
      // are refused there but can run on the replicated history (no note yet).
      if (run_key_shards(true, false)) return true;
      // String keys or values: numbered by first appearance in the whole
      // file, which slices parsed apart cannot give: the ranks number them
      // together (a first read of the ranges), then read again.
      if (jsonl && ks.why == kNamedSymbolsRefused && number_names() && run_key_shards(true, false)) return true;
      names.reset();
      if (jsonl && ks.why == kNamedSymbolsRefused) {
        // Lists with them: rank 0 reads the file and scatters it, as for the
        // other formats (no note: nothing the user asked for is left out).
        jsonl.reset();
        read_on_rank0_and_scatter();
        note_history_size();
        if (!ranges) {  // lists: every rank holds the history now
          check_history_budget();
          return use_key_shards && run_key_shards(false, true);
        }
        if (run_key_shards(true, false)) return true;
      }
      const bool lists = ks.why.rfind("list operations", 0) == 0;
      if (!lists && me == 0 && !d.quiet)
        std::fprintf(stderr, "isocheck: key shards not used: %s; checking the usual way\n", ks.why.c_str());
      if (!lists) use_key_shards = false;
      // Every rank takes the whole history, as without key shards.
      if (scattered) {
        mine = History();
        bcast_history(h, 0);
      } else if (jsonl) {
        jsonl.reset();
        load_on_rank0();
        bcast_history(h, 0);
      } else {
        collective([&] {
          if (mine.txn_count() == 0) {  // the key shards freed the range (or it is empty): read it again
            uint64_t n = hdf5_txn_count(file);
            mine = read_hdf5_range(file, n * me / P, n * (me + 1) / P);
          }
          h = allgather_ranges(std::move(mine));
        });
      }
      sizes[0] = h.txn_count(), sizes[1] = h.op_count();  // (every rank holds it now)
      check_history_budget();
    }
    if (use_key_shards && run_key_shards(false, true)) return true;
    return false;
  }

  // Neither owned data nor key shards: the replicated history's components.
  void partition_solve_and_merge() {
    // ---- partition
    g_stage = ("partition");
    // A key used as a register and as a list: one process's check refuses the
    // history there; a piece might not hold that operation.
    collective([&] {
      if (me != 0) return;
      if (const OpIdx o = first_list_key_misuse(h); o != kNoOp) {
        const TxnIdx t = h.txn_of_op(o);
        throw InputError(file, list_key_misuse(h.txn_id[t], o - h.op_begin(t), h.keys.text(h.op_key[o]),
                                               h.op_kind[o] == OpKind::write).what());
      }
    });
    bool wants_sser = false;
    const std::vector<Level> split = split_levels(wants_sser);
    Partition part = partition_or_resume([&] {
      Partition p;
      collective([&] { p = sharded_partition(h); });
      return p;
    });
    end_stage("partition");
    std::vector<uint8_t> included = included_transactions(h);
    SessionTxns index = session_txns(h);
    const ReplayFacts facts = replay_facts(h, included);

    // Test hook (tests/cli/dist_checkpoint.sh): hold after the partition
    // checkpoint until a signal arrives, so that a test can kill the job at a
    // known point without sleeping.
    test_hold("ISOCHECK_TEST_HOLD_AFTER_PARTITION");

    // ---- solve
    g_stage = ("solve");
    Job job{h, part, included, index, opt, wants_sser, split, part.comp_sessions.size() <= 1};
    job.replay = &facts;
    Board board{job, d.all_violations, {}, 0};
    for (auto& r : ck.results) board.add(r);
    if (solve_stopped(job, board)) return;
    end_stage("solve");

    // ---- merge and report
    g_stage = ("report");
    int code = 0;
    collective([&] {
      if (me == 0)
        code = merge_on_root(job, board, h.txn_count(),
                             static_cast<uint64_t>(std::count(included.begin(), included.end(), 1)));
    });
    agree_exit_code(code);
    end_stage("merge");
    write_times(part.comp_sessions.size(), job.pieces());
    if (me == 0) run.h = std::move(h);
  }
};

}  // namespace

DistRun run_distributed(const std::string& file, Format f, const CheckOptions& opt, const DistOptions& d) {
  init();
  install_term_handler();
  return DistributedRun(file, f, opt, d).execute();
}

}  // namespace isocheck::dist
