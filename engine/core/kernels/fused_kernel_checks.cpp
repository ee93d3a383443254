#include "engine/core/kernels/fused_kernel_checks.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cstdlib>
#include <exception>
#include <sstream>
#include <utility>

namespace tuneframe::core {
namespace {

constexpr std::uint64_t kCheckSeed = 20261128;

bool enabled_by_environment() {
    const char* value = std::getenv("TUNEFRAME_FUSED_KERNELS");
    if (!value) {
        return true;
    }
    const std::string text(value);
    return !(text == "0" || text == "off" || text == "false" || text == "no");
}

double bound_for(c10::ScalarType type) {
    switch (type) {
    case c10::ScalarType::BFloat16:
        return 1.0 / 64.0;
    case c10::ScalarType::Half:
        return 1.0 / 512.0;
    default:
        return 1e-4;
    }
}

std::string describe_sizes(const at::Tensor& tensor) {
    std::ostringstream text;
    text << tensor.sizes();
    return text.str();
}

} // namespace

FusedKernelChecks::FusedKernelChecks(bool enabled)
    : enabled_(enabled) {}

FusedKernelChecks& FusedKernelChecks::process() {
    static FusedKernelChecks checks(enabled_by_environment());
    return checks;
}

bool FusedKernelChecks::allows(const std::string& key,
                               const std::function<KernelCheckResult()>& check) {
    if (!enabled_) {
        return false;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    const auto known = verdicts_.find(key);
    if (known != verdicts_.end()) {
        return known->second;
    }
    KernelCheckResult problem;
    try {
        problem = check();
    } catch (const std::exception& error) {
        problem = std::string("it failed to run: ") + error.what();
    }
    verdicts_[key] = !problem;
    if (problem) {
        warn("The fused CUDA kernel " + key + " disagrees with its ATen path: " + *problem +
             ". This process runs the ATen path for it instead (slower, same results); please "
             "report this with the engine log.");
    }
    return !problem;
}

void FusedKernelChecks::warn(const std::string& warning) {
    warnings_.push_back(warning);
    if (reporter_) {
        for (; delivered_ < warnings_.size(); ++delivered_) {
            reporter_(warnings_[delivered_]);
        }
    }
}

FusedKernelChecks::Reporter FusedKernelChecks::set_reporter(Reporter reporter) {
    std::lock_guard<std::mutex> lock(mutex_);
    Reporter previous = std::exchange(reporter_, std::move(reporter));
    if (reporter_) {
        for (; delivered_ < warnings_.size(); ++delivered_) {
            reporter_(warnings_[delivered_]);
        }
    }
    return previous;
}

std::vector<std::string> FusedKernelChecks::warnings() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return warnings_;
}

FusedKernelWarningSink::FusedKernelWarningSink(FusedKernelChecks::Reporter reporter)
    : previous_(FusedKernelChecks::process().set_reporter(std::move(reporter))) {}

FusedKernelWarningSink::~FusedKernelWarningSink() {
    FusedKernelChecks::process().set_reporter(std::move(previous_));
}

std::optional<std::string> within_bounds(const at::Tensor& actual, const at::Tensor& expected) {
    if (!actual.defined() || !expected.defined()) {
        if (actual.defined() == expected.defined()) {
            return std::nullopt;
        }
        return std::string(actual.defined() ? "the reference has none" : "it has none");
    }
    if (actual.sizes() != expected.sizes()) {
        return "its shape is " + describe_sizes(actual) + " where the reference's is " +
               describe_sizes(expected);
    }
    if (actual.scalar_type() != expected.scalar_type()) {
        return "its dtype is " + dtype_name(actual.scalar_type()) + " where the reference's is " +
               dtype_name(expected.scalar_type());
    }
    const double bound = bound_for(expected.scalar_type());
    const at::Tensor a = actual.detach().to(at::kDouble).cpu();
    const at::Tensor e = expected.detach().to(at::kDouble).cpu();
    if (!at::isfinite(a).equal(at::isfinite(e))) {
        return std::string("it is not finite where the reference is, or the other way round");
    }
    if (e.numel() == 0) {
        return std::nullopt;
    }
    const at::Tensor finite = at::isfinite(e);
    const at::Tensor magnitude = at::where(finite, e.abs(), at::zeros_like(e));
    const at::Tensor error = at::where(finite, (a - e).abs(), at::zeros_like(e));
    const double largest = magnitude.max().item<double>();
    if ((error - bound * magnitude).max().item<double>() <= bound * largest) {
        return std::nullopt;
    }
    std::ostringstream text;
    text << "it differs by up to " << error.max().item<double>() << " where " << bound * largest
         << " plus " << bound << " of each value is allowed (largest value " << largest << ")";
    return text.str();
}

KernelCheckResult compare_with_reference(const TensorFunction& candidate,
                                         const TensorFunction& reference,
                                         const std::vector<at::Tensor>& inputs,
                                         const std::vector<bool>& differentiable) {
    const at::AutoGradMode grad_mode(true);
    struct Run {
        at::Tensor output;
        std::vector<at::Tensor> gradients;
    };
    at::Tensor output_gradient;
    const auto run = [&](const TensorFunction& function) {
        std::vector<at::Tensor> leaves;
        std::vector<at::Tensor> wanted;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            at::Tensor leaf = inputs[i].defined() ? inputs[i].detach().clone() : at::Tensor();
            if (leaf.defined() && differentiable[i]) {
                leaf.set_requires_grad(true);
                wanted.push_back(leaf);
            }
            leaves.push_back(leaf);
        }
        Run result;
        result.output = function(leaves);
        if (wanted.empty()) {
            return result;
        }
        if (!output_gradient.defined()) {
            output_gradient = check_input(0, result.output.sizes(), result.output.options(), 1.0);
        }
        result.gradients = torch::autograd::grad({result.output}, wanted, {output_gradient},
                                                 /*retain_graph=*/false, /*create_graph=*/false,
                                                 /*allow_unused=*/true);
        return result;
    };
    const Run expected = run(reference);
    const Run actual = run(candidate);
    if (auto problem = within_bounds(actual.output, expected.output)) {
        return "its output: " + *problem;
    }
    for (std::size_t i = 0; i < expected.gradients.size(); ++i) {
        if (auto problem = within_bounds(actual.gradients[i], expected.gradients[i])) {
            return "the gradient of its differentiable input " + std::to_string(i) + ": " +
                   *problem;
        }
    }
    return std::nullopt;
}

at::Tensor check_input(std::uint64_t stream, at::IntArrayRef sizes,
                       const at::TensorOptions& options, double scale, double offset) {
    at::Generator generator = at::detail::createCPUGenerator(kCheckSeed + stream);
    at::Tensor values =
        at::randn(sizes, generator, at::TensorOptions().dtype(at::kFloat)) * scale + offset;
    return values.to(options.device()).to(options.dtype());
}

std::string dtype_name(c10::ScalarType type) {
    return c10::toString(type);
}

bool wants_gradient(const at::Tensor& tensor) {
    return tensor.defined() && tensor.requires_grad() && at::GradMode::is_enabled();
}

} // namespace tuneframe::core
