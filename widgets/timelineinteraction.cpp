// The timeline's answers to the pointer and the keys: what an event, an op or a gap is on hover,
// the wheel's zoom, selecting an event, measuring a range by dragging.

#include "timelineview.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "activity.h"
#include "alltoall.h"
#include "text.h"
#include "timelinestyle.h"

using namespace timelinestyle;

int TimelineView::eventAt(QPointF pos) const
{
    const int row = m_geometry.rowAt(pos.y());
    if (row < 0 || pos.x() < m_mapping.left || pos.x() > m_mapping.left + m_mapping.width)
        return -1;
    const double tolerance = 2 * m_mapping.secondsPerPixel();
    return m_lanes.eventAt(row, m_geometry.fractionInRow(pos.y()), m_mapping.timeOf(pos.x()),
                           tolerance);
}

QString TimelineView::describeOp(int op) const
{
    if (op < 0 || size_t(op) >= m_ops.size() || m_ops[size_t(op)].event < 0)
        return tr("another op");
    const cs::Event& e = m_events[size_t(m_ops[size_t(op)].event)];
    QString text = tr("the %1 of micro-batch %2").arg(words(cs::labelOf(e.kind))).arg(e.microBatch);
    if (e.chunk >= 0)
        text += tr(", chunk %1").arg(e.chunk);
    return text + tr(" on stage %1").arg(e.stage);
}

QString TimelineView::describeEvent(int event) const
{
    const auto& events = m_events;
    if (event < 0 || event >= int(events.size()))
        return {};
    const cs::Event& e = events[size_t(event)];
    QStringList lines;
    const std::string_view name = e.isComm() ? cs::dimInfo(e.dim).label : cs::labelOf(e.kind);
    const std::optional<cs::AllToAllLabel> phase = cs::allToAllLabel(events, size_t(event));
    QString what = phase ? QString::fromStdString(phase->text) : words(name);
    what += e.stage >= 0 ? tr(", stage %1").arg(e.stage) : tr(", all stages");
    if (e.microBatch >= 0)
        what += tr(", micro-batch %1").arg(e.microBatch);
    if (e.chunk >= 0 && e.kind != cs::EventKind::Bubble)
        what += tr(", chunk %1").arg(e.chunk);
    lines << what;
    lines << tr("%1 to %2 (%3)").arg(inStep(e.start), inStep(e.end), inStep(e.end - e.start));
    if (e.kind == cs::EventKind::Bubble) {
        QString reason = words(cs::labelOf(e.wait));
        reason[0] = reason[0].toUpper();
        if (e.wait == cs::WaitReason::PipelineInput)
            reason += tr(": %1").arg(describeOp(e.dependsOn));
        else if (e.wait == cs::WaitReason::GradientReduction && e.waitStage >= 0)
            reason += e.waitStage == e.stage ? tr(": its own, the last to end")
                                             : tr(": stage %1's, the last to end").arg(e.waitStage);
        else if (e.wait == cs::WaitReason::Contention)
            reason += tr(";\nspread over the step in fact, the model adds it before the optimizer");
        lines << reason;
    }
    if (e.isComm())
        lines << tr("over %1, %2")
                     .arg(words(cs::labelOf(e.link)),
                          e.exposed ? tr("exposed") : tr("hidden under compute"));
    if (e.isComm() && e.dim == cs::Dim::PP && e.op >= 0)
        lines << tr("to %1").arg(describeOp(e.op));
    if (!e.isComm() && e.kind != cs::EventKind::Bubble && e.dependsOn >= 0)
        lines << tr("takes its input from %1").arg(describeOp(e.dependsOn));
    // A transfer hidden under compute delays nothing: the path runs through that compute.
    if (e.critical)
        lines << (e.isComm() && !e.exposed
                      ? tr("the critical path runs through the compute it hides under, not it")
                      : tr("on the critical path"));
    return lines.join(QLatin1Char('\n'));
}

QString TimelineView::describeGap(int stage, double t) const
{
    const TimelineLane& lane = m_lanes.mainLane(stage);
    double before = 0, after = m_mapping.totalS;
    for (const TimelineItem& item : lane.items) {
        if (item.end <= t)
            before = std::max(before, item.end);
        else if (item.start > t)
            after = std::min(after, item.start);
    }
    return tr("stage %1 idle, %2 to %3 (%4): nothing is scheduled on it")
        .arg(stage)
        .arg(inStep(before), inStep(after), inStep(after - before));
}

