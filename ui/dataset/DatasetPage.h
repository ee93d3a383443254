#pragma once

#include "app/dataset/buckets/TrainingClipSettings.h"
#include "app/import/FactoryDatasetSource.h"
#include "app/import/ImportReport.h"
#include "ui/window/StudioPage.h"

#include <QTimer>
#include <QVector>

#include <memory>

class CaptionTokenCounter;
class ClipRecord;
class ClipCuration;
class ClipFilterBar;
class ClipFilterModel;
class ClipGridView;
class ClipImportPanel;
class ClipInspectorPanel;
class ClipTableModel;
class ClipTableView;
class DatasetActions;
class DatasetBulkCommands;
class EmptyStateWidget;
class QAction;
class QComboBox;
class QItemSelection;
class QLabel;
class QMimeData;
class QPushButton;
class QScrollArea;
class QSplitter;
class QStackedWidget;
class QToolButton;
class ThumbnailCache;

// The Dataset page: the project's clips as a thumbnail grid or a table (switchable, sharing one
// filter, sort and selection), a filter bar, and the clip inspector beside them. Clips come in
// through Import or by dropping files and folders on the page; the import runs on its own
// thread with a progress bar and Cancel, and ends with a summary that lists every file left out
// or flagged. Bulk edits work on the selection. Until the project has clips, the page says how
// to get them in.
class DatasetPage : public StudioPage {
    Q_OBJECT

public:
    enum class ViewMode { None, Grid, Table };
    Q_ENUM(ViewMode)

    explicit DatasetPage(QWidget* parent = nullptr);
    ~DatasetPage() override;

    // Imports files and folders in the background. False, doing nothing, without a project or
    // while an import runs.
    bool importPaths(const QStringList& paths);
    // The clips and captions a cogvideox-factory command names (--data_root and its columns).
    bool importFactoryDataset(const FactoryDataset& dataset);
    bool isImporting() const;
    void cancelImport();
    // Reads the clips again after something else added some (the demo project's setup), and
    // looks for a model tokenizer again if none was found.
    void reloadClips();

    // What a run from the Train form does with the clips: the Bucket column and filter, the
    // inspector's bucket line, the bucket preview and the condition frame follow it.
    void setTrainingClipSettings(const TrainingClipSettings& settings);
    const TrainingClipSettings& trainingClipSettings() const { return m_clipSettings; }
    // While the project's clips are still being made (the demo), the empty page says so
    // instead of asking for an import; an empty title goes back to asking.
    void setPreparingNote(const QString& title, const QString& body);

    ViewMode viewMode() const;
    void setViewMode(ViewMode mode);
    QVector<qint64> selectedClipIds() const;
    void selectClips(const QVector<qint64>& clipIds);
    // Selects the project's clips at these file paths, clearing the filter when it hides one of
    // them; returns how many the project holds.
    int showClipsAt(const QStringList& paths);

    ClipTableModel* clipModel() const;
    ClipFilterModel* filterModel() const;
    ClipInspectorPanel* inspector() const;
    DatasetActions* actions() const;
    DatasetBulkCommands* bulkCommands() const;
    QList<QAction*> editMenuActions() const;
    QList<QAction*> datasetMenuActions() const;

signals:
    void importFinished(const ImportReport& report);
    // Bucket lists typed in the bucket preview, for the Train form to take.
    void bucketListsEdited(const std::vector<int>& frames,
                           const std::vector<tuneframe::common::ResolutionBucket>& resolutions);
    // A sentence for the window's status bar.
    void statusMessage(const QString& message);

protected:
    void retranslateUi() override;
    void onProjectChanged() override;
    void onProjectChangedElsewhere() override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    QWidget* createBrowser();
    QWidget* createToolBar();
    void connectActions();
    void openSession();
    void closeSession();
    void reloadKeepingSelection();
    void updateEmptyState();
    void fitInspector();
    void updateActions();
    void updateUndoActions();
    void updateCounts();
    void updateFilterChoices();
    void onSelectionChanged();
    void onImportFinished(const ImportReport& report);
    void onSortChosen();
    void onSortIndicatorChanged(int column, Qt::SortOrder order);
    void setStatus(int status);
    void setRating(int rating);
    void removeSelectedClips();
    void undo();
    void redo();
    void showError(const QString& objectName, const QString& title, const QString& text);
    QVector<ClipRecord> selectedRecords() const;
    QVector<ClipRecord> shownRecords() const;
    // The selection, or every clip shown when nothing is selected.
    QVector<ClipRecord> bulkRecords() const;
    static QStringList localPaths(const QMimeData* mimeData);

    // The open project's objects, created and destroyed together.
    std::shared_ptr<Project> m_sessionProject;
    std::unique_ptr<ClipTableModel> m_clipModel;
    std::unique_ptr<ClipCuration> m_curation;
    std::unique_ptr<ThumbnailCache> m_thumbnails;

    ClipFilterModel* m_filterModel;
    CaptionTokenCounter* m_tokenCounter;
    DatasetActions* m_actions;
    DatasetBulkCommands* m_bulkCommands;
    QStackedWidget* m_contentStack;
    EmptyStateWidget* m_projectEmptyState;
    QPushButton* m_emptyImportButton;
    QWidget* m_browser;
    QToolButton* m_importButton;
    QToolButton* m_editMenuButton;
    QLabel* m_sortLabel;
    QComboBox* m_sortBox;
    QToolButton* m_sortOrderButton;
    ClipFilterBar* m_filterBar;
    ClipImportPanel* m_importPanel;
    QStackedWidget* m_viewStack;
    ClipGridView* m_gridView;
    ClipTableView* m_tableView;
    ClipInspectorPanel* m_inspector;
    QScrollArea* m_inspectorScroll;
    QSplitter* m_splitter;
    QLabel* m_countLabel;
    QTimer m_choicesTimer;
    QTimer m_countsTimer;
    bool m_pageShown = false;
    TrainingClipSettings m_clipSettings;
    bool m_hasClipSettings = false;
    QString m_preparingTitle;
    QString m_preparingBody;
};
