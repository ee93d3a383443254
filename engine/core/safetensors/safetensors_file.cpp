#include "engine/core/safetensors/safetensors_file.h"

#include "engine/core/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <set>

namespace tuneframe::core {
namespace {

const char* const kHint =
    "The file is damaged or was not written as safetensors; download or export it again.";

[[noreturn]] void malformed(const std::filesystem::path& path, const std::string& defect) {
    throw Error(ErrorCode::BadInput,
                "'" + path.string() + "' is not a valid safetensors file: " + defect + ".", kHint);
}

std::uint64_t read_le64(const std::uint8_t* bytes) {
    std::uint64_t value = 0;
    for (int i = 7; i >= 0; --i) {
        value = (value << 8) | bytes[i];
    }
    return value;
}

std::vector<std::int64_t> parse_shape(const nlohmann::json& entry, const std::string& name,
                                      const std::filesystem::path& path) {
    auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array()) {
        malformed(path, "tensor '" + name + "' has no shape array");
    }
    std::vector<std::int64_t> dims;
    for (const auto& dim : *shape) {
        if (!dim.is_number_unsigned() &&
            !(dim.is_number_integer() && dim.get<std::int64_t>() >= 0)) {
            malformed(path, "tensor '" + name + "' has a shape entry that is not a size");
        }
        std::uint64_t value = dim.get<std::uint64_t>();
        if (value > static_cast<std::uint64_t>(INT64_MAX)) {
            malformed(path, "tensor '" + name + "' has a dimension too large");
        }
        dims.push_back(static_cast<std::int64_t>(value));
    }
    return dims;
}

// Bytes a tensor of `shape` needs. Zero dimensions are left out of the product: LibTorch
// computes strides as if they were one, so [2^32, 2^31, 0] holds no byte but would still
// overflow numel() and the strides. The product of the others, in bytes, must fit in int64.
std::uint64_t byte_size(const std::vector<std::int64_t>& shape, DType dtype,
                        const std::string& name, const std::filesystem::path& path) {
    std::int64_t extent = static_cast<std::int64_t>(dtype_size(dtype));
    bool empty = false;
    for (std::int64_t dim : shape) {
        if (dim == 0) {
            empty = true;
        } else if (__builtin_mul_overflow(extent, dim, &extent)) {
            malformed(path, "tensor '" + name + "' has a shape " + shape_string(shape) +
                                " whose size overflows");
        }
    }
    return empty ? 0 : static_cast<std::uint64_t>(extent);
}

} // namespace

std::int64_t TensorInfo::numel() const {
    // Checked even for a shape SafetensorsFile accepted, so a hand-made TensorInfo cannot
    // overflow either; any zero dimension makes the count zero whatever the others are.
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
        return 0;
    }
    std::int64_t count = 1;
    for (std::int64_t dim : shape) {
        if (__builtin_mul_overflow(count, dim, &count)) {
            throw Error(ErrorCode::BadInput,
                        "Tensor '" + name + "' has a shape " + shape_string(shape) +
                            " whose element count overflows a 64-bit integer.",
                        kHint);
        }
    }
    return count;
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        text += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return text + "]";
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path)
    : mapping_(std::make_shared<MappedFile>(path)) {
    const std::uint64_t size = mapping_->size();
    if (size == 0) {
        malformed(path, "the file is empty");
    }
    if (size < 8) {
        malformed(path, "the file is too short to hold a header length");
    }
    const std::uint64_t header_size = read_le64(mapping_->data());
    if (header_size > kMaxHeaderBytes) {
        malformed(path, "the header claims " + std::to_string(header_size) +
                            " bytes, more than the format's 100 MB limit");
    }
    if (header_size > size - 8) {
        malformed(path, "the header claims " + std::to_string(header_size) +
                            " bytes but the file has only " + std::to_string(size - 8) +
                            " after the length (truncated?)");
    }
    const auto* header_start = reinterpret_cast<const char*>(mapping_->data() + 8);
    data_start_ = mapping_->data() + 8 + header_size;
    parse_header(std::string_view(header_start, header_size), size - 8 - header_size);
}

