#include "engine/dist/gradients/zero_sharding.h"

#include "engine/core/grad_mode.h"

#include <ATen/ops/zeros.h>

#include <algorithm>

namespace tuneframe::dist {

ZeroSharding::ZeroSharding(Communicator& group, core::NamedTensors parameters,
                           std::int64_t chunk_bytes)
    : group_(group)
    , parameters_(std::move(parameters)) {
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
    // Gloo's bf16 support is partial: CPU ranks gather in float32, NCCL in the parameters' type.
    if (!parameters_.empty() && group_.backend() == "nccl") {
        wire_type_ = parameters_.front().second.scalar_type();
    }
    chunk_numel_ = std::max<std::int64_t>(
        1, chunk_bytes / static_cast<std::int64_t>(c10::elementSize(wire_type_)));
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

std::int64_t ZeroSharding::owned_bytes() const {
    std::int64_t bytes = 0;
    for (const auto& [name, parameter] : owned()) {
        bytes += parameter.numel() * static_cast<std::int64_t>(parameter.element_size());
    }
    return bytes;
}

void ZeroSharding::drop_unowned_gradients() {
    for (std::size_t k = 0; k < parameters_.size(); ++k) {
        if (owner_[k] != group_.rank()) {
            parameters_[k].second.mutable_grad() = at::Tensor();
        }
    }
}

void ZeroSharding::all_gather_parameters() {
    if (parameters_.empty() || group_.size() == 1) {
        return;
    }
    core::NoGradGuard no_grad;
    const at::TensorOptions options =
        parameters_.front().second.options().dtype(wire_type_).requires_grad(false);
    // Elements [begin, end) of every shard travel together; a parameter takes part in each
    // chunk its run overlaps.
    for (std::int64_t begin = 0; begin < shard_numel_; begin += chunk_numel_) {
        const std::int64_t end = std::min(shard_numel_, begin + chunk_numel_);
        const auto overlap = [&](std::size_t k) {
            const std::int64_t first = std::max(begin, shard_offset_[k]);
            const std::int64_t last =
                std::min(end, shard_offset_[k] + parameters_[k].second.numel());
            return std::make_pair(first, last);
        };
        at::Tensor mine = at::zeros({end - begin}, options);
        for (std::size_t k = 0; k < parameters_.size(); ++k) {
            const auto [first, last] = overlap(k);
            if (owner_[k] == group_.rank() && first < last) {
                mine.narrow(0, first - begin, last - first)
                    .copy_(parameters_[k].second.detach().reshape({-1}).narrow(
                        0, first - shard_offset_[k], last - first));
            }
        }
        const at::Tensor everyone = group_.all_gather(mine);
        for (std::size_t k = 0; k < parameters_.size(); ++k) {
            const auto [first, last] = overlap(k);
            if (owner_[k] == group_.rank() || first >= last) {
                continue;
            }
            at::Tensor flat = parameters_[k].second.detach().view({-1});
            flat.narrow(0, first - shard_offset_[k], last - first)
                .copy_(
                    everyone.narrow(0, owner_[k] * (end - begin) + (first - begin), last - first));
        }
    }
}

} // namespace tuneframe::dist
