#pragma once
// The data hall and its fabric as an interactive view: wheel zoom under the cursor, drag to
// pan, arrow keys, fit-to-view, hover tooltips, click to select a rank. The zoom, centre,
// colour mode and selection live in the document's view state (read and written through the
// callbacks given), so sessions and bookmarks keep them.

#include <QTimer>
#include <QWidget>
#include <functional>
#include <memory>

#include "legendwidget.h"
#include "topologylayout.h"

class TopologyScene;
struct TopologyInk;
namespace cs {
class Topology;
class Placement;
struct Evaluation;
struct ViewState;
} // namespace cs

class TopologyView : public QWidget {
    Q_OBJECT
public:
    using ViewGetter = std::function<const cs::ViewState&()>;
    using ViewSetter = std::function<void(const cs::ViewState&)>;

    TopologyView(ViewGetter getView, ViewSetter setView, QWidget* parent = nullptr);
    ~TopologyView() override;

    // A new cluster or run. The objects must outlive the next call. The layout is kept when the
    // topology has the devices of the last call's (cs::Topology::devicesId: new rates, or no
    // change to the cluster), else made anew.
    void setModel(const cs::Topology& topology, const cs::Placement& placement,
                  const cs::Evaluation& evaluation);
    void clearModel();
    // Given to every scene the view makes (see TopologyScene::setTrafficSource and
    // setLoadDescriber).
    void setSceneHooks(std::function<void(TopologyScene&)> hooks)
    {
        m_sceneHooks = std::move(hooks);
    }
    // More hooks for every scene, after those given before.
    void addSceneHooks(std::function<void(TopologyScene&)> hooks)
    {
        m_sceneHooks = [first = std::move(m_sceneHooks),
                        then = std::move(hooks)](TopologyScene& scene) {
            if (first)
                first(scene);
            then(scene);
        };
    }
    TopologyScene* scene() const { return m_scene.get(); }
    // The legend in a strip along the view's bottom, in type of this pixel size (0: none), for
    // presenting with the docks hidden. The hall keeps the rest: a bookmark shows the same
    // racks, smaller.
    void setOverlayLegend(double fontPx);
    double overlayLegend() const { return m_overlayLegendPx; }
    // Pixels along the view's top kept clear of the hall (a caption over the view, presenting).
    void setReservedTop(int pixels);
    int reservedTop() const { return m_reservedTop; }
    ViewTransform currentTransform() const;
    Hit hitAt(QPointF widgetPos) const;
    // Outlines a link, switch or GPU in the mark colour and brings it into view (the Links
    // dock's choice); an empty hit clears the mark.
    void markHit(const Hit& hit);

signals:
    // What the pointer is over, in one line; empty when it leaves or is over nothing.
    void hovered(const QString& what);
    // A click (not a drag) on what `hit` names; a GPU's also selects its rank.
    void clicked(const Hit& hit);
    // A right-click: what is under the pointer, and where on the screen to put a menu.
    void contextMenuRequested(const Hit& hit, const QPoint& globalPos);

public slots:
    void viewStateChanged();
    void fitToView();
    void zoomIn();
    void zoomOut();

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    void applyTransform(const ViewTransform& transform);
    void zoomAt(QPointF anchor, double factor);
    void panBy(QPointF pixels);
    void select(const Hit& hit);
    int legendStrip() const;                 // pixels along the bottom kept for the legend
    QPointF inHall(QPointF widgetPos) const; // where the hall's transform maps from
    // The hall follows the theme (dark on a dark palette, light on a light one) and its names
    // the view's type size.
    const TopologyInk& ink() const;
    LegendStyle legendStyle() const;
    void applyInk();

    ViewGetter m_getView;
    ViewSetter m_setView;
    std::unique_ptr<TopologyScene> m_scene;
    std::function<void(TopologyScene&)> m_sceneHooks;
    QPointF m_pressPos;
    QPointF m_lastDragPos;
    bool m_dragging = false;
    Hit m_hover;
    double m_paintedScale = 0; // 0 before the first paint
    QTimer m_zoomSettled;      // the exact layer is drawn once zooming rests
    double m_overlayLegendPx = 0;
    int m_reservedTop = 0;
};
