// Caption edits with undo and redo kept in the database: they survive closing and reopening
// the project, a bulk edit is one step, and a stale edit is refused whole.
#include "DatasetFixture.h"

#include "app/captions/CaptionHistory.h"
#include "app/dataset/ClipCuration.h"
#include "app/dataset/ClipStore.h"
#include "app/dataset/ClipTableModel.h"

#include <QDir>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

class TestCaptionHistory : public QObject {
    Q_OBJECT

private slots:
    void init();
    void editUndoRedoSurviveReopening();
    void newEditDiscardsTheRedoSide();
    void bulkEditIsOneStep();
    void staleEditIsRefusedWhole();
    void noOpEditsRecordNothing();
    void captionForAClipWithoutOne();
    void removedClipsTakeTheirStepsAlong();
    void statusRatingTagsAndTrimShareTheCaptionsUndo();

private:
    QString caption(qint64 id) const { return ClipStore(*m_project).clip(id)->caption; }
    void reopen();

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<Project> m_project;
    QVector<qint64> m_ids;
};

void TestCaptionHistory::init() {
    m_project.reset();
    m_root = std::make_unique<QTemporaryDir>();
    m_project = DatasetFixture::createProject(QDir(m_root->path()).filePath(QStringLiteral("p")));
    QVERIFY(m_project);
    m_ids = DatasetFixture::store(*m_project, {DatasetFixture::syntheticClip(0),
                                               DatasetFixture::syntheticClip(1),
                                               DatasetFixture::syntheticClip(2)});
    QCOMPARE(m_ids.size(), 3);
}

void TestCaptionHistory::reopen() {
    const QString folder = m_project->folder();
    m_project.reset();
    m_project = DatasetFixture::openProject(folder);
    QVERIFY(m_project);
}

void TestCaptionHistory::editUndoRedoSurviveReopening() {
    QString error;
    {
        CaptionHistory history(*m_project);
        QVERIFY(!history.canUndo());
        QVERIFY(history.undoText().isEmpty());
        QVector<qint64> changed;
        QVERIFY2(history.setCaption(m_ids[0], QStringLiteral("first edit"), &error, &changed),
                 qPrintable(error));
        QCOMPARE(changed, QVector<qint64>{m_ids[0]});
        QVERIFY(history.setCaption(m_ids[0], QStringLiteral("second edit"), &error));
        QCOMPARE(history.undoText(), QStringLiteral("Undo Caption Edit"));
    }
    reopen();
    QCOMPARE(caption(m_ids[0]), QStringLiteral("second edit"));
    {
        CaptionHistory history(*m_project);
        QVERIFY(history.canUndo());
        QVERIFY(!history.canRedo());
        QVERIFY(history.undo(&error));
        QCOMPARE(caption(m_ids[0]), QStringLiteral("first edit"));
    }
    reopen();
    {
        CaptionHistory history(*m_project);
        QCOMPARE(caption(m_ids[0]), QStringLiteral("first edit"));
        QVERIFY(history.canRedo());
        QCOMPARE(history.redoText(), QStringLiteral("Redo Caption Edit"));
        QVERIFY(history.undo(&error));
        QCOMPARE(caption(m_ids[0]), QStringLiteral("caption 0"));
        QVERIFY(!history.canUndo());
        QVERIFY(!history.undo(&error));
        QVERIFY(error.contains(QStringLiteral("no caption edit to undo")));
    }
    reopen();
    {
        CaptionHistory history(*m_project);
        QVector<qint64> changed;
        QVERIFY(history.redo(&error, &changed));
        QCOMPARE(changed, QVector<qint64>{m_ids[0]});
        QVERIFY(history.redo(&error));
        QCOMPARE(caption(m_ids[0]), QStringLiteral("second edit"));
        QVERIFY(!history.canRedo());

        const QVector<CaptionHistory::Entry> entries = history.clipHistory(m_ids[0]);
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries[0].before, QStringLiteral("caption 0"));
        QCOMPARE(entries[0].after, QStringLiteral("first edit"));
        QCOMPARE(entries[1].after, QStringLiteral("second edit"));
        QCOMPARE(entries[1].kind, CaptionHistory::Kind::Edit);
        QVERIFY(!entries[1].undone);
        QVERIFY(entries[1].createdUtc.isValid());
        QVERIFY(history.clipHistory(m_ids[1]).isEmpty());
    }
}

