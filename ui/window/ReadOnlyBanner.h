#pragma once

#include <QFrame>

class QLabel;
class QPushButton;

// Above the pages while the open project is another studio's: why this window only shows it,
// and Try Again, which asks for the project once more (the other studio may have let go).
class ReadOnlyBanner : public QFrame {
    Q_OBJECT

public:
    explicit ReadOnlyBanner(QWidget* parent = nullptr);

    // Shown with `reason` (the lock's words: who holds the project); hidden when empty.
    void setReason(const QString& reason);

signals:
    void tryAgainRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();

    QLabel* m_label;
    QPushButton* m_tryAgainButton;
};
