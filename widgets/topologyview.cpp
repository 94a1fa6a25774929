#include "topologyview.h"

#include <QContextMenuEvent>
#include <QFontInfo>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <optional>

#include "description.h"
#include "firstframe.h"
#include "legendwidget.h"
#include "placement.h"
#include "topologyscene.h"

namespace {

constexpr double kMinZoom = 0.5;
constexpr double kMaxPixelsPerGpu = 400;
constexpr double kZoomStep = 1.25;
constexpr double kHitTolerancePx = 4;
constexpr double kDragThresholdPx = 4;
constexpr int kZoomSettleMs = 150;

} // namespace

TopologyView::TopologyView(ViewGetter getView, ViewSetter setView, QWidget* parent)
    : QWidget(parent)
    , m_getView(std::move(getView))
    , m_setView(std::move(setView))
{
    m_zoomSettled.setSingleShot(true);
    m_zoomSettled.setInterval(kZoomSettleMs);
    connect(&m_zoomSettled, &QTimer::timeout, this, [this] {
        if (m_scene)
            m_scene->renderer().setScalingPreview(false);
        update();
    });
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(200, 150);
}

TopologyView::~TopologyView() = default;

void TopologyView::setModel(const cs::Topology& topology, const cs::Placement& placement,
                            const cs::Evaluation& evaluation)
{
    // One layout per cluster whatever the window's shape: a bookmark's centre is a world
    // position, and must show the same racks in a window, full screen and in --render.
    // An edit of a rate or of the run keeps the devices: their layout is taken with the new
    // rates rather than placing every GPU and bundling every link again.
    auto previous = std::move(m_scene);
    std::optional<TopologyLayout> kept;
    if (previous && previous->layout().devicesId() == topology.devicesId()) {
        kept.emplace(previous->layout());
        kept->retime(topology);
    }
    m_scene = kept ? std::make_unique<TopologyScene>(std::move(*kept), placement, evaluation)
                   : std::make_unique<TopologyScene>(topology, placement, evaluation);
    if (m_sceneHooks)
        m_sceneHooks(*m_scene);
    applyInk();
    // An edit that leaves the hall as it was drawn (most do) keeps the cached layers and zoom.
    if (!previous || !m_scene->renderer().adoptStaticLayer(previous->renderer()))
        m_paintedScale = 0;
    previous.reset();
    m_hover = {};
    m_scene->applyView(m_getView());
    update();
}

void TopologyView::setOverlayLegend(double fontPx)
{
    m_overlayLegendPx = fontPx;
    update();
}

void TopologyView::setReservedTop(int pixels)
{
    if (pixels == m_reservedTop)
        return;
    m_reservedTop = pixels;
    update();
}

QPointF TopologyView::inHall(QPointF widgetPos) const
{
    return widgetPos - QPointF(0, m_reservedTop);
}

int TopologyView::legendStrip() const
{
    if (m_overlayLegendPx <= 0 || !m_scene)
        return 0;
    const double needed = legendHeight(m_scene->legend(), width() - 32, legendStyle()) + 16;
    return needed <= height() * 0.4 ? int(std::ceil(needed)) : 0;
}

const TopologyInk& TopologyView::ink() const
{
    return palette().color(QPalette::Window).lightnessF() < 0.5 ? TopologyInk::dark()
                                                                : TopologyInk::light();
}

LegendStyle TopologyView::legendStyle() const
{
    return ink().background.lightnessF() < 0.5 ? LegendStyle::onDark(m_overlayLegendPx)
                                               : LegendStyle::of(palette(), m_overlayLegendPx);
}

void TopologyView::applyInk()
{
    if (m_scene) {
        m_scene->renderer().setInk(ink());
        // Names in the view's type: the screen's DPI, and presenting's larger type.
        m_scene->renderer().setTextPixels(QFontInfo(font()).pixelSize());
    }
    update();
}

void TopologyView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyInk();
    QWidget::changeEvent(event);
}

void TopologyView::clearModel()
{
    m_scene.reset();
    update();
}

void TopologyView::viewStateChanged()
{
    if (m_scene)
        m_scene->applyView(m_getView());
    update();
}

ViewTransform TopologyView::currentTransform() const
{
    return m_scene->transform(
        m_getView(), QSizeF(width(), std::max(1, height() - legendStrip() - m_reservedTop)));
}

Hit TopologyView::hitAt(QPointF widgetPos) const
{
    if (!m_scene)
        return {};
    const ViewTransform t = currentTransform();
    return m_scene->layout().hitTest(t.toWorld(inHall(widgetPos)), kHitTolerancePx / t.scale,
                                     levelOfDetail(t.scale));
}

void TopologyView::applyTransform(const ViewTransform& transform)
{
    cs::ViewState view = m_getView();
    m_scene->storeTransform(transform, &view);
    m_setView(view);
}

void TopologyView::zoomAt(QPointF anchor, double factor)
{
    if (!m_scene)
        return;
    const ViewTransform t = currentTransform();
    const double fit = fitScale(m_scene->layout().bounds(), t.viewport);
    const double scale =
        std::clamp(t.scale * factor, fit * kMinZoom, std::max(fit, kMaxPixelsPerGpu));
    applyTransform(t.zoomedAt(inHall(anchor), scale / t.scale));
}

