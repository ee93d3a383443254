#include "engine/dist/gradients/zero_gradient_reducer.h"

#include "engine/dist/gradients/gradient_buckets.h"

#include "engine/core/grad_mode.h"
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <functional>

namespace tuneframe::dist {

// What the autograd hooks call; they hold it weakly, so a hook that outlives the reducer (the
// accumulator nodes live as long as their parameters) does nothing.
struct ZeroGradientReducer::HookTarget {
    std::function<void(std::size_t)> accumulated;
};

namespace {

std::int64_t bytes_of(const at::Tensor& tensor) {
    return tensor.defined() ? tensor.numel() * static_cast<std::int64_t>(tensor.element_size()) : 0;
}

// Runs after autograd's AccumulateGrad node of one parameter, when its .grad holds the sum of
// this backward's contributions (a tensor hook would run before, on one contribution).
template <typename Target>
class AccumulatedHook : public torch::autograd::FunctionPostHook {
public:
    AccumulatedHook(std::weak_ptr<Target> target, std::size_t index)
        : target_(std::move(target))
        , index_(index) {}

    torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                              const torch::autograd::variable_list&) override {
        if (const std::shared_ptr<Target> target = target_.lock()) {
            target->accumulated(index_);
        }
        return outputs;
    }

private:
    std::weak_ptr<Target> target_;
    std::size_t index_;
};

} // namespace

ZeroGradientReducer::ZeroGradientReducer(Communicator& group, core::NamedTensors parameters,
                                         std::vector<int> owners, double divisor,
                                         std::int64_t bucket_bytes)
    : group_(group)
    , parameters_(std::move(parameters))
    , owner_(std::move(owners))
    , divisor_(divisor) {
    const std::size_t count = parameters_.size();
    bucket_of_.resize(count);
    slot_of_.resize(count);
    received_.assign(count, false);
    sums_.resize(count);
    // Gloo's bf16 support is partial: CPU ranks send float32, NCCL the gradients' own type.
    if (count > 0 && group_.backend() == "nccl") {
        wire_type_ = parameters_.front().second.scalar_type();
    }
    bucket_bytes_ = bucket_bytes;
    build_buckets(reverse_registration_order(count));
    hook_target_ = std::make_shared<HookTarget>();
    hook_target_->accumulated = [this](std::size_t index) {
        on_accumulated(index);
    };
    for (std::size_t k = 0; k < count; ++k) {
        std::shared_ptr<torch::autograd::Node> accumulator =
            torch::autograd::impl::grad_accumulator(parameters_[k].second);
        accumulator->add_post_hook(std::make_unique<AccumulatedHook<HookTarget>>(hook_target_, k));
        accumulators_.push_back(std::move(accumulator));
    }
}

ZeroGradientReducer::~ZeroGradientReducer() = default;

void ZeroGradientReducer::build_buckets(const std::vector<std::size_t>& order) {
    const auto element = static_cast<std::int64_t>(c10::elementSize(wire_type_));
    std::vector<std::int64_t> bytes;
    for (const auto& [name, parameter] : parameters_) {
        bytes.push_back(parameter.numel() * element);
    }
    buckets_.clear();
    largest_bucket_bytes_ = 0;
    for (const std::vector<std::size_t>& members :
         group_into_buckets(order, bytes, bucket_bytes_)) {
        Bucket& bucket = buckets_.emplace_back();
        for (std::size_t k : members) {
            bucket_of_[k] = buckets_.size() - 1;
            slot_of_[k] = bucket.members.size();
            bucket.offsets.push_back(bucket.numel);
            bucket.members.push_back(k);
            bucket.numel += parameters_[k].second.numel();
        }
        largest_bucket_bytes_ = std::max(largest_bucket_bytes_, bucket.numel * element);
    }
}

// Backward interleaves parameters (a block's q, k and v adapters get their gradients side by
// side), so buckets made from registration order fill several at once, each holding a buffer.
// After the first backward they are made again in the order the gradients really came, as DDP
// rebuilds its buckets; rank 0's order is used everywhere so the collectives still match.
void ZeroGradientReducer::rebuild_buckets_in_arrival_order() {
    std::vector<std::int64_t> order(arrival_.begin(), arrival_.end());
    at::Tensor shared = at::tensor(order, at::kLong).to(group_.device());
    group_.broadcast(shared, 0);
    shared = shared.cpu();
    const std::int64_t* data = shared.data_ptr<std::int64_t>();
    build_buckets(std::vector<std::size_t>(data, data + shared.numel()));
    rebuilt_ = true;
}

void ZeroGradientReducer::begin_backward() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = true;
    next_to_launch_ = 0;
    received_.assign(received_.size(), false);
    for (Bucket& bucket : buckets_) {
        bucket.ready = 0;
    }
}

