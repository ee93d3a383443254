#pragma once

#include "app/import/FactoryCommandImport.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

// Paste a cogvideox-factory training command; the dialog shows which flags map to which job
// fields and which are not understood, and Apply hands the mapped settings to the form.
class FactoryImportDialog : public QDialog {
    Q_OBJECT

public:
    explicit FactoryImportDialog(QWidget* parent = nullptr);

    void setCommand(const QString& commandLine);
    FactoryCommandImport::Result result() const;

signals:
    void importAccepted(const QJsonObject& job);
    // The command names its dataset (--data_root and how to read it): import those clips too.
    void datasetImportRequested(const FactoryDataset& dataset);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void reread();

    FactoryCommandImport::Result m_result;
    QLabel* m_intro;
    QPlainTextEdit* m_commandEdit;
    QLabel* m_mappedLabel;
    QPlainTextEdit* m_mapped;
    QLabel* m_unknownLabel;
    QPlainTextEdit* m_unknown;
    QDialogButtonBox* m_buttons;
    QPushButton* m_applyButton;
};
