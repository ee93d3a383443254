// `forward t5` (T5EncoderModel) and `forward tokenize` (the T5 tokenizer front).
#include "common/t5_tokenizer.h"
#include "engine/cli/commands.h"
#include "engine/cli/forward_components.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/models/t5/t5_encoder.h"

#include <torch/torch.h>

#include <cmath>
#include <iostream>

namespace tuneframe::cli {
namespace {

at::Tensor find_input(const std::map<std::string, at::Tensor>& tensors, const std::string& path,
                      const std::string& name, bool required) {
    if (auto it = tensors.find(name); it != tensors.end()) {
        return it->second;
    }
    if (!required) {
        return {};
    }
    std::string held;
    for (const auto& [key, tensor] : tensors) {
        held += (held.empty() ? "" : ", ") + key;
    }
    throw core::Error(core::ErrorCode::BadInput,
                      "'" + path + "' has no tensor '" + name + "'; it holds: " + held + ".",
                      "Name the tensors as ../shared/golden does, or pass --input-prefix.");
}

// --prompts: a JSON array of strings, or an object whose "prompts" member is one.
std::vector<std::string> read_prompts(const std::string& path) {
    const nlohmann::json json = core::read_json_file(path);
    const nlohmann::json& list =
        json.is_object() && json.contains("prompts") ? json["prompts"] : json;
    std::vector<std::string> prompts;
    if (list.is_array()) {
        for (const auto& prompt : list) {
            if (!prompt.is_string()) {
                prompts.clear();
                break;
            }
            prompts.push_back(prompt.get<std::string>());
        }
    }
    if (prompts.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + path + "' holds no list of prompt strings.",
                          "Write a JSON array of strings, or an object with a \"prompts\" array.");
    }
    return prompts;
}

at::Tensor to_tensor(const std::vector<std::vector<std::int64_t>>& rows, const char* what) {
    const std::size_t width = rows.front().size();
    std::vector<std::int64_t> flat;
    for (const auto& row : rows) {
        if (row.size() != width) {
            throw core::Error(core::ErrorCode::BadInput,
                              std::string(what) + " rows differ in length (" +
                                  std::to_string(width) + " and " + std::to_string(row.size()) +
                                  ") and cannot form one tensor.",
                              "Pad them: --padding max_length (the default) or longest.");
        }
        flat.insert(flat.end(), row.begin(), row.end());
    }
    return torch::tensor(flat, torch::kLong)
        .reshape({static_cast<std::int64_t>(rows.size()), static_cast<std::int64_t>(width)});
}

} // namespace

int run_forward_t5(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const std::string model_dir = arguments.required_option("--model");
    const std::string inputs_path = arguments.required_option("--inputs");
    const std::string out = arguments.required_option("--out");
    const std::string prefix = arguments.option("--input-prefix").value_or("");
    const std::string dtype = arguments.option("--dtype").value_or("fp32");
    const std::string device =
        arguments.option("--device").value_or(torch::cuda::is_available() ? "cuda" : "cpu");
    const bool no_mask = arguments.flag("--no-mask");
    arguments.finish();

    const models::WeightsPlacement placement{models::parse_dtype(dtype),
                                             models::parse_device(device)};
    models::check_placement(placement);
    const auto tensors = core::read_tensors(inputs_path);
    at::Tensor input_ids = find_input(tensors, inputs_path, prefix + "input_ids", true);
    at::Tensor mask =
        no_mask ? at::Tensor() : find_input(tensors, inputs_path, prefix + "attention_mask", false);
    if (!c10::isFloatingType(input_ids.scalar_type())) {
        input_ids = input_ids.to(torch::kLong);
    }
    torch::NoGradGuard no_grad;
    auto model = models::load_t5_encoder(model_dir, placement);
    const at::Tensor hidden = model(input_ids, mask);
    core::write_tensors(out, {{"last_hidden_state", hidden}});
    std::cout << "last_hidden_state " << c10::toString(hidden.scalar_type()) << " "
              << c10::str(hidden.sizes()) << (mask.defined() ? " (masked)" : " (no mask)")
              << "\nwrote " << out << std::endl;
    return 0;
}

int run_forward_tokenize(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const std::string model_dir = arguments.required_option("--model");
    const std::string prompts_path = arguments.required_option("--prompts");
    const std::string out = arguments.required_option("--out");
    const double max_length = arguments.number_option("--max-length", 226);
    const bool no_legacy = arguments.flag("--no-legacy");
    const std::string padding = arguments.option("--padding").value_or("max_length");
    const bool no_truncation = arguments.flag("--no-truncation");
    arguments.finish();
    if (max_length < 1 || max_length != std::floor(max_length) || max_length > 1e6) {
        arguments.fail("--max-length must be a positive whole number.");
    }
    common::TokenizeOptions options;
    options.max_length = static_cast<int>(max_length);
    options.truncation = !no_truncation;
    if (padding == "max_length") {
        options.padding = common::Padding::MaxLength;
    } else if (padding == "longest") {
        options.padding = common::Padding::Longest;
    } else {
        arguments.fail("--padding is max_length or longest, not '" + padding + "'.");
    }

    const std::vector<std::string> prompts = read_prompts(prompts_path);
    common::TokenBatch batch;
    try {
        const auto tokenizer = common::T5Tokenizer::from_folder(
            model_dir, no_legacy ? std::optional<bool>(false) : std::nullopt);
        batch = tokenizer(prompts, options);
    } catch (const common::TokenizerError& error) {
        throw core::Error(core::ErrorCode::BadInput, error.what(), error.hint());
    }
    const at::Tensor ids = to_tensor(batch.input_ids, "input_ids");
    core::write_tensors(out,
                        {{"input_ids", ids},
                         {"attention_mask", to_tensor(batch.attention_mask, "attention_mask")}});
    std::cout << "input_ids " << c10::str(ids.sizes()) << "\nwrote " << out << std::endl;
    return 0;
}

} // namespace tuneframe::cli
