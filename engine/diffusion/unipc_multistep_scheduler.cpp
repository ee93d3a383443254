#include "engine/diffusion/unipc_multistep_scheduler.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace tuneframe::diffusion {
namespace {

struct AlphaSigma {
    at::Tensor alpha;
    at::Tensor sigma;
};

// With flow sigmas x_t = (1 - sigma) x0 + sigma noise.
AlphaSigma flow_alpha_sigma(const at::Tensor& sigma) {
    return {1 - sigma, sigma};
}

at::Tensor log_snr(const AlphaSigma& point) {
    return torch::log(point.alpha) - torch::log(point.sigma);
}

// The B(h) terms both UniP and UniC build: h phi_1(h), B(h), and the order x order system
// R rho = b whose rows are powers of the step ratios rks (1 appended).
struct BhTerms {
    at::Tensor h_phi_1;
    at::Tensor b_h;
    at::Tensor r;
    at::Tensor b;
};

BhTerms bh_terms(const at::Tensor& h, std::vector<at::Tensor> rks, int order, bool predict_x0,
                 UniPCSolverType solver_type) {
    rks.push_back(torch::ones({}, torch::kFloat32));
    const at::Tensor ratios = torch::stack(rks);
    const at::Tensor hh = predict_x0 ? -h : h;
    const at::Tensor h_phi_1 = torch::expm1(hh);
    at::Tensor h_phi_k = h_phi_1 / hh - 1;
    const at::Tensor b_h = solver_type == UniPCSolverType::Bh1 ? hh : torch::expm1(hh);
    std::int64_t factorial = 1;
    std::vector<at::Tensor> rows;
    std::vector<at::Tensor> rhs;
    for (int i = 1; i <= order; ++i) {
        rows.push_back(torch::pow(ratios, static_cast<std::int64_t>(i - 1)));
        rhs.push_back(h_phi_k * factorial / b_h);
        factorial *= i + 1;
        h_phi_k = h_phi_k / hh - 1.0 / static_cast<double>(factorial);
    }
    return {h_phi_1, b_h, torch::stack(rows), torch::stack(rhs)};
}

// sum_k rhos[k] * d1s[:, k], as the reference's einsum contracts it.
at::Tensor contract(const at::Tensor& rhos, const at::Tensor& d1s) {
    return at::einsum("k,bkc...->bc...", {rhos, d1s});
}

UniPCSolverType parse_solver_type(const std::string& value, const std::string& origin) {
    if (value == "bh1") {
        return UniPCSolverType::Bh1;
    }
    // diffusers maps the DPM-Solver names onto bh2.
    if (value == "bh2" || value == "midpoint" || value == "heun" || value == "logrho") {
        return UniPCSolverType::Bh2;
    }
    unsupported_setting(origin, "solver_type", "is \"" + value + "\", which UniPC does not have.",
                        "Use \"bh2\" (or \"bh1\").");
}

FinalSigmasType parse_final_sigmas(const std::string& value, const std::string& origin) {
    if (value == "zero") {
        return FinalSigmasType::Zero;
    }
    if (value == "sigma_min") {
        return FinalSigmasType::SigmaMin;
    }
    unsupported_setting(origin, "final_sigmas_type", "is \"" + value + "\".",
                        "Use \"zero\" or \"sigma_min\".");
}

std::vector<std::int64_t> parse_disable_corrector(const nlohmann::json& json,
                                                  const std::string& origin) {
    std::vector<std::int64_t> steps;
    const auto it = json.find("disable_corrector");
    if (it == json.end() || it->is_null()) {
        return steps;
    }
    if (!it->is_array()) {
        unsupported_setting(origin, "disable_corrector", "must be a list of step indices.",
                            "Use [] to keep the corrector on every step.");
    }
    for (const auto& value : *it) {
        if (!value.is_number_integer()) {
            unsupported_setting(origin, "disable_corrector", "must hold integers only.",
                                "Use step indices such as [0, 1].");
        }
        steps.push_back(value.get<std::int64_t>());
    }
    return steps;
}

// Settings whose only honest reading in Tuneframe is their default: each takes diffusers down a
// path (VP sigmas, thresholding, another prediction) the flow-matching port does not have.
void check_flow_path(const core::JsonFields& fields, const std::string& origin) {
    const std::string prediction = fields.optional<std::string>("prediction_type", "epsilon");
    if (prediction != "flow_prediction") {
        unsupported_setting(origin, "prediction_type",
                            "is \"" + prediction + "\"; Tuneframe's UniPC runs flow matching only.",
                            "Use \"flow_prediction\" (the Wan checkpoints' setting).");
    }
    if (!fields.optional<bool>("use_flow_sigmas", false)) {
        unsupported_setting(origin, "use_flow_sigmas", "is not true.",
                            "Set \"use_flow_sigmas\": true, as the Wan checkpoints do.");
    }
    for (const char* key :
         {"use_karras_sigmas", "use_exponential_sigmas", "use_beta_sigmas", "thresholding"}) {
        if (fields.optional<bool>(key, false)) {
            unsupported_setting(origin, key, "is true, which Tuneframe's UniPC does not support.",
                                std::string("Set \"") + key + "\" to false.");
        }
    }
    if (fields.has("solver_p")) {
        unsupported_setting(origin, "solver_p", "is set; Tuneframe's UniPC has no other solver.",
                            "Set \"solver_p\" to null.");
    }
    const std::string spacing = fields.optional<std::string>("timestep_spacing", "linspace");
    if (spacing != "linspace" && spacing != "leading" && spacing != "trailing") {
        unsupported_setting(origin, "timestep_spacing", "is \"" + spacing + "\".",
                            "Use \"linspace\", \"leading\" or \"trailing\".");
    }
    const std::string betas = fields.optional<std::string>("beta_schedule", "linear");
    if (betas != "linear" && betas != "scaled_linear" && betas != "squaredcos_cap_v2") {
        unsupported_setting(origin, "beta_schedule", "is \"" + betas + "\".",
                            "Use \"linear\", as the Wan checkpoints do.");
    }
}

} // namespace

