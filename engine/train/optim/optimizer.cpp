#include "engine/train/optim/optimizer.h"

#include "engine/core/error.h"
#include "engine/core/grad_mode.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace tuneframe::train {
namespace {

std::string describe_tensor(const at::Tensor& tensor) {
    std::string text(core::dtype_name(core::from_scalar_type(tensor.scalar_type())));
    text += " [";
    for (std::int64_t dim = 0; dim < tensor.dim(); ++dim) {
        text += (dim ? ", " : "") + std::to_string(tensor.size(dim));
    }
    return text + "]";
}

std::string join_some(const std::vector<std::string>& names) {
    constexpr std::size_t kShown = 8;
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < kShown; ++i) {
        text += (i ? ", " : "") + names[i];
    }
    if (names.size() > kShown) {
        text += " ... (" + std::to_string(names.size()) + " in all)";
    }
    return text;
}

void check_parameter(const std::string& name, const at::Tensor& parameter) {
    if (!parameter.defined()) {
        throw core::Error(core::ErrorCode::Internal, "parameter \"" + name + "\" is undefined");
    }
    const at::ScalarType type = parameter.scalar_type();
    if (type == at::kHalf && !parameter.is_cuda()) {
        throw core::Error(core::ErrorCode::Unsupported,
                          "Parameter \"" + name +
                              "\" is float16 on the CPU; fp16 training runs only on CUDA "
                              "(the CPU LibTorch has no half-precision kernels).",
                          "Train in bf16 or fp32 on this machine, or on a CUDA device.");
    }
    if (type != at::kFloat && type != at::kBFloat16 && type != at::kHalf) {
        throw core::Error(core::ErrorCode::Unsupported,
                          "Parameter \"" + name + "\" is " + describe_tensor(parameter) +
                              "; the optimizers take float32, bfloat16 or float16 parameters.",
                          "Cast the trainable parameters to float32 or bf16.");
    }
    if (parameter.layout() != at::kStrided) {
        throw core::Error(core::ErrorCode::Unsupported,
                          "Parameter \"" + name + "\" is not a dense tensor.");
    }
}

} // namespace

void throw_bad_option(const std::string& field, double value, const std::string& requirement,
                      const std::string& hint) {
    std::ostringstream text;
    text << field << " is " << value << "; it must be " << requirement << ".";
    throw core::Error(core::ErrorCode::BadInput, text.str(), hint);
}

Optimizer::Optimizer(std::string name, NamedParameters parameters, double lr,
                     bool fp32_master_weights)
    : name_(std::move(name))
    , parameters_(std::move(parameters))
    , fp32_master_weights_(fp32_master_weights)
    , state_(parameters_.size()) {
    if (parameters_.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The " + name_ + " optimizer got no trainable parameters.",
                          "Check which modules the training targets.");
    }
    std::set<std::string> seen;
    for (const auto& [parameter_name, tensor] : parameters_) {
        if (parameter_name.empty() || !seen.insert(parameter_name).second) {
            throw core::Error(core::ErrorCode::Internal,
                              "optimizer parameter names must be unique and non-empty: \"" +
                                  parameter_name + "\"");
        }
        check_parameter(parameter_name, tensor);
    }
    set_lr(lr);
}

Optimizer::~Optimizer() = default;

void Optimizer::zero_grad(bool set_to_none) {
    core::NoGradGuard no_grad;
    for (const auto& entry : parameters_) {
        at::Tensor& gradient = entry.second.mutable_grad();
        if (!gradient.defined()) {
            continue;
        }
        if (set_to_none) {
            gradient.reset();
        } else {
            gradient.zero_();
        }
    }
}

void Optimizer::set_lr(double lr) {
    if (!std::isfinite(lr) || lr < 0) {
        throw_bad_option("lr", lr, "a finite number >= 0", "Use a learning rate such as 1e-4.");
    }
    lr_ = lr;
}

core::NamedTensors Optimizer::state_tensors() const {
    core::NamedTensors out;
    write_group_state(out);
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        for (const auto& [key, tensor] : state_[i]) {
            out.emplace_back(parameters_[i].first + "." + key, tensor);
        }
    }
    return out;
}

