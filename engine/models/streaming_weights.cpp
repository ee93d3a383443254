#include "engine/models/streaming_weights.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"

#include <torch/torch.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

namespace tuneframe::models {
namespace {

using core::Error;
using core::ErrorCode;

struct ModuleTensor {
    at::Tensor tensor;
    bool buffer = false;
};

std::map<std::string, ModuleTensor>
module_tensors(const torch::nn::Module& module,
               const std::function<bool(const std::string&)>& ignore) {
    std::map<std::string, ModuleTensor> tensors;
    for (const auto& item : module.named_parameters()) {
        if (!ignore || !ignore(item.key())) {
            tensors[item.key()] = {item.value(), false};
        }
    }
    for (const auto& item : module.named_buffers()) {
        if (!ignore || !ignore(item.key())) {
            tensors[item.key()] = {item.value(), true};
        }
    }
    return tensors;
}

std::string key_list(const std::vector<std::string>& items) {
    constexpr std::size_t shown = 12;
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < shown; ++i) {
        text += (i ? ", " : "") + items[i];
    }
    if (items.size() > shown) {
        text += " and " + std::to_string(items.size() - shown) + " more";
    }
    return text;
}

void check_keys(const std::map<std::string, ModuleTensor>& expected,
                const core::SafetensorsCheckpoint& checkpoint, const LoadWeightsOptions& options) {
    std::vector<std::string> missing;
    std::vector<std::string> unexpected;
    std::vector<std::string> misshaped;
    for (const auto& [name, entry] : expected) {
        const core::TensorInfo* info = checkpoint.find(name);
        if (!info) {
            missing.push_back(name);
        } else if (info->shape != entry.tensor.sizes().vec() ||
                   !core::dtype_is_floating(info->dtype)) {
            misshaped.push_back(name + " (file " + std::string(core::dtype_name(info->dtype)) +
                                " " + core::shape_string(info->shape) + ", model " +
                                core::shape_string(entry.tensor.sizes().vec()) + ")");
        }
    }
    for (const std::string& name : checkpoint.names()) {
        if (!expected.count(name)) {
            unexpected.push_back(name);
        }
    }
    if (options.allow_missing) {
        missing.clear();
    }
    if (missing.empty() && unexpected.empty() && misshaped.empty()) {
        return;
    }
    std::string message =
        "'" + checkpoint.source().string() + "' does not match " + options.model_name + ":";
    if (!missing.empty()) {
        message +=
            " " + std::to_string(missing.size()) + " missing key(s): " + key_list(missing) + ".";
    }
    if (!unexpected.empty()) {
        message += " " + std::to_string(unexpected.size()) +
                   " unexpected key(s): " + key_list(unexpected) + ".";
    }
    if (!misshaped.empty()) {
        message += " " + std::to_string(misshaped.size()) +
                   " mis-shaped key(s): " + key_list(misshaped) + ".";
    }
    throw Error(ErrorCode::BadInput, message,
                "Check that config.json belongs to these weights (same model variant and "
                "size) and that the download is complete.");
}

// Drops the mapped pages of [data, data + size) from this process: the page cache keeps them,
// but they stop counting against our resident memory.
void release_pages(const std::uint8_t* data, std::uint64_t size) {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(data) & ~(page - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + size + page - 1) & ~(page - 1);
    if (end > begin) {
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
    }
}

std::string shard_name(const std::string& stem, std::size_t index, std::size_t count) {
    char name[64];
    std::snprintf(name, sizeof name, "-%05zu-of-%05zu.safetensors", index + 1, count);
    return stem + name;
}

} // namespace

torch::Dtype stored_dtype(const core::SafetensorsCheckpoint& checkpoint) {
    std::map<core::DType, std::size_t> counts;
    for (const core::SafetensorsFile& shard : checkpoint.shards()) {
        for (const core::TensorInfo& tensor : shard.tensors()) {
            if (core::dtype_is_floating(tensor.dtype)) {
                ++counts[tensor.dtype];
            }
        }
    }
    core::DType most = core::DType::F32;
    std::size_t best = 0;
    for (const auto& [dtype, count] : counts) {
        if (count > best) {
            most = dtype;
            best = count;
        }
    }
    return core::to_scalar_type(most);
}

void load_weights_streaming(torch::nn::Module& module,
                            const core::SafetensorsCheckpoint& checkpoint,
                            const LoadWeightsOptions& options) {
    const auto expected = module_tensors(module, options.ignore);
    check_keys(expected, checkpoint, options);

    torch::NoGradGuard no_grad;
    for (const core::SafetensorsFile& shard : checkpoint.shards()) {
        for (const core::TensorInfo& info : shard.tensors()) {
            const ModuleTensor& target = expected.at(info.name);
            at::Tensor source = core::view_tensor(shard, info);
            if (options.store && options.store(info.name, source)) {
                source = at::Tensor();
                release_pages(shard.data(info), info.nbytes());
                continue;
            }
            at::Tensor tensor = target.tensor;
            if (target.buffer && options.buffers_in_stored_dtype &&
                tensor.scalar_type() != source.scalar_type()) {
                tensor.set_data(torch::empty_like(tensor, source.scalar_type()));
            }
            tensor.copy_(source);
            source = at::Tensor();
            release_pages(shard.data(info), info.nbytes());
        }
    }
}

std::filesystem::path save_weights_sharded(const torch::nn::Module& module,
                                           const std::filesystem::path& folder,
                                           const SaveWeightsOptions& options) {
    const auto tensors = module_tensors(module, options.ignore);
    std::vector<core::NamedTensors> shards(1);
    std::uint64_t shard_bytes = 0;
    std::uint64_t total_bytes = 0;
    for (const auto& [name, entry] : tensors) {
        const std::uint64_t bytes = entry.tensor.numel() * entry.tensor.element_size();
        if (!shards.back().empty() && shard_bytes + bytes > options.max_shard_bytes) {
            shards.emplace_back();
            shard_bytes = 0;
        }
        shards.back().emplace_back(name, entry.tensor);
        shard_bytes += bytes;
        total_bytes += bytes;
    }
    std::filesystem::create_directories(folder);
    if (shards.size() == 1) {
        const auto path = folder / (options.file_stem + ".safetensors");
        core::write_tensors(path, shards.front(), options.metadata);
        return path;
    }
    nlohmann::json weight_map = nlohmann::json::object();
    for (std::size_t i = 0; i < shards.size(); ++i) {
        const std::string name = shard_name(options.file_stem, i, shards.size());
        core::write_tensors(folder / name, shards[i], options.metadata);
        for (const auto& [tensor_name, tensor] : shards[i]) {
            weight_map[tensor_name] = name;
        }
    }
    const auto index = folder / (options.file_stem + ".safetensors.index.json");
    core::write_json_file(
        index, {{"metadata", {{"total_size", total_bytes}}}, {"weight_map", weight_map}});
    return index;
}

} // namespace tuneframe::models