UniPCMultistepSchedulerConfig UniPCMultistepSchedulerConfig::from_json(const nlohmann::json& json,
                                                                       const std::string& origin) {
    check_known_keys(json, origin,
                     {"num_train_timesteps",
                      "beta_start",
                      "beta_end",
                      "beta_schedule",
                      "trained_betas",
                      "solver_order",
                      "prediction_type",
                      "thresholding",
                      "dynamic_thresholding_ratio",
                      "sample_max_value",
                      "predict_x0",
                      "solver_type",
                      "lower_order_final",
                      "disable_corrector",
                      "solver_p",
                      "use_karras_sigmas",
                      "use_exponential_sigmas",
                      "use_beta_sigmas",
                      "use_flow_sigmas",
                      "flow_shift",
                      "timestep_spacing",
                      "steps_offset",
                      "final_sigmas_type",
                      "rescale_betas_zero_snr",
                      "use_dynamic_shifting",
                      "time_shift_type",
                      "sigma_min",
                      "sigma_max",
                      "shift_terminal"});
    core::JsonFields fields(json, origin);
    check_flow_path(fields, origin);
    UniPCMultistepSchedulerConfig config;
    config.num_train_timesteps = fields.optional<int>("num_train_timesteps", 1000);
    config.beta_start = fields.optional<double>("beta_start", config.beta_start);
    config.beta_end = fields.optional<double>("beta_end", config.beta_end);
    config.beta_schedule = fields.optional<std::string>("beta_schedule", "linear");
    config.solver_order = fields.optional<int>("solver_order", 2);
    config.predict_x0 = fields.optional<bool>("predict_x0", true);
    config.solver_type =
        parse_solver_type(fields.optional<std::string>("solver_type", "bh2"), origin);
    config.lower_order_final = fields.optional<bool>("lower_order_final", true);
    config.disable_corrector = parse_disable_corrector(json, origin);
    config.flow_shift = fields.optional<double>("flow_shift", 1.0);
    config.timestep_spacing = fields.optional<std::string>("timestep_spacing", "linspace");
    config.steps_offset = fields.optional<int>("steps_offset", 0);
    config.final_sigmas_type =
        parse_final_sigmas(fields.optional<std::string>("final_sigmas_type", "zero"), origin);
    config.use_dynamic_shifting = fields.optional<bool>("use_dynamic_shifting", false);
    config.time_shift_type = parse_time_shift_type(
        fields.optional<std::string>("time_shift_type", "exponential"), origin);
    config.shift_terminal = fields.maybe<double>("shift_terminal");

    if (!config.predict_x0) {
        unsupported_setting(origin, "predict_x0", "is false, which flow prediction cannot use.",
                            "Set \"predict_x0\" to true.");
    }
    if (config.solver_order < 1) {
        unsupported_setting(origin, "solver_order", "must be at least 1.", "Wan uses 2.");
    }
    if (config.num_train_timesteps < 2) {
        unsupported_setting(origin, "num_train_timesteps", "must be at least 2.", "Wan uses 1000.");
    }
    if (!(config.flow_shift > 0)) {
        unsupported_setting(origin, "flow_shift", "must be positive.",
                            "Wan uses 3.0 (480p) or 5.0 (720p).");
    }
    if (config.shift_terminal && *config.shift_terminal >= 1) {
        unsupported_setting(origin, "shift_terminal", "must be below 1.",
                            "Remove it or set it to null.");
    }
    // B(h) = h is infinite at a final sigma of 0, and diffusers' last step multiplies it by a
    // zero correction: every value of the result would be NaN.
    if (config.solver_type == UniPCSolverType::Bh1 &&
        config.final_sigmas_type == FinalSigmasType::Zero) {
        unsupported_setting(origin, "solver_type",
                            "is \"bh1\" with \"final_sigmas_type\": \"zero\", whose last step "
                            "gives NaN.",
                            "Use \"bh2\", or \"final_sigmas_type\": \"sigma_min\".");
    }
    return config;
}

