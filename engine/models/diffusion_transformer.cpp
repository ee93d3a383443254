#include "engine/models/diffusion_transformer.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/activation_offload.h"
#include "engine/models/block_swap.h"
#include "engine/models/streaming_weights.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models {
namespace {

using core::Error;
using core::ErrorCode;

// A host copy of `tensor`: pinned when the weights are to go to a GPU. Always a fresh tensor, so
// on the CPU parking still moves the weights rather than leaving them where they are.
at::Tensor parked_copy(const at::Tensor& tensor, const c10::Device& device) {
    at::Tensor host = at::empty(tensor.sizes(), at::TensorOptions()
                                                    .dtype(tensor.dtype())
                                                    .device(c10::kCPU)
                                                    .pinned_memory(device.is_cuda()));
    host.copy_(tensor);
    return host;
}

// Releases a block's swapped weights after its forward, however the forward ends.
class BlockUse {
public:
    BlockUse(BlockSwap& swap, std::int64_t index)
        : swap_(swap)
        , index_(index) {
        swap_.acquire(index_, SwapPass::Forward);
    }
    ~BlockUse() { swap_.release(index_, SwapPass::Forward); }
    BlockUse(const BlockUse&) = delete;
    BlockUse& operator=(const BlockUse&) = delete;

private:
    BlockSwap& swap_;
    std::int64_t index_;
};

} // namespace

void DiffusionTransformerImpl::set_checkpointed_blocks(std::int64_t count) {
    checkpointed_blocks_ = std::clamp<std::int64_t>(count, 0, num_blocks());
}

std::int64_t DiffusionTransformerImpl::quantize_base(lora::BaseQuantization quantization) {
    if (quantization == lora::BaseQuantization::None) {
        return 0;
    }
    if (block_swap_) {
        throw Error(ErrorCode::Internal, "quantize the base before its blocks swap");
    }
    std::int64_t quantized = 0;
    for (auto& [name, layer] : lora::linear_layers(*this)) {
        if (is_quantized_base_layer(name)) {
            layer->quantize_base(quantization);
            ++quantized;
        }
    }
    return quantized;
}

void DiffusionTransformerImpl::swap_blocks(std::int64_t count, c10::Device device,
                                           std::int64_t first, std::int64_t end) {
    if (count <= 0) {
        return;
    }
    if (block_swap_) {
        throw Error(ErrorCode::Internal, "the transformer's blocks already swap");
    }
    end = end < 0 ? num_blocks() : end;
    if (first < 0 || end > num_blocks() || first >= end) {
        throw Error(ErrorCode::Internal, "the blocks to swap are out of the model's range");
    }
    if (count > end - first) {
        throw Error(
            ErrorCode::BadInput,
            "memory.blocks_to_swap is " + std::to_string(count) + ", but " +
                (end - first == num_blocks()
                     ? "this model has " + std::to_string(num_blocks()) + " blocks."
                     : "this pipeline stage runs " + std::to_string(end - first) + " blocks."),
            "Swap at most " + std::to_string(end - first) + " blocks.")
            .with_field("memory.blocks_to_swap");
    }
    std::vector<BlockSwap::Block> blocks;
    for (std::int64_t index = end - count; index < end; ++index) {
        BlockSwap::Block block{index, {}};
        torch::nn::Module& module = block_module(index);
        for (const auto& item : module.named_parameters()) {
            if (!lora::is_adapter_tensor(item.key())) {
                block.tensors.push_back(item.value());
            }
        }
        for (const auto& item : module.named_buffers()) {
            block.tensors.push_back(item.value());
        }
        blocks.push_back(std::move(block));
    }
    block_swap_ = std::make_shared<BlockSwap>(std::move(blocks), device);
    if (observer_) {
        block_swap_->set_observer(observer_, observer_name_);
    }
}

std::int64_t DiffusionTransformerImpl::swapped_blocks() const {
    return block_swap_ ? block_swap_->count() : 0;
}

void DiffusionTransformerImpl::set_residency_observer(std::shared_ptr<ResidencyObserver> observer,
                                                      std::string name) {
    observer_ = std::move(observer);
    observer_name_ = std::move(name);
    if (block_swap_) {
        block_swap_->set_observer(observer_, observer_name_);
    }
    if (activation_offload_) {
        activation_offload_->set_observer(observer_, observer_name_);
    }
}

void DiffusionTransformerImpl::set_offload_activations(bool offload) {
    if (!offload) {
        activation_offload_.reset();
        return;
    }
    if (!activation_offload_) {
        activation_offload_ = std::make_shared<ActivationOffload>();
        activation_offload_->set_observer(observer_, observer_name_);
    }
}

