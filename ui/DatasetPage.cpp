#include "ui/DatasetPage.h"

#include "ui/EmptyStateWidget.h"

DatasetPage::DatasetPage(QWidget* parent)
    : StudioPage(parent)
    , m_projectEmptyState(new EmptyStateWidget(this)) {
    setObjectName(QStringLiteral("datasetPage"));
    m_projectEmptyState->setObjectName(QStringLiteral("projectEmptyState"));
    m_projectEmptyState->setIcon(QIcon(QStringLiteral(":/icons/dataset.svg")));
    setProjectContent(m_projectEmptyState);
    retranslateUi();
}

void DatasetPage::retranslateUi() {
    StudioPage::retranslateUi();
    setHeader(tr("Dataset"), tr("The clips and captions you train on"));
    m_projectEmptyState->setTitle(tr("No clips in this project yet"));
    m_projectEmptyState->setBody(
        tr("Import a folder of video clips to start your dataset. Each clip then gets a caption, "
           "and the clips you accept become the training set."));
}
