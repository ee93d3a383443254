#include "engine/train/sampling/distributed_bucket_sampler.h"

namespace tuneframe::train {

DistributedBucketSampler::DistributedBucketSampler(std::vector<std::string> buckets,
                                                   std::int64_t batch_size, std::uint64_t seed,
                                                   int rank, int ranks)
    : global_(std::move(buckets), batch_size * ranks, seed)
    , batch_size_(batch_size)
    , rank_(rank)
    , ranks_(ranks) {}

std::vector<std::vector<std::int64_t>> DistributedBucketSampler::epoch(std::int64_t epoch) const {
    std::vector<std::vector<std::int64_t>> batches = global_.epoch(epoch);
    if (ranks_ == 1) {
        return batches;
    }
    const std::int64_t wanted = batch_size_ * ranks_;
    for (std::vector<std::int64_t>& batch : batches) {
        const std::size_t real = batch.size();
        for (std::size_t i = 0; static_cast<std::int64_t>(batch.size()) < wanted; ++i) {
            batch.push_back(batch[i % real]);
        }
        batch = std::vector<std::int64_t>(batch.begin() + rank_ * batch_size_,
                                          batch.begin() + (rank_ + 1) * batch_size_);
    }
    return batches;
}

} // namespace tuneframe::train
