#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tuneframe::common {

// Which processes train a run: one engine on the job's device, one worker per chosen GPU, or N
// CPU ranks, on this machine alone or on several machines that each start as many (machine 0
// is the one whose address the others meet at). The studio keeps it beside the job as
// <run>/launch.json; the studio and the engine's queue runner both start runs from it, so both
// read it and turn it into arguments here.
struct LaunchSpec {
    static constexpr const char* kFileName = "launch.json";

    std::vector<int> gpus;
    // Over 1: that many CPU ranks. 1 trains one rank per machine of several under `launch`;
    // 0: one process.
    int cpu_ranks = 0;
    int machines = 1;
    std::string master_addr; // machine 0, with several machines
    int master_port = 0;

    // The same processes on each of `count` machines, meeting at machine 0's `address`:`port`
    // (both dropped for one machine). One CPU rank per machine still trains under `launch`,
    // which joins the machines, so a plan of one process becomes one CPU rank.
    LaunchSpec on_machines(int count, std::string address, int port) const;

    // Processes that train together on one machine.
    int process_count() const;
    // Processes on every machine together; under 2 the plain `train` command trains.
    int world_size() const { return process_count() * machines; }

    // `--gpus 0,1` or `--cpu-ranks N`, and for several machines their flags with node `node`:
    // what `run` and `launch` need to start this plan's processes.
    std::vector<std::string> process_arguments(int node) const;

    // launch.json's form: only what differs from one process ({} for one).
    nlohmann::json to_json() const;
    // The plan `json` holds; anything else (wrong types, GPUs together with CPU ranks, several
    // machines without an address and port) is a JobError whose hint shows the right form.
    static LaunchSpec from_json(const nlohmann::json& json);

    bool operator==(const LaunchSpec& other) const;
};

} // namespace tuneframe::common
