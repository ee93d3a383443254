#include "engine/dist/rendezvous.h"

#include "engine/core/error.h"
#include "engine/dist/c10d_version.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#ifdef TUNEFRAME_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>

#include <algorithm>
#include <cstdlib>

namespace tuneframe::dist {
namespace {

using Group = C10dGroup;

std::string seconds_text(std::chrono::milliseconds ms) {
    return std::to_string(ms.count() / 1000) + " s";
}

class C10dCommunicator : public Communicator {
public:
    C10dCommunicator(c10::intrusive_ptr<Group> group, std::string backend, std::string name,
                     c10::Device device, std::chrono::milliseconds timeout)
        : group_(std::move(group))
        , backend_(std::move(backend))
        , name_(std::move(name))
        , device_(device)
        , timeout_(timeout) {}

    int rank() const override { return group_->getRank(); }
    int size() const override { return group_->getSize(); }
    std::string backend() const override { return backend_; }
    c10::Device device() const override { return device_; }

    void all_reduce(at::Tensor& tensor) override { all_reduce_async(tensor)->wait(); }

    std::unique_ptr<PendingCollective> all_reduce_async(at::Tensor& tensor) override {
        check_contiguous(tensor, "all_reduce");
        ++counts_.all_reduce;
        counts_.bytes += bytes(tensor);
        std::vector<at::Tensor> tensors{tensor};
        auto work = guarded("all_reduce", [&] { return group_->allreduce(tensors); });
        return std::make_unique<GuardedWork>(this, "all_reduce", work);
    }

    std::unique_ptr<PendingCollective> reduce_async(at::Tensor& tensor, int root) override {
        check_contiguous(tensor, "reduce");
        ++counts_.reduce;
        counts_.bytes += bytes(tensor);
        std::vector<at::Tensor> tensors{tensor};
        c10d::ReduceOptions options;
        options.rootRank = root;
        auto work = guarded("reduce", [&] { return group_->reduce(tensors, options); });
        return std::make_unique<GuardedWork>(this, "reduce", work);
    }

    void broadcast(at::Tensor& tensor, int root) override {
        check_contiguous(tensor, "broadcast");
        ++counts_.broadcast;
        counts_.bytes += rank() == root ? bytes(tensor) : 0;
        std::vector<at::Tensor> tensors{tensor};
        c10d::BroadcastOptions options;
        options.rootRank = root;
        finish("broadcast",
               guarded("broadcast", [&] { return group_->broadcast(tensors, options); }));
    }

    at::Tensor all_gather(const at::Tensor& tensor) override {
        check_device(tensor, "all_gather");
        at::Tensor input = tensor.contiguous();
        ++counts_.all_gather;
        counts_.bytes += bytes(input);
        if (backend_ == "nccl") {
            std::vector<std::int64_t> shape = input.sizes().vec();
            shape[0] *= size();
            at::Tensor output = at::empty(shape, input.options());
            finish("all_gather",
                   guarded("all_gather", [&] { return group_->_allgather_base(output, input); }));
            return output;
        }
        std::vector<std::vector<at::Tensor>> outputs(1);
        for (int i = 0; i < size(); ++i) {
            outputs[0].push_back(at::empty_like(input));
        }
        std::vector<at::Tensor> inputs{input};
        finish("all_gather",
               guarded("all_gather", [&] { return group_->allgather(outputs, inputs); }));
        return at::cat(outputs[0], 0);
    }

    at::Tensor reduce_scatter(const at::Tensor& flat) override {
        TORCH_CHECK(flat.dim() == 1 && flat.numel() % size() == 0,
                    "reduce_scatter wants a 1-D tensor whose length is a multiple of the ranks");
        check_device(flat, "reduce_scatter");
        const std::int64_t chunk = flat.numel() / size();
        ++counts_.reduce_scatter;
        counts_.bytes += bytes(flat);
        if (backend_ == "nccl") {
            at::Tensor input = flat.contiguous();
            at::Tensor output = at::empty({chunk}, flat.options());
            finish("reduce_scatter", guarded("reduce_scatter", [&] {
                       return group_->_reduce_scatter_base(output, input);
                   }));
            return output;
        }
        // Gloo: sum everything, keep this rank's part. Twice the traffic of a real
        // reduce-scatter, the same numbers.
        std::vector<at::Tensor> tensors{flat.clone()};
        finish("reduce_scatter",
               guarded("reduce_scatter", [&] { return group_->allreduce(tensors); }));
        return tensors[0].narrow(0, chunk * rank(), chunk).clone();
    }

