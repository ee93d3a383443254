#include "engine/diffusion/flow_matching.h"

#include "engine/core/error.h"

#include <torch/torch.h>

#include <cmath>

namespace tuneframe::diffusion {
namespace {

constexpr double kPi = 3.14159265358979323846;

double normal_cdf(double z) {
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

// The mode density's u(q) = 1 - q - s (cos^2(pi q / 2) - 1 + q), in float64.
double mode_u(double q, double scale) {
    const double c = std::cos(kPi * q / 2);
    return 1 - q - scale * (c * c - 1 + q);
}

// q with mode_u(q) = u; mode_u falls from 1 at q = 0 to 0 at q = 1 for the scales allowed.
double mode_quantile(double u, double scale) {
    double low = 0;
    double high = 1;
    for (int i = 0; i < 80; ++i) {
        const double middle = 0.5 * (low + high);
        (mode_u(middle, scale) > u ? low : high) = middle;
    }
    return 0.5 * (low + high);
}

// The quantile (in [0, 1]) of the density's draw that yields u.
double quantile_of_u(const FlowMatchingSampling& sampling, double u) {
    switch (sampling.density) {
    case TimestepDensity::Uniform:
        return u;
    case TimestepDensity::LogitNormal:
        if (u <= 0 || u >= 1) {
            return u <= 0 ? 0.0 : 1.0;
        }
        return normal_cdf((std::log(u / (1 - u)) - sampling.logit_mean) / sampling.logit_std);
    case TimestepDensity::Mode:
        return mode_quantile(u, sampling.mode_scale);
    case TimestepDensity::Invalid:
        break;
    }
    throw core::Error(core::ErrorCode::Internal, "flow-matching sampling without a density");
}

// Moves a float32 sigma one ulp at a time until its timestep sigma * N (float32, as computed
// from it) lies in the window; only float rounding at the window's edge ever needs this.
float nudge_into(const ExpertWindow& window, float sigma, int total) {
    const float toward = window.expert == NoiseExpert::High ? 2.0f : -1.0f;
    for (int i = 0; i < 64 && !window.contains(static_cast<float>(sigma * total)); ++i) {
        sigma = std::nextafter(sigma, toward);
    }
    return sigma;
}

template <typename Enum>
Enum parse_name(const std::string& name, const std::string& field,
                std::initializer_list<std::pair<const char*, Enum>> choices) {
    std::string known;
    for (const auto& [text, value] : choices) {
        if (name == text) {
            return value;
        }
        known += (known.empty() ? "" : ", ") + std::string(text);
    }
    throw core::Error(core::ErrorCode::BadInput,
                      "\"" + field + "\" is \"" + name + "\", which is not a choice.",
                      "Use one of: " + known + ".")
        .with_field(field);
}

} // namespace

ExpertWindow ExpertWindow::from_boundary_ratio(NoiseExpert expert, double boundary_ratio,
                                               int num_train_timesteps) {
    if (!(boundary_ratio > 0 && boundary_ratio < 1)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The expert boundary_ratio must lie between 0 and 1, not " +
                              std::to_string(boundary_ratio) + ".",
                          "Wan 2.2 A14B uses 0.875 (T2V) and 0.9 (I2V).");
    }
    return {expert, boundary_ratio * num_train_timesteps};
}

bool ExpertWindow::contains(double timestep) const {
    return expert == NoiseExpert::High ? timestep >= boundary_timestep
                                       : timestep < boundary_timestep;
}

FlowMatchingTimestepSampler::FlowMatchingTimestepSampler(FlowMatchingSampling sampling)
    : sampling_(sampling)
    , table_(FlowMatchTable::make(sampling.num_train_timesteps, sampling.shift)) {
    if (sampling_.source == SigmaSource::Invalid || sampling_.density == TimestepDensity::Invalid) {
        throw core::Error(core::ErrorCode::Internal, "flow-matching sampling not configured");
    }
    if (!(sampling_.shift > 0) || sampling_.num_train_timesteps < 2) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The flow shift must be positive and the schedule at least 2 steps.",
                          "Wan uses shift 1 to 12 over 1000 timesteps.");
    }
    if (sampling_.density == TimestepDensity::LogitNormal && !(sampling_.logit_std > 0)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The logit-normal standard deviation must be positive.",
                          "Use logit_std 1.0.");
    }
    // Past these scales u(q) of the mode density is not monotone, so no window of u is an
    // interval of draws.
    const double steepest = 1 / (kPi / 2 - 1);
    if (sampling_.window && sampling_.density == TimestepDensity::Mode &&
        !(sampling_.mode_scale >= -1 && sampling_.mode_scale <= steepest)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "An expert window with the mode density needs mode_scale between -1 "
                          "and 1.75.",
                          "Use the default 1.29, or another density.");
    }
    if (sampling_.window) {
        window_rows(); // a window holding no timestep fails here, before training starts
    }
}

