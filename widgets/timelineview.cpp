#include "timelineview.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <array>
#include <cmath>

#include "activity.h"
#include "activitycolors.h"

namespace {

constexpr int kLabelWidth = 84;
constexpr int kHeaderHeight = 18;
constexpr int kRightMargin = 6;
constexpr double kMinRowHeight = 10;
constexpr double kMaxRowHeight = 34;
constexpr double kTickSpacingPx = 90;
// Box styles: one per kind of event, and one per dimension for communication.
constexpr int kEventKinds = int(cs::enumValues<cs::EventKind>().size());
constexpr int kStyles = kEventKinds + int(cs::kDimCount);

int styleOf(const cs::Event& e)
{
    return e.isComm() ? kEventKinds + int(e.dim) : int(e.kind);
}
constexpr QRgb kPlotBackground = 0xfffcfcfd;
constexpr QRgb kLabelBackground = 0xffeef0f3;
constexpr QRgb kGridLine = 0xffdfe2e7;
constexpr QRgb kText = 0xff30343a;
constexpr QRgb kCursor = 0xffb3122e;

// Boxes are batched by colour: the event's kind, whether it is hidden communication, and
// whether it is dimmed off the critical path.
int colorKey(const cs::Event& e, bool dimmed)
{
    const bool hidden = !e.exposed && e.isComm();
    return styleOf(e) * 4 + (hidden ? 1 : 0) + (dimmed ? 2 : 0);
}

QColor blend(const QColor& a, QRgb b, double towardsB)
{
    const QColor c = QColor::fromRgb(b);
    auto mix = [&](double x, double y) { return float(x + (y - x) * towardsB); };
    return QColor::fromRgbF(mix(a.redF(), c.redF()), mix(a.greenF(), c.greenF()),
                            mix(a.blueF(), c.blueF()));
}

std::array<QColor, kStyles * 4> boxPalette()
{
    std::array<QColor, kStyles * 4> palette;
    for (int k = 0; k < kStyles; ++k) {
        cs::Event representative;
        representative.kind = k < kEventKinds ? cs::EventKind(k) : cs::EventKind::Comm;
        representative.dim = k < kEventKinds ? cs::Dim::TP : cs::Dim(k - kEventKinds);
        const QColor base = eventColor(representative);
        palette[size_t(k * 4)] = base;
        palette[size_t(k * 4 + 1)] = blend(base, kPlotBackground, 0.55);
        palette[size_t(k * 4 + 2)] = blend(base, kPlotBackground, 0.75);
        palette[size_t(k * 4 + 3)] = blend(base, kPlotBackground, 0.85);
    }
    return palette;
}

// 1, 2 or 5 times a power of ten, at least `raw`.
double niceStep(double raw)
{
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw)
            return m * p;
    return 10 * p;
}

QString formatTime(double t, double resolution)
{
    if (resolution >= 0.1)
        return QStringLiteral("%1 s").arg(t, 0, 'f', 1);
    if (resolution >= 0.001) {
        const int decimals = resolution >= 0.01 ? 2 : 3;
        return QStringLiteral("%1 s").arg(t, 0, 'f', decimals);
    }
    const int decimals = resolution >= 1e-5 ? 2 : 3;
    return QStringLiteral("%1 ms").arg(t * 1e3, 0, 'f', decimals);
}

QString formatDuration(double s)
{
    if (s >= 1)
        return QStringLiteral("%1 s").arg(s, 0, 'f', 3);
    if (s >= 1e-3)
        return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 2);
    return QStringLiteral("%1 us").arg(s * 1e6, 0, 'f', 1);
}

// Boxes narrower than a pixel in a row are drawn as one sliver, in the colour of the longest.
struct Sliver {
    int x0 = 0;
    int x1 = -1; // exclusive; empty while x1 <= x0
    int key = 0;
    double longestS = 0;
    bool open() const { return x1 > x0; }
};

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    layoutRows();
}

void TimelineView::setSchedule(std::vector<cs::Event> events, int stages, double stepTimeS)
{
    m_events = std::move(events);
    m_lanes = TimelineLanes(m_events, stages);
    double total = stepTimeS;
    for (const cs::Event& e : m_events)
        total = std::max(total, e.end);
    m_mapping = TimelineMapping::fit(total, kLabelWidth, width() - kLabelWidth - kRightMargin);
    layoutRows();
    m_cacheValid = false;
    update();
}

