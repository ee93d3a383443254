#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace torch::nn {
class Module;
}

namespace tuneframe::models {

// Tensor parallelism as the transformer sees it (Megatron-LM): each rank of a group holds a
// share of every block's attention heads and feed-forward features, and the layers around
// them exchange activations through these two calls. The model knows nothing of process
// groups; engine/dist implements them over c10d.
class TensorParallel {
public:
    virtual ~TensorParallel() = default;
    virtual int size() const = 0;
    virtual int rank() const = 0;
    // Where a replicated activation enters column-split layers: the identity going forward;
    // going back, each rank's partial gradient is summed over the ranks (Megatron's f).
    virtual at::Tensor enter(const at::Tensor& x) = 0;
    // Where the partial outputs of row-split layers leave: summed over the ranks going forward,
    // the identity going back (Megatron's g).
    virtual at::Tensor leave(const at::Tensor& x) = 0;
    // A statistic each rank computes from its share of the features (the sum of squares of an
    // RMSNorm across all heads), summed over the ranks going forward; going back too, since
    // each rank's gradient of the sum holds only its own share's use of it.
    virtual at::Tensor reduce(const at::Tensor& x) = 0;
};

// How a split model's parameters relate to the whole one's, by parameter name.
struct TensorParallelLayout {
    // Parameters each rank holds a part of, and the dimension they are split along: joined
    // along it in rank order, the parts are the whole model's parameter.
    std::map<std::string, std::int64_t> split_dim;
    // Replicated parameters used inside the split region (lora_A of a column-split layer,
    // lora_B of a row-split one, the q/k norms): each rank's gradient is its heads' or
    // features' share and the true gradient their sum over the ranks.
    std::set<std::string> partial_gradients;

    bool empty() const { return split_dim.empty() && partial_gradients.empty(); }
};

// Which of a transformer's block layers tensor parallelism splits, by module path within a block
// (".attn1.to_q."), and how its per-head norms are held.
struct BlockSplit {
    std::string blocks_prefix;       // "transformer_blocks.", "blocks."
    std::vector<std::string> column; // output features split: weight, bias, lora_B by rows
    std::vector<std::string> row;    // input features split: weight, lora_A by columns
    std::vector<std::string> head_norms;
    // Norms over each head alone are replicated with partial gradients (CogVideoX); norms across
    // all heads keep each rank's heads' share of their weight (Wan).
    bool head_norms_split = false;
};

// The layout of a transformer whose blocks were split as `split` says (named as the checkpoint
// names its parameters, so it also holds for the model's LoRA adapters): column layers' lora_A
// and row layers' lora_B are replicated with partial gradients, a row layer's bias is added once
// after the sum.
TensorParallelLayout block_split_layout(const torch::nn::Module& transformer,
                                        const BlockSplit& split);

} // namespace tuneframe::models
