#include "engine/train/trainer.h"

#include "common/remove_tree.h"
#include "engine/core/device/memory_stats.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"
#include "engine/dist/distributed_context.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/keyed_generator.h"
#include "engine/models/model_family.h"
#include "engine/train/checkpoint_recovery.h"
#include "engine/train/expert_residency.h"
#include "engine/train/optim/clip_grad_norm.h"
#include "engine/train/optim/lr_schedule.h"
#include "engine/train/optim/optimizer_factory.h"
#include "engine/train/pipeline_schedule.h"
#include "engine/train/plan_exchange.h"
#include "engine/train/run_command_handler.h"
#include "engine/train/run_experts.h"
#include "engine/train/sampling/distributed_bucket_sampler.h"
#include "engine/train/sampling/training_batch_maker.h"
#include "engine/train/training_checkpoint.h"
#include "engine/train/validation_pass.h"

#include <torch/torch.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string fnv1a_hex(const std::string& text) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) {
        hash = (hash ^ c) * 0x100000001b3ULL;
    }
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
    return buffer;
}

c10::ScalarType precision_dtype(const std::string& precision) {
    if (precision == "bf16") {
        return c10::kBFloat16;
    }
    return precision == "fp16" ? c10::kHalf : c10::kFloat;
}

// One device per rank: a distributed run's model lives where its groups work (cuda:LOCAL_RANK
// under NCCL), so every collective's tensors are already there.
c10::Device job_device(const std::string& device, dist::DistributedContext* dist) {
    if (dist) {
        return dist->world().device();
    }
    if (device == "auto") {
        return core::cuda_usable() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
    }
    return models::parse_device(device);
}

// Whether a state key belongs to one of `owned`'s parameters ("<name>.<key>") or to the
// optimizer as a whole: what a rank reads from a checkpoint.
StateFilter owned_state_filter(const NamedParameters& owned) {
    auto names = std::make_shared<std::set<std::string>>();
    for (const auto& [name, parameter] : owned) {
        names->insert(name);
    }
    return [names](const std::string& key) {
        const std::size_t dot = key.rfind('.');
        return dot == std::string::npos || names->count(key.substr(0, dot)) > 0;
    };
}

OptimizerOptions optimizer_options(const common::OptimizerSettings& o) {
    OptimizerOptions options;
    options.lr = o.lr;
    options.beta1 = o.beta1;
    options.beta2 = o.beta2;
    options.beta3 = o.beta3;
    options.weight_decay = o.weight_decay;
    options.epsilon = o.eps;
    return options;
}

// Bucket key "FxHxW" of a sample's latents, for messages.
std::string shape_text(const at::Tensor& tensor) {
    return c10::str(tensor.sizes());
}

} // namespace

std::string job_fingerprint(const common::TrainingJob& job) {
    nlohmann::json numbers = job.to_json();
    // Where idle weights wait (memory) changes no number, so a run resumes with more or fewer
    // blocks swapped.
    for (const char* key :
         {"checkpoints", "validation", "device", "max_steps", "epochs", "memory"}) {
        numbers.erase(key);
    }
    // How gradients travel and how the model is split, not what they are: a run resumes under
    // another tensor-parallel size or ZeRO stage without a warning.
    for (const char* key : {"bucket_mb", "tp_size", "pp_size", "zero_stage"}) {
        numbers["parallel"].erase(key);
    }
    numbers["dataset"].erase("manifest");
    numbers["dataset"].erase("cache_dir");
    return fnv1a_hex(numbers.dump());
}

struct Trainer::Impl {
    common::TrainingJob job;
    fs::path model_folder;
    fs::path run_folder;
    std::unique_ptr<TrainingDataset> dataset;
    core::EventEmitter& events;
    CommandChannel* commands;
    dist::DistributedContext* dist;
    std::unique_ptr<PlanExchange> exchange; // with `dist`
    std::shared_ptr<models::ResidencyObserver> residency_observer;
    std::unique_ptr<ExpertResidency> residency; // two experts trained together
    NamedParameters trainable; // every trainable parameter (the optimizer may own a shard)
    dist::CollectiveCounts reported_counts;

    std::unique_ptr<models::ModelFolder> model;
    c10::Device device = c10::kCPU;
    c10::ScalarType dtype = c10::kFloat;
    // The trained experts by index (the one transformer of most models), and the first of them,
    // which the parallel plans split.
    std::map<int, models::DiffusionTransformer> experts;
    models::DiffusionTransformer transformer;
    std::unique_ptr<Optimizer> optimizer;
    std::unique_ptr<LRSchedule> schedule;
    std::unique_ptr<models::TrainingObjective> objective;
    std::unique_ptr<DistributedBucketSampler> sampler;
    CheckpointStore store;
    TrainerState state;
    std::unique_ptr<TrainingBatchMaker> batch_maker;
    std::int64_t total_steps = 0;
    std::vector<std::vector<std::int64_t>> epoch_batches;
    std::int64_t loaded_epoch = -1;
    std::int64_t step_gradient_bytes = 0;
    // The highest allocator peak before a validation stage reset it (memory events report the
    // peak since training began).
    std::int64_t peak_before_reset = 0;
    fs::path last_checkpoint;

    Impl(common::TrainingJob job_, fs::path model_, fs::path run_,
         std::unique_ptr<TrainingDataset> dataset_, core::EventEmitter& events_,
         CommandChannel* commands_, dist::DistributedContext* dist_,
         std::shared_ptr<models::ResidencyObserver> residency_)
        : job(std::move(job_))
        , model_folder(std::move(model_))
        , run_folder(std::move(run_))
        , dataset(std::move(dataset_))
        , events(events_)
        , commands(commands_)
        , dist(dist_)
        , residency_observer(std::move(residency_))
        , model(models::open_model_folder(model_folder))
        , store(run_folder) {}

