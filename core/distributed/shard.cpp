// Slicing a batch between workers and weighting their gradients: see shard.h.
#include "shard.h"

#include <stdexcept>
#include <string>

namespace gpulab::distributed {

Shard shard_of(std::int64_t batch_images, int workers, int rank) {
    if (workers < 1 || rank < 0 || rank >= workers || batch_images < 0)
        throw std::invalid_argument("shard_of: rank " + std::to_string(rank) + " of " + std::to_string(workers) +
                                    " workers, batch of " + std::to_string(batch_images));
    const std::int64_t base = batch_images / workers;
    const std::int64_t extra = batch_images % workers;  // the first `extra` ranks take one more
    const std::int64_t r = rank;
    return {r * base + (r < extra ? r : extra), base + (r < extra ? 1 : 0)};
}

std::int64_t largest_shard(std::int64_t batch, int workers) { return shard_of(batch, workers, 0).count; }

double shard_weight(std::int64_t shard_images, std::int64_t batch_images) {
    return batch_images > 0 ? static_cast<double>(shard_images) / static_cast<double>(batch_images) : 0.0;
}

void weight_gradient(std::vector<float>& gradient, std::int64_t shard_images, std::int64_t batch_images) {
    const auto w = static_cast<float>(shard_weight(shard_images, batch_images));
    for (float& g : gradient) g *= w;
}

}  // namespace gpulab::distributed
