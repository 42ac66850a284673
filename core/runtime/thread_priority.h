// The priority of the GUI's measurement threads (its job worker, the cpu-parallel pool and, created
// by the worker, oneDNN's OpenMP threads), as a Linux nice value. It is 0, the window's own, on
// purpose. Sessions 5-8 ran them at nice 10 so that a window drawing 30 frames a second got a core
// at once; but then any other program (a browser, a build) outweighed the measurement about 9 to 1
// and the window's times came out several times slower than headless (issue 25). Since the window
// draws a still picture at most 4 times a second during a run and sleeps between (gui_main.cpp),
// it needs no head start, and any value above 0 only hands the cores to other programs: measured
// under two busy-loop processes on 2 cores, nice 2 still left one median 1.76x off the headless
// run's, nice 0 none beyond 1.10x (docs/benchmarks.md, "window against headless"). The setting stays
// one constant so the trade can be measured again; the command line (bench, train) never changes it.
// Verified by tests/test_cpu_backends.cpp ("thread pool workers take the nice value ...").
#pragma once

namespace gpulab::cpu {

// How far below normal the GUI's measurement threads run (Linux nice; 19 is the lowest): see above.
inline constexpr int kMeasurementNice = 0;

// Sets the calling thread's nice value (Linux threads have their own, and threads it creates
// later inherit it). Raising it never needs privileges; lowering it below what the thread has
// does, and fails quietly. Returns false where that is not possible (other systems, or refused).
bool set_this_thread_nice(int nice);
// The calling thread's nice value (0 where the system has no per-thread value).
int this_thread_nice();

}  // namespace gpulab::cpu
