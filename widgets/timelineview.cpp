#include "timelineview.h"

#include <QEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <algorithm>
#include <array>
#include <cmath>

#include "activity.h"
#include "activitycolors.h"
#include "alltoall.h"
#include "text.h"
#include "timelinecolors.h"
#include "timelineruler.h"
#include "timelinestyle.h"

using namespace timelinestyle;
using namespace timelinecolors;

namespace {

constexpr int kLabelWidth = 84;
// Rows are taller with a measured lane in them: it needs a few pixels, and its label a line.
constexpr double kMinRowHeightMeasured = 36;
constexpr double kMaxRowHeightMeasured = 52;
constexpr int kRightMargin = 6;
constexpr double kMinRowHeight = 16;
constexpr double kLeastAllToAllPx = 3;
constexpr double kMaxRowHeight = 34;
constexpr QRgb kCursor = 0xffd0243f;
constexpr QRgb kMeasure = 0xff2f80ed;

int styleOf(const cs::Event& e)
{
    return e.isComm() ? kEventKinds + int(e.dim) : int(e.kind);
}

// Boxes are batched by colour: the event's kind, whether it is hidden communication, and
// whether it is dimmed (off the critical path, or not matching the filter).
int colorKey(const cs::Event& e, bool dimmed)
{
    const bool hidden = !e.exposed && e.isComm();
    return styleOf(e) * 4 + (hidden ? 1 : 0) + (dimmed ? 2 : 0);
}

// The labels of boxes: micro-batch numbers, the all-to-all's phases.
QFont smallFont(QFont font)
{
    font.setPointSizeF(font.pointSizeF() * 0.8);
    return font;
}

// Boxes narrower than a pixel in a row are drawn as one sliver, in the colour of the longest.
struct Sliver {
    int x0 = 0;
    int x1 = -1; // exclusive; empty while x1 <= x0
    int key = 0;
    double longestS = 0;
    bool open() const { return x1 > x0; }
};

void drawArrow(QPainter& p, QPointF from, QPointF to)
{
    QPainterPath path(from);
    const double dx = std::max(12.0, std::abs(to.x() - from.x()) / 2);
    path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    const QPointF tip = to;
    p.setBrush(p.pen().color());
    p.drawPolygon(QPolygonF{tip, tip + QPointF(-7, -4), tip + QPointF(-7, 4)});
}

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent)
    , m_scroll(new QScrollBar(Qt::Vertical, this))
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    m_scroll->hide();
    connect(m_scroll, &QScrollBar::valueChanged, this, [this](int value) {
        m_geometry.scroll = value;
        invalidate();
    });
    layoutRows();
}

void TimelineView::setSchedule(std::vector<cs::Event> events, int stages, double stepTimeS)
{
    const bool wasWhole = m_events.empty() || (m_mapping.startS <= 0 &&
                                               m_mapping.spanS >= m_mapping.totalS * (1 - 1e-9));
    m_events = std::move(events);
    m_ops = timelineOps(m_events);
    m_stages = stages;
    m_stepTimeS = stepTimeS;
    m_selected = -1;
    rebuildLanes(!wasWhole);
}

void TimelineView::rebuildLanes(bool keepZoom)
{
    m_lanes = TimelineLanes(m_events, m_stages, !m_measuredLanes.empty());
    double total = m_stepTimeS;
    for (const cs::Event& e : m_events)
        total = std::max(total, e.end);
    for (const TimelineMeasuredLane& lane : m_measuredLanes)
        total = std::max(total, lane.endS());
    if (!keepZoom) {
        m_mapping = TimelineMapping::fit(total, m_labelWidth, m_mapping.width);
    } else {
        TimelineMapping kept = m_mapping;
        kept.totalS = total;
        m_mapping = kept.resized(m_mapping.left, m_mapping.width);
    }
    matchFilter();
    layoutRows();
    invalidate();
}

void TimelineView::setTime(double timeS, bool follow)
{
    if (timeS == m_cursorS)
        return;
    const QRect before = cursorArea(m_cursorS);
    m_cursorS = timeS;
    // Off screen, the time comes into view: at the edge it crosses while following (playback
    // scrolls smoothly), else in the middle (a bookmark's or the scrubber's time).
    if (!(m_cursorS >= m_mapping.startS && m_cursorS <= m_mapping.endS())) {
        setMapping(follow ? m_mapping.following(m_cursorS) : m_mapping.centeredOn(m_cursorS));
        return;
    }
    update(before);
    update(cursorArea(m_cursorS));
}

