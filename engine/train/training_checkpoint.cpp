#include "engine/train/training_checkpoint.h"

#include "common/free_space.h"
#include "common/remove_tree.h"
#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/tensor_io.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <set>
#include <unistd.h>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStateFile = "trainer_state.json";
constexpr const char* kOptimizerIndex = "optimizer.index.json";
constexpr int kStateVersion = 1;
constexpr int kIndexVersion = 1;

core::Error io_error(const std::string& what, const fs::path& path, const std::exception& cause) {
    std::string message = "Could not " + what + " '" + path.string() + "': " + cause.what();
    const auto* system = dynamic_cast<const fs::filesystem_error*>(&cause);
    const std::string room = system && common::is_out_of_space(system->code().value())
                                 ? common::free_space_text(path)
                                 : std::string();
    if (!room.empty()) {
        message += " (" + room + ")";
    }
    return core::Error(core::ErrorCode::Io, message,
                       "Check free disk space and permissions of the run folder.");
}

// Which shard holds each state tensor, read from the shards' headers only. A key every rank
// writes (optimizer-wide values) is taken from the first shard.
nlohmann::json optimizer_index(const std::vector<fs::path>& shards) {
    nlohmann::json tensors = nlohmann::json::object();
    for (const fs::path& shard : shards) {
        const core::SafetensorsFile file(shard);
        for (const core::TensorInfo& tensor : file.tensors()) {
            if (!tensors.contains(tensor.name)) {
                tensors[tensor.name] = shard.filename().string();
            }
        }
    }
    return {{"v", kIndexVersion}, {"shards", shards.size()}, {"tensors", tensors}};
}

// `wanted` of one file's tensors, each copied out of the mapping.
void read_wanted(const fs::path& path, const StateFilter& wanted,
                 std::map<std::string, at::Tensor>& into) {
    const core::SafetensorsFile file(path);
    for (const core::TensorInfo& tensor : file.tensors()) {
        if ((!wanted || wanted(tensor.name)) && !into.count(tensor.name)) {
            into[tensor.name] = core::read_tensor(file, tensor);
        }
    }
}

// `.step-N.tmp-PID` (a checkpoint being written) and `.step-N.pruning-PID` (one being deleted):
// the PID of the process at work, or -1 for any other name.
long worker_of(const std::string& name) {
    if (name.rfind(".step-", 0) != 0) {
        return -1;
    }
    for (const char* marker : {".tmp-", ".pruning-"}) {
        const std::size_t at = name.rfind(marker);
        if (at == std::string::npos) {
            continue;
        }
        const std::string pid = name.substr(at + std::char_traits<char>::length(marker));
        if (!pid.empty() && pid.size() < 10 &&
            pid.find_first_not_of("0123456789") == std::string::npos) {
            return std::stol(pid);
        }
    }
    return -1;
}

// A process that no longer exists. One that exists but belongs to someone else (EPERM) counts
// as alive: its folder is left alone.
bool has_ended(long pid) {
    if (pid == static_cast<long>(::getpid())) {
        return true; // this process has not started a checkpoint yet: a previous owner's PID
    }
    return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

bool is_staged_shards(const std::string& name) {
    return name.rfind(".step-", 0) == 0 && name.size() > 7 &&
           name.compare(name.size() - 7, 7, ".shards") == 0;
}

bool is_shard(const fs::path& path) {
    return path.filename().string().rfind("optimizer-rank-", 0) == 0 &&
           path.extension() == ".safetensors";
}

} // namespace

nlohmann::json TrainerState::to_json() const {
    nlohmann::json json = {{"v", kStateVersion},
                           {"step", step},
                           {"epoch", epoch},
                           {"batch_in_epoch", batch_in_epoch},
                           {"samples_seen", samples_seen},
                           {"loss_scale", loss_scale},
                           {"good_steps", good_steps},
                           {"job_fingerprint", job_fingerprint},
                           {"dataset_fingerprint", dataset_fingerprint}};
    if (std::isfinite(last_loss)) {
        json["last_loss"] = last_loss;
    }
    return json;
}