void ZeroGradientReducer::on_accumulated(std::size_t index) {
    std::lock_guard<std::mutex> lock(mutex_);
    const at::Tensor& parameter = parameters_[index].second;
    if (!armed_ || received_[index] || !parameter.grad().defined()) {
        return;
    }
    core::NoGradGuard no_grad;
    place(index, parameter.grad());
}

void ZeroGradientReducer::place(std::size_t index, const at::Tensor& gradient) {
    at::Tensor& parameter = parameters_[index].second;
    Bucket& bucket = buckets_[bucket_of_[index]];
    if (!bucket.buffer.defined()) {
        // The bucket before is done with the wire by now or soon: finishing it first keeps one
        // bucket's buffer alive at a time.
        retire_in_flight();
        bucket.buffer = at::zeros({bucket.numel}, parameter.options().dtype(wire_type_));
    }
    bucket.buffer.narrow(0, bucket.offsets[slot_of_[index]], parameter.numel())
        .copy_(gradient.reshape({-1}));
    parameter.mutable_grad() = at::Tensor();
    received_[index] = true;
    if (!rebuilt_) {
        arrival_.push_back(index);
    }
    ++bucket.ready;
    measure();
    launch_ready();
}

void ZeroGradientReducer::launch_ready() {
    while (next_to_launch_ < buckets_.size() &&
           buckets_[next_to_launch_].ready == buckets_[next_to_launch_].members.size()) {
        launch(buckets_[next_to_launch_]);
        in_flight_.push_back(next_to_launch_++);
    }
}

void ZeroGradientReducer::launch(Bucket& bucket) {
    // One reduce per run of members with the same owner; buckets start in index order on every
    // rank, so the collectives match.
    std::size_t first = 0;
    while (first < bucket.members.size()) {
        const int owner = owner_[bucket.members[first]];
        std::size_t last = first + 1;
        while (last < bucket.members.size() && owner_[bucket.members[last]] == owner) {
            ++last;
        }
        const std::int64_t begin = bucket.offsets[first];
        const std::int64_t end = last < bucket.members.size() ? bucket.offsets[last] : bucket.numel;
        at::Tensor run = bucket.buffer.narrow(0, begin, end - begin);
        bucket.pending.push_back(group_.reduce_async(run, owner));
        first = last;
    }
}

void ZeroGradientReducer::retire(Bucket& bucket) {
    for (const std::unique_ptr<PendingCollective>& pending : bucket.pending) {
        pending->wait();
    }
    bucket.pending.clear();
    for (std::size_t slot = 0; slot < bucket.members.size(); ++slot) {
        const std::size_t k = bucket.members[slot];
        if (owner_[k] != group_.rank()) {
            continue;
        }
        const at::Tensor& parameter = parameters_[k].second;
        const at::Tensor reduced =
            bucket.buffer.narrow(0, bucket.offsets[slot], parameter.numel()).view_as(parameter);
        if (sums_[k].defined()) {
            sums_[k].add_(reduced);
        } else {
            sums_[k] = reduced.to(at::kFloat, /*non_blocking=*/false, /*copy=*/true);
        }
    }
    bucket.buffer = at::Tensor();
}

void ZeroGradientReducer::retire_in_flight() {
    while (!in_flight_.empty()) {
        retire(buckets_[in_flight_.front()]);
        in_flight_.pop_front();
    }
}

void ZeroGradientReducer::end_backward() {
    std::lock_guard<std::mutex> lock(mutex_);
    core::NoGradGuard no_grad;
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        if (!received_[k]) {
            const at::Tensor& parameter = parameters_[k].second;
            place(k, parameter.grad().defined() ? parameter.grad() : at::zeros_like(parameter));
        }
    }
    retire_in_flight();
    armed_ = false;
    if (!rebuilt_) {
        rebuild_buckets_in_arrival_order();
    }
}

void ZeroGradientReducer::publish() {
    std::lock_guard<std::mutex> lock(mutex_);
    core::NoGradGuard no_grad;
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        at::Tensor& parameter = parameters_[k].second;
        if (owner_[k] != group_.rank() || !sums_[k].defined()) {
            parameter.mutable_grad() = at::Tensor();
            continue;
        }
        parameter.mutable_grad() = sums_[k].div_(divisor_).to(parameter.scalar_type());
        sums_[k] = at::Tensor();
    }
}

void ZeroGradientReducer::measure() {
    std::int64_t held = 0;
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        held += bytes_of(parameters_[k].second.grad()) + bytes_of(sums_[k]);
    }
    for (const Bucket& bucket : buckets_) {
        held += bytes_of(bucket.buffer);
    }
    peak_bytes_ = std::max(peak_bytes_, held);
}

std::int64_t ZeroGradientReducer::peak_bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return peak_bytes_;
}

void ZeroGradientReducer::reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    peak_bytes_ = 0;
}

} // namespace tuneframe::dist
