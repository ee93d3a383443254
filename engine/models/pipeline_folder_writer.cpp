#include "engine/models/pipeline_folder_writer.h"

#include "engine/core/json_file.h"

namespace tuneframe::models {

PipelineFolderWriter::PipelineFolderWriter(std::filesystem::path root, std::string pipeline_class,
                                           std::string diffusers_version)
    : root_(std::move(root))
    , index_({{"_class_name", std::move(pipeline_class)},
              {"_diffusers_version", std::move(diffusers_version)}}) {
    std::filesystem::create_directories(root_);
}

void PipelineFolderWriter::add_component(const std::string& component, const std::string& library,
                                         const std::string& class_name) {
    index_[component] = {library, class_name};
    components_.push_back(component);
}

void PipelineFolderWriter::add_absent_component(const std::string& component) {
    index_[component] = {nullptr, nullptr};
}

void PipelineFolderWriter::set(const std::string& key, nlohmann::json value) {
    index_[key] = std::move(value);
}

std::filesystem::path PipelineFolderWriter::finish() const {
    const auto path = root_ / "model_index.json";
    core::write_json_file(path, index_);
    return path;
}

} // namespace tuneframe::models
