#include "engine/core/kernels/fused_adam.h"

#include "engine/core/error.h"

#include <ATen/ATen.h>
#include <torch/version.h>

#define TUNEFRAME_TORCH_AT_LEAST(major, minor)                                                     \
    (TORCH_VERSION_MAJOR > (major) ||                                                              \
     (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace tuneframe::core {

bool has_fused_adam(const c10::Device& device) {
    if (device.is_cuda()) {
        return TUNEFRAME_TORCH_AT_LEAST(2, 1);
    }
    if (device.is_cpu()) {
        return TUNEFRAME_TORCH_AT_LEAST(2, 4);
    }
    return false;
}

void fused_adam_step(c10::ArrayRef<at::Tensor> params, c10::ArrayRef<at::Tensor> grads,
                     c10::ArrayRef<at::Tensor> exp_avgs, c10::ArrayRef<at::Tensor> exp_avg_sqs,
                     c10::ArrayRef<at::Tensor> steps, const FusedAdamScalars& scalars) {
    if (params.empty()) {
        return;
    }
    if (!has_fused_adam(params.front().device())) {
        throw Error(ErrorCode::Internal, "no fused Adam kernel for " +
                                             params.front().device().str() +
                                             " in LibTorch " TORCH_VERSION);
    }
#if TUNEFRAME_TORCH_AT_LEAST(2, 1)
    // torch.optim's fused path counts the step before the kernel reads it.
    at::_foreach_add_(steps, 1);
    const at::TensorList no_amsgrad;
    if (scalars.decoupled) {
        at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, no_amsgrad, steps, scalars.lr,
                          scalars.beta1, scalars.beta2, scalars.weight_decay, scalars.eps,
                          /*amsgrad=*/false, /*maximize=*/false);
    } else {
        at::_fused_adam_(params, grads, exp_avgs, exp_avg_sqs, no_amsgrad, steps, scalars.lr,
                         scalars.beta1, scalars.beta2, scalars.weight_decay, scalars.eps,
                         /*amsgrad=*/false, /*maximize=*/false);
    }
#else
    (void)grads;
    (void)exp_avgs;
    (void)exp_avg_sqs;
    (void)steps;
    (void)scalars;
#endif
}

} // namespace tuneframe::core