void DiffusionTransformerImpl::finish_gradients() {
    if (block_swap_) {
        block_swap_->settle_gradients();
    }
}

void DiffusionTransformerImpl::to(torch::Device device, torch::Dtype dtype, bool non_blocking) {
    if (block_swap_) {
        throw Error(ErrorCode::Internal, "a transformer whose blocks swap is not cast");
    }
    torch::nn::Module::to(device, dtype, non_blocking);
}

void DiffusionTransformerImpl::to(torch::Dtype dtype, bool non_blocking) {
    if (block_swap_) {
        throw Error(ErrorCode::Internal, "a transformer whose blocks swap is not cast");
    }
    torch::nn::Module::to(dtype, non_blocking);
}

void DiffusionTransformerImpl::to(torch::Device device, bool non_blocking) {
    if (!block_swap_) {
        torch::nn::Module::to(device, non_blocking);
        return;
    }
    move_unswapped(device, non_blocking);
    block_swap_->set_device(device);
}

void DiffusionTransformerImpl::move_unswapped(torch::Device device, bool non_blocking) {
    torch::NoGradGuard no_grad;
    for (const at::Tensor& tensor : parameters()) {
        if (!block_swap_->holds(tensor)) {
            tensor.set_data(tensor.to(device, non_blocking));
        }
    }
    for (const at::Tensor& tensor : buffers()) {
        if (!block_swap_->holds(tensor)) {
            tensor.set_data(tensor.to(device, non_blocking));
        }
    }
}

void DiffusionTransformerImpl::park(Parking where, c10::Device device, const Reload& reload) {
    if (where == Parking::None) {
        return;
    }
    if (parking_ == Parking::Disk && where == Parking::Host) {
        if (reload) {
            read_back(reload, device, /*on_host=*/true);
        } else {
            where = Parking::Disk; // nothing frozen is left to keep on the host
        }
    }
    const bool moves_frozen = where != parking_;
    torch::NoGradGuard no_grad;
    auto visit = [&](const std::string& name, const at::Tensor& tensor, bool frozen) {
        if (!frozen) {
            // What trains stays beside its optimizer state and gradients.
            if (tensor.device() != device) {
                tensor.set_data(tensor.to(device));
            }
            return;
        }
        if (!moves_frozen) {
            return;
        }
        if (where == Parking::Disk) {
            if (!dropped_.count(name)) {
                dropped_[name] = {tensor.sizes().vec(), tensor.scalar_type()};
            }
            tensor.set_data(at::empty({0}, tensor.options().device(c10::kCPU)));
            return;
        }
        if (block_swap_ && block_swap_->holds(tensor)) {
            return; // already on the host
        }
        if (tensor.is_cpu() && !device.is_cpu() && (!device.is_cuda() || tensor.is_pinned())) {
            return; // the sampler left it there
        }
        tensor.set_data(parked_copy(tensor, device));
    };
    for (const auto& item : named_parameters()) {
        visit(item.key(), item.value(), !item.value().requires_grad());
    }
    for (const auto& item : named_buffers()) {
        visit(item.key(), item.value(), true);
    }
    if (!moves_frozen) {
        return;
    }
    parking_ = where;
    if (observer_) {
        ResidencyEvent event;
        event.kind = ResidencyEventKind::Parked;
        event.model = observer_name_;
        event.where = where == Parking::Disk ? "disk" : "host";
        observer_->record(event);
    }
}

void DiffusionTransformerImpl::read_back(const Reload& reload, c10::Device device, bool on_host) {
    if (dropped_.empty()) {
        return;
    }
    torch::NoGradGuard no_grad;
    std::map<std::string, at::Tensor> values;
    for (auto& [name, value] : reload()) {
        values[name] = std::move(value);
    }
    auto visit = [&](const std::string& name, const at::Tensor& tensor) {
        const auto dropped = dropped_.find(name);
        if (dropped == dropped_.end()) {
            return;
        }
        const auto found = values.find(name);
        if (found == values.end() || found->second.sizes().vec() != dropped->second.sizes ||
            found->second.scalar_type() != dropped->second.dtype) {
            throw Error(ErrorCode::Internal,
                        "the model folder no longer gives " + name + " as it was loaded");
        }
        if (block_swap_ && block_swap_->holds(tensor)) {
            tensor.set_data(parked_copy(found->second, block_swap_->device()));
        } else {
            tensor.set_data(on_host ? parked_copy(found->second, device)
                                    : found->second.to(device));
        }
        found->second = at::Tensor();
    };
    for (const auto& item : named_parameters()) {
        visit(item.key(), item.value());
    }
    for (const auto& item : named_buffers()) {
        visit(item.key(), item.value());
    }
    dropped_.clear();
}

