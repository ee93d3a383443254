#include "ui/TrainPage.h"

#include "ui/EmptyStateWidget.h"

TrainPage::TrainPage(QWidget* parent)
    : StudioPage(parent)
    , m_projectEmptyState(new EmptyStateWidget(this)) {
    setObjectName(QStringLiteral("trainPage"));
    m_projectEmptyState->setObjectName(QStringLiteral("projectEmptyState"));
    m_projectEmptyState->setIcon(QIcon(QStringLiteral(":/icons/train.svg")));
    setProjectContent(m_projectEmptyState);
    retranslateUi();
}

void TrainPage::retranslateUi() {
    StudioPage::retranslateUi();
    setHeader(tr("Train"), tr("Fine-tune a model on your dataset"));
    m_projectEmptyState->setTitle(tr("No accepted dataset yet"));
    m_projectEmptyState->setBody(
        tr("Training needs an accepted dataset first. On the Dataset page, import clips, caption "
           "them and accept the ones to learn from; then come back here to start a run."));
}
