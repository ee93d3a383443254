// The per-phase memory table: one row per run and rank, the largest of repeated validation
// phases, gaps for phases a run did not reach, and the Markdown and CSV people paste.
#include "app/runs/RunMemoryTable.h"

#include <QTest>

class TestRunMemoryTable : public QObject {
    Q_OBJECT

private slots:
    void rowsPerRankWithTheLargestOfEachPhase();
};

namespace {

constexpr qint64 kGiB = 1024LL * 1024 * 1024;

MemoryPhaseRecord phase(const QString& name, qint64 step, qint64 rank0, qint64 rank1) {
    MemoryPhaseRecord record{name, step, {}};
    record.memory.append({0, rank0 / 2, rank0, rank0, 80 * kGiB});
    record.memory.append({1, rank1 / 2, rank1, rank1, 80 * kGiB});
    return record;
}

} // namespace

void TestRunMemoryTable::rowsPerRankWithTheLargestOfEachPhase() {
    RunMemoryTable table;
    table.append(QStringLiteral("lr=1e-4 | a"),
                 {phase(QStringLiteral("before_training"), 0, 10 * kGiB, 11 * kGiB),
                  phase(QStringLiteral("before_validation"), 100, 20 * kGiB, 21 * kGiB),
                  phase(QStringLiteral("after_validation"), 100, 30 * kGiB, 22 * kGiB),
                  phase(QStringLiteral("before_validation"), 200, 25 * kGiB, 19 * kGiB),
                  phase(QStringLiteral("validation_denoise"), 200, 27 * kGiB, 0),
                  phase(QStringLiteral("unknown_phase"), 200, 99 * kGiB, 99 * kGiB)});
    table.append(QStringLiteral("lr=3e-4"),
                 {phase(QStringLiteral("before_training"), 0, 12 * kGiB, 12 * kGiB)});
    QCOMPARE(table.rows().size(), 4);
    const RunMemoryTable::Row& first = table.rows().at(0);
    QCOMPARE(first.rank, 0);
    QCOMPARE(first.peakBytes.at(0).value(), 10 * kGiB);
    QCOMPARE(first.peakBytes.at(1).value(), 25 * kGiB); // the larger of steps 100 and 200
    QCOMPARE(first.peakBytes.at(2).value(), 30 * kGiB);
    QVERIFY(!first.peakBytes.at(3).has_value());
    // A validation stage's own column, after cogvideox-factory's four.
    QVERIFY(!first.peakBytes.at(4).has_value());
    QCOMPARE(first.peakBytes.at(6).value(), 27 * kGiB);
    QCOMPARE(table.rows().at(1).peakBytes.at(1).value(), 21 * kGiB);
    QCOMPARE(table.rows().at(3).run, QStringLiteral("lr=3e-4"));

    const QStringList markdown = table.markdown().split(QLatin1Char('\n'));
    QCOMPARE(
        markdown.at(0),
        QStringLiteral("| Run | Rank | Before training (GiB) | Before validation (GiB) | After "
                       "validation (GiB) | After testing (GiB) | Validation: text encoder "
                       "(GiB) | Validation: image (GiB) | Validation: denoising (GiB) | "
                       "Validation: VAE decode (GiB) |"));
    QCOMPARE(
        markdown.at(2),
        QStringLiteral("| lr=1e-4 \\| a | 0 | 10.00 | 25.00 | 30.00 | – | – | – | 27.00 | – |"));
    const QStringList csv = table.csv().split(QLatin1Char('\n'));
    QCOMPARE(csv.at(0), QStringLiteral("run,rank,memory_before_training_gib,"
                                       "memory_before_validation_gib,memory_after_validation_gib,"
                                       "memory_after_testing_gib,memory_validation_text_gib,"
                                       "memory_validation_image_gib,memory_validation_denoise_gib,"
                                       "memory_validation_decode_gib"));
    QCOMPARE(csv.at(4), QStringLiteral("lr=3e-4,1,12.0000,,,,,,,"));
}

QTEST_GUILESS_MAIN(TestRunMemoryTable)
#include "TestRunMemoryTable.moc"
