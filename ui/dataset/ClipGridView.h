#pragma once

#include <QListView>
#include <QPointer>
#include <QTimer>

class ClipGridDelegate;
class ThumbnailCache;

// The clips as a grid of thumbnails (a QListView in icon mode over ClipFilterModel's name
// column). Thumbnails are asked for as items are painted, so what is on screen comes first;
// once scrolling settles, thumbnails that scrolled out of sight are ranked down and the next
// screenful is asked for in the background. Items are laid out in batches, so a project of
// thousands of clips never holds up the event loop.
class ClipGridView : public QListView {
    Q_OBJECT

public:
    static constexpr int kRepaintDelayMs = 40;
    static constexpr int kSettleDelayMs = 150;
    static constexpr int kLayoutBatchSize = 200;

    explicit ClipGridView(QWidget* parent = nullptr);

    void setThumbnailCache(ThumbnailCache* cache);
    // The first and last rows of the view's model on screen (-1, -1 when none).
    QPair<int, int> visibleRows() const;

protected:
    bool viewportEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    void onThumbnailReady(const QString& key);
    void rankThumbnails();

    ClipGridDelegate* m_delegate;
    QPointer<ThumbnailCache> m_cache;
    QTimer m_repaintTimer;
    QTimer m_settleTimer;
};
