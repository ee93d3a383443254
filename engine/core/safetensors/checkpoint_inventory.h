#pragma once

#include "engine/core/dtype.h"
#include "engine/core/safetensors/safetensors_file.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tuneframe::core {

// What one weight set holds: the rows `inspect` prints.
struct ComponentInventory {
    std::string name;              // the component folder (transformer, vae, ...) or the file name
    std::string class_name;        // from config.json's _class_name, when there is one
    std::filesystem::path weights; // the weight file or shard index; empty for weightless parts
    std::size_t shard_count = 0;
    std::vector<TensorInfo> tensors; // sorted by name
    std::map<std::string, std::string> metadata;
    std::int64_t parameters = 0;
    std::uint64_t bytes = 0;
    std::map<DType, std::int64_t> parameters_by_dtype;
    // The component's config.json (null without one): what architecture recognition reads.
    nlohmann::json config;
    std::filesystem::path config_file; // where it came from, for messages; empty without one
};

// Inventories a .safetensors file, a shard index, a component folder (config.json + weights) or
// a pipeline folder (model_index.json: every component in it, weightless ones included).
std::vector<ComponentInventory> inventory(const std::filesystem::path& path);

// "1.69 B", "12.3 M", "950 K", "12": the way parameter counts are quoted for models.
std::string format_count(std::int64_t count);
// "3.38 GB", "512 MB", "4.0 KB", "12 B" in decimal units, as model cards quote sizes.
std::string format_bytes(std::uint64_t bytes);

nlohmann::json to_json(const ComponentInventory& component, bool with_tensors);

} // namespace tuneframe::core
