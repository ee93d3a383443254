#include "engine/core/kernels/layer_norm_modulate.h"

#include "engine/core/error.h"
#include "engine/core/kernels/kernel_launch.h"

#include <torch/torch.h>

#ifdef TUNEFRAME_CUDA_KERNELS
#include <c10/cuda/CUDAGuard.h>
#endif

#include <string>
#include <vector>

namespace tuneframe::core {
namespace {

at::Tensor sample_vector(const at::Tensor& vector) {
    return vector.dim() == 2 ? vector.unsqueeze(1) : vector; // [B, D] -> [B, 1, D]
}

at::Tensor modulate(const at::Tensor& normed, const Modulation& modulation) {
    return normed * (1 + sample_vector(modulation.scale)) + sample_vector(modulation.shift);
}

bool has_text_rows(const LayerNormModulateArgs& args) {
    return args.text_rows > 0;
}

std::string layer_norm_modulate_key(const LayerNormModulateArgs& args) {
    const bool text = has_text_rows(args);
    return "layer_norm_modulate[width " + std::to_string(args.x.size(-1)) + ", " +
           dtype_name(args.x.scalar_type()) + " rows, " +
           dtype_name(args.video.scale.scalar_type()) + " modulation" +
           (args.weight.defined() ? ", weight" : "") + (args.bias.defined() ? ", bias" : "") +
           (text ? ", text rows" : "") + ", gradients " + std::to_string(wants_gradient(args.x)) +
           std::to_string(wants_gradient(args.weight)) + std::to_string(wants_gradient(args.bias)) +
           std::to_string(wants_gradient(args.video.shift) ||
                          (text && wants_gradient(args.text.shift))) +
           std::to_string(wants_gradient(args.video.scale) ||
                          (text && wants_gradient(args.text.scale))) +
           "] on " + args.x.device().str();
}

#ifdef TUNEFRAME_CUDA_KERNELS

namespace launch = kernel_launch;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct LayerNormModulateInputs {
    at::Tensor x; // contiguous
    at::Tensor weight;
    at::Tensor bias;
    at::Tensor video_shift;
    at::Tensor video_scale;
    at::Tensor text_shift;
    at::Tensor text_scale;
    double eps = 0;
    std::int64_t text_rows = 0;
};

cuda_kernels::LayerNormModulateForward
layer_norm_modulate_arguments(const LayerNormModulateInputs& in) {
    cuda_kernels::LayerNormModulateForward args;
    args.x_type = *launch::element_type(in.x.scalar_type());
    args.parameter_type = *launch::element_type(in.video_scale.scalar_type());
    args.shape = {in.x.size(0), in.x.size(1), in.x.size(2), in.text_rows};
    args.x = in.x.data_ptr();
    args.weight = launch::data_or_null(in.weight);
    args.bias = launch::data_or_null(in.bias);
    const bool text = in.text_rows > 0;
    args.shift = launch::segment_vectors(in.video_shift, text ? in.text_shift : at::Tensor());
    args.scale = launch::segment_vectors(in.video_scale, text ? in.text_scale : at::Tensor());
    args.eps = static_cast<float>(in.eps);
    return args;
}

struct FusedLayerNormModulate : torch::autograd::Function<FusedLayerNormModulate> {
    static at::Tensor forward(AutogradContext* context, const at::Tensor& x,
                              const at::Tensor& weight, const at::Tensor& bias,
                              const at::Tensor& video_shift, const at::Tensor& video_scale,
                              const at::Tensor& text_shift, const at::Tensor& text_scale,
                              double eps, std::int64_t text_rows, bool keep_statistics) {
        const c10::cuda::CUDAGuard guard(x.device());
        LayerNormModulateInputs in{launch::contiguous_aligned(x),
                                   weight,
                                   bias,
                                   video_shift,
                                   video_scale,
                                   text_shift,
                                   text_scale,
                                   eps,
                                   text_rows};
        at::Tensor y = at::empty_like(in.x);
        at::Tensor mean;
        at::Tensor rstd;
        cuda_kernels::LayerNormModulateForward args = layer_norm_modulate_arguments(in);
        args.y = y.data_ptr();
        if (keep_statistics) {
            mean = at::empty({in.x.size(0) * in.x.size(1)}, in.x.options().dtype(at::kFloat));
            rstd = at::empty_like(mean);
            args.mean = mean.data_ptr<float>();
            args.rstd = rstd.data_ptr<float>();
        }
        launch::check(cuda_kernels::layer_norm_modulate_forward(args, launch::current_stream(in.x)),
                      "layer_norm_modulate (forward)");
        context->save_for_backward(
            {in.x, weight, bias, video_shift, video_scale, text_shift, text_scale, mean, rstd});
        context->saved_data["eps"] = eps;
        context->saved_data["text_rows"] = text_rows;
        return y;
    }

