#pragma once

#include "app/import/FactoryDatasetSource.h"
#include "app/import/ImportOptions.h"
#include "app/import/ImportReport.h"

#include <QPointer>
#include <QWidget>

#include <memory>

class ClipTableModel;
class ImportRunner;
class Project;
class QLabel;
class QToolButton;
class TaskProgressBar;

// The Dataset page's import: asks for a folder or files (ImportFileDialog, with what the user
// allows for that import), runs ImportRunner on its thread with a progress bar and Cancel, then
// shows a one-line summary with a link to the full report. The report opens by itself when
// files were left out, so nothing is dropped without a word.
class ClipImportPanel : public QWidget {
    Q_OBJECT

public:
    explicit ClipImportPanel(QWidget* parent = nullptr);
    ~ClipImportPanel() override;

    // The project to import into (nullptr: none; a running import is cancelled and waited for).
    // model: where the report looks up the flagged clips, once the owner has read them in.
    void setSession(const std::shared_ptr<Project>& project, ClipTableModel* model);

    // False, doing nothing, without a project or while an import runs.
    bool importPaths(const QStringList& paths, const ImportOptions& options = {});
    bool importFactoryDataset(const FactoryDataset& dataset);
    bool isImporting() const;
    void cancel();
    void chooseFolder();
    void chooseFiles();
    void showReport();

signals:
    void importStarted();
    // The owner reads the changed clips in here, before the summary and report are shown.
    void importFinished(const ImportReport& report);
    void showFlaggedRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    void onProgressed(int done, int total, const QString& path);
    void onFinished(const ImportReport& report);
    void retranslateUi();
    void updateSummary();

    std::shared_ptr<Project> m_project;
    QPointer<ClipTableModel> m_model;
    std::unique_ptr<ImportRunner> m_runner;
    TaskProgressBar* m_progress;
    QWidget* m_summaryBar;
    QLabel* m_summaryLabel;
    QToolButton* m_summaryCloseButton;
    ImportReport m_lastReport;
    bool m_hasReport = false;
};
