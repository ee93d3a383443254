#pragma once

#include "app/runs/ValidationVideo.h"
#include "ui/window/StudioPage.h"

#include <QVector>

#include <memory>

class EmptyStateWidget;
class QComboBox;
class QLabel;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTableWidget;
class ThumbnailCache;
class TrainingRuns;
struct Thumbnail;
class VideoPlayerWidget;

// The Gallery page: the validation videos of a run by step (rows) and prompt (columns), newest
// step first, optionally beside a second run's. It shows the newest run that has videos and
// follows a newer one as its videos arrive, until the user picks a run. A click plays a video
// beside the grid; two chosen videos play side by side under one transport, the right one
// following the left frame for frame.
class GalleryPage : public StudioPage {
    Q_OBJECT

public:
    explicit GalleryPage(QWidget* parent = nullptr);
    ~GalleryPage() override;

    void setTrainingRuns(TrainingRuns* runs);
    void showRun(qint64 runId);
    void setComparisonRun(qint64 runId);
    // The video in a table cell (null path for an empty one).
    ValidationVideo videoAt(int row, int column) const;
    QTableWidget* table() const;
    // Plays the two cells' videos side by side, synchronised.
    bool compareCells(int rowA, int columnA, int rowB, int columnB);
    VideoPlayerWidget* leftPlayer() const;
    VideoPlayerWidget* rightPlayer() const;
    qint64 shownRun() const;

protected:
    void retranslateUi() override;

private:
    void reloadRuns();
    void showNewestRunWithVideos();
    void onRunDeleted(qint64 runId);
    void rebuildTable();
    // The grid no narrower than its column titles need, within reason.
    void keepColumnTitlesReadable();
    void onValidationReady(const ValidationVideo& video);
    void onCellActivated(int row, int column);
    void onCompareClicked();
    void updateVisibleState();
    void showPlayers(bool sideBySide);
    void onThumbnailReady(const QString& key, int size, const Thumbnail& thumbnail);

    TrainingRuns* m_runs = nullptr;
    // First frames of the videos, kept in the project's thumbnail cache.
    std::unique_ptr<ThumbnailCache> m_thumbnails;
    qint64 m_runId = 0;
    qint64 m_comparisonRunId = 0;
    // Until the user picks a run, the page moves to each newer run whose videos arrive.
    bool m_followNewest = true;
    QVector<ValidationVideo> m_videos;           // m_runId's
    QVector<ValidationVideo> m_comparisonVideos; // m_comparisonRunId's

    QStackedWidget* m_states;
    EmptyStateWidget* m_emptyState;
    QLabel* m_runLabel;
    QComboBox* m_runCombo;
    QLabel* m_comparisonLabel;
    QComboBox* m_comparisonCombo;
    QPushButton* m_compareButton;
    QTableWidget* m_table;
    QSplitter* m_splitter;
    QWidget* m_players;
    QLabel* m_playingLabel;
    VideoPlayerWidget* m_leftPlayer;
    VideoPlayerWidget* m_rightPlayer;
};
