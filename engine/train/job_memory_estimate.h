#pragma once

#include "common/training_job.h"
#include "engine/core/safetensors/checkpoint_inventory.h"
#include "engine/models/model_folder.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

// The pre-flight memory figure of a training job, per process and per phase, from the configs
// and weight headers alone (nothing is loaded). Like `inspect`'s estimate it counts the tensors
// the engine keeps, not allocator slack; bench/ measures the real numbers and the studio warns
// when a phase will not fit the chosen devices.
namespace tuneframe::train {

struct MemoryPart {
    std::string name; // "transformer weights", "optimizer state", "activations", ...
    // Empty: held for the whole phase. Otherwise parts of one stage live together and the
    // phase's stages come one after another (prepare: the text encoder, then the VAE).
    std::string stage;
    std::uint64_t bytes = 0;
};

struct PhaseMemory {
    std::string phase; // prepare | train | validation
    std::vector<MemoryPart> parts;
    bool skipped = false; // validation that the job never runs
    // What stays plus the largest stage; a sum at or past 2^63 is refused (core::Error
    // BadInput) rather than wrapped.
    std::uint64_t total() const;
};

struct JobMemoryEstimate {
    int processes = 1;
    std::int64_t swapped_blocks = 0; // memory.blocks_to_swap as this process swaps them
    int data_parallel = 1;
    int sequence_parallel = 1;
    int tensor_parallel = 1;
    int pipeline_parallel = 1;
    std::int64_t frames = 0; // the largest bucket: what the peak is computed for
    std::int64_t height = 0;
    std::int64_t width = 0;
    std::vector<PhaseMemory> phases;
    // What the same phases keep in host memory (pinned where a GPU copies from it): swapped
    // blocks, a parked expert, a full fine-tune's swapped gradients, host optimizer state. Only
    // the parts the engine moves there on purpose; the program and the data loader are not
    // counted.
    std::vector<PhaseMemory> host_phases;
    std::uint64_t peak() const;
    std::uint64_t host_peak() const;
    nlohmann::json to_json() const;
};

// model: the job's model folder, opened; components: its inventory (weights per component).
// processes: the workers that train
// (`launch`'s ranks), which the job's parallel plan splits into data, sequence and tensor groups.
// Under tensor parallelism the blocks' split weights, adapters, their gradients and optimizer
// state count 1/tp_size; activations count whole (an upper bound, not yet measured on GPUs).
// Under pipeline parallelism the weights, adapters, gradients and state count the largest
// stage's share of the blocks, and activations count whole: the first stage keeps pp_size
// micro-batches of its 1/pp_size of the blocks in flight under 1F1B. Rank 0 validates with a
// whole model of its own beside its stage. Two experts trained together (Wan 2.2 A14B) hold both
// experts' adapters and optimizer state but one expert's weights and activations; an expert the
// job leaves alone is loaded for validation. Wan 2.1 image-to-video's CLIP counts beside the VAE in
// prepare and in its own stage of validation.
//
// Block swap (memory.blocks_to_swap, counted within a pipeline stage): the device holds the
// resident blocks plus two swapped ones in flight (the running block and the next), the host
// the swapped blocks, pinned; a block weighs the held weights over the depth (the embeddings,
// about 1%, count with the blocks), and swapped blocks recompute in backward like checkpointed
// ones. Two experts trained together keep one expert's weights on the device; the other's wait
// on the host (memory.inactive_expert host) or are dropped and read back onto the host at its
// turn (disk: a stage of the host phase). Validation takes the experts to the device in turn,
// one expert the job does not train too, loaded on the host.
//
// memory.offload_activations: the recomputed blocks' inputs (one [batch, tokens, width] tensor
// each) wait in host memory between forward and backward ("offloaded activations", pinned);
// the device keeps two of them ("offloaded activations in flight": one copied down, one back).
//
// Every figure is computed without wrapping (models/memory_bytes.h): a model config or job whose
// figures reach 2^63 bytes is refused with core::Error BadInput; the families' config readers
// refuse sizes no model comes near, naming the config.json and the field.
JobMemoryEstimate estimate_job_memory(const common::TrainingJob& job,
                                      const models::ModelFolder& model,
                                      const std::vector<core::ComponentInventory>& components,
                                      int processes);

} // namespace tuneframe::train