    at::Tensor all_to_all(const at::Tensor& input, const std::vector<std::int64_t>& send_rows,
                          const std::vector<std::int64_t>& receive_rows) override {
        check_device(input, "all_to_all");
        at::Tensor in = input.contiguous();
        std::int64_t rows = 0;
        for (std::int64_t r : receive_rows) {
            rows += r;
        }
        std::vector<std::int64_t> shape = in.sizes().vec();
        shape[0] = rows;
        at::Tensor out = at::empty(shape, in.options());
        ++counts_.all_to_all;
        counts_.bytes += bytes(in);
        std::vector<std::int64_t> send = send_rows;
        std::vector<std::int64_t> receive = receive_rows;
        finish("all_to_all", guarded("all_to_all", [&] {
                   return group_->alltoall_base(out, in, receive, send);
               }));
        return out;
    }

    void transfer(const std::vector<Transfer>& transfers) override {
        const bool grouped = backend_ == "nccl" && transfers.size() > 1;
        if (grouped) {
            begin_point_to_point_group(*group_);
        }
        std::vector<c10::intrusive_ptr<c10d::Work>> works;
        for (const Transfer& transfer : transfers) {
            check_contiguous(transfer.tensor, transfer.send ? "send" : "recv");
            std::vector<at::Tensor> tensors{transfer.tensor};
            if (transfer.send) {
                ++counts_.send;
                counts_.bytes += bytes(transfer.tensor);
                works.push_back(guarded(
                    "send", [&] { return group_->send(tensors, transfer.peer, transfer.tag); }));
            } else {
                ++counts_.recv;
                works.push_back(guarded(
                    "recv", [&] { return group_->recv(tensors, transfer.peer, transfer.tag); }));
            }
        }
        if (grouped) {
            const c10::intrusive_ptr<c10d::Work> group_work = end_point_to_point_group(*group_);
            if (group_work.defined()) {
                finish("send", group_work);
                return;
            }
        }
        for (std::size_t i = 0; i < works.size(); ++i) {
            finish(transfers[i].send ? "send" : "recv", works[i]);
        }
    }

    void barrier() override {
        ++counts_.barrier;
        c10d::BarrierOptions options;
        options.timeout = timeout_;
        finish("barrier", guarded("barrier", [&] { return group_->barrier(options); }));
    }

private:
    class GuardedWork : public PendingCollective {
    public:
        GuardedWork(C10dCommunicator* owner, const char* what, c10::intrusive_ptr<c10d::Work> work)
            : owner_(owner)
            , what_(what)
            , work_(std::move(work)) {}
        void wait() override { owner_->finish(what_, work_); }

    private:
        C10dCommunicator* owner_;
        const char* what_;
        c10::intrusive_ptr<c10d::Work> work_;
    };

    static std::int64_t bytes(const at::Tensor& tensor) {
        return tensor.numel() * static_cast<std::int64_t>(tensor.element_size());
    }

    void check_contiguous(const at::Tensor& tensor, const char* what) const {
        check_device(tensor, what);
        TORCH_CHECK(tensor.is_contiguous(), what, " needs a contiguous tensor");
    }

    [[noreturn]] void fail(const char* what, const std::exception& error) const {
        throw core::Error(core::ErrorCode::Distributed,
                          std::string("The collective ") + what + " of rank " +
                              std::to_string(rank()) + " in group '" + name_ + "' (" +
                              std::to_string(size()) + " ranks, " + backend_ +
                              ") failed: " + error.what(),
                          "Another rank has probably failed: look for its error. If every rank "
                          "is alive but slow, raise parallel.timeout_s (now " +
                              seconds_text(timeout_) + ").");
    }

    template <typename Start>
    c10::intrusive_ptr<c10d::Work> guarded(const char* what, Start start) {
        try {
            return start();
        } catch (const core::Error&) {
            throw;
        } catch (const std::exception& error) {
            fail(what, error);
        }
    }

    void finish(const char* what, const c10::intrusive_ptr<c10d::Work>& work) {
        try {
            // Gloo's point to point has no timeout of its own: bounded here so a receive whose
            // peer never sends fails like a collective. NCCL's wait must stay unbounded, since a
            // bounded one blocks the host until the GPU is done.
            const bool point_to_point = std::string(what) == "send" || std::string(what) == "recv";
            if (point_to_point && backend_ == "gloo") {
                work->wait(timeout_);
            } else {
                work->wait();
            }
        } catch (const std::exception& error) {
            fail(what, error);
        }
    }

