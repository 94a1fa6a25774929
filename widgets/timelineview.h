#pragma once
// The predicted step as a Gantt chart: one row per pipeline stage and a row for the fabric,
// with a time cursor. With a measured profile, each stage row holds under its predicted lanes
// the measured step of the stage's slowest rank (timelinemeasured.h), in the same colours,
// with hover and find. Boxes are drawn into a cached image when the model, the zoom, the size,
// the filter or the palette change; a frame of the animation only blits it and draws the
// cursor, the selection's dependencies and a measured range over it.
//
// Wheel zooms, Shift+wheel or a drag on the time ruler pans, a drag on the rows measures a
// range, a click selects an event (and moves the time there); rows that do not fit scroll.

#include <QImage>
#include <QWidget>

#include <optional>
#include <vector>

#include "costmodel.h"
#include "timelinemapping.h"
#include "timelineruler.h"

class QScrollBar;

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    // A new step. The zoom is kept unless the whole step was shown, which stays so.
    void setSchedule(std::vector<cs::Event> events, int stages, double stepTimeS);
    // The measured lanes (none: no profile). `note`, where not empty, says in the plot's header
    // why a profile shows none.
    void setMeasuredLanes(std::vector<TimelineMeasuredLane> lanes, const QString& note = {});
    const std::vector<TimelineMeasuredLane>& measuredLanes() const { return m_measuredLanes; }
    QString measuredNote() const { return m_measuredNote; }
    // The measured item under a point, as (lane, item); nothing elsewhere.
    std::optional<std::pair<int, int>> measuredItemAt(QPointF pos) const;
    QString describeMeasured(int lane, int item) const;
    // Moves the cursor, and scrolls the visible range to a time off screen: while following
    // (playback) just far enough, else to put it in the middle.
    void setTime(double timeS, bool follow);
    double time() const { return m_cursorS; }

    const TimelineMapping& mapping() const { return m_mapping; }
    int stageCount() const { return m_lanes.stages(); }
    const TimelineGeometry& geometry() const { return m_geometry; }
    bool criticalPathShown() const { return m_critical; }
    void setCriticalPathShown(bool shown);
    void showWholeStep();
    // Dims every event the filter does not match (EventFilter's words); false with the
    // problem when a word is not understood. Empty text shows everything.
    bool setFilter(const QString& text, QString* problem = nullptr);
    // Events and measured intervals that match.
    int filterMatches() const { return m_matches; }
    // The selected event and the dependencies drawn as arrows, as (from op, to op).
    void selectEvent(int event);
    int selectedEvent() const { return m_selected; }
    std::vector<std::pair<int, int>> selectedDependencies() const;
    const std::vector<TimelineOp>& ops() const { return m_ops; }
    // A range measured by dragging over the rows (seconds from the step's start).
    std::optional<std::pair<double, double>> measuredRange() const { return m_measured; }
    void setMeasuredRange(std::optional<std::pair<double, double>> range);
    // The event drawn under a point of the widget, -1 for none, and how a tooltip tells it.
    int eventAt(QPointF pos) const;
    QString describeEvent(int event) const;
    // What is under a point in words: an event, or a stage's idle gap; empty elsewhere.
    QString describeAt(QPointF pos) const;

    // The time ruler's ticks and the names written at them, every name inside the widget.
    std::vector<timelineruler::Tick> rulerTicks() const;

    QSize sizeHint() const override { return {900, 220}; }
    QSize minimumSizeHint() const override { return {200, 100}; }

signals:
    void timeClicked(double timeS);
    // What the pointer is over, in one line (empty when nothing).
    void hovered(const QString& what);

protected:
    bool event(QEvent* e) override;
    void changeEvent(QEvent* e) override;
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    enum class Drag { None, Pending, Pan, Measure };

    void setMapping(const TimelineMapping& mapping);
    // The lanes and the time range again, after a new step or new measured lanes.
    void rebuildLanes(bool keepZoom);
    void layoutRows();
    void invalidate();
    void matchFilter();
    void ensureCache();
    void drawGrid(QPainter& p) const;
    void drawLanes(QPainter& p) const;
    void drawMeasuredLanes(QPainter& p) const;
    void drawMeasuredLabels(QPainter& p) const;
    void drawLabels(QPainter& p) const;
    void drawMeasured(QPainter& p) const;
    void drawSelection(QPainter& p) const;
    void drawCursor(QPainter& p) const;
    QRect cursorArea(double timeS) const;
    QRect plotRect() const;
    double laneCenterY(int stage) const;
    bool dimmed(const cs::Event& e) const;
    QString describeGap(int stage, double t) const;
    QString describeOp(int op) const;
    static QString measuredLabel(int rank); // "measured (rank 5)"

    std::vector<cs::Event> m_events;
    int m_stages = 1;
    double m_stepTimeS = 0;
    std::vector<TimelineMeasuredLane> m_measuredLanes;
    std::vector<std::vector<uint8_t>> m_measuredMatches; // per lane and item, while filtering
    QString m_measuredNote;
    int m_labelWidth = 84; // wider for the measured lanes' labels
    std::vector<TimelineOp> m_ops;
    TimelineLanes m_lanes;
    TimelineMapping m_mapping;
    TimelineGeometry m_geometry;
    QScrollBar* m_scroll = nullptr;
    QImage m_cache;
    bool m_cacheValid = false;
    bool m_critical = false;
    std::optional<EventFilter> m_filter;
    std::vector<uint8_t> m_matchesFilter; // per event, while a filter is set
    int m_matches = 0;
    int m_selected = -1;
    std::optional<std::pair<double, double>> m_measured;
    double m_cursorS = 0;
    QPointF m_pressPos;
    double m_lastDragX = 0;
    Drag m_drag = Drag::None;
    bool m_panning = false; // the press asked for panning (ruler, Shift, middle button)
};
