#pragma once

#include "engine/models/tensor_parallel.h"

namespace torch::nn {
class Module;
}

namespace tuneframe::models::cogvideox {

// The layout of a CogVideoX transformer whose blocks were split (named as the checkpoint
// names its parameters, so it also holds for the model's LoRA adapters).
TensorParallelLayout tensor_parallel_layout(const torch::nn::Module& transformer);

} // namespace tuneframe::models::cogvideox
