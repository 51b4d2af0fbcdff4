// Host probes: what the machine gives the bench at the moment it measures,
// so that the explorer's figures (tools/bench/measure_explore.cc) can be read
// against the host's own state. On a shared virtual machine the same build
// gives one search a third more or less from one minute to the next, and a
// second CPU may give memory-bound work much less than it gives a loop.
//  - register_loop_2x1t(seconds): a loop that touches no memory (a chain of
//    multiplications in registers), run for `seconds` on one thread, then on
//    two threads at once for as long: the work the pair did over the work
//    the one did. About 2 on two free cores; less when the second CPU is
//    taken by others or throttled.
//  - page_touch_us(bytes): microseconds per first write to a fresh 4 KB page
//    of an anonymous mapping of `bytes` (huge pages declined): what a search
//    pays for each page of new memory (well under a microsecond on bare
//    metal, 10 or more on some virtual machines).
// Wall time only (steady clock); nothing measured here reaches a trace.
#pragma once

#include <cstddef>

namespace locksim {

double register_loop_2x1t(double seconds);
double page_touch_us(size_t bytes);

}  // namespace locksim
