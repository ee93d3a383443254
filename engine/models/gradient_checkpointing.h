#pragma once

#include <ATen/Tensor.h>

#include <functional>
#include <vector>

namespace tuneframe::models {

using CheckpointedFunction = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;

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
                                   const std::vector<at::Tensor>& parameters);

} // namespace tuneframe::models
