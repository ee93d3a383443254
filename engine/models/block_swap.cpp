#include "engine/models/block_swap.h"

#include "engine/core/error.h"
#include "engine/core/grad_mode.h"

#include <ATen/ATen.h>

#include <optional>

#ifdef TUNEFRAME_TORCH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace tuneframe::models {
namespace {

// A host copy of `tensor` to keep as its data: the tensor's own when it is already one, else a
// fresh (pinned) one, so the peak is one tensor more than what is moved.
at::Tensor host_copy(const at::Tensor& tensor, bool pinned) {
    if (tensor.is_cpu() && (!pinned || tensor.is_pinned())) {
        return tensor.variable_data();
    }
    at::Tensor host = at::empty(
        tensor.sizes(),
        at::TensorOptions().dtype(tensor.dtype()).device(c10::kCPU).pinned_memory(pinned));
    host.copy_(tensor);
    return host;
}

c10::Device with_index(c10::Device device) {
#ifdef TUNEFRAME_TORCH_CUDA
    if (device.is_cuda() && !device.has_index()) {
        return {c10::kCUDA, c10::cuda::current_device()};
    }
#endif
    return device;
}

} // namespace

struct BlockSwap::Resident {
    std::vector<at::Tensor> host;   // the tensors' host data, kept while the copies live
    std::vector<at::Tensor> device; // the copies
    int uses = 0;
#ifdef TUNEFRAME_TORCH_CUDA
    std::optional<at::cuda::CUDAEvent> copied;
#endif
};

struct BlockSwap::PendingGradient {
    at::Tensor parameter;
    at::Tensor staging; // pinned, the gradient's dtype and shape
    bool in_flight = false;
#ifdef TUNEFRAME_TORCH_CUDA
    at::cuda::CUDAEvent landed;
#endif
};

#ifdef TUNEFRAME_TORCH_CUDA
// Weights go up on one stream and gradients come down on another, so the two directions share
// the bus instead of queueing behind each other.
class BlockSwap::Streams {
public:
    explicit Streams(const c10::Device& device)
        : up(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index()))
        , down(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index())) {}

    c10::cuda::CUDAStream up;
    c10::cuda::CUDAStream down;
};
#else
class BlockSwap::Streams {};
#endif

BlockSwap::BlockSwap(std::vector<Block> blocks, c10::Device device)
    : device_(with_index(device)) {
    const bool pinned = device_.is_cuda();
    core::NoGradGuard no_grad;
    for (Block& block : blocks) {
        for (at::Tensor& tensor : block.tensors) {
            tensor.set_data(host_copy(tensor, pinned));
            held_.insert(tensor.unsafeGetTensorImpl());
        }
        blocks_[block.index] = std::move(block.tensors);
    }
    set_device(device_);
}

BlockSwap::~BlockSwap() {
#ifdef TUNEFRAME_TORCH_CUDA
    // No copy may still write into a buffer or a tensor that is about to go.
    if (streams_) {
        try {
            streams_->up.synchronize();
            streams_->down.synchronize();
        } catch (...) {
            // A failed device has nothing left to drain.
        }
    }
#endif
}

void BlockSwap::set_observer(std::shared_ptr<ResidencyObserver> observer, std::string model) {
    observer_ = std::move(observer);
    model_ = std::move(model);
}

bool BlockSwap::holds(const at::Tensor& tensor) const {
    return tensor.defined() && held_.count(tensor.unsafeGetTensorImpl()) > 0;
}

void BlockSwap::set_device(c10::Device device) {
    device_ = with_index(device);
#ifdef TUNEFRAME_TORCH_CUDA
    if (device_.is_cuda()) {
        if (!streams_) {
            streams_ = std::make_unique<Streams>(device_);
        }
        // Only pinned memory copies asynchronously.
        core::NoGradGuard no_grad;
        for (auto& [index, tensors] : blocks_) {
            if (resident_.count(index)) {
                continue;
            }
            for (const at::Tensor& tensor : tensors) {
                if (tensor.numel() > 0) {
                    tensor.set_data(host_copy(tensor, true));
                }
            }
        }
    }
#endif
}

void BlockSwap::notify(ResidencyEventKind kind, std::int64_t block, SwapPass pass) const {
    if (observer_) {
        ResidencyEvent event;
        event.kind = kind;
        event.model = model_;
        event.block = block;
        event.pass = pass;
        observer_->record(event);
    }
}

