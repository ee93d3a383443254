#pragma once

#include "engine/dist/communicator.h"
#include "engine/models/tensor_parallel.h"

namespace tuneframe::dist {

// TensorParallel over a tensor-parallel group: enter() and leave() are Megatron's f and g, each
// an autograd function whose one all-reduce runs in backward (f) or forward (g); reduce()
// all-reduces both ways. On Gloo,
// bf16/fp16 activations are summed as float32 (Gloo's half-precision sums are partial).
class AllReduceTensorParallel : public models::TensorParallel {
public:
    explicit AllReduceTensorParallel(Communicator& group)
        : group_(group) {}

    int size() const override { return group_.size(); }
    int rank() const override { return group_.rank(); }
    at::Tensor enter(const at::Tensor& x) override;
    at::Tensor leave(const at::Tensor& x) override;
    at::Tensor reduce(const at::Tensor& x) override;

    // `x` summed over the group, as a new tensor (the autograd functions call this).
    at::Tensor sum(const at::Tensor& x);

private:
    Communicator& group_;
};

} // namespace tuneframe::dist
