#pragma once

#include "engine/core/tensor_io.h"
#include "engine/dist/communicator.h"

#include <memory>
#include <mutex>
#include <vector>

namespace tuneframe::dist {

// Data-parallel gradient averaging the way DDP does it: the trainable parameters are grouped
// into buckets (about 25 MB, in reverse order, which is roughly the order backward produces
// their gradients), a hook on each parameter copies its gradient into its bucket, and a full
// bucket starts its all-reduce while backward goes on. Buckets start strictly in index order,
// so every rank issues the same collectives in the same sequence.
//
// With gradient accumulation only the last micro-batch's backward is armed: the hook then sends
// the accumulated gradient (the incoming one plus what .grad already holds).
class BucketedAllReduce {
public:
    // `divisor`: what the summed gradients are divided by (the data-parallel ranks).
    // On Gloo the buckets travel as float32 (Gloo's bf16 support is partial); on NCCL in the
    // gradients' own type, as DDP does.
    BucketedAllReduce(Communicator& group, core::NamedTensors parameters, double divisor,
                      std::int64_t bucket_bytes = 25 << 20);
    ~BucketedAllReduce();
    BucketedAllReduce(const BucketedAllReduce&) = delete;
    BucketedAllReduce& operator=(const BucketedAllReduce&) = delete;

    // The next backward is the one whose gradients are exchanged.
    void arm();
    // After that backward: starts what is left, waits for every bucket and writes the averages
    // into each parameter's .grad.
    void finish();

    std::size_t bucket_count() const { return buckets_.size(); }
    // Gradient bytes held when the last finish() returned: every parameter's .grad and the
    // buckets (this plan keeps both, the price of overlapping the exchange with backward).
    std::int64_t held_bytes() const { return held_bytes_; }

private:
    struct Bucket {
        std::vector<std::size_t> members; // parameter indices
        std::vector<std::int64_t> offsets;
        at::Tensor buffer;
        std::size_t ready = 0;
        std::unique_ptr<PendingCollective> pending;
    };

    void on_gradient(std::size_t index, const at::Tensor& gradient);
    void start_ready_buckets();

    Communicator& group_;
    core::NamedTensors parameters_;
    double divisor_;
    std::vector<Bucket> buckets_;
    std::vector<std::size_t> bucket_of_; // per parameter
    std::vector<std::size_t> slot_of_;   // its place in the bucket
    std::vector<bool> received_;
    std::vector<unsigned> hooks_;
    std::size_t next_to_start_ = 0;
    bool armed_ = false;
    std::int64_t held_bytes_ = 0;
    std::mutex mutex_;
};

} // namespace tuneframe::dist
