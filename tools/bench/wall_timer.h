// WallTimer: wall-clock seconds (steady clock) for the bench measurements.
// It only ever measures how long the harness takes; nothing it returns may
// reach a trace or a verdict (determinism rules, architecture.md).
#pragma once

#include <chrono>

namespace locksim {

class WallTimer {
 public:
  WallTimer() : start_(std::chrono::steady_clock::now()) {}
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace locksim
