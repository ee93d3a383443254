#pragma once

#include <ATen/Tensor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::core {

// What comparing a fused kernel with its ATen path found: nothing when they agree within the
// bounds of the dtype, else a sentence saying where they differ.
using KernelCheckResult = std::optional<std::string>;

// The first use of each fused kernel for a device, dtype and shape class (its "key") is checked
// against the kernel's ATen path on a small input; a kernel that disagrees, or fails to run, is
// refused for the life of the object and a warning says so. Fused kernels are checked at run time
// because no test may have run them on the GPU at hand: an unverified kernel then costs speed,
// never a silently wrong training run.
class FusedKernelChecks {
public:
    using Reporter = std::function<void(const std::string& warning)>;

    explicit FusedKernelChecks(bool enabled = true);

    // The process's, which the fused ops consult. TUNEFRAME_FUSED_KERNELS=0 in the environment
    // refuses every fused kernel without a check (the ATen paths then run; for comparisons).
    static FusedKernelChecks& process();

    bool enabled() const { return enabled_; }

    // Whether the fused kernel under `key` may run. The first call for a key runs `check` (with
    // the lock held: a check must not call allows()) and keeps its verdict; a check that throws
    // refuses the kernel as one that disagrees does.
    bool allows(const std::string& key, const std::function<KernelCheckResult()>& check);

    // Where warnings go from now on (an empty function: nowhere yet). Warnings given while there
    // is no reporter wait and go to the next one set. Returns the previous reporter.
    Reporter set_reporter(Reporter reporter);
    // Every warning given so far, delivered or not.
    std::vector<std::string> warnings() const;

private:
    void warn(const std::string& warning);

    const bool enabled_;
    mutable std::mutex mutex_;
    std::map<std::string, bool> verdicts_;
    Reporter reporter_;
    std::vector<std::string> warnings_;
    std::size_t delivered_ = 0;
};

// While alive, the process's fused-kernel warnings go to `reporter` (the CLI's event log); the
// previous reporter comes back when it ends.
class FusedKernelWarningSink {
public:
    explicit FusedKernelWarningSink(FusedKernelChecks::Reporter reporter);
    ~FusedKernelWarningSink();
    FusedKernelWarningSink(const FusedKernelWarningSink&) = delete;
    FusedKernelWarningSink& operator=(const FusedKernelWarningSink&) = delete;

private:
    FusedKernelChecks::Reporter previous_;
};

// A differentiable computation over a list of tensors (some may be undefined).
using TensorFunction = std::function<at::Tensor(const std::vector<at::Tensor>&)>;

// Runs `candidate` and `reference` on the same `inputs` (as fresh leaves; those marked in
// `differentiable` require gradients) and compares their outputs and, through one backward of a
// fixed random output gradient, the inputs' gradients, each within the bounds of its dtype (see
// within_bounds). Grad mode is switched on for the comparison.
KernelCheckResult compare_with_reference(const TensorFunction& candidate,
                                         const TensorFunction& reference,
                                         const std::vector<at::Tensor>& inputs,
                                         const std::vector<bool>& differentiable);

// Whether `actual` is within `expected`'s bounds for its dtype: |a - e| <= rtol |e| + atol max|e|,
// with rtol = atol = 2^-6 for bfloat16, 2^-9 for float16 and 1e-4 for float32 (a fused kernel
// rounds once where the ATen path rounds after every op). nullopt when it is, else the excess.
std::optional<std::string> within_bounds(const at::Tensor& actual, const at::Tensor& expected);

// Normal values times `scale` plus `offset` from a fixed seed per `stream`: a check's inputs are
// the same in every process, and its inputs of one shape differ from each other.
at::Tensor check_input(std::uint64_t stream, at::IntArrayRef sizes,
                       const at::TensorOptions& options, double scale, double offset = 0.0);

// A short text for a key: the dtype's name.
std::string dtype_name(c10::ScalarType type);

// Whether `tensor` takes part in a gradient here: defined, requiring one, and grad mode on.
bool wants_gradient(const at::Tensor& tensor);

} // namespace tuneframe::core