void TimelineView::setCriticalPathShown(bool shown)
{
    if (shown == m_critical)
        return;
    m_critical = shown;
    invalidate();
}

void TimelineView::showWholeStep()
{
    setMapping(TimelineMapping::fit(m_mapping.totalS, m_mapping.left, m_mapping.width));
}

bool TimelineView::setFilter(const QString& text, QString* problem)
{
    std::string why;
    std::optional<EventFilter> filter = EventFilter::parse(text.toStdString(), &why);
    if (!filter) {
        if (problem)
            *problem = QString::fromStdString(why);
        return false;
    }
    if (filter->empty())
        m_filter.reset();
    else
        m_filter = std::move(filter);
    matchFilter();
    invalidate();
    return true;
}

void TimelineView::matchFilter()
{
    m_matches = 0;
    m_matchesFilter.clear();
    m_measuredMatches.clear();
    if (!m_filter)
        return;
    m_matchesFilter.resize(m_events.size());
    for (size_t i = 0; i < m_events.size(); ++i) {
        m_matchesFilter[i] = m_filter->matches(m_events[i]) ? 1 : 0;
        m_matches += m_matchesFilter[i];
    }
    for (const TimelineMeasuredLane& lane : m_measuredLanes) {
        std::vector<uint8_t>& matches = m_measuredMatches.emplace_back(lane.items.size());
        for (size_t i = 0; i < lane.items.size(); ++i) {
            matches[i] = m_filter->matchesMeasured(lane.items[i], lane.stage) ? 1 : 0;
            m_matches += matches[i];
        }
    }
}

void TimelineView::selectEvent(int event)
{
    m_selected = event >= 0 && event < int(m_events.size()) ? event : -1;
    update();
}

std::vector<std::pair<int, int>> TimelineView::selectedDependencies() const
{
    if (m_selected < 0)
        return {};
    return dependencyArrows(m_ops, m_events[size_t(m_selected)]);
}

void TimelineView::setMeasuredRange(std::optional<std::pair<double, double>> range)
{
    m_measured = range;
    update();
}

void TimelineView::setMapping(const TimelineMapping& mapping)
{
    if (mapping.startS == m_mapping.startS && mapping.spanS == m_mapping.spanS &&
        mapping.width == m_mapping.width && mapping.left == m_mapping.left &&
        mapping.totalS == m_mapping.totalS)
        return;
    m_mapping = mapping;
    invalidate();
}

void TimelineView::invalidate()
{
    m_cacheValid = false;
    update();
}

void TimelineView::layoutRows()
{
    const int rows = m_lanes.rows();
    const double available = std::max(1, height() - kHeaderHeight - 2);
    const bool measured = m_lanes.hasMeasuredBand();
    m_geometry.top = kHeaderHeight;
    m_geometry.rows = rows;
    m_geometry.rowHeight =
        std::clamp(available / rows, measured ? kMinRowHeightMeasured : kMinRowHeight,
                   measured ? kMaxRowHeightMeasured : kMaxRowHeight);
    m_labelWidth = kLabelWidth;
    const QFontMetrics small(labelFont(font()));
    for (const TimelineMeasuredLane& lane : m_measuredLanes)
        m_labelWidth =
            std::max(m_labelWidth, small.horizontalAdvance(measuredLabel(lane.rank)) + 14);
    const int overflow = int(std::ceil(m_geometry.contentHeight() - available));
    const int scrollWidth = overflow > 0 ? m_scroll->sizeHint().width() : 0;
    m_scroll->setVisible(overflow > 0);
    if (overflow > 0) {
        m_scroll->setGeometry(width() - scrollWidth, kHeaderHeight, scrollWidth,
                              height() - kHeaderHeight);
        m_scroll->setRange(0, overflow);
        m_scroll->setPageStep(int(available));
        m_scroll->setSingleStep(int(m_geometry.rowHeight));
    } else {
        m_scroll->setValue(0);
    }
    m_geometry.scroll = overflow > 0 ? m_scroll->value() : 0;
    m_mapping =
        m_mapping.resized(m_labelWidth, width() - m_labelWidth - kRightMargin - scrollWidth);
}

void TimelineView::resizeEvent(QResizeEvent*)
{
    layoutRows();
    m_cacheValid = false;
}

