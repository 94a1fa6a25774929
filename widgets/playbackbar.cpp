#include "playbackbar.h"

#include <QAction>
#include <QComboBox>
#include <QEvent>
#include <QLabel>
#include <QPaintEvent>
#include <QPainter>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>
#include <cmath>

#include "activity.h"
#include "glyphicons.h"
#include "text.h"

namespace {

constexpr int kFrameIntervalMs = 16;
constexpr int kScrubberSteps = 10000;

} // namespace

const std::vector<double>& PlaybackBar::speedPresets()
{
    static const std::vector<double> presets{0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0};
    return presets;
}

PlaybackBar::PlaybackBar(QWidget* parent)
    : QToolBar(tr("Playback"), parent)
{
    setObjectName(QStringLiteral("playbackBar"));
    m_timer.setInterval(kFrameIntervalMs);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &PlaybackBar::tick);

    m_start = addAction(tr("To Start"), this, &PlaybackBar::toStart);
    m_back = addAction(tr("Previous Event"), this, &PlaybackBar::stepBack);
    m_play = addAction(tr("Play"), this, &PlaybackBar::togglePlaying);
    m_forward = addAction(tr("Next Event"), this, &PlaybackBar::stepForward);
    m_loop = addAction(tr("Loop"));
    m_loop->setCheckable(true);
    m_loop->setChecked(true);
    m_slower = new QAction(tr("Slower"), this);
    m_faster = new QAction(tr("Faster"), this);
    connect(m_slower, &QAction::triggered, this, [this] { changeSpeed(-1); });
    connect(m_faster, &QAction::triggered, this, [this] { changeSpeed(+1); });

    m_scrubber = new QSlider(Qt::Horizontal, this);
    m_scrubber->setRange(0, kScrubberSteps);
    m_scrubber->setMinimumWidth(240);
    m_scrubber->setToolTip(tr("Time in the step"));
    connect(m_scrubber, &QSlider::valueChanged, this, &PlaybackBar::scrubbed);
    addWidget(m_scrubber);

    m_timeLabel = new QLabel(this);
    m_timeLabel->setMinimumWidth(
        fontMetrics().horizontalAdvance(QStringLiteral("00,000 ms of 00.000 s")) + 12);
    m_timeLabel->setAlignment(Qt::AlignCenter);
    addWidget(m_timeLabel);

    m_speedBox = new QComboBox(this);
    m_speedBox->setToolTip(tr("Simulated seconds per second of wall time"));
    m_speedBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    for (double s : speedPresets())
        m_speedBox->addItem(QString(), s);
    connect(m_speedBox, &QComboBox::currentIndexChanged, this, &PlaybackBar::speedPicked);
    addWidget(m_speedBox);
    updateSpeedLabels();
    updateWidgets();
    updateIcons();
}

// Fusion paints a toolbar's panel slowly (about 3 ms at full width in the software rasterizer);
// a plain panel keeps the bar, repainted every frame, cheap. (A style sheet would do the same,
// but would freeze the bar's palette against a change of theme.)
void PlaybackBar::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    p.fillRect(event->rect(), palette().window());
}

void PlaybackBar::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange)
        updateIcons();
    QToolBar::changeEvent(event);
}

void PlaybackBar::updateIcons()
{
    m_start->setIcon(glyphIcon(Glyph::ToStart, palette()));
    m_back->setIcon(glyphIcon(Glyph::StepBack, palette()));
    m_forward->setIcon(glyphIcon(Glyph::StepForward, palette()));
    m_loop->setIcon(glyphIcon(Glyph::Loop, palette()));
    updatePlayAction();
}

bool PlaybackBar::looping() const
{
    return m_loop->isChecked();
}

void PlaybackBar::setSchedule(std::vector<cs::Event> events, double stepTimeS)
{
    m_events = std::move(events);
    m_stepS = std::max(0.0, stepTimeS);
    updateSpeedLabels();
    updateWidgets();
}

void PlaybackBar::setState(double timeS, double speed, bool playing)
{
    show(timeS, speed, playing);
}