void TestCaptionHistory::newEditDiscardsTheRedoSide() {
    CaptionHistory history(*m_project);
    QString error;
    QVERIFY(history.setCaption(m_ids[1], QStringLiteral("a"), &error));
    QVERIFY(history.setCaption(m_ids[1], QStringLiteral("b"), &error));
    QVERIFY(history.undo(&error));
    QVERIFY(history.canRedo());
    QVERIFY(history.setCaption(m_ids[2], QStringLiteral("c"), &error));
    QVERIFY(!history.canRedo());
    QCOMPARE(history.clipHistory(m_ids[1]).size(), 1);
    QVERIFY(history.undo(&error));
    QVERIFY(history.undo(&error));
    QCOMPARE(caption(m_ids[1]), QStringLiteral("caption 1"));
    QCOMPARE(caption(m_ids[2]), QStringLiteral("caption 2"));
}

void TestCaptionHistory::bulkEditIsOneStep() {
    CaptionHistory history(*m_project);
    QString error;
    QVector<CaptionHistory::Change> changes;
    for (int index = 0; index < m_ids.size(); ++index)
        changes.append({m_ids[index], QStringLiteral("caption %1").arg(index),
                        QStringLiteral("bulk %1").arg(index)});
    QVector<qint64> changed;
    QVERIFY(history.apply(changes, CaptionHistory::Kind::Replace, &error, &changed));
    QCOMPARE(changed, m_ids);
    QCOMPARE(history.undoText(), QStringLiteral("Undo Replace in Captions (3 clips)"));
    QCOMPARE(caption(m_ids[2]), QStringLiteral("bulk 2"));
    QVERIFY(history.undo(&error, &changed));
    QCOMPARE(changed.size(), 3);
    for (int index = 0; index < m_ids.size(); ++index)
        QCOMPARE(caption(m_ids[index]), QStringLiteral("caption %1").arg(index));
    QVERIFY(!history.canUndo());
}

void TestCaptionHistory::staleEditIsRefusedWhole() {
    CaptionHistory history(*m_project);
    QString error;
    const QVector<CaptionHistory::Change> changes = {
        {m_ids[0], QStringLiteral("caption 0"), QStringLiteral("new 0")},
        {m_ids[1], QStringLiteral("what the preview saw"), QStringLiteral("new 1")}};
    QVERIFY(!history.apply(changes, CaptionHistory::Kind::Replace, &error));
    QVERIFY2(error.contains(QStringLiteral("/data/clip-1.mp4")) &&
                 error.contains(QStringLiteral("Preview")),
             qPrintable(error));
    QCOMPARE(caption(m_ids[0]), QStringLiteral("caption 0"));
    QVERIFY(!history.canUndo());

    QVERIFY(!history.apply({{m_ids[0] + 99, QString(), QStringLiteral("x")}},
                           CaptionHistory::Kind::Edit, &error));
}

void TestCaptionHistory::noOpEditsRecordNothing() {
    CaptionHistory history(*m_project);
    QString error;
    QVector<qint64> changed{42};
    QVERIFY(history.setCaption(m_ids[0], QStringLiteral("caption 0"), &error, &changed));
    QVERIFY(changed.isEmpty());
    QVERIFY(history.apply({}, CaptionHistory::Kind::Replace, &error));
    QVERIFY(!history.canUndo());
}

void TestCaptionHistory::captionForAClipWithoutOne() {
    ClipRecord bare = DatasetFixture::syntheticClip(9);
    bare.caption.clear();
    const qint64 id = DatasetFixture::store(*m_project, {bare}).first();
    CaptionHistory history(*m_project);
    QString error;
    QVERIFY2(history.setCaption(id, QStringLiteral("now described"), &error), qPrintable(error));
    QCOMPARE(caption(id), QStringLiteral("now described"));
    QVERIFY(history.undo(&error));
    QCOMPARE(caption(id), QString());
    QVERIFY(!ClipStore(*m_project).clip(id)->hasCaption());
}

