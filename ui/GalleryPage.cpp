#include "ui/GalleryPage.h"

#include "ui/EmptyStateWidget.h"

GalleryPage::GalleryPage(QWidget* parent)
    : StudioPage(parent)
    , m_projectEmptyState(new EmptyStateWidget(this)) {
    setObjectName(QStringLiteral("galleryPage"));
    m_projectEmptyState->setObjectName(QStringLiteral("projectEmptyState"));
    m_projectEmptyState->setIcon(QIcon(QStringLiteral(":/icons/gallery.svg")));
    setProjectContent(m_projectEmptyState);
    retranslateUi();
}

void GalleryPage::retranslateUi() {
    StudioPage::retranslateUi();
    setHeader(tr("Gallery"), tr("Validation videos from your training runs"));
    m_projectEmptyState->setTitle(tr("No validation videos yet"));
    m_projectEmptyState->setBody(
        tr("Validation videos will appear here during training: each time a run checks its "
           "progress, the videos it generates from your prompts are added to this page."));
}