void PlaybackBar::show(double timeS, double speed, bool playing)
{
    m_timeS = timeS;
    m_speed = speed;
    if (playing != m_playing) {
        m_playing = playing;
        if (playing) {
            m_clock.start();
            m_timer.start();
        } else {
            m_timer.stop();
        }
        updatePlayAction();
    }
    updateWidgets();
}

void PlaybackBar::edit(double timeS, double speed, bool playing)
{
    timeS = std::clamp(timeS, 0.0, m_stepS);
    if (timeS == m_timeS && speed == m_speed && playing == m_playing)
        return;
    show(timeS, speed, playing);
    emit stateEdited(timeS, speed, playing);
}

void PlaybackBar::tick()
{
    advance(double(m_clock.restart()) / 1000.0);
}

void PlaybackBar::advance(double wallSeconds)
{
    if (!m_playing || m_stepS <= 0)
        return;
    double t = m_timeS + wallSeconds * m_speed;
    bool playing = true;
    if (t >= m_stepS) {
        if (looping()) {
            t = std::fmod(t, m_stepS);
        } else {
            t = m_stepS;
            playing = false;
        }
    }
    edit(t, m_speed, playing);
}

void PlaybackBar::togglePlaying()
{
    // Playing from the very end starts the step over.
    const bool atEnd = m_timeS >= m_stepS;
    edit(!m_playing && atEnd ? 0.0 : m_timeS, m_speed, !m_playing);
}

void PlaybackBar::stepForward()
{
    edit(cs::nextEventTime(m_events, m_timeS), m_speed, false);
}

void PlaybackBar::stepBack()
{
    edit(cs::previousEventTime(m_events, m_timeS), m_speed, false);
}

void PlaybackBar::toStart()
{
    edit(0.0, m_speed, m_playing);
}

void PlaybackBar::setSpeed(double simulatedPerWallSecond)
{
    edit(m_timeS, simulatedPerWallSecond, m_playing);
}

void PlaybackBar::changeSpeed(int presetSteps)
{
    const auto& presets = speedPresets();
    const auto it = std::lower_bound(presets.begin(), presets.end(), m_speed);
    const int current = int(it - presets.begin());
    const int next = std::clamp(current + presetSteps, 0, int(presets.size()) - 1);
    setSpeed(presets[size_t(next)]);
}

void PlaybackBar::scrubbed(int value)
{
    edit(m_stepS * value / kScrubberSteps, m_speed, m_playing);
}

void PlaybackBar::speedPicked(int index)
{
    if (index >= 0)
        setSpeed(m_speedBox->itemData(index).toDouble());
}

// "x0.05: the step in 25 s" tells how slow the motion is for this step.
void PlaybackBar::updateSpeedLabels()
{
    for (int i = 0; i < m_speedBox->count(); ++i) {
        const double s = m_speedBox->itemData(i).toDouble();
        QString label = QStringLiteral("\u00d7%1").arg(s);
        if (m_stepS > 0)
            label += tr(" (step in %1 s)").arg(m_stepS / s, 0, 'f', m_stepS / s < 10 ? 1 : 0);
        m_speedBox->setItemText(i, label);
    }
}

void PlaybackBar::updatePlayAction()
{
    m_play->setText(m_playing ? tr("Pause") : tr("Play"));
    m_play->setIcon(glyphIcon(m_playing ? Glyph::Pause : Glyph::Play, palette()));
}

void PlaybackBar::updateWidgets()
{
    {
        const QSignalBlocker block(m_scrubber);
        m_scrubber->setValue(m_stepS > 0 ? int(std::lround(m_timeS / m_stepS * kScrubberSteps))
                                         : 0);
    }
    m_timeLabel->setText(tr("%1 of %2")
                             .arg(QString::fromStdString(cs::inStepTimeText(m_timeS)),
                                  QString::fromStdString(cs::stepTimeText(m_stepS))));
    {
        const QSignalBlocker block(m_speedBox);
        int index = m_speedBox->findData(m_speed);
        if (index < 0) { // a speed from a session that is not a preset
            m_speedBox->addItem(QString(), m_speed);
            updateSpeedLabels();
            index = m_speedBox->count() - 1;
        }
        m_speedBox->setCurrentIndex(index);
    }
}
