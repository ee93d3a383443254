#include "app/dataset/ClipTableModel.h"

#include "app/captions/CaptionHistory.h"
#include "app/captions/CaptionLength.h"
#include "app/dataset/ClipStore.h"
#include "app/project/Project.h"

#include <QDir>
#include <QLocale>
#include <QSet>

namespace {

constexpr QChar kStar(0x2605);

// Bounded, so a caption of megabytes costs a view no more than a short one.
QString firstLine(const QString& text) {
    const QString start = CaptionLength::head(text, CaptionLength::kPreviewLength + 1);
    const qsizetype end = start.indexOf(QLatin1Char('\n'));
    if (end >= 0)
        return start.left(end) + QStringLiteral(" …");
    return CaptionLength::preview(text);
}

} // namespace

ClipTableModel::ClipTableModel(const Project& project, QObject* parent)
    : QAbstractTableModel(parent)
    , m_project(project)
    , m_bucketConfig(BucketPreview::defaultConfig()) {}

bool ClipTableModel::reload() {
    QString error;
    QVector<ClipRecord> clips = ClipStore(m_project).allClips(&error);
    if (!error.isEmpty()) {
        emit loadFailed(error);
        return false;
    }
    beginResetModel();
    m_clips = std::move(clips);
    m_placements.clear();
    m_placements.reserve(m_clips.size());
    for (const ClipRecord& clip : std::as_const(m_clips))
        m_placements.append(BucketPreview::place(clip, m_bucketConfig));
    rebuildIndex();
    endResetModel();
    return true;
}

void ClipTableModel::refreshClips(const QVector<qint64>& clipIds) {
    const QVector<ClipRecord> fresh = ClipStore(m_project).clips(clipIds);
    QSet<qint64> found;
    for (const ClipRecord& clip : fresh) {
        found.insert(clip.id);
        const int row = rowOfClip(clip.id);
        if (row >= 0) {
            m_clips[row] = clip;
            m_placements[row] = BucketPreview::place(clip, m_bucketConfig);
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
            continue;
        }
        const int newRow = static_cast<int>(m_clips.size());
        beginInsertRows(QModelIndex(), newRow, newRow);
        m_clips.append(clip);
        m_placements.append(BucketPreview::place(clip, m_bucketConfig));
        m_rowOfClip.insert(clip.id, newRow);
        endInsertRows();
    }
    for (const qint64 id : clipIds) {
        const int row = rowOfClip(id);
        if (found.contains(id) || row < 0)
            continue;
        beginRemoveRows(QModelIndex(), row, row);
        m_clips.removeAt(row);
        m_placements.removeAt(row);
        rebuildIndex();
        endRemoveRows();
    }
}

void ClipTableModel::setBucketConfig(const tuneframe::common::BucketConfig& config) {
    m_bucketConfig = config;
    for (int row = 0; row < m_clips.size(); ++row)
        m_placements[row] = BucketPreview::place(m_clips.at(row), m_bucketConfig);
    if (!m_clips.isEmpty())
        emit dataChanged(index(0, BucketColumn), index(rowCount() - 1, BucketColumn));
}

const tuneframe::common::BucketConfig& ClipTableModel::bucketConfig() const {
    return m_bucketConfig;
}

const ClipRecord& ClipTableModel::record(int row) const {
    return m_clips.at(row);
}

const BucketPreview::Placement& ClipTableModel::placement(int row) const {
    return m_placements.at(row);
}

int ClipTableModel::rowOfClip(qint64 clipId) const {
    return m_rowOfClip.value(clipId, -1);
}

QVector<ClipRecord> ClipTableModel::records() const {
    return m_clips;
}

void ClipTableModel::rebuildIndex() {
    m_rowOfClip.clear();
    for (int row = 0; row < m_clips.size(); ++row)
        m_rowOfClip.insert(m_clips.at(row).id, row);
}

int ClipTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_clips.size());
}

int ClipTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ClipTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const int row = index.row();
    const ClipRecord& clip = m_clips.at(row);
    switch (role) {
    case Qt::DisplayRole:
        return displayData(clip, row, index.column());
    case Qt::EditRole:
        switch (index.column()) {
        case StatusColumn:
            return static_cast<int>(clip.status);
        case RatingColumn:
            return clip.rating;
        case CaptionColumn:
            return clip.caption;
        default:
            return displayData(clip, row, index.column());
        }
    case Qt::ToolTipRole:
        return toolTip(clip, row, index.column());
    case SortRole:
        return sortData(clip, row, index.column());
    case ClipIdRole:
        return clip.id;
    case PathRole:
        return clip.path;
    case ContentHashRole:
        return clip.contentHash;
    case IsImageRole:
        return clip.isImage;
    case StatusRole:
        return static_cast<int>(clip.status);
    case ProblemRole:
        return static_cast<int>(clip.problem);
    case CaptionNeedsCheckRole:
        return clip.captionNeedsCheck;
    case BucketKeyRole:
        return BucketPreview::bucketKey(m_placements.at(row));
    default:
        return QVariant();
    }
}

