// Measurement threads yield a little to the window. On a 2-core laptop a measurement keeps every
// core busy on purpose (cpu-parallel times with all threads); at equal priority the window's thread
// then waits for a core like any other, and frames took seconds while a job ran (docs/reliability.md,
// the soak). The GUI lowers the priority of the threads that measure (its job worker, the
// cpu-parallel pool and, created by the worker, oneDNN's OpenMP threads) slightly, so the window
// gets a core soon when it wants one; it draws a still picture at most 4 times a second meanwhile.
// Only slightly: at nice 10 any other program (a browser, a build) took most of the cores from the
// measurement and the window's times came out 2x slower than headless (issue 25; docs/benchmarks.md).
// The command line (bench, train) keeps normal priority.
// Verified by tests/test_cpu_backends.cpp ("thread pool workers take the nice value ...").
#pragma once

namespace gpulab::cpu {

// How far below normal the GUI's measurement threads run (Linux nice; 19 is the lowest).
inline constexpr int kMeasurementNice = 2;

// Sets the calling thread's nice value (Linux threads have their own, and threads it creates
// later inherit it). Raising it never needs privileges; lowering it below what the thread has
// does, and fails quietly. Returns false where that is not possible (other systems, or refused).
bool set_this_thread_nice(int nice);
// The calling thread's nice value (0 where the system has no per-thread value).
int this_thread_nice();

}  // namespace gpulab::cpu
