// The GPU list without a GPU: a missing NVML means "CPU only" with the reason, a library that
// is not NVML is named as such, and the default query on a machine without the NVIDIA driver
// says so instead of failing.
#include "app/GpuInventory.h"

#include <QTest>

class TestGpuInventory : public QObject {
    Q_OBJECT

private slots:
    void missingLibraryMeansCpuOnly();
    void libraryWithoutNvmlIsNamed();
    void defaultQueryAnswers();
};

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
