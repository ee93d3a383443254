#pragma once

#include "engine/models/video_sampler.h"
#include "engine/models/wan/wan_pipeline_folder.h"

#include <ATen/Tensor.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>

namespace tuneframe::test {

// One of ../shared/golden-wan's pipeline_* cases: its pipeline folder, tensors and the call
// config.json records, as a SampleRequest.
struct WanPipelineCase {
    std::filesystem::path dir;
    std::map<std::string, at::Tensor> inputs;
    std::map<std::string, at::Tensor> outputs;
    nlohmann::json config;
    models::wan::WanPipelineFolder folder;

    static WanPipelineCase open(const std::filesystem::path& golden, const std::string& name);

    // The recorded call (prefix "i2v.": the TI2V case's image-to-video call) with its image and
    // initial latents, recording tensors.
    models::SampleRequest request(const std::string& prefix = "") const;
    // inputs' uint8 [H, W, 3] picture under `name` as [1, 3, H, W] in [0, 1].
    at::Tensor image(const std::string& name) const;
};

} // namespace tuneframe::test
