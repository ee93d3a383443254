#pragma once

#include <QCoreApplication>
#include <QString>
#include <QVector>

// One NVIDIA GPU as NVML reports it.
struct GpuInfo {
    int index = 0;
    QString name;
    qint64 totalBytes = 0;
    qint64 freeBytes = 0;
};

// The GPUs of this machine, through NVML loaded at run time (libnvidia-ml.so.1 comes with the
// driver, so nothing links against it and a machine without one simply has no GPUs). A query
// takes milliseconds to a second: callers run it off the GUI thread.
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
