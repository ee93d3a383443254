#include "engine/core/safetensors/checkpoint_inventory.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_checkpoint.h"

#include <algorithm>
#include <cstdio>

namespace tuneframe::core {
namespace {

ComponentInventory from_weights(const std::filesystem::path& path, std::string name) {
    SafetensorsCheckpoint checkpoint(path);
    ComponentInventory component;
    component.name = std::move(name);
    component.weights = checkpoint.source();
    component.shard_count = checkpoint.shards().size();
    for (const SafetensorsFile& shard : checkpoint.shards()) {
        component.tensors.insert(component.tensors.end(), shard.tensors().begin(),
                                 shard.tensors().end());
        component.metadata.insert(shard.metadata().begin(), shard.metadata().end());
    }
    std::sort(component.tensors.begin(), component.tensors.end(),
              [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
    for (const TensorInfo& tensor : component.tensors) {
        component.parameters += tensor.numel();
        component.bytes += tensor.nbytes();
        component.parameters_by_dtype[tensor.dtype] += tensor.numel();
    }
    return component;
}

std::string class_name_in(const std::filesystem::path& config) {
    if (!std::filesystem::exists(config)) {
        return {};
    }
    nlohmann::json root = read_json_file(config);
    auto name = root.find("_class_name");
    return name != root.end() && name->is_string() ? name->get<std::string>() : std::string();
}

bool has_weights(const std::filesystem::path& folder) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        const std::string name = entry.path().filename().string();
        if (name.size() > 12 && name.find(".safetensors") != std::string::npos) {
            return true;
        }
    }
    return false;
}

ComponentInventory from_component_folder(const std::filesystem::path& folder, std::string name) {
    ComponentInventory component;
    if (has_weights(folder)) {
        component = from_weights(folder, std::move(name));
    } else {
        component.name = std::move(name);
    }
    component.class_name = class_name_in(folder / "config.json");
    if (std::filesystem::exists(folder / "config.json")) {
        component.config_file = folder / "config.json";
        component.config = read_json_file(component.config_file);
    }
    return component;
}

std::vector<ComponentInventory> from_pipeline(const std::filesystem::path& root) {
    const std::filesystem::path index_path = root / "model_index.json";
    nlohmann::json index = read_json_file(index_path);
    if (!index.is_object()) {
        throw Error(ErrorCode::BadInput, "'" + index_path.string() + "' is not a JSON object.",
                    "Restore model_index.json from the model's download.");
    }
    std::vector<ComponentInventory> components;
    for (const auto& [name, entry] : index.items()) {
        // Components are [library, class] pairs; other keys are pipeline settings.
        if (name.empty() || name[0] == '_' || !entry.is_array() || entry.size() != 2 ||
            entry[0].is_null()) {
            continue;
        }
        const std::filesystem::path folder = root / name;
        if (!std::filesystem::is_directory(folder)) {
            throw Error(ErrorCode::BadInput,
                        "'" + index_path.string() + "' names the component '" + name +
                            "', but the folder '" + folder.string() + "' is missing.",
                        "Download the missing component folder next to model_index.json.");
        }
        ComponentInventory component = from_component_folder(folder, name);
        if (component.class_name.empty() && entry[1].is_string()) {
            component.class_name = entry[1].get<std::string>();
        }
        components.push_back(std::move(component));
    }
    return components;
}

// A pipeline folder whose model_index.json is missing: its component folders are still read,
// so a broken transformer/ says what is wrong instead of the folder passing as empty.
std::vector<ComponentInventory> from_components_without_index(const std::filesystem::path& root) {
    std::vector<std::filesystem::path> folders;
    for (const auto& entry : std::filesystem::directory_iterator(root)) {
        if (entry.is_directory() &&
            (std::filesystem::exists(entry.path() / "config.json") || has_weights(entry.path()))) {
            folders.push_back(entry.path());
        }
    }
    if (folders.empty()) {
        throw Error(ErrorCode::BadInput,
                    "'" + root.string() +
                        "' holds no model: no .safetensors weights, no config.json, no "
                        "model_index.json and no component folder.",
                    "Point at a diffusers model folder (the one with model_index.json), one of "
                    "its component folders, or a .safetensors file.");
    }
    std::sort(folders.begin(), folders.end());
    std::vector<ComponentInventory> components;
    for (const std::filesystem::path& folder : folders) {
        components.push_back(from_component_folder(folder, folder.filename().string()));
    }
    return components;
}

} // namespace

std::vector<ComponentInventory> inventory(const std::filesystem::path& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
        if (std::filesystem::exists(path / "model_index.json")) {
            return from_pipeline(path);
        }
        if (has_weights(path) || std::filesystem::exists(path / "config.json")) {
            return {from_component_folder(path, path.filename().string())};
        }
        return from_components_without_index(path);
    }
    if (!std::filesystem::exists(path, error)) {
        throw Error(ErrorCode::Io, "'" + path.string() + "' does not exist.",
                    "Check the path to the model folder or weight file.");
    }
    return {from_weights(path, path.filename().string())};
}

std::string format_count(std::int64_t count) {
    char text[32];
    if (count >= 1'000'000'000) {
        std::snprintf(text, sizeof text, "%.2f B", static_cast<double>(count) / 1e9);
    } else if (count >= 1'000'000) {
        std::snprintf(text, sizeof text, "%.1f M", static_cast<double>(count) / 1e6);
    } else if (count >= 1'000) {
        std::snprintf(text, sizeof text, "%.1f K", static_cast<double>(count) / 1e3);
    } else {
        std::snprintf(text, sizeof text, "%lld", static_cast<long long>(count));
    }
    return text;
}

std::string format_bytes(std::uint64_t bytes) {
    char text[32];
    const double value = static_cast<double>(bytes);
    if (bytes >= 1'000'000'000) {
        std::snprintf(text, sizeof text, "%.2f GB", value / 1e9);
    } else if (bytes >= 1'000'000) {
        std::snprintf(text, sizeof text, "%.1f MB", value / 1e6);
    } else if (bytes >= 1'000) {
        std::snprintf(text, sizeof text, "%.1f KB", value / 1e3);
    } else {
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    }
    return text;
}

nlohmann::json to_json(const ComponentInventory& component, bool with_tensors) {
    nlohmann::json dtypes = nlohmann::json::object();
    for (const auto& [dtype, count] : component.parameters_by_dtype) {
        dtypes[std::string(dtype_name(dtype))] = count;
    }
    nlohmann::json result = {{"name", component.name},
                             {"class_name", component.class_name},
                             {"weights", component.weights.string()},
                             {"shards", component.shard_count},
                             {"tensor_count", component.tensors.size()},
                             {"parameters", component.parameters},
                             {"bytes", component.bytes},
                             {"parameters_by_dtype", dtypes},
                             {"metadata", component.metadata}};
    if (with_tensors) {
        nlohmann::json tensors = nlohmann::json::array();
        for (const TensorInfo& tensor : component.tensors) {
            tensors.push_back({{"name", tensor.name},
                               {"dtype", std::string(dtype_name(tensor.dtype))},
                               {"shape", tensor.shape}});
        }
        result["tensors"] = std::move(tensors);
    }
    return result;
}

} // namespace tuneframe::core
