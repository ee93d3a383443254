#pragma once

#include <ATen/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <torch/version.h>

namespace tuneframe::core {

// Selective activation checkpointing for attention, as torch.utils.checkpoint's selective
// policies that save the fused attention's outputs: a checkpointed block's first forward keeps
// each attention's output and log-sum-exp, and its recomputation in backward hands the kept
// output back instead of running the kernel again. Gradients then come from the same fused
// kernel's backward with the recomputed q, k and v, which is what autograd would have called.
// At 480 x 720 attention is over half of a CogVideoX block's forward on a GPU, so this removes
// most of checkpointing's extra time for one token-width of memory per block.
//
// One instance serves one checkpointed segment: its forward runs with grad mode off (the
// checkpoint's first run), its recomputation with grad mode on, and attend() tells the two
// apart that way. Calls are matched in order. Without fused kernels to call (LibTorch before
// 2.6, or a shape LibTorch would run with its math implementation) attention is simply run
// both times.
class KeptAttention {
public:
    // Whether the linked LibTorch exposes the fused kernels' forward and backward with
    // log-sum-exp under the signatures used here.
    static constexpr bool available() {
        return TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6);
    }

    KeptAttention();
    ~KeptAttention();
    KeptAttention(const KeptAttention&) = delete;
    KeptAttention& operator=(const KeptAttention&) = delete;

    // softmax(q k^T / sqrt(d)) v over [B, heads, L, d] (no mask, no dropout). Grad mode off:
    // computed and kept. Grad mode on: the next kept output, differentiable in q, k and v.
    at::Tensor attend(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value);

    // Outputs kept and not yet handed back.
    std::size_t kept_count() const { return kept_.size(); }

    // LibTorch's sdp::SDPBackend numbering, as _fused_sdp_choice returns it.
    enum class FusedKernel : std::int64_t { Math = 0, Flash = 1, Efficient = 2, CuDNN = 3 };

    // What a fused kernel's forward returns besides the output that its backward takes again.
    struct Kept {
        FusedKernel kernel = FusedKernel::Math;
        at::Tensor out; // undefined for Math: attention runs again
        at::Tensor logsumexp;
        at::Tensor cum_seq_q;
        at::Tensor cum_seq_k;
        std::int64_t max_q = 0;
        std::int64_t max_k = 0;
        at::Tensor philox_seed;
        at::Tensor philox_offset;
    };

private:
    std::deque<Kept> kept_;
};

} // namespace tuneframe::core