void BlockSwap::prefetch(std::int64_t index, SwapPass pass) {
    const auto block = blocks_.find(index);
    if (block == blocks_.end() || resident_.count(index)) {
        return;
    }
    core::NoGradGuard no_grad;
    auto resident = std::make_unique<Resident>();
    for (const at::Tensor& tensor : block->second) {
        resident->host.push_back(tensor.variable_data());
    }
#ifdef TUNEFRAME_TORCH_CUDA
    if (device_.is_cuda()) {
        const c10::cuda::CUDAGuard on_device(device_.index());
        const c10::cuda::CUDAStream compute = c10::cuda::getCurrentCUDAStream(device_.index());
        for (const at::Tensor& host : resident->host) {
            resident->device.push_back(at::empty(host.sizes(), host.options().device(device_)));
        }
        // The copies' memory was allocated on the compute stream: the copy starts once that
        // stream has finished whatever used the memory before.
        at::cuda::CUDAEvent allocated;
        allocated.record(compute);
        allocated.block(streams_->up);
        {
            const c10::cuda::CUDAStreamGuard on_up(streams_->up);
            for (std::size_t i = 0; i < resident->host.size(); ++i) {
                resident->device[i].copy_(resident->host[i], /*non_blocking=*/true);
            }
        }
        resident->copied.emplace();
        resident->copied->record(streams_->up);
    } else
#endif
    {
        for (const at::Tensor& host : resident->host) {
            at::Tensor copy = at::empty(host.sizes(), host.options().device(device_));
            copy.copy_(host);
            resident->device.push_back(std::move(copy));
        }
    }
    resident_[index] = std::move(resident);
    notify(ResidencyEventKind::BlockFetched, index, pass);
}

void BlockSwap::acquire(std::int64_t index, SwapPass pass) {
    if (!swaps(index)) {
        return;
    }
    prefetch(index, pass);
    Resident& resident = *resident_.at(index);
    if (resident.uses++ == 0) {
#ifdef TUNEFRAME_TORCH_CUDA
        if (resident.copied) {
            resident.copied->block(c10::cuda::getCurrentCUDAStream(device_.index()));
        }
#endif
        core::NoGradGuard no_grad;
        const std::vector<at::Tensor>& tensors = blocks_.at(index);
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            tensors[i].set_data(resident.device[i]);
        }
    }
    notify(ResidencyEventKind::BlockUsed, index, pass);
}

void BlockSwap::release(std::int64_t index, SwapPass pass) {
    const auto found = resident_.find(index);
    if (found == resident_.end()) {
        return;
    }
    Resident& resident = *found->second;
    if (--resident.uses > 0) {
        return;
    }
    core::NoGradGuard no_grad;
    const std::vector<at::Tensor>& tensors = blocks_.at(index);
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        tensors[i].set_data(resident.host[i]);
    }
    // The copies were allocated on the compute stream and only that stream reads them after
    // the copy it waited for, so their memory may go back to the allocator now.
    resident_.erase(found);
    notify(ResidencyEventKind::BlockDropped, index, pass);
}

void BlockSwap::add_gradient(at::Tensor& parameter, const at::Tensor& gradient) const {
    // As AccumulateGrad: the first gradient becomes .grad(), later ones are added in place.
    if (!parameter.grad().defined()) {
        parameter.mutable_grad() = gradient;
    } else {
        parameter.mutable_grad().add_(gradient);
    }
}

void BlockSwap::take_gradients(const std::vector<at::Tensor>& parameters,
                               std::vector<at::Tensor>& gradients) {
    core::NoGradGuard no_grad;
    for (std::size_t i = 0; i < parameters.size() && i < gradients.size(); ++i) {
        if (!gradients[i].defined() || !holds(parameters[i])) {
            continue;
        }
        const at::Tensor gradient = std::move(gradients[i]);
        gradients[i] = at::Tensor();
        at::Tensor parameter = parameters[i];
#ifdef TUNEFRAME_TORCH_CUDA
        if (gradient.is_cuda()) {
            std::unique_ptr<PendingGradient>& pending = pending_[parameter.unsafeGetTensorImpl()];
            if (!pending) {
                pending = std::make_unique<PendingGradient>();
                pending->parameter = parameter;
                pending->staging = at::empty(
                    gradient.sizes(), gradient.options().device(c10::kCPU).pinned_memory(true));
            }
            if (pending->in_flight) { // the last micro-batch's, long landed
                pending->landed.synchronize();
                add_gradient(pending->parameter, pending->staging.clone());
                pending->in_flight = false;
            }
            const c10::cuda::CUDAStream compute =
                c10::cuda::getCurrentCUDAStream(gradient.device().index());
            at::cuda::CUDAEvent computed;
            computed.record(compute);
            computed.block(streams_->down);
            {
                const c10::cuda::CUDAStreamGuard on_down(streams_->down);
                pending->staging.copy_(gradient, /*non_blocking=*/true);
            }
            // The gradient's memory belongs to the compute stream: keep it from reuse until
            // the copy down has read it.
            c10::cuda::CUDACachingAllocator::recordStream(gradient.storage().data_ptr(),
                                                          streams_->down);
            pending->landed.record(streams_->down);
            pending->in_flight = true;
            continue;
        }
#endif
        // A gradient autograd computed on the host may share memory with another; .grad()
        // keeps a copy of its own.
        add_gradient(parameter, gradient.is_cpu() ? gradient.clone() : gradient.to(c10::kCPU));
    }
}

void BlockSwap::settle_gradients() {
#ifdef TUNEFRAME_TORCH_CUDA
    core::NoGradGuard no_grad;
    for (auto& [impl, pending] : pending_) {
        if (pending->in_flight) {
            pending->landed.synchronize();
            add_gradient(pending->parameter, pending->staging.clone());
            pending->in_flight = false;
        }
    }
#endif
}

} // namespace tuneframe::models
