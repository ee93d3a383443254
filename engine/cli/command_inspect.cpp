#include "engine/cli/commands.h"

#include "engine/core/error.h"
#include "engine/core/safetensors/checkpoint_inventory.h"
#include "engine/models/bench_model.h"
#include "engine/models/model_family.h"
#include "engine/models/transformer_memory_estimate.h"

#include <cstdio>
#include <iostream>
#include <optional>
#include <regex>

namespace tuneframe::cli {
namespace {

namespace fs = std::filesystem;

// What the memory estimate is for: --shape FRAMESxHEIGHTxWIDTH (pixels), --batch, --rank.
struct EstimateRequest {
    std::optional<models::VideoShape> shape; // unset: the architecture's own size
    std::int64_t batch = 1;
    std::int64_t rank = 64;
};

// What inspect knows of one transformer, through its family: the architecture's facts, its
// memory arithmetic, its own size, its parameters and the layers a LoRA adapts.
struct TransformerFacts {
    nlohmann::json summary;
    std::unique_ptr<models::TransformerMemory> memory;
    models::VideoShape shape;
    std::int64_t parameters = 0;
    std::vector<std::string> targets;
};

models::VideoShape parse_shape(Arguments& arguments, const std::string& text) {
    std::smatch match;
    if (!std::regex_match(text, match, std::regex(R"((\d+)x(\d+)x(\d+))"))) {
        arguments.fail("--shape must be FRAMESxHEIGHTxWIDTH in pixels, e.g. 49x480x720.");
    }
    models::VideoShape shape;
    shape.frames = std::stoll(match[1]);
    shape.height = std::stoll(match[2]);
    shape.width = std::stoll(match[3]);
    return shape;
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

// The model folder at `path` when it is a pipeline a family opens; inspect still lists the
// components of one that does not open (a part missing, a hand-made folder).
std::unique_ptr<models::ModelFolder> open_pipeline(const fs::path& path) {
    std::error_code error;
    if (!fs::is_directory(path, error) ||
        (!fs::exists(path / "model_index.json", error) &&
         !fs::exists(path / "transformer" / "config.json", error))) {
        return nullptr;
    }
    try {
        return models::open_model_folder(path);
    } catch (const core::Error&) {
        return nullptr;
    }
}

fs::path component_path(const core::ComponentInventory& component) {
    return component.config_file.empty() ? component.weights : component.config_file.parent_path();
}

// The component's transformer as its family describes it, with the pipeline's own facts (its
// variant, experts, conditioning tokens) when `pipeline` holds it.
std::optional<TransformerFacts> transformer_facts(const core::ComponentInventory& component,
                                                  const models::ModelFolder* pipeline) {
    if (component.weights.empty()) {
        return std::nullopt;
    }
    std::unique_ptr<models::BenchModel> described =
        models::describe_transformer_at(component_path(component));
    const bool in_pipeline =
        pipeline && (component.name == "transformer" || component.name == "transformer_2");
    if (!described && !in_pipeline) {
        return std::nullopt;
    }
    TransformerFacts facts;
    if (in_pipeline) {
        facts.summary = pipeline->summary();
        facts.memory = pipeline->transformer_memory();
        facts.targets = pipeline->default_lora_targets();
    } else {
        facts.summary = described->summary();
        facts.memory = described->memory(described->text_length());
        facts.targets = described->lora_targets();
    }
    if (described) {
        facts.shape = described->sample_shape();
        facts.parameters = described->parameters();
    } else {
        facts.shape = pipeline->sample_shape();
        facts.parameters = facts.summary["parameters_from_config"].get<std::int64_t>() /
                           std::max(facts.summary["experts"].get<std::int64_t>(), std::int64_t{1});
    }
    return facts;
}

nlohmann::json estimate_json(const models::TransformerMemoryEstimate& estimate) {
    return {{"weights", estimate.weights},
            {"trainable", estimate.trainable},
            {"activations", estimate.activations},
            {"total", estimate.total()}};
}

nlohmann::json architecture_json(const core::ComponentInventory& component,
                                 const TransformerFacts& facts, const EstimateRequest& request) {
    models::VideoShape shape = request.shape.value_or(facts.shape);
    shape.batch = request.batch;
    // fp8 files are computed in bf16, as the loaders load them.
    const auto bytes = std::max<std::int64_t>(
        static_cast<std::int64_t>(core::dtype_size(main_dtype(component))), 2);
    const models::TransformerMemory& memory = *facts.memory;
    const std::int64_t tokens = memory.tokens(shape);
    // An empty video leaves the text (and image) tokens alone.
    const std::int64_t context = memory.tokens({1, 0, 0, 1});
    // A rank cannot exceed the layer width (the tiny models are 32 wide).
    const std::int64_t rank = std::min(request.rank, facts.summary["width"].get<std::int64_t>());
    auto training = [&](std::int64_t recomputed) {
        return estimate_json(models::estimate_lora_training(memory, facts.parameters, bytes, shape,
                                                            facts.targets, rank, {recomputed}));
    };
    nlohmann::json architecture = facts.summary;
    architecture["dtype"] = std::string(core::dtype_name(main_dtype(component)));
    architecture["memory"] = {{"shape", {shape.frames, shape.height, shape.width}},
                              {"batch", shape.batch},
                              {"video_tokens", tokens - context},
                              {"tokens", tokens},
                              {"rank", rank},
                              {"inference_cfg", estimate_json(models::estimate_inference(
                                                    memory, facts.parameters, bytes, shape))},
                              {"lora_training_checkpointed", training(memory.num_blocks())},
                              {"lora_training", training(0)}};
    return architecture;
}

std::string joined(const nlohmann::json& items) {
    std::string text;
    for (const auto& item : items) {
        text += (text.empty() ? "" : ", ") + item.get<std::string>();
    }
    return text;
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
              << a["description"].get<std::string>()
              << "\n  variant:      " << a["variant"].get<std::string>() << " ("
              << a["family"].get<std::string>() << "; tasks " << joined(a["tasks"])
              << ")\n  layers:       " << a["layers"] << "\n  heads:        " << a["heads"] << " x "
              << a["head_dim"] << " (width " << a["width"]
              << ")\n  channels:     " << a["in_channels"] << " in, " << a["out_channels"]
              << " out (latents " << a["latent_channels"] << ")\n";
    if (a["experts"].get<std::int64_t>() > 1) {
        std::cout << "  experts:      " << a["experts"];
        if (a.contains("boundary_ratio") && a["boundary_ratio"].is_number()) {
            std::cout << " (transformer from t = " << a["boundary_ratio"].get<double>() * 1000
                      << " up, transformer_2 below)";
        }
        std::cout << "\n";
    }
    std::cout << "  positions:    " << a["positions"].get<std::string>()
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
    const std::unique_ptr<models::ModelFolder> pipeline = open_pipeline(path);
    std::int64_t total = 0;
    std::vector<nlohmann::json> architectures;
    for (const auto& component : components) {
        total += component.parameters;
        // A transformer config its family refuses is an error naming the file, as loading it
        // would be.
        const std::optional<TransformerFacts> facts = transformer_facts(component, pipeline.get());
        architectures.push_back(facts ? architecture_json(component, *facts, request) : nullptr);
    }
    if (json) {
        nlohmann::json result = {{"path", path}, {"parameters", total}};
        for (std::size_t i = 0; i < components.size(); ++i) {
            nlohmann::json entry = core::to_json(components[i], !summary);
            if (!architectures[i].is_null()) {
                entry["architecture"] = architectures[i];
            }
            result["components"].push_back(std::move(entry));
        }
        std::cout << result.dump(2) << std::endl;
        return 0;
    }
    for (std::size_t i = 0; i < components.size(); ++i) {
        print_component(components[i], !summary, architectures[i]);
    }
    if (components.size() > 1) {
        std::cout << "total parameters: " << core::format_count(total) << " (" << total << ")\n";
    }
    std::cout << std::flush;
    return 0;
}

} // namespace tuneframe::cli
