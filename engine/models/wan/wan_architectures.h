#pragma once

#include "engine/models/model_family.h"
#include "engine/models/wan/transformer_wan_config.h"
#include "engine/models/wan/vae/autoencoder_kl_wan.h"

#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models::wan {

// A Wan pipeline init-model writes: the released variants at real size (random weights, for
// benchmarks and memory checks) and tiny ones of the same architectures for tests and the demo.
// Variants are data: channels, the image branch, per-token timesteps and the expert switch.
struct WanArchitecture {
    models::Architecture info;
    // One transformer, or Wan 2.2 A14B's two experts (high noise, then low noise).
    std::vector<WanTransformer3DConfig> experts;
    AutoencoderKLWanConfig vae;
    std::optional<double> boundary_ratio;
    bool expand_timesteps = false; // Wan 2.2 TI2V
    double flow_shift = 3.0;       // the scheduler's: 3.0 at 480p, 5.0 at 720p
    // Tiny components' sizes (the real ones are UMT5-XXL and CLIP ViT-H/14).
    std::int64_t text_width = 4096;
    std::int64_t image_width = 1280; // the CLIP hidden size, Wan 2.1 I2V only
    std::int64_t image_size = 224;
};

// wan2.1-tiny, wan2.1-tiny-i2v, wan2.2-tiny-ti2v, wan2.2-tiny-a14b, wan2.1-t2v-1.3b,
// wan2.1-t2v-14b, wan2.1-i2v-14b, wan2.2-ti2v-5b, wan2.2-t2v-a14b, wan2.2-i2v-a14b.
std::vector<WanArchitecture> wan_architectures();
// Throws a Usage error listing the known names.
WanArchitecture find_wan_architecture(const std::string& name);

// The released VAEs: Wan 2.1's (16 channels, 8x) and Wan 2.2's (48 channels, 16x).
AutoencoderKLWanConfig wan21_vae_config();
AutoencoderKLWanConfig wan22_vae_config();

} // namespace tuneframe::models::wan
