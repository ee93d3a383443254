#include "tests/engine/wan_pipeline/wan_pipeline_case.h"

#include "engine/core/json_file.h"
#include "tests/engine/transformer/golden_case.h"

#include <torch/torch.h>

namespace tuneframe::test {

WanPipelineCase WanPipelineCase::open(const std::filesystem::path& golden,
                                      const std::string& name) {
    WanPipelineCase c;
    c.dir = golden / name;
    c.inputs = read_golden(golden, name + "/inputs.safetensors");
    c.outputs = read_golden(golden, name + "/outputs.safetensors");
    c.config = core::read_json_file(c.dir / "config.json");
    c.folder = models::wan::WanPipelineFolder::open(c.dir / "pipeline");
    return c;
}

models::SampleRequest WanPipelineCase::request(const std::string& prefix) const {
    const nlohmann::json& call = prefix.empty() ? config.at("call") : config.at("i2v").at("call");
    models::SampleRequest r;
    r.prompt = call.at("prompt").get<std::string>();
    r.negative_prompt = call.value("negative_prompt", std::string());
    r.frames = call.at("num_frames").get<std::int64_t>();
    r.height = call.at("height").get<std::int64_t>();
    r.width = call.at("width").get<std::int64_t>();
    r.steps = call.at("num_inference_steps").get<int>();
    r.guidance = call.at("guidance_scale").get<double>();
    if (call.contains("guidance_scale_2")) {
        r.guidance_2 = call.at("guidance_scale_2").get<double>();
    }
    r.max_sequence_length = call.at("max_sequence_length").get<int>();
    r.seed = call.at("generator").at("manual_seed").get<std::uint64_t>();
    r.initial_latents = inputs.at(prefix + "latents");
    if (inputs.count(prefix + "image")) {
        r.image = image(prefix + "image");
    }
    r.record_tensors = true;
    return r;
}

at::Tensor WanPipelineCase::image(const std::string& name) const {
    return inputs.at(name).permute({2, 0, 1}).unsqueeze(0).to(torch::kFloat) / 255.0;
}

} // namespace tuneframe::test
