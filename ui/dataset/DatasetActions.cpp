#include "ui/dataset/DatasetActions.h"

#include "app/dataset/ClipRecord.h"

#include <QAction>
#include <QActionGroup>
#include <QStyle>
#include <QWidget>

DatasetActions::DatasetActions(QWidget* page)
    : QObject(page)
    , m_page(page)
    , m_viewGroup(new QActionGroup(this))
    , m_statusGroup(new QActionGroup(this)) {
    add(Id::ImportFolder, "importFolderAction", QKeySequence(Qt::CTRL | Qt::Key_I));
    add(Id::ImportFiles, "importFilesAction", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
    add(Id::GridView, "gridViewAction", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    add(Id::TableView, "tableViewAction", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    add(Id::FindClips, "findClipsAction", QKeySequence::Find);
    add(Id::EditCaption, "editCaptionAction", QKeySequence(Qt::CTRL | Qt::Key_E));
    add(Id::Undo, "captionUndoAction", QKeySequence::Undo);
    add(Id::Redo, "captionRedoAction", QKeySequence::Redo);
    add(Id::Accept, "acceptClipsAction", QKeySequence(Qt::Key_A), Qt::WidgetWithChildrenShortcut);
    add(Id::NeedsReview, "reviewClipsAction", QKeySequence(Qt::Key_U),
        Qt::WidgetWithChildrenShortcut);
    add(Id::Reject, "rejectClipsAction", QKeySequence(Qt::Key_R), Qt::WidgetWithChildrenShortcut);
    const char* const ratingNames[] = {"rateClips0Action", "rateClips1Action", "rateClips2Action",
                                       "rateClips3Action", "rateClips4Action", "rateClips5Action"};
    for (int rating = 0; rating <= ClipRecord::kMaxRating; ++rating)
        add(static_cast<Id>(static_cast<int>(Id::Rate0) + rating), ratingNames[rating],
            QKeySequence(Qt::Key(Qt::Key_0 + rating)), Qt::WidgetWithChildrenShortcut);
    add(Id::InsertTriggerWord, "insertTriggerWordAction",
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    add(Id::FindReplace, "findReplaceAction", QKeySequence(Qt::CTRL | Qt::Key_H));
    add(Id::AddTriggerWord, "addTriggerWordAction", QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_W));
    add(Id::AddTags, "addTagsAction", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    add(Id::RemoveTags, "removeTagsAction", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    add(Id::RemoveClips, "removeClipsAction", QKeySequence::Delete, Qt::WidgetWithChildrenShortcut);
    add(Id::WriteCaptions, "writeCaptionsAction", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    add(Id::Export, "exportDatasetAction", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    add(Id::BucketPreview, "bucketPreviewAction", QKeySequence(Qt::CTRL | Qt::Key_B));

    for (const Id id : {Id::GridView, Id::TableView}) {
        action(id)->setCheckable(true);
        m_viewGroup->addAction(action(id));
    }
    action(Id::GridView)->setChecked(true);
    action(Id::GridView)->setIcon(page->style()->standardIcon(QStyle::SP_FileDialogListView));
    action(Id::TableView)->setIcon(page->style()->standardIcon(QStyle::SP_FileDialogDetailedView));
    // Checked shows the status of the clip in the inspector; a mixed selection checks none.
    m_statusGroup->setExclusionPolicy(QActionGroup::ExclusionPolicy::ExclusiveOptional);
    for (const Id id : {Id::Accept, Id::NeedsReview, Id::Reject}) {
        action(id)->setCheckable(true);
        m_statusGroup->addAction(action(id));
    }
    retranslateUi();
}

QAction* DatasetActions::add(Id id, const char* objectName, const QKeySequence& shortcut,
                             Qt::ShortcutContext context) {
    auto* created = new QAction(this);
    created->setObjectName(QString::fromLatin1(objectName));
    created->setShortcut(shortcut);
    created->setShortcutContext(context);
    // Bound to the page, so they work where the page has the keyboard; the window's menus
    // list them too, and the page disables them while another page is shown.
    m_page->addAction(created);
    m_actions.insert(id, created);
    return created;
}

QAction* DatasetActions::separator() {
    auto* created = new QAction(this);
    created->setSeparator(true);
    return created;
}

QAction* DatasetActions::action(Id id) const {
    return m_actions.value(id);
}

QList<QAction*> DatasetActions::editMenuActions() const {
    auto* self = const_cast<DatasetActions*>(this);
    return {action(Id::Undo),      action(Id::Redo),        self->separator(),
            action(Id::FindClips), action(Id::FindReplace), action(Id::EditCaption)};
}

QList<QAction*> DatasetActions::datasetMenuActions() const {
    auto* self = const_cast<DatasetActions*>(this);
    QList<QAction*> list{action(Id::ImportFolder), action(Id::ImportFiles), self->separator(),
                         action(Id::GridView),     action(Id::TableView),   self->separator(),
                         action(Id::Accept),       action(Id::NeedsReview), action(Id::Reject)};
    list.append(ratingActions());
    list.append({self->separator(), action(Id::InsertTriggerWord), action(Id::AddTriggerWord),
                 action(Id::AddTags), action(Id::RemoveTags), self->separator(),
                 action(Id::RemoveClips), self->separator(), action(Id::BucketPreview),
                 action(Id::WriteCaptions), action(Id::Export)});
    return list;
}

QList<QAction*> DatasetActions::ratingActions() const {
    QList<QAction*> list;
    for (int rating = 0; rating <= ClipRecord::kMaxRating; ++rating)
        list.append(action(static_cast<Id>(static_cast<int>(Id::Rate0) + rating)));
    return list;
}

void DatasetActions::setUndoText(const QString& text) {
    m_undoText = text;
    action(Id::Undo)->setText(text.isEmpty() ? tr("&Undo") : text);
}

void DatasetActions::setRedoText(const QString& text) {
    m_redoText = text;
    action(Id::Redo)->setText(text.isEmpty() ? tr("&Redo") : text);
}

void DatasetActions::retranslateUi() {
    action(Id::ImportFolder)->setText(tr("Import &Folder…"));
    action(Id::ImportFolder)->setIconText(tr("Import…"));
    action(Id::ImportFolder)
        ->setToolTip(tr("Import every clip in a folder, with the captions beside them (Ctrl+I)"));
    action(Id::ImportFiles)->setText(tr("Import F&iles…"));
    action(Id::GridView)->setText(tr("Show as &Grid"));
    action(Id::GridView)->setToolTip(tr("Show the clips as a grid of thumbnails (Ctrl+Shift+G)"));
    action(Id::TableView)->setText(tr("Show as &Table"));
    action(Id::TableView)->setToolTip(tr("Show the clips as a table (Ctrl+Shift+T)"));
    action(Id::FindClips)->setText(tr("&Search Captions"));
    action(Id::EditCaption)->setText(tr("&Edit Caption"));
    setUndoText(m_undoText);
    setRedoText(m_redoText);
    action(Id::Accept)->setText(tr("&Accept"));
    action(Id::Accept)->setToolTip(tr("Accept for training (A)"));
    action(Id::NeedsReview)->setText(tr("Needs Re&view"));
    action(Id::NeedsReview)->setToolTip(tr("Mark as still to review (U)"));
    action(Id::Reject)->setText(tr("&Reject"));
    action(Id::Reject)->setToolTip(tr("Leave out of training (R)"));
    action(Id::RemoveClips)->setText(tr("Remove from &Project…"));
    action(Id::RemoveClips)
        ->setToolTip(tr("Take the selected clips out of this project; their files stay (Delete)"));
    action(Id::Rate0)->setText(tr("Clear Rating"));
    action(Id::Rate1)->setText(tr("Rate 1 Star"));
    for (int rating = 2; rating <= ClipRecord::kMaxRating; ++rating)
        action(static_cast<Id>(static_cast<int>(Id::Rate0) + rating))
            ->setText(tr("Rate %1 Stars").arg(rating));
    action(Id::InsertTriggerWord)->setText(tr("Insert Tri&gger Word"));
    action(Id::InsertTriggerWord)
        ->setToolTip(tr("Insert the project's trigger word at the cursor (Ctrl+Shift+W)"));
    action(Id::FindReplace)->setText(tr("Find and Re&place in Captions…"));
    action(Id::AddTriggerWord)->setText(tr("Add Trigger &Word to Captions…"));
    action(Id::AddTags)->setText(tr("Add Ta&gs…"));
    action(Id::RemoveTags)->setText(tr("Remo&ve Tags…"));
    action(Id::WriteCaptions)->setText(tr("&Write Captions to .txt Files"));
    action(Id::WriteCaptions)
        ->setToolTip(tr("Save each caption next to its clip, as a .txt file of the same name"));
    action(Id::Export)->setText(tr("E&xport Dataset…"));
    action(Id::Export)->setIconText(tr("Export…"));
    action(Id::BucketPreview)->setText(tr("&Bucket Preview…"));
    action(Id::BucketPreview)->setIconText(tr("Buckets…"));
}
