// Resource limits: check_limits() reports resident memory and time past the
// limits as ResourceError (exit 3), and a reader that runs out of memory says
// so (std::bad_alloc, exit 3) instead of calling the file unreadable (exit 2).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/errors.h"
#include "io/import_common.h"
#include "io/jsonl.h"
#include "core/limits.h"

namespace isocheck {
namespace {

TEST(Limits, ResidentMemoryIsMeasured) {
  const uint64_t r = private_resident_bytes();
  EXPECT_GT(r, 64u << 10);  // a running C++ program holds more than 64 KiB of its own
  std::string big(64u << 20, 'x');  // 64 MiB touched
  EXPECT_GE(private_resident_bytes(), r + (60u << 20));
}

// The settings in core/allocator.cpp reach the allocator of a binary that
// calls none of allocator.cpp's functions but links the core.
TEST(Allocator, RunsWithTheSettingsOfAllocatorCpp) {
  EXPECT_FALSE(allocator_text_setting("version").empty());
  EXPECT_EQ(allocator_size_setting("opt.oversize_threshold"), 0);
  EXPECT_EQ(allocator_ssize_setting("opt.dirty_decay_ms"), -1);
  EXPECT_FALSE(allocator_bool_setting("opt.retain"));  // jemalloc's default on Linux is true
  EXPECT_TRUE(allocator_bool_setting("opt.tcache"));  // (a setting left at its default, true)
  EXPECT_EQ(allocator_text_setting("no.such.setting"), "");
  EXPECT_EQ(allocator_size_setting("no.such.setting"), -1);
  EXPECT_EQ(allocator_ssize_setting("no.such.setting"), INT64_MIN);
}

// Freed memory the allocator keeps for reuse is not memory in use: a limit
// is judged on the resident size after it is handed back.
TEST(Limits, FreedMemoryDoesNotCountAgainstTheLimit) {
  const uint64_t before = resident_in_use_bytes();
  {
    std::vector<char> big(256u << 20);
    for (size_t i = 0; i < big.size(); i += 4096) big[i] = 1;
    EXPECT_GE(private_resident_bytes(), before + (250u << 20));
  }
  EXPECT_LT(resident_in_use_bytes(), before + (32u << 20));
  limits_detail::memory_limit.store(before + (128u << 20));
  EXPECT_NO_THROW(check_limits("check"));
  limits_detail::memory_limit.store(0);
}

TEST(Limits, CheckThrowsPastTheMemoryLimit) {
  limits_detail::memory_limit.store(1);
  try {
    check_limits("read");
    ADD_FAILURE() << "no ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("memory limit of 1 KiB reached during stage \"read\""), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("raise --memory-limit"), std::string::npos);
  }
  limits_detail::memory_limit.store(uint64_t{1} << 50);
  EXPECT_NO_THROW(check_limits("check"));
  limits_detail::memory_limit.store(0);
}

// A limit reached at a check point is reported by the code that catches it:
// the watchdog (which reports only while armed) must not print it a second
// time while that report is made (cli.failure_paths saw two lines for one
// error under mpiexec: the agreed one and rank 0's watchdog's).
TEST(Limits, ACheckThatThrowsDisarmsTheWatchdog) {
  limits_detail::memory_limit.store(uint64_t{1} << 50);
  check_limits("check");
  EXPECT_TRUE(limits_detail::armed.load());
  limits_detail::memory_limit.store(1);
  EXPECT_THROW(check_limits("read"), ResourceError);
  EXPECT_FALSE(limits_detail::armed.load());
  limits_detail::memory_limit.store(uint64_t{1} << 50);
  check_limits("check");  // a check that passes arms it again
  EXPECT_TRUE(limits_detail::armed.load());
  limits_detail::deadline_ns.store(limits_detail::now_ns() - 1);
  EXPECT_THROW(check_limits("solve"), ResourceError);
  EXPECT_FALSE(limits_detail::armed.load());
  limits_detail::deadline_ns.store(0);
  limits_detail::memory_limit.store(0);
}

TEST(Limits, CheckThrowsPastTheDeadline) {
  limits_detail::time_limit_s.store(0.5);
  limits_detail::deadline_ns.store(limits_detail::now_ns() - 1);
  try {
    check_limits("solve");
    ADD_FAILURE() << "no ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("time limit of 0.5s reached during stage \"solve\"; raise --time-limit"),
              std::string::npos)
        << e.what();
  }
  limits_detail::deadline_ns.store(0);
  EXPECT_NO_THROW(check_limits());
}

