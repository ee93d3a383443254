// Reading the clips prepare left out from a run's prepared.jsonl: a run not yet prepared has
// none, sample lines are not clips left out, a damaged file is an error naming it, and every
// reason reads as words.
#include "app/dataset/PreparedSkips.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestPreparedSkips : public QObject {
    Q_OBJECT

private slots:
    void init();
    void aRunNotYetPreparedLeftNothingOut();
    void readsTheSkippedLinesOnly();
    void aDamagedIndexIsAnErrorNamingIt();
    void reasonsReadAsWords();

private:
    void writeIndex(const QByteArray& text) const;

    std::unique_ptr<QTemporaryDir> m_run;
};

void TestPreparedSkips::init() {
    m_run = std::make_unique<QTemporaryDir>();
    QVERIFY(m_run->isValid());
}

void TestPreparedSkips::writeIndex(const QByteArray& text) const {
    QFile file(m_run->filePath(QStringLiteral("prepared.jsonl")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(text), text.size());
}

void TestPreparedSkips::aRunNotYetPreparedLeftNothingOut() {
    QString error;
    QVERIFY(PreparedSkips::read(m_run->path(), &error).isEmpty());
    QVERIFY(error.isEmpty());
}

void TestPreparedSkips::readsTheSkippedLinesOnly() {
    writeIndex(R"({"v":1,"kind":"dataset","manifest":"m.jsonl","samples":1,"skipped":2}
{"v":1,"kind":"sample","line":1,"path":"/clips/a.mp4","caption":"skipped rope","frames":9}
{"v":1,"kind":"skipped","line":2,"path":"/clips/b.mp4","reason":"too_short","message":"4 frames"}
{"v":1,"kind":"skipped","line":3,"path":"","reason":"bad_manifest_line","message":"line 3: no path"}
)");
    QString error;
    const QVector<PreparedSkips::Clip> clips = PreparedSkips::read(m_run->path(), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(clips.size(), 2);
    QCOMPARE(clips.at(0).path, QStringLiteral("/clips/b.mp4"));
    QCOMPARE(clips.at(0).reason, QStringLiteral("too_short"));
    QCOMPARE(clips.at(0).message, QStringLiteral("4 frames"));
    QCOMPARE(clips.at(1).path, QString());
    QCOMPARE(clips.at(1).reason, QStringLiteral("bad_manifest_line"));
}

void TestPreparedSkips::aDamagedIndexIsAnErrorNamingIt() {
    writeIndex("{\"v\":1,\"kind\":\"dataset\"}\n{\"v\":1,\"kind\":\"skipped\",\"path\":\n");
    QString error;
    QVERIFY(PreparedSkips::read(m_run->path(), &error).isEmpty());
    QVERIFY2(error.contains(QStringLiteral("prepared.jsonl")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("Line 2")), qPrintable(error));
}

void TestPreparedSkips::reasonsReadAsWords() {
    for (const char* reason :
         {"too_short", "no_frame_buckets", "no_resolution_buckets", "invalid_trim",
          "unknown_frame_count", "unknown_size", "not_found", "empty", "not_a_video", "corrupt",
          "unsupported", "io", "outside_dataset", "truncated"}) {
        const PreparedSkips::Clip clip{QStringLiteral("/a.mp4"), QString::fromLatin1(reason),
                                       QStringLiteral("engine words")};
        const QString text = PreparedSkips::reasonText(clip);
        QVERIFY2(!text.contains(QLatin1Char('_')) && text != clip.message, reason);
    }
    // One the studio does not know yet: the engine's own words rather than a code.
    const PreparedSkips::Clip unknown{QString(), QStringLiteral("bad_manifest_line"),
                                      QStringLiteral("line 3: no path")};
    QCOMPARE(PreparedSkips::reasonText(unknown), unknown.message);
}

QTEST_GUILESS_MAIN(TestPreparedSkips)
#include "TestPreparedSkips.moc"
