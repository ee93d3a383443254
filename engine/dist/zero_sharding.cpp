#include "engine/dist/zero_sharding.h"

#include <torch/torch.h>

namespace tuneframe::dist {

ZeroSharding::ZeroSharding(Communicator& group, core::NamedTensors parameters, double divisor)
    : group_(group)
    , parameters_(std::move(parameters))
    , divisor_(divisor) {
    std::int64_t total = 0;
    for (const auto& [name, parameter] : parameters_) {
        total += parameter.numel();
    }
    // Contiguous runs: rank r takes parameters until the running total passes (r + 1) / N of
    // the elements, so shards are balanced to within one parameter.
    const int ranks = group_.size();
    std::vector<std::int64_t> shard_size(static_cast<std::size_t>(ranks), 0);
    std::int64_t seen = 0;
    int rank = 0;
    for (const auto& [name, parameter] : parameters_) {
        while (rank < ranks - 1 && seen >= total * (rank + 1) / ranks) {
            ++rank;
        }
        owner_.push_back(rank);
        shard_offset_.push_back(shard_size[static_cast<std::size_t>(rank)]);
        shard_size[static_cast<std::size_t>(rank)] += parameter.numel();
        seen += parameter.numel();
    }
    for (std::int64_t size : shard_size) {
        shard_numel_ = std::max(shard_numel_, size);
    }
    if (!parameters_.empty() && group_.backend() == "nccl") {
        wire_type_ = parameters_.front().second.scalar_type();
    }
}

core::NamedTensors ZeroSharding::owned() const {
    core::NamedTensors mine;
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        if (owner_[k] == group_.rank()) {
            mine.push_back(parameters_[k]);
        }
    }
    return mine;
}

bool ZeroSharding::owns(const std::string& name) const {
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        if (parameters_[k].first == name) {
            return owner_[k] == group_.rank();
        }
    }
    return false;
}

at::Tensor ZeroSharding::flat_gradients() const {
    const at::TensorOptions options =
        parameters_.front().second.options().dtype(wire_type_).requires_grad(false);
    at::Tensor flat = at::zeros({shard_numel_ * group_.size()}, options);
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        const at::Tensor& parameter = parameters_[k].second;
        const at::Tensor source = parameter.grad();
        if (!source.defined()) {
            continue;
        }
        flat.narrow(0, owner_[k] * shard_numel_ + shard_offset_[k], parameter.numel())
            .copy_(source.reshape({-1}));
    }
    return flat;
}

void ZeroSharding::reduce_scatter_gradients() {
    if (parameters_.empty()) {
        return;
    }
    at::NoGradGuard no_grad;
    const at::Tensor mine = group_.reduce_scatter(flat_gradients()).div_(divisor_);
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        at::Tensor& parameter = parameters_[k].second;
        if (owner_[k] != group_.rank()) {
            parameter.mutable_grad() = at::Tensor(); // not ours: the memory goes back
            continue;
        }
        at::Tensor gradient = mine.narrow(0, shard_offset_[k], parameter.numel())
                                  .view_as(parameter)
                                  .to(parameter.scalar_type());
        if (parameter.grad().defined()) {
            parameter.mutable_grad().copy_(gradient);
        } else {
            parameter.mutable_grad() = gradient.clone();
        }
    }
}

void ZeroSharding::all_gather_parameters() {
    if (parameters_.empty()) {
        return;
    }
    at::NoGradGuard no_grad;
    at::Tensor mine =
        at::zeros({shard_numel_}, parameters_.front().second.options().dtype(wire_type_));
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        if (owner_[k] == group_.rank()) {
            const at::Tensor& parameter = parameters_[k].second;
            mine.narrow(0, shard_offset_[k], parameter.numel())
                .copy_(parameter.detach().reshape({-1}));
        }
    }
    const at::Tensor everyone = group_.all_gather(mine);
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        if (owner_[k] == group_.rank()) {
            continue;
        }
        at::Tensor& parameter = parameters_[k].second;
        parameter.copy_(
            everyone.narrow(0, owner_[k] * shard_numel_ + shard_offset_[k], parameter.numel())
                .view_as(parameter));
    }
}

} // namespace tuneframe::dist
