// The GPU list without a GPU: a missing NVML means "CPU only" with the reason, a library that
// is not NVML is named as such, and the default query on a machine without the NVIDIA driver
// says so instead of failing. CUDA_VISIBLE_DEVICES decides which of NVML's GPUs the studio
// offers and under which CUDA index (numbers in PCI bus order, UUIDs, CUDA's stop-at-the-first-
// bad-entry rule), without a GPU: the mapping is a function of NVML's list and the variable.
#include "app/engine/CudaVisibleDevices.h"
#include "app/engine/GpuInventory.h"

#include <QTest>

class TestGpuInventory : public QObject {
    Q_OBJECT

private slots:
    void missingLibraryMeansCpuOnly();
    void libraryWithoutNvmlIsNamed();
    void defaultQueryAnswers();
    void unsetVariableKeepsEveryGpu();
    void numbersSelectAndRenumber();
    void uuidsSelectByUniquePrefix();
    void listStopsAtTheFirstUnusableEntry();
    void emptyVariableHidesEveryGpu();

private:
    static QVector<GpuInfo> fourGpus();
    static QVector<int> nvmlIndices(const QVector<GpuInfo>& gpus);
    static QVector<int> cudaIndices(const QVector<GpuInfo>& gpus);
};

QVector<GpuInfo> TestGpuInventory::fourGpus() {
    QVector<GpuInfo> gpus;
    const QStringList uuids{QStringLiteral("GPU-0a1b2c3d-0000-1111-2222-333344445555"),
                            QStringLiteral("GPU-0a1b9999-0000-1111-2222-333344445555"),
                            QStringLiteral("GPU-77aa0000-0000-1111-2222-333344445555"),
                            QStringLiteral("GPU-88bb0000-0000-1111-2222-333344445555")};
    for (int index = 0; index < uuids.size(); ++index) {
        GpuInfo gpu;
        gpu.index = gpu.nvmlIndex = index;
        gpu.uuid = uuids.at(index);
        gpu.name = QStringLiteral("GPU model %1").arg(index);
        gpu.totalBytes = 80ll << 30;
        gpus.append(gpu);
    }
    return gpus;
}

QVector<int> TestGpuInventory::nvmlIndices(const QVector<GpuInfo>& gpus) {
    QVector<int> indices;
    for (const GpuInfo& gpu : gpus)
        indices.append(gpu.nvmlIndex);
    return indices;
}

QVector<int> TestGpuInventory::cudaIndices(const QVector<GpuInfo>& gpus) {
    QVector<int> indices;
    for (const GpuInfo& gpu : gpus)
        indices.append(gpu.index);
    return indices;
}

void TestGpuInventory::unsetVariableKeepsEveryGpu() {
    const CudaVisibleDevices::Result result = CudaVisibleDevices::apply(fourGpus(), std::nullopt);
    QCOMPARE(nvmlIndices(result.gpus), QVector<int>({0, 1, 2, 3}));
    QCOMPARE(cudaIndices(result.gpus), QVector<int>({0, 1, 2, 3}));
    QVERIFY(result.note.isEmpty());
}

void TestGpuInventory::numbersSelectAndRenumber() {
    // "2,3": the engine's cuda:0 is NVML's GPU 2.
    CudaVisibleDevices::Result result =
        CudaVisibleDevices::apply(fourGpus(), QStringLiteral("2,3"));
    QCOMPARE(nvmlIndices(result.gpus), QVector<int>({2, 3}));
    QCOMPARE(cudaIndices(result.gpus), QVector<int>({0, 1}));
    QCOMPARE(result.gpus.first().name, QStringLiteral("GPU model 2"));
    QVERIFY(result.note.isEmpty());
    // The variable's order is CUDA's order.
    result = CudaVisibleDevices::apply(fourGpus(), QStringLiteral(" 3, 1 "));
    QCOMPARE(nvmlIndices(result.gpus), QVector<int>({3, 1}));
    QCOMPARE(cudaIndices(result.gpus), QVector<int>({0, 1}));
}