    bool main_rank() const { return !dist || dist->is_main(); }

    void log(const std::string& level, const std::string& message) {
        if (main_rank()) {
            events.log(level, message);
        }
    }

    void wait_for_all() {
        if (dist) {
            dist->world().barrier();
        }
    }

    // The most gradient bytes this rank held during the step, as its plan counts them; asked
    // once its gradients are exchanged, before the optimizer lets them go.
    std::int64_t gradient_bytes() const {
        if (exchange) {
            return exchange->gradient_bytes();
        }
        std::int64_t bytes = 0;
        for (const auto& [name, parameter] : trainable) {
            if (parameter.grad().defined()) {
                bytes += parameter.grad().numel() *
                         static_cast<std::int64_t>(parameter.grad().element_size());
            }
        }
        return bytes;
    }

    // Every rank's memory, as the `mem` array of step and memory events (a collective).
    nlohmann::json memory_of_ranks(std::int64_t gradients = 0) {
        constexpr std::size_t kFields = 6;
        core::MemoryStats own = core::memory_stats(device);
        // The allocator's peak is reset for each validation stage; peaks before that count.
        own.peak = std::max(own.peak, peak_before_reset);
        const StateBytes state_bytes = optimizer ? optimizer->state_bytes() : StateBytes{};
        std::vector<std::int64_t> values{own.allocated, own.reserved,        own.peak,
                                         own.total,     state_bytes.total(), gradients};
        if (dist) {
            values = dist::all_gather_values(dist->world(), values);
        }
        nlohmann::json ranks = nlohmann::json::array();
        for (std::size_t r = 0; r < values.size() / kFields; ++r) {
            const std::int64_t* value = values.data() + r * kFields;
            ranks.push_back({{"rank", r},
                             {"allocated", value[0]},
                             {"reserved", value[1]},
                             {"peak", value[2]},
                             {"total", value[3]},
                             {"optimizer_state", value[4]},
                             {"gradients", value[5]}});
        }
        return ranks;
    }

    // Rank 0's collectives since the last step event: how much a plan really exchanges.
    nlohmann::json communication_since_last_step() {
        const dist::CollectiveCounts now = dist->counts();
        const dist::CollectiveCounts& then = reported_counts;
        nlohmann::json comm = {{"bytes", now.bytes - then.bytes},
                               {"all_reduce", now.all_reduce - then.all_reduce},
                               {"reduce_scatter", now.reduce_scatter - then.reduce_scatter},
                               {"all_gather", now.all_gather - then.all_gather},
                               {"all_to_all", now.all_to_all - then.all_to_all},
                               {"broadcast", now.broadcast - then.broadcast},
                               {"send", now.send - then.send},
                               {"recv", now.recv - then.recv}};
        reported_counts = now;
        return comm;
    }

    // Rank 0's memory alone, for the stages of a validation only rank 0 runs: `peak` is the
    // stage's own, counted from its start.
    void emit_stage_memory(const std::string& phase) {
        const core::MemoryStats own = core::memory_stats(device);
        const StateBytes state_bytes = optimizer ? optimizer->state_bytes() : StateBytes{};
        nlohmann::json mem = nlohmann::json::array({{{"rank", 0},
                                                     {"allocated", own.allocated},
                                                     {"reserved", own.reserved},
                                                     {"peak", own.peak},
                                                     {"total", own.total},
                                                     {"optimizer_state", state_bytes.total()},
                                                     {"gradients", 0}}});
        events.emit(protocol::EventType::Memory,
                    {{"phase", phase}, {"step", state.step}, {"mem", mem}});
    }

    void emit_memory(const char* phase) {
        nlohmann::json mem = memory_of_ranks();
        if (main_rank()) {
            events.emit(protocol::EventType::Memory,
                        {{"phase", phase}, {"step", state.step}, {"mem", mem}});
        }
    }

    // The transformer as the job trains it, whole: loaded in the job's dtype on `where` (the
    // base quantized as it is read), checkpointing set, the adapters injected, and only what
    // trains trainable.
    models::DiffusionTransformer load_model(c10::Device where, int expert) {
        // Before loading: an fp8 base on a LibTorch without fp8 fails at once.
        const lora::BaseQuantization quantization =
            lora::parse_base_quantization(job.lora.base_quantization);
        models::TransformerLoadOptions load;
        load.dtype = dtype;
        load.device = where;
        // Validation samples with this quantized base too, and exports load the base afresh.
        load.quantization = quantization;
        models::DiffusionTransformer transformer = model->load_transformer(load, expert);
        transformer->set_checkpointed_blocks(model->transformer_memory()->checkpointed_blocks(
            job.gradient_checkpointing, job.checkpointed_blocks));
        transformer->set_keep_attention(job.checkpoint_keeps_attention);
        transformer->set_offload_activations(job.memory.offload_activations);
        if (residency_observer) {
            transformer->set_residency_observer(residency_observer,
                                                run_experts::folder_name(expert));
        }
        if (job.mode == "lora") {
            lora::LoRAConfig config;
            config.rank = job.lora.rank;
            config.alpha = job.lora.alpha;
            config.target_modules = job.lora.targets;
            config.init =
                job.lora.init == "gaussian" ? lora::LoRAInit::Gaussian : lora::LoRAInit::Kaiming;
            // The adapters' initial values come from the global generator: seed it from the
            // job so the same job starts from the same adapter, and each expert from its own
            // key so two experts do not start from the same adapter.
            torch::manual_seed(
                expert == 0
                    ? models::keyed_seed(job.seed, 0, 0, models::DrawPurpose::Noise)
                    : models::keyed_seed(job.seed, 0, expert, models::DrawPurpose::Adapter));
            lora::inject_lora(*transformer, config);
            transformer->to(where);
            lora::freeze_all_but_lora(*transformer);
        } else {
            for (auto& parameter : transformer->parameters()) {
                parameter.set_requires_grad(true);
            }
        }
        return transformer;
    }