void Optimizer::load_state_tensors(const StateTensors& tensors) {
    std::map<std::string, std::size_t> index_of;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        index_of[parameters_[i].first] = i;
    }
    std::vector<std::string> missing;
    std::vector<std::string> unexpected;
    std::vector<std::string> mismatched;
    StateTensors group;
    std::vector<StateTensors> loaded(parameters_.size());
    for (const auto& [name, tensor] : tensors) {
        const std::size_t dot = name.rfind('.');
        if (dot == std::string::npos) {
            group[name] = tensor;
            continue;
        }
        const auto found = index_of.find(name.substr(0, dot));
        if (found == index_of.end()) {
            unexpected.push_back(name);
            continue;
        }
        loaded[found->second][name.substr(dot + 1)] = tensor;
    }
    const std::vector<std::string> group_keys = group_state_keys();
    for (const std::string& key : group_keys) {
        if (!group.count(key)) {
            missing.push_back(key);
        }
    }
    for (const auto& entry : group) {
        if (std::find(group_keys.begin(), group_keys.end(), entry.first) == group_keys.end()) {
            unexpected.push_back(entry.first);
        }
    }

    core::NoGradGuard no_grad;
    std::vector<StateTensors> next(parameters_.size());
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        if (loaded[i].empty()) {
            continue;
        }
        const std::string& prefix = parameters_[i].first;
        const StateTensors fresh = fresh_state(i);
        for (const auto& entry : fresh) {
            if (!loaded[i].count(entry.first)) {
                missing.push_back(prefix + "." + entry.first);
            }
        }
        for (const auto& [key, tensor] : loaded[i]) {
            const auto expected = fresh.find(key);
            if (expected == fresh.end()) {
                unexpected.push_back(prefix + "." + key);
                continue;
            }
            const at::Tensor& like = expected->second;
            if (tensor.scalar_type() != like.scalar_type() ||
                (tensor.sizes() != like.sizes() && !accepts_loaded_shape(key, tensor, fresh))) {
                mismatched.push_back(prefix + "." + key + " (" + describe_tensor(tensor) +
                                     ", expected " + describe_tensor(like) + ")");
                continue;
            }
            next[i][key] = tensor
                               .to(like.device(), like.scalar_type(), /*non_blocking=*/false,
                                   /*copy=*/true)
                               .contiguous();
        }
    }
    if (!missing.empty() || !unexpected.empty() || !mismatched.empty()) {
        std::string message = "The optimizer state does not fit this " + name_ + " optimizer:";
        if (!missing.empty()) {
            message += " missing " + join_some(missing) + ";";
        }
        if (!unexpected.empty()) {
            message += " unexpected " + join_some(unexpected) + ";";
        }
        if (!mismatched.empty()) {
            message += " mismatched " + join_some(mismatched) + ";";
        }
        message.back() = '.';
        throw core::Error(core::ErrorCode::BadInput, message,
                          "Resume with the optimizer and the trainable parameters the "
                          "checkpoint was written with.");
    }
    read_group_state(group);
    state_ = std::move(next);
}

StateBytes Optimizer::state_bytes() const {
    StateBytes bytes = buffer_bytes();
    for (const StateTensors& state : state_) {
        for (const auto& entry : state) {
            const at::Tensor& tensor = entry.second;
            const std::int64_t size =
                tensor.numel() * static_cast<std::int64_t>(tensor.element_size());
            (tensor.is_cpu() ? bytes.cpu : bytes.device) += size;
        }
    }
    return bytes;
}

bool Optimizer::keeps_master(const at::Tensor& parameter) const {
    return fp32_master_weights_ && parameter.scalar_type() != at::kFloat;
}

c10::Device Optimizer::master_device(const at::Tensor& parameter) const {
    return parameter.device();
}

bool Optimizer::accepts_loaded_shape(const std::string&, const at::Tensor&,
                                     const StateTensors&) const {
    return false;
}

StateTensors Optimizer::fresh_state(std::size_t index) {
    const at::Tensor param = parameters_[index].second.detach();
    StateTensors state;
    at::Tensor working;
    if (keeps_master(param)) {
        working = param
                      .to(master_device(param), at::kFloat, /*non_blocking=*/false,
                          /*copy=*/true)
                      .contiguous();
        state["master"] = working;
    } else {
        working = param.scalar_type() == at::kFloat ? param : param.to(at::kFloat);
    }
    init_state(index, working, state);
    return state;
}

at::Tensor Optimizer::working_tensor(std::size_t index) {
    StateTensors& state = state_[index];
    if (state.empty()) {
        state = fresh_state(index);
    }
    const auto master = state.find("master");
    if (master != state.end()) {
        return master->second;
    }
    const at::Tensor param = parameters_[index].second.detach();
    return param.scalar_type() == at::kFloat ? param : param.to(at::kFloat);
}

void Optimizer::write_back(std::size_t index, const at::Tensor& working) {
    const at::Tensor param = parameters_[index].second.detach();
    if (!working.is_alias_of(param)) {
        param.copy_(working);
    }
}

at::Tensor Optimizer::float_gradient(std::size_t index) const {
    const at::Tensor& gradient = parameters_[index].second.grad();
    if (!gradient.defined()) {
        return {};
    }
    if (gradient.layout() != at::kStrided) {
        throw core::Error(core::ErrorCode::Unsupported,
                          "Parameter \"" + parameters_[index].first +
                              "\" has a sparse gradient, which the optimizers do not take.");
    }
    return gradient.scalar_type() == at::kFloat ? gradient.detach()
                                                : gradient.detach().to(at::kFloat);
}

void Optimizer::for_each_gradient(const GradientVisitor& visit, bool write_back_result) {
    core::NoGradGuard no_grad;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        const at::Tensor gradient = float_gradient(i);
        if (!gradient.defined()) {
            continue;
        }
        at::Tensor working = working_tensor(i);
        visit(i, working, gradient, state_[i]);
        if (write_back_result) {
            write_back(i, working);
        }
    }
}

} // namespace tuneframe::train
