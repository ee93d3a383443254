#include "engine/core/kernels/gated_residual.h"

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

at::Tensor gate_vector(const at::Tensor& vector) {
    return vector.dim() == 2 ? vector.unsqueeze(1) : vector; // [B, D] -> [B, 1, D]
}

std::string gated_residual_key(const GatedResidualArgs& args) {
    const bool text = args.text_rows > 0;
    return "gated_residual[width " + std::to_string(args.x.size(-1)) + ", " +
           dtype_name(args.x.scalar_type()) + " rows, " +
           dtype_name(args.video_gate.scalar_type()) + " gates" + (text ? ", text rows" : "") +
           ", gradients " + std::to_string(wants_gradient(args.y)) +
           std::to_string(wants_gradient(args.video_gate) ||
                          (text && wants_gradient(args.text_gate))) +
           "] on " + args.x.device().str();
}

#ifdef TUNEFRAME_CUDA_KERNELS

namespace launch = kernel_launch;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

cuda_kernels::GatedResidualForward
gated_residual_arguments(const at::Tensor& x, const at::Tensor& y, const at::Tensor& video_gate,
                         const at::Tensor& text_gate, std::int64_t text_rows) {
    cuda_kernels::GatedResidualForward args;
    args.x_type = *launch::element_type(y.scalar_type());
    args.parameter_type = *launch::element_type(video_gate.scalar_type());
    args.shape = {y.size(0), y.size(1), y.size(2), text_rows};
    args.x = launch::data_or_null(x);
    args.y = y.data_ptr();
    args.gate = launch::segment_vectors(video_gate, text_rows > 0 ? text_gate : at::Tensor());
    return args;
}

struct FusedGatedResidual : torch::autograd::Function<FusedGatedResidual> {
    static at::Tensor forward(AutogradContext* context, const at::Tensor& x_in,
                              const at::Tensor& y_in, const at::Tensor& video_gate,
                              const at::Tensor& text_gate, std::int64_t text_rows) {
        const c10::cuda::CUDAGuard guard(x_in.device());
        const at::Tensor x = launch::contiguous_aligned(x_in);
        const at::Tensor y = launch::contiguous_aligned(y_in);
        at::Tensor out = at::empty_like(x);
        cuda_kernels::GatedResidualForward args =
            gated_residual_arguments(x, y, video_gate, text_gate, text_rows);
        args.out = out.data_ptr();
        launch::check(cuda_kernels::gated_residual_forward(args, launch::current_stream(x)),
                      "gated_residual (forward)");
        // y only where the gates may want its values; x is never needed again.
        const bool gates =
            video_gate.requires_grad() || (text_gate.defined() && text_gate.requires_grad());
        context->save_for_backward({gates ? y : at::Tensor(), video_gate, text_gate});
        context->saved_data["text_rows"] = text_rows;
        context->saved_data["sizes"] = y.sizes().vec();
        return out;
    }

    static variable_list backward(AutogradContext* context, variable_list output_gradients) {
        const variable_list saved = context->get_saved_variables();
        const at::Tensor& y = saved[0];
        const at::Tensor& video_gate = saved[1];
        const at::Tensor& text_gate = saved[2];
        const std::int64_t text_rows = context->saved_data["text_rows"].toInt();
        const std::vector<std::int64_t> sizes = context->saved_data["sizes"].toIntVector();
        const at::Tensor dout = launch::contiguous_aligned(output_gradients[0]);
        const c10::cuda::CUDAGuard guard(dout.device());
        const bool text = text_rows > 0;
        const auto gate_gradient = [&](bool wanted) {
            return wanted ? at::empty({sizes[0], sizes[2]}, video_gate.options()) : at::Tensor();
        };
        // A segment without rows gets no gradient, as in the ATen path.
        const at::Tensor video =
            gate_gradient(text_rows < sizes[1] && context->needs_input_grad(2));
        const at::Tensor text_part = gate_gradient(text && context->needs_input_grad(3));
        at::Tensor dy;
        if (context->needs_input_grad(1) || video.defined() || text_part.defined()) {
            dy = at::empty_like(dout);
            cuda_kernels::GatedResidualBackward args;
            // y's shape and dtype are dout's; its values are read only for the gates.
            args.forward = gated_residual_arguments(at::Tensor(), y.defined() ? y : dout,
                                                    video_gate, text_gate, text_rows);
            args.forward.y = launch::data_or_null(y);
            args.dout = dout.data_ptr();
            args.dy = dy.data_ptr();
            args.dgate = {launch::mutable_data_or_null(video),
                          launch::mutable_data_or_null(text_part)};
            const at::Tensor scratch =
                launch::workspace(cuda_kernels::gated_residual_workspace_bytes(args), dout);
            args.workspace = launch::mutable_data_or_null(scratch);
            launch::check(cuda_kernels::gated_residual_backward(args, launch::current_stream(dout)),
                          "gated_residual (backward)");
        }
        return {output_gradients[0], context->needs_input_grad(1) ? dy : at::Tensor(),
                launch::shaped_like(video, video_gate), launch::shaped_like(text_part, text_gate),
                at::Tensor()};
    }
};

