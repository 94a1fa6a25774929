// The timeline's measured lanes (issue 37): the measured step of each stage's slowest rank,
// drawn under the stage's predicted lanes in the colours of the predicted events (compute as
// the breakdown's compute, each dimension's communication, idle as a bubble), described on hover
// and matched by the find.

#include "timelineview.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "timelinecolors.h"
#include "timelinestyle.h"

using namespace timelinestyle;
using namespace timelinecolors;

namespace {

// The style (timelinecolors' index) of a measured item; nothing for communication whose group
// matches no dimension, drawn in a neutral shade.
std::optional<int> styleOf(const TimelineMeasuredItem& item)
{
    switch (item.kind) {
    case cs::LaneIntervalKind::Compute:
        return int(cs::EventKind::Forward);
    case cs::LaneIntervalKind::Idle:
        return int(cs::EventKind::Bubble);
    case cs::LaneIntervalKind::Comm:
        break;
    }
    if (item.dim)
        return kEventKinds + int(*item.dim);
    return std::nullopt;
}

} // namespace

QString TimelineView::measuredLabel(int rank)
{
    return tr("measured (rank %1)").arg(rank);
}

void TimelineView::setMeasuredLanes(std::vector<TimelineMeasuredLane> lanes, const QString& note)
{
    const bool wasWhole = m_mapping.startS <= 0 && m_mapping.spanS >= m_mapping.totalS * (1 - 1e-9);
    m_measuredLanes = std::move(lanes);
    m_measuredNote = note;
    rebuildLanes(!wasWhole);
}

std::optional<std::pair<int, int>> TimelineView::measuredItemAt(QPointF pos) const
{
    const int row = m_geometry.rowAt(pos.y());
    if (row < 0 || row >= m_lanes.stages() || pos.x() < m_mapping.left ||
        pos.x() > m_mapping.left + m_mapping.width ||
        !m_lanes.inMeasuredBand(m_geometry.fractionInRow(pos.y())))
        return std::nullopt;
    for (size_t l = 0; l < m_measuredLanes.size(); ++l) {
        if (m_measuredLanes[l].stage != row)
            continue;
        const int item =
            m_measuredLanes[l].itemAt(m_mapping.timeOf(pos.x()), 2 * m_mapping.secondsPerPixel());
        if (item >= 0)
            return std::pair{int(l), item};
    }
    return std::nullopt;
}

QString TimelineView::describeMeasured(int lane, int item) const
{
    if (lane < 0 || size_t(lane) >= m_measuredLanes.size() || item < 0 ||
        size_t(item) >= m_measuredLanes[size_t(lane)].items.size())
        return {};
    const TimelineMeasuredLane& l = m_measuredLanes[size_t(lane)];
    const TimelineMeasuredItem& i = l.items[size_t(item)];
    QStringList lines;
    lines << tr("Measured %1, rank %2 (stage %3)")
                 .arg(QString::fromStdString(measuredItemName(i)))
                 .arg(l.rank)
                 .arg(l.stage);
    lines << tr("%1 to %2 (%3)").arg(inStep(i.start), inStep(i.end), inStep(i.end - i.start));
    switch (i.kind) {
    case cs::LaneIntervalKind::Compute:
        lines << tr("GPU kernels computing (communication under them is hidden)");
        break;
    case cs::LaneIntervalKind::Idle:
        lines << tr("no kernel running");
        break;
    case cs::LaneIntervalKind::Comm:
        lines << (i.dim ? tr("communication the GPU waited for, nothing computing")
                        : tr("communication the GPU waited for, in a group that matches no "
                             "parallel dimension of the run"));
        break;
    }
    lines << tr("%1 (the rank's median step) of %2")
                 .arg(QString::fromStdString(l.step), QString::fromStdString(l.file));
    return lines.join(QLatin1Char('\n'));
}

void TimelineView::drawMeasuredLanes(QPainter& p) const
{
    if (m_measuredLanes.empty())
        return;
    const Colors colors = colorsFor(palette());
    const QColor unmatched = blend(colors.plot, colors.text, 0.5);
    const double xMin = m_mapping.left, xMax = m_mapping.left + m_mapping.width;
    p.setPen(Qt::NoPen);
    for (size_t l = 0; l < m_measuredLanes.size(); ++l) {
        const TimelineMeasuredLane& lane = m_measuredLanes[l];
        const double rowTop = m_geometry.rowTop(lane.stage);
        if (lane.stage >= m_lanes.stages() || rowTop + m_geometry.rowHeight < kHeaderHeight ||
            rowTop > height())
            continue;
        const int y0 =
            int(std::lround(rowTop + TimelineLanes::kMeasuredTop * m_geometry.rowHeight));
        const int y1 = std::max(y0 + 2, int(std::lround(rowTop + TimelineLanes::kMeasuredBottom *
                                                                     m_geometry.rowHeight)));
        // Items are contiguous: each is drawn from its start's pixel to its end's, at least one
        // wide, later ones over earlier ones where a pixel holds several.
        for (size_t k = 0; k < lane.items.size(); ++k) {
            const TimelineMeasuredItem& item = lane.items[k];
            if (!m_mapping.overlaps(item.start, item.end))
                continue;
            const int x0 = int(std::lround(std::max(xMin, m_mapping.xOf(item.start))));
            const int x1 =
                std::max(x0 + 1, int(std::lround(std::min(xMax, m_mapping.xOf(item.end)))));
            const bool dimmed = !m_measuredMatches.empty() && m_measuredMatches[l][k] == 0;
            const std::optional<int> style = styleOf(item);
            const QColor color = style    ? colors.boxes[size_t(*style * 4 + (dimmed ? 2 : 0))]
                                 : dimmed ? blend(unmatched, colors.plot, 0.75)
                                          : unmatched;
            p.fillRect(QRect(x0, y0, x1 - x0, y1 - y0), color);
        }
    }
}

void TimelineView::drawMeasuredLabels(QPainter& p) const
{
    const Colors colors = colorsFor(palette());
    p.save();
    p.setFont(labelFont(font()));
    if (m_measuredLanes.empty() && !m_measuredNote.isEmpty()) {
        // Where a profile has no lanes to draw, the header says why.
        p.setPen(colors.text);
        p.drawText(QRect(m_labelWidth, kTickHeight, int(m_mapping.width) - 4, kMarkerHeight - 1),
                   Qt::AlignRight | Qt::AlignVCenter, m_measuredNote);
    }
    p.setClipRect(QRect(0, kHeaderHeight, m_labelWidth, height() - kHeaderHeight));
    p.setPen(colors.text);
    for (const TimelineMeasuredLane& lane : m_measuredLanes) {
        if (lane.stage >= m_lanes.stages())
            continue;
        const double rowTop = m_geometry.rowTop(lane.stage);
        // The row's lower half, under the stage's name in its upper half.
        const double half = m_geometry.rowHeight / 2;
        p.drawText(QRectF(6, rowTop + half - 1, m_labelWidth - 8, half),
                   Qt::AlignLeft | Qt::AlignVCenter, measuredLabel(lane.rank));
    }
    p.restore();
}
