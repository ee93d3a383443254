#pragma once

#include "engine/models/residency_observer.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tuneframe::models {

// Block swap (memory.blocks_to_swap, musubi-tuner's --blocks_to_swap): the weights of some of a
// transformer's blocks live in host memory, pinned when the device is a GPU, and are copied to
// the device just before the block runs and given back right after, so the device holds the
// resident blocks plus two swapped ones: the one running and the next one arriving.
//
// A swapped block's tensors are its parameters and buffers but its LoRA adapters (the frozen
// base, quantized or not; in a full fine-tune its trainable weights too). Between uses each
// tensor's data is its host copy; while the block runs, set_data() points it at a device copy,
// so the block's code, autograd and the optimizer see the same tensor objects throughout.
//
// On CUDA the copies run on a stream of their own, one block ahead of use (the next block in
// forward, the previous one in backward's reverse order), and CUDA events order them: the copy
// waits for the compute stream to reach the point where its memory was allocated, and the
// compute stream waits for the copy before the block runs. Nothing waits on the host. Device
// copies are allocated on the compute stream, so the caching allocator may hand their memory to
// later work of that stream as soon as they are dropped.
//
// A swapped trainable weight (full fine-tune) gets its gradient on the host: the block's
// gradient is copied down on a second stream into a pinned buffer and added to the parameter's
// host .grad() once it has landed (settle_gradients() before the optimizer reads them), so the
// optimizer steps it where it lives.
//
// Elsewhere (the CPU, a test's device) the same happens with plain copies into fresh tensors: on
// the CPU the "device" is the host, and the mechanism runs all the same.
//
// One forward or backward at a time (backward runs on autograd's thread while the caller waits).
class BlockSwap {
public:
    struct Block {
        std::int64_t index = 0;
        std::vector<at::Tensor> tensors; // the block's parameters and buffers but adapters
    };

    // Moves each block's tensors to the host (pinned for a CUDA `device`).
    BlockSwap(std::vector<Block> blocks, c10::Device device);
    ~BlockSwap();
    BlockSwap(const BlockSwap&) = delete;
    BlockSwap& operator=(const BlockSwap&) = delete;

    void set_observer(std::shared_ptr<ResidencyObserver> observer, std::string model);

    std::int64_t count() const { return static_cast<std::int64_t>(blocks_.size()); }
    bool swaps(std::int64_t index) const { return blocks_.count(index) > 0; }
    // Whether `tensor` is one of the swapped tensors (whose home is the host).
    bool holds(const at::Tensor& tensor) const;
    const c10::Device& device() const { return device_; }
    // Where the blocks run from now on (the model moved); pins the host copies for CUDA.
    void set_device(c10::Device device);

    // Starts copying block `index` to the device; nothing for a block not swapped or already
    // there.
    void prefetch(std::int64_t index, SwapPass pass);
    // The block's tensors become their device copies (copied now if not prefetched), ordered
    // after the copy on the current stream. Uses nest: each acquire needs a release.
    void acquire(std::int64_t index, SwapPass pass);
    // The host copies are the tensors again and the device copies go.
    void release(std::int64_t index, SwapPass pass);
    // Takes the gradients of the block's swapped trainable tensors among `parameters` (leaving
    // them undefined in `gradients`) into those tensors' host .grad(). Call after release().
    void take_gradients(const std::vector<at::Tensor>& parameters,
                        std::vector<at::Tensor>& gradients);
    // Waits for the gradients still on their way down and adds them in.
    void settle_gradients();

private:
    struct Resident;
    struct PendingGradient;
    class Streams;

    void notify(ResidencyEventKind kind, std::int64_t block, SwapPass pass) const;
    void add_gradient(at::Tensor& parameter, const at::Tensor& gradient) const;

    std::map<std::int64_t, std::vector<at::Tensor>> blocks_;
    std::unordered_set<const void*> held_; // TensorImpl of every swapped tensor
    c10::Device device_;
    std::map<std::int64_t, std::unique_ptr<Resident>> resident_;
    std::unique_ptr<Streams> streams_;
    std::unordered_map<const void*, std::unique_ptr<PendingGradient>> pending_;
    std::shared_ptr<ResidencyObserver> observer_;
    std::string model_;
};

} // namespace tuneframe::models