TrainerState TrainerState::from_json(const nlohmann::json& json, const std::string& origin) {
    try {
        if (json.at("v").get<int>() > kStateVersion) {
            throw core::Error(core::ErrorCode::BadInput,
                              "'" + origin + "' was written by a newer Tuneframe.",
                              "Resume it with that version, or start a new run.");
        }
        TrainerState state;
        state.step = json.at("step").get<std::int64_t>();
        state.epoch = json.at("epoch").get<std::int64_t>();
        state.batch_in_epoch = json.at("batch_in_epoch").get<std::int64_t>();
        state.samples_seen = json.at("samples_seen").get<std::int64_t>();
        state.loss_scale = json.at("loss_scale").get<double>();
        state.good_steps = json.at("good_steps").get<std::int64_t>();
        state.job_fingerprint = json.at("job_fingerprint").get<std::string>();
        state.dataset_fingerprint = json.at("dataset_fingerprint").get<std::string>();
        if (json.contains("last_loss")) {
            state.last_loss = json.at("last_loss").get<double>();
        }
        return state;
    } catch (const nlohmann::json::exception& error) {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + origin + "' is not a trainer state: " + error.what(),
                          "Delete this checkpoint folder; the run resumes from an older one.");
    }
}

CheckpointStore::CheckpointStore(fs::path run_folder)
    : folder_(std::move(run_folder) / "checkpoints") {}

std::int64_t CheckpointStore::step_of(const fs::path& checkpoint) {
    const std::string name = checkpoint.filename().string();
    if (name.rfind("step-", 0) != 0 || name.size() == 5 ||
        name.find_first_not_of("0123456789", 5) != std::string::npos) {
        return -1;
    }
    return std::stoll(name.substr(5));
}

fs::path CheckpointStore::save(const CheckpointContents& contents) {
    const fs::path target = folder_ / ("step-" + std::to_string(contents.state.step));
    const fs::path temporary = folder_ / (".step-" + std::to_string(contents.state.step) + ".tmp-" +
                                          std::to_string(::getpid()));
    try {
        fs::create_directories(folder_);
        remove_tree(temporary);
        fs::create_directories(temporary);
        core::write_tensors(temporary / "trainable.safetensors", contents.trainable,
                            contents.trainable_metadata);
        if (contents.optimizer_shards.empty()) {
            core::write_tensors(temporary / "optimizer.safetensors", contents.optimizer);
        }
        std::vector<fs::path> shards;
        for (const fs::path& shard : contents.optimizer_shards) {
            shards.push_back(temporary / shard.filename());
            fs::rename(shard, shards.back());
        }
        if (!shards.empty()) {
            core::write_json_file(temporary / kOptimizerIndex, optimizer_index(shards));
        }
        core::write_json_file(temporary / "job.json", contents.job);
        // The state goes last: its presence marks the checkpoint complete.
        core::write_json_file(temporary / kStateFile, contents.state.to_json());
        core::sync_directory(temporary);
        if (fs::exists(target)) {
            remove_tree(target); // a `checkpoint` command at a step that already has one
        }
        fs::rename(temporary, target);
        core::sync_directory(folder_);
    } catch (const core::Error&) {
        remove_tree(temporary);
        throw;
    } catch (const std::exception& error) {
        std::error_code ignored;
        remove_tree(temporary, ignored);
        throw io_error("write the checkpoint", target, error);
    }
    return target;
}

std::vector<fs::path> CheckpointStore::list() const {
    std::vector<fs::path> found;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder_, error)) {
        if (entry.is_directory() && step_of(entry.path()) >= 0 &&
            fs::is_regular_file(entry.path() / kStateFile)) {
            found.push_back(entry.path());
        }
    }
    std::sort(found.begin(), found.end(),
              [](const fs::path& a, const fs::path& b) { return step_of(a) > step_of(b); });
    return found;
}

