#pragma once
// Lights, over a TopologyView, the links the step's traffic uses at the current time: fabric
// bundles for dimensions that cross NVLink domains, domain outlines for traffic that stays
// inside them, each in its dimension's colour, brighter with more of it in use. A transparent
// child of the view, because the renderer draws links into its cached static layer.

#include <QWidget>

#include "activity.h"

class QPainter;
class TopologyLayout;
class TopologyView;
struct ViewTransform;

// Draws the lit links of `use` over a topology drawn with `view` (also for --render).
void paintActivityLinks(QPainter& p, const TopologyLayout& layout, const ViewTransform& view,
                        const cs::LinkUse& use);

class ActivityLinkLayer : public QWidget {
    Q_OBJECT
public:
    explicit ActivityLinkLayer(TopologyView* view);

    void setLinkUse(const cs::LinkUse& use);
    const cs::LinkUse& linkUse() const { return m_use; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    TopologyView* m_view;
    cs::LinkUse m_use;
};
