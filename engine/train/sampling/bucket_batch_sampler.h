#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tuneframe::train {

// The batches of one epoch: samples of the same bucket (frames x height x width) only, since a
// batch is one tensor. The order is a pure function of (seed, epoch): the samples are shuffled,
// taken in that order into per-bucket batches, and a batch is emitted when full; partial
// batches follow at the end of the epoch in bucket order, so no sample is left out. A run is
// resumed by position (epoch, batch index), not by generator state.
class BucketBatchSampler {
public:
    // `buckets[i]`: the bucket key of sample i ("49x480x720").
    BucketBatchSampler(std::vector<std::string> buckets, std::int64_t batch_size,
                       std::uint64_t seed);

    // Sample indices of every batch of `epoch`, in order.
    std::vector<std::vector<std::int64_t>> epoch(std::int64_t epoch) const;
    std::int64_t batches_per_epoch() const { return batches_per_epoch_; }
    std::int64_t sample_count() const { return static_cast<std::int64_t>(buckets_.size()); }

private:
    std::vector<std::string> buckets_;
    std::int64_t batch_size_;
    std::uint64_t seed_;
    std::int64_t batches_per_epoch_ = 0;
};

} // namespace tuneframe::train
