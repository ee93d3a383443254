#pragma once

#include "engine/models/residency_observer.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace tuneframe::models {

// Activation offload (memory.offload_activations, musubi-tuner's
// --gradient_checkpointing_cpu_offload): a recomputed block's saved input, the one token-width
// tensor checkpointing keeps per block, waits in host memory between forward and backward
// instead of on the device. At 81x480x832 that is 13 GB over Wan 14B's 40 blocks; the device
// then holds at most two: the one being brought back for its block's recomputation and the next
// one on its way.
//
// On CUDA the copies run on a stream of their own ordered by CUDA events, so nothing waits on
// the host: the copy down starts once the compute stream has produced the input, and the
// allocator keeps the input's device memory until that copy has read it (recordStream); the
// copy up for block i - 1 is issued as block i recomputes, into memory allocated on the compute
// stream, which waits for it only when block i - 1 needs it. Elsewhere (the CPU) the same
// happens with plain copies into fresh tensors, so tests see the mechanism run.
//
// One forward or backward at a time (backward runs on autograd's thread while the caller waits).
class ActivationOffload {
public:
    // One block's saved input, in host memory from stash() until its recomputation.
    class Entry;

    ActivationOffload();
    ~ActivationOffload();
    ActivationOffload(const ActivationOffload&) = delete;
    ActivationOffload& operator=(const ActivationOffload&) = delete;

    void set_observer(std::shared_ptr<ResidencyObserver> observer, std::string model);

    // Starts copying block `block`'s input `tensor` to the host; the caller then lets go of the
    // device tensor. An entry stashed right after a lower block's of the same forward pass
    // remembers that one, to bring it back ahead of its use.
    std::shared_ptr<Entry> stash(const at::Tensor& tensor, std::int64_t block);
    // The entry's tensor on its device again, ordered after the copy on the current stream
    // (copied now if it was not prefetched); then starts bringing back the entry stashed before
    // it. Once per entry.
    at::Tensor restore(Entry& entry);
    // The restored tensor's block has its gradients: its device copy goes with them.
    void release(Entry& entry);

private:
    class Streams;

    void prefetch(Entry& entry);
    void notify(ResidencyEventKind kind, std::int64_t block) const;

    std::mutex mutex_; // the last entry, and lazily made streams
    std::weak_ptr<Entry> last_;
    std::unique_ptr<Streams> streams_;
    std::shared_ptr<ResidencyObserver> observer_;
    std::string model_;
};

} // namespace tuneframe::models
