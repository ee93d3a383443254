#include "engine/models/wan/vae/autoencoder_kl_wan_init.h"
#include "engine/core/text_affixes.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cmath>
#include <map>

namespace tuneframe::models::wan {
namespace {} // namespace

AutoencoderKLWanConfig tiny_wan21_vae_config() {
    AutoencoderKLWanConfig config;
    config.base_dim = 8;
    config.dim_mult = {1, 2, 4, 4};
    config.num_res_blocks = 1;
    return config;
}

AutoencoderKLWanConfig tiny_wan22_vae_config() {
    AutoencoderKLWanConfig config;
    config.base_dim = 8;
    config.decoder_base_dim = 12;
    config.z_dim = 48;
    config.dim_mult = {1, 2, 2, 2};
    config.num_res_blocks = 1;
    config.is_residual = true;
    config.in_channels = 12;
    config.out_channels = 12;
    config.patch_size = 2;
    config.scale_factor_spatial = 16;
    // Wan2.2-TI2V-5B's VAE statistics.
    config.latents_mean = {-0.2289, -0.0052, -0.1323, -0.2339, -0.2799, 0.0174,  0.1838,  0.1557,
                           -0.1382, 0.0542,  0.2813,  0.0891,  0.157,   -0.0098, 0.0375,  -0.1825,
                           -0.2246, -0.1207, -0.0698, 0.5109,  0.2665,  -0.2108, -0.2158, 0.2502,
                           -0.2055, -0.0322, 0.1109,  0.1567,  -0.0729, 0.0899,  -0.2799, -0.123,
                           -0.0313, -0.1649, 0.0117,  0.0723,  -0.2839, -0.2083, -0.052,  0.3748,
                           0.0152,  0.1957,  0.1433,  -0.2944, 0.3573,  -0.0548, -0.1681, -0.0667};
    config.latents_std = {0.4765, 1.0364, 0.4514, 1.1677, 0.5313, 0.499,  0.4818, 0.5013,
                          0.8158, 1.0344, 0.5894, 1.0901, 0.6885, 0.6165, 0.8454, 0.4978,
                          0.5759, 0.3523, 0.7135, 0.6804, 0.5833, 1.4146, 0.8986, 0.5659,
                          0.7069, 0.5338, 0.4889, 0.4917, 0.4069, 0.4999, 0.6866, 0.4093,
                          0.5709, 0.6065, 0.6415, 0.4944, 0.5726, 1.2042, 0.5458, 1.6887,
                          0.3971, 1.06,   0.3943, 0.5537, 0.5444, 0.4089, 0.7468, 0.7744};
    return config;
}

void initialise_autoencoder_kl_wan(AutoencoderKLWanImpl& vae, std::uint64_t seed) {
    torch::NoGradGuard no_grad;
    at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
    // Sorted by name, so the draws do not depend on the registration order.
    std::map<std::string, at::Tensor> parameters;
    for (const auto& item : vae.named_parameters()) {
        parameters.emplace(item.key(), item.value());
    }
    for (auto& [name, parameter] : parameters) {
        if (core::ends_with(name, ".gamma")) {
            parameter.fill_(1.0);
            continue;
        }
        const bool is_bias = core::ends_with(name, ".bias");
        const at::Tensor& weight =
            is_bias ? parameters.at(name.substr(0, name.size() - 5) + ".weight") : parameter;
        const double fan_in = static_cast<double>(weight.numel() / weight.size(0));
        const double bound = 1.0 / std::sqrt(fan_in);
        parameter.copy_(
            at::empty(parameter.sizes(), at::kFloat).uniform_(-bound, bound, generator));
    }
}

void write_random_autoencoder_kl_wan(const AutoencoderKLWanConfig& config,
                                     const std::filesystem::path& folder, std::uint64_t seed,
                                     c10::ScalarType dtype) {
    AutoencoderKLWan vae(config, WeightsPlacement{c10::kFloat, c10::kCPU});
    initialise_autoencoder_kl_wan(*vae, seed);
    save_autoencoder_kl_wan(*vae, folder, dtype);
}

} // namespace tuneframe::models::wan