    // The base's tensors of `expert` as load_model reads them, on the host: what a parked
    // expert's dropped weights are read back from.
    core::NamedTensors base_tensors(int expert) const {
        models::TransformerLoadOptions load;
        load.dtype = dtype;
        load.device = c10::kCPU;
        load.quantization = lora::parse_base_quantization(job.lora.base_quantization);
        const models::DiffusionTransformer base = model->load_transformer(load, expert);
        core::NamedTensors tensors;
        for (const auto& item : base->named_parameters()) {
            tensors.emplace_back(item.key(), item.value());
        }
        for (const auto& item : base->named_buffers()) {
            tensors.emplace_back(item.key(), item.value());
        }
        return tensors;
    }

    // Where a loaded transformer's weights live while it trains: the last blocks of this rank's
    // stage (memory.blocks_to_swap) on the host and the rest on the device for the expert that
    // trains first; the others parked (memory.inactive_expert).
    void hold(models::DiffusionTransformerImpl& held, bool active, bool loaded_on_host) {
        const auto [first, end] = exchange
                                      ? exchange->stage_blocks()
                                      : std::pair<std::int64_t, std::int64_t>{0, held.num_blocks()};
        held.swap_blocks(job.memory.blocks_to_swap, device, first, end);
        if (!active) {
            held.park(ExpertResidency::parking_of(job.memory.inactive_expert), device);
        } else if (loaded_on_host) {
            held.to(device);
        }
    }

    void set_up_model() {
        device = job_device(job.device, dist);
        dtype = precision_dtype(job.precision);
        models::check_placement({dtype, device});
        if (job.task == "i2v" && !model->supports("i2v")) {
            throw core::Error(core::ErrorCode::BadInput,
                              "The job trains image-to-video but '" + model_folder.string() +
                                  "' is a text-to-video model.",
                              "Set task to t2v, or choose an image-to-video model.");
        }
        if (job.task == "t2v" && !model->supports("t2v")) {
            throw core::Error(core::ErrorCode::BadInput,
                              "'" + model_folder.string() +
                                  "' is an image-to-video model but the job's task is t2v.",
                              "Set task to i2v.");
        }
        const std::vector<int> trained = run_experts::trained(job, model->experts());
        if (dist && trained.size() > 1) {
            throw core::Error(core::ErrorCode::BadInput,
                              "Training both experts of '" + model_folder.string() +
                                  "' in one run works on a single process, and this run has " +
                                  std::to_string(dist->world_size()) + ".",
                              "Train one expert per run (flow_matching.expert high_noise, then "
                              "low_noise), or train both on one GPU.");
        }
        // A plan that splits the model (pipeline stages, tensor-parallel shards), block swap and a
        // second expert load the model on the host and move to the device only what this rank
        // runs there: a model too large for one GPU, the reason to split or swap it, never exists
        // whole there, nor do two experts.
        const bool splits = dist && (dist->pp_size() > 1 || dist->tp_size() > 1);
        const bool on_host = splits || job.memory.blocks_to_swap > 0 || trained.size() > 1;
        for (const int expert : trained) {
            experts[expert] = load_model(on_host ? c10::Device(c10::kCPU) : device, expert);
            if (!splits) {
                // Before the next expert loads, so the host holds one unparked expert at a time.
                hold(*experts[expert], expert == trained.front(), on_host);
            }
        }
        transformer = experts.at(trained.front());
        if (dist) {
            exchange = std::make_unique<PlanExchange>(*dist, job);
            exchange->split(*transformer);
            warn_of_pipeline_bubble();
        }
        if (splits) {
            hold(*transformer, true, true);
        }
        if (experts.size() > 1) {
            residency = std::make_unique<ExpertResidency>(
                experts, device, ExpertResidency::parking_of(job.memory.inactive_expert),
                [this](int expert) { return base_tensors(expert); });
        }
        for (const auto& [expert, trained_transformer] : experts) {
            for (const auto& item : trained_transformer->named_parameters()) {
                if (item.value().requires_grad()) {
                    trainable.emplace_back(run_experts::checkpoint_prefix(expert) + item.key(),
                                           item.value());
                }
            }
            trained_transformer->train();
        }
        optimizer = make_optimizer(job.optimizer.name,
                                   exchange ? exchange->join(trainable, *transformer) : trainable,
                                   optimizer_options(job.optimizer));
        objective = model->objective(job, {dtype, device});
    }

    // Under 1F1B a stage idles (P - 1) / (M + P - 1) of each step: most of it when the step
    // has fewer micro-batches M than stages P.
    void warn_of_pipeline_bubble() {
        const std::int64_t stages = dist->pp_size();
        if (stages < 2 || job.gradient_accumulation >= stages) {
            return;
        }
        log("warning", "The step's " + std::to_string(job.gradient_accumulation) +
                           " batch(es) pass through " + std::to_string(stages) +
                           " pipeline stages, which wait for each other most of the step. Set "
                           "gradient_accumulation to at least " +
                           std::to_string(stages) + " (several times more keeps them busier).");
    }

