#pragma once
// The predicted step as a Gantt chart: one row per pipeline stage and a row for the fabric,
// with a time cursor. Boxes are drawn into a cached image when the model,
// the zoom or the size change; a frame of the animation only blits it and draws the cursor.

#include <QImage>
#include <QWidget>

#include <vector>

#include "costmodel.h"
#include "timelinemapping.h"

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    // A new step: shows all of it.
    void setSchedule(std::vector<cs::Event> events, int stages, double stepTimeS);
    // Moves the cursor; while following, the visible range scrolls to keep it in sight.
    void setTime(double timeS, bool follow);
    double time() const { return m_cursorS; }

    const TimelineMapping& mapping() const { return m_mapping; }
    const TimelineGeometry& geometry() const { return m_geometry; }
    bool criticalPathShown() const { return m_critical; }
    void setCriticalPathShown(bool shown);
    void showWholeStep();
    // The event drawn under a point of the widget, -1 for none, and how a tooltip tells it.
    int eventAt(QPointF pos) const;
    QString describeEvent(int event) const;

    QSize sizeHint() const override { return {900, 220}; }
    QSize minimumSizeHint() const override { return {200, 80}; }

signals:
    void timeClicked(double timeS);

protected:
    bool event(QEvent* e) override;
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;

private:
    void setMapping(const TimelineMapping& mapping);
    void layoutRows();
    void ensureCache();
    void drawGrid(QPainter& p) const;
    void drawLanes(QPainter& p) const;
    void drawCursor(QPainter& p) const;
    QRect cursorArea(double timeS) const;

    std::vector<cs::Event> m_events;
    TimelineLanes m_lanes;
    TimelineMapping m_mapping;
    TimelineGeometry m_geometry;
    QImage m_cache;
    bool m_cacheValid = false;
    bool m_critical = false;
    double m_cursorS = 0;
    QPointF m_pressPos;
    double m_lastDragX = 0;
    bool m_pressed = false;
    bool m_dragging = false;
};
