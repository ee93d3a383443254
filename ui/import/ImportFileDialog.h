#pragma once

#include "app/import/ImportOptions.h"

#include <QFileDialog>

class QCheckBox;

// The dialog that picks a folder or files to import, with what the user allows for that one
// import: a checkbox lets the dataset files in it (videos.txt, CSV, JSON Lines, manifests) name
// files outside their own folder. Qt's own dialog, since a platform dialog takes no extra
// widgets.
class ImportFileDialog : public QFileDialog {
    Q_OBJECT

public:
    explicit ImportFileDialog(QWidget* parent = nullptr);

    ImportOptions options() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();

    QCheckBox* m_allowOutsideCheckBox;
};