    void set_up_data() {
        std::vector<std::string> buckets;
        for (std::int64_t i = 0; i < dataset->size(); ++i) {
            buckets.push_back(dataset->bucket(i));
        }
        sampler = std::make_unique<DistributedBucketSampler>(std::move(buckets), job.batch_size,
                                                             job.seed, dist ? dist->dp_rank() : 0,
                                                             dist ? dist->dp_size() : 1);
        const std::int64_t steps_per_epoch = std::max<std::int64_t>(
            1, (sampler->batches_per_epoch() + job.gradient_accumulation - 1) /
                   job.gradient_accumulation);
        total_steps = job.max_steps > 0 ? job.max_steps : job.epochs * steps_per_epoch;
        LRScheduleOptions options;
        options.name = job.lr_schedule.name;
        options.warmup_steps = job.lr_schedule.warmup_steps;
        options.training_steps = total_steps;
        options.num_cycles = static_cast<double>(job.lr_schedule.cycles);
        options.power = job.lr_schedule.power;
        schedule = std::make_unique<LRSchedule>(options, job.optimizer.lr);
        at::Tensor empty_prompt;
        if (job.dataset.caption_dropout > 0) {
            const std::unique_ptr<models::TextEncoder> encoder =
                model->text_encoder({dtype, device});
            empty_prompt = encoder->encode("", static_cast<int>(model->text_length()))[0];
            encoder->release();
        }
        batch_maker = std::make_unique<TrainingBatchMaker>(*dataset, *objective, job,
                                                           std::move(empty_prompt));
    }

    void resume() {
        state.job_fingerprint = job_fingerprint(job);
        state.dataset_fingerprint = dataset->fingerprint();
        state.loss_scale = job.precision == "fp16" ? 65536.0 : 1.0;
        if (main_rank()) {
            for (const fs::path& debris : store.remove_debris()) {
                log("info", "Removed '" + debris.string() + "', left by an interrupted run.");
            }
        }
        ResumeChoice choice = choose_resume_checkpoint(
            store, owned_state_filter(optimizer->parameters()), dist ? &dist->world() : nullptr);
        set_aside_damaged(choice);
        std::optional<LoadedCheckpoint>& loaded = choice.loaded;
        if (!loaded) {
            return;
        }
        if (exchange) {
            exchange->cut(loaded->trainable);
            exchange->cut(loaded->optimizer);
        }
        restore_trainable(*loaded, trainable);
        optimizer->load_state_tensors(loaded->optimizer);
        for (const std::string& warning : adopt_state(state, *loaded)) {
            log("warning", warning);
        }
        last_checkpoint = loaded->folder;
        log("info", "Resumed from " + loaded->folder.string() + " at step " +
                        std::to_string(state.step) + ".");
    }

    // Damaged checkpoints newer than the one resumed from leave the list (their files kept), so
    // the run neither trips on them again nor counts them among those it keeps.
    void set_aside_damaged(const ResumeChoice& choice) {
        if (!main_rank()) {
            return;
        }
        for (const DamagedCheckpoint& damaged : choice.damaged) {
            const fs::path aside = store.set_aside(damaged.folder);
            log("warning", "Checkpoint " + damaged.folder.filename().string() +
                               " cannot be read (" + damaged.reason + "); it was moved to '" +
                               aside.string() + "' and the run resumes from " +
                               choice.loaded->folder.filename().string() + ".");
        }
    }

    // A kill during the validation that follows a checkpoint loses it unless the resumed run
    // does it again. Rank 0's view of the folder decides, for every rank.
    bool validation_was_interrupted() {
        const std::int64_t every = job.validation.every_steps;
        bool interrupted = state.step > 0 && every > 0 && state.step % every == 0 &&
                           !ValidationPass::is_complete(run_folder / "validation" /
                                                        ("step-" + std::to_string(state.step)));
        if (dist) {
            interrupted = dist::broadcast_value(dist->world(), interrupted ? 1 : 0, 0) != 0;
        }
        return interrupted;
    }

    std::vector<std::int64_t> next_batch() {
        if (loaded_epoch != state.epoch) {
            epoch_batches = sampler->epoch(state.epoch);
            loaded_epoch = state.epoch;
        }
        if (state.batch_in_epoch >= static_cast<std::int64_t>(epoch_batches.size())) {
            ++state.epoch;
            state.batch_in_epoch = 0;
            epoch_batches = sampler->epoch(state.epoch);
            loaded_epoch = state.epoch;
        }
        return epoch_batches[static_cast<std::size_t>(state.batch_in_epoch++)];
    }

    bool gradients_finite() const {
        for (const auto& [name, parameter] : optimizer->parameters()) {
            if (parameter.grad().defined() &&
                !torch::isfinite(parameter.grad()).all().item<bool>()) {
                return false;
            }
        }
        return true;
    }

    // Sums of [loss, samples, tokens, non-finite gradients] over the data-parallel replicas
    // (the sequence- and tensor-parallel ranks of a replica report the same loss and share its
    // samples).
    std::array<double, 4> step_totals(double loss, std::int64_t samples, std::int64_t tokens,
                                      bool finite) {
        std::array<double, 4> totals{loss, static_cast<double>(samples),
                                     static_cast<double>(tokens), finite ? 0.0 : 1.0};
        if (!dist) {
            return totals;
        }
        const std::vector<double> sums =
            dist::all_reduce_values(dist->world(), {totals.begin(), totals.end()});
        const double copies = dist->sp_size() * dist->tp_size();
        totals = {sums[0] / copies, sums[1] / copies, sums[2] / copies, sums[3]};
        return totals;
    }

