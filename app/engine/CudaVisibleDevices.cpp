#include "app/engine/CudaVisibleDevices.h"

const char* const CudaVisibleDevices::kVariable = "CUDA_VISIBLE_DEVICES";

namespace {

const QString kUuidPrefix = QStringLiteral("GPU-");

// The position in nvmlGpus of the GPU an entry names; -1 when it names none (or several).
int findGpu(const QVector<GpuInfo>& nvmlGpus, const QString& entry) {
    bool isNumber = false;
    const int number = entry.toInt(&isNumber);
    if (isNumber) {
        for (int position = 0; position < nvmlGpus.size(); ++position) {
            if (number >= 0 && nvmlGpus.at(position).nvmlIndex == number)
                return position;
        }
        return -1;
    }
    if (!entry.startsWith(kUuidPrefix, Qt::CaseInsensitive) || entry.size() == kUuidPrefix.size())
        return -1;
    int found = -1;
    for (int position = 0; position < nvmlGpus.size(); ++position) {
        if (!nvmlGpus.at(position).uuid.startsWith(entry, Qt::CaseInsensitive))
            continue;
        if (found >= 0)
            return -1; // an ambiguous prefix names no GPU for CUDA either
        found = position;
    }
    return found;
}

} // namespace

CudaVisibleDevices::Result CudaVisibleDevices::apply(const QVector<GpuInfo>& nvmlGpus,
                                                     const std::optional<QString>& value) {
    Result result;
    if (!value) {
        result.gpus = nvmlGpus;
        for (GpuInfo& gpu : result.gpus)
            gpu.index = gpu.nvmlIndex;
        return result;
    }
    const QString text = value->trimmed();
    QVector<int> taken;
    const QStringList entries = text.isEmpty() ? QStringList() : text.split(QLatin1Char(','));
    for (const QString& raw : entries) {
        const QString entry = raw.trimmed();
        const int position = findGpu(nvmlGpus, entry);
        if (position < 0 || taken.contains(position)) {
            // CUDA stops reading at the first entry it cannot use; so does the list here.
            result.note = tr("CUDA_VISIBLE_DEVICES is \"%1\": \"%2\" names no GPU of this "
                             "computer, so it and the entries after it are left out.")
                              .arg(text, entry);
            break;
        }
        taken.append(position);
        GpuInfo gpu = nvmlGpus.at(position);
        gpu.index = static_cast<int>(result.gpus.size());
        result.gpus.append(gpu);
    }
    if (result.gpus.isEmpty() && result.note.isEmpty())
        result.note = tr("CUDA_VISIBLE_DEVICES is empty, which hides every GPU, so training runs "
                         "on the CPU.");
    return result;
}

std::optional<QString> CudaVisibleDevices::fromEnvironment() {
    if (!qEnvironmentVariableIsSet(kVariable))
        return std::nullopt;
    return qEnvironmentVariable(kVariable);
}
