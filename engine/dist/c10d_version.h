#pragma once

// What differs in c10d between the LibTorch versions the engine builds against (Debian 12's
// 1.13, Debian 13's 2.6, PyTorch's 2.x), in one place.

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/version.h>

#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

#include <string>

namespace tuneframe::dist {

// LibTorch 2 split the process group into a front and per-device backends; the backend has the
// collectives we call, with the same signatures.
#if TORCH_VERSION_MAJOR >= 2
using C10dGroup = c10d::Backend;
#else
using C10dGroup = c10d::ProcessGroup;
#endif

// From 2.4 TCPStore asks for its libuv server by default, and a LibTorch built without libuv
// (Debian's) then refuses to start one. Whether it was built with libuv cannot be asked, so the
// store is tried as built and, on that refusal, again with the classic server.
inline void use_classic_tcp_server(c10d::TCPStoreOptions& options) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2)
    options.useLibUV = false;
#else
    (void)options;
#endif
}

// NCCL's point-to-point calls between two ranks share one stream: a group lets a rank's send
// and receive progress together. The group API came with LibTorch 2's backends; the 1.13 the
// engine builds against on CPU has no NCCL, so there it has nothing to group.
inline void begin_point_to_point_group(C10dGroup& group) {
#if TORCH_VERSION_MAJOR >= 2
    group.startCoalescing();
#else
    (void)group;
#endif
}

// The group's one work; null where begin_point_to_point_group grouped nothing.
inline c10::intrusive_ptr<c10d::Work> end_point_to_point_group(C10dGroup& group) {
#if TORCH_VERSION_MAJOR >= 2
    return group.endCoalescing();
#else
    (void)group;
    return {};
#endif
}

inline bool mentions_libuv(const std::string& message) {
    return message.find("libuv") != std::string::npos || message.find("libUV") != std::string::npos;
}

} // namespace tuneframe::dist
