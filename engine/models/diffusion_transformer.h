#pragma once

#include "engine/core/tensor_io.h"
#include "engine/lora/quantized_weight.h"
#include "engine/models/gradient_checkpointing.h"
#include "engine/models/residency_observer.h"
#include "engine/models/tensor_parallel.h"
#include "engine/models/token_exchange.h"

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>
#include <torch/nn/module.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models {

struct TransformerLoadOptions {
    std::optional<torch::Dtype> dtype; // unset: the dtype the checkpoint stores
    torch::Device device = torch::kCPU;
    // The layers is_quantized_base_layer names are stored quantized as they are read, tensor by
    // tensor, so the host never holds them in `dtype` all at once (lora.base_quantization): the
    // values equal loading in `dtype` and then quantize_base().
    lora::BaseQuantization quantization = lora::BaseQuantization::None;
};

class ActivationOffload;
class BlockSwap;

// Where the frozen weights of an expert that is not training the current micro-batch wait
// (memory.inactive_expert).
enum class Parking {
    None, // at home: on the device (swapped blocks on the host)
    Host, // in host memory (pinned for a GPU)
    Disk, // dropped; read again from the model folder when its turn comes
};

// What a denoising transformer is given. Each family reads the members it knows and refuses
// inputs its variant needs but lacks; the tensors keep the family's own layout.
struct TransformerInputs {
    // The noisy latents with any conditioning channels beside them: CogVideoX [B, F, C, H, W],
    // Wan [B, C, F, H, W].
    at::Tensor hidden_states;
    at::Tensor encoder_hidden_states; // [B, L, text_dim]
    // [B] or [1], integer or float; Wan 2.2 TI2V also takes one per token: [B, tokens].
    at::Tensor timestep;
    at::Tensor encoder_hidden_states_image; // Wan 2.1 I2V: CLIP tokens [B, tokens, image_dim]
    at::Tensor ofs;                         // CogVideoX 1.5 I2V: [1] or [B]
    // What else a family reads, by the golden sets' names (CogVideoX: the pipeline's rotary
    // tables image_rotary_emb_cos/sin).
    std::map<std::string, at::Tensor> extra;
};

// What one pipeline stage hands the next (the tokens of this rank's run under sequence
// parallelism, and whatever else the family's later blocks need, such as the time embedding).
// The order and meaning of the parts are the family's; the schedule only sends and receives
// them, so every part must be a floating tensor whose gradient goes back to the stage before.
struct StageTokens {
    std::vector<at::Tensor> parts;
};

// What a pipeline stage's forward gives: the tokens for the next stage, or, from the last
// stage, the prediction.
struct StageOutput {
    StageTokens tokens;
    at::Tensor prediction;
};

// A family's denoising transformer as the trainer, the parallel plans, validation and the
// benchmarks use it, whatever its architecture: a stack of `num_blocks()` blocks between input
// embeddings and an output projection. Implementations register their children under the
// checkpoint's names (named_parameters() equal the diffusers keys) and build every Linear as a
// lora::LoRALinear, so adapters, quantized bases and tensor-parallel splits reach any layer.
class DiffusionTransformerImpl : public torch::nn::Module {
public:
    ~DiffusionTransformerImpl() override = default;

    // diffusers' class name ("CogVideoXTransformer3DModel"), for messages and config.json.
    virtual std::string class_name() const = 0;
    // config.json as diffusers writes it for this model.
    virtual nlohmann::json config_json() const = 0;

    // The dimensions of hidden_states, by name: {"batch", "frames", "channels", "height",
    // "width"} in the family's order.
    virtual std::vector<std::string> hidden_states_layout() const = 0;

    // -> the prediction in the layout of `inputs.hidden_states` (out_channels in place of the
    // input channels), in the model's dtype.
    virtual at::Tensor forward(const TransformerInputs& inputs) = 0;