    c10::intrusive_ptr<Group> group_;
    std::string backend_;
    std::string name_;
    c10::Device device_;
    std::chrono::milliseconds timeout_;
};

bool loopback(const std::string& address) {
    return address == "127.0.0.1" || address == "localhost" || address == "::1";
}

// torchrun's agent serves the store on MASTER_PORT and every worker, rank 0 too, is its client;
// keys live under the restart attempt as torch.distributed keeps them, so a restarted worker
// group never reads its predecessor's.
c10::intrusive_ptr<c10d::Store> open_store(const RendezvousEnvironment& environment,
                                           std::chrono::milliseconds timeout) {
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(environment.master_port);
    options.isServer = environment.rank == 0 && !environment.agent_store;
    options.numWorkers = static_cast<std::size_t>(environment.world_size);
    // Every rank counts itself in (a client only adds to the count); the server waits for all.
    options.waitWorkers = true;
    options.timeout = timeout;
    c10::intrusive_ptr<c10d::Store> store;
    try {
        store = c10::make_intrusive<c10d::TCPStore>(environment.master_addr, options);
    } catch (const std::exception& error) {
        if (!mentions_libuv(error.what())) {
            throw;
        }
        use_classic_tcp_server(options);
        store = c10::make_intrusive<c10d::TCPStore>(environment.master_addr, options);
    }
    if (environment.agent_store) {
        return c10::make_intrusive<c10d::PrefixStore>(
            "/worker/attempt_" + std::to_string(environment.restart_count), store);
    }
    return store;
}

std::string store_failure(const RendezvousEnvironment& environment, const std::string& cause,
                          std::chrono::milliseconds timeout) {
    const std::string where =
        environment.master_addr + ":" + std::to_string(environment.master_port);
    const std::string who = "Rank " + std::to_string(environment.rank) + " of " +
                            std::to_string(environment.world_size);
    if (environment.rank == 0 && !environment.agent_store) {
        return who + " could not serve the rendezvous store on " + where +
               " or meet the other ranks there within " + seconds_text(timeout) + ": " + cause;
    }
    return who + " could not reach the rendezvous store on " + where + " (served by " +
           (environment.agent_store ? "torchrun's agent" : "rank 0") + ") within " +
           seconds_text(timeout) + ": " + cause;
}

} // namespace

struct Rendezvous::Impl {
    c10::intrusive_ptr<c10d::Store> store;
};

Rendezvous::Rendezvous(RendezvousEnvironment environment, std::chrono::milliseconds connect_timeout,
                       std::chrono::milliseconds collective_timeout)
    : environment_(std::move(environment))
    , collective_timeout_(collective_timeout)
    , impl_(std::make_unique<Impl>()) {
    try {
        impl_->store = open_store(environment_, connect_timeout);
    } catch (const std::exception& error) {
        throw core::Error(core::ErrorCode::Distributed,
                          store_failure(environment_, error.what(), connect_timeout),
                          "Check that every rank was started with the same MASTER_ADDR and "
                          "MASTER_PORT, that the port is free on rank 0's machine (or served by "
                          "torchrun's agent) and reachable from the others.");
    }
}

Rendezvous::~Rendezvous() = default;

std::unique_ptr<Communicator> Rendezvous::group(const std::string& name,
                                                const std::vector<int>& ranks, c10::Device device) {
    const auto found = std::find(ranks.begin(), ranks.end(), environment_.rank);
    TORCH_CHECK(found != ranks.end(), "rank ", environment_.rank, " is not in group ", name);
    const int group_rank = static_cast<int>(found - ranks.begin());
    const int group_size = static_cast<int>(ranks.size());
    auto store = c10::make_intrusive<c10d::PrefixStore>(name + "/", impl_->store);
    try {
        if (device.is_cuda()) {
#ifdef USE_C10D_NCCL
            auto options = c10d::ProcessGroupNCCL::Options::create();
            options->timeout = collective_timeout_;
            auto group =
                c10::make_intrusive<c10d::ProcessGroupNCCL>(store, group_rank, group_size, options);
            return std::make_unique<C10dCommunicator>(group, "nccl", name, device,
                                                      collective_timeout_);
#else
            throw core::Error(core::ErrorCode::Unsupported,
                              "This engine's LibTorch has no NCCL, so CUDA ranks cannot talk.",
                              "Build the engine against a CUDA LibTorch, or train with "
                              "--cpu-ranks.");
#endif
        }
#ifdef TUNEFRAME_HAVE_GLOO
        auto options = c10d::ProcessGroupGloo::Options::create(collective_timeout_);
        const char* interface = std::getenv("GLOO_SOCKET_IFNAME");
        if (interface && *interface) {
            options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
        } else if (loopback(environment_.master_addr)) {
            options->devices.push_back(
                c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        } else {
            options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        }
        options->threads = 2;
        auto group =
            c10::make_intrusive<c10d::ProcessGroupGloo>(store, group_rank, group_size, options);
        return std::make_unique<C10dCommunicator>(group, "gloo", name, c10::Device(c10::kCPU),
                                                  collective_timeout_);
#else
        throw core::Error(core::ErrorCode::Unsupported,
                          "This engine was built without Gloo, so CPU ranks cannot talk.",
                          "Install libgloo-dev and rebuild, or train on CUDA ranks.");
#endif
    } catch (const core::Error&) {
        throw;
    } catch (const std::exception& error) {
        throw core::Error(core::ErrorCode::Distributed,
                          "Rank " + std::to_string(environment_.rank) +
                              " could not build the process group '" + name + "': " + error.what(),
                          "Another rank has probably failed: look for its error.");
    }
}

} // namespace tuneframe::dist