void TimelineView::changeEvent(QEvent* e)
{
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::FontChange)
        invalidate();
    QWidget::changeEvent(e);
}

std::vector<timelineruler::Tick> TimelineView::rulerTicks() const
{
    return timelineruler::ticks(m_mapping, QFontMetricsF(labelFont(font())), width(),
                                kTickHeight - 2);
}

QRect TimelineView::plotRect() const
{
    return QRect(m_labelWidth, kHeaderHeight, int(m_mapping.width) + kRightMargin,
                 height() - kHeaderHeight);
}

QRect TimelineView::cursorArea(double timeS) const
{
    const int x = int(std::lround(m_mapping.xOf(timeS)));
    return QRect(x - 60, 0, 120, height());
}

double TimelineView::laneCenterY(int stage) const
{
    return m_geometry.rowTop(stage) + 0.5 * m_geometry.rowHeight;
}

bool TimelineView::dimmed(const cs::Event& e) const
{
    if (m_critical && !e.critical)
        return true;
    if (!m_matchesFilter.empty()) {
        const size_t i = size_t(&e - m_events.data());
        return m_matchesFilter[i] == 0;
    }
    return false;
}

void TimelineView::ensureCache()
{
    const qreal dpr = devicePixelRatioF();
    const QSize pixels = (QSizeF(size()) * dpr).toSize();
    if (m_cacheValid && m_cache.size() == pixels)
        return;
    m_cache = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
    m_cache.setDevicePixelRatio(dpr);
    m_cache.fill(palette().color(QPalette::Base));
    QPainter p(&m_cache);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.save();
    p.setClipRect(plotRect());
    drawGrid(p);
    drawLanes(p);
    drawMeasuredLanes(p);
    p.restore();
    drawLabels(p);
    drawMeasuredLabels(p);
    m_cacheValid = true;
}

void TimelineView::drawGrid(QPainter& p) const
{
    const Colors colors = colorsFor(palette());
    const int plotBottom = int(m_geometry.rowTop(m_geometry.rows));
    p.setPen(colors.grid);
    for (const timelineruler::Tick& tick : rulerTicks())
        p.drawLine(tick.x, kHeaderHeight, tick.x, plotBottom);
    for (int row = 0; row < m_geometry.rows; ++row) {
        const int y = int(m_geometry.rowTop(row) + m_geometry.rowHeight) - 1;
        p.drawLine(m_labelWidth, y, width(), y);
    }
}