    // Pipeline parallelism: forward() for blocks [begin, end) alone. The first stage (begin 0)
    // embeds the inputs; the others start from `carried`, the previous stage's output, and use
    // the inputs only for their shapes and for what each stage makes for itself (positional
    // tables). The last stage (end = num_blocks()) returns the prediction, the others their
    // tokens.
    virtual StageOutput forward_stage(const TransformerInputs& inputs, std::int64_t begin,
                                      std::int64_t end, const StageTokens* carried = nullptr) = 0;
    // The shapes of the parts a later stage receives for these inputs.
    virtual std::vector<std::vector<std::int64_t>>
    stage_token_shapes(const TransformerInputs& inputs) const = 0;
    // Keeps only what the stage of blocks [begin, end) runs: the other blocks, the input
    // embeddings (begin > 0) and the output layers (end < num_blocks()) give their memory back
    // and stop training. For good.
    virtual void keep_stage(std::int64_t begin, std::int64_t end) = 0;

    virtual std::int64_t num_blocks() const = 0;
    virtual std::int64_t num_attention_heads() const = 0;
    virtual torch::Dtype dtype() const = 0; // of the parameters

    // Splits every block's heads and feed-forward features over the ranks of `parallel`
    // (tensor parallelism): from then on each rank holds its share and every rank of the group
    // must run the same forward and backward. After any LoRA adapters; for good.
    virtual void split_blocks_over(const std::shared_ptr<TensorParallel>& parallel) = 0;
    // How the split model's parameters relate to the whole one's (empty before the split).
    virtual TensorParallelLayout tensor_parallel_layout() const = 0;
    const std::shared_ptr<TensorParallel>& tensor_parallel() const { return tensor_parallel_; }

    // Which Linear layers (by module name, "blocks.3.attn1.to_q") a quantized base stores in
    // int8 or fp8: the blocks' layers, which hold nearly all the weights. The embeddings and
    // output layers, where an error is least diluted, stay in the compute dtype.
    virtual bool is_quantized_base_layer(const std::string& module_name) const = 0;
    // Stores those layers quantized, one at a time, so the peak is the full-precision model plus
    // one layer; returns how many were quantized. LoRA adapters may come before or after; block
    // swap after.
    std::int64_t quantize_base(lora::BaseQuantization quantization);

    // Recompute the first `count` blocks (clamped to the depth) in backward instead of keeping
    // their activations (training only). The first ones, because backward reaches them last,
    // after the kept blocks' activations are freed.
    void set_checkpointed_blocks(std::int64_t count);
    std::int64_t checkpointed_blocks() const { return checkpointed_blocks_; }
    bool gradient_checkpointing() const { return checkpointed_blocks_ > 0; }
    void set_gradient_checkpointing(bool enabled) {
        set_checkpointed_blocks(enabled ? num_blocks() : 0);
    }
    // Recomputed blocks keep their attention outputs and skip attention when they recompute
    // (core::KeptAttention): most of checkpointing's time back for one token-width per block.
    void set_keep_attention(bool keep) { keep_attention_ = keep; }
    bool keeps_attention() const { return keep_attention_; }
    // Activation offload (memory.offload_activations; see ActivationOffload): each recomputed
    // block's saved input waits in host memory between forward and backward and comes back one
    // block ahead of its recomputation. Changes no number.
    void set_offload_activations(bool offload);
    bool offloads_activations() const { return activation_offload_ != nullptr; }
    // Splits each sample's tokens over the exchange's ranks (sequence parallelism); null runs
    // whole. Every rank of the group must run the same forward and backward.
    void set_token_exchange(std::shared_ptr<TokenExchange> exchange) {
        token_exchange_ = std::move(exchange);
    }
    const std::shared_ptr<TokenExchange>& token_exchange() const { return token_exchange_; }

    // Block swap (memory.blocks_to_swap; see BlockSwap): the last `count` blocks of [first, end)
    // (a pipeline stage's; the whole model by default) keep their weights but LoRA adapters in
    // host memory, pinned for a GPU `device`, and come to `device` one block ahead of use in
    // forward, in the recomputation and in backward, then go again; they always recompute in
    // backward (a graph would keep their weights alive). Set up last, once the base is quantized,
    // the adapters injected and frozen and any tensor-parallel split made: it moves the swapped
    // tensors to the host and leaves the rest where it is; to(device) moves the rest and no
    // longer the swapped tensors. Once only.
    void swap_blocks(std::int64_t count, c10::Device device, std::int64_t first = 0,
                     std::int64_t end = -1);
    std::int64_t swapped_blocks() const;
    // Tells `observer` what the weights do, under `name` ("transformer_2"): swapped blocks
    // arriving and leaving, parking.
    void set_residency_observer(std::shared_ptr<ResidencyObserver> observer, std::string name);
    const std::shared_ptr<ResidencyObserver>& residency_observer() const { return observer_; }
    const std::string& residency_name() const { return observer_name_; }
    // After the step's backward passes, before the optimizer: a full fine-tune's swapped weights
    // have every gradient on the host (the copies down have landed).
    void finish_gradients();

