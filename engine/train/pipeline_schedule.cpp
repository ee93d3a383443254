#include "engine/train/pipeline_schedule.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

namespace tuneframe::train {
namespace {

// A stage's parts travel forward on tags 0-15, one each, and their gradients back on 16-31.
constexpr int kForwardTag = 0;
constexpr int kBackwardTag = 16;
constexpr std::size_t kMostParts = kBackwardTag - kForwardTag;

const std::vector<at::Tensor>& parts(const models::StageTokens& tokens) {
    return tokens.parts;
}

// What a stage received; nothing on the first stage, which receives nothing.
models::StageTokens tokens_of(std::vector<at::Tensor> parts) {
    return {std::move(parts)};
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

// Megatron-LM's forward_backward_pipelining_without_interleaving, step for step.
void PipelineSchedule::run(std::int64_t micro_batches, const PipelineStageWork& work) {
    const int previous = first() ? -1 : stages_.rank() - 1;
    const int next = last() ? -1 : stages_.rank() + 1;
    const auto shapes = [&](std::int64_t micro) {
        return first() ? Shapes{} : work.received_shapes(micro);
    };
    const std::int64_t ahead =
        std::min<std::int64_t>(stages_.size() - stages_.rank() - 1, micro_batches);
    const std::int64_t steady = micro_batches - ahead;
    std::int64_t micro = 0;
    for (; micro < ahead; ++micro) {
        const auto input = exchange({}, -1, 0, shapes(micro), previous, kForwardTag);
        const StageResult& out = forward(micro, tokens_of(input), work);
        exchange(parts(out.tokens), next, kForwardTag, {}, -1, 0);
    }
    std::vector<at::Tensor> input;
    if (steady > 0) {
        input = exchange({}, -1, 0, shapes(micro), previous, kForwardTag);
    }
    std::int64_t backwards = 0;
    for (std::int64_t i = 0; i < steady; ++i, ++micro, ++backwards) {
        const StageResult& out = forward(micro, tokens_of(input), work);
        const std::vector<at::Tensor> sent = last() ? std::vector<at::Tensor>{} : parts(out.tokens);
        const auto gradients = exchange(sent, next, kForwardTag,
                                        last() ? Shapes{} : output_shapes(), next, kBackwardTag);
        const auto input_gradients = backward(gradients, backwards + 1 == micro_batches, work);
        const bool more = i + 1 < steady;
        input = exchange(input_gradients, previous, kBackwardTag,
                         more ? shapes(micro + 1) : Shapes{}, more ? previous : -1, kForwardTag);
    }
    for (; backwards < micro_batches; ++backwards) {
        const auto gradients =
            exchange({}, -1, 0, last() ? Shapes{} : output_shapes(), next, kBackwardTag);
        const auto input_gradients = backward(gradients, backwards + 1 == micro_batches, work);
        exchange(input_gradients, previous, kBackwardTag, {}, -1, 0);
    }
}

const StageResult& PipelineSchedule::forward(std::int64_t micro, models::StageTokens received,
                                             const PipelineStageWork& work) {
    InFlight flight;
    flight.received = std::move(received);
    flight.result = work.forward(micro, first() ? nullptr : &flight.received);
    in_flight_.push_back(std::move(flight));
    return in_flight_.back().result;
}

std::vector<at::Tensor> PipelineSchedule::backward(const std::vector<at::Tensor>& gradients,
                                                   bool last_one, const PipelineStageWork& work) {
    InFlight flight = std::move(in_flight_.front());
    in_flight_.erase(in_flight_.begin());
    work.begin_backward(last_one);
    if (last()) {
        flight.result.loss.backward();
    } else {
        // Only what carries this stage's parameters (or its inputs') back: a frozen time
        // embedding, for one, does not.
        const std::vector<at::Tensor> sent = parts(flight.result.tokens);
        std::vector<at::Tensor> outputs;
        std::vector<at::Tensor> incoming;
        for (std::size_t i = 0; i < sent.size(); ++i) {
            if (sent[i].requires_grad()) {
                outputs.push_back(sent[i]);
                incoming.push_back(gradients.at(i));
            }
        }
        if (!outputs.empty()) {
            torch::autograd::backward(outputs, incoming);
        }
    }
    work.end_backward();
    if (first()) {
        return {};
    }
    std::vector<at::Tensor> gradients_of_received;
    for (const at::Tensor& part : flight.received.parts) {
        gradients_of_received.push_back(gradient_of(part));
    }
    return gradients_of_received;
}

std::vector<at::Tensor> PipelineSchedule::exchange(const std::vector<at::Tensor>& sends,
                                                   int send_peer, int send_tag,
                                                   const Shapes& receive_shapes, int receive_peer,
                                                   int receive_tag) {
    if (sends.size() > kMostParts || receive_shapes.size() > kMostParts) {
        throw std::logic_error(
            "a pipeline stage hands on more parts than the schedule has tags for");
    }
    std::vector<dist::Transfer> transfers;
    if (send_peer >= 0) {
        for (std::size_t i = 0; i < sends.size(); ++i) {
            transfers.push_back(
                {sends[i].detach().contiguous(), send_peer, send_tag + static_cast<int>(i), true});
        }
    }
    std::vector<at::Tensor> received;
    if (receive_peer >= 0) {
        for (std::size_t i = 0; i < receive_shapes.size(); ++i) {
            received.push_back(
                at::empty(receive_shapes[i], at::TensorOptions(dtype_).device(device_)));
            transfers.push_back(
                {received.back(), receive_peer, receive_tag + static_cast<int>(i), false});
        }
    }
    if (!transfers.empty()) {
        stages_.transfer(transfers);
    }
    // Leaves, so backward leaves their gradients here to send back.
    for (at::Tensor& tensor : received) {
        tensor.set_requires_grad(true);
    }
    return received;
}

PipelineSchedule::Shapes PipelineSchedule::output_shapes() const {
    Shapes shapes;
    for (const at::Tensor& part : parts(in_flight_.front().result.tokens)) {
        shapes.push_back(part.sizes().vec());
    }
    return shapes;
}

} // namespace tuneframe::train
