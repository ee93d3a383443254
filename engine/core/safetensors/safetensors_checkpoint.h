#pragma once

#include "engine/core/safetensors/safetensors_file.h"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tuneframe::core {

// A set of weights that may be split into shards: a single .safetensors file, a
// `*.safetensors.index.json` with its shards, or a folder holding either (a diffusers component
// folder such as `transformer/`). Every shard named by the index must exist and hold the tensors
// the index assigns to it; no tensor may live in two shards.
class SafetensorsCheckpoint {
public:
    explicit SafetensorsCheckpoint(const std::filesystem::path& path);

    // The index file, or the single weight file.
    const std::filesystem::path& source() const { return source_; }
    bool sharded() const { return sharded_; }
    const std::vector<SafetensorsFile>& shards() const { return shards_; }

    std::size_t tensor_count() const { return locations_.size(); }
    // Every tensor name, sorted.
    std::vector<std::string> names() const;
    const TensorInfo* find(std::string_view name) const;
    const TensorInfo& at(std::string_view name) const;
    // The shard holding `name`; call at() first or check find().
    const SafetensorsFile& shard_of(std::string_view name) const;

private:
    void open_index(const std::filesystem::path& index);
    void open_single(const std::filesystem::path& file);
    void add_shard_tensors(std::size_t shard, const std::vector<std::string>* expected);

    std::filesystem::path source_;
    bool sharded_ = false;
    std::vector<SafetensorsFile> shards_;
    std::map<std::string, std::pair<std::size_t, const TensorInfo*>, std::less<>> locations_;
};

// Resolves a folder to the weight file or index inside it; files are returned unchanged.
std::filesystem::path find_weights(const std::filesystem::path& path);

} // namespace tuneframe::core
