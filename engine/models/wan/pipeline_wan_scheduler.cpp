#include "engine/models/wan/pipeline_wan_scheduler.h"

#include "engine/core/error.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models::wan {
namespace {

namespace diffusion = tuneframe::diffusion;

constexpr const char* kUniPCClass = "UniPCMultistepScheduler";
constexpr const char* kEulerClass = "FlowMatchEulerDiscreteScheduler";

std::string joined_scheduler_names() {
    std::string text;
    for (const std::string& name : WanScheduler::names()) {
        text += (text.empty() ? "'" : ", '") + name + "'";
    }
    return text;
}

std::string scheduler_name_for(const WanPipelineFolder& folder, const std::string& choice) {
    if (!choice.empty()) {
        const auto& names = WanScheduler::names();
        if (std::find(names.begin(), names.end(), choice) == names.end()) {
            throw core::Error(core::ErrorCode::BadInput,
                              "'" + choice + "' is not a sampler of Wan's pipelines.",
                              "Choose one of " + joined_scheduler_names() +
                                  ", or leave the sampler out to use the model folder's.");
        }
        return choice;
    }
    if (folder.scheduler_class == kUniPCClass) {
        return "unipc";
    }
    if (folder.scheduler_class == kEulerClass) {
        return "euler";
    }
    throw core::Error(core::ErrorCode::BadInput,
                      "'" + folder.scheduler_config_file.string() + "' configures a " +
                          folder.scheduler_class + ", which Wan's pipelines do not run.",
                      std::string("Use the scheduler the Wan checkpoints ship (") + kUniPCClass +
                          " with flow sigmas) or " + kEulerClass +
                          ", or choose a sampler: " + joined_scheduler_names() + ".");
}

// The folder's scheduler settings in UniPC's flow form, whichever class the folder names.
diffusion::UniPCMultistepSchedulerConfig unipc_config(const WanPipelineFolder& folder) {
    if (folder.scheduler_class == kUniPCClass) {
        return diffusion::UniPCMultistepSchedulerConfig::from_file(folder.scheduler_config_file);
    }
    const auto euler =
        diffusion::FlowMatchEulerDiscreteSchedulerConfig::from_file(folder.scheduler_config_file);
    diffusion::UniPCMultistepSchedulerConfig config;
    config.num_train_timesteps = euler.num_train_timesteps;
    config.flow_shift = euler.shift;
    config.use_dynamic_shifting = euler.use_dynamic_shifting;
    config.time_shift_type = euler.time_shift_type;
    config.shift_terminal = euler.shift_terminal;
    return config;
}

diffusion::FlowMatchEulerDiscreteSchedulerConfig euler_config(const WanPipelineFolder& folder) {
    if (folder.scheduler_class == kEulerClass) {
        return diffusion::FlowMatchEulerDiscreteSchedulerConfig::from_file(
            folder.scheduler_config_file);
    }
    const auto unipc =
        diffusion::UniPCMultistepSchedulerConfig::from_file(folder.scheduler_config_file);
    diffusion::FlowMatchEulerDiscreteSchedulerConfig config;
    config.num_train_timesteps = unipc.num_train_timesteps;
    config.shift = unipc.flow_shift;
    config.use_dynamic_shifting = unipc.use_dynamic_shifting;
    config.time_shift_type = unipc.time_shift_type;
    config.shift_terminal = unipc.shift_terminal;
    return config;
}

} // namespace

const std::vector<std::string>& WanScheduler::names() {
    static const std::vector<std::string> names = {"unipc", "euler"};
    return names;
}

WanScheduler::WanScheduler(const WanPipelineFolder& folder, const std::string& choice,
                           std::optional<double> flow_shift)
    : name_(scheduler_name_for(folder, choice))
    , scheduler_(make(folder, name_, flow_shift)) {}

WanScheduler::Scheduler WanScheduler::make(const WanPipelineFolder& folder, const std::string& name,
                                           std::optional<double> flow_shift) {
    if (name == "unipc") {
        auto config = unipc_config(folder);
        config.flow_shift = flow_shift.value_or(config.flow_shift);
        return diffusion::UniPCMultistepScheduler(config);
    }
    auto config = euler_config(folder);
    config.shift = flow_shift.value_or(config.shift);
    return diffusion::FlowMatchEulerDiscreteScheduler(config);
}

int WanScheduler::num_train_timesteps() const {
    return std::visit([](const auto& s) { return s.config().num_train_timesteps; }, scheduler_);
}

void WanScheduler::set_timesteps(int steps, bool from_first_step) {
    std::visit(
        [&](auto& s) {
            s.set_timesteps(steps);
            if (from_first_step) {
                s.set_begin_index(0);
            }
        },
        scheduler_);
}

const at::Tensor& WanScheduler::timesteps() const {
    return std::visit([](const auto& s) -> const at::Tensor& { return s.timesteps(); }, scheduler_);
}

const at::Tensor& WanScheduler::sigmas() const {
    return std::visit([](const auto& s) -> const at::Tensor& { return s.sigmas(); }, scheduler_);
}

at::Tensor WanScheduler::timestep(std::size_t index) const {
    return timesteps()[static_cast<std::int64_t>(index)];
}

at::Tensor WanScheduler::step(const at::Tensor& prediction, std::size_t index,
                              const at::Tensor& latents) {
    const at::Tensor t = timestep(index);
    if (auto* unipc = std::get_if<diffusion::UniPCMultistepScheduler>(&scheduler_)) {
        return unipc->step(prediction, t.item<std::int64_t>(), latents).to(torch::kFloat);
    }
    auto& euler = std::get<diffusion::FlowMatchEulerDiscreteScheduler>(scheduler_);
    return euler.step(prediction, t.item<double>(), latents).to(torch::kFloat);
}

} // namespace tuneframe::models::wan
