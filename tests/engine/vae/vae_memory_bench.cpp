// Peak host memory and time of a real-size AutoencoderKLCogVideoX decode (random weights built
// in memory), with and without tiling. Not a test: built on demand
// (`cmake --build BUILD --target engine_vae_memory_bench`); figures go to bench/RESULTS.md.
//
//   engine_vae_memory_bench [--latent F h w] [--tile PX_HEIGHT PX_WIDTH] [--dtype fp32|bf16]
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_init.h"

#include <torch/torch.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <string>

namespace {

using namespace tuneframe;

// VmHWM of this process in MiB: the peak resident set since the last reset.
double peak_rss_mib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stod(line.substr(6)) / 1024.0;
        }
    }
    return -1;
}

void reset_peak_rss() {
    std::ofstream("/proc/self/clear_refs") << "5";
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::int64_t> latent = {3, 16, 24};
    std::int64_t tile_height = 0;
    std::int64_t tile_width = 0;
    std::string dtype = "fp32";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--latent" && i + 3 < argc) {
            latent = {std::stoll(argv[i + 1]), std::stoll(argv[i + 2]), std::stoll(argv[i + 3])};
            i += 3;
        } else if (arg == "--tile" && i + 2 < argc) {
            tile_height = std::stoll(argv[i + 1]);
            tile_width = std::stoll(argv[i + 2]);
            i += 2;
        } else if (arg == "--dtype" && i + 1 < argc) {
            dtype = argv[++i];
        } else {
            std::cerr << "usage: engine_vae_memory_bench [--latent F h w] [--tile H W] "
                         "[--dtype fp32|bf16]\n";
            return 2;
        }
    }
    torch::NoGradGuard no_grad;
    const models::WeightsPlacement placement{models::parse_dtype(dtype), c10::kCPU};
    models::AutoencoderKLCogVideoX vae(models::AutoencoderKLCogVideoXConfig{}, placement);
    models::initialise_autoencoder_kl_cogvideox(*vae, 0);
    if (tile_height > 0) {
        vae->enable_tiling({tile_height, tile_width, 0, 0});
    }
    torch::manual_seed(0);
    const at::Tensor z = torch::randn({1, 16, latent[0], latent[1], latent[2]});
    const double model_mib = peak_rss_mib();
    reset_peak_rss();
    const double baseline_mib = peak_rss_mib();
    const auto start = std::chrono::steady_clock::now();
    const at::Tensor video = vae->decode(z);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double peak_mib = peak_rss_mib();
    std::cout << "decode " << c10::str(z.sizes()) << " -> " << c10::str(video.sizes()) << " "
              << dtype
              << (tile_height
                      ? " tiled " + std::to_string(tile_height) + "x" + std::to_string(tile_width)
                      : std::string(" untiled"))
              << ": " << seconds << " s, peak RSS " << peak_mib << " MiB (model and input "
              << baseline_mib << " MiB, so decoding added " << peak_mib - baseline_mib
              << " MiB; peak while building " << model_mib << " MiB), threads "
              << at::get_num_threads() << std::endl;
    return 0;
}