QString TimelineView::describeAt(QPointF pos) const
{
    if (const auto measured = measuredItemAt(pos))
        return describeMeasured(measured->first, measured->second);
    const int hit = eventAt(pos);
    if (hit >= 0)
        return describeEvent(hit);
    const int row = m_geometry.rowAt(pos.y());
    if (row < 0 || row >= m_lanes.stages() || pos.x() < m_mapping.left ||
        pos.x() > m_mapping.left + m_mapping.width ||
        !m_lanes.inMainLane(m_geometry.fractionInRow(pos.y())))
        return {};
    // A stage waiting on its exposed collectives shows them in the lane below its compute.
    const double t = m_mapping.timeOf(pos.x());
    const int below =
        m_lanes.eventAt(row, m_lanes.commLaneMiddle(), t, 2 * m_mapping.secondsPerPixel());
    if (below >= 0)
        return tr("waiting on its exposed communication (the lane below):\n") +
               describeEvent(below);
    return describeGap(row, t);
}

bool TimelineView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = describeAt(help->pos());
        if (!text.isEmpty())
            QToolTip::showText(help->globalPos(), text, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void TimelineView::wheelEvent(QWheelEvent* e)
{
    const QPoint delta = e->angleDelta();
    if (delta.x() != 0 || (e->modifiers() & Qt::ShiftModifier)) {
        const int d = delta.x() != 0 ? delta.x() : delta.y();
        setMapping(m_mapping.pannedBy(d / 2.0));
    } else if (e->modifiers() & Qt::ControlModifier && m_scroll->isVisible()) {
        m_scroll->setValue(m_scroll->value() - delta.y() / 4);
    } else {
        const double x =
            std::clamp(e->position().x(), m_mapping.left, m_mapping.left + m_mapping.width);
        setMapping(m_mapping.zoomedAt(x, std::pow(2.0, delta.y() / 240.0)));
    }
    e->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_Escape && (m_measured || m_selected >= 0)) {
        m_measured.reset();
        m_selected = -1;
        update();
        return;
    }
    QWidget::keyPressEvent(e);
}

void TimelineView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton && e->button() != Qt::MiddleButton)
        return QWidget::mousePressEvent(e);
    m_drag = Drag::Pending;
    m_panning = e->button() == Qt::MiddleButton || (e->modifiers() & Qt::ShiftModifier) ||
                e->position().y() < kHeaderHeight;
    m_pressPos = e->position();
    m_lastDragX = e->position().x();
}

void TimelineView::mouseMoveEvent(QMouseEvent* e)
{
    if (m_drag == Drag::None) {
        emit hovered(describeAt(e->position())
                         .section(QLatin1Char('\n'), 0, 1)
                         .replace(QLatin1Char('\n'), QLatin1String(": ")));
        return;
    }
    if (m_drag == Drag::Pending &&
        (e->position() - m_pressPos).manhattanLength() > kDragThresholdPx) {
        m_drag = m_panning ? Drag::Pan : Drag::Measure;
        setCursor(m_panning ? Qt::ClosedHandCursor : Qt::SizeHorCursor);
    }
    if (m_drag == Drag::Pan) {
        setMapping(m_mapping.pannedBy(e->position().x() - m_lastDragX));
        m_lastDragX = e->position().x();
    } else if (m_drag == Drag::Measure) {
        const auto timeAt = [this](double x) {
            return std::clamp(m_mapping.timeOf(x), 0.0, m_mapping.totalS);
        };
        const double a = timeAt(m_pressPos.x()), b = timeAt(e->position().x());
        m_measured = std::pair{std::min(a, b), std::max(a, b)};
        emit hovered(tr("Measured %1").arg(inStep(m_measured->second - m_measured->first)));
        update();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e)
{
    if (m_drag == Drag::None)
        return;
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (drag != Drag::Pending) {
        unsetCursor();
        return;
    }
    if (e->button() != Qt::LeftButton || e->position().x() < m_mapping.left)
        return;
    m_measured.reset();
    selectEvent(eventAt(e->position()));
    emit timeClicked(std::clamp(m_mapping.timeOf(e->position().x()), 0.0, m_mapping.totalS));
}

void TimelineView::leaveEvent(QEvent* e)
{
    emit hovered(QString());
    QWidget::leaveEvent(e);
}
