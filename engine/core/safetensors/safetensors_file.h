#pragma once

#include "engine/core/dtype.h"
#include "engine/core/safetensors/mapped_file.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tuneframe::core {

struct TensorInfo {
    std::string name;
    DType dtype = DType::Invalid;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0; // byte offsets into the data section
    std::uint64_t end = 0;

    std::int64_t numel() const;
    std::uint64_t nbytes() const { return end - begin; }
};

std::string shape_string(const std::vector<std::int64_t>& shape); // "[2, 3, 4]"

// One memory-mapped .safetensors file whose header has been checked against the file: every
// tensor's extent lies inside the data section, extents neither overlap nor leave holes, sizes
// match dtype x shape without overflow, names are unique. A malformed file throws Error
// (BadInput) naming the file and the defect; nothing is read out of bounds.
class SafetensorsFile {
public:
    static constexpr std::uint64_t kMaxHeaderBytes = 100u * 1024u * 1024u;

    explicit SafetensorsFile(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return mapping_->path(); }
    // Tensors in file order (ascending offset).
    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    const std::map<std::string, std::string>& metadata() const { return metadata_; }

    const TensorInfo* find(std::string_view name) const;
    const TensorInfo& at(std::string_view name) const; // throws BadInput naming the file
    const std::uint8_t* data(const TensorInfo& tensor) const { return data_start_ + tensor.begin; }

    // Keeps the mapping alive for views that outlive this object (zero-copy tensors).
    std::shared_ptr<const MappedFile> mapping() const { return mapping_; }

private:
    void parse_header(std::string_view header, std::uint64_t data_size);
    void check_extents(std::uint64_t data_size);

    std::shared_ptr<const MappedFile> mapping_;
    const std::uint8_t* data_start_ = nullptr;
    std::vector<TensorInfo> tensors_;
    std::map<std::string, std::size_t, std::less<>> index_;
    std::map<std::string, std::string> metadata_;
};

} // namespace tuneframe::core
