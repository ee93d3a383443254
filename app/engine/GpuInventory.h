#pragma once

#include <QCoreApplication>
#include <QString>
#include <QVector>

// One NVIDIA GPU as NVML reports it.
struct GpuInfo {
    // The CUDA index the engine uses for it (cuda:N, launch --gpus N), CUDA_VISIBLE_DEVICES
    // taken into account; see CudaVisibleDevices.
    int index = 0;
    // NVML's index, as nvidia-smi shows it (PCI bus order).
    int nvmlIndex = 0;
    QString uuid; // "GPU-…"
    QString name;
    qint64 totalBytes = 0;
    qint64 freeBytes = 0;
};

// The GPUs of this machine that CUDA_VISIBLE_DEVICES lets the engine use, through NVML loaded at
// run time (libnvidia-ml.so.1 comes with the driver, so nothing links against it and a machine
// without one simply has no GPUs). A query takes milliseconds to a second: callers run it off the
// GUI thread.
class GpuInventory {
    Q_DECLARE_TR_FUNCTIONS(GpuInventory)

public:
    struct Result {
        QVector<GpuInfo> gpus;
        QString problem;               // why there are none, when there are none
        qint64 hostAvailableBytes = 0; // memory the CPU can still give (MemAvailable); 0: unknown
    };

    static const char* const kDefaultLibrary;

    // library: the NVML shared library; $TUNEFRAME_NVML_LIBRARY overrides the default.
    static Result query(const QString& library = QString());
    // /proc/meminfo's MemAvailable in bytes; 0 where it cannot be read.
    static qint64 hostAvailableBytes();
};
