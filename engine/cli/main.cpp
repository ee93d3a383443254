#include "engine/cli/commands.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"
#include "engine/core/kernels/fused_kernel_checks.h"
#include "engine/dist/cuda_visible_devices.h"

#include <c10/util/Exception.h>

#ifdef TUNEFRAME_HAVE_MEDIA
#include "media/log_level.h"
#endif

#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <new>

namespace {

using tuneframe::cli::Command;

constexpr Command kCommands[] = {
    {"inspect",
     "tuneframe-engine inspect PATH [--summary] [--json] [--shape FRAMESxHEIGHTxWIDTH] [--batch N] "
     "[--rank R]",
     "list the tensors, dtypes, shapes and parameter count of a .safetensors file, a shard "
     "index, a diffusers model folder or an original/ComfyUI Wan file; for a transformer of "
     "any family also its architecture (variant, tasks, experts, stored dtype) and a memory "
     "estimate for inference and LoRA training at --shape (pixels) and --rank",
     false, tuneframe::cli::run_inspect},
    {"devices", "tuneframe-engine devices",
     "print the hello event: engine, LibTorch and CUDA versions and the devices seen", true,
     tuneframe::cli::run_devices},
    {"forward",
     "tuneframe-engine forward COMPONENT --model DIR --inputs FILE --out FILE "
     "[--input-prefix P] [component options]",
     "run one model component on tensors from a safetensors file and write its outputs "
     "(for parity checks and debugging)",
     false, tuneframe::cli::run_forward},
    {"init-model",
     "tuneframe-engine init-model --arch NAME --out DIR [--dtype fp32|bf16|fp16] [--seed N] "
     "[--complete]",
     "write a randomly initialised model in diffusers layout: cogvideox-tiny, cogvideox-tiny-i2v, "
     "cogvideox-tiny-demo, "
     "cogvideox-2b, cogvideox-5b, cogvideox-5b-i2v, cogvideox1.5-5b, cogvideox1.5-5b-i2v "
     "(default dtype: the official checkpoints', fp32 for the tiny ones); --complete adds a "
     "random VAE and T5-XXL of the released sizes, a small tokenizer and the scheduler (the tiny "
     "ones always have them)",
     false, tuneframe::cli::run_init_model},
    {"demo-vae",
     "tuneframe-engine demo-vae --model DIR --clips DIR [--frames F] [--height H] [--width W]",
     "give a tiny pipeline the embedded demo's VAE, which codes each 8x8 block's mean colour "
     "exactly, with its latent scale measured on the clips of a folder (F frames spread over "
     "each clip, stretched to HxW), so that what is trained on those clips decodes into "
     "pictures of them; the studio runs it on the demo's model",
     true, tuneframe::cli::run_demo_vae},
    {"sample",
     "tuneframe-engine sample --model DIR --prompt P [--negative-prompt N] [--image FILE] "
     "[--frames F] [--height H] [--width W] [--steps N] [--guidance G] [--dynamic-cfg] "
     "[--scheduler ddim|dpm] [--seed S] [--transformer DIR] [--transformer-2 DIR] "
     "[--lora FILE] [--lora-2 FILE] [--lora-scale S] "
     "[--out video.mp4] "
     "[--fps N] [--initial-latents FILE] [--save-tensors FILE] [--max-sequence-length N] "
     "[--dtype fp32|bf16|fp16] [--device cpu|cuda[:N]] [--vae-tiling] [--vae-slicing]",
     "text-to-video (or image-to-video with --image) from a diffusers CogVideoX pipeline folder "
     "and an optional LoRA, to MP4; --transformer puts a fine-tuned transformer folder of the "
     "same architecture (a full fine-tune's export) in place of the pipeline's; of a two-expert "
     "model (Wan 2.2 A14B), --transformer-2 and --lora-2 are the low-noise expert's; one "
     "progress event per step",
     true, tuneframe::cli::run_sample},
    {"prepare", "tuneframe-engine prepare --job FILE",
     "decode, bucket and VAE-encode the job's clips and T5-encode their captions into the "
     "latent cache, and write prepared.jsonl beside the job; reuses what the cache holds, so a "
     "stopped run resumes; a bad clip is reported and skipped",
     true, tuneframe::cli::run_prepare},
    {"train", "tuneframe-engine train --job RUN_FOLDER/job.json [--check]",
     "train a LoRA or a full fine-tune on the samples prepare cached for the run; resumes from "
     "the newest checkpoint; obeys stop/checkpoint/validate/pause/resume on stdin and on "
     "RUN_FOLDER/control.sock; --check only checks the job against its model (task, LoRA rank, "
     "frame buckets, validation size) and writes nothing",
     true, tuneframe::cli::run_train},
    {"run",
     "tuneframe-engine run --job RUN_FOLDER/job.json [--gpus 0,1[,...] | --cpu-ranks N] "
     "[--nnodes N --node-rank R --master-addr A --master-port P]",
     "prepare, then train, in one process (it becomes `train`, or `launch -- train` with --gpus "
     "or --cpu-ranks, once the dataset is cached): what the studio starts, detached, so a run "
     "goes on to its end without it; one `done` ends it. On several machines each runs it with "
     "its --node-rank: machine 0 prepares, the others wait for it in the shared run folder",
     true, tuneframe::cli::run_run},
    {"queue", "tuneframe-engine queue --file PROJECT/queue.json",
     "run a project's queue of training runs one after another (`run` for each, detached, as "
     "the studio starts them) while it is marked running; a failed run holds it unless it "
     "continues past failures; what the studio starts so that queued runs go on without it; "
     "a second runner of the same queue leaves at once",
     true, tuneframe::cli::run_queue},
    {"bench",
     "tuneframe-engine bench (--shape bench-cpu|2b-49x480x720|5b-49x480x720|wan-bench-cpu|"
     "wan2.1-1.3b-81x480x832|wan2.1-14b-81x480x832|wan2.2-5b-121x704x1280 | --arch NAME) "
     "[--frames F --height H --width W] [--layers N] [--task t2v|i2v] [--rank R] [--optimizer O] "
     "[--checkpointing | "
     "--no-checkpointing] [--checkpointed-blocks N] [--keep-attention] [--steps N] [--device "
     "cpu|cuda] [--dtype "
     "fp32|bf16] "
     "[--attention auto|flash|efficient|cudnn|math] [--quantize int8|fp8] [--blocks-to-swap N] "
     "[--offload-activations] [--memory-fraction F] [--profile TRACE.json] "
     "[--validation PIPELINE_DIR [--validation-steps N] [--validation-prompts N]]",
     "time LoRA training steps of a transformer built in memory with random weights and print "
     "one JSON line: median step time and its forward/backward/optimizer phases, tokens/s, "
     "peak memory overall and by phase (and MFU on known GPUs); --blocks-to-swap keeps the last "
     "N blocks' weights on the host, copied in one block ahead of use; --offload-activations "
     "keeps each recomputed block's saved input there between forward and backward; "
     "--memory-fraction caps "
     "the CUDA allocator at that share of the GPU (a smaller card emulated); --profile writes a "
     "Chrome "
     "trace of one more step (LibTorch 2.x); --validation then runs one validation pass as "
     "training does, with that folder's T5 and VAE, and adds the peak of each of its stages",
     false, tuneframe::cli::run_bench},
    {"export",
     "tuneframe-engine export --run DIR --format diffusers|comfyui|wan|musubi|merged|pipeline "
     "[--step N] [--expert high_noise|low_noise|both] --out PATH",
     "write a run's checkpoint (the newest, or --step) as a diffusers/PEFT LoRA, a ComfyUI "
     "(kohya) LoRA or a merged transformer folder, then reload it and check it reproduces the "
     "run's model; a two-expert run writes one file per expert it trained "
     "(<stem>_high_noise / <stem>_low_noise), or the expert --expert names",
     true, tuneframe::cli::run_export},
    {"launch",
     "tuneframe-engine launch (--gpus 0,1[,...] | --cpu-ranks N) [--nnodes N --node-rank R "
     "--master-addr A --master-port P] -- train --job RUN_FOLDER/job.json",
     "run one training worker per GPU (or CPU rank) with torchrun's environment: their events "
     "merged into one stream, commands passed to every rank, and all stopped when one fails; "
     "the job's parallel.plan chooses ddp, zero2 or hybrid (sequence parallel)",
     true, tuneframe::cli::run_launch},
    {"estimate", "tuneframe-engine estimate --job FILE [--processes N]",
     "estimate a training job's memory per process for each phase (prepare, train, validation) "
     "from the model's configs and weight headers, without loading weights",
     true, tuneframe::cli::run_estimate},
    {"sweep", "tuneframe-engine sweep --job FILE --grid FILE [--out DIR] [--plan-only]",
     "train every combination of a grid of job fields (learning rates x ranks x ...) one after "
     "another, one run folder each, sharing the job's latent cache; --plan-only writes the "
     "folders for a cluster scheduler instead",
     true, tuneframe::cli::run_sweep},
};

void print_help() {
    std::cout << "tuneframe-engine " TUNEFRAME_VERSION
                 " - the Tuneframe training and sampling engine\n\n"
                 "usage: tuneframe-engine [--version] [--help] COMMAND [ARGS...]\n\ncommands:\n";
    for (const Command& command : kCommands) {
        std::cout << "  " << command.name << "\n      " << command.summary << "\n";
    }
    std::cout << "\n'tuneframe-engine COMMAND --help' shows a command's options.\n";
}

const Command* find_command(const std::string& name) {
    for (const Command& command : kCommands) {
        if (name == command.name) {
            return &command;
        }
    }
    return nullptr;
}

int exit_code_for(tuneframe::core::ErrorCode code) {
    return code == tuneframe::core::ErrorCode::Usage ? 2 : 1;
}

// Every failure leaves as one message for people on stderr and, for commands that speak the
// protocol, an `error` event the studio can show, then `done` with status "failed".
int report_failure(const Command* command, tuneframe::core::EventEmitter& events,
                   const tuneframe::core::Error& error) {
    std::cerr << "error: " << error.what() << "\n";
    if (!error.hint().empty()) {
        std::cerr << "hint: " << error.hint() << "\n";
    }
    if (command && command->speaks_protocol) {
        events.error(error);
        // docs/protocol.md: `done` ends every command, a failed one too.
        events.done("failed",
                    {{"code", std::string(tuneframe::core::error_code_name(error.code()))}});
    }
    return exit_code_for(error.code());
}

} // namespace

