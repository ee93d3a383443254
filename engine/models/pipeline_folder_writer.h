#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace tuneframe::models {

// A pipeline folder under construction: each component writes its own folder, then is added
// here; finish() writes model_index.json naming them, as diffusers lays pipelines out.
class PipelineFolderWriter {
public:
    // `diffusers_version`: the release whose layout the folder follows (model_index.json's
    // _diffusers_version).
    PipelineFolderWriter(std::filesystem::path root, std::string pipeline_class,
                         std::string diffusers_version = "0.32.2");

    const std::filesystem::path& root() const { return root_; }
    std::filesystem::path component_folder(const std::string& component) const {
        return root_ / component;
    }
    void add_component(const std::string& component, const std::string& library,
                       const std::string& class_name);
    // A component the pipeline class has but this folder leaves out ([null, null]).
    void add_absent_component(const std::string& component);
    // A pipeline setting besides the components (Wan's boundary_ratio, expand_timesteps).
    void set(const std::string& key, nlohmann::json value);
    std::filesystem::path finish() const; // model_index.json

    const std::vector<std::string>& components() const { return components_; }

private:
    std::filesystem::path root_;
    nlohmann::json index_;
    std::vector<std::string> components_;
};

} // namespace tuneframe::models
