#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tuneframe::dist {

// How many collectives a communicator ran and the bytes it sent, so tests can see that a plan
// really exchanges data and benchmarks can report traffic per step.
struct CollectiveCounts {
    std::int64_t all_reduce = 0;
    std::int64_t broadcast = 0;
    std::int64_t all_gather = 0;
    std::int64_t reduce = 0;
    std::int64_t reduce_scatter = 0;
    std::int64_t all_to_all = 0;
    std::int64_t barrier = 0;
    std::int64_t send = 0; // point to point: pipeline stages' activations and gradients
    std::int64_t recv = 0;
    std::int64_t bytes = 0; // payload handed to the collectives by this rank
};

// One point-to-point message of Communicator::transfer: `tensor` to (send) or from (receive)
// group rank `peer`. A receive fills `tensor`, whose shape and dtype both sides agreed on.
struct Transfer {
    at::Tensor tensor;
    int peer = 0;
    int tag = 0;
    bool send = false;
};

// A collective still in flight; wait() raises the collective's failure as a core::Error.
class PendingCollective {
public:
    virtual ~PendingCollective() = default;
    virtual void wait() = 0;
};

// One c10d process group (Gloo on CPU, NCCL on CUDA) with the collectives the trainer needs.
// Gloo in LibTorch 1.13 has no reduce-scatter nor flat all-gather: they are emulated there
// (all-reduce then keep a slice; list all-gather then concatenate) and native on NCCL. Every
// failure, including a timeout, is a core::Error of code Distributed that names the collective.
//
// A group works on one device (NCCL: this rank's GPU; Gloo: the CPU) and every collective
// refuses a tensor anywhere else with an Internal error naming the call. NCCL would refuse a CPU
// tensor too, but only at run time on a GPU machine; checking here makes the same mistake fail
// on the CPU ranks of the test suite.
class Communicator {
public:
    virtual ~Communicator() = default;

    virtual int rank() const = 0;
    virtual int size() const = 0;
    virtual std::string backend() const = 0; // "gloo" or "nccl"
    // Where the tensors handed to this group must live.
    virtual c10::Device device() const = 0;

    // Sums `tensor` over the ranks in place.
    virtual void all_reduce(at::Tensor& tensor) = 0;
    virtual std::unique_ptr<PendingCollective> all_reduce_async(at::Tensor& tensor) = 0;
    // Sums `tensor` over the ranks into rank `root`'s copy (the others' are left undefined).
    virtual std::unique_ptr<PendingCollective> reduce_async(at::Tensor& tensor, int root) = 0;
    virtual void broadcast(at::Tensor& tensor, int root) = 0;
    // Every rank's `tensor` concatenated along dim 0, in rank order (equal shapes).
    virtual at::Tensor all_gather(const at::Tensor& tensor) = 0;
    // `flat` (1-D, a multiple of size() long) summed over the ranks; this rank's size()-th part.
    virtual at::Tensor reduce_scatter(const at::Tensor& flat) = 0;
    // Splits `input` along dim 0 into `send_rows` pieces, piece i to rank i; returns the pieces
    // received, `receive_rows[i]` rows from rank i, concatenated in rank order.
    virtual at::Tensor all_to_all(const at::Tensor& input,
                                  const std::vector<std::int64_t>& send_rows,
                                  const std::vector<std::int64_t>& receive_rows) = 0;
    virtual void barrier() = 0;
    // Point to point, between pipeline stages: starts every transfer together and waits for
    // all of them. NCCL runs them as one group, since two ranks that each send to the other
    // before receiving would otherwise block each other on the pair's one stream; Gloo's travel
    // independently anyway. Messages between two ranks with one tag arrive in the order sent.
    virtual void transfer(const std::vector<Transfer>& transfers) = 0;

    const CollectiveCounts& counts() const { return counts_; }

protected:
    // Throws the Internal error described above when `tensor` is not on device().
    void check_device(const at::Tensor& tensor, const char* collective) const;

    CollectiveCounts counts_;
};

// Small host values through a group, for bookkeeping (losses, counters, memory figures): they
// travel as a tensor on the group's device and come back to the host, so a caller can never hand
// NCCL a CPU tensor by accident.
std::vector<double> all_reduce_values(Communicator& group, const std::vector<double>& values);
// Every rank's `values` (equal lengths), rank after rank.
std::vector<std::int64_t> all_gather_values(Communicator& group,
                                            const std::vector<std::int64_t>& values);
std::int64_t broadcast_value(Communicator& group, std::int64_t value, int root);

} // namespace tuneframe::dist