void TimelineView::setTime(double timeS, bool follow)
{
    if (timeS == m_cursorS)
        return;
    const QRect before = cursorArea(m_cursorS);
    m_cursorS = timeS;
    if (follow && !(m_cursorS >= m_mapping.startS && m_cursorS <= m_mapping.endS())) {
        setMapping(m_mapping.following(m_cursorS));
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
    m_cacheValid = false;
    update();
}

void TimelineView::showWholeStep()
{
    setMapping(TimelineMapping::fit(m_mapping.totalS, m_mapping.left, m_mapping.width));
}

void TimelineView::setMapping(const TimelineMapping& mapping)
{
    if (mapping.startS == m_mapping.startS && mapping.spanS == m_mapping.spanS &&
        mapping.width == m_mapping.width && mapping.left == m_mapping.left)
        return;
    m_mapping = mapping;
    m_cacheValid = false;
    update();
}

void TimelineView::layoutRows()
{
    const int rows = m_lanes.rows();
    const double available = height() - kHeaderHeight - 2;
    m_geometry.top = kHeaderHeight;
    m_geometry.rows = rows;
    m_geometry.rowHeight = std::clamp(available / rows, kMinRowHeight, kMaxRowHeight);
    m_mapping = m_mapping.resized(kLabelWidth, width() - kLabelWidth - kRightMargin);
}

void TimelineView::resizeEvent(QResizeEvent*)
{
    layoutRows();
    m_cacheValid = false;
}

QRect TimelineView::cursorArea(double timeS) const
{
    const int x = int(std::lround(m_mapping.xOf(timeS)));
    return QRect(x - 60, 0, 120, height());
}

void TimelineView::ensureCache()
{
    const qreal dpr = devicePixelRatioF();
    const QSize pixels = (QSizeF(size()) * dpr).toSize();
    if (m_cacheValid && m_cache.size() == pixels)
        return;
    m_cache = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
    m_cache.setDevicePixelRatio(dpr);
    m_cache.fill(kPlotBackground);
    QPainter p(&m_cache);
    p.setRenderHint(QPainter::Antialiasing, false);
    drawGrid(p);
    drawLanes(p);
    m_cacheValid = true;
}

void TimelineView::drawGrid(QPainter& p) const
{
    const int plotBottom = int(m_geometry.rowTop(m_geometry.rows));
    p.fillRect(QRect(0, 0, kLabelWidth, height()), QColor::fromRgb(kLabelBackground));
    p.fillRect(QRect(0, 0, width(), kHeaderHeight), QColor::fromRgb(kLabelBackground));

    // Time ticks
    const double step = niceStep(kTickSpacingPx * m_mapping.secondsPerPixel());
    p.setPen(QColor::fromRgb(kGridLine));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    std::vector<std::pair<int, double>> ticks;
    for (double t = std::ceil(m_mapping.startS / step) * step; t <= m_mapping.endS() + 1e-12;
         t += step) {
        const int x = int(std::lround(m_mapping.xOf(t)));
        ticks.push_back({x, t});
        p.drawLine(x, kHeaderHeight - 4, x, plotBottom);
    }
    p.setPen(QColor::fromRgb(kText));
    for (const auto& [x, t] : ticks)
        p.drawText(QRect(x + 3, 0, int(kTickSpacingPx), kHeaderHeight - 2),
                   Qt::AlignLeft | Qt::AlignVCenter, formatTime(t, step));

    // Row labels and separators
    for (int row = 0; row < m_geometry.rows; ++row) {
        const int y = int(m_geometry.rowTop(row));
        const int h = int(m_geometry.rowHeight);
        const QString label =
            row == m_lanes.fabricRow() ? tr("DP / fabric") : tr("stage %1").arg(row);
        p.setPen(QColor::fromRgb(kText));
        p.drawText(QRect(6, y, kLabelWidth - 8, h), Qt::AlignLeft | Qt::AlignVCenter, label);
        p.setPen(QColor::fromRgb(kGridLine));
        p.drawLine(kLabelWidth, y + h - 1, width(), y + h - 1);
    }
    p.setFont(font());
}

void TimelineView::drawLanes(QPainter& p) const
{
    static const auto palette = boxPalette();
    const auto& events = m_events;
    std::vector<std::vector<QRect>> buckets(palette.size());
    std::vector<QRect> critical;
    std::vector<std::pair<QRect, int>> labels; // micro-batch numbers in wide boxes
    const double xMin = m_mapping.left, xMax = m_mapping.left + m_mapping.width;

    for (const TimelineLane& lane : m_lanes.lanes()) {
        const double rowTop = m_geometry.rowTop(lane.row);
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
            const double x1 = std::min(xMax, m_mapping.xOf(item.end));
            if (x1 <= x0)
                continue;
            const int key = colorKey(e, m_critical && !e.critical);
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
        }
        flush();
    }

    p.setPen(Qt::NoPen);
    for (size_t key = 0; key < buckets.size(); ++key) {
        if (buckets[key].empty())
            continue;
        p.setBrush(palette[key]);
        p.drawRects(buckets[key].data(), int(buckets[key].size()));
    }
    if (!critical.empty()) {
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor::fromRgb(kText), 0));
        p.drawRects(critical.data(), int(critical.size()));
    }
    if (!labels.empty()) {
        QFont small = font();
        small.setPointSizeF(small.pointSizeF() * 0.8);
        p.setFont(small);
        p.setPen(Qt::white);
        for (const auto& [box, microBatch] : labels)
            p.drawText(box, Qt::AlignCenter, QString::number(microBatch));
        p.setFont(font());
    }
}

