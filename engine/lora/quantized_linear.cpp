#include "engine/lora/quantized_linear.h"

#include <torch/torch.h>

namespace tuneframe::lora {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct QuantizedLinearFunction : torch::autograd::Function<QuantizedLinearFunction> {
    static at::Tensor forward(AutogradContext* context, const at::Tensor& input,
                              const at::Tensor& values, const at::Tensor& scale) {
        context->save_for_backward({values, scale});
        const c10::ScalarType dtype = input.scalar_type();
        return at::linear(input, values.to(dtype)) * scale.to(dtype); // [..., out]
    }

    static variable_list backward(AutogradContext* context, variable_list grad_outputs) {
        const variable_list saved = context->get_saved_variables();
        variable_list gradients(3);
        if (!context->needs_input_grad(0) || !grad_outputs[0].defined()) {
            return gradients;
        }
        const at::Tensor& grad = grad_outputs[0]; // [..., out]
        const c10::ScalarType dtype = grad.scalar_type();
        gradients[0] = at::matmul(grad * saved[1].to(dtype), saved[0].to(dtype)); // [..., in]
        return gradients;
    }
};

} // namespace

at::Tensor quantized_linear(const at::Tensor& input, const at::Tensor& values,
                            const at::Tensor& scale, const at::Tensor& bias) {
    at::Tensor output = QuantizedLinearFunction::apply(input, values, scale);
    return bias.defined() ? output + bias : output;
}

} // namespace tuneframe::lora
