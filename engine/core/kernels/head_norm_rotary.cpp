#include "engine/core/kernels/head_norm_rotary.h"

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

// [B, T, H * d] or [B, T, H, d] -> [B, T, H, d]
at::Tensor split_heads(const at::Tensor& x, std::int64_t heads) {
    return x.dim() == 4 ? x : x.reshape({x.size(0), x.size(1), heads, -1});
}

// Rotary over x [B, N, H, d] with tables [N, d], in float32.
at::Tensor rotate_pairs(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
    const std::vector<std::int64_t> table{1, x.size(1), 1, x.size(3)};
    std::vector<std::int64_t> pairs = x.sizes().vec();
    pairs.back() /= 2;
    pairs.push_back(2);
    const std::vector<at::Tensor> parts = x.reshape(pairs).unbind(-1); // real, imaginary
    const at::Tensor rotated = at::stack({-parts[1], parts[0]}, -1).flatten(3);
    return (x.to(at::kFloat) * cos.to(x.device()).view(table) +
            rotated.to(at::kFloat) * sin.to(x.device()).view(table))
        .to(x.scalar_type());
}

bool has_rotary(const HeadNormRotaryArgs& args) {
    return args.cos.defined();
}

std::string head_norm_rotary_key(const HeadNormRotaryArgs& args) {
    const at::Tensor x = split_heads(args.x, args.heads);
    return "head_norm_rotary[head dim " + std::to_string(x.size(3)) + ", " +
           dtype_name(x.scalar_type()) + " rows" +
           (args.weight.defined() ? ", " + dtype_name(args.weight.scalar_type()) + " weight" : "") +
           (args.bias.defined() ? ", bias" : "") + (has_rotary(args) ? ", rotary" : "") +
           (args.text_rows > 0 ? ", text rows" : "") + ", gradients " +
           std::to_string(wants_gradient(args.x)) + std::to_string(wants_gradient(args.weight)) +
           std::to_string(wants_gradient(args.bias)) + "] on " + x.device().str();
}

#ifdef TUNEFRAME_CUDA_KERNELS

namespace launch = kernel_launch;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Every row of x [B, T, H, d] starting on 16 bytes, as the kernel's vector loads want.
bool head_rows_aligned(const at::Tensor& x) {
    const std::int64_t elements = 16 / static_cast<std::int64_t>(x.element_size());
    const std::int64_t lane = x.size(3) / 32; // what one lane reads
    const std::int64_t step = lane < elements ? lane : elements;
    return reinterpret_cast<std::uintptr_t>(x.data_ptr()) % (step * x.element_size()) == 0 &&
           x.stride(0) % step == 0 && x.stride(1) % step == 0 && x.stride(2) % step == 0 &&
           x.stride(3) == 1;
}

cuda_kernels::HeadNormRotaryForward
head_norm_rotary_arguments(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                           const at::Tensor& cos, const at::Tensor& sin, double eps,
                           std::int64_t text_rows) {
    cuda_kernels::HeadNormRotaryForward args;
    args.x_type = *launch::element_type(x.scalar_type());
    args.parameter_type =
        weight.defined() ? *launch::element_type(weight.scalar_type()) : args.x_type;
    args.batch = x.size(0);
    args.rows = x.size(1);
    args.heads = x.size(2);
    args.head_dim = x.size(3);
    args.text_rows = text_rows;
    args.x_strides[0] = x.stride(0);
    args.x_strides[1] = x.stride(1);
    args.x_strides[2] = x.stride(2);
    args.x = x.data_ptr();
    args.weight = launch::data_or_null(weight);
    args.bias = launch::data_or_null(bias);
    args.cos = cos.defined() ? cos.data_ptr<float>() : nullptr;
    args.sin = sin.defined() ? sin.data_ptr<float>() : nullptr;
    args.eps = static_cast<float>(eps);
    return args;
}

