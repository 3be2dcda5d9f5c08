#include <memory>

#include "cli/check_options.h"
#include "cli/commands.h"
#include "cli/limit_options.h"
#include "core/errors.h"
#include "io/jsonl.h"
#include "io/load.h"
#include "io/output_file.h"
#include "io/sink.h"
#include "io/txn_reader.h"

namespace isocheck {

void add_convert_command(CLI::App& app, int& exit_code) {
  struct Args { std::string in, out, to = "auto", format = "auto"; LimitArgs limits; };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("convert", "Convert a history between formats (lossless)");
  c->add_option("input", a->in, "History to read")->required();
  c->add_option("output", a->out, "File to write")->required();
  c->add_option("--to", a->to, "Output format: auto (by extension), jsonl, hdf5");
  c->add_option("--format", a->format, "Input format: auto (extension, then content) or one of: " + format_names())
      ->check(input_format_check());
  add_limit_options(c, a->limits);
  c->callback([a, &exit_code] {
    apply_limits(a->limits, "convert");
    Format in = input_format(a->format), out;
    out = a->to == "auto" ? format_from_extension(a->out) : parse_format_name(a->to);
    if (out != Format::jsonl && out != Format::hdf5)
      throw UsageError("cannot tell the output format of " + a->out + " (use --to jsonl or --to hdf5)");
    // Before anything is read or written: the output is never the input.
    check_output_file(a->out, "convert output", {a->in});
    if (in == Format::unknown) in = sniff_format(a->in);
    const bool whole = in == Format::jsonl && jsonl_may_hold_predicates(a->in);  // scans are expanded whole
    if (!whole && in != Format::hdf5 && in != Format::unknown) {
      // Streamed: a piece at a time into the sink (src/io/txn_reader.h reads
      // every text and imported format that way).
      auto r = open_txn_reader(a->in, in);
      copy_pieces(*r, a->in, 1 << 18, [&](const std::string& unit) { return open_sink(a->out, out, unit); });
      print_import_notes(r->stats());
      exit_code = 0;
      return;
    }
    ImportStats st;
    History h = load_history(a->in, in, &st);
    // What the expanded operations cannot state (the scans' own spelling is
    // not written back): refused, never written as something else.
    if (out == Format::jsonl && !h.absent_choice_ops.empty())
      throw InputError(a->in, "range scans here saw a row absent that another transaction deletes, or did not return "
                              "a row whose versions their value predicate does not all match, or inserts required "
                              "absent a row another transaction deletes; which version they saw is open, and JSONL's "
                              "point reads cannot state that (a read of null is the initial state): keep this file as "
                              "it is, or convert it to HDF5 (marks 4, 5 and 6 of /op/scan)");
    print_import_notes(st);
    auto sink = open_sink(a->out, out, h.time_unit);
    sink->append(h);
    sink->finish();
    exit_code = 0;
  });
}

}  // namespace isocheck
