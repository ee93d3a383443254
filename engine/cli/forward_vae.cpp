// `forward vae-encode` and `forward vae-decode`: a family's VAE (AutoencoderKLCogVideoX,
// AutoencoderKLWan) on tensors from a file.
#include "engine/cli/commands.h"
#include "engine/cli/forward_components.h"
#include "engine/core/error.h"
#include "engine/core/tensor_io.h"
#include "engine/models/model_family.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cmath>
#include <iostream>

namespace tuneframe::cli {
namespace {

// What both directions read from the command line.
struct VaeRun {
    std::string model;
    std::string inputs;
    std::string out;
    std::string prefix;
    models::WeightsPlacement placement;
    models::VaeOptions vae;
};

std::int64_t positive_integer(Arguments& arguments, std::string_view name) {
    const double value = arguments.number_option(name, 0);
    if (value < 0 || value != std::floor(value)) {
        arguments.fail(std::string(name) + " must be a positive whole number of pixels.");
    }
    return static_cast<std::int64_t>(value);
}

VaeRun read_vae_options(Arguments& arguments) {
    VaeRun run;
    run.model = arguments.required_option("--model");
    run.inputs = arguments.required_option("--inputs");
    run.out = arguments.required_option("--out");
    run.prefix = arguments.option("--input-prefix").value_or("");
    run.placement.dtype = models::parse_dtype(arguments.option("--dtype").value_or("fp32"));
    run.placement.device = models::parse_device(
        arguments.option("--device").value_or(torch::cuda::is_available() ? "cuda" : "cpu"));
    models::VaeOptions& vae = run.vae;
    vae.tile_height = positive_integer(arguments, "--tile-sample-min-height");
    vae.tile_width = positive_integer(arguments, "--tile-sample-min-width");
    vae.tile_overlap_height = arguments.number_option("--tile-overlap-factor-height", 0);
    vae.tile_overlap_width = arguments.number_option("--tile-overlap-factor-width", 0);
    const bool tile_options =
        vae.tile_height || vae.tile_width || vae.tile_overlap_height || vae.tile_overlap_width;
    vae.tiling = arguments.flag("--tiling");
    if (!vae.tiling && tile_options) {
        arguments.fail("the --tile-* options need --tiling.");
    }
    vae.slicing = arguments.flag("--slicing");
    return run;
}

std::unique_ptr<models::VideoAutoencoder> load_vae(const VaeRun& run) {
    models::check_placement(run.placement);
    return models::load_vae_at(run.model, run.placement, run.vae);
}

at::Tensor input_tensor(const std::map<std::string, at::Tensor>& tensors, const VaeRun& run,
                        const std::vector<std::string>& names) {
    for (const std::string& name : names) {
        if (auto it = tensors.find(run.prefix + name); it != tensors.end()) {
            if (name != names.front()) {
                std::cerr << "note: no '" << run.prefix << names.front() << "'; using '"
                          << run.prefix << name << "'\n";
            }
            return it->second;
        }
    }
    std::string held;
    for (const auto& [key, tensor] : tensors) {
        held += (held.empty() ? "" : ", ") + key;
    }
    throw core::Error(core::ErrorCode::BadInput,
                      "'" + run.inputs + "' has no tensor '" + run.prefix + names.front() +
                          "'; it holds: " + held + ".",
                      "Name the tensors as ../shared/golden does, or pass --input-prefix.");
}

void report_outputs(const core::NamedTensors& outputs, const std::string& out) {
    for (const auto& [name, tensor] : outputs) {
        std::cout << name << " " << c10::toString(tensor.scalar_type()) << " "
                  << c10::str(tensor.sizes()) << "\n";
    }
    std::cout << "wrote " << out << std::endl;
}

} // namespace

int run_forward_vae_encode(CommandContext& context) {
    Arguments& arguments = context.arguments;
    VaeRun run = read_vae_options(arguments);
    const std::optional<std::string> seed = arguments.option("--seed");
    arguments.finish();
    std::uint64_t seed_value = 0;
    if (seed) {
        try {
            seed_value = std::stoull(*seed);
        } catch (const std::exception&) {
            arguments.fail("--seed must be a whole number, not '" + *seed + "'.");
        }
    }
    const auto tensors = core::read_tensors(run.inputs);
    const at::Tensor video = input_tensor(tensors, run, {"video"});
    check_input_shape(run.inputs, run.prefix + "video", video,
                      {"batch", "channels", "frames", "height", "width"});
    auto vae = load_vae(run);
    const auto posterior = vae->encode(video);
    core::NamedTensors outputs = {{"latent_mean", posterior.mean},
                                  {"latent_logvar", posterior.logvar}};
    if (seed) {
        // A CPU generator, as diffusers' pipelines seed theirs, so the draw matches.
        outputs.emplace_back(
            "latent_sample",
            posterior.sample(at::make_generator<at::CPUGeneratorImpl>(seed_value)));
    }
    core::write_tensors(run.out, outputs);
    report_outputs(outputs, run.out);
    return 0;
}

int run_forward_vae_decode(CommandContext& context) {
    Arguments& arguments = context.arguments;
    VaeRun run = read_vae_options(arguments);
    arguments.finish();
    const auto tensors = core::read_tensors(run.inputs);
    // vae-encode's output decodes as it is: its latent_mean stands in for a missing latent.
    const at::Tensor latent = input_tensor(tensors, run, {"latent", "latent_mean"});
    check_input_shape(run.inputs, "latent", latent,
                      {"batch", "channels", "frames", "height", "width"});
    auto vae = load_vae(run);
    const core::NamedTensors outputs = {{"decoded", vae->decode(latent)}};
    core::write_tensors(run.out, outputs);
    report_outputs(outputs, run.out);
    return 0;
}

} // namespace tuneframe::cli
