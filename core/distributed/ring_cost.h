// The ring all-reduce's cost model, for reading the measured all-reduce times: N workers, a
// message of S bytes on each. The ring cuts the message into N pieces and passes them round the
// ring twice (reduce-scatter, then all-gather): 2(N - 1) steps, each sending S / N bytes. So each
// worker sends 2(N - 1)/N * S bytes per all-reduce, nearly 2S however many workers there are, and
// pays 2(N - 1) latencies:  t = 2(N - 1) * latency + 2(N - 1)/N * S / bandwidth.
// fit_ring_cost finds latency and bandwidth from measured (size, time) pairs by least squares.
// Verified by tests/test_distributed.cpp.
#pragma once

#include <cstdint>
#include <span>

namespace gpulab::distributed {

struct RingLink {
    double latency_s = 0.0;         // per message step
    double bandwidth_bytes_s = 0.0;  // per worker's link
};

// Bytes each worker sends in one ring all-reduce of `message_bytes`.
double ring_bytes_per_worker(double message_bytes, int workers);
// The model's time for one all-reduce of `message_bytes` over `workers` workers.
double ring_allreduce_seconds(double message_bytes, int workers, const RingLink& link);

struct AllreduceSample {
    double message_bytes = 0.0;
    double seconds = 0.0;
};
// Latency and bandwidth that fit the samples best (least squares of t against the model's two
// terms). Needs two or more distinct sizes and workers >= 2; a negative fit (noise at tiny sizes)
// is clamped to 0, and a bandwidth that cannot be told is 0.
RingLink fit_ring_cost(std::span<const AllreduceSample> samples, int workers);

}  // namespace gpulab::distributed
