#pragma once

#include "engine/core/tensor_io.h"
#include "engine/dist/communicator.h"

#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace tuneframe::dist {

// ZeRO-2's gradients, as DeepSpeed stage 2 and ColossalAI's low-level ZeRO exchange them: while
// backward runs, each parameter's gradient is moved into a bucket (about `bucket_bytes`, filled
// in the order the first backward produced them) the moment autograd has accumulated it, and the
// parameter's own .grad is dropped at once. A full bucket is reduced to the ranks that own its
// parameters (one reduce per owner's run, which is the reduce-scatter restricted to the bucket),
// and only the owners keep the sum. So a rank holds the sums of its own parameters (about P/N) plus
// the bucket in flight, never the whole model's gradients.
//
// Every micro-batch of a gradient-accumulation step is reduced this way; the owners add the
// results up, and publish() hands them to their parameters as .grad, averaged.
class ZeroGradientReducer {
public:
    // `owners[k]`: the rank owning parameter k; `divisor`: the data-parallel ranks.
    ZeroGradientReducer(Communicator& group, core::NamedTensors parameters, std::vector<int> owners,
                        double divisor, std::int64_t bucket_bytes);
    ~ZeroGradientReducer();
    ZeroGradientReducer(const ZeroGradientReducer&) = delete;
    ZeroGradientReducer& operator=(const ZeroGradientReducer&) = delete;

    // Before each backward: its gradients are the ones exchanged.
    void begin_backward();
    // After it: sends what backward did not reach (as zeros, so every rank issues the same
    // collectives), waits, and adds this rank's results to its sums.
    void end_backward();
    // After the step's last backward: this rank's parameters get their summed gradients divided
    // by `divisor` as .grad; the other parameters have none.
    void publish();

    // The most gradient bytes this rank held at once (parameters' .grad, its sums and bucket
    // buffers) since reset_peak(), counted at every gradient that arrived.
    std::int64_t peak_bytes() const;
    void reset_peak();
    std::int64_t largest_bucket_bytes() const { return largest_bucket_bytes_; }
    std::size_t bucket_count() const { return buckets_.size(); }

private:
    struct Bucket {
        std::vector<std::size_t> members; // parameter indices, in the order they fill it
        std::vector<std::int64_t> offsets;
        std::int64_t numel = 0;
        std::size_t ready = 0;
        at::Tensor buffer; // only while filling or in flight
        std::vector<std::unique_ptr<PendingCollective>> pending;
    };
    struct HookTarget;

    void build_buckets(const std::vector<std::size_t>& order);
    void rebuild_buckets_in_arrival_order();
    void on_accumulated(std::size_t index);
    void place(std::size_t index, const at::Tensor& gradient);
    void launch_ready();
    void launch(Bucket& bucket);
    void retire(Bucket& bucket);
    void retire_in_flight();
    void measure();

    Communicator& group_;
    core::NamedTensors parameters_;
    std::vector<int> owner_;
    double divisor_;
    c10::ScalarType wire_type_ = at::kFloat;
    std::vector<Bucket> buckets_;
    std::vector<std::size_t> bucket_of_;
    std::vector<std::size_t> slot_of_;
    std::vector<bool> received_;
    std::vector<at::Tensor> sums_; // this rank's parameters' reduced gradients, in float32
    std::deque<std::size_t> in_flight_;
    std::size_t next_to_launch_ = 0;
    bool armed_ = false;
    std::int64_t peak_bytes_ = 0;
    std::int64_t largest_bucket_bytes_ = 0;
    std::int64_t bucket_bytes_ = 0;
    std::vector<std::size_t> arrival_; // the first backward's order
    bool rebuilt_ = false;
    std::shared_ptr<HookTarget> hook_target_;
    std::vector<std::shared_ptr<void>> accumulators_; // keep the hooked autograd nodes alive
    mutable std::mutex mutex_;
};

} // namespace tuneframe::dist
