#include "engine/train/pipeline_schedule.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::train {
namespace {

// Tokens travel forward on tags 0-2 (video, text, embedding), their gradients back on 3-5.
constexpr int kForwardTag = 0;
constexpr int kBackwardTag = 3;

std::vector<at::Tensor> parts(const models::cogvideox::StageTokens& tokens) {
    return {tokens.hidden, tokens.encoder, tokens.emb};
}

// A part's gradient, or zeros where it had none (a part the stage did not use).
at::Tensor gradient_of(const at::Tensor& leaf) {
    return leaf.grad().defined() ? leaf.grad() : at::zeros_like(leaf);
}

} // namespace

PipelineSchedule::PipelineSchedule(dist::Communicator& stages, c10::ScalarType dtype,
                                   c10::Device device)
    : stages_(stages)
    , dtype_(dtype)
    , device_(device) {}

void PipelineSchedule::run(std::int64_t micro_batches, const PipelineStageWork& work) {
    const std::int64_t ahead =
        std::min<std::int64_t>(stages_.size() - stages_.rank() - 1, micro_batches);
    std::int64_t forwards = 0;
    std::int64_t backwards = 0;
    for (; forwards < ahead; ++forwards) {
        forward(forwards, work);
    }
    for (; forwards < micro_batches; ++forwards, ++backwards) {
        forward(forwards, work);
        backward(backwards + 1 == micro_batches, work);
    }
    for (; backwards < micro_batches; ++backwards) {
        backward(backwards + 1 == micro_batches, work);
    }
    for (auto& pending : sends_) {
        pending->wait();
    }
    sends_.clear();
}

void PipelineSchedule::forward(std::int64_t micro, const PipelineStageWork& work) {
    InFlight flight;
    if (!first()) {
        flight.received = receive(stages_.rank() - 1, kForwardTag, work.received_shapes(micro));
    }
    flight.result = work.forward(micro, first() ? nullptr : &flight.received);
    if (!last()) {
        send(flight.result.tokens, stages_.rank() + 1, kForwardTag);
    }
    in_flight_.push_back(std::move(flight));
}

void PipelineSchedule::backward(bool last_micro_batch, const PipelineStageWork& work) {
    InFlight flight = std::move(in_flight_.front());
    in_flight_.erase(in_flight_.begin());
    work.begin_backward(last_micro_batch);
    if (last()) {
        flight.result.loss.backward();
    } else {
        std::vector<at::Tensor> outputs;
        std::vector<at::Tensor> gradients;
        const std::vector<at::Tensor> sent = parts(flight.result.tokens);
        std::vector<std::vector<std::int64_t>> shapes;
        for (const at::Tensor& part : sent) {
            shapes.push_back(part.sizes().vec());
        }
        const std::vector<at::Tensor> received =
            parts(receive(stages_.rank() + 1, kBackwardTag, shapes));
        // Only what carries this stage's parameters (or its inputs') back: a frozen time
        // embedding, for one, does not.
        for (std::size_t i = 0; i < sent.size(); ++i) {
            if (sent[i].requires_grad()) {
                outputs.push_back(sent[i]);
                gradients.push_back(received[i]);
            }
        }
        if (!outputs.empty()) {
            torch::autograd::backward(outputs, gradients);
        }
    }
    work.end_backward();
    if (!first()) {
        const models::cogvideox::StageTokens& in = flight.received;
        send({gradient_of(in.hidden), gradient_of(in.encoder), gradient_of(in.emb)},
             stages_.rank() - 1, kBackwardTag);
    }
}

models::cogvideox::StageTokens
PipelineSchedule::receive(int peer, int first_tag,
                          const std::vector<std::vector<std::int64_t>>& shapes) {
    std::vector<at::Tensor> tensors;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        at::Tensor tensor = at::empty(shapes[i], at::TensorOptions(dtype_).device(device_));
        stages_.recv(tensor, peer, first_tag + static_cast<int>(i));
        // A leaf, so backward leaves its gradient here to send back.
        tensors.push_back(tensor.set_requires_grad(true));
    }
    return {tensors[0], tensors[1], tensors[2]};
}

void PipelineSchedule::send(const models::cogvideox::StageTokens& tokens, int peer, int first_tag) {
    const std::vector<at::Tensor> tensors = parts(tokens);
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        sends_.push_back(stages_.send_async(tensors[i].detach().contiguous(), peer,
                                            first_tag + static_cast<int>(i)));
    }
}

} // namespace tuneframe::train