// The row labels and the time ruler, over rows scrolled under them.
void TimelineView::drawLabels(QPainter& p) const
{
    const Colors colors = colorsFor(palette());
    p.fillRect(QRect(0, 0, m_labelWidth, height()), colors.labels);
    p.fillRect(QRect(0, 0, width(), kHeaderHeight), colors.labels);
    p.setPen(colors.grid);
    p.drawLine(0, kHeaderHeight - 1, width(), kHeaderHeight - 1);

    p.setFont(labelFont(font()));
    for (const timelineruler::Tick& tick : rulerTicks()) {
        p.setPen(colors.grid);
        p.drawLine(tick.x, kTickHeight - 5, tick.x, kTickHeight);
        p.setPen(colors.text);
        p.drawText(tick.box, Qt::AlignLeft | Qt::AlignVCenter, tick.text);
    }
    p.setFont(font());

    p.save();
    p.setClipRect(QRect(0, kHeaderHeight, m_labelWidth, height() - kHeaderHeight));
    for (int row = 0; row < m_geometry.rows; ++row) {
        const int y = int(m_geometry.rowTop(row));
        const int h = int(m_geometry.rowHeight);
        const bool fabric = row == m_lanes.fabricRow();
        const QString label = fabric ? tr("DP traffic") : tr("stage %1").arg(row);
        // A stage's name beside its predicted lanes, above its measured lane's label.
        const int labelHeight = !fabric && m_lanes.hasMeasuredBand() ? h / 2 + 1 : h;
        p.setPen(colors.text);
        p.drawText(QRect(6, y, m_labelWidth - 8, labelHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   label);
        p.setPen(colors.grid);
        p.drawLine(0, y + h - 1, m_labelWidth, y + h - 1);
    }
    p.restore();
}

void TimelineView::drawLanes(QPainter& p) const
{
    const Colors colors = colorsFor(palette());
    const auto& events = m_events;
    std::vector<std::vector<QRect>> buckets(colors.boxes.size());
    std::vector<QRect> critical;
    std::vector<std::pair<QRect, int>> labels;     // micro-batch numbers in wide boxes
    std::vector<std::pair<QRect, QString>> phases; // the all-to-all's, above it where it fits
    const QFontMetrics small(smallFont(font()));
    const double xMin = m_mapping.left, xMax = m_mapping.left + m_mapping.width;

    for (const TimelineLane& lane : m_lanes.lanes()) {
        const double rowTop = m_geometry.rowTop(lane.row);
        if (rowTop + m_geometry.rowHeight < kHeaderHeight || rowTop > height())
            continue;
        const int y0 = int(std::lround(rowTop + lane.from * m_geometry.rowHeight));
        const int y1 =
            std::max(y0 + 1, int(std::lround(rowTop + lane.to * m_geometry.rowHeight)) - 1);
        Sliver sliver;
        auto flush = [&] {
            if (sliver.open())
                buckets[size_t(sliver.key)].push_back(
                    QRect(sliver.x0, y0, sliver.x1 - sliver.x0, y1 - y0));
            sliver = {};
        };
        const auto [first, last] =
            TimelineLanes::visibleItems(lane, m_mapping.startS, m_mapping.endS());
        for (size_t k = first; k < last; ++k) {
            const TimelineItem& item = lane.items[k];
            const cs::Event& e = events[size_t(item.event)];
            const double x0 = std::max(xMin, m_mapping.xOf(item.start));
            double x1 = std::min(xMax, m_mapping.xOf(item.end));
            if (x1 <= x0)
                continue;
            // An all-to-all lasts a fraction of a pixel at the whole step's zoom, and a stage of
            // a MoE model runs dozens of them: each stays visible without zooming in.
            if (e.isComm() && e.dim == cs::Dim::EP)
                x1 = std::min(xMax, std::max(x1, x0 + kLeastAllToAllPx));
            const int key = colorKey(e, dimmed(e));
            if (x1 - x0 < 1) {
                const int px = int(x0);
                if (!sliver.open() || px > sliver.x1) {
                    flush();
                    sliver = {px, px + 1, key, 0};
                }
                sliver.x1 = std::max(sliver.x1, px + 1);
                if (item.end - item.start > sliver.longestS) {
                    sliver.longestS = item.end - item.start;
                    sliver.key = key;
                }
                continue;
            }
            const int ix0 = int(std::lround(x0));
            int ix1 = std::max(ix0 + 1, int(std::lround(x1)));
            if (ix1 - ix0 >= 4) // a gap tells neighbouring micro-batches apart
                --ix1;
            const QRect box(ix0, y0, ix1 - ix0, y1 - y0);
            buckets[size_t(key)].push_back(box);
            if (m_critical && e.critical && box.width() >= 3)
                critical.push_back(box.adjusted(0, 0, -1, -1));
            if (e.microBatch >= 0 && box.width() >= 18 && box.height() >= 12 && !e.isComm())
                labels.push_back({box, e.microBatch});
            // The lane of exposed collectives is thin; the stage waits on them, so the row above
            // them is free for their name.
            if (const auto phase = cs::allToAllLabel(events, size_t(item.event));
                phase && e.exposed) {
                const QString text = QString::fromStdString(phase->brief);
                const QRect above(box.left(), int(rowTop) + 1, box.width(),
                                  box.top() - int(rowTop) - 1);
                if (small.horizontalAdvance(text) + 6 <= above.width() &&
                    small.height() <= above.height() + 2)
                    phases.push_back({above, text});
            }
        }
        flush();
    }

    p.setPen(Qt::NoPen);
    for (size_t key = 0; key < buckets.size(); ++key) {
        if (buckets[key].empty())
            continue;
        p.setBrush(colors.boxes[key]);
        p.drawRects(buckets[key].data(), int(buckets[key].size()));
    }
    if (!critical.empty()) {
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(colors.text, 0));
        p.drawRects(critical.data(), int(critical.size()));
    }
    if (!labels.empty() || !phases.empty()) {
        p.setFont(smallFont(font()));
        p.setPen(Qt::white);
        for (const auto& [box, microBatch] : labels)
            p.drawText(box, Qt::AlignCenter, QString::number(microBatch));
        p.setPen(colors.text);
        for (const auto& [box, text] : phases)
            p.drawText(box, Qt::AlignCenter | Qt::AlignBottom, text);
        p.setFont(font());
    }
}

