#include "app/engine/GpuInventory.h"

#include "app/engine/CudaVisibleDevices.h"

#include <QFile>
#include <QLibrary>

const char* const GpuInventory::kDefaultLibrary = "libnvidia-ml.so.1";

namespace {

// The few NVML declarations used (nvml.h is not needed to build): every call returns 0 on
// success; a device handle is an opaque pointer.
using NvmlDevice = void*;
struct NvmlMemory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlCount = int (*)(unsigned int*);
using NvmlHandle = int (*)(unsigned int, NvmlDevice*);
using NvmlName = int (*)(NvmlDevice, char*, unsigned int);
using NvmlUuid = int (*)(NvmlDevice, char*, unsigned int);
using NvmlMemoryInfo = int (*)(NvmlDevice, NvmlMemory*);

} // namespace

qint64 GpuInventory::hostAvailableBytes() {
    QFile file(QStringLiteral("/proc/meminfo"));
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        if (line.startsWith("MemAvailable:")) {
            const QList<QByteArray> fields = line.simplified().split(' ');
            return fields.size() >= 2 ? fields.at(1).toLongLong() * 1024 : 0; // kB
        }
    }
    return 0;
}

GpuInventory::Result GpuInventory::query(const QString& library) {
    Result result;
    result.hostAvailableBytes = hostAvailableBytes();
    QString name = library;
    if (name.isEmpty())
        name = qEnvironmentVariable("TUNEFRAME_NVML_LIBRARY", QString::fromLatin1(kDefaultLibrary));
    QLibrary nvml(name);
    if (!nvml.load()) {
        result.problem = tr("No NVIDIA driver was found (%1 could not be loaded), so training runs "
                            "on the CPU.")
                             .arg(name);
        return result;
    }
    const auto init = reinterpret_cast<NvmlInit>(nvml.resolve("nvmlInit_v2"));
    const auto shutdown = reinterpret_cast<NvmlShutdown>(nvml.resolve("nvmlShutdown"));
    const auto count = reinterpret_cast<NvmlCount>(nvml.resolve("nvmlDeviceGetCount_v2"));
    const auto handle = reinterpret_cast<NvmlHandle>(nvml.resolve("nvmlDeviceGetHandleByIndex_v2"));
    const auto deviceName = reinterpret_cast<NvmlName>(nvml.resolve("nvmlDeviceGetName"));
    const auto memory = reinterpret_cast<NvmlMemoryInfo>(nvml.resolve("nvmlDeviceGetMemoryInfo"));
    // Only needed to match UUIDs in CUDA_VISIBLE_DEVICES; every driver since 2012 has it.
    const auto deviceUuid = reinterpret_cast<NvmlUuid>(nvml.resolve("nvmlDeviceGetUUID"));
    if (!init || !shutdown || !count || !handle || !deviceName || !memory) {
        result.problem = tr("%1 is not a usable NVML library; update the NVIDIA driver.").arg(name);
        return result;
    }
    if (const int status = init(); status != 0) {
        result.problem = tr("The NVIDIA driver did not start (NVML error %1); training runs on "
                            "the CPU.")
                             .arg(status);
        return result;
    }
    unsigned int devices = 0;
    if (count(&devices) == 0) {
        for (unsigned int index = 0; index < devices; ++index) {
            NvmlDevice device = nullptr;
            if (handle(index, &device) != 0)
                continue;
            char text[96] = {};
            NvmlMemory bytes{};
            GpuInfo gpu;
            gpu.index = gpu.nvmlIndex = static_cast<int>(index);
            if (deviceName(device, text, sizeof text) == 0)
                gpu.name = QString::fromUtf8(text);
            char uuid[96] = {};
            if (deviceUuid && deviceUuid(device, uuid, sizeof uuid) == 0)
                gpu.uuid = QString::fromLatin1(uuid);
            if (memory(device, &bytes) == 0) {
                gpu.totalBytes = static_cast<qint64>(bytes.total);
                gpu.freeBytes = static_cast<qint64>(bytes.free);
            }
            result.gpus.append(gpu);
        }
    }
    shutdown();
    if (result.gpus.isEmpty()) {
        result.problem = tr("The NVIDIA driver reports no GPUs, so training runs on the CPU.");
        return result;
    }
    const CudaVisibleDevices::Result visible =
        CudaVisibleDevices::apply(result.gpus, CudaVisibleDevices::fromEnvironment());
    result.gpus = visible.gpus;
    if (result.gpus.isEmpty())
        result.problem = visible.note;
    return result;
}
