#pragma once

#include <c10/core/DefaultDtype.h>
#include <c10/core/ScalarType.h>

namespace tuneframe::models {

// LibTorch layers allocate their parameters in the default dtype. Building a 5b or 14b model in
// float32 and casting it would need 1.5x its bf16 size and leave the heap fragmented, so the
// default is switched for the construction only. Models are built before any worker thread
// creates tensors, so no other thread sees the temporary default.
class DefaultDtypeGuard {
public:
    explicit DefaultDtypeGuard(c10::ScalarType dtype)
        : previous_(c10::get_default_dtype()) {
        c10::set_default_dtype(c10::scalarTypeToTypeMeta(dtype));
    }
    ~DefaultDtypeGuard() { c10::set_default_dtype(previous_); }
    DefaultDtypeGuard(const DefaultDtypeGuard&) = delete;
    DefaultDtypeGuard& operator=(const DefaultDtypeGuard&) = delete;

private:
    caffe2::TypeMeta previous_;
};

} // namespace tuneframe::models
