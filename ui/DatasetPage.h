#pragma once

#include "ui/StudioPage.h"

class EmptyStateWidget;

// The Dataset page: the clips of the project, their captions and which are accepted for
// training. Until clips exist it says how to get them in.
class DatasetPage : public StudioPage {
    Q_OBJECT

public:
    explicit DatasetPage(QWidget* parent = nullptr);

protected:
    void retranslateUi() override;

private:
    EmptyStateWidget* m_projectEmptyState;
};
