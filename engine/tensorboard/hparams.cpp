#include "engine/tensorboard/hparams.h"

#include <string>

namespace tuneframe::tensorboard {
namespace {

void flatten_into(const nlohmann::json& value, const std::string& path, nlohmann::json& out) {
    if (value.is_object()) {
        for (const auto& [name, child] : value.items()) {
            flatten_into(child, path.empty() ? name : path + "." + name, out);
        }
    } else if (value.is_array()) {
        out[path] = value.dump();
    } else if (!value.is_null()) {
        out[path] = value;
    }
}

} // namespace

nlohmann::json flatten_hparams(const nlohmann::json& job) {
    nlohmann::json out = nlohmann::json::object();
    flatten_into(job, "", out);
    return out;
}

} // namespace tuneframe::tensorboard
