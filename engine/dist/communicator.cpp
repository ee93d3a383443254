#include "engine/dist/communicator.h"

#include "engine/core/error.h"

#include <ATen/ops/tensor.h>

namespace tuneframe::dist {
namespace {

at::Tensor on_group(Communicator& group, const at::Tensor& host) {
    return host.to(group.device());
}

} // namespace

void Communicator::check_device(const at::Tensor& tensor, const char* collective) const {
    if (tensor.device() == device()) {
        return;
    }
    throw core::Error(core::ErrorCode::Internal,
                      std::string("The collective ") + collective + " of rank " +
                          std::to_string(rank()) + " was handed a tensor on " +
                          tensor.device().str() + ", but this " + backend() + " group works on " +
                          device().str() + ".",
                      "This is a bug in Tuneframe: please report it with the job file.");
}

std::vector<double> all_reduce_values(Communicator& group, const std::vector<double>& values) {
    at::Tensor tensor = on_group(group, at::tensor(values, at::kDouble));
    group.all_reduce(tensor);
    tensor = tensor.cpu();
    const double* data = tensor.data_ptr<double>();
    return {data, data + tensor.numel()};
}

std::vector<std::int64_t> all_gather_values(Communicator& group,
                                            const std::vector<std::int64_t>& values) {
    const at::Tensor mine = on_group(group, at::tensor(values, at::kLong));
    const at::Tensor everyone = group.all_gather(mine).cpu().contiguous();
    const std::int64_t* data = everyone.data_ptr<std::int64_t>();
    return {data, data + everyone.numel()};
}

std::int64_t broadcast_value(Communicator& group, std::int64_t value, int root) {
    at::Tensor tensor = on_group(group, at::tensor(std::vector<std::int64_t>{value}, at::kLong));
    group.broadcast(tensor, root);
    return tensor.cpu().data_ptr<std::int64_t>()[0];
}

} // namespace tuneframe::dist