    static variable_list backward(AutogradContext* context, variable_list output_gradients) {
        const variable_list saved = context->get_saved_variables();
        LayerNormModulateInputs in{saved[0],
                                   saved[1],
                                   saved[2],
                                   saved[3],
                                   saved[4],
                                   saved[5],
                                   saved[6],
                                   context->saved_data["eps"].toDouble(),
                                   context->saved_data["text_rows"].toInt()};
        const at::Tensor& mean = saved[7];
        const at::Tensor& rstd = saved[8];
        if (!mean.defined()) {
            throw Error(ErrorCode::Internal,
                        "layer_norm_modulate's backward ran without its forward's statistics");
        }
        const c10::cuda::CUDAGuard guard(in.x.device());
        const at::Tensor dy = launch::contiguous_aligned(output_gradients[0]);
        at::Tensor dx = at::empty_like(in.x);
        const std::int64_t batch = in.x.size(0);
        const std::int64_t width = in.x.size(2);
        const bool text = in.text_rows > 0;
        const auto segment_gradient = [&](bool wanted) {
            return wanted ? at::empty({batch, width}, in.video_scale.options()) : at::Tensor();
        };
        // A segment without rows gets no gradient, as in the ATen path.
        const bool video = in.text_rows < in.x.size(1);
        const at::Tensor video_shift = segment_gradient(video && context->needs_input_grad(3));
        const at::Tensor video_scale = segment_gradient(video && context->needs_input_grad(4));
        const at::Tensor text_shift = segment_gradient(text && context->needs_input_grad(5));
        const at::Tensor text_scale = segment_gradient(text && context->needs_input_grad(6));
        const at::Tensor weight = in.weight.defined() && context->needs_input_grad(1)
                                      ? at::empty({width}, in.weight.options())
                                      : at::Tensor();
        const at::Tensor bias = in.bias.defined() && context->needs_input_grad(2)
                                    ? at::empty({width}, in.bias.options())
                                    : at::Tensor();

        cuda_kernels::LayerNormModulateBackward args;
        args.forward = layer_norm_modulate_arguments(in);
        args.forward.mean = mean.data_ptr<float>();
        args.forward.rstd = rstd.data_ptr<float>();
        args.dy = dy.data_ptr();
        args.dx = dx.data_ptr();
        args.dshift = {launch::mutable_data_or_null(video_shift),
                       launch::mutable_data_or_null(text_shift)};
        args.dscale = {launch::mutable_data_or_null(video_scale),
                       launch::mutable_data_or_null(text_scale)};
        args.dweight = launch::mutable_data_or_null(weight);
        args.dbias = launch::mutable_data_or_null(bias);
        const at::Tensor scratch =
            launch::workspace(cuda_kernels::layer_norm_modulate_workspace_bytes(args), in.x);
        args.workspace = launch::mutable_data_or_null(scratch);
        launch::check(
            cuda_kernels::layer_norm_modulate_backward(args, launch::current_stream(in.x)),
            "layer_norm_modulate (backward)");
        return {dx,
                weight,
                bias,
                launch::shaped_like(video_shift, in.video_shift),
                launch::shaped_like(video_scale, in.video_scale),
                launch::shaped_like(text_shift, in.text_shift),
                launch::shaped_like(text_scale, in.text_scale),
                at::Tensor(),
                at::Tensor(),
                at::Tensor()};
    }
};

#endif

} // namespace

at::Tensor layer_norm_modulate_reference(const LayerNormModulateArgs& args) {
    const c10::ScalarType compute =
        c10::promoteTypes(args.x.scalar_type(), args.video.scale.scalar_type());
    const auto cast = [compute](const at::Tensor& tensor) {
        return tensor.defined() ? tensor.to(compute) : tensor;
    };
    const at::Tensor normed = at::layer_norm(args.x.to(compute), {args.x.size(-1)},
                                             cast(args.weight), cast(args.bias), args.eps);
    const std::int64_t rows = args.x.size(1);
    at::Tensor out;
    if (!has_text_rows(args)) {
        out = modulate(normed, args.video);
    } else if (args.text_rows == rows) {
        out = modulate(normed, args.text);
    } else {
        const std::vector<at::Tensor> parts =
            normed.split_with_sizes({args.text_rows, rows - args.text_rows}, 1);
        out = at::cat({modulate(parts[0], args.text), modulate(parts[1], args.video)}, 1);
    }
    return out.to(args.x.scalar_type());
}

bool layer_norm_modulate_fusable(const LayerNormModulateArgs& args) {
#ifdef TUNEFRAME_CUDA_KERNELS
    const at::Tensor& x = args.x;
    if (!x.defined() || !x.is_cuda() || x.dim() != 3 || !args.video.scale.defined() ||
        !kernel_launch::element_type(x.scalar_type())) {
        return false;
    }
    const c10::ScalarType parameter = args.video.scale.scalar_type();
    if (parameter != x.scalar_type() && parameter != at::kFloat) {
        return false;
    }
    const bool text = has_text_rows(args);
    if (args.text_rows < 0 || args.text_rows > x.size(1) ||
        !kernel_launch::fits_segment_vector(args.video.shift, x, parameter) ||
        !kernel_launch::fits_segment_vector(args.video.scale, x, parameter) ||
        (text && (!kernel_launch::fits_segment_vector(args.text.shift, x, parameter) ||
                  !kernel_launch::fits_segment_vector(args.text.scale, x, parameter))) ||
        !kernel_launch::fits_row_vector(args.weight, x, parameter) ||
        !kernel_launch::fits_row_vector(args.bias, x, parameter)) {
        return false;
    }
    cuda_kernels::LayerNormModulateForward shape;
    shape.x_type = *kernel_launch::element_type(x.scalar_type());
    shape.parameter_type = *kernel_launch::element_type(parameter);
    shape.shape = {x.size(0), x.size(1), x.size(2), args.text_rows};
    shape.x = x.data_ptr();
    shape.shift.video = shape.scale.video = args.video.scale.data_ptr();
    shape.shift.text = shape.scale.text = text ? args.text.scale.data_ptr() : nullptr;
    return cuda_kernels::layer_norm_modulate_supported(shape);
#else
    (void)args;
    return false;
#endif
}

at::Tensor layer_norm_modulate_fused(const LayerNormModulateArgs& args) {
    if (!layer_norm_modulate_fusable(args)) {
        throw Error(ErrorCode::Internal,
                    "the fused layer_norm_modulate kernel does not serve these inputs");
    }
#ifdef TUNEFRAME_CUDA_KERNELS
    const bool text = has_text_rows(args);
    const bool records =
        at::GradMode::is_enabled() &&
        (args.x.requires_grad() || (args.weight.defined() && args.weight.requires_grad()) ||
         (args.bias.defined() && args.bias.requires_grad()) || args.video.shift.requires_grad() ||
         args.video.scale.requires_grad() ||
         (text && (args.text.shift.requires_grad() || args.text.scale.requires_grad())));
    return FusedLayerNormModulate::apply(args.x, args.weight, args.bias, args.video.shift,
                                         args.video.scale, text ? args.text.shift : at::Tensor(),
                                         text ? args.text.scale : at::Tensor(), args.eps,
                                         args.text_rows, records);
#else
    return {};
#endif
}

KernelCheckResult check_layer_norm_modulate(const LayerNormModulateFunction& candidate,
                                            const LayerNormModulateArgs& like) {
    const std::int64_t width = like.x.size(-1);
    const std::int64_t batch = 2;
    const std::int64_t text = has_text_rows(like) ? 5 : 0;
    const std::int64_t rows = text + 37; // no multiple of any block or chunk size
    const at::TensorOptions modulation = like.video.scale.options();
    const auto vector = [&](std::uint64_t stream, double scale) {
        return check_input(stream, {batch, 1, width}, modulation, scale);
    };
    const std::vector<at::Tensor> inputs{
        check_input(1, {batch, rows, width}, like.x.options(), 2.0, 0.25),
        like.weight.defined() ? check_input(2, {width}, like.weight.options(), 0.2, 1.0)
                              : at::Tensor(),
        like.bias.defined() ? check_input(3, {width}, like.bias.options(), 0.2) : at::Tensor(),
        vector(4, 0.5),
        vector(5, 0.3),
        text ? vector(6, 0.5) : at::Tensor(),
        text ? vector(7, 0.3) : at::Tensor()};
    const std::vector<bool> differentiable{wants_gradient(like.x),
                                           wants_gradient(like.weight),
                                           wants_gradient(like.bias),
                                           wants_gradient(like.video.shift),
                                           wants_gradient(like.video.scale),
                                           text > 0 && wants_gradient(like.text.shift),
                                           text > 0 && wants_gradient(like.text.scale)};
    const double eps = like.eps;
    const auto call = [eps, text](const LayerNormModulateFunction& function) {
        return [function, eps, text](const std::vector<at::Tensor>& in) {
            LayerNormModulateArgs args;
            args.x = in[0];
            args.weight = in[1];
            args.bias = in[2];
            args.eps = eps;
            args.video = {in[3], in[4]};
            args.text = {in[5], in[6]};
            args.text_rows = text;
            return function(args);
        };
    };
    return compare_with_reference(call(candidate), call(layer_norm_modulate_reference), inputs,
                                  differentiable);
}

at::Tensor layer_norm_modulate(const LayerNormModulateArgs& args) {
    if (layer_norm_modulate_fusable(args) &&
        FusedKernelChecks::process().allows(layer_norm_modulate_key(args), [&args] {
            return check_layer_norm_modulate(layer_norm_modulate_fused, args);
        })) {
        return layer_norm_modulate_fused(args);
    }
    return layer_norm_modulate_reference(args);
}

} // namespace tuneframe::core
