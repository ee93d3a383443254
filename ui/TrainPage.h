#pragma once

#include "ui/StudioPage.h"

class EmptyStateWidget;

// The Train page: configures and follows training runs. A run needs an accepted dataset,
// which this page asks for until one exists.
class TrainPage : public StudioPage {
    Q_OBJECT

public:
    explicit TrainPage(QWidget* parent = nullptr);

protected:
    void retranslateUi() override;

private:
    EmptyStateWidget* m_projectEmptyState;
};