void TimelineView::drawCursor(QPainter& p) const
{
    const double x = m_mapping.xOf(m_cursorS);
    if (x < m_mapping.left - 1 || x > m_mapping.left + m_mapping.width + 1)
        return;
    const int ix = int(std::lround(x));
    const int bottom = int(m_geometry.rowTop(m_geometry.rows));
    p.fillRect(QRect(ix - 1, kHeaderHeight, 2, bottom - kHeaderHeight), QColor::fromRgb(kCursor));
    const QString label = formatTime(m_cursorS, m_mapping.secondsPerPixel() * 10);
    const int w = fontMetrics().horizontalAdvance(label) + 8;
    const int left = ix + w + 2 > width() ? ix - w - 1 : ix + 1;
    const QRect box(left, 1, w, kHeaderHeight - 2);
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
    drawCursor(p);
}

int TimelineView::eventAt(QPointF pos) const
{
    const int row = m_geometry.rowAt(pos.y());
    if (row < 0 || pos.x() < m_mapping.left || pos.x() > m_mapping.left + m_mapping.width)
        return -1;
    const double tolerance = 2 * m_mapping.secondsPerPixel();
    return m_lanes.eventAt(row, m_geometry.fractionInRow(pos.y()), m_mapping.timeOf(pos.x()),
                           tolerance);
}

QString TimelineView::describeEvent(int event) const
{
    const auto& events = m_events;
    if (event < 0 || event >= int(events.size()))
        return {};
    const cs::Event& e = events[size_t(event)];
    QStringList lines;
    const std::string_view name = e.isComm() ? cs::dimInfo(e.dim).label : cs::labelOf(e.kind);
    QString what = QString::fromUtf8(name.data(), int(name.size()));
    what += e.stage >= 0 ? tr(", stage %1").arg(e.stage) : tr(", all stages");
    if (e.microBatch >= 0)
        what += tr(", micro-batch %1").arg(e.microBatch);
    if (e.chunk >= 0)
        what += tr(", chunk %1").arg(e.chunk);
    lines << what;
    lines << tr("%1 to %2 (%3)")
                 .arg(formatTime(e.start, 1e-3), formatTime(e.end, 1e-3),
                      formatDuration(e.end - e.start));
    if (e.isComm())
        lines << tr("over %1, %2")
                     .arg(QString::fromUtf8(cs::labelOf(e.link).data(),
                                            int(cs::labelOf(e.link).size())),
                          e.exposed ? tr("exposed") : tr("hidden under compute"));
    if (e.critical)
        lines << tr("on the critical path");
    return lines.join(QLatin1Char('\n'));
}

bool TimelineView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int hit = eventAt(help->pos());
        if (hit >= 0)
            QToolTip::showText(help->globalPos(), describeEvent(hit), this);
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
    } else {
        const double x =
            std::clamp(e->position().x(), m_mapping.left, m_mapping.left + m_mapping.width);
        setMapping(m_mapping.zoomedAt(x, std::pow(2.0, delta.y() / 240.0)));
    }
    e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(e);
    m_pressed = true;
    m_dragging = false;
    m_pressPos = e->position();
    m_lastDragX = e->position().x();
}

void TimelineView::mouseMoveEvent(QMouseEvent* e)
{
    if (!m_pressed)
        return;
    if (!m_dragging && (e->position() - m_pressPos).manhattanLength() > 3) {
        m_dragging = true;
        setCursor(Qt::ClosedHandCursor);
    }
    if (m_dragging) {
        setMapping(m_mapping.pannedBy(e->position().x() - m_lastDragX));
        m_lastDragX = e->position().x();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e)
{
    if (!m_pressed || e->button() != Qt::LeftButton)
        return;
    m_pressed = false;
    if (m_dragging) {
        m_dragging = false;
        unsetCursor();
        return;
    }
    if (e->position().x() < m_mapping.left)
        return;
    emit timeClicked(std::clamp(m_mapping.timeOf(e->position().x()), 0.0, m_mapping.totalS));
}