    GradNorm clip_gradients() {
        const double max_norm = job.max_grad_norm > 0 ? job.max_grad_norm : INFINITY;
        return exchange ? exchange->clip_gradients(optimizer->parameters(), max_norm)
                        : clip_grad_norm(optimizer->parameters(), max_norm);
    }

    // What the step's micro-batches gave this rank, until it is accounted for.
    struct MicroBatchTotals {
        std::vector<at::Tensor> losses; // on the device, one per micro-batch
        std::vector<std::string> shapes;
        std::int64_t samples = 0;
        std::int64_t tokens = 0;
    };

    // The step's losses, read back to the host once: summed over the micro-batches in double as
    // they always were, then over the replicas. A non-finite loss stops the run on every rank
    // (each sees the sum), naming this rank's batch when it was this rank's.
    std::array<double, 4> account_step(const MicroBatchTotals& micro, bool finite, double& loss_out,
                                       std::int64_t& samples, std::int64_t& tokens) {
        const at::Tensor host = at::cat(micro.losses).to(torch::kCPU, torch::kDouble);
        double loss_sum = 0;
        std::string bad_batch;
        for (std::int64_t i = 0; i < host.size(0); ++i) {
            const double value = host[i].item<double>();
            if (!std::isfinite(value) && bad_batch.empty()) {
                bad_batch = " (batch of " + micro.shapes[static_cast<std::size_t>(i)] + ")";
            }
            loss_sum += value;
        }
        const auto totals = step_totals(loss_sum / static_cast<double>(job.gradient_accumulation),
                                        micro.samples, micro.tokens, finite);
        if (!std::isfinite(totals[0])) {
            throw core::Error(core::ErrorCode::Nan,
                              "The loss became " + std::to_string(totals[0]) + " at step " +
                                  std::to_string(state.step + 1) +
                                  (bad_batch.empty() ? " on another rank" : bad_batch) + ".",
                              "Lower optimizer.lr, keep max_grad_norm at 1.0, or use bf16 or "
                              "fp32 precision; the run resumes from its last checkpoint.");
        }
        const double replicas = dist ? dist->dp_size() : 1;
        loss_out = totals[0] / replicas;
        samples += static_cast<std::int64_t>(totals[1]);
        tokens += static_cast<std::int64_t>(totals[2]);
        state.samples_seen += static_cast<std::int64_t>(totals[1]);
        return totals;
    }

    // Unscales fp16 gradients, or skips the step when they overflowed (returns false).
    bool fp16_gradients_usable(double overflowed_ranks) {
        if (overflowed_ranks > 0) {
            state.loss_scale /= 2;
            state.good_steps = 0;
            optimizer->zero_grad();
            for (auto& [name, parameter] : trainable) {
                parameter.mutable_grad() = at::Tensor();
            }
            log("warning", "fp16 gradients overflowed; the loss scale is now " +
                               std::to_string(state.loss_scale) + " and the step is repeated.");
            return false;
        }
        torch::NoGradGuard no_grad;
        for (const auto& [name, parameter] : optimizer->parameters()) {
            if (parameter.grad().defined()) {
                parameter.mutable_grad().div_(state.loss_scale);
            }
        }
        if (++state.good_steps >= 2000) {
            state.loss_scale *= 2;
            state.good_steps = 0;
        }
        return true;
    }

    std::uint64_t draw_of(std::int64_t micro) const {
        return static_cast<std::uint64_t>(state.step * job.gradient_accumulation + micro);
    }

    double backward_scale() const {
        return state.loss_scale / static_cast<double>(job.gradient_accumulation);
    }

    // The step's batches one after another through the whole model (or this rank's share of
    // every block).
    void run_micro_batches(MicroBatchTotals& micro_totals) {
        for (std::int64_t micro = 0; micro < job.gradient_accumulation; ++micro) {
            const std::vector<std::int64_t> indices = next_batch();
            const models::TrainingBatch batch = batch_maker->make(indices, draw_of(micro));
            if (residency) {
                residency->activate(batch.expert);
            }
            tell_trains(batch);
            const models::TrainingLoss loss = objective->forward(*experts.at(batch.expert), batch);
            micro_totals.losses.push_back(loss.loss.detach().reshape({1}));
            micro_totals.shapes.push_back(shape_text(batch.latents));
            if (exchange) {
                exchange->begin_backward(micro + 1 == job.gradient_accumulation);
            }
            (loss.loss * backward_scale()).backward();
            if (exchange) {
                exchange->end_backward();
            }
            micro_totals.samples += static_cast<std::int64_t>(indices.size());
            micro_totals.tokens += batch_maker->tokens(batch);
        }
    }

    void tell_trains(const models::TrainingBatch& batch) const {
        if (residency_observer) {
            models::ResidencyEvent event;
            event.kind = models::ResidencyEventKind::Trains;
            event.model = run_experts::folder_name(batch.expert);
            event.timesteps = batch.timesteps.to(c10::kCPU);
            residency_observer->record(event);
        }
    }

    // A micro-batch as every pipeline stage makes it: each stage draws the same batch (the
    // draws are keyed by sample and step), so only tokens and their gradients travel.
    struct StageBatch {
        std::vector<std::int64_t> indices;
        models::TrainingBatch batch;
        at::Tensor noisy_input;
        models::TransformerInputs inputs;
    };

