// Running independent per-item work on the -j threads (the directory walk, the per-file analysis).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>

#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>

namespace retrylint {

// fn(0) … fn(n - 1) on `jobs` threads (0: one per core); in this thread when jobs is 1 or there
// is less than two items. Each fn(i) must only touch what belongs to item i.
template <typename Fn> void forEachIndex(size_t n, unsigned jobs, Fn &&fn) {
  if (jobs == 1 || n < 2) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  // One task per thread, each taking the next item from a shared counter: a task per item cost
  // an allocation, a lock and a wake-up per file, as much as a small file's analysis.
  const llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(jobs);
  const unsigned threads = static_cast<unsigned>(std::min<size_t>(strategy.compute_thread_count(), n));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) fn(i);
  };
  if (threads < 2) return worker();
  llvm::ThreadPool pool(llvm::hardware_concurrency(threads - 1));
  for (unsigned t = 1; t < threads; ++t) pool.async(worker);
  worker(); // this thread works too
  pool.wait();
}

} // namespace retrylint
