#include "engine/models/cogvideox/vae/block_average_vae.h"

#include "engine/core/error.h"
#include "engine/core/text_affixes.h"

#include <torch/torch.h>

#include <algorithm>
#include <string>

namespace tuneframe::models {
namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A convolution weight [out, in, (t,) h, w] that copies input channel `from` to output channel
// `to` times `gain`, from the current frame (the causal kernel's last time tap) and the centre
// of the spatial kernel.
void copy_channel(at::Tensor& weight, std::int64_t to, std::int64_t from, double gain) {
    at::Tensor tap = weight.select(0, to).select(0, from);
    while (tap.dim() > 2) {
        tap = tap.select(0, tap.size(0) - 1); // the last time tap
    }
    tap.select(0, tap.size(0) / 2).select(0, tap.size(1) / 2).fill_(gain);
}

// The constant channels that make the encoder's output norm divide by K / 2 whatever the clip
// (to 1.5e-6 of it); see set_encoder.
constexpr double kNormAnchor = 1000.0;
// The posterior's standard deviation is e^-10: a sample is the mean to 5e-5.
constexpr double kQuietLogVariance = -20.0;

// Copies the colours c and their negatives -c (channels c + 3) through a SiLU exactly:
// silu(x) - silu(-x) = x, since sigmoid(x) + sigmoid(-x) = 1.
void copy_colours_through_silu(at::Tensor& weight) {
    weight.zero_();
    for (std::int64_t c = 0; c < 3; ++c) {
        copy_channel(weight, c, c, 1.0);
        copy_channel(weight, c, c + 3, -1.0);
    }
}

// The encoder carries the colours c and -c in channels 0-5 through identity resnets and 2x2
// mean downsamplers. Its last block's shortcut adds +K and -K in channels 6 and 7, past every
// layer that reads the activations unnormalised: with them, the output norm's first group of
// eight has mean zero and a spread of K / 2 however the clip looks, so it passes the colours
// through with a known scale, which the norm's weight undoes.
void set_encoder(const std::string& name, at::Tensor& parameter, const std::string& anchor) {
    const bool bias = core::ends_with(name, ".bias");
    if (name == "encoder.conv_in.conv.weight") {
        parameter.zero_();
        for (std::int64_t c = 0; c < 3; ++c) {
            copy_channel(parameter, c, c, 1.0);
            copy_channel(parameter, c + 3, c, -1.0);
        }
    } else if (name == "encoder.conv_in.conv.bias" || contains(name, ".conv2.")) {
        parameter.zero_();
    } else if (contains(name, ".conv_shortcut.")) {
        parameter.zero_();
        if (!bias) {
            for (std::int64_t c = 0; c < std::min(parameter.size(0), parameter.size(1)); ++c) {
                copy_channel(parameter, c, c, 1.0);
            }
        } else if (name == anchor) {
            parameter[6] = kNormAnchor;
            parameter[7] = -kNormAnchor;
        }
    } else if (contains(name, ".downsamplers.")) {
        parameter.zero_();
        if (!bias) {
            // 2x2 mean over the kernel's first rows and columns: the pixels of this block
            // only, never the padding the downsampler adds on the right and bottom.
            for (std::int64_t c = 0; c < parameter.size(0); ++c) {
                parameter[c][c].narrow(0, 0, 2).narrow(1, 0, 2).fill_(0.25);
            }
        }
    } else if (name == "encoder.norm_out.weight") {
        parameter.zero_();
        parameter.narrow(0, 0, 6).fill_(kNormAnchor / 2);
    } else if (name == "encoder.norm_out.bias") {
        parameter.zero_();
    } else if (name == "encoder.conv_out.conv.weight") {
        copy_colours_through_silu(parameter);
    } else if (name == "encoder.conv_out.conv.bias") {
        const std::int64_t latent = parameter.size(0) / 2;
        parameter.zero_();
        parameter.narrow(0, latent, latent).fill_(kQuietLogVariance);
    }
}

// The decoder paints the latent through its output spatial norm's shift, conv_b of the latent
// spread over each block's pixels (colours and negatives again, for the SiLU); the norm's scale
// is zeroed, so the detail path through the up blocks is switched off.
void set_decoder(const std::string& name, at::Tensor& parameter) {
    if (contains(name, ".conv2.") || contains(name, "norm_out.conv_y.") ||
        name == "decoder.conv_out.conv.bias" || name == "decoder.norm_out.conv_b.conv.bias") {
        parameter.zero_();
    } else if (name == "decoder.norm_out.conv_b.conv.weight") {
        parameter.zero_();
        for (std::int64_t c = 0; c < 3; ++c) {
            copy_channel(parameter, c, c, 1.0);
            copy_channel(parameter, c + 3, c, -1.0);
        }
    } else if (name == "decoder.conv_out.conv.weight") {
        copy_colours_through_silu(parameter);
    }
}

} // namespace

void make_block_average_autoencoder(AutoencoderKLCogVideoXImpl& vae) {
    const AutoencoderKLCogVideoXConfig& config = vae.config();
    if (config.in_channels != 3 || config.out_channels != 3 || config.latent_channels < 3 ||
        config.block_out_channels.back() / config.norm_num_groups < 8 ||
        *std::min_element(config.block_out_channels.begin(), config.block_out_channels.end()) < 8) {
        throw core::Error(core::ErrorCode::BadInput,
                          "this VAE's channels cannot hold the block-average codec (it needs "
                          "RGB, 3 latent channels and groups of at least 8 channels).",
                          "Use the tiny VAE (init-model --arch cogvideox-tiny).");
    }
    const std::string anchor = "encoder.down_blocks." +
                               std::to_string(vae.config().block_out_channels.size() - 1) +
                               ".resnets.0.conv_shortcut.bias";
    const auto parameters = vae.named_parameters();
    const bool anchored = std::any_of(parameters.begin(), parameters.end(),
                                      [&](const auto& item) { return item.key() == anchor; });
    if (!anchored) {
        throw core::Error(core::ErrorCode::BadInput,
                          "this VAE's last encoder block keeps its width, so there is no "
                          "shortcut to carry the block-average codec's norm anchors.",
                          "Use the tiny VAE (init-model --arch cogvideox-tiny).");
    }
    torch::NoGradGuard no_grad;
    for (const auto& item : parameters) {
        at::Tensor parameter = item.value();
        if (item.key().rfind("encoder.", 0) == 0) {
            set_encoder(item.key(), parameter, anchor);
        } else {
            set_decoder(item.key(), parameter);
        }
    }
}

double block_average_latent_scale(const AutoencoderKLCogVideoXImpl& vae,
                                  const std::vector<at::Tensor>& clips) {
    torch::NoGradGuard no_grad;
    std::vector<at::Tensor> colours;
    for (const at::Tensor& clip : clips) {
        colours.push_back(vae.encode(clip).mean.narrow(1, 0, 3).flatten());
    }
    const double deviation = at::cat(colours).std().item<double>();
    return deviation > 0 ? 1.0 / deviation : 1.0;
}

double autoencoder_reconstruction_error(const AutoencoderKLCogVideoXImpl& vae,
                                        const std::vector<at::Tensor>& clips) {
    torch::NoGradGuard no_grad;
    double total = 0;
    for (const at::Tensor& clip : clips) {
        const at::Tensor decoded = vae.decode(vae.encode(clip).mean);
        total += (decoded - clip.to(decoded.options())).abs().mean().item<double>();
    }
    return clips.empty() ? 0.0 : total / static_cast<double>(clips.size());
}

} // namespace tuneframe::models