struct FusedHeadNormRotary : torch::autograd::Function<FusedHeadNormRotary> {
    // x [B, T, H, d] -> [B, T, H, d] contiguous
    static at::Tensor forward(AutogradContext* context, const at::Tensor& x_in,
                              const at::Tensor& weight, const at::Tensor& bias,
                              const at::Tensor& cos, const at::Tensor& sin, double eps,
                              std::int64_t text_rows, bool keep_statistics) {
        const c10::cuda::CUDAGuard guard(x_in.device());
        const at::Tensor x = head_rows_aligned(x_in) ? x_in : launch::contiguous_aligned(x_in);
        at::Tensor y =
            at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
        cuda_kernels::HeadNormRotaryForward args =
            head_norm_rotary_arguments(x, weight, bias, cos, sin, eps, text_rows);
        args.y = y.data_ptr();
        at::Tensor mean;
        at::Tensor rstd;
        if (keep_statistics) {
            mean = at::empty({x.size(0) * x.size(1) * x.size(2)}, x.options().dtype(at::kFloat));
            rstd = at::empty_like(mean);
            args.mean = mean.data_ptr<float>();
            args.rstd = rstd.data_ptr<float>();
        }
        launch::check(cuda_kernels::head_norm_rotary_forward(args, launch::current_stream(x)),
                      "head_norm_rotary (forward)");
        context->save_for_backward({x, weight, bias, cos, sin, mean, rstd});
        context->saved_data["eps"] = eps;
        context->saved_data["text_rows"] = text_rows;
        return y;
    }

    static variable_list backward(AutogradContext* context, variable_list output_gradients) {
        const variable_list saved = context->get_saved_variables();
        const at::Tensor& x = saved[0];
        const at::Tensor& weight = saved[1];
        const at::Tensor& bias = saved[2];
        if (!saved[5].defined()) {
            throw Error(ErrorCode::Internal,
                        "head_norm_rotary's backward ran without its forward's statistics");
        }
        const c10::cuda::CUDAGuard guard(x.device());
        at::Tensor dy = output_gradients[0];
        if (!head_rows_aligned(dy)) {
            dy = launch::contiguous_aligned(dy);
        }
        at::Tensor dx =
            at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
        const std::int64_t head_dim = x.size(3);
        const at::Tensor dweight = weight.defined() && context->needs_input_grad(1)
                                       ? at::empty({head_dim}, weight.options())
                                       : at::Tensor();
        const at::Tensor dbias = bias.defined() && context->needs_input_grad(2)
                                     ? at::empty({head_dim}, bias.options())
                                     : at::Tensor();
        cuda_kernels::HeadNormRotaryBackward args;
        args.forward = head_norm_rotary_arguments(x, weight, bias, saved[3], saved[4],
                                                  context->saved_data["eps"].toDouble(),
                                                  context->saved_data["text_rows"].toInt());
        args.forward.mean = saved[5].data_ptr<float>();
        args.forward.rstd = saved[6].data_ptr<float>();
        args.dy = dy.data_ptr();
        args.dy_strides[0] = dy.stride(0);
        args.dy_strides[1] = dy.stride(1);
        args.dy_strides[2] = dy.stride(2);
        args.dx = dx.data_ptr();
        args.dweight = launch::mutable_data_or_null(dweight);
        args.dbias = launch::mutable_data_or_null(dbias);
        const at::Tensor scratch =
            launch::workspace(cuda_kernels::head_norm_rotary_workspace_bytes(args), x);
        args.workspace = launch::mutable_data_or_null(scratch);
        launch::check(cuda_kernels::head_norm_rotary_backward(args, launch::current_stream(x)),
                      "head_norm_rotary (backward)");
        return {dx,           dweight,      dbias,        at::Tensor(),
                at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
    }
};

bool fits_table(const at::Tensor& table, const at::Tensor& x, std::int64_t video_rows) {
    return table.defined() && table.dim() == 2 && table.size(0) == video_rows &&
           table.size(1) == x.size(3) && table.scalar_type() == at::kFloat &&
           table.device() == x.device() && table.is_contiguous() && !table.requires_grad();
}

#endif

} // namespace

at::Tensor head_norm_rotary_reference(const HeadNormRotaryArgs& args) {
    const at::Tensor x = split_heads(args.x, args.heads);
    at::Tensor normed =
        at::layer_norm(x, {x.size(3)}, args.weight, args.bias, args.eps); // [B, T, H, d]
    if (has_rotary(args)) {
        const std::int64_t rows = normed.size(1);
        if (args.text_rows <= 0) {
            normed = rotate_pairs(normed, args.cos, args.sin);
        } else {
            const std::vector<at::Tensor> parts =
                normed.split_with_sizes({args.text_rows, rows - args.text_rows}, 1);
            normed = at::cat({parts[0], rotate_pairs(parts[1], args.cos, args.sin)}, 1);
        }
    }
    return normed.transpose(1, 2);
}

