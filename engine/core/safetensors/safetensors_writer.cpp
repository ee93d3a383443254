#include "engine/core/safetensors/safetensors_writer.h"

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace tuneframe::core {
namespace {

std::uint64_t byte_size(const TensorToWrite& tensor) {
    std::uint64_t total = dtype_size(tensor.dtype);
    for (std::int64_t dim : tensor.shape) {
        if (dim < 0) {
            throw Error(ErrorCode::Internal, "tensor '" + tensor.name + "' has a negative size");
        }
        total *= static_cast<std::uint64_t>(dim);
    }
    return total;
}

void check_names(const std::vector<TensorToWrite>& tensors, const std::filesystem::path& path) {
    std::set<std::string> names;
    for (const auto& tensor : tensors) {
        if (tensor.name.empty() || tensor.name == "__metadata__") {
            throw Error(ErrorCode::Internal, "cannot write a tensor named '" + tensor.name +
                                                 "' to '" + path.string() + "'");
        }
        if (!names.insert(tensor.name).second) {
            throw Error(ErrorCode::Internal,
                        "tensor '" + tensor.name + "' is written twice to '" + path.string() + "'");
        }
        if (tensor.dtype == DType::Invalid) {
            throw Error(ErrorCode::Internal, "tensor '" + tensor.name + "' has no dtype");
        }
    }
}

} // namespace

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    check_names(tensors, path);
    std::vector<const TensorToWrite*> ordered;
    for (const auto& tensor : tensors) {
        ordered.push_back(&tensor);
    }
    std::sort(ordered.begin(), ordered.end(),
              [](const TensorToWrite* a, const TensorToWrite* b) { return a->name < b->name; });

    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) {
        header["__metadata__"] = metadata;
    }
    std::uint64_t offset = 0;
    for (const TensorToWrite* tensor : ordered) {
        std::uint64_t size = byte_size(*tensor);
        header[tensor->name] = {{"dtype", std::string(dtype_name(tensor->dtype))},
                                {"shape", tensor->shape},
                                {"data_offsets", {offset, offset + size}}};
        offset += size;
    }
    std::string text = header.dump();
    // Padding the header to 8 bytes keeps every tensor aligned for zero-copy readers.
    text.append((8 - text.size() % 8) % 8, ' ');

    std::uint8_t length[8];
    for (int i = 0; i < 8; ++i) {
        length[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(text.size()) >> (8 * i));
    }
    AtomicFile file(path);
    file.write(length, sizeof length);
    file.write(text);
    for (const TensorToWrite* tensor : ordered) {
        file.write(tensor->data, byte_size(*tensor));
    }
    file.commit();
}

} // namespace tuneframe::core
