#pragma once

#include <ATen/Tensor.h>

#include <functional>
#include <vector>

namespace tuneframe::models {

using CheckpointedFunction = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;

// What a caller does around the recomputation in backward (block swap: bring the block's
// weights to the device first, and let them go once its gradients exist). Both run on the
// autograd thread, with the stream the forward ran on current.
struct CheckpointHooks {
    // Before the function runs again.
    std::function<void()> before_recompute;
    // After the gradients are computed, before autograd receives them; also when there were none
    // to compute. `parameters` are the trainable ones `checkpoint` was given (in order),
    // `gradients` theirs (undefined where none). A hook may take a gradient, leaving it
    // undefined: that parameter then receives nothing from autograd.
    std::function<void(const std::vector<at::Tensor>& parameters,
                       std::vector<at::Tensor>& gradients)>
        after_gradients;
    // Keeps the first input somewhere else between forward and backward (activation offload):
    // called in forward with that input, it returns what gives the input back in backward,
    // after before_recompute. Unset: the input is saved as it is.
    std::function<std::function<at::Tensor()>(const at::Tensor& input)> stash_first_input;
};

// Activation checkpointing (LibTorch has no torch.utils.checkpoint): runs `function(inputs)`
// without recording its graph, and in backward runs it again with grad enabled to get the
// gradients of `inputs` and `parameters`. `parameters` are the trainable tensors `function`
// uses; they are passed explicitly so the outputs require grad even when no input does (the
// frozen-base LoRA case, where the first block's input needs no gradient).
//
// As torch.utils.checkpoint with preserve_rng_state: the default generators' states (CPU, and
// the inputs' CUDA device) are recorded before the first run and restored around the
// recomputation, so dropout draws the same masks both times.
std::vector<at::Tensor> checkpoint(CheckpointedFunction function,
                                   const std::vector<at::Tensor>& inputs,
                                   const std::vector<at::Tensor>& parameters,
                                   CheckpointHooks hooks = {});

} // namespace tuneframe::models
