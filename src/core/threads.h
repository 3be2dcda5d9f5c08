// Work on a few std::threads, the caller's included, with the exceptions
// brought home. A std::thread whose body lets an exception escape ends the
// process in std::terminate (an abort: a crash, not an exit code), so every
// pool of the project starts its threads here: the first exception any
// thread throws (bad_alloc past the memory cap, an internal error) is
// rethrown on the caller's thread after every thread has joined, where
// main's handlers turn it into exit 3 with a message.
#pragma once
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace isocheck {

// What a pool's threads share about failures: the first exception, and a flag
// that work loops may poll to stop taking new items once another thread failed.
class ThreadErrors {
 public:
  void catch_current() {
    std::lock_guard<std::mutex> g(lock_);
    if (!first_) first_ = std::current_exception();
    failed_.store(true, std::memory_order_relaxed);
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex lock_;
  std::exception_ptr first_;
  std::atomic<bool> failed_{false};
};

// work(t, errors) for t = 0 … n-1, each on its own thread, t = 0 on the
// calling thread; returns when all have finished, rethrowing the first
// exception. Where the system gives no more threads, the calling thread runs
// the parts not started after its own (a range cut into n parts is still
// covered whole).
template <class Work>
void run_threads(int n, Work&& work) {
  ThreadErrors errors;
  auto body = [&](int t) {
    try {
      work(t, errors);
    } catch (...) {
      errors.catch_current();
    }
  };
  std::vector<std::thread> pool;
  if (n > 1) pool.reserve(static_cast<size_t>(n - 1));
  int started = 1;
  for (; started < n; ++started) {
    try {
      pool.emplace_back(body, started);
    } catch (const std::system_error&) {
      break;
    }
  }
  body(0);
  for (int t = started; t < n; ++t) body(t);
  for (auto& th : pool) th.join();
  errors.rethrow();
}

}  // namespace isocheck