    // The step's batches as micro-batches through this rank's pipeline stage (1F1B). The last
    // stage computes the loss, so it alone counts the step's losses, samples and tokens.
    void run_pipeline_micro_batches(MicroBatchTotals& micro_totals) {
        const std::int64_t begin = exchange->stage_blocks().first;
        const std::int64_t end = exchange->stage_blocks().second;
        const bool last_stage = dist->pp_rank() + 1 == dist->pp_size();
        std::map<std::int64_t, StageBatch> batches;
        // Made when first asked for: a later stage needs the shapes before it receives.
        auto batch_of = [&](std::int64_t micro) -> StageBatch& {
            auto found = batches.find(micro);
            if (found == batches.end()) {
                StageBatch made;
                made.indices = next_batch();
                made.batch = batch_maker->make(made.indices, draw_of(micro));
                made.inputs = objective->inputs(made.batch, made.noisy_input);
                found = batches.emplace(micro, std::move(made)).first;
            }
            return found->second;
        };
        PipelineStageWork work;
        work.received_shapes = [&](std::int64_t micro) {
            return transformer->stage_token_shapes(batch_of(micro).inputs);
        };
        work.forward = [&](std::int64_t micro, const models::StageTokens* received) {
            const StageBatch made = std::move(batch_of(micro));
            batches.erase(micro);
            models::StageOutput out = transformer->forward_stage(made.inputs, begin, end, received);
            micro_totals.shapes.push_back(shape_text(made.batch.latents));
            if (!last_stage) {
                micro_totals.losses.push_back(at::zeros({1}, at::TensorOptions(device)));
                return StageResult{std::move(out.tokens), {}};
            }
            const models::TrainingLoss loss =
                objective->loss(made.batch, made.noisy_input, out.prediction);
            micro_totals.losses.push_back(loss.loss.detach().reshape({1}));
            micro_totals.samples += static_cast<std::int64_t>(made.indices.size());
            micro_totals.tokens += batch_maker->tokens(made.batch);
            return StageResult{{}, loss.loss * backward_scale()};
        };
        work.begin_backward = [this](bool last) {
            exchange->begin_backward(last);
        };
        work.end_backward = [this] {
            exchange->end_backward();
        };
        PipelineSchedule(*dist->pipeline_group(), dtype, device)
            .run(job.gradient_accumulation, work);
    }

    // One optimizer step over `gradient_accumulation` batches. Returns false when an fp16 step
    // overflowed and was skipped. Nothing is read back to the host until the optimizer step is
    // queued (the loss and the gradient norm stay on the device until then), except under fp16,
    // whose overflow check must come first.
    bool train_step(double& loss_out, double& grad_norm_out, std::int64_t& samples,
                    std::int64_t& tokens) {
        MicroBatchTotals micro;
        if (dist && dist->pipeline_group()) {
            run_pipeline_micro_batches(micro);
        } else {
            run_micro_batches(micro);
        }
        for (const auto& [expert, trained_transformer] : experts) {
            trained_transformer->finish_gradients();
        }
        if (exchange) {
            exchange->synchronize_gradients(optimizer->parameters());
        }
        step_gradient_bytes = gradient_bytes();
        const bool fp16 = job.precision == "fp16";
        if (fp16) {
            const auto totals = account_step(micro, gradients_finite(), loss_out, samples, tokens);
            if (!fp16_gradients_usable(totals[3])) {
                return false;
            }
        }
        const at::Tensor grad_norm = clip_gradients().tensor;
        optimizer->set_lr(schedule->lr(state.step));
        optimizer->step();
        optimizer->zero_grad();
        if (exchange) {
            exchange->finish_step();
        }
        if (!fp16) {
            account_step(micro, true, loss_out, samples, tokens);
        }
        grad_norm_out = grad_norm.item<double>();
        ++state.step;
        return true;
    }

    // The whole model's tensors whatever the plan (a collective under tensor parallelism), so
    // a checkpoint resumes under any other plan.
    CheckpointContents contents() const {
        CheckpointContents c;
        c.state = state;
        c.trainable = exchange ? exchange->whole(trainable) : trainable;
        // ZeRO's optimizer shards stay with their stage (checkpoint() writes one per replica).
        const bool sharded = exchange && exchange->shards_optimizer_state();
        c.optimizer = exchange ? exchange->whole(optimizer->state_tensors(), !sharded)
                               : optimizer->state_tensors();
        c.job = job.to_json();
        c.trainable_metadata = {{"mode", job.mode},
                                {"rank", std::to_string(job.lora.rank)},
                                {"alpha", nlohmann::json(job.lora.alpha).dump()},
                                {"targets", nlohmann::json(job.lora.targets).dump()},
                                {"base_model", fs::absolute(model_folder).string()},
                                {"trigger_word", job.trigger_word}};
        return c;
    }

