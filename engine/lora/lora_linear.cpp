#include "engine/lora/lora_linear.h"

#include "engine/core/error.h"
#include "engine/core/kernels/float8.h"
#include "engine/lora/quantized_linear.h"

#include <torch/torch.h>

#include <cmath>

namespace tuneframe::lora {

using core::Error;
using core::ErrorCode;

namespace {

thread_local bool skip_init = false;
thread_local BaseQuantization stored_quantized = BaseQuantization::None;

bool reduced_precision(torch::Dtype dtype) {
    return dtype == torch::kBFloat16 || dtype == torch::kHalf;
}

} // namespace

SkipInitGuard::SkipInitGuard()
    : previous_(skip_init) {
    skip_init = true;
}

SkipInitGuard::~SkipInitGuard() {
    skip_init = previous_;
}

bool SkipInitGuard::active() {
    return skip_init;
}

QuantizedBaseGuard::QuantizedBaseGuard(BaseQuantization quantization)
    : previous_(stored_quantized) {
    stored_quantized = quantization;
}

QuantizedBaseGuard::~QuantizedBaseGuard() {
    stored_quantized = previous_;
}

BaseQuantization QuantizedBaseGuard::active() {
    return stored_quantized;
}

LoRALinearImpl::LoRALinearImpl(const torch::nn::LinearOptions& options)
    : options_(options) {
    const BaseQuantization stored = QuantizedBaseGuard::active();
    if (stored != BaseQuantization::None) {
        const c10::ScalarType values = stored == BaseQuantization::Int8
                                           ? torch::kInt8
                                           : core::float8_e4m3_dtype("fp8 base weights");
        weight = register_parameter(
            "weight",
            torch::empty({options.out_features(), options.in_features()}, torch::dtype(values)),
            /*requires_grad=*/false);
        weight_scale = register_buffer("weight_scale",
                                       torch::empty({options.out_features()}, torch::kFloat32));
        quantization_ = stored;
    } else {
        weight = register_parameter("weight",
                                    torch::empty({options.out_features(), options.in_features()}));
    }
    if (options.bias()) {
        bias = register_parameter("bias", torch::empty({options.out_features()}));
    }
    if (SkipInitGuard::active() || stored != BaseQuantization::None) {
        return;
    }
    // nn::Linear's reset_parameters(), call for call.
    torch::NoGradGuard no_grad;
    torch::nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
    if (bias.defined()) {
        const auto fans = torch::nn::init::_calculate_fan_in_and_fan_out(weight);
        const double bound = 1.0 / std::sqrt(static_cast<double>(std::get<0>(fans)));
        torch::nn::init::uniform_(bias, -bound, bound);
    }
}

LoRALinearImpl::LoRALinearImpl(std::int64_t in_features, std::int64_t out_features, bool bias)
    : LoRALinearImpl(torch::nn::LinearOptions(in_features, out_features).bias(bias)) {}

at::Tensor LoRALinearImpl::base_forward(const at::Tensor& input) const {
    return base_output(input, bias);
}

void LoRALinearImpl::quantize_base(BaseQuantization quantization) {
    if (quantization == BaseQuantization::None || quantization_ != BaseQuantization::None) {
        return;
    }
    if (merged_) {
        throw Error(ErrorCode::Internal, "cannot quantize a base with a merged LoRA adapter");
    }
    QuantizedWeight quantized = quantize_weight(weight, quantization);
    torch::NoGradGuard no_grad;
    weight.set_requires_grad(false);
    // The parameter now owns the quantized values alone, so the full-precision storage goes.
    weight.set_data(quantized.values);
    weight_scale = register_buffer("weight_scale", quantized.scale);
    quantization_ = quantization;
}

void LoRALinearImpl::store_quantized_base(const at::Tensor& full) {
    if (quantization_ == BaseQuantization::None) {
        throw Error(ErrorCode::Internal, "store_quantized_base on a layer stored in full");
    }
    QuantizedWeight quantized = quantize_weight(full, quantization_);
    torch::NoGradGuard no_grad;
    weight.set_data(quantized.values);
    weight_scale.set_data(quantized.scale);
}

at::Tensor LoRALinearImpl::forward(const at::Tensor& input) {
    return compute(input, bias);
}

at::Tensor LoRALinearImpl::forward_without_bias(const at::Tensor& input) {
    return compute(input, at::Tensor());
}

at::Tensor LoRALinearImpl::base_output(const at::Tensor& input, const at::Tensor& with_bias) const {
    return quantization_ != BaseQuantization::None
               ? quantized_linear(input, weight, weight_scale, with_bias)
               : torch::nn::functional::linear(input, weight, with_bias);
}

torch::Dtype LoRALinearImpl::adapter_dtype_for(torch::Dtype input) const {
    // Full precision: the adapter runs in its own dtype on an upcast input, as PEFT does without
    // autocast. bf16/fp16 activations: the float32 weights are masters, cast down for the
    // products as PEFT under autocast does, so the adapter costs two tensor-core matmuls
    // instead of an fp32 copy of every input and fp32 products. The casts are in the graph, so
    // gradients still reach the float32 weights.
    const torch::Dtype adapter = lora_A->weight.scalar_type();
    return input == adapter || !reduced_precision(input) ? adapter : input;
}

at::Tensor LoRALinearImpl::add_update(const at::Tensor& result, const at::Tensor& down) const {
    const std::int64_t features = result.size(-1);
    const at::Tensor up = lora_B->weight.to(result.scalar_type());
    return at::addmm(result.reshape({-1, features}), down.reshape({-1, rank_}), up.t(),
                     /*beta=*/1, /*alpha=*/scaling())
        .view(result.sizes());
}

at::Tensor LoRALinearImpl::compute(const at::Tensor& input, const at::Tensor& with_bias) {
    at::Tensor result = base_output(input, with_bias);
    if (!adapter_active()) {
        return result;
    }
    at::Tensor x = input;
    if (dropout_ > 0 && is_training()) {
        x = torch::dropout(x, dropout_, /*train=*/true);
    }
    const torch::Dtype dtype = adapter_dtype_for(x.scalar_type());
    x = x.to(dtype);
    at::Tensor down = torch::nn::functional::linear(x, lora_A->weight.to(dtype));
    if (result.scalar_type() != dtype) {
        // A base in another dtype than the adapter's (a float64 input over float32 adapters):
        // the sum in the adapter's dtype, cast back.
        at::Tensor update = torch::nn::functional::linear(down, lora_B->weight.to(dtype));
        return (result + update * scaling()).to(result.scalar_type());
    }
    return add_update(result, down);
}

std::vector<at::Tensor> LoRALinearImpl::forward_group(const std::vector<LoRALinearImpl*>& layers,
                                                      const at::Tensor& input) {
    const auto shares = [&]() {
        if (layers.size() < 2) {
            return false;
        }
        const LoRALinearImpl& first = *layers.front();
        for (const LoRALinearImpl* layer : layers) {
            if (!layer->adapter_active() || layer->rank_ != first.rank_ ||
                (layer->dropout_ > 0 && layer->is_training()) ||
                layer->lora_A->weight.scalar_type() != first.lora_A->weight.scalar_type() ||
                layer->adapter_dtype_for(input.scalar_type()) != input.scalar_type()) {
                return false;
            }
        }
        return true;
    };
    std::vector<at::Tensor> outputs;
    if (!shares()) {
        for (LoRALinearImpl* layer : layers) {
            outputs.push_back(layer->forward(input));
        }
        return outputs;
    }
    const torch::Dtype dtype = input.scalar_type();
    std::vector<at::Tensor> down_weights;
    for (const LoRALinearImpl* layer : layers) {
        down_weights.push_back(layer->lora_A->weight.to(dtype));
    }
    const at::Tensor down =
        torch::nn::functional::linear(input, at::cat(down_weights, 0)); // [..., layers * r]
    const std::vector<at::Tensor> parts = down.split(layers.front()->rank_, -1);
    for (std::size_t i = 0; i < layers.size(); ++i) {
        outputs.push_back(
            layers[i]->add_update(layers[i]->base_output(input, layers[i]->bias), parts[i]));
    }
    return outputs;
}

namespace {

// Replaces `tensor`'s values with part `index` of `parts` along `dim`, keeping the tensor
// object (a module's registered parameter stays registered).
void keep_part(at::Tensor& tensor, std::int64_t dim, std::int64_t index, std::int64_t parts) {
    if (!tensor.defined()) {
        return;
    }
    const std::int64_t length = tensor.size(dim);
    if (length % parts != 0) {
        throw Error(ErrorCode::Internal, "a dimension of " + std::to_string(length) +
                                             " does not split into " + std::to_string(parts));
    }
    const std::int64_t part = length / parts;
    torch::NoGradGuard no_grad;
    tensor.set_data(tensor.narrow(dim, index * part, part).clone());
}

} // namespace

void LoRALinearImpl::keep_output_part(std::int64_t index, std::int64_t parts) {
    if (merged_) {
        throw Error(ErrorCode::Internal, "cannot split a layer with a merged LoRA adapter");
    }
    keep_part(weight, 0, index, parts);
    keep_part(bias, 0, index, parts);
    keep_part(weight_scale, 0, index, parts);
    if (has_adapter()) {
        keep_part(lora_B->weight, 0, index, parts);
        lora_B->options.out_features(lora_B->weight.size(0));
    }
    options_.out_features(weight.size(0));
}

void LoRALinearImpl::keep_input_part(std::int64_t index, std::int64_t parts) {
    if (merged_) {
        throw Error(ErrorCode::Internal, "cannot split a layer with a merged LoRA adapter");
    }
    keep_part(weight, 1, index, parts);
    if (has_adapter()) {
        keep_part(lora_A->weight, 1, index, parts);
        lora_A->options.in_features(lora_A->weight.size(1));
    }
    options_.in_features(weight.size(1));
}

void LoRALinearImpl::add_adapter(const LoRAAdapterOptions& options) {
    if (has_adapter()) {
        throw Error(ErrorCode::Internal, "this layer already has a LoRA adapter");
    }
    if (options.rank <= 0 || options.rank > std::min(in_features(), out_features())) {
        throw Error(ErrorCode::BadInput,
                    "LoRA rank " + std::to_string(options.rank) + " does not fit a layer of " +
                        std::to_string(in_features()) + " -> " + std::to_string(out_features()) +
                        " features.",
                    "Choose a rank between 1 and the smaller of the two.");
    }
    const auto float32 = torch::TensorOptions().dtype(torch::kFloat32).device(weight.device());
    torch::nn::LinearOptions a_options(in_features(), options.rank);
    torch::nn::LinearOptions b_options(options.rank, out_features());
    lora_A = register_module("lora_A", torch::nn::Linear(a_options.bias(false)));
    lora_B = register_module("lora_B", torch::nn::Linear(b_options.bias(false)));
    lora_A->to(float32.device(), torch::kFloat32);
    lora_B->to(float32.device(), torch::kFloat32);
    torch::NoGradGuard no_grad;
    if (options.init == LoRAInit::Gaussian) {
        lora_A->weight.normal_(0.0, 1.0 / static_cast<double>(options.rank));
    } else {
        torch::nn::init::kaiming_uniform_(lora_A->weight, std::sqrt(5.0));
    }
    lora_B->weight.zero_();
    rank_ = options.rank;
    alpha_ = options.alpha;
    dropout_ = options.dropout;
    weight_ = 1.0;
}

void LoRALinearImpl::remove_adapter() {
    if (!has_adapter()) {
        return;
    }
    if (merged_) {
        unmerge();
    }
    unregister_module("lora_A");
    unregister_module("lora_B");
    lora_A = nullptr;
    lora_B = nullptr;
    rank_ = 0;
}

void LoRALinearImpl::set_alpha(double alpha) {
    if (merged_) {
        throw Error(ErrorCode::Internal, "cannot change a merged LoRA adapter's alpha");
    }
    alpha_ = alpha;
}

void LoRALinearImpl::set_adapter_weight(double weight) {
    if (merged_) {
        throw Error(ErrorCode::Internal, "cannot change a merged LoRA adapter's weight");
    }
    weight_ = weight;
}

double LoRALinearImpl::scaling() const {
    return has_adapter() ? weight_ * alpha_ / static_cast<double>(rank_) : 0.0;
}

at::Tensor LoRALinearImpl::delta_weight() const {
    if (!has_adapter()) {
        return torch::zeros({out_features(), in_features()}, weight.options());
    }
    return torch::matmul(lora_B->weight.to(torch::kFloat32), lora_A->weight.to(torch::kFloat32)) *
           scaling(); // [out, in]
}

void LoRALinearImpl::merge() {
    if (!has_adapter() || merged_) {
        return;
    }
    if (quantization_ != BaseQuantization::None) {
        throw Error(ErrorCode::Unsupported,
                    "A LoRA adapter cannot be merged into " +
                        std::string(base_quantization_name(quantization_)) + " base weights.",
                    "Merge into the unquantized base: export the run as merged, which loads "
                    "the base model afresh.");
    }
    torch::NoGradGuard no_grad;
    weight.add_(delta_weight()); // one rounding into the base dtype, as PEFT's merge
    merged_ = true;
}

void LoRALinearImpl::unmerge() {
    if (!merged_) {
        return;
    }
    torch::NoGradGuard no_grad;
    weight.sub_(delta_weight());
    merged_ = false;
}

void LoRALinearImpl::cast_base(torch::Dtype dtype, bool non_blocking) {
    // Quantized values keep their type; they are converted to the input's at each forward.
    if (quantization_ == BaseQuantization::None) {
        weight.set_data(weight.to(dtype, non_blocking));
    }
    if (bias.defined()) {
        bias.set_data(bias.to(dtype, non_blocking));
    }
}

void LoRALinearImpl::to(torch::Dtype dtype, bool non_blocking) {
    cast_base(dtype, non_blocking);
}

void LoRALinearImpl::to(torch::Device device, torch::Dtype dtype, bool non_blocking) {
    if (quantization_ == BaseQuantization::None) {
        weight.set_data(weight.to(device, dtype, non_blocking));
    } else {
        weight.set_data(weight.to(device, non_blocking));
        weight_scale.set_data(weight_scale.to(device, non_blocking));
    }
    if (bias.defined()) {
        bias.set_data(bias.to(device, dtype, non_blocking));
    }
    if (has_adapter()) {
        lora_A->to(device, non_blocking);
        lora_B->to(device, non_blocking);
    }
}

} // namespace tuneframe::lora
