#include "engine/dist/all_reduce_tensor_parallel.h"

#include "engine/dist/context_object.h"

#include <torch/torch.h>

namespace tuneframe::dist {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Megatron's f: the same activation on every rank going in, the ranks' partial gradients
// summed coming back.
struct SumGradients : torch::autograd::Function<SumGradients> {
    static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x,
                              AllReduceTensorParallel* parallel) {
        keep_in_context(ctx, "parallel", parallel);
        return x.view_as(x);
    }
    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        return {kept_in_context<AllReduceTensorParallel>(ctx, "parallel")->sum(grads[0]),
                at::Tensor()};
    }
};

// Megatron's g: partial outputs summed going out; every rank's gradient is already whole.
struct SumOutputs : torch::autograd::Function<SumOutputs> {
    static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x,
                              AllReduceTensorParallel* parallel) {
        return parallel->sum(x);
    }
    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        return {grads[0], at::Tensor()};
    }
};

// A statistic of each rank's share summed going out, and its gradient summed coming back.
struct SumBothWays : torch::autograd::Function<SumBothWays> {
    static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x,
                              AllReduceTensorParallel* parallel) {
        keep_in_context(ctx, "parallel", parallel);
        return parallel->sum(x);
    }
    static variable_list backward(AutogradContext* ctx, variable_list grads) {
        return {kept_in_context<AllReduceTensorParallel>(ctx, "parallel")->sum(grads[0]),
                at::Tensor()};
    }
};

} // namespace

at::Tensor AllReduceTensorParallel::sum(const at::Tensor& x) {
    const bool widen = group_.backend() == "gloo" && x.scalar_type() != at::kFloat &&
                       x.scalar_type() != at::kDouble;
    at::Tensor wire = widen ? x.to(at::kFloat) : x.clone();
    wire = wire.contiguous();
    group_.all_reduce(wire);
    return widen ? wire.to(x.scalar_type()) : wire;
}

at::Tensor AllReduceTensorParallel::enter(const at::Tensor& x) {
    return SumGradients::apply(x, this);
}

at::Tensor AllReduceTensorParallel::leave(const at::Tensor& x) {
    return SumOutputs::apply(x, this);
}

at::Tensor AllReduceTensorParallel::reduce(const at::Tensor& x) {
    return SumBothWays::apply(x, this);
}

} // namespace tuneframe::dist