void TestGpuInventory::uuidsSelectByUniquePrefix() {
    const CudaVisibleDevices::Result result = CudaVisibleDevices::apply(
        fourGpus(), QStringLiteral("GPU-88bb0000-0000-1111-2222-333344445555,gpu-77aa"));
    QCOMPARE(nvmlIndices(result.gpus), QVector<int>({3, 2}));
    QCOMPARE(cudaIndices(result.gpus), QVector<int>({0, 1}));
    // "GPU-0a1b" fits two GPUs: it names neither, and the list ends there.
    const CudaVisibleDevices::Result ambiguous =
        CudaVisibleDevices::apply(fourGpus(), QStringLiteral("GPU-77aa,GPU-0a1b,3"));
    QCOMPARE(nvmlIndices(ambiguous.gpus), QVector<int>({2}));
    QVERIFY2(ambiguous.note.contains(QStringLiteral("GPU-0a1b")), qPrintable(ambiguous.note));
}

void TestGpuInventory::listStopsAtTheFirstUnusableEntry() {
    // CUDA reads up to the first entry it cannot use: an index it lacks, -1, a repeat, MIG.
    const QList<QPair<QString, QVector<int>>> cases{
        {QStringLiteral("1,7,2"), {1}},
        {QStringLiteral("0,-1,2"), {0}},
        {QStringLiteral("-1"), {}},
        {QStringLiteral("2,2,3"), {2}},
        {QStringLiteral("0,MIG-5d2a-aaaa,1"), {0}},
        {QStringLiteral("3,,1"), {3}},
    };
    for (const auto& [value, expected] : cases) {
        const CudaVisibleDevices::Result result = CudaVisibleDevices::apply(fourGpus(), value);
        QCOMPARE(nvmlIndices(result.gpus), expected);
        QVERIFY2(result.note.contains(QStringLiteral("CUDA_VISIBLE_DEVICES")), qPrintable(value));
    }
}

void TestGpuInventory::emptyVariableHidesEveryGpu() {
    const CudaVisibleDevices::Result result =
        CudaVisibleDevices::apply(fourGpus(), QStringLiteral(""));
    QVERIFY(result.gpus.isEmpty());
    QVERIFY2(result.note.contains(QStringLiteral("CPU")), qPrintable(result.note));
}

void TestGpuInventory::missingLibraryMeansCpuOnly() {
    const GpuInventory::Result result = GpuInventory::query(QStringLiteral("libno-such-nvml.so.1"));
    QVERIFY(result.gpus.isEmpty());
    QVERIFY2(result.problem.contains(QStringLiteral("libno-such-nvml.so.1")),
             qPrintable(result.problem));
    QVERIFY(result.problem.contains(QStringLiteral("CPU")));
}

void TestGpuInventory::libraryWithoutNvmlIsNamed() {
    // zlib is on every machine that builds Tuneframe and exports no NVML symbol.
    const GpuInventory::Result result = GpuInventory::query(QStringLiteral("libz.so.1"));
    QVERIFY(result.gpus.isEmpty());
    QVERIFY2(result.problem.contains(QStringLiteral("not a usable NVML library")),
             qPrintable(result.problem));
}

void TestGpuInventory::defaultQueryAnswers() {
    const GpuInventory::Result result = GpuInventory::query();
    // Either GPUs with names and memory, or none with a reason.
    if (result.gpus.isEmpty()) {
        QVERIFY(!result.problem.isEmpty());
    } else {
        for (const GpuInfo& gpu : result.gpus)
            QVERIFY(!gpu.name.isEmpty() && gpu.totalBytes > 0 && gpu.freeBytes <= gpu.totalBytes);
    }
}

QTEST_GUILESS_MAIN(TestGpuInventory)
#include "TestGpuInventory.moc"
