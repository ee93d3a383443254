#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tuneframe::dist {

// Where this process stands in a multi-process run, read from the variables torchrun and
// `tuneframe-engine launch` set (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT) or, under `srun`, from SLURM's (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID,
// SLURM_NTASKS_PER_NODE, SLURM_JOB_NODELIST), so the same `train` runs under any of them.
struct RendezvousEnvironment {
    int rank = 0;
    int local_rank = 0;
    int world_size = 1;
    int local_world_size = 1;
    std::string master_addr = "127.0.0.1";
    int master_port = 29500;
    bool under_launch = false; // started by `tuneframe-engine launch` (it owns events.jsonl)
    // torchrun's agent already serves the store on MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE):
    // every rank connects as a client, under the agent's restart attempt.
    bool agent_store = false;
    int restart_count = 0; // TORCHELASTIC_RESTART_COUNT
    std::string source;    // "torchrun", "launch" or "slurm", for messages

    // Reads the environment through `get` (getenv in the engine, a map in tests). nullopt when
    // none of the schemes is present, which is a single-process run. Inconsistent values are a
    // BadInput error naming the variable.
    using Getter = std::function<std::optional<std::string>(const std::string&)>;
    static std::optional<RendezvousEnvironment> read(const Getter& get);
    static std::optional<RendezvousEnvironment> from_process_environment();
};

// The first host of a SLURM node list: "gpu[03-05,07],login1" -> "gpu03".
std::string first_slurm_host(const std::string& node_list);

} // namespace tuneframe::dist