void TopologyView::panBy(QPointF pixels)
{
    if (!m_scene)
        return;
    ViewTransform t = currentTransform();
    t.center -= pixels / t.scale;
    applyTransform(t);
}

void TopologyView::fitToView()
{
    if (!m_scene)
        return;
    cs::ViewState view = m_getView();
    view.zoom = 1.0;
    view.center = {0, 0};
    m_setView(view);
}

void TopologyView::zoomIn()
{
    zoomAt(QPointF(width() / 2.0, height() / 2.0), kZoomStep);
}
void TopologyView::zoomOut()
{
    zoomAt(QPointF(width() / 2.0, height() / 2.0), 1 / kZoomStep);
}

void TopologyView::select(const Hit& hit)
{
    cs::ViewState view = m_getView();
    // A GPU out of service or idle holds no rank: clicking it clears the selection.
    view.highlightRank =
        hit.kind == HitKind::Gpu && m_scene ? m_scene->placement().rankOfGpu(hit.index) : -1;
    m_setView(view);
}

void TopologyView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    if (!m_scene) {
        painter.fillRect(rect(), ink().background);
        return;
    }
    // Zooming (wheel, keys, a bookmark's transition) draws scaled previews of the last exact
    // layer until the scale has rested for kZoomSettleMs.
    const ViewTransform transform = currentTransform();
    if (m_paintedScale > 0 && transform.scale != m_paintedScale) {
        m_scene->renderer().setScalingPreview(true);
        m_zoomSettled.start();
    }
    m_paintedScale = transform.scale;
    m_scene->renderer().setHover(m_hover);
    if (m_reservedTop > 0) {
        painter.fillRect(QRect(0, 0, width(), m_reservedTop), ink().background);
        painter.translate(0, m_reservedTop);
    }
    m_scene->renderer().paint(painter, transform);
    m_scene->paintOverlay(painter, transform);
    painter.resetTransform();
    if (const int strip = legendStrip(); strip > 0) {
        const QRectF area(0, height() - strip, width(), strip);
        painter.fillRect(area, ink().background);
        paintLegendIn(painter, m_scene->legend(), area.adjusted(16, 8, -16, -8), legendStyle());
    }
    firstModelFramePainted();
}

void TopologyView::wheelEvent(QWheelEvent* event)
{
    // 120 units per notch; a notch zooms by about 1.2x, trackpads zoom smoothly.
    zoomAt(event->position(), std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

void TopologyView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    m_pressPos = m_lastDragPos = event->position();
    m_dragging = false;
}

void TopologyView::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton) {
        const QPointF delta = event->position() - m_lastDragPos;
        if (!m_dragging && (event->position() - m_pressPos).manhattanLength() < kDragThresholdPx)
            return;
        m_dragging = true;
        setCursor(Qt::ClosedHandCursor);
        m_lastDragPos = event->position();
        panBy(delta);
        return;
    }
    const Hit hit = hitAt(event->position());
    if (hit != m_hover) {
        m_hover = hit;
        update();
        const QString text = m_scene ? m_scene->describe(hit) : QString();
        emit hovered(text.section(QLatin1Char('\n'), 0, 0));
    }
}

void TopologyView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    if (m_dragging) {
        unsetCursor();
    } else {
        const Hit hit = hitAt(event->position());
        select(hit);
        emit clicked(hit);
    }
    m_dragging = false;
}

void TopologyView::keyPressEvent(QKeyEvent* event)
{
    const double step = 0.1 * std::min(width(), height());
    switch (event->key()) {
    case Qt::Key_Left:
        panBy(QPointF(step, 0));
        break;
    case Qt::Key_Right:
        panBy(QPointF(-step, 0));
        break;
    case Qt::Key_Up:
        panBy(QPointF(0, step));
        break;
    case Qt::Key_Down:
        panBy(QPointF(0, -step));
        break;
    case Qt::Key_F:
        fitToView();
        break;
    case Qt::Key_Escape:
        select({});
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

void TopologyView::contextMenuEvent(QContextMenuEvent* event)
{
    if (!m_scene)
        return;
    emit contextMenuRequested(hitAt(event->pos()), event->globalPos());
    event->accept();
}

void TopologyView::markHit(const Hit& hit)
{
    if (!m_scene)
        return;
    m_scene->renderer().setMark(hit);
    const TopologyLayout& layout = m_scene->layout();
    QPointF world;
    switch (hit.kind) {
    case HitKind::Link:
        world = layout.linkLine(hit.index).center();
        break;
    case HitKind::Switch:
        world = layout.switchRect(hit.index).center();
        break;
    case HitKind::Gpu:
        world = layout.gpuRect(hit.index).center();
        break;
    default:
        update();
        return;
    }
    ViewTransform t = currentTransform();
    if (!t.visibleWorld().contains(world)) {
        t.center = world;
        applyTransform(t);
    }
    update();
}

void TopologyView::leaveEvent(QEvent* event)
{
    m_hover = {};
    update();
    emit hovered(QString());
    QWidget::leaveEvent(event);
}

bool TopologyView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_scene) {
        auto* help = static_cast<QHelpEvent*>(event);
        QString text = m_scene->renderer().tierLabelAt(currentTransform(), inHall(help->pos()));
        if (text.isEmpty())
            text = m_scene->describe(hitAt(help->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}
