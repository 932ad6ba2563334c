// Running independent per-item work on the -j threads (the directory walk, the per-file analysis).
#pragma once
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
  llvm::ThreadPool pool(llvm::hardware_concurrency(jobs));
  for (size_t i = 0; i < n; ++i) pool.async([&fn, i] { fn(i); });
  pool.wait();
}

} // namespace retrylint