// In a child whose address space leaves 4 MiB beyond what it has mapped, a
// 16 MiB file cannot be held: the readers must throw std::bad_alloc (exit 3),
// not InputError "cannot read the file" (exit 2, as if the input were bad).
// Exit code of the child: 0 bad_alloc, 1 InputError, 2 read it, 3 other.
int read_under_tight_address_space(bool whole_file, const std::string& path) {
  long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  rlimit rl{};
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (4u << 20);
  if (pages == 0 || setrlimit(RLIMIT_AS, &rl) != 0) return 4;
  try {
    if (whole_file) (void)imp::read_whole_file(path);
    else (void)read_jsonl(path);
    return 2;
  } catch (const std::bad_alloc&) {
    return 0;
  } catch (const InputError&) {
    return 1;
  } catch (...) {
    return 3;
  }
}

std::string big_jsonl() {
  const std::string path = ::testing::TempDir() + "/limits_big.jsonl";
  std::ofstream out(path);
  const std::string line = R"({"id":1,"session":1,"status":"committed","ops":[["w","x",1]]})";
  for (size_t n = 0; n < (16u << 20); n += line.size() + 1) out << line << "\n";
  return path;
}

// The child must start afresh ("threadsafe": the test binary is run again for
// the one test): a forked child inherits the address space the allocator
// keeps from the tests before it, which the reader would reuse within the
// limit.
TEST(Limits, JsonlReaderOutOfMemoryIsNotBadInput) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = big_jsonl();
  EXPECT_EXIT(std::exit(read_under_tight_address_space(false, path)), ::testing::ExitedWithCode(0), "");
}

TEST(Limits, WholeFileReaderOutOfMemoryIsNotBadInput) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = big_jsonl();
  EXPECT_EXIT(std::exit(read_under_tight_address_space(true, path)), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace isocheck

namespace isocheck {
// The default memory limit: 90% of the machine's memory (or its control
// group's limit), shared by the job's processes on this machine, which the
// launchers name in their environment.
TEST(Limits, DefaultMemoryLimitIsAShareOfTheMachine) {
  EXPECT_EQ(default_memory_limit(10ULL << 30, 1), (10ULL << 30) / 10 * 9);
  EXPECT_EQ(default_memory_limit(10ULL << 30, 4), (10ULL << 30) / 10 * 9 / 4);
  EXPECT_EQ(default_memory_limit(0, 4), 0u);  // unknown machine: no default
  const uint64_t m = machine_memory_bytes();
  EXPECT_GT(m, 64ULL << 20);
  EXPECT_LE(m, static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE));
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE", "SLURM_STEP_TASKS_PER_NODE",
                        "SLURM_TASKS_PER_NODE", "SLURM_NODEID"})
    unsetenv(v);
  EXPECT_EQ(processes_on_this_machine(), 1u);
  setenv("SLURM_TASKS_PER_NODE", "4(x2),3,1", 1);
  setenv("SLURM_NODEID", "1", 1);
  EXPECT_EQ(processes_on_this_machine(), 4u);
  setenv("SLURM_NODEID", "2", 1);
  EXPECT_EQ(processes_on_this_machine(), 3u);
  setenv("SLURM_NODEID", "3", 1);
  EXPECT_EQ(processes_on_this_machine(), 1u);
  setenv("SLURM_NODEID", "4", 1);  // past the list: not said
  EXPECT_EQ(processes_on_this_machine(), 1u);
  setenv("SLURM_NODEID", "0", 1);
  setenv("SLURM_STEP_TASKS_PER_NODE", "2(x3)", 1);  // the step's own count first
  EXPECT_EQ(processes_on_this_machine(), 2u);
  setenv("MPI_LOCALNRANKS", "6", 1);  // a launcher's own count over SLURM's
  EXPECT_EQ(processes_on_this_machine(), 6u);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "5", 1);
  EXPECT_EQ(processes_on_this_machine(), 5u);
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_STEP_TASKS_PER_NODE",
                        "SLURM_TASKS_PER_NODE", "SLURM_NODEID"})
    unsetenv(v);
}
}  // namespace isocheck