void TimelineView::drawMeasured(QPainter& p) const
{
    if (!m_measured)
        return;
    const auto [t0, t1] = *m_measured;
    const double x0 = std::max(m_mapping.left, m_mapping.xOf(t0));
    const double x1 = std::min(m_mapping.left + m_mapping.width, m_mapping.xOf(t1));
    QColor band = QColor::fromRgb(kMeasure);
    band.setAlpha(48);
    if (x1 > x0)
        p.fillRect(QRectF(x0, kHeaderHeight, x1 - x0, height() - kHeaderHeight), band);
    p.setPen(QPen(QColor::fromRgb(kMeasure), 1));
    for (double x : {m_mapping.xOf(t0), m_mapping.xOf(t1)})
        if (x >= m_mapping.left && x <= m_mapping.left + m_mapping.width)
            p.drawLine(QPointF(x, kTickHeight), QPointF(x, height()));
    const QString label = tr("%1 (%2 to %3)").arg(inStep(t1 - t0), inStep(t0), inStep(t1));
    const int w = fontMetrics().horizontalAdvance(label) + 10;
    const double middle = std::clamp((x0 + x1) / 2, m_mapping.left + w / 2.0,
                                     m_mapping.left + m_mapping.width - w / 2.0);
    const QRectF box(middle - w / 2.0, kTickHeight, w, kMarkerHeight - 1);
    p.fillRect(box, QColor::fromRgb(kMeasure));
    p.setPen(Qt::white);
    p.drawText(box, Qt::AlignCenter, label);
}

void TimelineView::drawSelection(QPainter& p) const
{
    if (m_selected < 0)
        return;
    const cs::Event& e = m_events[size_t(m_selected)];
    p.save();
    p.setClipRect(plotRect());
    p.setRenderHint(QPainter::Antialiasing, true);
    const QColor ink = palette().color(QPalette::Highlight);
    p.setPen(QPen(ink, 2));
    p.setBrush(Qt::NoBrush);
    if (e.stage >= 0) {
        const double x0 = m_mapping.xOf(e.start), x1 = m_mapping.xOf(e.end);
        const double y = m_geometry.rowTop(e.stage);
        p.drawRect(QRectF(x0 - 1, y + 1, std::max(2.0, x1 - x0) + 2, m_geometry.rowHeight - 3));
    }
    p.setPen(QPen(ink, 1.6));
    for (const auto& [from, to] : selectedDependencies()) {
        const TimelineOp& a = m_ops[size_t(from)];
        const TimelineOp& b = m_ops[size_t(to)];
        drawArrow(p, QPointF(m_mapping.xOf(a.end), laneCenterY(a.stage)),
                  QPointF(m_mapping.xOf(b.start), laneCenterY(b.stage)));
    }
    p.restore();
}

void TimelineView::drawCursor(QPainter& p) const
{
    const double x = m_mapping.xOf(m_cursorS);
    if (x < m_mapping.left - 1 || x > m_mapping.left + m_mapping.width + 1)
        return;
    const int ix = int(std::lround(x));
    const int bottom = std::min(height(), int(m_geometry.rowTop(m_geometry.rows)));
    p.fillRect(QRect(ix - 1, kTickHeight, 2, bottom - kTickHeight), QColor::fromRgb(kCursor));
    // The cursor's time sits under the ruler, so that it never hides a tick.
    const QString label = inStep(m_cursorS);
    const int w = fontMetrics().horizontalAdvance(label) + 8;
    const int left = ix + w + 2 > width() ? ix - w - 1 : ix + 1;
    const QRect box(left, kTickHeight, w, kMarkerHeight - 1);
    p.fillRect(box, QColor::fromRgb(kCursor));
    p.setPen(Qt::white);
    p.drawText(box, Qt::AlignCenter, label);
}

void TimelineView::paintEvent(QPaintEvent* e)
{
    ensureCache();
    QPainter p(this);
    const QRect r = e->rect();
    const qreal dpr = m_cache.devicePixelRatio();
    p.drawImage(r, m_cache, QRectF(r.topLeft() * dpr, QSizeF(r.size()) * dpr).toRect());
    drawSelection(p);
    drawMeasured(p);
    drawCursor(p);
}
