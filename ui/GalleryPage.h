#pragma once

#include "ui/StudioPage.h"

class EmptyStateWidget;

// The Gallery page: the validation videos training runs produce, newest first.
class GalleryPage : public StudioPage {
    Q_OBJECT

public:
    explicit GalleryPage(QWidget* parent = nullptr);

protected:
    void retranslateUi() override;

private:
    EmptyStateWidget* m_projectEmptyState;
};
