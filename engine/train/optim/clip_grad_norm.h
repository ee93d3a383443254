#pragma once

#include "engine/train/optim/optimizer.h"

#include <ATen/core/Tensor.h>

#include <functional>

namespace tuneframe::train {

struct GradNorm {
    at::Tensor tensor; // the same as torch returns it: 0-d float32 on the first gradient's device
    // The total norm before clipping, read back to the host: on a GPU this waits for the step,
    // so a trainer reads it once the step is queued, not inside it.
    double value() const { return tensor.item<double>(); }
};

// torch.nn.utils.clip_grad_norm_ (torch 1.13, 2-norm; max_norm may be +infinity, which only
// measures): the 2-norm of the gradients' 2-norms,
// then every gradient times min(1, max_norm / (total + 1e-6)), in place. Parameters without a
// gradient are ignored; with none at all the norm is 0. bf16/fp16 gradients have their norms
// taken in float32 (torch would take them in their own type). A non-finite norm is returned as
// it is, for the caller to act on; the gradients are then scaled by NaN, as torch does.
GradNorm clip_grad_norm(const NamedParameters& parameters, double max_norm);

// The same over gradients sharded across ranks (ZeRO-2): each rank passes the gradients it
// owns, and `sum_over_ranks` turns this rank's sum of squared norms (a 0-d float32 tensor) into
// the sum over all ranks, so every rank clips with the global norm.
// `counted_here`, when given, says which gradients this rank adds to its sum: under tensor
// parallelism a replicated parameter is counted by one rank of the group, a split one by all.
// Every gradient is clipped either way.
using SquareSumReducer = std::function<at::Tensor(const at::Tensor&)>;
using CountedHere = std::function<bool(const std::string& name)>;
GradNorm clip_grad_norm(const NamedParameters& parameters, double max_norm,
                        const SquareSumReducer& sum_over_ranks,
                        const CountedHere& counted_here = {});

} // namespace tuneframe::train