#endif

} // namespace

at::Tensor gated_residual_reference(const GatedResidualArgs& args) {
    const c10::ScalarType compute =
        c10::promoteTypes(c10::promoteTypes(args.x.scalar_type(), args.y.scalar_type()),
                          args.video_gate.scalar_type());
    const at::Tensor x = args.x.to(compute);
    const std::int64_t rows = args.x.size(1);
    at::Tensor out;
    if (args.text_rows <= 0) {
        out = x + gate_vector(args.video_gate) * args.y;
    } else if (args.text_rows == rows) {
        out = x + gate_vector(args.text_gate) * args.y;
    } else {
        const std::vector<std::int64_t> split{args.text_rows, rows - args.text_rows};
        const std::vector<at::Tensor> xs = x.split_with_sizes(split, 1);
        const std::vector<at::Tensor> ys = args.y.split_with_sizes(split, 1);
        out = at::cat({xs[0] + gate_vector(args.text_gate) * ys[0],
                       xs[1] + gate_vector(args.video_gate) * ys[1]},
                      1);
    }
    return out.to(args.x.scalar_type());
}

bool gated_residual_fusable(const GatedResidualArgs& args) {
#ifdef TUNEFRAME_CUDA_KERNELS
    const at::Tensor& x = args.x;
    const at::Tensor& y = args.y;
    if (!x.defined() || !y.defined() || !x.is_cuda() || x.dim() != 3 || x.sizes() != y.sizes() ||
        x.scalar_type() != y.scalar_type() || x.device() != y.device() ||
        !kernel_launch::element_type(x.scalar_type()) || !args.video_gate.defined()) {
        return false;
    }
    const c10::ScalarType parameter = args.video_gate.scalar_type();
    const bool text = args.text_rows > 0;
    if ((parameter != x.scalar_type() && parameter != at::kFloat) || args.text_rows < 0 ||
        args.text_rows > x.size(1) ||
        !kernel_launch::fits_segment_vector(args.video_gate, x, parameter) ||
        (text && !kernel_launch::fits_segment_vector(args.text_gate, x, parameter))) {
        return false;
    }
    cuda_kernels::GatedResidualForward shape;
    shape.x_type = *kernel_launch::element_type(x.scalar_type());
    shape.parameter_type = *kernel_launch::element_type(parameter);
    shape.shape = {x.size(0), x.size(1), x.size(2), args.text_rows};
    shape.gate.video = args.video_gate.data_ptr();
    shape.gate.text = text ? args.text_gate.data_ptr() : nullptr;
    return cuda_kernels::gated_residual_supported(shape);
#else
    (void)args;
    return false;
#endif
}

at::Tensor gated_residual_fused(const GatedResidualArgs& args) {
    if (!gated_residual_fusable(args)) {
        throw Error(ErrorCode::Internal,
                    "the fused gated_residual kernel does not serve these inputs");
    }
#ifdef TUNEFRAME_CUDA_KERNELS
    return FusedGatedResidual::apply(args.x, args.y, args.video_gate,
                                     args.text_rows > 0 ? args.text_gate : at::Tensor(),
                                     args.text_rows);
#else
    return {};
#endif
}

KernelCheckResult check_gated_residual(const GatedResidualFunction& candidate,
                                       const GatedResidualArgs& like) {
    const std::int64_t width = like.x.size(-1);
    const std::int64_t batch = 2;
    const std::int64_t text = like.text_rows > 0 ? 5 : 0;
    const std::int64_t rows = text + 37;
    const at::TensorOptions gates = like.video_gate.options();
    const std::vector<at::Tensor> inputs{
        check_input(11, {batch, rows, width}, like.x.options(), 1.0),
        check_input(12, {batch, rows, width}, like.y.options(), 1.0),
        check_input(13, {batch, 1, width}, gates, 0.5),
        text ? check_input(14, {batch, 1, width}, gates, 0.5) : at::Tensor()};
    const std::vector<bool> differentiable{wants_gradient(like.x), wants_gradient(like.y),
                                           wants_gradient(like.video_gate),
                                           text > 0 && wants_gradient(like.text_gate)};
    const auto call = [text](const GatedResidualFunction& function) {
        return [function, text](const std::vector<at::Tensor>& in) {
            GatedResidualArgs args{in[0], in[1], in[2], in[3], text};
            return function(args);
        };
    };
    return compare_with_reference(call(candidate), call(gated_residual_reference), inputs,
                                  differentiable);
}

at::Tensor gated_residual(const GatedResidualArgs& args) {
    if (gated_residual_fusable(args) &&
        FusedKernelChecks::process().allows(gated_residual_key(args), [&args] {
            return check_gated_residual(gated_residual_fused, args);
        })) {
        return gated_residual_fused(args);
    }
    return gated_residual_reference(args);
}

} // namespace tuneframe::core
