#pragma once

#include "engine/dist/communicator.h"
#include "engine/dist/rendezvous_environment.h"

#include <c10/core/Device.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace tuneframe::dist {

// The meeting point of a multi-process run: c10d's TCPStore at MASTER_ADDR:MASTER_PORT, served
// by rank 0 (or, under torchrun, by its agent), and the process groups built on it. Construction
// waits for every rank to arrive (at most `connect_timeout`) and fails with a Distributed error
// naming the address.
class Rendezvous {
public:
    Rendezvous(RendezvousEnvironment environment, std::chrono::milliseconds connect_timeout,
               std::chrono::milliseconds collective_timeout);
    ~Rendezvous();
    Rendezvous(const Rendezvous&) = delete;
    Rendezvous& operator=(const Rendezvous&) = delete;

    const RendezvousEnvironment& environment() const { return environment_; }

    // A process group over the global `ranks` (this rank among them): NCCL on `device` when it
    // is a GPU (this rank's, set current before), Gloo on the CPU otherwise. `name` keeps the
    // groups' rendezvous keys apart; every member must ask for the same group with the same name.
    std::unique_ptr<Communicator> group(const std::string& name, const std::vector<int>& ranks,
                                        c10::Device device);

private:
    struct Impl;
    RendezvousEnvironment environment_;
    std::chrono::milliseconds collective_timeout_;
    std::unique_ptr<Impl> impl_;
};

} // namespace tuneframe::dist
