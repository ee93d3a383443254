#pragma once

#include "app/dataset/ClipRecord.h"
#include "app/import/ImportReport.h"

#include <QDialog>
#include <QVector>

class QLabel;
class QListWidget;
class QPushButton;

// What an import did, in full: the counts, sources refused as a whole, files left out and
// why, and the clips added with a problem (each with the sentence that names the file and the
// fix). Flagged clips stay in the project; Show Flagged Clips filters the browser to them.
class ImportReportDialog : public QDialog {
    Q_OBJECT

public:
    // flagged: the imported clips that have a problem.
    ImportReportDialog(const ImportReport& report, const QVector<ClipRecord>& flagged,
                       QWidget* parent = nullptr);

    int entryCount() const;

signals:
    void showFlaggedRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void fillList();

    ImportReport m_report;
    QVector<ClipRecord> m_flagged;
    QLabel* m_summaryLabel;
    QListWidget* m_list;
    QPushButton* m_showFlaggedButton;
    QPushButton* m_closeButton;
};