int main(int argc, char** argv) {
    // Before anything can start CUDA: GPU numbers are NVML's (PCI bus order) everywhere.
    tuneframe::dist::use_pci_bus_device_order();
    using tuneframe::core::Error;
    using tuneframe::core::ErrorCode;
    // A studio that goes away must not kill a training run: writes to a closed pipe fail with
    // EPIPE and the engine keeps logging to events.jsonl.
    std::signal(SIGPIPE, SIG_IGN);
#ifdef TUNEFRAME_HAVE_MEDIA
    // Encoder chatter (x264's statistics) would drown the engine's own messages on stderr.
    tuneframe::media::set_log_level();
#endif

    std::vector<std::string> arguments(argv + 1, argv + argc);
    if (arguments.empty() || arguments[0] == "--help" || arguments[0] == "-h" ||
        arguments[0] == "help") {
        print_help();
        return arguments.empty() ? 2 : 0;
    }
    if (arguments[0] == "--version") {
        std::cout << "tuneframe-engine " TUNEFRAME_VERSION "\n";
        return 0;
    }

    tuneframe::core::EventEmitter events;
    const Command* command = find_command(arguments[0]);
    if (!command) {
        return report_failure(nullptr, events,
                              Error(ErrorCode::Usage, "unknown command '" + arguments[0] + "'.",
                                    "Run 'tuneframe-engine --help' for the list of commands."));
    }
    tuneframe::cli::Arguments command_arguments(command->name, command->usage,
                                                {arguments.begin() + 1, arguments.end()});
    if (command_arguments.help_requested()) {
        std::cout << "usage: " << command->usage << "\n\n" << command->summary << "\n";
        return 0;
    }
    try {
        tuneframe::cli::CommandContext context{command_arguments, events};
        if (command->speaks_protocol) {
            events.hello(tuneframe::core::runtime_info());
        }
        // A fused CUDA kernel refused at its first use (FusedKernelChecks) says so in the log.
        const tuneframe::core::FusedKernelWarningSink fused_kernel_warnings(
            [&events, command](const std::string& warning) {
                if (command->speaks_protocol) {
                    events.log("warning", warning);
                } else {
                    std::cerr << "warning: " << warning << "\n";
                }
            });
        return command->run(context);
    } catch (const Error& error) {
        return report_failure(command, events, error);
    } catch (const std::bad_alloc&) {
        return report_failure(command, events,
                              Error(ErrorCode::Oom, "Host memory ran out.",
                                    "Close other programs or choose a smaller model or shape."));
    } catch (const c10::OutOfMemoryError& error) {
        return report_failure(
            command, events,
            Error(ErrorCode::Oom,
                  std::string("Device memory ran out: ") + error.what_without_backtrace(),
                  "Use a smaller size or fewer frames, enable VAE tiling and slicing, "
                  "or free the GPU of other programs."));
    } catch (const c10::Error& error) {
        return report_failure(command, events,
                              Error(ErrorCode::Internal, error.what_without_backtrace()));
    } catch (const std::filesystem::filesystem_error& error) {
        // A folder that cannot be made or a file that cannot be moved (a full disk among the
        // causes) is the file system's doing, not the engine's.
        return report_failure(command, events, tuneframe::core::io_error(error));
    } catch (const std::exception& error) {
        return report_failure(command, events, Error(ErrorCode::Internal, error.what()));
    }
}
