#pragma once

#include "engine/models/tensor_parallel.h"

namespace torch::nn {
class Module;
}

namespace tuneframe::models::wan {

// The layout of a Wan transformer whose blocks were split (named as the checkpoint names its
// parameters, so it also holds for the model's LoRA adapters). The q/k norms normalise across
// all heads, so each rank holds its heads' share of their weights.
TensorParallelLayout tensor_parallel_layout(const torch::nn::Module& transformer);

} // namespace tuneframe::models::wan
