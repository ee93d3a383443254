#include "engine/core/safetensors/safetensors_checkpoint.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/text_affixes.h"

#include <algorithm>

namespace tuneframe::core {
namespace {

std::vector<std::filesystem::path> files_ending_with(const std::filesystem::path& folder,
                                                     std::string_view suffix) {
    std::vector<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (entry.is_regular_file() && core::ends_with(entry.path().filename().string(), suffix)) {
            found.push_back(entry.path());
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

std::string list_names(const std::vector<std::filesystem::path>& files) {
    std::string text;
    for (const auto& file : files) {
        text += (text.empty() ? "" : ", ") + file.filename().string();
    }
    return text;
}

} // namespace

std::filesystem::path find_weights(const std::filesystem::path& path) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
        throw Error(ErrorCode::Io, "'" + path.string() + "' does not exist.",
                    "Check the path to the model folder or weight file.");
    }
    if (!std::filesystem::is_directory(path, error)) {
        return path;
    }
    auto indexes = files_ending_with(path, ".safetensors.index.json");
    if (indexes.size() == 1) {
        return indexes.front();
    }
    if (indexes.size() > 1) {
        throw Error(ErrorCode::BadInput,
                    "'" + path.string() + "' holds several shard indexes: " + list_names(indexes) +
                        ".",
                    "Name the index file to use instead of the folder.");
    }
    auto files = files_ending_with(path, ".safetensors");
    if (files.size() == 1) {
        return files.front();
    }
    if (files.empty()) {
        throw Error(ErrorCode::BadInput, "'" + path.string() + "' holds no .safetensors weights.",
                    "Point at a diffusers component folder (such as transformer/) or a "
                    ".safetensors file; .bin checkpoints must be converted to safetensors first.");
    }
    throw Error(ErrorCode::BadInput,
                "'" + path.string() + "' holds several .safetensors files (" + list_names(files) +
                    ") and no index that ties them together.",
                "Name the file to use instead of the folder.");
}

SafetensorsCheckpoint::SafetensorsCheckpoint(const std::filesystem::path& path) {
    source_ = find_weights(path);
    if (core::ends_with(source_.filename().string(), ".index.json")) {
        open_index(source_);
    } else {
        open_single(source_);
    }
}

void SafetensorsCheckpoint::open_single(const std::filesystem::path& file) {
    shards_.emplace_back(file);
    add_shard_tensors(0, nullptr);
}

void SafetensorsCheckpoint::open_index(const std::filesystem::path& index) {
    sharded_ = true;
    nlohmann::json root = read_json_file(index);
    auto weight_map = root.find("weight_map");
    if (weight_map == root.end() || !weight_map->is_object()) {
        throw Error(ErrorCode::BadInput, "'" + index.string() + "' has no \"weight_map\" object.",
                    "A shard index maps each tensor name to its shard file; restore the file "
                    "from the model's download.");
    }
    std::map<std::string, std::vector<std::string>> by_shard;
    for (const auto& [tensor, shard] : weight_map->items()) {
        const std::string* name = shard.get_ptr<const std::string*>();
        if (!name || name->empty() || name->find('/') != std::string::npos ||
            name->find('\\') != std::string::npos || *name == "..") {
            throw Error(ErrorCode::BadInput,
                        "'" + index.string() + "' assigns tensor '" + tensor +
                            "' to a shard that is not a file name in the same folder.",
                        "Restore the index from the model's download.");
        }
        by_shard[*name].push_back(tensor);
    }
    const std::filesystem::path folder = index.parent_path();
    // locations_ points into the shards' tensor lists, so the shards must never move.
    shards_.reserve(by_shard.size());
    for (auto& [shard, tensors] : by_shard) {
        std::filesystem::path shard_path = folder / shard;
        // The overload with an error code: the throwing one let a name too long for the file
        // system escape as filesystem_error.
        std::error_code error;
        const bool present = std::filesystem::exists(shard_path, error);
        if (error) {
            throw Error(ErrorCode::Io,
                        "Cannot look for the weight shard '" + shard_path.string() +
                            "' listed in '" + index.string() + "': " + error.message() + ".",
                        "Check the shard names in the index and that the folder can be read.");
        }
        if (!present) {
            throw Error(ErrorCode::Io,
                        "The weight shard '" + shard_path.string() + "' listed in '" +
                            index.string() + "' is missing.",
                        "Download the missing shard into the same folder as the index.");
        }
        shards_.emplace_back(shard_path);
        std::sort(tensors.begin(), tensors.end());
        add_shard_tensors(shards_.size() - 1, &tensors);
    }
}

void SafetensorsCheckpoint::add_shard_tensors(std::size_t shard,
                                              const std::vector<std::string>* expected) {
    const SafetensorsFile& file = shards_[shard];
    for (const TensorInfo& tensor : file.tensors()) {
        if (expected && !std::binary_search(expected->begin(), expected->end(), tensor.name)) {
            throw Error(ErrorCode::BadInput,
                        "'" + file.path().string() + "' holds tensor '" + tensor.name +
                            "', which '" + source_.string() +
                            "' assigns to another shard or not "
                            "at all.",
                        "The shards and the index come from different downloads; fetch them "
                        "again together.");
        }
        auto [it, inserted] = locations_.emplace(tensor.name, std::make_pair(shard, &tensor));
        if (!inserted) {
            throw Error(ErrorCode::BadInput,
                        "Tensor '" + tensor.name + "' appears in both '" +
                            shards_[it->second.first].path().string() + "' and '" +
                            file.path().string() + "'.",
                        "Remove the stray shard or fetch the model again.");
        }
    }
    if (expected) {
        for (const std::string& name : *expected) {
            if (!file.find(name)) {
                throw Error(ErrorCode::BadInput,
                            "'" + source_.string() + "' says tensor '" + name + "' is in '" +
                                file.path().string() + "', but that shard does not hold it.",
                            "The shard is incomplete or from another download; fetch it again.");
            }
        }
    }
}

std::vector<std::string> SafetensorsCheckpoint::names() const {
    std::vector<std::string> result;
    result.reserve(locations_.size());
    for (const auto& [name, location] : locations_) {
        result.push_back(name);
    }
    return result;
}

const TensorInfo* SafetensorsCheckpoint::find(std::string_view name) const {
    auto it = locations_.find(name);
    return it == locations_.end() ? nullptr : it->second.second;
}

const TensorInfo& SafetensorsCheckpoint::at(std::string_view name) const {
    if (const TensorInfo* tensor = find(name)) {
        return *tensor;
    }
    throw Error(ErrorCode::BadInput,
                "'" + source_.string() + "' has no tensor named '" + std::string(name) + "'.",
                "Run `tuneframe-engine inspect " + source_.string() + "` to list its tensors.");
}

const SafetensorsFile& SafetensorsCheckpoint::shard_of(std::string_view name) const {
    at(name);
    return shards_[locations_.find(name)->second.first];
}

} // namespace tuneframe::core
