#pragma once
// Play, pause, step by event, loop, speed and a scrubber for the step animation. One timer
// at about 60 frames per second runs only while playing. The bar does not own the time: it
// asks for changes (stateEdited) and shows what it is told (setState).

#include <QElapsedTimer>
#include <QTimer>
#include <QToolBar>
#include <vector>

#include "costmodel.h"

class QAction;
class QComboBox;
class QLabel;
class QSlider;

class PlaybackBar : public QToolBar {
    Q_OBJECT
public:
    explicit PlaybackBar(QWidget* parent = nullptr);

    void setSchedule(std::vector<cs::Event> events, double stepTimeS);
    void setState(double timeS, double speed, bool playing);

    double time() const { return m_timeS; }
    double speed() const { return m_speed; }
    bool playing() const { return m_playing; }
    bool looping() const;
    bool timerActive() const { return m_timer.isActive(); }

    // Moves the time as if `wallSeconds` had passed while playing.
    void advance(double wallSeconds);
    void togglePlaying();
    void stepForward();
    void stepBack();
    void toStart();
    void setSpeed(double simulatedPerWallSecond);

    QAction* playAction() const { return m_play; }
    QAction* stepForwardAction() const { return m_forward; }
    QAction* stepBackAction() const { return m_back; }
    QAction* toStartAction() const { return m_start; }
    QAction* loopAction() const { return m_loop; }
    QAction* slowerAction() const { return m_slower; }
    QAction* fasterAction() const { return m_faster; }

    static const std::vector<double>& speedPresets();

signals:
    void stateEdited(double timeS, double speed, bool playing);

protected:
    void changeEvent(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    void updateIcons();
    void edit(double timeS, double speed, bool playing);
    void show(double timeS, double speed, bool playing);
    void tick();
    void scrubbed(int value);
    void speedPicked(int index);
    void changeSpeed(int presetSteps);
    void updateSpeedLabels();
    void updatePlayAction();
    void updateWidgets();

    std::vector<cs::Event> m_events;
    double m_stepS = 0;
    double m_timeS = 0;
    double m_speed = 0.05;
    bool m_playing = false;

    QTimer m_timer;
    QElapsedTimer m_clock;
    QAction* m_play = nullptr;
    QAction* m_back = nullptr;
    QAction* m_forward = nullptr;
    QAction* m_start = nullptr;
    QAction* m_loop = nullptr;
    QAction* m_slower = nullptr;
    QAction* m_faster = nullptr;
    QSlider* m_scrubber = nullptr;
    QLabel* m_timeLabel = nullptr;
    QComboBox* m_speedBox = nullptr;
};