at::Tensor FlowMatchingTimestepSampler::density_u(const at::Tensor& draws) const {
    switch (sampling_.density) {
    case TimestepDensity::Uniform:
        return draws;
    case TimestepDensity::LogitNormal:
        return torch::sigmoid(draws * sampling_.logit_std + sampling_.logit_mean);
    case TimestepDensity::Mode:
        return 1 - draws - sampling_.mode_scale * ((kPi * draws / 2).cos().pow(2) - 1 + draws);
    case TimestepDensity::Invalid:
        break;
    }
    throw core::Error(core::ErrorCode::Internal, "flow-matching sampling without a density");
}

TrainingTimesteps FlowMatchingTimestepSampler::from_u(const at::Tensor& u) const {
    const int total = sampling_.num_train_timesteps;
    TrainingTimesteps result;
    result.u = u;
    if (sampling_.source == SigmaSource::Direct) {
        const double shift = sampling_.shift;
        result.sigmas = shift * u / (1 + (shift - 1) * u);
        result.timesteps = result.sigmas * total;
        return result;
    }
    // The clamp only acts where the reference would index past its table (u = 1 from the mode
    // density's q = 0).
    result.indices = (u * total).to(torch::kLong).clamp(0, total - 1);
    result.sigmas = table_.sigmas.index_select(0, result.indices);
    result.timesteps = sampling_.source == SigmaSource::Finetrainers
                           ? (result.sigmas * total).to(torch::kLong)
                           : table_.timesteps.index_select(0, result.indices);
    return result;
}

std::pair<std::int64_t, std::int64_t> FlowMatchingTimestepSampler::window_rows() const {
    const ExpertWindow& window = *sampling_.window;
    const at::Tensor timesteps =
        sampling_.source == SigmaSource::Finetrainers
            ? (table_.sigmas * sampling_.num_train_timesteps).to(torch::kLong).to(torch::kFloat64)
            : table_.timesteps.to(torch::kFloat64);
    const double* values = timesteps.data_ptr<double>();
    std::int64_t first = -1;
    std::int64_t last = -1;
    for (std::int64_t row = 0; row < timesteps.numel(); ++row) {
        if (window.contains(values[row])) {
            first = first < 0 ? row : first;
            last = row + 1;
        }
    }
    if (first < 0) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The expert window at timestep " +
                              std::to_string(window.boundary_timestep) +
                              " holds none of the training timesteps.",
                          "Choose a boundary_ratio between 0 and 1, such as 0.875.");
    }
    return {first, last};
}

// Rescales each draw's quantile into the quantiles whose u lands in the window.
at::Tensor FlowMatchingTimestepSampler::window_draws(const at::Tensor& draws) const {
    const ExpertWindow& window = *sampling_.window;
    double u_low = 0;
    double u_high = 1;
    if (sampling_.source == SigmaSource::Direct) {
        // The inverse of the shift at the boundary's sigma.
        const double s = window.boundary_timestep / sampling_.num_train_timesteps;
        const double u_boundary = s / (sampling_.shift - (sampling_.shift - 1) * s);
        (window.expert == NoiseExpert::High ? u_low : u_high) = u_boundary;
    } else {
        const auto [first, last] = window_rows();
        u_low = static_cast<double>(first) / sampling_.num_train_timesteps;
        u_high = static_cast<double>(last) / sampling_.num_train_timesteps;
    }
    double q_low = quantile_of_u(sampling_, u_low);
    double q_high = quantile_of_u(sampling_, u_high);
    if (q_low > q_high) {
        std::swap(q_low, q_high); // the mode density falls
    }
    at::Tensor quantiles = draws.to(torch::kFloat64);
    if (sampling_.density == TimestepDensity::LogitNormal) {
        quantiles = 0.5 * torch::erfc(-quantiles / std::sqrt(2.0));
    }
    quantiles = q_low + quantiles * (q_high - q_low);
    if (sampling_.density == TimestepDensity::LogitNormal) {
        quantiles = torch::special_ndtri(quantiles);
    }
    return quantiles.to(torch::kFloat32);
}