UniPCMultistepSchedulerConfig
UniPCMultistepSchedulerConfig::from_file(const std::filesystem::path& path) {
    return from_json(core::read_json_file(path), path.string());
}

nlohmann::json UniPCMultistepSchedulerConfig::to_json() const {
    return {
        {"_class_name", "UniPCMultistepScheduler"},
        {"num_train_timesteps", num_train_timesteps},
        {"beta_start", beta_start},
        {"beta_end", beta_end},
        {"beta_schedule", beta_schedule},
        {"solver_order", solver_order},
        {"prediction_type", "flow_prediction"},
        {"thresholding", false},
        {"predict_x0", predict_x0},
        {"solver_type", solver_type == UniPCSolverType::Bh1 ? "bh1" : "bh2"},
        {"lower_order_final", lower_order_final},
        {"disable_corrector", disable_corrector},
        {"use_flow_sigmas", true},
        {"flow_shift", flow_shift},
        {"timestep_spacing", timestep_spacing},
        {"steps_offset", steps_offset},
        {"final_sigmas_type", final_sigmas_type == FinalSigmasType::Zero ? "zero" : "sigma_min"},
        {"use_dynamic_shifting", use_dynamic_shifting},
        {"time_shift_type", time_shift_type_name(time_shift_type)},
        {"shift_terminal", shift_terminal ? nlohmann::json(*shift_terminal) : nullptr}};
}

UniPCMultistepScheduler::UniPCMultistepScheduler(UniPCMultistepSchedulerConfig config)
    : config_(std::move(config)) {}

void UniPCMultistepScheduler::set_timesteps(int steps, std::optional<double> mu) {
    if (steps < 1) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The number of sampling steps must be at least 1, not " +
                              std::to_string(steps) + ".",
                          "Choose a step count such as 50.");
    }
    if (config_.use_dynamic_shifting && !mu) {
        throw core::Error(core::ErrorCode::Internal,
                          "set_timesteps needs mu with use_dynamic_shifting");
    }
    const int total = config_.num_train_timesteps;
    std::vector<double> sigmas = numpy_linspace(1, 1.0 / total, steps + 1);
    sigmas.pop_back();
    sigmas = config_.use_dynamic_shifting
                 ? time_shift(std::move(sigmas), *mu, config_.time_shift_type)
                 : shift_sigmas(std::move(sigmas), config_.flow_shift);
    if (config_.shift_terminal && *config_.shift_terminal != 0) {
        sigmas = stretch_to_terminal(std::move(sigmas), *config_.shift_terminal);
    }
    // A first sigma of exactly 1 would make log(alpha) -inf in the first updates.
    constexpr double eps = 1e-6;
    if (std::fabs(sigmas[0] - 1) < eps) {
        sigmas[0] -= eps;
    }
    std::vector<std::int64_t> timesteps;
    for (double sigma : sigmas) {
        timesteps.push_back(static_cast<std::int64_t>(sigma * total));
    }
    sigmas.push_back(config_.final_sigmas_type == FinalSigmasType::Zero ? 0.0 : sigmas.back());

    sigmas_ = torch::tensor(sigmas, torch::kFloat64).to(torch::kFloat32);
    timesteps_ = torch::tensor(timesteps, torch::kLong);
    num_inference_steps_ = static_cast<int>(timesteps.size());
    model_outputs_.assign(static_cast<std::size_t>(config_.solver_order), at::Tensor());
    lower_order_nums_ = 0;
    last_sample_ = at::Tensor();
    step_index_.reset();
    begin_index_.reset();
}