    // Rank 0 writes the checkpoint while the others wait. Under ZeRO-1/2 each replica first
    // stages its own optimizer shard next to it (one rank of each tensor-parallel group, with
    // the group's parts joined), and rank 0 moves the shards in (with their index) before the
    // checkpoint becomes visible, so it is still all or nothing.
    void checkpoint() {
        CheckpointContents c = contents();
        const bool sharded = exchange && exchange->shards_optimizer_state();
        if (sharded) {
            const fs::path staging =
                store.folder() / (".step-" + std::to_string(state.step) + ".shards");
            const int owners = dist->replica_group().size();
            // Each pipeline stage shards its own parameters' state over its replicas.
            const int stages = dist->pp_size();
            auto shard_file = [&](int stage, int owner) {
                const std::string of_stage =
                    stages > 1 ? "stage-" + std::to_string(stage) + "-" : std::string();
                return staging / ("optimizer-" + of_stage + "rank-" + std::to_string(owner) +
                                  "-of-" + std::to_string(owners) + ".safetensors");
            };
            if (dist->tp_rank() == 0) {
                fs::create_directories(staging);
                core::write_tensors(shard_file(dist->pp_rank(), dist->replica_group().rank()),
                                    c.optimizer);
            }
            wait_for_all();
            c.optimizer.clear();
            for (int stage = 0; stage < stages; ++stage) {
                for (int owner = 0; owner < owners; ++owner) {
                    c.optimizer_shards.push_back(shard_file(stage, owner));
                }
            }
        }
        if (main_rank()) {
            last_checkpoint = store.save(c);
            store.prune(job.checkpoints.keep);
            if (sharded) {
                std::error_code ignored;
                remove_tree(c.optimizer_shards.front().parent_path(), ignored);
            }
            events.emit(protocol::EventType::Checkpoint,
                        {{"step", state.step}, {"path", last_checkpoint.string()}});
        } else {
            last_checkpoint = store.folder() / ("step-" + std::to_string(state.step));
        }
        wait_for_all();
    }

    // Rank 0 samples with the whole model while the others wait at a barrier.
    void validate() {
        if (job.validation.prompts.empty()) {
            log("warning", "Validation was asked for, but the job has no validation prompts.");
            return;
        }
        emit_memory("before_validation");
        if (dist && dist->pipeline_group()) {
            validate_with_whole_model();
        } else {
            validate_with_own_model();
        }
        wait_for_all();
        core::release_cached_device_memory();
        emit_memory("after_validation");
        if (main_rank()) {
            events.phase("train");
        }
    }

    void validate_with_own_model() {
        // Rank 0's model is whole, or, under tensor parallelism, whole with its group's parts:
        // the group samples together and rank 0 alone keeps the videos.
        const bool in_rank_0s_group =
            dist && dist->tensor_group() && dist->dp_rank() == 0 && dist->sp_rank() == 0;
        if (main_rank() || in_rank_0s_group) {
            const std::shared_ptr<models::TokenExchange> exchange = transformer->token_exchange();
            transformer->set_token_exchange(nullptr);
            if (residency) {
                residency->wake_for_sampling();
            }
            if (main_rank()) {
                sample_validation_videos(sampling_experts(transformer));
            } else {
                help_sample_validation_videos();
            }
            if (residency) {
                residency->resume_training();
            }
            transformer->set_token_exchange(exchange);
        }
    }

    // Under pipeline parallelism no rank holds every block, so rank 0 samples with a model
    // of its own: loaded as training loaded it, with every stage's trainable values (a
    // collective of rank 0's pipeline), and dropped after. Sampling through the stages would
    // keep all but one GPU idle at every step of every denoising pass anyway.
    void validate_with_whole_model() {
        const core::NamedTensors values = exchange->whole(trainable);
        if (!main_rank()) {
            return;
        }
        const int expert = experts.begin()->first;
        const bool swaps = job.memory.blocks_to_swap > 0;
        models::DiffusionTransformer whole =
            load_model(swaps ? c10::Device(c10::kCPU) : device, expert);
        whole->swap_blocks(job.memory.blocks_to_swap, device);
        if (swaps) {
            whole->to(device);
        }
        {
            torch::NoGradGuard no_grad;
            const auto parameters = whole->named_parameters();
            const std::string prefix = run_experts::checkpoint_prefix(expert);
            for (const auto& [name, value] : values) {
                parameters[name.substr(prefix.size())].copy_(value);
            }
        }
        whole->eval();
        sample_validation_videos(sampling_experts(whole));
    }

    // A tensor-parallel peer of rank 0 runs the same passes for its part of every block; its
    // videos go to a scratch folder, removed at once.
    void help_sample_validation_videos() {
        const ValidationPass pass(*model, job, {dtype, device});
        const fs::path scratch =
            run_folder / "validation" /
            (".rank-" + std::to_string(dist->rank()) + "-step-" + std::to_string(state.step));
        pass.run(sampling_experts(transformer), scratch, [](const std::string&) {});
        std::error_code ignored;
        remove_tree(scratch, ignored);
    }

    // Rank 0's part of a validation: each stage's memory (T5, image, denoise, decode) becomes
    // its own phase of the memory table.
    // Every expert the pipeline samples with: the trained ones (`primary` standing for the first,
    // which may be a whole copy of it), the others loaded from the base for this pass, as the
    // trained one is held (its base quantized, its blocks swapping) but on the host, from where
    // the sampler takes each expert to the device for its steps: never two at once.
    std::vector<models::DiffusionTransformer>
    sampling_experts(const models::DiffusionTransformer& primary) {
        std::vector<models::DiffusionTransformer> all;
        for (int expert = 0; expert < model->experts(); ++expert) {
            const auto trained = experts.find(expert);
            if (trained == experts.end()) {
                models::TransformerLoadOptions load;
                load.dtype = dtype;
                load.device = c10::kCPU;
                load.quantization = lora::parse_base_quantization(job.lora.base_quantization);
                models::DiffusionTransformer other = model->load_transformer(load, expert);
                if (residency_observer) {
                    other->set_residency_observer(residency_observer,
                                                  run_experts::folder_name(expert));
                }
                other->swap_blocks(job.memory.blocks_to_swap, device);
                all.push_back(std::move(other));
            } else {
                all.push_back(trained->first == experts.begin()->first ? primary : trained->second);
            }
        }
        return all;
    }