// Removing clips is a step of its own, and takes the clips' history with them: a step that
// changed only removed clips leaves the history, a step that also changed a kept clip stays for
// it. Undoing the removal brings the clip back with its caption and tags, not its history.
void TestCaptionHistory::removedClipsTakeTheirStepsAlong() {
    QString error;
    CaptionHistory history(*m_project);
    QVERIFY(history.setCaption(m_ids[0], QStringLiteral("kept"), &error));
    QVERIFY(history.apply({{m_ids[0], QStringLiteral("kept"), QStringLiteral("kept, both")},
                           {m_ids[1], caption(m_ids[1]), QStringLiteral("removed, both")}},
                          CaptionHistory::Kind::Replace, &error));
    QVERIFY(history.setCaption(m_ids[1], QStringLiteral("removed only"), &error));
    QVERIFY(ClipStore(*m_project).addTags({m_ids[1]}, {QStringLiteral("bird")}, &error));

    QVERIFY2(history.removeClips({m_ids[1]}, &error), qPrintable(error));
    QVERIFY(!ClipStore(*m_project).clip(m_ids[1]).has_value());
    QCOMPARE(ClipStore(*m_project).clipCount(), 2);
    QVERIFY(history.clipHistory(m_ids[1]).isEmpty());
    QCOMPARE(history.undoText(), QStringLiteral("Undo Clip Removal"));
    QVERIFY(history.undo(&error));
    const std::optional<ClipRecord> back = ClipStore(*m_project).clip(m_ids[1]);
    QVERIFY(back.has_value());
    QCOMPARE(back->caption, QStringLiteral("removed only"));
    QCOMPARE(back->tags, QStringList{QStringLiteral("bird")});
    // Under it, the last step (removed only) is gone: undo takes the bulk step, now of one
    // caption.
    QCOMPARE(history.undoText(), QStringLiteral("Undo Replace in Caption"));
    QVERIFY(history.undo(&error));
    QCOMPARE(caption(m_ids[0]), QStringLiteral("kept"));
    QCOMPARE(caption(m_ids[1]), QStringLiteral("removed only"));
    QVERIFY(history.undo(&error));
    QVERIFY(!history.canUndo());
}

// Status, rating, tags and trim are undone and redone in the same stack as captions, in the
// order they were made, also after the project was closed and opened again.
void TestCaptionHistory::statusRatingTagsAndTrimShareTheCaptionsUndo() {
    auto curate = [this](const std::function<void(ClipCuration&)>& use) {
        ClipTableModel model(*m_project);
        QVERIFY(model.reload());
        ClipCuration curation(*m_project, &model);
        use(curation);
    };
    const ClipRecord original = *ClipStore(*m_project).clip(m_ids[0]);
    curate([&](ClipCuration& curation) {
        QVERIFY(curation.setStatus({m_ids[0], m_ids[1]}, ClipStatus::Rejected));
        QCOMPARE(curation.undoText(), QStringLiteral("Undo Status Change (2 clips)"));
        QVERIFY(curation.setCaption(m_ids[0], QStringLiteral("captioned")));
        QVERIFY(curation.setRating({m_ids[0]}, 4));
        QVERIFY(curation.addTags({m_ids[0], m_ids[2]}, {QStringLiteral("bird")}));
        QVERIFY(curation.setTrim(m_ids[0], 10, 60));
        QCOMPARE(curation.undoText(), QStringLiteral("Undo Trim"));
        // Setting what is already set changes nothing, so it records no step.
        QVERIFY(curation.setRating({m_ids[0]}, 4));
        QCOMPARE(curation.undoText(), QStringLiteral("Undo Trim"));
    });
    const ClipRecord edited = *ClipStore(*m_project).clip(m_ids[0]);
    reopen();
    curate([&](ClipCuration& curation) {
        const QStringList expected{
            QStringLiteral("Undo Trim"), QStringLiteral("Undo Tag Change (2 clips)"),
            QStringLiteral("Undo Rating"), QStringLiteral("Undo Caption Edit"),
            QStringLiteral("Undo Status Change (2 clips)")};
        for (const QString& text : expected) {
            QCOMPARE(curation.undoText(), text);
            QVERIFY(curation.undo());
        }
        QVERIFY(!curation.canUndo());
    });
    const ClipRecord undone = *ClipStore(*m_project).clip(m_ids[0]);
    QCOMPARE(undone.status, original.status);
    QCOMPARE(undone.rating, original.rating);
    QCOMPARE(undone.tags, original.tags);
    QCOMPARE(undone.trimIn, original.trimIn);
    QVERIFY(!undone.trimOut.has_value());
    QCOMPARE(undone.caption, original.caption);
    QCOMPARE(ClipStore(*m_project).clip(m_ids[1])->status, original.status);
    QVERIFY(ClipStore(*m_project).clip(m_ids[2])->tags.isEmpty());

    curate([&](ClipCuration& curation) {
        while (curation.canRedo())
            QVERIFY(curation.redo());
    });
    const ClipRecord redone = *ClipStore(*m_project).clip(m_ids[0]);
    QCOMPARE(redone.status, ClipStatus::Rejected);
    QCOMPARE(redone.rating, 4);
    QCOMPARE(redone.tags, QStringList{QStringLiteral("bird")});
    QCOMPARE(redone.trimIn, edited.trimIn);
    QCOMPARE(redone.trimOut, edited.trimOut);
    QCOMPARE(redone.caption, QStringLiteral("captioned"));
    QCOMPARE(ClipStore(*m_project).clip(m_ids[2])->tags, QStringList{QStringLiteral("bird")});
}

QTEST_GUILESS_MAIN(TestCaptionHistory)
#include "TestCaptionHistory.moc"