QVariant ClipTableModel::displayData(const ClipRecord& clip, int row, int column) const {
    const QLocale locale;
    switch (column) {
    case NameColumn:
        return clip.fileName();
    case StatusColumn:
        return ClipRecord::statusText(clip.status);
    case RatingColumn:
        return QString(clip.rating, kStar);
    case ResolutionColumn:
        if (clip.width <= 0 || clip.height <= 0)
            return QString();
        return tr("%1×%2").arg(clip.width).arg(clip.height);
    case DurationColumn:
        if (clip.isImage)
            return tr("Still image");
        if (clip.fps <= 0.0)
            return QString();
        return tr("%1 s").arg(locale.toString(clip.trimmedDurationSeconds(), 'f', 1));
    case FramesColumn:
        if (clip.trimIn > 0 || clip.trimOut)
            return tr("%1 of %2").arg(clip.trimmedFrameCount()).arg(clip.frameCount);
        return clip.frameCount;
    case BucketColumn: {
        const BucketPreview::Placement& placement = m_placements.at(row);
        if (!placement.placed())
            return BucketPreview::causeText(placement.cause);
        return BucketPreview::bucketText(placement.assignment.frames, placement.assignment.height,
                                         placement.assignment.width);
    }
    case CaptionColumn:
        return firstLine(clip.caption);
    case TagsColumn:
        return clip.tags.join(QStringLiteral(", "));
    case ProblemColumn:
        return ClipRecord::problemLabel(clip.problem);
    default:
        return QVariant();
    }
}

QVariant ClipTableModel::sortData(const ClipRecord& clip, int row, int column) const {
    switch (column) {
    case NameColumn:
        return clip.fileName().toLower();
    case StatusColumn:
        return static_cast<int>(clip.status);
    case RatingColumn:
        return clip.rating;
    case ResolutionColumn:
        return static_cast<qint64>(clip.width) * clip.height;
    case DurationColumn:
        return clip.trimmedDurationSeconds();
    case FramesColumn:
        return clip.trimmedFrameCount();
    case BucketColumn: {
        const BucketPreview::Placement& placement = m_placements.at(row);
        if (!placement.placed())
            return qint64(-1);
        const auto& bucket = placement.assignment;
        return (static_cast<qint64>(bucket.frames) << 32) +
               (static_cast<qint64>(bucket.height) << 16) + bucket.width;
    }
    case CaptionColumn:
        return CaptionLength::head(clip.caption, CaptionLength::kPreviewLength).toLower();
    case TagsColumn:
        return clip.tags.join(QLatin1Char(',')).toLower();
    case ProblemColumn:
        return static_cast<int>(clip.problem);
    default:
        return QVariant();
    }
}

QString ClipTableModel::toolTip(const ClipRecord& clip, int row, int column) const {
    switch (column) {
    case NameColumn:
        return QDir::toNativeSeparators(clip.path);
    case CaptionColumn: {
        QString tip = CaptionLength::preview(clip.caption);
        if (CaptionLength::isLong(clip.caption))
            tip += QStringLiteral("\n\n") + CaptionLength::editorNote(clip.caption.size());
        if (clip.captionNeedsCheck)
            tip += QStringLiteral("\n\n") +
                   CaptionDecoder::checkNote(clip.captionEncoding, clip.caption);
        return tip;
    }
    case BucketColumn:
        return BucketPreview::dropMessage(clip, m_placements.at(row));
    case ProblemColumn:
        if (clip.isUsable())
            return QString();
        return ClipRecord::problemText(clip.problem, clip.path) + QStringLiteral("\n") +
               clip.problemDetail;
    default:
        return QString();
    }
}

QVariant ClipTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Clip");
    case StatusColumn:
        return tr("Status");
    case RatingColumn:
        return tr("Rating");
    case ResolutionColumn:
        return tr("Resolution");
    case DurationColumn:
        return tr("Duration");
    case FramesColumn:
        return tr("Frames");
    case BucketColumn:
        return tr("Bucket");
    case CaptionColumn:
        return tr("Caption");
    case TagsColumn:
        return tr("Tags");
    case ProblemColumn:
        return tr("Problem");
    default:
        return QVariant();
    }
}

Qt::ItemFlags ClipTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags result = QAbstractTableModel::flags(index);
    // Another studio's project is shown, not edited.
    if (!index.isValid() || m_project.isReadOnly())
        return result;
    // A caption too long to lay out is shortened in the inspector, not typed over in a cell.
    const bool editableCaption =
        index.column() == CaptionColumn && !CaptionLength::isLong(m_clips.at(index.row()).caption);
    if (index.column() == StatusColumn || index.column() == RatingColumn || editableCaption)
        result |= Qt::ItemIsEditable;
    return result;
}

bool ClipTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    const qint64 clipId = m_clips.at(index.row()).id;
    QString error;
    bool succeeded = false;
    switch (index.column()) {
    case CaptionColumn:
        succeeded = CaptionHistory(m_project).setCaption(clipId, value.toString(), &error);
        if (succeeded)
            emit captionHistoryChanged();
        break;
    case StatusColumn: {
        const auto status = static_cast<ClipStatus>(value.toInt());
        if (status != ClipStatus::NeedsReview && status != ClipStatus::Accepted &&
            status != ClipStatus::Rejected)
            return false;
        succeeded = ClipStore(m_project).setStatus({clipId}, status, &error);
        break;
    }
    case RatingColumn:
        succeeded = ClipStore(m_project).setRating({clipId}, value.toInt(), &error);
        break;
    default:
        return false;
    }
    if (!succeeded) {
        emit editFailed(error);
        return false;
    }
    refreshClips({clipId});
    return true;
}
