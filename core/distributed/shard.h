// How data-parallel training splits one batch between its workers. Every worker walks the same
// shuffled order (train::batch_order, seeded), so all agree on the batch without sending images;
// each takes a contiguous slice of it, the sizes as even as they can be (the first `n % workers`
// slices one image longer). A worker whose slice is empty (a batch smaller than the workers)
// still joins the sum, with a zero gradient.
//
// The engines return the gradient of the MEAN loss over the images they saw. With slices of n_i
// images from a batch of B, the batch's gradient is sum_i (n_i / B) * g_i: an unweighted sum of
// the g_i would count a short slice's images more than the others' (and be N times too large).
// shard_weight gives that factor, each worker scales its own gradient by it, and the all-reduce
// only adds. Verified by tests/test_distributed.cpp.
#pragma once

#include <cstdint>
#include <vector>

namespace gpulab::distributed {

struct Shard {
    std::int64_t first = 0;  // offset into the batch
    std::int64_t count = 0;  // images
};

// Worker `rank`'s slice of a batch of `batch_images` split over `workers` (rank in [0, workers)).
Shard shard_of(std::int64_t batch_images, int workers, int rank);

// The most images any worker's slice holds for batches of up to `batch` (what its engine is set up for).
std::int64_t largest_shard(std::int64_t batch, int workers);

// n_i / B: the weight of a slice of `shard_images` in a batch of `batch_images`.
double shard_weight(std::int64_t shard_images, std::int64_t batch_images);

// Scales a worker's mean-loss gradient in place by its slice's weight, so that summing every
// worker's result gives the whole batch's mean-loss gradient.
void weight_gradient(std::vector<float>& gradient, std::int64_t shard_images, std::int64_t batch_images);

}  // namespace gpulab::distributed
