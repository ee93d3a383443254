#include "engine/core/kernels/kept_attention.h"

#include "engine/core/error.h"
#include "engine/core/kernels/attention.h"

#include <torch/torch.h>

#include <optional>

namespace tuneframe::core {

namespace {

using FusedKernel = KeptAttention::FusedKernel;

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6)

std::int64_t concrete(const c10::SymInt& value) {
    return value.guard_int(__FILE__, __LINE__);
}

FusedKernel kernel_for(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value) {
    // The flash kernels pad a head size that is not a multiple of 8 inside
    // scaled_dot_product_attention; rather than repeat that, such shapes are not kept.
    if (query.size(-1) % 8 != 0) {
        return FusedKernel::Math;
    }
    const std::int64_t choice = at::_fused_sdp_choice(query, key, value);
    if (choice == static_cast<std::int64_t>(FusedKernel::Flash) ||
        (query.is_cuda() && (choice == static_cast<std::int64_t>(FusedKernel::Efficient) ||
                             choice == static_cast<std::int64_t>(FusedKernel::CuDNN)))) {
        return static_cast<FusedKernel>(choice);
    }
    return FusedKernel::Math;
}

// Flash and cuDNN return the same nine results: output, log-sum-exp, the sequence offsets and
// maxima of the variable-length form, the dropout RNG state, and a debug mask.
template <typename Result>
void keep_varlen_result(KeptAttention::Kept& kept, const Result& result) {
    kept.out = std::get<0>(result);
    kept.logsumexp = std::get<1>(result);
    kept.cum_seq_q = std::get<2>(result);
    kept.cum_seq_k = std::get<3>(result);
    kept.max_q = concrete(std::get<4>(result));
    kept.max_k = concrete(std::get<5>(result));
    kept.philox_seed = std::get<6>(result);
    kept.philox_offset = std::get<7>(result);
}

KeptAttention::Kept run_kept(const at::Tensor& query, const at::Tensor& key,
                             const at::Tensor& value) {
    KeptAttention::Kept kept;
    kept.kernel = kernel_for(query, key, value);
    switch (kept.kernel) {
    case FusedKernel::Flash:
        if (!query.is_cuda()) {
            std::tie(kept.out, kept.logsumexp) =
                at::_scaled_dot_product_flash_attention_for_cpu(query, key, value);
            return kept;
        }
        keep_varlen_result(kept, at::_scaled_dot_product_flash_attention(query, key, value));
        return kept;
    case FusedKernel::Efficient: {
        auto result = at::_scaled_dot_product_efficient_attention(query, key, value, std::nullopt,
                                                                  /*compute_log_sumexp=*/true);
        std::tie(kept.out, kept.logsumexp, kept.philox_seed, kept.philox_offset) = result;
        return kept;
    }
    case FusedKernel::CuDNN:
        keep_varlen_result(kept,
                           at::_scaled_dot_product_cudnn_attention(query, key, value, std::nullopt,
                                                                   /*compute_log_sumexp=*/true));
        return kept;
    case FusedKernel::Math:
        break;
    }
    kept.out = core::scaled_dot_product_attention(query, key, value);
    return kept;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
kernel_backward(const KeptAttention::Kept& kept, const at::Tensor& grad, const at::Tensor& query,
                const at::Tensor& key, const at::Tensor& value, const at::Tensor& out) {
    switch (kept.kernel) {
    case FusedKernel::Flash:
        if (!query.is_cuda()) {
            return at::_scaled_dot_product_flash_attention_for_cpu_backward(
                grad, query, key, value, out, kept.logsumexp, 0.0, false);
        }
        return at::_scaled_dot_product_flash_attention_backward(
            grad, query, key, value, out, kept.logsumexp, kept.cum_seq_q, kept.cum_seq_k,
            kept.max_q, kept.max_k, 0.0, false, kept.philox_seed, kept.philox_offset);
    case FusedKernel::Efficient: {
        auto grads = at::_scaled_dot_product_efficient_attention_backward(
            grad, query, key, value, at::Tensor(), out, kept.logsumexp, kept.philox_seed,
            kept.philox_offset, 0.0, {true, true, true, false});
        return {std::get<0>(grads), std::get<1>(grads), std::get<2>(grads)};
    }
    case FusedKernel::CuDNN:
        return at::_scaled_dot_product_cudnn_attention_backward(
            grad, query, key, value, out, kept.logsumexp, kept.philox_seed, kept.philox_offset,
            at::Tensor(), kept.cum_seq_q, kept.cum_seq_k, kept.max_q, kept.max_k, 0.0, false);
    case FusedKernel::Math:
        break;
    }
    throw Error(ErrorCode::Internal, "Kept attention has no fused backward to call.",
                "Report this with the engine log.");
}

struct KeptCapsule : torch::CustomClassHolder {
    KeptAttention::Kept kept;
};

// Returns the kept output as if attention had just computed it from q, k and v.
struct KeptAttentionFunction : torch::autograd::Function<KeptAttentionFunction> {
    static variable_list forward(AutogradContext* context, const at::Tensor& query,
                                 const at::Tensor& key, const at::Tensor& value,
                                 const c10::intrusive_ptr<KeptCapsule>& capsule) {
        at::Tensor out = capsule->kept.out;
        capsule->kept.out = at::Tensor(); // saved below instead, so backward can free it
        context->save_for_backward({query, key, value, out});
        context->saved_data["kept"] = c10::IValue::make_capsule(capsule);
        return {out};
    }

    static variable_list backward(AutogradContext* context, variable_list grad_outputs) {
        auto capsule = c10::static_intrusive_pointer_cast<KeptCapsule>(
            context->saved_data["kept"].toCapsule());
        const variable_list saved = context->get_saved_variables();
        auto [grad_query, grad_key, grad_value] =
            kernel_backward(capsule->kept, grad_outputs[0], saved[0], saved[1], saved[2], saved[3]);
        capsule->kept = KeptAttention::Kept(); // the log-sum-exp is not needed any more
        return {grad_query, grad_key, grad_value, at::Tensor()};
    }
};

#else

KeptAttention::Kept run_kept(const at::Tensor& query, const at::Tensor& key,
                             const at::Tensor& value) {
    KeptAttention::Kept kept;
    kept.out = core::scaled_dot_product_attention(query, key, value);
    return kept; // Math: run again in backward
}

#endif

} // namespace

KeptAttention::KeptAttention() = default;
KeptAttention::~KeptAttention() = default;

at::Tensor KeptAttention::attend(const at::Tensor& query, const at::Tensor& key,
                                 const at::Tensor& value) {
    if (!torch::GradMode::is_enabled()) {
        Kept kept = run_kept(query, key, value);
        at::Tensor out = kept.out;
        if (kept.kernel == FusedKernel::Math) {
            kept.out = at::Tensor(); // nothing to reuse: backward runs it again
        }
        kept_.push_back(std::move(kept));
        return out;
    }
    if (kept_.empty()) {
        throw Error(ErrorCode::Internal,
                    "A checkpointed block ran more attentions in backward than in forward.",
                    "Report this with the engine log.");
    }
    Kept kept = std::move(kept_.front());
    kept_.pop_front();
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6)
    if (kept.kernel != FusedKernel::Math) {
        auto capsule = c10::make_intrusive<KeptCapsule>();
        capsule->kept = std::move(kept);
        return KeptAttentionFunction::apply(query, key, value, capsule)[0];
    }
#endif
    return core::scaled_dot_product_attention(query, key, value);
}

} // namespace tuneframe::core
