#include "tests/engine/trainer/host_backed_device.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>
#include <torch/version.h>

#include <cstdlib>
#include <cstring>

namespace tuneframe::test {
namespace {

constexpr c10::DeviceType kHostBacked = c10::DeviceType::XPU;
constexpr std::size_t kAlignment = 64;

c10::Device the_device() {
    return {kHostBacked, 0};
}

void free_host(void* data) {
    std::free(data);
}

class HostAllocator final : public c10::Allocator {
public:
#if TORCH_VERSION_MAJOR >= 2
    c10::DataPtr allocate(std::size_t bytes) override {
        return allocate_bytes(bytes);
    }
    void copy_data(void* destination, const void* source, std::size_t bytes) const override {
        default_copy_data(destination, source, bytes);
    }
#else
    c10::DataPtr allocate(std::size_t bytes) const override {
        return allocate_bytes(bytes);
    }
#endif
    c10::DeleterFnPtr raw_deleter() const override {
        return &free_host;
    }

private:
    static c10::DataPtr allocate_bytes(std::size_t bytes) {
        void* data = bytes == 0 ? nullptr
                                : std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) /
                                                                     kAlignment * kAlignment);
        TORCH_CHECK(bytes == 0 || data != nullptr, "host-backed device: out of memory");
        return {data, data, &free_host, the_device()};
    }
};

HostAllocator& allocator() {
    static HostAllocator instance;
    return instance;
}

// One device, one default stream: enough for the autograd engine's per-device thread.
class HostBackedGuard final : public c10::impl::DeviceGuardImplInterface {
public:
    c10::DeviceType type() const override { return kHostBacked; }
    c10::Device exchangeDevice(c10::Device) const override { return the_device(); }
    c10::Device getDevice() const override { return the_device(); }
    void setDevice(c10::Device) const override {}
    void uncheckedSetDevice(c10::Device) const noexcept override {}
    c10::Stream getStream(c10::Device device) const noexcept override {
        return c10::Stream(c10::Stream::DEFAULT, device);
    }
    c10::Stream exchangeStream(c10::Stream stream) const noexcept override { return stream; }
    c10::DeviceIndex deviceCount() const noexcept override { return 1; }
};

C10_REGISTER_GUARD_IMPL(XPU, HostBackedGuard);

// The same memory seen as a CPU tensor, for the few kernels written here.
at::Tensor on_host(const at::Tensor& tensor) {
    if (tensor.is_cpu()) {
        return tensor;
    }
    return at::from_blob(tensor.data_ptr(), tensor.sizes(), tensor.strides(),
                         tensor.options().device(c10::kCPU));
}

at::Tensor empty(c10::IntArrayRef sizes, c10::optional<at::ScalarType> dtype,
                 c10::optional<at::Layout>, c10::optional<at::Device>, c10::optional<bool>,
                 c10::optional<at::MemoryFormat> format) {
    return at::detail::empty_generic(sizes, &allocator(),
                                     c10::DispatchKeySet(c10::DispatchKey::XPU),
                                     c10::dtype_or_default(dtype), format);
}

at::Tensor empty_strided(c10::IntArrayRef sizes, c10::IntArrayRef strides,
                         c10::optional<at::ScalarType> dtype, c10::optional<at::Layout>,
                         c10::optional<at::Device>, c10::optional<bool>) {
    return at::detail::empty_strided_generic(sizes, strides, &allocator(),
                                             c10::DispatchKeySet(c10::DispatchKey::XPU),
                                             c10::dtype_or_default(dtype));
}

// Copies in and out of the device, and within it, are host copies.
at::Tensor& copy(at::Tensor& self, const at::Tensor& source, bool) {
    on_host(self).copy_(on_host(source));
    return self;
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& destination, bool) {
    on_host(destination).copy_(on_host(self));
    return destination;
}

const at::Tensor& resize_storage(const at::Tensor& self, c10::IntArrayRef sizes,
                                 c10::optional<at::MemoryFormat>) {
    c10::TensorImpl* impl = self.unsafeGetTensorImpl();
    impl->set_sizes_contiguous(sizes);
    const auto bytes = static_cast<std::size_t>(impl->storage_offset() + impl->numel()) *
                       static_cast<std::size_t>(self.element_size());
    c10::Storage storage = impl->storage();
    if (bytes > storage.nbytes()) {
        c10::DataPtr larger = allocator().allocate(bytes);
        if (storage.nbytes() > 0) {
            std::memcpy(larger.get(), storage.data(), storage.nbytes());
        }
        storage.set_data_ptr_noswap(std::move(larger));
        storage.set_nbytes(bytes);
    }
    return self;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& destination) {
    if (destination.sizes() != self.sizes()) {
        resize_storage(destination, self.sizes(), c10::nullopt);
    }
    return copy_from(self, destination, false);
}