void UniPCMultistepScheduler::check_ready() const {
    if (num_inference_steps_ == 0) {
        throw core::Error(core::ErrorCode::Internal, "UniPC used before set_timesteps()");
    }
}

at::Tensor UniPCMultistepScheduler::sigma_at(std::int64_t index) const {
    return sigmas_[index];
}

std::int64_t UniPCMultistepScheduler::index_for_timestep(std::int64_t timestep) const {
    check_ready();
    const std::int64_t* values = timesteps_.data_ptr<std::int64_t>();
    std::vector<std::int64_t> matches;
    for (std::int64_t i = 0; i < timesteps_.numel() && matches.size() < 2; ++i) {
        if (values[i] == timestep) {
            matches.push_back(i);
        }
    }
    if (matches.empty()) {
        return timesteps_.numel() - 1;
    }
    return matches.size() > 1 ? matches[1] : matches[0];
}

at::Tensor UniPCMultistepScheduler::convert_model_output(const at::Tensor& model_output,
                                                         const at::Tensor& sample) const {
    return sample - sigma_at(*step_index_) * model_output;
}

at::Tensor UniPCMultistepScheduler::predict(const at::Tensor& sample, int order) const {
    const std::int64_t index = *step_index_;
    const at::Tensor& m0 = model_outputs_.back();
    const AlphaSigma t = flow_alpha_sigma(sigma_at(index + 1));
    const AlphaSigma s0 = flow_alpha_sigma(sigma_at(index));
    const at::Tensor lambda_s0 = log_snr(s0);
    const at::Tensor h = log_snr(t) - lambda_s0;

    std::vector<at::Tensor> rks;
    std::vector<at::Tensor> d1s;
    for (int i = 1; i < order; ++i) {
        const at::Tensor& mi = model_outputs_[model_outputs_.size() - 1 - i];
        const at::Tensor lambda_si = log_snr(flow_alpha_sigma(sigma_at(index - i)));
        const at::Tensor rk = (lambda_si - lambda_s0) / h;
        rks.push_back(rk);
        d1s.push_back((mi - m0) / rk);
    }
    const BhTerms terms = bh_terms(h, rks, order, config_.predict_x0, config_.solver_type);

    const at::Tensor x_t_ = t.sigma / s0.sigma * sample - t.alpha * terms.h_phi_1 * m0;
    if (d1s.empty()) {
        return (x_t_ - t.alpha * terms.b_h * 0).to(sample.scalar_type());
    }
    // Order 2 uses the closed form rho = 1/2 instead of solving the 1x1 system.
    const at::Tensor rhos_p =
        order == 2
            ? torch::ones({1}, sample.options().device(torch::kCPU)) * 0.5
            : at::linalg_solve(terms.r.slice(0, 0, -1).slice(1, 0, -1), terms.b.slice(0, 0, -1))
                  .to(sample.scalar_type());
    const at::Tensor pred_res = contract(rhos_p.to(sample.device()), torch::stack(d1s, 1));
    return (x_t_ - t.alpha * terms.b_h * pred_res).to(sample.scalar_type());
}

