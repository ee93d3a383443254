// Bulk caption edits over a selection: find and replace (plain and regular expression) with a
// before/after preview, trigger words without doubling, each applied in one transaction and
// undone as one step.
#include "DatasetFixture.h"

#include "app/captions/BulkCaptionEdit.h"
#include "app/captions/CaptionHistory.h"
#include "app/dataset/ClipStore.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

class TestBulkCaptionEdit : public QObject {
    Q_OBJECT

private slots:
    void init();
    void plainReplacePreviewApplyUndo();
    void caseInsensitiveReplace();
    void regexReplaceWithGroups();
    void badPatternsAreRefused();
    void triggerWordPrefixAndSuffixNeverDoubled();
    void applyAfterAnEditSincePreviewIsRefused();

private:
    QVector<ClipRecord> clips() const { return ClipStore(*m_project).clips(m_ids); }
    QStringList captions() const;

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<Project> m_project;
    QVector<qint64> m_ids;
};

void TestBulkCaptionEdit::init() {
    m_project.reset();
    m_root = std::make_unique<QTemporaryDir>();
    m_project = DatasetFixture::createProject(QDir(m_root->path()).filePath(QStringLiteral("p")));
    QVERIFY(m_project);
    const QStringList texts = {
        QStringLiteral("A dog runs on the beach. The dog barks."),
        QStringLiteral("A cat sleeps in 2019 light"),
        QStringLiteral("DOG portrait, shot in 2021"),
        QString(),
    };
    QVector<ClipRecord> records;
    for (int index = 0; index < texts.size(); ++index) {
        ClipRecord clip = DatasetFixture::syntheticClip(index);
        clip.caption = texts.at(index);
        records.append(clip);
    }
    m_ids = DatasetFixture::store(*m_project, records);
    QCOMPARE(m_ids.size(), 4);
}

QStringList TestBulkCaptionEdit::captions() const {
    QStringList texts;
    for (const ClipRecord& clip : clips())
        texts.append(clip.caption);
    return texts;
}

void TestBulkCaptionEdit::plainReplacePreviewApplyUndo() {
    const QStringList before = captions();
    QString error;
    BulkCaptionEdit::FindReplace replace;
    replace.find = QStringLiteral("dog");
    replace.replacement = QStringLiteral("puppy");
    const QVector<CaptionHistory::Change> preview =
        BulkCaptionEdit::previewReplace(clips(), replace, &error);
    QVERIFY(error.isEmpty());
    QCOMPARE(preview.size(), 1); // case-sensitive: "DOG" stays
    QCOMPARE(preview[0].clipId, m_ids[0]);
    QCOMPARE(preview[0].before, before[0]);
    QCOMPARE(preview[0].after, QStringLiteral("A puppy runs on the beach. The puppy barks."));
    // A preview changes nothing.
    QCOMPARE(captions(), before);

    CaptionHistory history(*m_project);
    QVERIFY(history.apply(preview, CaptionHistory::Kind::Replace, &error));
    QCOMPARE(captions()[0], preview[0].after);
    QVERIFY(history.undo(&error));
    QCOMPARE(captions(), before);
    QVERIFY(history.redo(&error));
    QCOMPARE(captions()[0], preview[0].after);
}

void TestBulkCaptionEdit::caseInsensitiveReplace() {
    QString error;
    BulkCaptionEdit::FindReplace replace;
    replace.find = QStringLiteral("dog");
    replace.replacement = QStringLiteral("hound");
    replace.caseSensitive = false;
    const QVector<CaptionHistory::Change> preview =
        BulkCaptionEdit::previewReplace(clips(), replace, &error);
    QCOMPARE(preview.size(), 2);
    QCOMPARE(preview[1].after, QStringLiteral("hound portrait, shot in 2021"));

    CaptionHistory history(*m_project);
    QVERIFY(history.apply(preview, CaptionHistory::Kind::Replace, &error));
    QCOMPARE(history.undoText(), QStringLiteral("Undo Replace in Captions (2 clips)"));
    QVERIFY(history.undo(&error));
    QCOMPARE(captions()[2], QStringLiteral("DOG portrait, shot in 2021"));
    QCOMPARE(captions()[0], QStringLiteral("A dog runs on the beach. The dog barks."));
}

