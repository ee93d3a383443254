#pragma once

// The fused Adam/AdamW kernels of LibTorch 2.x (torch.optim.AdamW(fused=True)): one launch
// updates every parameter, where the per-tensor path takes about ten kernels per parameter
// (hundreds of launches per LoRA step). LibTorch 2.1 has them on CUDA, 2.4 on the CPU too; 1.13,
// our CPU build, has neither. Everything that calls them goes through here.

#include <ATen/Tensor.h>
#include <c10/core/Device.h>
#include <c10/util/ArrayRef.h>

namespace tuneframe::core {

struct FusedAdamScalars {
    double lr = 0;
    double beta1 = 0;
    double beta2 = 0;
    double eps = 0;
    double weight_decay = 0;
    // true: AdamW's decoupled decay; false: Adam's L2 term added to the gradient.
    bool decoupled = true;
};

// Whether the linked LibTorch has a fused Adam kernel for float32 tensors on `device`.
bool has_fused_adam(const c10::Device& device);

// One Adam step over every listed parameter at once: `steps` (float32 0-d tensors on the
// parameters' device) are incremented first, as torch's fused optimizer does, then each
// parameter, exp_avg and exp_avg_sq is updated in place. All float32, one device, matching
// lengths. An Internal error where has_fused_adam() is false for that device.
void fused_adam_step(c10::ArrayRef<at::Tensor> params, c10::ArrayRef<at::Tensor> grads,
                     c10::ArrayRef<at::Tensor> exp_avgs, c10::ArrayRef<at::Tensor> exp_avg_sqs,
                     c10::ArrayRef<at::Tensor> steps, const FusedAdamScalars& scalars);

} // namespace tuneframe::core
