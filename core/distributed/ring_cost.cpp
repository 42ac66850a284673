// The ring all-reduce's cost model: see ring_cost.h.
#include "ring_cost.h"

#include <stdexcept>

namespace gpulab::distributed {

double ring_bytes_per_worker(double message_bytes, int workers) {
    if (workers < 2) return 0.0;  // one worker sends nothing
    return 2.0 * (workers - 1) / workers * message_bytes;
}

double ring_allreduce_seconds(double message_bytes, int workers, const RingLink& link) {
    if (workers < 2) return 0.0;
    const double transfer = link.bandwidth_bytes_s > 0.0 ? ring_bytes_per_worker(message_bytes, workers) / link.bandwidth_bytes_s : 0.0;
    return 2.0 * (workers - 1) * link.latency_s + transfer;
}

RingLink fit_ring_cost(std::span<const AllreduceSample> samples, int workers) {
    if (workers < 2) throw std::invalid_argument("a ring of one worker has no cost to fit");
    if (samples.size() < 2) throw std::invalid_argument("fitting latency and bandwidth needs two sizes or more");
    // t = a * x + b * y with x = 2(N - 1) (latencies) and y = bytes per worker: t = x * latency + y / bandwidth.
    // x is the same for every sample, so this is a straight line in y: t = c + y * k.
    double sy = 0, st = 0, syy = 0, syt = 0;
    const double n = static_cast<double>(samples.size());
    for (const AllreduceSample& s : samples) {
        const double y = ring_bytes_per_worker(s.message_bytes, workers);
        sy += y;
        st += s.seconds;
        syy += y * y;
        syt += y * s.seconds;
    }
    const double denom = n * syy - sy * sy;
    if (denom <= 0.0) throw std::invalid_argument("fitting latency and bandwidth needs two distinct sizes");
    const double k = (n * syt - sy * st) / denom;  // seconds per byte
    const double c = (st - k * sy) / n;            // seconds of fixed cost
    RingLink link;
    link.latency_s = c > 0.0 ? c / (2.0 * (workers - 1)) : 0.0;
    link.bandwidth_bytes_s = k > 0.0 ? 1.0 / k : 0.0;
    return link;
}

}  // namespace gpulab::distributed
