#pragma once

#include "engine/lora/quantized_weight.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

namespace tuneframe::lora {

// How a fresh adapter starts. Both leave lora_B at zero, so a new adapter changes nothing
// until it is trained (PEFT's `init_lora_weights`).
enum class LoRAInit {
    Kaiming,  // PEFT's default (`True`): lora_A Kaiming-uniform with a = sqrt(5)
    Gaussian, // PEFT's "gaussian": lora_A normal with std 1 / rank
};

struct LoRAAdapterOptions {
    std::int64_t rank = 0;
    double alpha = 0; // scaling = weight * alpha / rank
    double dropout = 0;
    LoRAInit init = LoRAInit::Kaiming;
};

// A Linear layer that can carry one LoRA adapter: y = W x + b + weight * (alpha / r) * B A x,
// with A [r, in] and B [out, r] (nn::Linear layers without bias) kept in float32 over a base
// that may be bf16 or fp16. On bf16/fp16 inputs the adapter computes in the input's dtype from
// its float32 masters (PEFT under autocast); on float32 inputs it is float32 throughout.
//
// The base is nn::Linear's parameters, `weight` [out, in] and `bias` [out], registered on this
// module and initialised exactly as nn::Linear does (same calls, same order), so
// named_parameters() gives `to_q.weight` (the checkpoint key) rather than
// `to_q.base_layer.weight`, and `to_q.lora_A.weight` (the PEFT key without the adapter name).
// It does not hold an nn::Linear object because LibTorch's Linear always initialises its
// weights, which costs half a minute on a 5b model that is about to be loaded anyway (see
// SkipInitGuard). Model ports use it for every Linear, which is what lets any be targeted.
//
// A frozen base may be stored quantized (quantize_base): `weight` keeps its name and shape but
// holds int8 or fp8 values, a `weight_scale` buffer [out] holds the float32 per-channel scales,
// and the layer computes through quantized_linear in the input's dtype. The adapter is unchanged.
class LoRALinearImpl : public torch::nn::Module {
public:
    explicit LoRALinearImpl(const torch::nn::LinearOptions& options);
    LoRALinearImpl(std::int64_t in_features, std::int64_t out_features, bool bias = true);

    at::Tensor forward(const at::Tensor& input);
    // forward() without the bias: a row-parallel layer's partial output, which is summed over
    // the ranks before the bias is added once.
    at::Tensor forward_without_bias(const at::Tensor& input);

    // Each layer's forward() of one shared input (attention's q, k and v). Where every layer
    // carries an unmerged adapter, all of one rank and dtype and without dropout in training,
    // the adapters run as one: a single down-projection over the concatenated lora_A weights,
    // then each up-projection accumulated into its base output as forward() does, so the
    // shared input receives one gradient from all the adapters instead of one each. Otherwise
    // the layers run one by one. The parameters and their names are the layers' own.
    static std::vector<at::Tensor> forward_group(const std::vector<LoRALinearImpl*>& layers,
                                                 const at::Tensor& input);

    // Keeps part `index` of `parts` equal runs of the output features (tensor parallelism's
    // column split): rows of the weight, its scales and lora_B, and the bias; lora_A stays
    // whole. Or of the input features (the row split): columns of the weight and lora_A. The
    // adapter must be added before, so both halves of it are split consistently.
    void keep_output_part(std::int64_t index, std::int64_t parts);
    void keep_input_part(std::int64_t index, std::int64_t parts);

    void add_adapter(const LoRAAdapterOptions& options);
    void remove_adapter(); // unmerges first when merged
    bool has_adapter() const { return rank_ > 0; }
    std::int64_t rank() const { return rank_; }
    double alpha() const { return alpha_; }
    void set_alpha(double alpha);
    // diffusers' `set_adapters` weight (and `attention_kwargs["scale"]`): a multiplier on
    // alpha / rank. Not allowed while merged, since the merged delta used the old value.
    void set_adapter_weight(double weight);
    double adapter_weight() const { return weight_; }
    double scaling() const;

