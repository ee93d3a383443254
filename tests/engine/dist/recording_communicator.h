#pragma once

// A one-rank group that runs in the test's own process and remembers every collective it was
// asked for and the device of the tensor it was handed. It can claim any device: claiming one
// the machine lacks (meta) makes a caller that builds its tensors on the CPU fail at its first
// collective, exactly as NCCL would on a GPU machine, while a caller that builds them on the
// group's device gets through. Values are never read: after recording, a collective named in
// `stop_at` throws Stopped, so a test can end a run right there.
#include "engine/dist/communicator.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tuneframe::test {

class RecordingCommunicator : public dist::Communicator {
public:
    struct Stopped : std::runtime_error {
        Stopped()
            : std::runtime_error("stopped by the recording communicator") {}
    };
    struct Call {
        std::string collective;
        c10::Device device;
    };

    explicit RecordingCommunicator(c10::Device device, std::vector<std::string> stop_at = {})
        : device_(device)
        , stop_at_(std::move(stop_at)) {}

    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::string backend() const override { return "recording"; }
    c10::Device device() const override { return device_; }
    const std::vector<Call>& calls() const { return calls_; }

    void all_reduce(at::Tensor& tensor) override { record("all_reduce", tensor); }
    std::unique_ptr<dist::PendingCollective> all_reduce_async(at::Tensor& tensor) override {
        record("all_reduce", tensor);
        return std::make_unique<Done>();
    }
    std::unique_ptr<dist::PendingCollective> reduce_async(at::Tensor& tensor, int) override {
        record("reduce", tensor);
        return std::make_unique<Done>();
    }
    void broadcast(at::Tensor& tensor, int) override { record("broadcast", tensor); }
    at::Tensor all_gather(const at::Tensor& tensor) override {
        record("all_gather", tensor);
        return tensor.clone();
    }
    at::Tensor reduce_scatter(const at::Tensor& flat) override {
        record("reduce_scatter", flat);
        return flat.clone();
    }
    at::Tensor all_to_all(const at::Tensor& input, const std::vector<std::int64_t>&,
                          const std::vector<std::int64_t>&) override {
        record("all_to_all", input);
        return input.clone();
    }
    void barrier() override { calls_.push_back({"barrier", device_}); }
    void transfer(const std::vector<dist::Transfer>& transfers) override {
        for (const dist::Transfer& transfer : transfers) {
            record(transfer.send ? "send" : "recv", transfer.tensor);
        }
    }

private:
    struct Done : dist::PendingCollective {
        void wait() override {}
    };

    void record(const char* collective, const at::Tensor& tensor) {
        calls_.push_back({collective, tensor.device()});
        check_device(tensor, collective);
        for (const std::string& stop : stop_at_) {
            if (stop == collective) {
                throw Stopped();
            }
        }
    }

    c10::Device device_;
    std::vector<std::string> stop_at_;
    std::vector<Call> calls_;
};

} // namespace tuneframe::test
