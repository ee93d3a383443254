#include "engine/models/model_folder.h"

#include <algorithm>

namespace tuneframe::models {

bool ModelFolder::supports(const std::string& task) const {
    const std::vector<std::string> all = tasks();
    return std::find(all.begin(), all.end(), task) != all.end();
}

std::unique_ptr<ImageEncoder> ModelFolder::image_encoder(const WeightsPlacement&) const {
    return nullptr;
}

} // namespace tuneframe::models
