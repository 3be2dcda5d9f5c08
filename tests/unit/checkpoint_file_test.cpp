// Checkpoints cannot lie: every one-byte change and every truncation of a
// real checkpoint (verify's distributed driver, the audit) is refused as
// damaged before its content is used. And the file-writing helper every
// output goes through: temporary file + rename, write errors reported with
// the right exit class, outputs that are the input found by identity.
#include "io/checkpoint_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "audit/state.h"
#include "core/errors.h"
#include "io/output_file.h"

namespace isocheck {
namespace {

namespace fs = std::filesystem;

std::string scratch(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) / ("isocheck_ckpt_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& bytes) {
  ::unlink(path.c_str());  // a new file: truncating one makes ext4 flush it on close (slow)
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good());
}

int run(const std::string& cmd) {
  int rc = std::system((cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

const std::string kExample = std::string(ISOCHECK_SOURCE_DIR) + "/examples/g2_item_write_skew.jsonl";

// Calls `load` on every variant of `good` with one byte set to each of three
// other values, and on every truncation; each must throw DamagedCheckpoint
// naming the file (never load, crash or hang: the loop runs in-process).
template <class Load> void every_variant_refused(const std::string& good, const std::string& path, Load load) {
  size_t refused = 0, variants = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    unsigned char b = static_cast<unsigned char>(good[i]);
    for (unsigned char v : {static_cast<unsigned char>(b + 1), static_cast<unsigned char>(b ^ 0x80),
                            static_cast<unsigned char>(~b)}) {
      std::string bad = good;
      bad[i] = static_cast<char>(v);
      spit(path, bad);
      ++variants;
      try {
        load();
        ADD_FAILURE() << "byte " << i << " set to " << int(v) << " (was " << int(b) << ") was accepted";
      } catch (const DamagedCheckpoint& e) {
        EXPECT_EQ(std::string(e.what()).rfind("damaged checkpoint " + path + ": ", 0), 0u) << e.what();
        ++refused;
      }
    }
  }
  for (size_t n = 0; n < good.size(); ++n) {
    spit(path, good.substr(0, n));
    ++variants;
    EXPECT_THROW(load(), DamagedCheckpoint) << "truncated to " << n << " bytes";
  }
  spit(path, good + "x");  // a byte appended
  EXPECT_THROW(load(), DamagedCheckpoint);
  EXPECT_EQ(refused, 3 * good.size());
  EXPECT_GE(variants, 4 * good.size());
}

TEST(CheckpointFile, RoundTripAndKind) {
  std::string dir = scratch("roundtrip"), path = dir + "/c.ckpt";
  EXPECT_FALSE(read_checkpoint_file(path, "verify", "x").has_value());  // absent: no checkpoint
  std::string payload("some\0binary\npayload", 19);
  write_checkpoint_file(path, "verify", payload, "--checkpoint-dir");
  auto got = read_checkpoint_file(path, "verify", "x");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, payload);
  try {
    read_checkpoint_file(path, "audit", "start without --requeue");
    FAIL() << "a verify checkpoint read as an audit one";
  } catch (const DamagedCheckpoint& e) {
    EXPECT_EQ(std::string(e.what()), "damaged checkpoint " + path +
                                         ": a checkpoint of verify, not of audit, remove it or start without --requeue");
  }
  // Nothing but the checkpoint is left in the directory (no temporary files).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

// The checkpoint the distributed driver writes for the write-skew example:
// every damaged variant is refused by the reader the driver calls first.
TEST(CheckpointFile, EveryByteOfAVerifyCheckpointIsChecked) {
  std::string dir = scratch("verify");
  ASSERT_EQ(run(std::string(ISOCHECK_BINARY) + " verify -q " + kExample + " --checkpoint-dir " + dir), 1);
  std::string path = dir + "/isocheck.ckpt", good = slurp(path);
  ASSERT_GT(good.size(), 100u);
  ASSERT_TRUE(read_checkpoint_file(path, "verify", "x").has_value());
  every_variant_refused(good, path, [&] { read_checkpoint_file(path, "verify", "use another --checkpoint-dir"); });
}

// The audit's checkpoint after its first round, loaded the way a --requeue
// run loads it (state decoded only after the checksum held).
TEST(CheckpointFile, EveryByteOfAnAuditCheckpointIsChecked) {
  std::string dir = scratch("audit");
  ASSERT_EQ(run(std::string(ISOCHECK_BINARY) + " audit -q " + kExample + " --round 1 --stop-after-rounds 1 --checkpoint-dir " + dir),
            75);
  std::string path = dir + "/g2_item_write_skew.jsonl.ckpt", good = slurp(path);
  ASSERT_GT(good.size(), 100u);
  AuditState s;
  ASSERT_TRUE(load_checkpoint(s, path));
  EXPECT_EQ(s.next_round, 1u);
  every_variant_refused(good, path, [&] {
    AuditState t;
    load_checkpoint(t, path);
  });
  // And the damaged file is refused by the command too: exit 2, not a verdict.
  spit(path, good.substr(0, good.size() / 2));
  EXPECT_EQ(run(std::string(ISOCHECK_BINARY) + " audit -q " + kExample + " --round 1 --requeue --checkpoint-dir " + dir), 2);
  spit(path, good);
  EXPECT_EQ(run(std::string(ISOCHECK_BINARY) + " audit -q " + kExample + " --round 1 --requeue --checkpoint-dir " + dir), 1);
}

TEST(OutputFile, WriteErrorsHaveTheirExitClass) {
  // A full disk is a resource limit (exit 3), for reports and checkpoints alike.
  EXPECT_THROW(write_file_atomically("/dev/full", "--dot", "x"), ResourceError);
  EXPECT_THROW(write_checkpoint_file("/dev/full", "verify", "x", "--checkpoint-dir"), ResourceError);
  // A missing directory is a usage error (exit 2).
  EXPECT_THROW(write_file_atomically("/nonexistent-isocheck/x.dot", "--dot", "x"), UsageError);
  EXPECT_THROW(write_checkpoint_file("/nonexistent-isocheck/c.ckpt", "audit", "x", "--checkpoint-dir"), UsageError);
  EXPECT_THROW(check_output_file("/nonexistent-isocheck/x.dot", "--dot"), UsageError);
  std::string dir = scratch("classes");
  EXPECT_THROW(check_output_file(dir, "--dot"), UsageError);  // a directory
  spit(dir + "/file", "x");
  EXPECT_THROW(check_output_dir(dir + "/file", "--checkpoint-dir"), UsageError);
  EXPECT_THROW(check_output_dir(dir + "/file/sub", "--out"), UsageError);
  EXPECT_THROW(check_output_file(dir + "/file/x.dot", "--dot"), UsageError);
  check_output_dir(dir + "/new/sub", "--out");  // created
  EXPECT_TRUE(fs::is_directory(dir + "/new/sub"));
}

TEST(OutputFile, AtomicReplaceKeepsTheOldFileUntilCommit) {
  std::string dir = scratch("atomic"), dest = dir + "/out.txt";
  spit(dest, "old");
  ::chmod(dest.c_str(), 0640);
  {
    AtomicOutput out(dest, "--out");
    out.write("new, half");
    EXPECT_EQ(slurp(dest), "old");
  }  // abandoned: the destination is untouched, the temporary file gone
  EXPECT_EQ(slurp(dest), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  write_file_atomically(dest, "--out", "new");
  EXPECT_EQ(slurp(dest), "new");
  EXPECT_EQ(fs::status(dest).permissions() & fs::perms::all, fs::perms(0640));  // kept
  // Through a symlink: the target is replaced, the link kept.
  fs::create_symlink("out.txt", dir + "/link.txt");
  write_file_atomically(dir + "/link.txt", "--out", "via link");
  EXPECT_TRUE(fs::is_symlink(dir + "/link.txt"));
  EXPECT_EQ(slurp(dest), "via link");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
}

TEST(OutputFile, AnOutputThatIsTheInputIsRefusedByIdentity) {
  std::string dir = scratch("identity"), in = dir + "/in.jsonl";
  spit(in, "{}\n");
  fs::create_symlink("in.jsonl", dir + "/sym.jsonl");
  fs::create_hard_link(in, dir + "/hard.jsonl");
  for (const char* name : {"/in.jsonl", "/sym.jsonl", "/hard.jsonl", "/./in.jsonl"})
    EXPECT_THROW(check_output_file(dir + name, "convert output", {in}), UsageError) << name;
  check_output_file(dir + "/other.jsonl", "convert output", {in});  // a new file is fine
  spit(dir + "/copy.jsonl", "{}\n");
  check_output_file(dir + "/copy.jsonl", "convert output", {in});  // an equal copy is another file
  EXPECT_EQ(slurp(in), "{}\n");
}

}  // namespace
}  // namespace isocheck
