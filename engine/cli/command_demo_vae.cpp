// `demo-vae --model DIR --clips DIR`: gives a tiny pipeline the embedded demo's VAE, which codes
// each 8x8 block's mean colour (engine/models/cogvideox/vae/block_average_vae.h), with its latent
// scale measured on the clips of a folder, so that what its transformer learns from those clips
// decodes into pictures of them.
#include "common/bucket_assignment.h"
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/checkpoint_inventory.h"
#include "engine/core/tensor_io.h"
#include "engine/data/clip_preprocessor.h"
#include "engine/models/cogvideox/vae/block_average_vae.h"
#include "engine/models/module_weights.h"

#include <algorithm>
#include <filesystem>

namespace tuneframe::cli {
namespace {

namespace fs = std::filesystem;

// The block-average codec is for the tiny VAE; a released one keeps its trained weights.
constexpr std::int64_t kMaxParameters = 20'000'000;

std::vector<fs::path> clip_files(const fs::path& folder) {
    std::vector<fs::path> files;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        const std::string extension = entry.path().extension().string();
        if (entry.is_regular_file() &&
            (extension == ".mp4" || extension == ".mkv" || extension == ".mov" ||
             extension == ".webm" || extension == ".avi")) {
            files.push_back(entry.path());
        }
    }
    if (error) {
        throw core::Error(core::ErrorCode::BadInput,
                          "cannot read the clip folder '" + folder.string() +
                              "': " + error.message() + ".",
                          "Give a folder of video files with --clips.");
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The frames prepare would train from the clip in a frames x height x width bucket (the rule
// prepare and the studio share), stretched to it: [1, 3, frames, height, width] in [-1, 1].
// Undefined when the clip is too short for the bucket.
at::Tensor decode_clip(const fs::path& file, std::int64_t frames, int width, int height) {
    try {
        data::ClipPreprocessor clip(file);
        common::ClipGeometry geometry;
        geometry.frame_count = clip.frame_count();
        geometry.width = clip.display_width();
        geometry.height = clip.display_height();
        common::BucketConfig buckets;
        buckets.frame_buckets = {static_cast<int>(frames)};
        buckets.resolutions = {{height, width}};
        const common::BucketAssignment bucket = common::assign_bucket(geometry, buckets);
        if (!bucket.assigned()) {
            return {};
        }
        const data::FramePlacement placement = data::place_frames(
            data::ResizeMode::Stretch, geometry.width, geometry.height, width, height, 0, 0);
        return clip.decode(bucket.frame_indices, placement);
    } catch (const data::ClipError& error) {
        throw core::Error(core::ErrorCode::BadInput, file.string() + ": " + error.what(),
                          "Remove the file from the clip folder, or replace it.");
    }
}

} // namespace

int run_demo_vae(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const fs::path model = arguments.required_option("--model");
    const fs::path clips_folder = arguments.required_option("--clips");
    const auto frames = static_cast<std::int64_t>(arguments.number_option("--frames", 9));
    const auto height = static_cast<int>(arguments.number_option("--height", 64));
    const auto width = static_cast<int>(arguments.number_option("--width", 96));
    arguments.finish();
    if (frames < 1 || (frames - 1) % 4 != 0 || height < 8 || width < 8 || height % 8 != 0 ||
        width % 8 != 0) {
        arguments.fail("--frames must be 4k + 1, --height and --width multiples of 8.");
    }

    const fs::path vae_folder = model / "vae";
    context.events.phase("load");
    models::AutoencoderKLCogVideoX vae = models::load_autoencoder_kl_cogvideox(
        vae_folder, models::WeightsPlacement{c10::kFloat, c10::kCPU});
    std::int64_t parameters = 0;
    for (const at::Tensor& parameter : vae->parameters()) {
        parameters += parameter.numel();
    }
    if (parameters > kMaxParameters) {
        throw core::Error(core::ErrorCode::BadInput,
                          vae_folder.string() + " holds a VAE of " +
                              core::format_count(parameters) +
                              " parameters; demo-vae is for the tiny demo VAEs.",
                          "Use the released VAE of a real model as it is.");
    }
    const std::vector<fs::path> files = clip_files(clips_folder);
    std::vector<at::Tensor> clips;
    for (std::size_t i = 0; i < files.size(); ++i) {
        at::Tensor clip = decode_clip(files[i], frames, width, height);
        if (clip.defined()) {
            clips.push_back(std::move(clip));
        } else {
            context.events.log("warning", files[i].string() + " has fewer than " +
                                              std::to_string(frames) + " frames; it is left out.");
        }
        context.events.progress(static_cast<std::int64_t>(i + 1),
                                static_cast<std::int64_t>(files.size()), "clips");
    }
    if (clips.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + clips_folder.string() + "' holds no clip of at least " +
                              std::to_string(frames) + " frames.",
                          "Give a folder of video files with --clips.");
    }

    models::make_block_average_autoencoder(*vae);
    const double scaling_factor = models::block_average_latent_scale(*vae, clips);
    const double error = models::autoencoder_reconstruction_error(*vae, clips);

    // The weights first, then the config that names their scale, then the record the studio
    // checks: a model interrupted between them is done again, never half done and called done.
    context.events.phase("save");
    core::write_tensors(vae_folder / "diffusion_pytorch_model.safetensors",
                        models::module_tensors(*vae), {{"format", "pt"}});
    models::AutoencoderKLCogVideoXConfig config = vae->config();
    config.scaling_factor = scaling_factor;
    core::write_json_file(vae_folder / "config.json", config.to_json());
    const nlohmann::json summary = {{"codec", "block_average"},
                                    {"clips", clips.size()},
                                    {"frames", frames},
                                    {"height", height},
                                    {"width", width},
                                    {"reconstruction_error", error},
                                    {"scaling_factor", scaling_factor}};
    core::write_json_file(vae_folder / "demo_vae.json", summary);
    context.events.done("ok", summary);
    return 0;
}

} // namespace tuneframe::cli
