#include "ui/import/ImportFileDialog.h"

#include <QCheckBox>
#include <QEvent>
#include <QGridLayout>

ImportFileDialog::ImportFileDialog(QWidget* parent)
    : QFileDialog(parent) {
    setOption(QFileDialog::DontUseNativeDialog);
    m_allowOutsideCheckBox = new QCheckBox(this);
    m_allowOutsideCheckBox->setObjectName(QStringLiteral("allowPathsOutsideCheckBox"));
    // Qt's dialog lays itself out in a grid; the checkbox takes a row of its own below it.
    if (auto* grid = qobject_cast<QGridLayout*>(layout()))
        grid->addWidget(m_allowOutsideCheckBox, grid->rowCount(), 0, 1, grid->columnCount());
    retranslateUi();
}

ImportOptions ImportFileDialog::options() const {
    ImportOptions options;
    options.allowPathsOutsideDataset = m_allowOutsideCheckBox->isChecked();
    return options;
}

void ImportFileDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QFileDialog::changeEvent(event);
}

void ImportFileDialog::retranslateUi() {
    m_allowOutsideCheckBox->setText(
        tr("Allow files outside the dataset's folder (for this import only)"));
    m_allowOutsideCheckBox->setToolTip(
        tr("Lets videos.txt, CSV and JSON Lines files and manifests in this import name clips "
           "outside their own folder: absolute paths, “..” and symbolic links that lead out. "
           "Tick it only for dataset files you trust."));
}