void SafetensorsFile::parse_header(std::string_view header, std::uint64_t data_size) {
    const std::filesystem::path& file = path();
    // nlohmann keeps the last of duplicate keys silently; the callback sees every key.
    std::set<std::string> seen;
    std::string duplicate;
    auto on_event = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        if (depth == 1 && event == nlohmann::json::parse_event_t::key && parsed.is_string()) {
            const auto& key = parsed.get_ref<const std::string&>();
            if (!seen.insert(key).second && duplicate.empty()) {
                duplicate = key;
            }
        }
        return true;
    };
    nlohmann::json root = nlohmann::json::parse(header.begin(), header.end(), on_event, false);
    if (root.is_discarded()) {
        malformed(file, "the header is not valid JSON");
    }
    if (!root.is_object()) {
        malformed(file, "the header is not a JSON object");
    }
    if (!duplicate.empty()) {
        malformed(file, "the tensor name '" + duplicate + "' appears twice");
    }
    for (const auto& [name, entry] : root.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object()) {
                malformed(file, "__metadata__ is not an object");
            }
            for (const auto& [key, value] : entry.items()) {
                if (!value.is_string()) {
                    malformed(file, "metadata value '" + key + "' is not a string");
                }
                metadata_[key] = value.get<std::string>();
            }
            continue;
        }
        if (!entry.is_object()) {
            malformed(file, "the entry for tensor '" + name + "' is not an object");
        }
        TensorInfo info;
        info.name = name;
        auto dtype = entry.find("dtype");
        if (dtype == entry.end() || !dtype->is_string()) {
            malformed(file, "tensor '" + name + "' has no dtype");
        }
        info.dtype = dtype_from_name(dtype->get<std::string>());
        if (info.dtype == DType::Invalid) {
            throw Error(ErrorCode::Unsupported,
                        "'" + file.string() + "': tensor '" + name + "' has dtype " +
                            dtype->get<std::string>() + ", which Tuneframe cannot read.",
                        "Convert the checkpoint to BF16, F16 or F32.");
        }
        info.shape = parse_shape(entry, name, file);
        auto offsets = entry.find("data_offsets");
        if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 ||
            !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned()) {
            malformed(file, "tensor '" + name + "' has no [begin, end] data_offsets");
        }
        info.begin = (*offsets)[0].get<std::uint64_t>();
        info.end = (*offsets)[1].get<std::uint64_t>();
        if (info.begin > info.end || info.end > data_size) {
            malformed(file, "tensor '" + name + "' lies outside the data section (offsets " +
                                std::to_string(info.begin) + ".." + std::to_string(info.end) +
                                ", data " + std::to_string(data_size) + " bytes)");
        }
        if (info.end - info.begin != byte_size(info.shape, info.dtype, name, file)) {
            malformed(file, "tensor '" + name + "' holds " + std::to_string(info.end - info.begin) +
                                " bytes, but " + std::string(dtype_name(info.dtype)) + " " +
                                shape_string(info.shape) + " needs " +
                                std::to_string(byte_size(info.shape, info.dtype, name, file)));
        }
        tensors_.push_back(std::move(info));
    }
    check_extents(data_size);
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        index_.emplace(tensors_[i].name, i);
    }
}

void SafetensorsFile::check_extents(std::uint64_t data_size) {
    std::stable_sort(tensors_.begin(), tensors_.end(),
                     [](const TensorInfo& a, const TensorInfo& b) {
                         return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
                     });
    std::uint64_t expected = 0;
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const TensorInfo& tensor = tensors_[i];
        if (tensor.begin < expected) {
            malformed(path(),
                      "tensors '" + tensors_[i - 1].name + "' and '" + tensor.name + "' overlap");
        }
        if (tensor.begin > expected) {
            malformed(path(), "there are unused bytes before tensor '" + tensor.name + "'");
        }
        expected = tensor.end;
    }
    if (expected != data_size) {
        malformed(path(), std::to_string(data_size - expected) +
                              " bytes after the last tensor belong to no tensor");
    }
}

const TensorInfo* SafetensorsFile::find(std::string_view name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorInfo& SafetensorsFile::at(std::string_view name) const {
    if (const TensorInfo* tensor = find(name)) {
        return *tensor;
    }
    throw Error(ErrorCode::BadInput,
                "'" + path().string() + "' has no tensor named '" + std::string(name) + "'.",
                "Run `tuneframe-engine inspect " + path().string() +
                    "` to list the tensors it holds.");
}

} // namespace tuneframe::core
