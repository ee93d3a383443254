#include "engine/train/sampling/bucket_batch_sampler.h"

#include "engine/core/error.h"
#include "engine/models/keyed_generator.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

namespace tuneframe::train {

BucketBatchSampler::BucketBatchSampler(std::vector<std::string> buckets, std::int64_t batch_size,
                                       std::uint64_t seed)
    : buckets_(std::move(buckets))
    , batch_size_(batch_size)
    , seed_(seed) {
    if (buckets_.empty()) {
        throw core::Error(core::ErrorCode::BadInput, "The dataset holds no usable clip.",
                          "Run prepare and check its report: every clip was skipped.");
    }
    if (batch_size_ < 1) {
        throw core::Error(core::ErrorCode::BadInput, "batch_size must be at least 1.");
    }
    std::map<std::string, std::int64_t> counts;
    for (const std::string& bucket : buckets_) {
        ++counts[bucket];
    }
    for (const auto& [bucket, count] : counts) {
        batches_per_epoch_ += (count + batch_size_ - 1) / batch_size_;
    }
}

std::vector<std::vector<std::int64_t>> BucketBatchSampler::epoch(std::int64_t epoch) const {
    std::vector<std::int64_t> order(buckets_.size());
    std::iota(order.begin(), order.end(), 0);
    // std::mt19937_64 and a hand-written Fisher-Yates: the same order on every platform
    // (std::shuffle's algorithm is unspecified).
    std::mt19937_64 engine(models::keyed_seed(seed_, 0, static_cast<std::uint64_t>(epoch),
                                              models::DrawPurpose::Shuffle));
    for (std::size_t i = order.size(); i > 1; --i) {
        const std::size_t j = static_cast<std::size_t>(engine() % i);
        std::swap(order[i - 1], order[j]);
    }
    std::vector<std::vector<std::int64_t>> batches;
    std::map<std::string, std::vector<std::int64_t>> open;
    for (std::int64_t index : order) {
        auto& batch = open[buckets_[static_cast<std::size_t>(index)]];
        batch.push_back(index);
        if (static_cast<std::int64_t>(batch.size()) == batch_size_) {
            batches.push_back(std::move(batch));
            batch.clear();
        }
    }
    for (auto& [bucket, batch] : open) {
        if (!batch.empty()) {
            batches.push_back(std::move(batch));
        }
    }
    return batches;
}

} // namespace tuneframe::train
