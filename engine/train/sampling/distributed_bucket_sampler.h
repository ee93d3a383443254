#pragma once

#include "engine/train/sampling/bucket_batch_sampler.h"

namespace tuneframe::train {

// The bucket sampler shared by data-parallel ranks. Global batches of batch_size x ranks come
// from BucketBatchSampler (so they depend on the global batch size, not on how it is split:
// two ranks of batch 1 see exactly the batches one rank of batch 2 sees) and rank r takes the
// r-th slice of each. Every rank therefore gets a batch of the same bucket at every step, and
// the order is a pure function of (seed, epoch, world size). A short global batch at the end of
// an epoch is filled up by repeating its own samples, so no rank waits for a batch that does
// not exist; with one rank nothing is repeated.
class DistributedBucketSampler {
public:
    DistributedBucketSampler(std::vector<std::string> buckets, std::int64_t batch_size,
                             std::uint64_t seed, int rank = 0, int ranks = 1);

    // This rank's sample indices for every step of `epoch`.
    std::vector<std::vector<std::int64_t>> epoch(std::int64_t epoch) const;
    std::int64_t batches_per_epoch() const { return global_.batches_per_epoch(); }

private:
    BucketBatchSampler global_;
    std::int64_t batch_size_;
    int rank_;
    int ranks_;
};

} // namespace tuneframe::train
