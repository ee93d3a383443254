#include "common/launch_spec.h"

#include "common/training_job.h"

#include <algorithm>
#include <utility>

namespace tuneframe::common {
namespace {

const char* const kHint = "It should read {\"gpus\": [0, 1]} or {\"cpu_ranks\": 2}, with "
                          "\"machines\", \"master_addr\" and \"master_port\" for several "
                          "machines; delete it to train with one process.";

[[noreturn]] void refuse(const std::string& field, const std::string& what) {
    throw JobError(field + " " + what, field, kHint);
}

int integer_field(const nlohmann::json& json, const char* field, int fallback, int minimum,
                  int maximum) {
    if (!json.contains(field)) {
        return fallback;
    }
    const nlohmann::json& value = json.at(field);
    if (!value.is_number_integer() || value.get<long long>() < minimum ||
        value.get<long long>() > maximum) {
        refuse(field, "must be a whole number from " + std::to_string(minimum) + " to " +
                          std::to_string(maximum) + ".");
    }
    return value.get<int>();
}

} // namespace

LaunchSpec LaunchSpec::on_machines(int count, std::string address, int port) const {
    LaunchSpec spec = *this;
    spec.machines = std::max(count, 1);
    spec.master_addr = spec.machines > 1 ? std::move(address) : std::string();
    spec.master_port = spec.machines > 1 ? port : 0;
    if (spec.machines > 1 && spec.gpus.empty() && spec.cpu_ranks == 0) {
        spec.cpu_ranks = 1;
    }
    return spec;
}

int LaunchSpec::process_count() const {
    if (!gpus.empty()) {
        return static_cast<int>(gpus.size());
    }
    return std::max(cpu_ranks, 1);
}

std::vector<std::string> LaunchSpec::process_arguments(int node) const {
    std::vector<std::string> arguments;
    if (!gpus.empty()) {
        std::string indices;
        for (int index : gpus) {
            indices += (indices.empty() ? "" : ",") + std::to_string(index);
        }
        arguments = {"--gpus", indices};
    } else {
        arguments = {"--cpu-ranks", std::to_string(std::max(cpu_ranks, 1))};
    }
    if (machines > 1) {
        arguments.insert(arguments.end(), {"--nnodes", std::to_string(machines), "--node-rank",
                                           std::to_string(node), "--master-addr", master_addr,
                                           "--master-port", std::to_string(master_port)});
    }
    return arguments;
}

nlohmann::json LaunchSpec::to_json() const {
    nlohmann::json json = nlohmann::json::object();
    if (!gpus.empty()) {
        json["gpus"] = gpus;
    } else if (cpu_ranks > 1 || (cpu_ranks == 1 && machines > 1)) {
        json["cpu_ranks"] = cpu_ranks;
    }
    if (machines > 1) {
        json["machines"] = machines;
        json["master_addr"] = master_addr;
        json["master_port"] = master_port;
    }
    return json;
}

LaunchSpec LaunchSpec::from_json(const nlohmann::json& json) {
    if (!json.is_object()) {
        refuse("The plan", "must be a JSON object.");
    }
    LaunchSpec spec;
    if (json.contains("gpus")) {
        if (!json.at("gpus").is_array()) {
            refuse("gpus", "must be a list of GPU indices.");
        }
        for (const nlohmann::json& index : json.at("gpus")) {
            if (!index.is_number_integer() || index.get<long long>() < 0 ||
                index.get<long long>() > 1 << 16) {
                refuse("gpus", "must be a list of GPU indices (0 or more).");
            }
            spec.gpus.push_back(index.get<int>());
        }
    }
    const int ranks = integer_field(json, "cpu_ranks", 0, 0, 4096);
    if (!spec.gpus.empty() && ranks > 0) {
        refuse("cpu_ranks", "cannot be set together with gpus.");
    }
    spec.cpu_ranks = ranks > 1 ? ranks : 0;
    const int machines = integer_field(json, "machines", 1, 1, 4096);
    if (machines == 1) {
        return spec;
    }
    const auto address = json.find("master_addr");
    if (address == json.end() || !address->is_string() || address->get<std::string>().empty()) {
        refuse("master_addr", "must name machine 0 when machines is over 1.");
    }
    const int port = integer_field(json, "master_port", 0, 1, 65535);
    if (port == 0) {
        refuse("master_port", "must be set when machines is over 1.");
    }
    return spec.on_machines(machines, address->get<std::string>(), port);
}

bool LaunchSpec::operator==(const LaunchSpec& other) const {
    return gpus == other.gpus && cpu_ranks == other.cpu_ranks && machines == other.machines &&
           master_addr == other.master_addr && master_port == other.master_port;
}

} // namespace tuneframe::common
