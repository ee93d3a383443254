#pragma once

#include "app/dataset/ClipRecord.h"
#include "app/dataset/DatasetExporter.h"

#include <QDialog>
#include <QVector>

class ExportRunner;
class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;

// Exports clips for training: as the JSON Lines manifest tuneframe-engine's prepare reads, or
// as a cogvideox-factory folder (prompt.txt, videos.txt, trimmed clips cut into videos/). The
// export runs on ExportRunner's thread with a progress bar and Cancel; the dialog then lists
// what was written and every clip left out, with the reason.
class ExportDatasetDialog : public QDialog {
    Q_OBJECT

public:
    // selected: the clips selected in the browser; shown: every clip the filter shows.
    // projectFolder: where the default destinations go (<project>/exports/).
    ExportDatasetDialog(const QVector<ClipRecord>& selected, const QVector<ClipRecord>& shown,
                        const QString& projectFolder, QWidget* parent = nullptr);
    ~ExportDatasetDialog() override;

    bool isExporting() const;
    QString destination() const;
    void setDestination(const QString& destination);
    void setFormatFactoryLayout(bool factoryLayout);
    // Starts the export with the current choices (what the Export button does).
    void startExport();

signals:
    void exportFinished(const DatasetExporter::Report& report);

public slots:
    void reject() override;

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void updateControls();
    void onFormatChanged();
    void onBrowseClicked();
    void onProgressed(int done, int total);
    void onFinished(const DatasetExporter::Report& report);
    QString defaultDestination(bool factoryLayout) const;

    QVector<ClipRecord> m_selected;
    QVector<ClipRecord> m_shown;
    QString m_projectFolder;
    ExportRunner* m_runner;
    bool m_closeWhenFinished = false;
    QLabel* m_formatLabel;
    QRadioButton* m_manifestButton;
    QRadioButton* m_factoryButton;
    QLabel* m_destinationLabel;
    QLineEdit* m_destinationEdit;
    QPushButton* m_browseButton;
    QLabel* m_scopeLabel;
    QRadioButton* m_selectedButton;
    QRadioButton* m_shownButton;
    QCheckBox* m_needsReviewCheck;
    QCheckBox* m_uncaptionedCheck;
    QProgressBar* m_progress;
    QLabel* m_resultLabel;
    QPlainTextEdit* m_details;
    QPushButton* m_exportButton;
    QPushButton* m_closeButton;
};
