#include "engine/train/optim/adamw_8bit_optimizer.h"

#include "engine/core/error.h"
#include "engine/train/optim/blockwise_quantization.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace tuneframe::train {
namespace {

// Elements dequantised at a time: bounds the float32 and index temporaries of a large tensor
// to a few tens of MB. A multiple of the block size, so chunks start on block boundaries.
constexpr std::int64_t kChunk = std::int64_t{1} << 20;
static_assert(kChunk % AdamW8bitOptimizer::kBlockSize == 0, "chunks must hold whole blocks");

std::int64_t block_count(std::int64_t numel) {
    return (numel + AdamW8bitOptimizer::kBlockSize - 1) / AdamW8bitOptimizer::kBlockSize;
}

} // namespace

AdamW8bitOptimizer::AdamW8bitOptimizer(NamedParameters parameters, const AdamHyperParameters& hyper,
                                       std::int64_t min_8bit_size, bool fp32_master_weights)
    : Optimizer("adamw8bit", std::move(parameters), hyper.lr, fp32_master_weights)
    , hyper_(hyper)
    , min_8bit_size_(min_8bit_size) {
    if (!hyper_.decoupled) {
        throw core::Error(core::ErrorCode::Internal, "adamw8bit needs decoupled weight decay");
    }
    check_adam_hyper_parameters(hyper_);
    if (min_8bit_size_ < 0) {
        throw_bad_option("min_8bit_size", static_cast<double>(min_8bit_size_), ">= 0",
                         "bitsandbytes uses 4096.");
    }
}

const std::pair<at::Tensor, at::Tensor>& AdamW8bitOptimizer::maps(const c10::Device& device) {
    auto found = maps_.find(device);
    if (found == maps_.end()) {
        found = maps_
                    .emplace(device, std::make_pair(dynamic_quantization_map(true).to(device),
                                                    dynamic_quantization_map(false).to(device)))
                    .first;
    }
    return found->second;
}

void AdamW8bitOptimizer::init_state(std::size_t, const at::Tensor& working, StateTensors& state) {
    state["step"] = at::zeros({}, at::TensorOptions().dtype(at::kFloat));
    if (working.numel() < min_8bit_size_) {
        state["exp_avg"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
        state["exp_avg_sq"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
        return;
    }
    const at::TensorOptions options = working.options();
    // Any code stands for 0 while its block's absmax is 0; the zero code keeps the state
    // readable all the same.
    const at::Tensor& signed_map = maps(working.device()).first;
    const std::int64_t zero_code = (signed_map == 0).nonzero().item<std::int64_t>();
    state["exp_avg"] = at::full(working.sizes(), zero_code, options.dtype(at::kByte));
    state["exp_avg_sq"] = at::zeros(working.sizes(), options.dtype(at::kByte));
    state["exp_avg_absmax"] = at::zeros({block_count(working.numel())}, options.dtype(at::kFloat));
    state["exp_avg_sq_absmax"] =
        at::zeros({block_count(working.numel())}, options.dtype(at::kFloat));
}

StateBytes AdamW8bitOptimizer::buffer_bytes() const {
    StateBytes bytes;
    for (const auto& [device, tables] : maps_) {
        const std::int64_t size = (tables.first.numel() + tables.second.numel()) *
                                  static_cast<std::int64_t>(tables.first.element_size());
        (device.is_cpu() ? bytes.cpu : bytes.device) += size;
    }
    return bytes;
}

void AdamW8bitOptimizer::update_quantized(const at::Tensor& working, const at::Tensor& gradient,
                                          StateTensors& state, const AdamStepScalars& scalars,
                                          const AdamHyperParameters& hyper) {
    const auto& [signed_map, unsigned_map] = maps(working.device());
    const at::Tensor target = working.is_contiguous() ? working : working.contiguous();
    const at::Tensor params = target.view({-1});
    const at::Tensor grads = gradient.reshape({-1});
    const at::Tensor codes1 = state.at("exp_avg").view({-1});
    const at::Tensor codes2 = state.at("exp_avg_sq").view({-1});
    const at::Tensor& absmax1 = state.at("exp_avg_absmax");
    const at::Tensor& absmax2 = state.at("exp_avg_sq_absmax");
    const std::int64_t numel = params.numel();
    for (std::int64_t start = 0; start < numel; start += kChunk) {
        const std::int64_t end = std::min(numel, start + kChunk);
        const std::int64_t first_block = start / kBlockSize;
        const std::int64_t end_block = first_block + block_count(end - start);
        const at::Tensor chunk_codes1 = codes1.slice(0, start, end);
        const at::Tensor chunk_codes2 = codes2.slice(0, start, end);
        const at::Tensor chunk_absmax1 = absmax1.slice(0, first_block, end_block);
        const at::Tensor chunk_absmax2 = absmax2.slice(0, first_block, end_block);
        const at::Tensor exp_avg =
            dequantize_blockwise(chunk_codes1, chunk_absmax1, signed_map, kBlockSize);
        const at::Tensor exp_avg_sq =
            dequantize_blockwise(chunk_codes2, chunk_absmax2, unsigned_map, kBlockSize);
        adam_apply(params.slice(0, start, end), grads.slice(0, start, end), exp_avg, exp_avg_sq,
                   scalars, hyper);
        quantize_blockwise(exp_avg, signed_map, kBlockSize, /*keep_sign=*/true, chunk_codes1,
                           chunk_absmax1);
        quantize_blockwise(exp_avg_sq, unsigned_map, kBlockSize, /*keep_sign=*/false, chunk_codes2,
                           chunk_absmax2);
    }
    if (!target.is_same(working)) {
        working.copy_(target);
    }
}

void AdamW8bitOptimizer::step() {
    AdamHyperParameters hyper = hyper_;
    hyper.lr = lr();
    for_each_gradient(
        [&](std::size_t, at::Tensor& working, const at::Tensor& gradient, StateTensors& state) {
            const AdamStepScalars scalars = adam_begin_step(state.at("step"), hyper);
            if (state.at("exp_avg").scalar_type() == at::kFloat) {
                adam_apply(working, gradient, state.at("exp_avg"), state.at("exp_avg_sq"), scalars,
                           hyper);
            } else {
                update_quantized(working, gradient, state, scalars, hyper);
            }
        });
}

} // namespace tuneframe::train
