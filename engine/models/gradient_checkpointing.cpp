#include "engine/models/gradient_checkpointing.h"

#include <torch/torch.h>

namespace tuneframe::models {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The default generators a function may draw from: the CPU's and, for CUDA inputs, that
// device's.
std::vector<at::Generator> generators_for(const std::vector<at::Tensor>& inputs) {
    std::vector<at::Generator> generators = {at::globalContext().defaultGenerator(at::kCPU)};
    for (const at::Tensor& input : inputs) {
        if (input.defined() && input.is_cuda()) {
            generators.push_back(at::globalContext().defaultGenerator(input.device()));
            break;
        }
    }
    return generators;
}

struct RngStates {
    std::vector<at::Generator> generators;
    std::vector<at::Tensor> states;

    static RngStates capture(std::vector<at::Generator> generators) {
        RngStates rng{std::move(generators), {}};
        for (at::Generator& generator : rng.generators) {
            std::lock_guard<std::mutex> lock(generator.mutex());
            rng.states.push_back(generator.get_state());
        }
        return rng;
    }
    void restore() {
        for (std::size_t i = 0; i < generators.size(); ++i) {
            std::lock_guard<std::mutex> lock(generators[i].mutex());
            generators[i].set_state(states[i]);
        }
    }
};

// What backward needs besides the saved inputs; travels in the context as a capsule.
struct Recomputation : torch::CustomClassHolder {
    CheckpointedFunction function;
    std::size_t input_count = 0;
    std::vector<bool> input_requires_grad;
    std::vector<at::Tensor> parameters;
    RngStates rng_before;
    CheckpointHooks hooks;
    std::function<at::Tensor()> restore_first_input; // set while the first input is stashed
};

struct CheckpointFunction : torch::autograd::Function<CheckpointFunction> {
    // `tensors` = inputs then parameters; the parameters are inputs of this node only so that
    // autograd routes their gradients through it.
    static variable_list forward(AutogradContext* context, at::TensorList tensors,
                                 const c10::intrusive_ptr<Recomputation>& recomputation) {
        std::vector<at::Tensor> inputs(tensors.begin(),
                                       tensors.begin() + recomputation->input_count);
        std::vector<at::Tensor> saved = inputs;
        if (recomputation->hooks.stash_first_input && !saved.empty() && saved[0].defined()) {
            recomputation->restore_first_input = recomputation->hooks.stash_first_input(saved[0]);
            saved[0] = at::Tensor();
        }
        context->save_for_backward(saved);
        context->saved_data["recomputation"] = c10::IValue::make_capsule(recomputation);
        recomputation->rng_before = RngStates::capture(generators_for(inputs));
        return recomputation->function(inputs); // grad mode is off here
    }

    static variable_list backward(AutogradContext* context, variable_list grad_outputs) {
        auto recomputation = c10::static_intrusive_pointer_cast<Recomputation>(
            context->saved_data["recomputation"].toCapsule());
        variable_list saved = context->get_saved_variables();

        if (recomputation->hooks.before_recompute) {
            recomputation->hooks.before_recompute();
        }
        if (recomputation->restore_first_input) {
            saved[0] = recomputation->restore_first_input();
            recomputation->restore_first_input = nullptr;
        }
        std::vector<at::Tensor> inputs;
        std::vector<at::Tensor> targets;
        for (std::size_t i = 0; i < saved.size(); ++i) {
            inputs.push_back(
                saved[i].detach().requires_grad_(recomputation->input_requires_grad[i]));
            if (recomputation->input_requires_grad[i]) {
                targets.push_back(inputs.back());
            }
        }
        targets.insert(targets.end(), recomputation->parameters.begin(),
                       recomputation->parameters.end());

        std::vector<at::Tensor> outputs;
        {
            // Replay the forward's random draws, then hand the generators back as they were.
            RngStates now = RngStates::capture(recomputation->rng_before.generators);
            recomputation->rng_before.restore();
            torch::AutoGradMode enable_grad(true);
            outputs = recomputation->function(inputs);
            now.restore();
        }
        std::vector<at::Tensor> differentiated;
        std::vector<at::Tensor> incoming;
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            if (grad_outputs[i].defined() && outputs[i].requires_grad()) {
                differentiated.push_back(outputs[i]);
                incoming.push_back(grad_outputs[i]);
            }
        }

        // One gradient per tensor of `tensors`, then one (none) for the capsule.
        variable_list gradients(saved.size() + recomputation->parameters.size() + 1);
        std::vector<at::Tensor> parameter_gradients(recomputation->parameters.size());
        if (!differentiated.empty() && !targets.empty()) {
            variable_list computed = torch::autograd::grad(differentiated, targets, incoming,
                                                           /*retain_graph=*/false,
                                                           /*create_graph=*/false,
                                                           /*allow_unused=*/true);
            std::size_t next = 0;
            for (std::size_t i = 0; i < saved.size(); ++i) {
                if (recomputation->input_requires_grad[i]) {
                    gradients[i] = computed[next++];
                }
            }
            for (at::Tensor& gradient : parameter_gradients) {
                gradient = computed[next++];
            }
        }
        // The recomputed graph is gone (retain_graph false), so nothing holds the function's
        // weights once its outputs go.
        outputs.clear();
        differentiated.clear();
        if (recomputation->hooks.after_gradients) {
            recomputation->hooks.after_gradients(recomputation->parameters, parameter_gradients);
        }
        for (std::size_t i = 0; i < parameter_gradients.size(); ++i) {
            gradients[saved.size() + i] = parameter_gradients[i];
        }
        return gradients;
    }
};

} // namespace

std::vector<at::Tensor> checkpoint(CheckpointedFunction function,
                                   const std::vector<at::Tensor>& inputs,
                                   const std::vector<at::Tensor>& parameters,
                                   CheckpointHooks hooks) {
    auto recomputation = c10::make_intrusive<Recomputation>();
    recomputation->function = std::move(function);
    recomputation->hooks = std::move(hooks);
    recomputation->input_count = inputs.size();
    for (const at::Tensor& input : inputs) {
        recomputation->input_requires_grad.push_back(input.requires_grad());
    }
    for (const at::Tensor& parameter : parameters) {
        if (parameter.requires_grad()) {
            recomputation->parameters.push_back(parameter);
        }
    }
    std::vector<at::Tensor> tensors = inputs;
    tensors.insert(tensors.end(), recomputation->parameters.begin(),
                   recomputation->parameters.end());
    return CheckpointFunction::apply(at::TensorList(tensors), recomputation);
}

} // namespace tuneframe::models