void FlowMatchingTimestepSampler::clamp_to_window(TrainingTimesteps& result) const {
    const int total = sampling_.num_train_timesteps;
    if (sampling_.source != SigmaSource::Direct) {
        const auto [first, last] = window_rows();
        result.indices = result.indices.clamp(first, last - 1);
        result.sigmas = table_.sigmas.index_select(0, result.indices);
        result.timesteps = sampling_.source == SigmaSource::Finetrainers
                               ? (result.sigmas * total).to(torch::kLong)
                               : table_.timesteps.index_select(0, result.indices);
        return;
    }
    at::Tensor sigmas = result.sigmas.contiguous().clone();
    float* values = sigmas.data_ptr<float>();
    for (std::int64_t i = 0; i < sigmas.numel(); ++i) {
        values[i] = nudge_into(*sampling_.window, values[i], total);
    }
    result.sigmas = sigmas;
    result.timesteps = sigmas * total;
}

TrainingTimesteps FlowMatchingTimestepSampler::sample(const at::Tensor& draws) const {
    if (draws.dim() != 1 || !draws.is_floating_point()) {
        throw core::Error(core::ErrorCode::Internal, "timestep draws must be a 1-D float tensor");
    }
    at::Tensor values = draws.to(torch::kCPU, torch::kFloat32);
    if (sampling_.window) {
        values = window_draws(values);
    }
    TrainingTimesteps result = from_u(density_u(values));
    if (sampling_.window) {
        clamp_to_window(result);
    }
    return result;
}

TimestepDensity parse_timestep_density(const std::string& name, const std::string& field) {
    return parse_name<TimestepDensity>(name, field,
                                       {{"none", TimestepDensity::Uniform},
                                        {"uniform", TimestepDensity::Uniform},
                                        {"logit_normal", TimestepDensity::LogitNormal},
                                        {"mode", TimestepDensity::Mode}});
}

SigmaSource parse_sigma_source(const std::string& name, const std::string& field) {
    return parse_name<SigmaSource>(name, field,
                                   {{"finetrainers", SigmaSource::Finetrainers},
                                    {"diffusers", SigmaSource::Diffusers},
                                    {"direct", SigmaSource::Direct}});
}

LossWeighting parse_loss_weighting(const std::string& name, const std::string& field) {
    return parse_name<LossWeighting>(name, field,
                                     {{"none", LossWeighting::None},
                                      {"sigma_sqrt", LossWeighting::SigmaSqrt},
                                      {"cosmap", LossWeighting::CosMap}});
}

at::Tensor flow_matching_noisy_input(const at::Tensor& x0, const at::Tensor& noise,
                                     const at::Tensor& sigmas) {
    std::vector<std::int64_t> shape(static_cast<std::size_t>(x0.dim()), 1);
    shape[0] = -1;
    const at::Tensor sigma = sigmas.to(x0.device()).view(shape); // [B, 1, ..., 1]
    return (1.0 - sigma) * x0 + sigma * noise;
}

at::Tensor flow_matching_target(const at::Tensor& x0, const at::Tensor& noise) {
    return noise - x0;
}

at::Tensor loss_weighting(LossWeighting weighting, const at::Tensor& sigmas) {
    switch (weighting) {
    case LossWeighting::None:
        return torch::ones_like(sigmas, torch::kFloat32);
    case LossWeighting::SigmaSqrt:
        return sigmas.pow(-2.0).to(torch::kFloat32);
    case LossWeighting::CosMap: {
        const at::Tensor bottom = 1 - 2 * sigmas + 2 * sigmas.pow(2);
        // Python's 2 / t is reciprocal(t) * 2.
        return ((kPi * bottom).reciprocal() * 2).to(torch::kFloat32);
    }
    case LossWeighting::Invalid:
        break;
    }
    throw core::Error(core::ErrorCode::Internal, "flow-matching loss without a weighting");
}

FlowMatchingLoss flow_matching_loss(const at::Tensor& model_pred, const at::Tensor& target,
                                    const at::Tensor& weights) {
    const std::int64_t batch = target.size(0);
    std::vector<std::int64_t> shape(static_cast<std::size_t>(target.dim()), 1);
    shape[0] = -1;
    const at::Tensor weight = weights.to(model_pred.device(), torch::kFloat32).view(shape);
    const at::Tensor squared =
        weight * (model_pred.to(torch::kFloat32) - target.to(torch::kFloat32)).pow(2);
    at::Tensor per_sample = squared.reshape({batch, -1}).mean(1);
    return {per_sample, per_sample.mean()};
}

} // namespace tuneframe::diffusion
