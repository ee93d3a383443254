#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

// What a transformer's weights do between the host and the device (block swap, a parked expert),
// and its blocks' saved inputs (activation offload),
// told to whoever asks: the tests that check how many blocks are on the device at once, and
// which expert trained what while the other waited. The engine itself records nothing.
namespace tuneframe::models {

enum class ResidencyEventKind {
    BlockFetched, // a swapped block's copy to the device was issued: its device memory exists
    BlockUsed,    // the block runs on those weights (forward, or its recomputation in backward)
    BlockDropped, // its device copies are given back; the host copies are its weights again
    Parked,       // the model's frozen weights left the device (`where`: host or disk)
    Unparked,     // they are back where the model computes
    Trains,       // the trainer runs a micro-batch through the model (`timesteps`: the batch's)
    // Activation offload (see ActivationOffload): a recomputed block's saved input
    ActivationStashed, // is on its way to the host; the device copy goes once it has landed
    ActivationFetched, // is on its way back: its device memory exists
    ActivationUsed,    // is the input of the block's recomputation
    ActivationDropped, // is gone from the device with the block's gradients computed
};

enum class SwapPass { Forward, Backward };

struct ResidencyEvent {
    ResidencyEventKind kind = ResidencyEventKind::BlockFetched;
    std::string model; // the name the observer was attached under ("transformer_2")
    std::int64_t block = -1;
    SwapPass pass = SwapPass::Forward;
    std::string where; // Parked: "host" or "disk"
    at::Tensor timesteps;
};

class ResidencyObserver {
public:
    virtual ~ResidencyObserver() = default;
    // Called on the thread that moves the weights, which in backward is autograd's: an observer
    // that keeps what it is told locks.
    virtual void record(const ResidencyEvent& event) = 0;
};

} // namespace tuneframe::models
