#include "engine/cli/commands.h"

#include "engine/core/error.h"
#include "engine/core/safetensors/checkpoint_inventory.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/memory_estimate.h"

#include <cstdio>
#include <iostream>
#include <optional>
#include <regex>

namespace tuneframe::cli {
namespace {

namespace cogvideox = models::cogvideox;

// What the memory estimate is for: --shape FRAMESxHEIGHTxWIDTH (pixels), --batch, --rank.
struct EstimateRequest {
    std::optional<cogvideox::VideoShape> shape; // unset: the architecture's default resolution
    std::int64_t batch = 1;
    std::int64_t rank = 64;
};

cogvideox::VideoShape parse_shape(Arguments& arguments, const std::string& text) {
    std::smatch match;
    if (!std::regex_match(text, match, std::regex(R"((\d+)x(\d+)x(\d+))"))) {
        arguments.fail("--shape must be FRAMESxHEIGHTxWIDTH in pixels, e.g. 49x480x720.");
    }
    cogvideox::VideoShape shape;
    shape.frames = std::stoll(match[1]);
    shape.height = std::stoll(match[2]);
    shape.width = std::stoll(match[3]);
    return shape;
}

std::optional<cogvideox::CogVideoXTransformer3DConfig>
transformer_config(const core::ComponentInventory& component) {
    if (component.class_name != "CogVideoXTransformer3DModel" || !component.config.is_object()) {
        return std::nullopt;
    }
    return cogvideox::CogVideoXTransformer3DConfig::from_json(component.config,
                                                              component.config_file.string());
}

core::DType main_dtype(const core::ComponentInventory& component) {
    core::DType dtype = core::DType::F32;
    std::int64_t most = 0;
    for (const auto& [candidate, count] : component.parameters_by_dtype) {
        if (count > most) {
            dtype = candidate;
            most = count;
        }
    }
    return dtype;
}

// The default resolution of each generation: 49 x 480 x 720, and 81 x 768 x 1360 for 1.5.
cogvideox::VideoShape default_shape(const cogvideox::CogVideoXTransformer3DConfig& config) {
    cogvideox::VideoShape shape;
    if (config.patch_size_t) {
        shape = {81, 768, 1360, 1};
    }
    return shape;
}

nlohmann::json architecture_json(const core::ComponentInventory& component,
                                 const cogvideox::CogVideoXTransformer3DConfig& config,
                                 const EstimateRequest& request) {
    const cogvideox::Architecture* known = cogvideox::recognise_architecture(config);
    cogvideox::VideoShape shape = request.shape.value_or(default_shape(config));
    shape.batch = request.batch;
    const auto bytes = static_cast<std::int64_t>(core::dtype_size(main_dtype(component)));
    const auto tokens = cogvideox::token_count(config, shape);
    // A rank cannot exceed the layer width (the tiny models are 32 wide).
    const std::int64_t rank = std::min(request.rank, config.inner_dim());
    auto estimate_json = [](const cogvideox::MemoryEstimate& estimate) {
        return nlohmann::json{{"weights", estimate.weights},
                              {"trainable", estimate.trainable},
                              {"activations", estimate.activations},
                              {"total", estimate.total()}};
    };
    return {
        {"name", known ? known->name : "custom"},
        {"description", known ? known->description : "CogVideoX transformer of a custom shape"},
        {"layers", config.num_layers},
        {"heads", config.num_attention_heads},
        {"head_dim", config.attention_head_dim},
        {"width", config.inner_dim()},
        {"positions", cogvideox::positional_scheme(config)},
        {"parameters_from_config", config.parameter_count()},
        {"dtype", std::string(core::dtype_name(main_dtype(component)))},
        {"memory",
         {{"shape", {shape.frames, shape.height, shape.width}},
          {"batch", shape.batch},
          {"video_tokens", tokens.video},
          {"tokens", tokens.total},
          {"rank", rank},
          {"inference_cfg",
           estimate_json(cogvideox::estimate_inference_memory(config, bytes, shape))},
          {"lora_training_checkpointed", estimate_json(cogvideox::estimate_lora_training_memory(
                                             config, bytes, shape, rank, {config.num_layers}))},
          {"lora_training", estimate_json(cogvideox::estimate_lora_training_memory(
                                config, bytes, shape, rank, {/*blocks=*/0}))}}},
    };
}

void print_architecture(const nlohmann::json& a) {
    auto gb = [](const nlohmann::json& estimate, const char* part) {
        return core::format_bytes(estimate[part].get<std::uint64_t>());
    };
    auto line = [&](const char* what, const nlohmann::json& estimate) {
        std::cout << "    " << what << gb(estimate, "total") << " (weights "
                  << gb(estimate, "weights");
        if (estimate["trainable"].get<std::uint64_t>() > 0) {
            std::cout << ", adapters+optimizer " << gb(estimate, "trainable");
        }
        std::cout << ", activations " << gb(estimate, "activations") << ")\n";
    };
    const nlohmann::json& memory = a["memory"];
    std::cout << "  architecture: " << a["name"].get<std::string>() << " - "
              << a["description"].get<std::string>() << "\n  layers:       " << a["layers"]
              << "\n  heads:        " << a["heads"] << " x " << a["head_dim"] << " (width "
              << a["width"] << ")\n  positions:    " << a["positions"].get<std::string>()
              << "\n  dtype:        " << a["dtype"].get<std::string>() << "\n  memory estimate at "
              << memory["shape"][0] << "x" << memory["shape"][1] << "x" << memory["shape"][2]
              << ", batch " << memory["batch"] << " (" << memory["tokens"]
              << " tokens; transformer only, excluding the CUDA context):\n";
    const std::string rank = std::to_string(memory["rank"].get<std::int64_t>());
    const std::string checkpointed = "LoRA training r" + rank + ", checkpointing:";
    const std::string plain = "LoRA training r" + rank + ", no checkpointing:";
    const std::size_t width = plain.size() + 1;
    auto padded = [&](std::string text) {
        return text.append(width - text.size(), ' ');
    };
    line(padded("inference, CFG:").c_str(), memory["inference_cfg"]);
    line(padded(checkpointed).c_str(), memory["lora_training_checkpointed"]);
    line(padded(plain).c_str(), memory["lora_training"]);
}

void print_component(const core::ComponentInventory& component, bool with_tensors,
                     const nlohmann::json& architecture) {
    std::cout << component.name;
    if (!component.class_name.empty()) {
        std::cout << " (" << component.class_name << ")";
    }
    std::cout << "\n";
    if (component.weights.empty()) {
        std::cout << "  no weights\n\n";
        return;
    }
    std::cout << "  weights:    " << component.weights.string();
    if (component.shard_count > 1) {
        std::cout << " (" << component.shard_count << " shards)";
    }
    std::cout << "\n  tensors:    " << component.tensors.size()
              << "\n  parameters: " << core::format_count(component.parameters) << " ("
              << component.parameters << ")\n  size:       " << core::format_bytes(component.bytes)
              << "\n  dtypes:    ";
    for (const auto& [dtype, count] : component.parameters_by_dtype) {
        std::cout << " " << core::dtype_name(dtype) << " " << core::format_count(count);
    }
    std::cout << "\n";
    for (const auto& [key, value] : component.metadata) {
        std::cout << "  metadata:   " << key << " = " << value << "\n";
    }
    if (!architecture.is_null()) {
        print_architecture(architecture);
    }
    if (with_tensors) {
        std::size_t width = 4;
        for (const auto& tensor : component.tensors) {
            width = std::max(width, tensor.name.size());
        }
        for (const auto& tensor : component.tensors) {
            std::printf("    %-*s  %-4s  %s\n", static_cast<int>(width), tensor.name.c_str(),
                        std::string(core::dtype_name(tensor.dtype)).c_str(),
                        core::shape_string(tensor.shape).c_str());
        }
        std::fflush(stdout);
    }
    std::cout << "\n";
}

} // namespace

int run_inspect(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const bool json = arguments.flag("--json");
    const bool summary = arguments.flag("--summary");
    EstimateRequest request;
    if (auto shape = arguments.option("--shape")) {
        request.shape = parse_shape(arguments, *shape);
    }
    request.batch = static_cast<std::int64_t>(arguments.number_option("--batch", 1));
    request.rank = static_cast<std::int64_t>(arguments.number_option("--rank", 64));
    const std::string path = arguments.positional("PATH (a .safetensors file or a model folder)");
    arguments.finish();

    const auto components = core::inventory(path);
    std::int64_t total = 0;
    for (const auto& component : components) {
        total += component.parameters;
    }
    if (json) {
        nlohmann::json result = {{"path", path}, {"parameters", total}};
        for (const auto& component : components) {
            nlohmann::json entry = core::to_json(component, !summary);
            if (auto config = transformer_config(component)) {
                entry["architecture"] = architecture_json(component, *config, request);
            }
            result["components"].push_back(std::move(entry));
        }
        std::cout << result.dump(2) << std::endl;
        return 0;
    }
    for (const auto& component : components) {
        auto config = transformer_config(component);
        print_component(component, !summary,
                        config ? architecture_json(component, *config, request) : nullptr);
    }
    if (components.size() > 1) {
        std::cout << "total parameters: " << core::format_count(total) << " (" << total << ")\n";
    }
    std::cout << std::flush;
    return 0;
}

} // namespace tuneframe::cli