bool head_norm_rotary_fusable(const HeadNormRotaryArgs& args) {
#ifdef TUNEFRAME_CUDA_KERNELS
    if (!args.x.defined() || !args.x.is_cuda() || args.heads <= 0 ||
        (args.x.dim() != 3 && args.x.dim() != 4) || args.x.stride(-1) != 1 ||
        (args.x.dim() == 3 && args.x.size(2) % args.heads != 0) ||
        !kernel_launch::element_type(args.x.scalar_type())) {
        return false;
    }
    const at::Tensor x = split_heads(args.x, args.heads);
    const c10::ScalarType parameter =
        args.weight.defined() ? args.weight.scalar_type() : x.scalar_type();
    if ((parameter != x.scalar_type() && parameter != at::kFloat) ||
        !kernel_launch::fits_row_vector(args.weight, x, parameter) ||
        !kernel_launch::fits_row_vector(args.bias, x, parameter) || args.text_rows < 0 ||
        args.text_rows > x.size(1)) {
        return false;
    }
    const std::int64_t video_rows = x.size(1) - args.text_rows;
    if (has_rotary(args) &&
        (!fits_table(args.cos, x, video_rows) || !fits_table(args.sin, x, video_rows))) {
        return false;
    }
    cuda_kernels::HeadNormRotaryForward shape;
    shape.x_type = *kernel_launch::element_type(x.scalar_type());
    shape.parameter_type = *kernel_launch::element_type(parameter);
    shape.batch = x.size(0);
    shape.rows = x.size(1);
    shape.heads = x.size(2);
    shape.head_dim = x.size(3);
    shape.text_rows = args.text_rows;
    shape.x = x.data_ptr();
    return cuda_kernels::head_norm_rotary_supported(shape);
#else
    (void)args;
    return false;
#endif
}

at::Tensor head_norm_rotary_fused(const HeadNormRotaryArgs& args) {
    if (!head_norm_rotary_fusable(args)) {
        throw Error(ErrorCode::Internal,
                    "the fused head_norm_rotary kernel does not serve these inputs");
    }
#ifdef TUNEFRAME_CUDA_KERNELS
    const at::Tensor x = split_heads(args.x, args.heads);
    const bool records =
        at::GradMode::is_enabled() &&
        (x.requires_grad() || (args.weight.defined() && args.weight.requires_grad()) ||
         (args.bias.defined() && args.bias.requires_grad()));
    return FusedHeadNormRotary::apply(x, args.weight, args.bias, args.cos, args.sin, args.eps,
                                      args.text_rows, records)
        .transpose(1, 2);
#else
    return {};
#endif
}

KernelCheckResult check_head_norm_rotary(const HeadNormRotaryFunction& candidate,
                                         const HeadNormRotaryArgs& like) {
    const at::Tensor x = split_heads(like.x, like.heads);
    const std::int64_t head_dim = x.size(3);
    const std::int64_t batch = 2;
    constexpr std::int64_t kHeads = 3;
    const std::int64_t text = like.text_rows > 0 ? 3 : 0;
    const std::int64_t rows = text + 29;
    const at::TensorOptions tables = at::TensorOptions().dtype(at::kFloat).device(x.device());
    const std::vector<at::Tensor> inputs{
        check_input(21, {batch, rows, kHeads * head_dim}, x.options(), 2.0, 0.25),
        like.weight.defined() ? check_input(22, {head_dim}, like.weight.options(), 0.2, 1.0)
                              : at::Tensor(),
        like.bias.defined() ? check_input(23, {head_dim}, like.bias.options(), 0.2) : at::Tensor(),
        has_rotary(like) ? check_input(24, {rows - text, head_dim}, tables, 0.7) : at::Tensor(),
        has_rotary(like) ? check_input(25, {rows - text, head_dim}, tables, 0.7) : at::Tensor()};
    const std::vector<bool> differentiable{wants_gradient(like.x), wants_gradient(like.weight),
                                           wants_gradient(like.bias), false, false};
    const double eps = like.eps;
    const auto call = [eps, text](const HeadNormRotaryFunction& function) {
        return [function, eps, text](const std::vector<at::Tensor>& in) {
            HeadNormRotaryArgs args{in[0], kHeads, in[1], in[2], eps, in[3], in[4], text};
            return function(args);
        };
    };
    return compare_with_reference(call(candidate), call(head_norm_rotary_reference), inputs,
                                  differentiable);
}

at::Tensor head_norm_rotary(const HeadNormRotaryArgs& args) {
    if (head_norm_rotary_fusable(args) &&
        FusedKernelChecks::process().allows(head_norm_rotary_key(args), [&args] {
            return check_head_norm_rotary(head_norm_rotary_fused, args);
        })) {
        return head_norm_rotary_fused(args);
    }
    return head_norm_rotary_reference(args);
}

} // namespace tuneframe::core
