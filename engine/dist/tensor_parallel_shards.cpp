#include "engine/dist/tensor_parallel_shards.h"

#include "engine/core/error.h"

#include <ATen/ATen.h>

namespace tuneframe::dist {

TensorParallelShards::TensorParallelShards(Communicator& group, models::TensorParallelLayout layout)
    : group_(group)
    , layout_(std::move(layout)) {}

std::int64_t TensorParallelShards::split_dim_of(const std::string& key) const {
    auto found = layout_.split_dim.find(key);
    if (found == layout_.split_dim.end()) {
        const std::size_t dot = key.rfind('.');
        if (dot == std::string::npos) {
            return -1;
        }
        found = layout_.split_dim.find(key.substr(0, dot));
    }
    return found == layout_.split_dim.end() ? -1 : found->second;
}

core::NamedTensors TensorParallelShards::gather(const core::NamedTensors& tensors) {
    core::NamedTensors whole;
    whole.reserve(tensors.size());
    for (const auto& [name, tensor] : tensors) {
        const std::int64_t dim = split_dim_of(name);
        if (dim < 0 || tensor.dim() <= dim) {
            whole.emplace_back(name, tensor);
            continue;
        }
        // The group gathers along dim 0, so a column split travels transposed.
        const at::Tensor part = tensor.detach().transpose(0, dim).contiguous();
        const at::Tensor device_part = part.to(group_.device());
        at::Tensor joined = group_.all_gather(device_part).to(tensor.device());
        whole.emplace_back(name, joined.transpose(0, dim).contiguous());
    }
    return whole;
}

void TensorParallelShards::cut(std::map<std::string, at::Tensor>& tensors) const {
    const std::int64_t parts = group_.size();
    for (auto& [name, tensor] : tensors) {
        const std::int64_t dim = split_dim_of(name);
        if (dim < 0 || tensor.dim() <= dim) {
            continue;
        }
        if (tensor.size(dim) % parts != 0) {
            throw core::Error(
                core::ErrorCode::BadInput,
                "The checkpoint's '" + name + "' has " + std::to_string(tensor.size(dim)) +
                    " rows to split, which do not divide by tp_size " + std::to_string(parts) + ".",
                "Resume with a parallel.tp_size that divides the model's heads.");
        }
        const std::int64_t part = tensor.size(dim) / parts;
        tensor = tensor.narrow(dim, group_.rank() * part, part).contiguous();
    }
}

void TensorParallelShards::sum_partial_gradients(const core::NamedTensors& parameters) {
    std::vector<at::Tensor> gradients;
    for (const auto& [name, parameter] : parameters) {
        if (layout_.partial_gradients.count(name) > 0 && parameter.grad().defined()) {
            gradients.push_back(parameter.grad());
        }
    }
    if (gradients.empty()) {
        return;
    }
    std::vector<at::Tensor> flat;
    flat.reserve(gradients.size());
    for (const at::Tensor& gradient : gradients) {
        flat.push_back(gradient.detach().reshape({-1}).to(group_.device(), at::kFloat));
    }
    at::Tensor bucket = at::cat(flat);
    group_.all_reduce(bucket);
    std::int64_t offset = 0;
    for (at::Tensor& gradient : gradients) {
        const std::int64_t count = gradient.numel();
        gradient.detach().copy_(bucket.narrow(0, offset, count).view_as(gradient));
        offset += count;
    }
}

} // namespace tuneframe::dist
