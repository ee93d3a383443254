#include "engine/lora/quantized_linear.h"

#include <torch/torch.h>

namespace tuneframe::lora {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Q widened to `dtype` with its per-output-channel scale: the layer's weight for one product.
// Scaling the weight (out x in elements) instead of the product (tokens x out) costs a 2b
// step ~5 ms where scaling the output cost ~70 ms, and lets the bias ride in the GEMM.
at::Tensor widened_weight(const at::Tensor& values, const at::Tensor& scale,
                          c10::ScalarType dtype) {
    return values.to(dtype) * scale.to(dtype).unsqueeze(1);
}

struct QuantizedLinearFunction : torch::autograd::Function<QuantizedLinearFunction> {
    static at::Tensor forward(AutogradContext* context, const at::Tensor& input,
                              const at::Tensor& values, const at::Tensor& scale,
                              const at::Tensor& bias) {
        context->save_for_backward({values, scale});
        context->saved_data["bias_needs_grad"] = bias.defined() && bias.requires_grad();
        const c10::ScalarType dtype = input.scalar_type();
        return at::linear(input, widened_weight(values, scale, dtype),
                          bias.defined() ? bias.to(dtype) : bias); // [..., out]
    }

    static variable_list backward(AutogradContext* context, variable_list grad_outputs) {
        const variable_list saved = context->get_saved_variables();
        variable_list gradients(4);
        const at::Tensor& grad = grad_outputs[0]; // [..., out]
        if (!grad.defined()) {
            return gradients;
        }
        if (context->needs_input_grad(0)) {
            // Widened again rather than kept: a step holds no full-precision copy of a layer it
            // is not running.
            gradients[0] = at::matmul(grad, widened_weight(saved[0], saved[1], grad.scalar_type()));
        }
        if (context->saved_data["bias_needs_grad"].toBool()) {
            gradients[3] = grad.reshape({-1, grad.size(-1)}).sum(0);
        }
        return gradients;
    }
};

} // namespace

at::Tensor quantized_linear(const at::Tensor& input, const at::Tensor& values,
                            const at::Tensor& scale, const at::Tensor& bias) {
    return QuantizedLinearFunction::apply(input, values, scale, bias);
}

} // namespace tuneframe::lora
