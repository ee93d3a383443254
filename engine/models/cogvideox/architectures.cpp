#include "engine/models/cogvideox/architectures.h"

#include "engine/core/error.h"

namespace tuneframe::models::cogvideox {
namespace {

CogVideoXTransformer3DConfig cogvideox_2b() {
    CogVideoXTransformer3DConfig c; // the class defaults are CogVideoX-2b's
    c.num_layers = 30;
    c.num_attention_heads = 30;
    return c;
}

CogVideoXTransformer3DConfig cogvideox_5b() {
    CogVideoXTransformer3DConfig c;
    c.num_layers = 42;
    c.num_attention_heads = 48;
    c.use_rotary_positional_embeddings = true;
    return c;
}

CogVideoXTransformer3DConfig cogvideox_5b_i2v() {
    CogVideoXTransformer3DConfig c = cogvideox_5b();
    c.in_channels = 32; // noisy latents and image latents, concatenated on channels
    c.use_learned_positional_embeddings = true;
    return c;
}

CogVideoXTransformer3DConfig cogvideox15_5b() {
    CogVideoXTransformer3DConfig c = cogvideox_5b();
    c.patch_size_t = 2;
    c.patch_bias = false;
    c.sample_frames = 81;
    c.sample_height = 300; // a 150 x 150 rotary grid, sliced (cogvideox-spec.md §1.1)
    c.sample_width = 300;
    return c;
}

CogVideoXTransformer3DConfig cogvideox15_5b_i2v() {
    CogVideoXTransformer3DConfig c = cogvideox15_5b();
    c.in_channels = 32;
    c.ofs_embed_dim = 512;
    return c;
}

// The embedded demo model: rotary like 5b, 16 latent channels like every CogVideoX VAE, and a
// 32-wide text embedding equal to the tiny T5's d_model. Sample sizes stay the real ones so the
// rotary crop arithmetic behaves as in the real models; the 64-token text keeps the tiny
// pipeline's attention cheap (the tokenizer's max length must equal it).
CogVideoXTransformer3DConfig cogvideox_tiny() {
    CogVideoXTransformer3DConfig c = cogvideox_5b();
    c.num_layers = 2;
    c.num_attention_heads = 2;
    c.attention_head_dim = 16;
    c.text_embed_dim = 32;
    c.time_embed_dim = 32;
    c.max_text_seq_length = 64;
    return c;
}

// The embedded demo's model: the tiny one four times as wide. The transformer has no path from
// its input to its output but its hidden state, and a 2 x 2 patch of 16 latent channels is 64
// numbers: the tiny model's 32-wide state cannot carry the noise it must predict, so however
// long it trains, its samples keep the starting noise (measured on the demo clips: a full
// fine-tune of the tiny model levels off at a loss of 0.18 on a single clip; this one reaches
// 0.012 and draws the clip). 128 wide, 4 heads of 32 keep the rotary split of 5b's heads.
CogVideoXTransformer3DConfig cogvideox_tiny_demo() {
    CogVideoXTransformer3DConfig c = cogvideox_tiny();
    c.num_attention_heads = 4;
    c.attention_head_dim = 32;
    return c;
}

// Image-to-video like 5b-I2V but without the learned position table, which would pin the
// demo to 480 x 720.
CogVideoXTransformer3DConfig cogvideox_tiny_i2v() {
    CogVideoXTransformer3DConfig c = cogvideox_tiny();
    c.in_channels = 32;
    return c;
}

} // namespace

bool same_architecture(const CogVideoXTransformer3DConfig& a,
                       const CogVideoXTransformer3DConfig& b) {
    return a.num_layers == b.num_layers && a.num_attention_heads == b.num_attention_heads &&
           a.attention_head_dim == b.attention_head_dim && a.in_channels == b.in_channels &&
           a.out_channels == b.out_channels && a.text_embed_dim == b.text_embed_dim &&
           a.time_embed_dim == b.time_embed_dim && a.patch_size == b.patch_size &&
           a.patch_size_t == b.patch_size_t && a.ofs_embed_dim == b.ofs_embed_dim &&
           a.use_rotary_positional_embeddings == b.use_rotary_positional_embeddings &&
           a.use_learned_positional_embeddings == b.use_learned_positional_embeddings &&
           a.max_text_seq_length == b.max_text_seq_length;
}

const std::vector<Architecture>& architectures() {
    static const std::vector<Architecture> all = {
        {"cogvideox-tiny", "tiny CogVideoX for demos and tests (text-to-video, 3D rotary)",
         "CogVideoXPipeline", "fp32", cogvideox_tiny()},
        {"cogvideox-tiny-i2v", "tiny CogVideoX for demos and tests (image-to-video, 3D rotary)",
         "CogVideoXImageToVideoPipeline", "fp32", cogvideox_tiny_i2v()},
        {"cogvideox-tiny-demo",
         "the embedded demo's CogVideoX (text-to-video, 3D rotary): the tiny one, 4x as wide",
         "CogVideoXPipeline", "fp32", cogvideox_tiny_demo()},
        {"cogvideox-2b", "CogVideoX-2b (text-to-video, 3D sin-cos positions)", "CogVideoXPipeline",
         "fp16", cogvideox_2b()},
        {"cogvideox-5b", "CogVideoX-5b (text-to-video, 3D rotary)", "CogVideoXPipeline", "bf16",
         cogvideox_5b()},
        {"cogvideox-5b-i2v", "CogVideoX-5b-I2V (image-to-video, 3D rotary + learned positions)",
         "CogVideoXImageToVideoPipeline", "bf16", cogvideox_5b_i2v()},
        {"cogvideox1.5-5b", "CogVideoX1.5-5B (text-to-video, temporal patches, sliced rotary)",
         "CogVideoXPipeline", "bf16", cogvideox15_5b()},
        {"cogvideox1.5-5b-i2v",
         "CogVideoX1.5-5B-I2V (image-to-video, temporal patches, sliced rotary, ofs)",
         "CogVideoXImageToVideoPipeline", "bf16", cogvideox15_5b_i2v()},
    };
    return all;
}

const Architecture& find_architecture(const std::string& name) {
    std::string names;
    for (const Architecture& architecture : architectures()) {
        if (architecture.name == name) {
            return architecture;
        }
        names += (names.empty() ? "" : ", ") + architecture.name;
    }
    throw core::Error(core::ErrorCode::Usage, "unknown architecture '" + name + "'.",
                      "Choose one of: " + names + ".");
}

const Architecture* recognise_architecture(const CogVideoXTransformer3DConfig& config) {
    for (const Architecture& architecture : architectures()) {
        if (same_architecture(architecture.transformer, config)) {
            return &architecture;
        }
    }
    return nullptr;
}

std::string positional_scheme(const CogVideoXTransformer3DConfig& config) {
    if (!config.use_rotary_positional_embeddings) {
        return "3D sin-cos positions";
    }
    std::string scheme =
        config.patch_size_t ? "3D rotary (sliced grid)" : "3D rotary (linspace grid)";
    if (config.use_learned_positional_embeddings) {
        scheme += " + learned positions";
    }
    return scheme;
}

} // namespace tuneframe::models::cogvideox
