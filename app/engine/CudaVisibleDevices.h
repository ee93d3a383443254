#pragma once

#include "app/engine/GpuInventory.h"

#include <QCoreApplication>
#include <QString>
#include <QVector>

#include <optional>

// Which of NVML's GPUs a CUDA program started from the studio sees, and under which CUDA index,
// given CUDA_VISIBLE_DEVICES. The engine sets CUDA_DEVICE_ORDER=PCI_BUS_ID before CUDA starts,
// so a plain number in the variable means the GPU NVML (and nvidia-smi) numbers so, and the
// engine's cuda:N is the N-th entry of the variable. Entries follow CUDA's rules: numbers or
// "GPU-" UUIDs (a unique prefix is enough), read up to the first one that names no GPU, a
// repeated one or a MIG instance; an empty value hides every GPU.
class CudaVisibleDevices {
    Q_DECLARE_TR_FUNCTIONS(CudaVisibleDevices)

public:
    static const char* const kVariable;

    struct Result {
        // In CUDA order, each with index set to its CUDA index (nvmlIndex stays NVML's).
        QVector<GpuInfo> gpus;
        // Why some or all GPUs are left out; empty when the variable is unset or fully used.
        QString note;
    };

    // value: the variable's value, nullopt when it is unset (every GPU, in NVML's order).
    static Result apply(const QVector<GpuInfo>& nvmlGpus, const std::optional<QString>& value);
    // This process's CUDA_VISIBLE_DEVICES; nullopt when unset.
    static std::optional<QString> fromEnvironment();
};