at::Tensor UniPCMultistepScheduler::correct(const at::Tensor& this_model_output,
                                            const at::Tensor& last_sample, int order) const {
    const std::int64_t index = *step_index_;
    const at::Tensor& m0 = model_outputs_.back();
    const AlphaSigma t = flow_alpha_sigma(sigma_at(index));
    const AlphaSigma s0 = flow_alpha_sigma(sigma_at(index - 1));
    const at::Tensor lambda_s0 = log_snr(s0);
    const at::Tensor h = log_snr(t) - lambda_s0;

    std::vector<at::Tensor> rks;
    std::vector<at::Tensor> d1s;
    for (int i = 1; i < order; ++i) {
        const at::Tensor& mi = model_outputs_[model_outputs_.size() - 1 - i];
        const at::Tensor lambda_si = log_snr(flow_alpha_sigma(sigma_at(index - (i + 1))));
        const at::Tensor rk = (lambda_si - lambda_s0) / h;
        rks.push_back(rk);
        d1s.push_back((mi - m0) / rk);
    }
    const BhTerms terms = bh_terms(h, rks, order, config_.predict_x0, config_.solver_type);
    const auto dtype = last_sample.scalar_type();
    const at::Tensor rhos_c = order == 1 ? torch::ones({1}, torch::TensorOptions(dtype)) * 0.5
                                         : at::linalg_solve(terms.r, terms.b).to(dtype);

    const at::Tensor x_t_ = t.sigma / s0.sigma * last_sample - t.alpha * terms.h_phi_1 * m0;
    const at::Tensor d1_t = this_model_output - m0;
    at::Tensor update = rhos_c[-1] * d1_t;
    if (!d1s.empty()) {
        update = contract(rhos_c.slice(0, 0, -1).to(last_sample.device()), torch::stack(d1s, 1)) +
                 update;
    }
    return (x_t_ - t.alpha * terms.b_h * update).to(dtype);
}

at::Tensor UniPCMultistepScheduler::step(const at::Tensor& model_output, std::int64_t timestep,
                                         const at::Tensor& sample) {
    check_ready();
    if (!step_index_) {
        step_index_ = begin_index_ ? *begin_index_ : index_for_timestep(timestep);
    }
    const std::int64_t index = *step_index_;
    if (index < 0 || index >= num_inference_steps_) {
        throw core::Error(core::ErrorCode::Internal, "UniPC step past the end of the schedule");
    }
    const auto& disabled = config_.disable_corrector;
    const bool use_corrector =
        index > 0 && std::find(disabled.begin(), disabled.end(), index - 1) == disabled.end() &&
        last_sample_.defined();

    const at::Tensor converted = convert_model_output(model_output, sample);
    at::Tensor current = sample;
    if (use_corrector) {
        current = correct(converted, last_sample_, this_order_);
    }
    std::rotate(model_outputs_.begin(), model_outputs_.begin() + 1, model_outputs_.end());
    model_outputs_.back() = converted;

    int order = config_.solver_order;
    if (config_.lower_order_final) {
        order = static_cast<int>(
            std::min<std::int64_t>(config_.solver_order, num_inference_steps_ - index));
    }
    this_order_ = std::min(order, lower_order_nums_ + 1);
    last_sample_ = current;
    at::Tensor prev_sample = predict(current, this_order_);
    if (lower_order_nums_ < config_.solver_order) {
        ++lower_order_nums_;
    }
    step_index_ = index + 1;
    return prev_sample;
}

at::Tensor UniPCMultistepScheduler::add_noise(const at::Tensor& original, const at::Tensor& noise,
                                              const at::Tensor& timesteps) const {
    check_ready();
    const at::Tensor table = sigmas_.to(original.device(), original.scalar_type());
    const at::Tensor flat = timesteps.detach().to(torch::kCPU, torch::kFloat64).flatten();
    std::vector<std::int64_t> indices;
    for (std::int64_t i = 0; i < flat.size(0); ++i) {
        if (begin_index_) {
            indices.push_back(step_index_ ? *step_index_ : *begin_index_);
            continue;
        }
        const double value = flat[i].item<double>();
        // A fractional timestep matches no int64 entry: the last position, as in diffusers.
        indices.push_back(value == std::floor(value)
                              ? index_for_timestep(static_cast<std::int64_t>(value))
                              : timesteps_.numel() - 1);
    }
    at::Tensor sigma =
        table.index_select(0, torch::tensor(indices, torch::kLong).to(original.device()));
    while (sigma.dim() < original.dim()) {
        sigma = sigma.unsqueeze(-1);
    }
    const AlphaSigma point = flow_alpha_sigma(sigma);
    return point.alpha * original + point.sigma * noise;
}

} // namespace tuneframe::diffusion
