#include "engine/models/wan/wan_architectures.h"

#include "engine/core/error.h"
#include "engine/models/wan/vae/autoencoder_kl_wan_init.h"

namespace tuneframe::models::wan {
namespace {

// The tiny transformers: 2 blocks of 2 heads x 16 (the rope splits 16 into 8/4/4, as the real
// 128 into 44/42/42), a text width equal to the tiny UMT5's.
constexpr std::int64_t kTinyTextWidth = 32;
constexpr std::int64_t kTinyImageWidth = 32;
constexpr std::int64_t kTinyImageSize = 32;

WanTransformer3DConfig tiny_transformer(std::int64_t in_channels, std::int64_t out_channels) {
    WanTransformer3DConfig c;
    c.num_attention_heads = 2;
    c.attention_head_dim = 16;
    c.in_channels = in_channels;
    c.out_channels = out_channels;
    c.text_dim = kTinyTextWidth;
    c.freq_dim = 32;
    c.ffn_dim = 64;
    c.num_layers = 2;
    return c;
}

WanTransformer3DConfig preset(const std::string& name) {
    return find_wan_transformer_preset(name).config;
}

WanArchitecture tiny(std::string name, std::string description, std::string pipeline_class,
                     std::vector<WanTransformer3DConfig> experts, AutoencoderKLWanConfig vae) {
    WanArchitecture a;
    a.info = {std::move(name), std::move(description), std::move(pipeline_class), "fp32", true};
    a.experts = std::move(experts);
    a.vae = std::move(vae);
    a.text_width = kTinyTextWidth;
    a.image_width = kTinyImageWidth;
    a.image_size = kTinyImageSize;
    return a;
}

WanArchitecture released(const std::string& name, std::string pipeline_class,
                         std::vector<std::string> experts, AutoencoderKLWanConfig vae) {
    WanArchitecture a;
    const WanTransformerPreset& first = find_wan_transformer_preset(experts.front());
    a.info = {name, first.description, std::move(pipeline_class), "bf16", false};
    for (const std::string& expert : experts) {
        a.experts.push_back(preset(expert));
    }
    a.vae = std::move(vae);
    return a;
}

} // namespace

AutoencoderKLWanConfig wan21_vae_config() {
    return AutoencoderKLWanConfig{}; // the class defaults are Wan 2.1's VAE
}

AutoencoderKLWanConfig wan22_vae_config() {
    AutoencoderKLWanConfig c = tiny_wan22_vae_config(); // its statistics are the real VAE's
    c.base_dim = 160;
    c.decoder_base_dim = 256;
    c.dim_mult = {1, 2, 4, 4};
    c.num_res_blocks = 2;
    return c;
}

std::vector<WanArchitecture> wan_architectures() {
    std::vector<WanArchitecture> all;
    all.push_back(tiny("wan2.1-tiny", "tiny Wan 2.1 text-to-video (tests)", "WanPipeline",
                       {tiny_transformer(16, 16)}, tiny_wan21_vae_config()));
    {
        WanTransformer3DConfig i2v = tiny_transformer(36, 16);
        i2v.image_dim = kTinyImageWidth;
        i2v.added_kv_proj_dim = i2v.inner_dim();
        all.push_back(tiny("wan2.1-tiny-i2v", "tiny Wan 2.1 image-to-video with CLIP (tests)",
                           "WanImageToVideoPipeline", {i2v}, tiny_wan21_vae_config()));
    }
    {
        WanArchitecture ti2v =
            tiny("wan2.2-tiny-ti2v", "tiny Wan 2.2 text/image-to-video (tests)", "WanPipeline",
                 {tiny_transformer(48, 48)}, tiny_wan22_vae_config());
        ti2v.expand_timesteps = true;
        ti2v.flow_shift = 5.0;
        all.push_back(ti2v);
    }
    {
        WanArchitecture a14b =
            tiny("wan2.2-tiny-a14b", "tiny Wan 2.2 two-expert text-to-video (tests)", "WanPipeline",
                 {tiny_transformer(16, 16), tiny_transformer(16, 16)}, tiny_wan21_vae_config());
        a14b.boundary_ratio = 0.875;
        all.push_back(a14b);
    }
    all.push_back(
        released("wan2.1-t2v-1.3b", "WanPipeline", {"wan2.1-t2v-1.3b"}, wan21_vae_config()));
    all.push_back(
        released("wan2.1-t2v-14b", "WanPipeline", {"wan2.1-t2v-14b"}, wan21_vae_config()));
    all.push_back(released("wan2.1-i2v-14b", "WanImageToVideoPipeline", {"wan2.1-i2v-14b"},
                           wan21_vae_config()));
    {
        WanArchitecture ti2v =
            released("wan2.2-ti2v-5b", "WanPipeline", {"wan2.2-ti2v-5b"}, wan22_vae_config());
        ti2v.expand_timesteps = true;
        ti2v.flow_shift = 5.0;
        all.push_back(ti2v);
    }
    {
        WanArchitecture t2v = released("wan2.2-t2v-a14b", "WanPipeline",
                                       {"wan2.2-t2v-a14b", "wan2.2-t2v-a14b"}, wan21_vae_config());
        t2v.boundary_ratio = 0.875;
        all.push_back(t2v);
    }
    {
        WanArchitecture i2v = released("wan2.2-i2v-a14b", "WanImageToVideoPipeline",
                                       {"wan2.2-i2v-a14b", "wan2.2-i2v-a14b"}, wan21_vae_config());
        i2v.boundary_ratio = 0.9;
        all.push_back(i2v);
    }
    return all;
}

WanArchitecture find_wan_architecture(const std::string& name) {
    std::string known;
    for (WanArchitecture& architecture : wan_architectures()) {
        if (architecture.info.name == name) {
            return architecture;
        }
        known += (known.empty() ? "" : ", ") + architecture.info.name;
    }
    throw core::Error(core::ErrorCode::Usage, "Unknown Wan architecture '" + name + "'.",
                      "Choose one of: " + known + ".");
}

} // namespace tuneframe::models::wan
