#include "engine/train/adamw_cpu_offload_optimizer.h"

#include "engine/core/error.h"
#include "engine/core/grad_mode.h"

#include <ATen/ATen.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

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

at::Tensor AdamWCpuOffloadOptimizer::host_gradient(std::size_t index) {
    const at::Tensor gradient = parameter(index).grad().detach();
    if (gradient.is_cpu()) {
        return gradient.scalar_type() == at::kFloat ? gradient : gradient.to(at::kFloat);
    }
    at::Tensor& staging = staging_[index];
    // Blocking: the copy waits on the current stream for the backward pass, and the buffer's
    // previous copy back (issued on the same stream) has finished before it is overwritten.
    staging.copy_(gradient);
    return staging.to(at::kFloat);
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

void AdamWCpuOffloadOptimizer::step() {
    core::NoGradGuard no_grad;
    AdamHyperParameters hyper = hyper_;
    hyper.lr = lr();
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
                const at::Tensor param = parameter(index).detach();
                param.copy_(staging_[index], /*non_blocking=*/param.is_cuda());
            }
        }
    };
    try {
        for (std::size_t index : pending) {
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
}

} // namespace tuneframe::train
