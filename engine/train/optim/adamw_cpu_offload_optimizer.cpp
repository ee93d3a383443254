#include "engine/train/optim/adamw_cpu_offload_optimizer.h"

#include "engine/core/error.h"
#include "engine/core/grad_mode.h"

#include <ATen/ATen.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#ifdef TUNEFRAME_TORCH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace tuneframe::train {
namespace {

// Host gradients waiting for the worker: a small bound keeps at most a few float32 copies of
// gradients in host memory while still letting the next copy overlap the current update.
constexpr std::size_t kMaxQueued = 2;

// Hands host gradients to the worker and finished parameters back.
class UpdateChannel {
public:
    // Blocks while the queue is full; false when the worker has given up.
    bool push(std::size_t index, at::Tensor gradient) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return aborted_ || queued_.size() < kMaxQueued; });
        if (aborted_) {
            return false;
        }
        queued_.emplace_back(index, std::move(gradient));
        changed_.notify_all();
        return true;
    }

    // Blocks until there is work; false once closed and drained, or aborted.
    bool pop(std::size_t& index, at::Tensor& gradient) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return aborted_ || closed_ || !queued_.empty(); });
        if (aborted_ || queued_.empty()) {
            return false;
        }
        index = queued_.front().first;
        gradient = std::move(queued_.front().second);
        queued_.pop_front();
        changed_.notify_all();
        return true;
    }

    void finish(std::size_t index) {
        std::lock_guard<std::mutex> lock(mutex_);
        finished_.push_back(index);
    }

    std::vector<std::size_t> take_finished() {
        std::lock_guard<std::mutex> lock(mutex_);
        return std::exchange(finished_, {});
    }

    void close() {
        std::lock_guard<std::mutex> lock(mutex_);
        closed_ = true;
        changed_.notify_all();
    }

    void abort() {
        std::lock_guard<std::mutex> lock(mutex_);
        aborted_ = true;
        changed_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::pair<std::size_t, at::Tensor>> queued_;
    std::vector<std::size_t> finished_;
    bool closed_ = false;
    bool aborted_ = false;
};

// The step's copies between device parameters and their pinned staging buffers. With CUDA they
// run on two streams of their own, gradients to the host on one and results back on the other,
// so a result's copy up and the next gradients' copies down share the bus in both directions
// instead of queueing behind each other on the compute stream. Every gradient copy is issued at
// once, when the step starts (each has its own buffer), ordered after the backward pass by an
// event; the compute stream waits for the last copy back before the next forward reads the
// parameters. Elsewhere (a CPU parameter has no staging buffer) the copies are plain ones.
class HostTransfers {
public:
    HostTransfers(std::size_t parameter_count, const c10::Device& device) {
#ifdef TUNEFRAME_TORCH_CUDA
        if (device.is_cuda()) {
            cuda_.emplace(parameter_count, device);
        }
#else
        (void)parameter_count;
        (void)device;
#endif
    }

    HostTransfers(const HostTransfers&) = delete;
    HostTransfers& operator=(const HostTransfers&) = delete;

    // On an error the streams are drained: no copy may still be writing a staging buffer or a
    // parameter once the step has unwound.
    ~HostTransfers() {
#ifdef TUNEFRAME_TORCH_CUDA
        if (cuda_ && !finished_) {
            try {
                cuda_->down.synchronize();
                cuda_->up.synchronize();
            } catch (...) {
                // Already unwinding from an error; a failed device has nothing left to drain.
            }
        }
#endif
    }

    void start_to_host(std::size_t index, at::Tensor& staging, const at::Tensor& gradient) {
#ifdef TUNEFRAME_TORCH_CUDA
        if (cuda_) {
            const c10::cuda::CUDAStreamGuard guard(cuda_->down);
            staging.copy_(gradient, /*non_blocking=*/true);
            cuda_->arrived[index].record(cuda_->down);
            return;
        }
#endif
        (void)index;
        staging.copy_(gradient);
    }

    // Blocks until start_to_host(index, ...) has landed in its staging buffer.
    void wait_to_host(std::size_t index) {
#ifdef TUNEFRAME_TORCH_CUDA
        if (cuda_) {
            cuda_->arrived[index].synchronize();
        }
#else
        (void)index;
#endif
    }

    void to_device(const at::Tensor& parameter, const at::Tensor& staging) {
#ifdef TUNEFRAME_TORCH_CUDA
        if (cuda_) {
            const c10::cuda::CUDAStreamGuard guard(cuda_->up);
            parameter.copy_(staging, /*non_blocking=*/true);
            return;
        }
#endif
        parameter.copy_(staging);
    }

    // Orders the compute stream after every copy back.
    void finish() {
#ifdef TUNEFRAME_TORCH_CUDA
        if (cuda_) {
            at::cuda::CUDAEvent uploaded;
            uploaded.record(cuda_->up);
            uploaded.block(cuda_->compute);
        }
#endif
        finished_ = true;
    }

private:
#ifdef TUNEFRAME_TORCH_CUDA
    struct CudaStreams {
        CudaStreams(std::size_t parameter_count, const c10::Device& device)
            : compute(c10::cuda::getCurrentCUDAStream(device.index()))
            , down(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index()))
            , up(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index()))
            , arrived(parameter_count) {
            // The gradients are final once the compute stream has run what is queued now:
            // the backward pass and any clipping.
            at::cuda::CUDAEvent backward_done;
            backward_done.record(compute);
            backward_done.block(down);
        }

        c10::cuda::CUDAStream compute;
        c10::cuda::CUDAStream down;
        c10::cuda::CUDAStream up;
        std::vector<at::cuda::CUDAEvent> arrived;
    };
    std::optional<CudaStreams> cuda_;