    void sample_validation_videos(const std::vector<models::DiffusionTransformer>& sampled) {
        events.phase("validate");
        std::string open_stage;
        auto stage_boundary = [&](const std::string& stage) {
            if (!open_stage.empty()) {
                emit_stage_memory("validation_" + open_stage);
            }
            peak_before_reset = std::max(peak_before_reset, core::memory_stats(device).peak);
            core::reset_peak_memory(device);
            open_stage = stage;
        };
        const ValidationPass pass(*model, job, {dtype, device});
        const fs::path folder = run_folder / "validation" / ("step-" + std::to_string(state.step));
        for (const ValidationVideo& video : pass.run(sampled, folder, stage_boundary)) {
            events.emit(protocol::EventType::Validation,
                        {{"step", state.step},
                         {"prompt_index", video.prompt_index},
                         {"prompt", job.validation.prompts[video.prompt_index]},
                         {"video", video.file.string()},
                         {"seconds", video.seconds}});
        }
    }

    // The studio follows pause and resume from these, never from the log's wording.
    void emit_state(std::string_view name) {
        if (main_rank()) {
            events.emit(protocol::EventType::State, {{"state", name}, {"step", state.step}});
        }
    }

    TrainResult run() {
        if (main_rank()) {
            events.phase("train");
        }
        if (job.dataset.random_flip > 0) {
            log("warning", "dataset.random_flip is not applied: the cached latents hold one "
                           "orientation per clip. Add mirrored copies of clips to the dataset "
                           "to train on both.");
        }
        set_up_model();
        set_up_data();
        resume();
        core::reset_peak_memory(device);
        emit_memory("before_training");
        if (job.validation.at_start && state.step == 0) {
            validate();
        }
        if (state.step >= total_steps && !last_checkpoint.empty()) {
            log("info", "The run has already finished: step " + std::to_string(state.step) +
                            " of " + std::to_string(total_steps) +
                            ". Nothing to train; its result is " + last_checkpoint.string() + ".");
        } else if (validation_was_interrupted()) {
            log("info", "The validation at step " + std::to_string(state.step) +
                            " was interrupted; it runs again.");
            validate();
        }
        TrainResult result;
        result.status = "finished";
        const std::int64_t first_step = state.step;
        RunCommandHandler command_handler(
            commands, dist,
            {[this] { checkpoint(); }, [this] { validate(); },
             [this](const std::string& level, const std::string& message) { log(level, message); },
             [this](std::string_view name) {
                 emit_state(name);
             }});
        while (state.step < total_steps) {
            if (command_handler.handle(state.step)) {
                result.status = "stopped";
                break;
            }
            const auto started = Clock::now();
            double loss = 0;
            double grad_norm = 0;
            std::int64_t samples = 0;
            std::int64_t tokens = 0;
            const double lr = schedule->lr(state.step);
            if (exchange) {
                exchange->reset_peak_gradient_bytes();
            }
            if (!train_step(loss, grad_norm, samples, tokens)) {
                continue;
            }
            state.last_loss = loss;
            const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
            const nlohmann::json mem = memory_of_ranks(step_gradient_bytes);
            nlohmann::json comm = dist ? communication_since_last_step() : nlohmann::json();
            if (main_rank()) {
                nlohmann::json step_event = {
                    {"step", state.step},
                    {"total_steps", total_steps},
                    {"epoch", state.epoch},
                    {"loss", loss},
                    {"lr", lr},
                    {"grad_norm", grad_norm},
                    {"step_time_s", seconds},
                    {"samples_per_s", static_cast<double>(samples) / seconds},
                    {"tokens_per_s", static_cast<double>(tokens) / seconds},
                    {"mem", mem}};
                if (dist) {
                    step_event["comm"] = comm;
                }
                events.emit(protocol::EventType::Step, std::move(step_event));
            }
            if (job.checkpoints.every_steps > 0 && state.step % job.checkpoints.every_steps == 0 &&
                state.step < total_steps) {
                checkpoint();
            }
            if (job.validation.every_steps > 0 && state.step % job.validation.every_steps == 0) {
                validate();
            }
        }
        // A run that ends between validations is still shown as it ended, as diffusers' scripts
        // validate once more after training: a sweep's short runs are compared on their result.
        const std::int64_t every = job.validation.every_steps;
        if (result.status == "finished" && state.step > first_step && every > 0 &&
            state.step % every != 0) {
            validate();
        }
        if (last_checkpoint.empty() || CheckpointStore::step_of(last_checkpoint) != state.step) {
            checkpoint();
        }
        // cogvideox-factory's last memory figure, taken when the run's work is done.
        emit_memory("after_testing");
        result.steps = state.step;
        result.last_loss = state.last_loss;
        result.last_checkpoint = last_checkpoint;
        return result;
    }
};

Trainer::Trainer(common::TrainingJob job, fs::path model_folder, fs::path run_folder,
                 std::unique_ptr<TrainingDataset> dataset, core::EventEmitter& events,
                 CommandChannel* commands, dist::DistributedContext* dist,
                 std::shared_ptr<models::ResidencyObserver> residency)
    : impl_(std::make_unique<Impl>(std::move(job), std::move(model_folder), std::move(run_folder),
                                   std::move(dataset), events, commands, dist,
                                   std::move(residency))) {}

Trainer::~Trainer() = default;

TrainResult Trainer::run() {
    return impl_->run();
}

} // namespace tuneframe::train