void TestBulkCaptionEdit::regexReplaceWithGroups() {
    QString error;
    BulkCaptionEdit::FindReplace replace;
    replace.find = QStringLiteral("(\\w+) in (\\d{4})");
    replace.replacement = QStringLiteral("\\1 (\\2)");
    replace.regularExpression = true;
    const QVector<CaptionHistory::Change> preview =
        BulkCaptionEdit::previewReplace(clips(), replace, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(preview.size(), 2);
    QCOMPARE(preview[0].after, QStringLiteral("A cat sleeps (2019) light"));
    QCOMPARE(preview[1].after, QStringLiteral("DOG portrait, shot (2021)"));

    BulkCaptionEdit::FindReplace anchored;
    anchored.find = QStringLiteral("^a ");
    anchored.replacement = QStringLiteral("One ");
    anchored.regularExpression = true;
    anchored.caseSensitive = false;
    const QVector<CaptionHistory::Change> starts =
        BulkCaptionEdit::previewReplace(clips(), anchored, &error);
    QCOMPARE(starts.size(), 2);
    QCOMPARE(starts[1].after, QStringLiteral("One cat sleeps in 2019 light"));
}

void TestBulkCaptionEdit::badPatternsAreRefused() {
    QString error;
    BulkCaptionEdit::FindReplace replace;
    QVERIFY(BulkCaptionEdit::previewReplace(clips(), replace, &error).isEmpty());
    QVERIFY(!error.isEmpty());
    error.clear();
    replace.find = QStringLiteral("(unclosed");
    replace.regularExpression = true;
    QVERIFY(BulkCaptionEdit::previewReplace(clips(), replace, &error).isEmpty());
    QVERIFY2(error.contains(QStringLiteral("(unclosed")) &&
                 error.contains(QStringLiteral("character")),
             qPrintable(error));
}

void TestBulkCaptionEdit::triggerWordPrefixAndSuffixNeverDoubled() {
    QString error;
    CaptionHistory history(*m_project);
    const QVector<CaptionHistory::Change> prefix = BulkCaptionEdit::previewTriggerWord(
        clips(), QStringLiteral(" sks "), BulkCaptionEdit::TriggerPosition::Prefix, &error);
    QCOMPARE(prefix.size(), 4);
    QCOMPARE(prefix[0].after, QStringLiteral("sks A dog runs on the beach. The dog barks."));
    QCOMPARE(prefix[3].after, QStringLiteral("sks"));
    QVERIFY(history.apply(prefix, CaptionHistory::Kind::TriggerWord, &error));

    // Again, as prefix or as suffix: every caption already has it.
    QVERIFY(BulkCaptionEdit::previewTriggerWord(clips(), QStringLiteral("sks"),
                                                BulkCaptionEdit::TriggerPosition::Prefix, &error)
                .isEmpty());
    QVERIFY(BulkCaptionEdit::previewTriggerWord(clips(), QStringLiteral("sks"),
                                                BulkCaptionEdit::TriggerPosition::Suffix, &error)
                .isEmpty());
    QVERIFY(history.undo(&error));

    // A word inside another word is not the trigger word.
    QVERIFY(history.setCaption(m_ids[1], QStringLiteral("tasks of a cat"), &error));
    const QVector<CaptionHistory::Change> suffix = BulkCaptionEdit::previewTriggerWord(
        clips(), QStringLiteral("sks"), BulkCaptionEdit::TriggerPosition::Suffix, &error);
    QCOMPARE(suffix.size(), 4);
    QCOMPARE(suffix[1].after, QStringLiteral("tasks of a cat sks"));
    QVERIFY(BulkCaptionEdit::containsWord(QStringLiteral("photo of sks, smiling"),
                                          QStringLiteral("sks")));
    QVERIFY(!BulkCaptionEdit::containsWord(QStringLiteral("asks"), QStringLiteral("sks")));
    QVERIFY(BulkCaptionEdit::containsWord(QStringLiteral("a <tok> b"), QStringLiteral("<tok>")));

    QVERIFY(BulkCaptionEdit::previewTriggerWord(clips(), QStringLiteral("  "),
                                                BulkCaptionEdit::TriggerPosition::Suffix, &error)
                .isEmpty());
    QVERIFY(!error.isEmpty());
}

void TestBulkCaptionEdit::applyAfterAnEditSincePreviewIsRefused() {
    QString error;
    BulkCaptionEdit::FindReplace replace;
    replace.find = QStringLiteral("A ");
    replace.replacement = QStringLiteral("One ");
    const QVector<CaptionHistory::Change> preview =
        BulkCaptionEdit::previewReplace(clips(), replace, &error);
    QCOMPARE(preview.size(), 2);
    CaptionHistory history(*m_project);
    QVERIFY(history.setCaption(m_ids[1], QStringLiteral("edited meanwhile"), &error));
    QVERIFY(!history.apply(preview, CaptionHistory::Kind::Replace, &error));
    QCOMPARE(captions()[0], QStringLiteral("A dog runs on the beach. The dog barks."));
    QCOMPARE(captions()[1], QStringLiteral("edited meanwhile"));
}

QTEST_GUILESS_MAIN(TestBulkCaptionEdit)
#include "TestBulkCaptionEdit.moc"