#endif
    bool finished_ = false;
};

} // namespace

AdamWCpuOffloadOptimizer::AdamWCpuOffloadOptimizer(NamedParameters parameters,
                                                   const AdamHyperParameters& hyper,
                                                   bool fp32_master_weights)
    : Optimizer("adamw-cpu-offload", std::move(parameters), hyper.lr, fp32_master_weights)
    , hyper_(hyper)
    , staging_(parameter_count()) {
    if (!hyper_.decoupled) {
        throw core::Error(core::ErrorCode::Internal,
                          "adamw-cpu-offload needs decoupled weight decay");
    }
    check_adam_hyper_parameters(hyper_);
}

bool AdamWCpuOffloadOptimizer::keeps_master(const at::Tensor& parameter) const {
    // A device parameter always has one: the update needs a float32 host tensor to work on.
    return !parameter.is_cpu() || Optimizer::keeps_master(parameter);
}

c10::Device AdamWCpuOffloadOptimizer::master_device(const at::Tensor&) const {
    return c10::Device(c10::kCPU);
}

void AdamWCpuOffloadOptimizer::init_state(std::size_t, const at::Tensor& working,
                                          StateTensors& state) {
    state["exp_avg"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
    state["exp_avg_sq"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
    state["step"] = at::zeros({}, at::TensorOptions().dtype(at::kFloat));
}

StateBytes AdamWCpuOffloadOptimizer::buffer_bytes() const {
    StateBytes bytes;
    for (const at::Tensor& buffer : staging_) {
        if (buffer.defined()) {
            bytes.cpu += buffer.numel() * static_cast<std::int64_t>(buffer.element_size());
        }
    }
    return bytes;
}

at::Tensor AdamWCpuOffloadOptimizer::host_gradient(std::size_t index) const {
    if (!staging_[index].defined()) {
        const at::Tensor gradient = parameter(index).grad().detach();
        return gradient.scalar_type() == at::kFloat ? gradient : gradient.to(at::kFloat);
    }
    return staging_[index].to(at::kFloat);
}

void AdamWCpuOffloadOptimizer::update_on_host(std::size_t index, const at::Tensor& gradient,
                                              const AdamHyperParameters& hyper) {
    StateTensors& state = this->state(index);
    const at::Tensor working = working_tensor(index);
    const AdamStepScalars scalars = adam_begin_step(state.at("step"), hyper);
    adam_apply(working, gradient, state.at("exp_avg"), state.at("exp_avg_sq"), scalars, hyper);
    if (staging_[index].defined()) {
        staging_[index].copy_(working);
    } else {
        write_back(index, working);
    }
}

std::vector<std::size_t> AdamWCpuOffloadOptimizer::prepare_step() {
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < parameter_count(); ++i) {
        const at::Tensor& param = parameter(i);
        if (!param.grad().defined()) {
            continue;
        }
        if (param.grad().layout() != at::kStrided || param.grad().device() != param.device()) {
            throw core::Error(core::ErrorCode::Internal,
                              "parameter \"" + parameter_name(i) +
                                  "\" needs a dense gradient on its own device");
        }
        // State and buffers are created here, so the worker only reads the containers.
        working_tensor(i);
        if (!param.is_cpu() && !staging_[i].defined()) {
            staging_[i] = at::empty(
                param.sizes(), param.options().device(c10::kCPU).pinned_memory(param.is_cuda()));
        }
        pending.push_back(i);
    }
    return pending;
}

c10::Device AdamWCpuOffloadOptimizer::staged_device(const std::vector<std::size_t>& pending) const {
    for (std::size_t index : pending) {
        if (staging_[index].defined()) {
            return parameter(index).device();
        }
    }
    return c10::Device(c10::kCPU);
}

void AdamWCpuOffloadOptimizer::step() {
    core::NoGradGuard no_grad;
    AdamHyperParameters hyper = hyper_;
    hyper.lr = lr();
    const std::vector<std::size_t> pending = prepare_step();
    HostTransfers transfers(parameter_count(), staged_device(pending));
    for (std::size_t index : pending) {
        if (staging_[index].defined()) {
            transfers.start_to_host(index, staging_[index], parameter(index).grad().detach());
        }
    }

    UpdateChannel channel;
    std::exception_ptr worker_error;
    std::thread worker([&] {
        core::NoGradGuard worker_no_grad;
        try {
            std::size_t index = 0;
            at::Tensor gradient;
            while (channel.pop(index, gradient)) {
                update_on_host(index, gradient, hyper);
                gradient = at::Tensor();
                channel.finish(index);
            }
        } catch (...) {
            worker_error = std::current_exception();
            channel.abort();
        }
    });
    const auto copy_back = [&](const std::vector<std::size_t>& finished) {
        for (std::size_t index : finished) {
            if (staging_[index].defined()) {
                transfers.to_device(parameter(index).detach(), staging_[index]);
            }
        }
    };
    try {
        for (std::size_t index : pending) {
            transfers.wait_to_host(index);
            if (!channel.push(index, host_gradient(index))) {
                break;
            }
            copy_back(channel.take_finished());
        }
    } catch (...) {
        channel.abort();
        worker.join();
        throw;
    }
    channel.close();
    worker.join();
    if (worker_error) {
        std::rethrow_exception(worker_error);
    }
    copy_back(channel.take_finished());
    transfers.finish();
}

} // namespace tuneframe::train
