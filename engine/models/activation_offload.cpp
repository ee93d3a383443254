#include "engine/models/activation_offload.h"

#include "engine/core/grad_mode.h"

#include <ATen/ATen.h>

#include <optional>

#ifdef TUNEFRAME_TORCH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace tuneframe::models {

class ActivationOffload::Entry {
public:
    std::int64_t block = -1;
    c10::Device device = c10::kCPU;
    at::Tensor host;        // pinned for a CUDA device
    at::Tensor device_copy; // from prefetch until the block's gradients exist
    bool restored = false;
    std::weak_ptr<Entry> previous; // the lower block's entry of the same forward pass
#ifdef TUNEFRAME_TORCH_CUDA
    std::optional<at::cuda::CUDAEvent> copied_up;
#endif
};

#ifdef TUNEFRAME_TORCH_CUDA
// Both directions on one stream: a block's input goes down long before it comes back up, and
// one stream keeps each entry's two copies in order without an event between them.
class ActivationOffload::Streams {
public:
    explicit Streams(c10::DeviceIndex device)
        : copies(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device)) {}

    c10::cuda::CUDAStream copies;
};
#else
class ActivationOffload::Streams {};
#endif

ActivationOffload::ActivationOffload() = default;

ActivationOffload::~ActivationOffload() {
#ifdef TUNEFRAME_TORCH_CUDA
    // No copy may still write into a buffer that is about to go.
    if (streams_) {
        try {
            streams_->copies.synchronize();
        } catch (...) {
            // A failed device has nothing left to drain.
        }
    }
#endif
}

void ActivationOffload::set_observer(std::shared_ptr<ResidencyObserver> observer,
                                     std::string model) {
    observer_ = std::move(observer);
    model_ = std::move(model);
}

void ActivationOffload::notify(ResidencyEventKind kind, std::int64_t block) const {
    if (observer_) {
        ResidencyEvent event;
        event.kind = kind;
        event.model = model_;
        event.block = block;
        event.pass =
            kind == ResidencyEventKind::ActivationStashed ? SwapPass::Forward : SwapPass::Backward;
        observer_->record(event);
    }
}

std::shared_ptr<ActivationOffload::Entry> ActivationOffload::stash(const at::Tensor& tensor,
                                                                   std::int64_t block) {
    core::NoGradGuard no_grad;
    auto entry = std::make_shared<Entry>();
    entry->block = block;
    entry->device = tensor.device();
    const at::Tensor data = tensor.detach();
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        const std::shared_ptr<Entry> last = last_.lock();
        if (last && last->block < block && !last->restored) {
            entry->previous = last;
        }
        last_ = entry;
#ifdef TUNEFRAME_TORCH_CUDA
        if (data.is_cuda() && !streams_) {
            streams_ = std::make_unique<Streams>(data.device().index());
        }
#endif
    }
#ifdef TUNEFRAME_TORCH_CUDA
    if (data.is_cuda()) {
        const c10::cuda::CUDAGuard on_device(data.device().index());
        entry->host = at::empty(data.sizes(), data.options().device(c10::kCPU).pinned_memory(true));
        at::cuda::CUDAEvent produced;
        produced.record(c10::cuda::getCurrentCUDAStream(data.device().index()));
        produced.block(streams_->copies);
        {
            const c10::cuda::CUDAStreamGuard on_copies(streams_->copies);
            entry->host.copy_(data, /*non_blocking=*/true);
        }
        // The caller drops the device tensor now; its memory must outlive the copy reading it.
        c10::cuda::CUDACachingAllocator::recordStream(data.storage().data_ptr(), streams_->copies);
    } else
#endif
    {
        entry->host = data.clone(at::MemoryFormat::Contiguous);
    }
    notify(ResidencyEventKind::ActivationStashed, block);
    return entry;
}

void ActivationOffload::prefetch(Entry& entry) {
    if (entry.device_copy.defined() || entry.restored) {
        return;
    }
    core::NoGradGuard no_grad;
#ifdef TUNEFRAME_TORCH_CUDA
    if (entry.device.is_cuda()) {
        const c10::cuda::CUDAGuard on_device(entry.device.index());
        const c10::cuda::CUDAStream compute = c10::cuda::getCurrentCUDAStream(entry.device.index());
        entry.device_copy =
            at::empty(entry.host.sizes(), entry.host.options().device(entry.device));
        // The copy's memory was allocated on the compute stream: the copy starts once that
        // stream has finished whatever used the memory before.
        at::cuda::CUDAEvent allocated;
        allocated.record(compute);
        allocated.block(streams_->copies);
        {
            const c10::cuda::CUDAStreamGuard on_copies(streams_->copies);
            entry.device_copy.copy_(entry.host, /*non_blocking=*/true);
        }
        entry.copied_up.emplace();
        entry.copied_up->record(streams_->copies);
    } else
#endif
    {
        entry.device_copy = entry.host.clone();
    }
    notify(ResidencyEventKind::ActivationFetched, entry.block);
}

at::Tensor ActivationOffload::restore(Entry& entry) {
    prefetch(entry);
#ifdef TUNEFRAME_TORCH_CUDA
    if (entry.copied_up) {
        entry.copied_up->block(c10::cuda::getCurrentCUDAStream(entry.device.index()));
    }
#endif
    entry.restored = true;
    notify(ResidencyEventKind::ActivationUsed, entry.block);
    at::Tensor tensor = entry.device_copy;
    if (const std::shared_ptr<Entry> previous = entry.previous.lock()) {
        prefetch(*previous);
    }
    return tensor;
}

void ActivationOffload::release(Entry& entry) {
    if (!entry.device_copy.defined()) {
        return;
    }
    // Only the compute stream reads the copy after it waited for it, so its memory may go back
    // to the allocator now.
    entry.device_copy = at::Tensor();
    entry.host = at::Tensor();
    notify(ResidencyEventKind::ActivationDropped, entry.block);
}

} // namespace tuneframe::models