    // Moving the model moves the swapped blocks' weights no longer: they stay on the host.
    // Casting a model whose blocks swap is refused.
    using torch::nn::Module::to;
    void to(torch::Device device, torch::Dtype dtype, bool non_blocking = false) override;
    void to(torch::Dtype dtype, bool non_blocking = false) override;
    void to(torch::Device device, bool non_blocking = false) override;

    // The base's tensors by name on the host, as load_transformer gives them: what dropped
    // weights are read back from.
    using Reload = std::function<core::NamedTensors()>;
    // Two experts training in one process: the frozen weights (the base, buffers) of the one not
    // training leave the device, to the host or dropped (Parking::Disk); its trainable tensors
    // (adapters) go to or stay on `device`, where its optimizer state is. Swapped blocks stay on
    // the host (Host) or go too (Disk). From Disk to Host the dropped weights are read back onto
    // the host from `reload` (without one they stay dropped).
    void park(Parking where, c10::Device device, const Reload& reload = {});
    // Back at home on `device` (swapped blocks on the host), dropped weights read from `reload`.
    void unpark(c10::Device device, const Reload& reload);
    Parking parking() const { return parking_; }

protected:
    // Block `index`'s module, whose parameters and buffers swap.
    virtual torch::nn::Module& block_module(std::int64_t index) = 0;
    // Whether block `index` recomputes in backward: checkpointed, or swapped (and a graph is
    // being recorded).
    bool block_recomputes(std::int64_t index) const;
    // Runs block `index`'s `function` on `inputs`: checkpointed when it recomputes (the
    // trainable tensors it gives gradients to are the block's), its swapped weights on the
    // device while it runs, and the next swapped block's on their way.
    std::vector<at::Tensor> run_block_function(std::int64_t index, CheckpointedFunction function,
                                               const std::vector<at::Tensor>& inputs);

    std::shared_ptr<TensorParallel> tensor_parallel_;

private:
    std::vector<at::Tensor> run_swapped_block(std::int64_t index, CheckpointedFunction function,
                                              const std::vector<at::Tensor>& inputs,
                                              bool recomputes);
    // `hooks` with the block's first input (its token stream; the others, text and time
    // embeddings, are shared by every block) stashed in host memory when activations offload.
    CheckpointHooks with_activation_offload(std::int64_t index, CheckpointHooks hooks) const;
    void move_unswapped(torch::Device device, bool non_blocking);
    // Puts the dropped weights back from `reload`: on `device`, or on the host when `on_host`
    // (swapped ones on the host either way).
    void read_back(const Reload& reload, c10::Device device, bool on_host);

    std::int64_t checkpointed_blocks_ = 0;
    bool keep_attention_ = false;
    std::shared_ptr<TokenExchange> token_exchange_;
    std::shared_ptr<BlockSwap> block_swap_;
    std::shared_ptr<ActivationOffload> activation_offload_;
    std::shared_ptr<ResidencyObserver> observer_;
    std::string observer_name_;
    Parking parking_ = Parking::None;
    struct DroppedTensor {
        std::vector<std::int64_t> sizes;
        c10::ScalarType dtype;
    };
    std::map<std::string, DroppedTensor> dropped_; // what Parking::Disk dropped, by name
};

using DiffusionTransformer = std::shared_ptr<DiffusionTransformerImpl>;

// Writes config.json (config_json()) and the weights, LoRA adapters excluded, into `folder` in
// diffusers' layout, sharded past `max_shard_bytes`. Returns the weight file or index.
std::filesystem::path save_transformer_folder(const DiffusionTransformerImpl& transformer,
                                              const std::filesystem::path& folder,
                                              std::uint64_t max_shard_bytes = 5'000'000'000);

// Gives a module's weights' memory back and takes them out of training (what a pipeline stage
// does with the blocks it does not run).
void release_module(torch::nn::Module& module);

} // namespace tuneframe::models
