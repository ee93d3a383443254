#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_init.h"

#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cmath>
#include <map>

namespace tuneframe::models {

AutoencoderKLCogVideoXConfig tiny_autoencoder_kl_cogvideox_config(std::int64_t latent_channels) {
    AutoencoderKLCogVideoXConfig config;
    config.latent_channels = latent_channels;
    config.block_out_channels = {16, 32, 32, 64};
    config.layers_per_block = 1;
    config.norm_num_groups = 8;
    // Tiling, when a trainer enables it, then uses 48x40-pixel tiles (half of these), a size
    // whose strides and overlaps fit together.
    config.sample_height = 96;
    config.sample_width = 80;
    return config;
}

void initialise_autoencoder_kl_cogvideox(AutoencoderKLCogVideoXImpl& vae, std::uint64_t seed) {
    torch::NoGradGuard no_grad;
    at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
    std::map<std::string, at::Tensor> parameters;
    for (const auto& item : vae.named_parameters()) {
        parameters.emplace(item.key(), item.value());
    }
    for (auto& [name, parameter] : parameters) {
        const bool is_bias = name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
        const at::Tensor& weight =
            is_bias ? parameters.at(name.substr(0, name.size() - 5) + ".weight") : parameter;
        if (weight.dim() == 1) { // a group norm
            parameter.fill_(is_bias ? 0.0 : 1.0);
            continue;
        }
        const double fan_in = static_cast<double>(weight.numel() / weight.size(0));
        const double bound = 1.0 / std::sqrt(fan_in);
        // Drawn on the CPU so every device gets the same weights for a seed.
        parameter.copy_(
            at::empty(parameter.sizes(), at::kFloat).uniform_(-bound, bound, generator));
    }
}

void write_random_autoencoder_kl_cogvideox(const AutoencoderKLCogVideoXConfig& config,
                                           const std::filesystem::path& folder, std::uint64_t seed,
                                           c10::ScalarType dtype) {
    AutoencoderKLCogVideoX vae(config, WeightsPlacement{c10::kFloat, c10::kCPU});
    initialise_autoencoder_kl_cogvideox(*vae, seed);
    core::NamedTensors tensors = module_tensors(*vae);
    for (auto& [name, tensor] : tensors) {
        tensor = tensor.to(dtype);
    }
    std::filesystem::create_directories(folder);
    core::write_tensors(folder / "diffusion_pytorch_model.safetensors", tensors,
                        {{"format", "pt"}});
    core::write_json_file(folder / "config.json", config.to_json());
}

} // namespace tuneframe::models