void DiffusionTransformerImpl::unpark(c10::Device device, const Reload& reload) {
    if (parking_ == Parking::None) {
        return;
    }
    read_back(reload, device, /*on_host=*/false);
    torch::NoGradGuard no_grad;
    auto visit = [&](const at::Tensor& tensor) {
        const bool swapped = block_swap_ && block_swap_->holds(tensor);
        if (!swapped && tensor.device() != device) {
            tensor.set_data(tensor.to(device));
        }
    };
    for (const auto& tensor : parameters()) {
        visit(tensor);
    }
    for (const auto& tensor : buffers()) {
        visit(tensor);
    }
    parking_ = Parking::None;
    if (observer_) {
        ResidencyEvent event;
        event.kind = ResidencyEventKind::Unparked;
        event.model = observer_name_;
        observer_->record(event);
    }
}

bool DiffusionTransformerImpl::block_recomputes(std::int64_t index) const {
    if (!torch::GradMode::is_enabled()) {
        return false;
    }
    if (block_swap_ && block_swap_->swaps(index)) {
        return true;
    }
    return is_training() && index < checkpointed_blocks_;
}

std::vector<at::Tensor>
DiffusionTransformerImpl::run_block_function(std::int64_t index, CheckpointedFunction function,
                                             const std::vector<at::Tensor>& inputs) {
    const bool recomputes = block_recomputes(index);
    if (block_swap_ && block_swap_->swaps(index)) {
        return run_swapped_block(index, std::move(function), inputs, recomputes);
    }
    if (block_swap_) {
        block_swap_->prefetch(index + 1, SwapPass::Forward);
    }
    if (!recomputes) {
        return function(inputs);
    }
    return checkpoint(std::move(function), inputs, block_module(index).parameters(),
                      with_activation_offload(index, {}));
}

CheckpointHooks DiffusionTransformerImpl::with_activation_offload(std::int64_t index,
                                                                  CheckpointHooks hooks) const {
    if (!activation_offload_) {
        return hooks;
    }
    const std::shared_ptr<ActivationOffload> offload = activation_offload_;
    // Filled in forward, emptied once the block's gradients exist.
    auto entry = std::make_shared<std::shared_ptr<ActivationOffload::Entry>>();
    hooks.stash_first_input = [offload, entry, index](const at::Tensor& input) {
        *entry = offload->stash(input, index);
        return std::function<at::Tensor()>([offload, entry] { return offload->restore(**entry); });
    };
    hooks.after_gradients = [offload, entry, after = std::move(hooks.after_gradients)](
                                const std::vector<at::Tensor>& parameters,
                                std::vector<at::Tensor>& gradients) {
        if (*entry) {
            offload->release(**entry);
            entry->reset();
        }
        if (after) {
            after(parameters, gradients);
        }
    };
    return hooks;
}

std::vector<at::Tensor>
DiffusionTransformerImpl::run_swapped_block(std::int64_t index, CheckpointedFunction function,
                                            const std::vector<at::Tensor>& inputs,
                                            bool recomputes) {
    const std::shared_ptr<BlockSwap> swap = block_swap_;
    const BlockUse use(*swap, index);
    swap->prefetch(index + 1, SwapPass::Forward);
    if (!recomputes) {
        return function(inputs);
    }
    CheckpointHooks hooks;
    hooks.before_recompute = [swap, index] {
        swap->acquire(index, SwapPass::Backward);
        swap->prefetch(index - 1, SwapPass::Backward);
    };
    hooks.after_gradients = [swap, index](const std::vector<at::Tensor>& parameters,
                                          std::vector<at::Tensor>& gradients) {
        swap->release(index, SwapPass::Backward);
        swap->take_gradients(parameters, gradients);
    };
    return checkpoint(std::move(function), inputs, block_module(index).parameters(),
                      with_activation_offload(index, std::move(hooks)));
}

std::filesystem::path save_transformer_folder(const DiffusionTransformerImpl& transformer,
                                              const std::filesystem::path& folder,
                                              std::uint64_t max_shard_bytes) {
    std::filesystem::create_directories(folder);
    core::write_json_file(folder / "config.json", transformer.config_json());
    SaveWeightsOptions save;
    save.max_shard_bytes = max_shard_bytes;
    save.ignore = lora::is_adapter_tensor;
    return save_weights_sharded(transformer, folder, save);
}

void release_module(torch::nn::Module& module) {
    torch::NoGradGuard no_grad;
    for (auto& parameter : module.parameters()) {
        parameter.set_requires_grad(false);
        parameter.set_data(at::empty({0}, parameter.options()));
    }
    for (auto& buffer : module.buffers()) {
        buffer.set_data(at::empty({0}, buffer.options()));
    }
}

} // namespace tuneframe::models