    // Adds the adapter's delta (computed in float32) into the base weight, so inference runs
    // at the base layer's speed; unmerge() subtracts it again (exact in float32, within a
    // rounding step in bf16/fp16, as in PEFT).
    void merge();
    void unmerge();
    bool merged() const { return merged_; }
    at::Tensor delta_weight() const; // weight * alpha / r * B A, float32 [out, in]

    std::int64_t in_features() const { return options_.in_features(); }
    std::int64_t out_features() const { return options_.out_features(); }
    // The base layer alone, as nn::Linear computes it.
    at::Tensor base_forward(const at::Tensor& input) const;

    // Stores the base weight quantized and frees the full-precision one; it stops requiring
    // gradients. For a frozen base only: merging into it, or casting it, is refused or skipped.
    void quantize_base(BaseQuantization quantization);
    // A layer built under a QuantizedBaseGuard: quantizes `full` (the base weight as it would be
    // held, in the compute dtype) into its storage, as quantize_base() would have from `full`.
    void store_quantized_base(const at::Tensor& full);
    BaseQuantization base_quantization() const { return quantization_; }

    // Casting the model to bf16/fp16 casts the base only: adapters stay float32.
    using torch::nn::Module::to;
    void to(torch::Dtype dtype, bool non_blocking = false) override;
    void to(torch::Device device, torch::Dtype dtype, bool non_blocking = false) override;

    at::Tensor weight;       // the base layer's, shared
    at::Tensor bias;         // undefined when the layer has none
    at::Tensor weight_scale; // float32 [out] when the base is quantized, else undefined
    torch::nn::Linear lora_A{nullptr};
    torch::nn::Linear lora_B{nullptr};

private:
    void cast_base(torch::Dtype dtype, bool non_blocking);
    at::Tensor compute(const at::Tensor& input, const at::Tensor& with_bias);
    at::Tensor base_output(const at::Tensor& input, const at::Tensor& with_bias) const;
    bool adapter_active() const { return has_adapter() && !merged_; }
    // The dtype the adapter computes in for an input of `input`'s dtype.
    torch::Dtype adapter_dtype_for(torch::Dtype input) const;
    // result + scaling * down B^T as one matmul that accumulates into the base output (addmm
    // with beta 1): down [..., r] in result's dtype.
    at::Tensor add_update(const at::Tensor& result, const at::Tensor& down) const;

    torch::nn::LinearOptions options_;
    std::int64_t rank_ = 0;
    double alpha_ = 0;
    double weight_ = 1.0;
    double dropout_ = 0;
    bool merged_ = false;
    BaseQuantization quantization_ = BaseQuantization::None;
};
TORCH_MODULE(LoRALinear);

// While one is alive on this thread, LoRALinear layers are built with their base weight already
// stored quantized (`weight` int8 or fp8 and `weight_scale`, not initialised, frozen): for a
// loader that quantizes each weight as it reads it (store_quantized_base), so the layer never
// exists in full precision. None leaves layers as they are.
class QuantizedBaseGuard {
public:
    explicit QuantizedBaseGuard(BaseQuantization quantization);
    ~QuantizedBaseGuard();
    QuantizedBaseGuard(const QuantizedBaseGuard&) = delete;
    QuantizedBaseGuard& operator=(const QuantizedBaseGuard&) = delete;

    static BaseQuantization active();

private:
    BaseQuantization previous_;
};

// While one is alive on this thread, LoRALinear layers (and other model parts that honour it)
// allocate their parameters without initialising them, like transformers' no_init_weights:
// for models whose every tensor is about to be read from a checkpoint.
class SkipInitGuard {
public:
    SkipInitGuard();
    ~SkipInitGuard();
    SkipInitGuard(const SkipInitGuard&) = delete;
    SkipInitGuard& operator=(const SkipInitGuard&) = delete;

    static bool active();

private:
    bool previous_;
};

} // namespace tuneframe::lora
