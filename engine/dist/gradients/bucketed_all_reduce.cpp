#include "engine/dist/gradients/bucketed_all_reduce.h"

#include "engine/dist/gradients/gradient_buckets.h"

#include "engine/core/grad_mode.h"
#include <ATen/ops/zeros.h>

namespace tuneframe::dist {

BucketedAllReduce::BucketedAllReduce(Communicator& group, core::NamedTensors parameters,
                                     double divisor, std::int64_t bucket_bytes)
    : group_(group)
    , parameters_(std::move(parameters))
    , divisor_(divisor) {
    const std::size_t count = parameters_.size();
    bucket_of_.resize(count);
    slot_of_.resize(count);
    received_.assign(count, false);
    const bool native_type = group_.backend() == "nccl";
    std::vector<std::int64_t> bytes;
    for (const auto& [name, parameter] : parameters_) {
        const c10::ScalarType type = native_type ? parameter.scalar_type() : at::kFloat;
        bytes.push_back(parameter.numel() * static_cast<std::int64_t>(c10::elementSize(type)));
    }
    for (const std::vector<std::size_t>& members :
         group_into_buckets(reverse_registration_order(count), bytes, bucket_bytes)) {
        Bucket& bucket = buckets_.emplace_back();
        for (std::size_t k : members) {
            bucket_of_[k] = buckets_.size() - 1;
            slot_of_[k] = bucket.members.size();
            bucket.offsets.push_back(bucket.members.empty()
                                         ? 0
                                         : bucket.offsets.back() +
                                               parameters_[bucket.members.back()].second.numel());
            bucket.members.push_back(k);
        }
    }
    for (Bucket& bucket : buckets_) {
        const at::Tensor& first = parameters_[bucket.members.front()].second;
        const std::int64_t numel =
            bucket.offsets.back() + parameters_[bucket.members.back()].second.numel();
        bucket.buffer = at::zeros(
            {numel}, first.options().dtype(native_type ? first.scalar_type() : at::kFloat));
    }
    for (std::size_t k = 0; k < count; ++k) {
        at::Tensor parameter = parameters_[k].second;
        hooks_.push_back(parameter.register_hook(
            [this, k](const at::Tensor& gradient) { on_gradient(k, gradient); }));
    }
}

BucketedAllReduce::~BucketedAllReduce() {
    for (std::size_t k = 0; k < hooks_.size(); ++k) {
        parameters_[k].second.remove_hook(hooks_[k]);
    }
}

void BucketedAllReduce::arm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = true;
    next_to_start_ = 0;
    received_.assign(received_.size(), false);
    for (Bucket& bucket : buckets_) {
        bucket.ready = 0;
        bucket.pending.reset();
    }
}

void BucketedAllReduce::on_gradient(std::size_t index, const at::Tensor& gradient) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!armed_ || received_[index]) {
        return;
    }
    core::NoGradGuard no_grad;
    const at::Tensor& parameter = parameters_[index].second;
    Bucket& bucket = buckets_[bucket_of_[index]];
    at::Tensor slot = bucket.buffer.narrow(0, bucket.offsets[slot_of_[index]], parameter.numel())
                          .view_as(parameter);
    slot.copy_(gradient);
    if (parameter.grad().defined()) {
        slot.add_(parameter.grad()); // earlier micro-batches
    }
    received_[index] = true;
    ++bucket.ready;
    start_ready_buckets();
}

void BucketedAllReduce::start_ready_buckets() {
    while (next_to_start_ < buckets_.size() &&
           buckets_[next_to_start_].ready == buckets_[next_to_start_].members.size()) {
        Bucket& bucket = buckets_[next_to_start_++];
        bucket.pending = group_.all_reduce_async(bucket.buffer);
    }
}

void BucketedAllReduce::finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    core::NoGradGuard no_grad;
    // A parameter backward did not reach contributes what it holds (or zeros), so every rank
    // still sends every bucket.
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        if (received_[k]) {
            continue;
        }
        const at::Tensor& parameter = parameters_[k].second;
        Bucket& bucket = buckets_[bucket_of_[k]];
        at::Tensor slot = bucket.buffer.narrow(0, bucket.offsets[slot_of_[k]], parameter.numel());
        if (parameter.grad().defined()) {
            slot.copy_(parameter.grad().reshape({-1}));
        } else {
            slot.zero_();
        }
        received_[k] = true;
        ++bucket.ready;
    }
    start_ready_buckets();
    for (Bucket& bucket : buckets_) {
        bucket.pending->wait();
        bucket.pending.reset();
        for (std::size_t slot = 0; slot < bucket.members.size(); ++slot) {
            at::Tensor& parameter = parameters_[bucket.members[slot]].second;
            at::Tensor average = bucket.buffer.narrow(0, bucket.offsets[slot], parameter.numel())
                                     .view_as(parameter)
                                     .div(divisor_)
                                     .to(parameter.scalar_type());
            if (parameter.grad().defined()) {
                parameter.mutable_grad().copy_(average);
            } else {
                parameter.mutable_grad() = average;
            }
        }
    }
    held_bytes_ = 0;
    for (const Bucket& bucket : buckets_) {
        held_bytes_ +=
            bucket.buffer.numel() * static_cast<std::int64_t>(bucket.buffer.element_size());
    }
    for (const auto& [name, parameter] : parameters_) {
        if (parameter.grad().defined()) {
            held_bytes_ += parameter.grad().numel() *
                           static_cast<std::int64_t>(parameter.grad().element_size());
        }
    }
    armed_ = false;
}

} // namespace tuneframe::dist