LoadedCheckpoint CheckpointStore::load(const fs::path& folder, const StateFilter& wanted) const {
    LoadedCheckpoint loaded;
    loaded.folder = folder;
    const fs::path state_file = folder / kStateFile;
    loaded.state = TrainerState::from_json(core::read_json_file(state_file), state_file.string());
    loaded.trainable = core::read_tensors(folder / "trainable.safetensors");
    std::vector<fs::path> files;
    if (fs::exists(folder / kOptimizerIndex)) {
        const fs::path index_file = folder / kOptimizerIndex;
        const nlohmann::json index = core::read_json_file(index_file);
        try {
            std::set<std::string> needed;
            for (const auto& [key, file] : index.at("tensors").items()) {
                if (!wanted || wanted(key)) {
                    needed.insert(file.get<std::string>());
                }
            }
            for (const std::string& name : needed) {
                files.push_back(folder / fs::path(name).filename());
            }
        } catch (const nlohmann::json::exception& error) {
            throw core::Error(core::ErrorCode::BadInput,
                              "'" + index_file.string() +
                                  "' is not an optimizer index: " + error.what(),
                              "Delete this checkpoint folder; the run resumes from an older one.");
        }
    } else if (fs::exists(folder / "optimizer.safetensors")) {
        files.push_back(folder / "optimizer.safetensors");
    } else {
        // A sharded checkpoint from before the index: every shard.
        for (const auto& entry : fs::directory_iterator(folder)) {
            if (is_shard(entry.path())) {
                files.push_back(entry.path());
            }
        }
        std::sort(files.begin(), files.end());
        if (files.empty()) {
            core::read_tensors(folder / "optimizer.safetensors"); // says which file is missing
        }
    }
    for (const fs::path& file : files) {
        read_wanted(file, wanted, loaded.optimizer);
        loaded.optimizer_files_read.push_back(file);
    }
    return loaded;
}

void CheckpointStore::prune(std::int64_t keep) const {
    const std::vector<fs::path> checkpoints = list();
    for (std::size_t i = static_cast<std::size_t>(std::max<std::int64_t>(keep, 1));
         i < checkpoints.size(); ++i) {
        const fs::path trash = folder_ / ("." + checkpoints[i].filename().string() + ".pruning-" +
                                          std::to_string(::getpid()));
        std::error_code error;
        fs::rename(checkpoints[i], trash, error);
        if (error) {
            continue; // still whole and listed; the next prune tries again
        }
        core::sync_directory(folder_);
        remove_tree(trash, error);
    }
}

std::vector<fs::path> CheckpointStore::remove_debris() const {
    std::vector<fs::path> debris;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder_, error)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_directory()) {
            continue;
        }
        const long worker = worker_of(name);
        const bool stale = (worker >= 0 && has_ended(worker)) || is_staged_shards(name) ||
                           (step_of(entry.path()) >= 0 && !fs::exists(entry.path() / kStateFile));
        if (stale) {
            debris.push_back(entry.path());
        }
    }
    std::sort(debris.begin(), debris.end());
    for (const fs::path& path : debris) {
        try {
            remove_tree(path);
        } catch (const std::exception& cause) {
            throw io_error("remove the leftover folder", path, cause);
        }
    }
    return debris;
}

fs::path CheckpointStore::set_aside(const fs::path& checkpoint) const {
    fs::path target = checkpoint.parent_path() / (checkpoint.filename().string() + ".damaged");
    for (int k = 2; fs::exists(target); ++k) {
        target = checkpoint.parent_path() /
                 (checkpoint.filename().string() + ".damaged-" + std::to_string(k));
    }
    try {
        fs::rename(checkpoint, target);
        core::sync_directory(checkpoint.parent_path());
    } catch (const std::exception& cause) {
        throw io_error("move the damaged checkpoint", checkpoint, cause);
    }
    return target;
}

} // namespace tuneframe::train
