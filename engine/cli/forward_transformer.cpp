#include "engine/cli/commands.h"
#include "engine/cli/forward_components.h"
#include "engine/core/error.h"
#include "engine/core/tensor_io.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/model_family.h"
#include "engine/models/module_weights.h"
#include "engine/models/streaming_weights.h"

#include <torch/torch.h>

#include <cmath>
#include <iostream>

namespace tuneframe::cli {
namespace {

// The input file's tensors, looked up as PREFIX + name.
class InputTensors {
public:
    InputTensors(const std::string& path, std::string prefix)
        : path_(path)
        , prefix_(std::move(prefix))
        , tensors_(core::read_tensors(path)) {}

    at::Tensor get(const std::string& name, bool required) const {
        auto it = tensors_.find(prefix_ + name);
        if (it != tensors_.end()) {
            return it->second;
        }
        if (required) {
            std::string names;
            for (const auto& [key, tensor] : tensors_) {
                names += (names.empty() ? "" : ", ") + key;
            }
            throw core::Error(core::ErrorCode::BadInput,
                              "'" + path_ + "' has no tensor '" + prefix_ + name +
                                  "'; it holds: " + names + ".",
                              "Name the tensors as ../shared/golden does, or pass "
                              "--input-prefix.");
        }
        return {};
    }

    // Every tensor under the prefix, by its name without it.
    std::map<std::string, at::Tensor> all() const {
        std::map<std::string, at::Tensor> named;
        for (const auto& [key, tensor] : tensors_) {
            if (key.rfind(prefix_, 0) == 0) {
                named.emplace(key.substr(prefix_.size()), tensor);
            }
        }
        return named;
    }

private:
    std::string path_;
    std::string prefix_;
    std::map<std::string, at::Tensor> tensors_;
};

} // namespace

// `forward transformer`: one forward of a family's transformer (CogVideoXTransformer3DModel,
// WanTransformer3DModel) on tensors from a file, named as the golden sets name them.
int run_forward_transformer(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const std::string model_dir = arguments.required_option("--model");
    const std::string inputs_path = arguments.required_option("--inputs");
    const std::string out = arguments.required_option("--out");
    const std::string prefix = arguments.option("--input-prefix").value_or("");
    const std::optional<std::string> lora = arguments.option("--lora");
    const double lora_scale = arguments.number_option("--lora-scale", std::nan(""));
    const std::optional<std::string> dtype = arguments.option("--dtype");
    const std::string device =
        arguments.option("--device").value_or(torch::cuda::is_available() ? "cuda" : "cpu");
    arguments.finish();
    if (!std::isnan(lora_scale) && !lora) {
        arguments.fail("--lora-scale needs --lora.");
    }

    models::TransformerLoadOptions load;
    load.device = models::parse_device(device);
    if (dtype) {
        load.dtype = models::parse_dtype(*dtype);
    }
    // Checked before reading gigabytes: a stored fp16 model cannot run on the CPU as it is.
    const torch::Dtype run_dtype =
        load.dtype ? *load.dtype : models::stored_dtype(core::SafetensorsCheckpoint(model_dir));
    models::check_placement({run_dtype, load.device});
    const models::DiffusionTransformer model = models::load_transformer_at(model_dir, load);
    if (lora) {
        lora::LoRALoadOptions options;
        options.weight = std::isnan(lora_scale) ? 1.0 : lora_scale;
        // The transformer's family is not at hand: a LoRA in any family's layout is read.
        options.schemes = models::all_lora_key_schemes();
        lora::load_lora_weights(*model, *lora, options);
        model->to(load.device);
    }

    const InputTensors tensors(inputs_path, prefix);
    auto on_device = [&](const at::Tensor& tensor) {
        return tensor.defined() ? tensor.to(load.device) : tensor;
    };
    models::TransformerInputs inputs;
    for (const auto& [name, tensor] : tensors.all()) {
        inputs.extra.emplace(name, on_device(tensor));
    }
    auto take = [&](const char* name, bool required) {
        const at::Tensor tensor = on_device(tensors.get(name, required));
        inputs.extra.erase(name);
        return tensor;
    };
    inputs.hidden_states = take("hidden_states", true);
    inputs.encoder_hidden_states = take("encoder_hidden_states", true);
    inputs.timestep = take("timestep", true);
    inputs.ofs = take("ofs", false);
    inputs.encoder_hidden_states_image = take("encoder_hidden_states_image", false);
    check_input_shape(inputs_path, prefix + "hidden_states", inputs.hidden_states,
                      model->hidden_states_layout());
    check_input_shape(inputs_path, prefix + "encoder_hidden_states", inputs.encoder_hidden_states,
                      {"batch", "tokens", "width"});
    if (inputs.extra.count("image_rotary_emb_cos") != inputs.extra.count("image_rotary_emb_sin")) {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + inputs_path + "' holds only one of image_rotary_emb_cos/sin.",
                          "Give both tables, or neither to have them computed.");
    }

    at::Tensor sample;
    {
        torch::NoGradGuard no_grad;
        sample = model->forward(inputs);
    }
    core::write_tensors(out, {{"sample", sample}});
    std::cout << "sample " << sample.sizes() << " " << sample.scalar_type() << " written to " << out
              << "\n";
    return 0;
}

} // namespace tuneframe::cli