at::Scalar local_scalar(const at::Tensor& self) {
    return on_host(self).item();
}

// Views share storage, so they cannot go through the copying fallback; the CPU's are generic.
at::Tensor view(const at::Tensor& self, c10::IntArrayRef sizes) {
    return at::native::view(self, sizes);
}

at::Tensor as_strided(const at::Tensor& self, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                      c10::optional<std::int64_t> offset) {
    return at::native::as_strided_tensorimpl(self, sizes, strides, offset);
}

at::Tensor reshape_alias(const at::Tensor& self, c10::IntArrayRef sizes, c10::IntArrayRef strides) {
    return at::native::_reshape_alias(self, sizes, strides);
}

c10::optional<at::Tensor> on_host(const c10::optional<at::Tensor>& tensor) {
    if (!tensor.has_value() || !tensor->defined()) {
        return c10::nullopt;
    }
    return tensor->cpu();
}

at::Tensor back_on_device(const at::Tensor& tensor) {
    return tensor.defined() ? tensor.to(the_device()) : tensor;
}

// Convolution picks its kernel by device and leaves unknown devices these two entry points.
at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight,
                       const c10::optional<at::Tensor>& bias, c10::IntArrayRef stride,
                       c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                       c10::IntArrayRef output_padding, std::int64_t groups) {
    return back_on_device(at::convolution(input.cpu(), weight.cpu(), on_host(bias), stride, padding,
                                          dilation, transposed, output_padding, groups));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
convolution_backward(const at::Tensor& grad_output, const at::Tensor& input,
                     const at::Tensor& weight, c10::IntArrayRef stride, c10::IntArrayRef padding,
                     c10::IntArrayRef dilation, bool transposed, c10::IntArrayRef output_padding,
                     std::int64_t groups, std::array<bool, 3> mask) {
    const std::int64_t channels = transposed ? weight.size(1) * groups : weight.size(0);
    const auto [input_grad, weight_grad, bias_grad] = at::convolution_backward(
        grad_output.cpu(), input.cpu(), weight.cpu(), c10::IntArrayRef{channels}, stride, padding,
        dilation, transposed, output_padding, groups, mask);
    return {back_on_device(input_grad), back_on_device(weight_grad), back_on_device(bias_grad)};
}

// LibTorch 2 picks a fused attention kernel per device type from a table with no XPU entry in
// builds without XPU, and asserts; the math version, registered above autograd, decomposes into
// operators that record their own backward.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
at::Tensor attention(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                     const c10::optional<at::Tensor>& mask, double dropout, bool causal,
                     c10::optional<double> scale, bool grouped_query) {
    return std::get<0>(at::_scaled_dot_product_attention_math(
        query, key, value, mask, dropout, causal, c10::nullopt, scale, grouped_query));
}
#elif TORCH_VERSION_MAJOR == 2
at::Tensor attention(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                     const c10::optional<at::Tensor>& mask, double dropout, bool causal,
                     c10::optional<double> scale) {
    return std::get<0>(at::_scaled_dot_product_attention_math(query, key, value, mask, dropout,
                                                              causal, c10::nullopt, scale));
}
#endif

void run_on_the_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
    at::native::cpu_fallback(op, stack);
}

} // namespace

c10::Device host_backed_device() {
    return the_device();
}

} // namespace tuneframe::test

TORCH_LIBRARY_IMPL(aten, XPU, m) {
    using namespace tuneframe::test;
    m.impl("empty.memory_format", TORCH_FN(empty));
    m.impl("empty_strided", TORCH_FN(empty_strided));
    m.impl("copy_", TORCH_FN(copy));
    m.impl("_copy_from", TORCH_FN(copy_from));
    m.impl("_copy_from_and_resize", TORCH_FN(copy_from_and_resize));
    m.impl("resize_", TORCH_FN(resize_storage));
    m.impl("_local_scalar_dense", TORCH_FN(local_scalar));
    m.impl("view", TORCH_FN(view));
    m.impl("as_strided", TORCH_FN(as_strided));
    m.impl("_reshape_alias", TORCH_FN(reshape_alias));
    m.impl("convolution_overrideable", TORCH_FN(convolution));
    m.impl("convolution_backward_overrideable", TORCH_FN(convolution_backward));
}

TORCH_LIBRARY_IMPL(_, XPU, m) {
    m.fallback(torch::CppFunction::makeFromBoxedFunction<&tuneframe::test::run_on_the_cpu>());
}

#if TORCH_VERSION_MAJOR >= 2
TORCH_LIBRARY_IMPL(aten, AutogradXPU, m) {
    m.impl("scaled_dot_product_attention", TORCH_FN(tuneframe::test::attention));
}
#endif
