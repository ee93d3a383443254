#include "engine/dist/rendezvous_environment.h"

#include "engine/core/error.h"

#include <cstdlib>

namespace tuneframe::dist {
namespace {

int parse_int(const RendezvousEnvironment::Getter& get, const std::string& name, int minimum,
              std::optional<int> fallback = std::nullopt) {
    const std::optional<std::string> text = get(name);
    if (!text || text->empty()) {
        if (fallback) {
            return *fallback;
        }
        throw core::Error(core::ErrorCode::BadInput,
                          "The environment variable " + name + " is not set.",
                          "Start distributed training with 'tuneframe-engine launch', torchrun or "
                          "srun, which set it.");
    }
    std::size_t used = 0;
    int value = 0;
    try {
        value = std::stoi(*text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text->size() || value < minimum) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The environment variable " + name + " is '" + *text +
                              "', not a whole number of at least " + std::to_string(minimum) + ".",
                          "Unset it, or set it as torchrun would.");
    }
    return value;
}

void check_environment(const RendezvousEnvironment& env) {
    if (env.rank >= env.world_size) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The rank " + std::to_string(env.rank) + " is not below the world size " +
                              std::to_string(env.world_size) + " (" + env.source + " variables).",
                          "Set RANK below WORLD_SIZE (or SLURM_PROCID below SLURM_NTASKS).");
    }
    if (env.master_port <= 0 || env.master_port > 65535) {
        throw core::Error(core::ErrorCode::BadInput,
                          "MASTER_PORT " + std::to_string(env.master_port) + " is not a port.",
                          "Choose a free TCP port between 1024 and 65535.");
    }
}

} // namespace

std::string first_slurm_host(const std::string& node_list) {
    const std::size_t comma = node_list.find(',');
    const std::size_t bracket = node_list.find('[');
    if (bracket == std::string::npos || (comma != std::string::npos && comma < bracket)) {
        return node_list.substr(0, comma);
    }
    // "gpu[03-05,07]": the prefix and the first number as written, keeping its zero padding.
    const std::size_t end = node_list.find_first_of("-,]", bracket + 1);
    return node_list.substr(0, bracket) + node_list.substr(bracket + 1, end - bracket - 1);
}

std::optional<RendezvousEnvironment>
RendezvousEnvironment::read(const RendezvousEnvironment::Getter& get) {
    RendezvousEnvironment env;
    if (get("RANK") && get("WORLD_SIZE")) {
        env.under_launch = get("TUNEFRAME_LAUNCH").value_or("") == "1";
        env.source = env.under_launch ? "launch" : "torchrun";
        env.rank = parse_int(get, "RANK", 0);
        env.world_size = parse_int(get, "WORLD_SIZE", 1);
        env.local_rank = parse_int(get, "LOCAL_RANK", 0, env.rank);
        env.local_world_size = parse_int(get, "LOCAL_WORLD_SIZE", 1, env.world_size);
        env.master_addr = get("MASTER_ADDR").value_or("127.0.0.1");
        env.master_port = parse_int(get, "MASTER_PORT", 1, 29500);
        const std::string agent = get("TORCHELASTIC_USE_AGENT_STORE").value_or("");
        env.agent_store = agent == "True" || agent == "true" || agent == "1";
        env.restart_count = parse_int(get, "TORCHELASTIC_RESTART_COUNT", 0, 0);
    } else if (get("SLURM_PROCID") && get("SLURM_NTASKS")) {
        env.source = "slurm";
        env.rank = parse_int(get, "SLURM_PROCID", 0);
        env.world_size = parse_int(get, "SLURM_NTASKS", 1);
        env.local_rank = parse_int(get, "SLURM_LOCALID", 0, 0);
        // "4" or "4(x2)": the count before any repetition mark.
        std::string per_node = get("SLURM_NTASKS_PER_NODE").value_or("");
        per_node = per_node.substr(0, per_node.find('('));
        env.local_world_size = per_node.empty() ? env.world_size : std::stoi(per_node);
        const std::optional<std::string> master = get("MASTER_ADDR");
        const std::optional<std::string> nodes = get("SLURM_JOB_NODELIST");
        env.master_addr = master ? *master : nodes ? first_slurm_host(*nodes) : "127.0.0.1";
        env.master_port = parse_int(get, "MASTER_PORT", 1, 29500);
    } else {
        return std::nullopt;
    }
    check_environment(env);
    return env;
}

std::optional<RendezvousEnvironment> RendezvousEnvironment::from_process_environment() {
    return read([](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        return value ? std::optional<std::string>(value) : std::nullopt;
    });
}

} // namespace tuneframe::dist
