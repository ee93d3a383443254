#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>

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

} // namespace tuneframe::models
