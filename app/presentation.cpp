#include "presentation.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMenuBar>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>
#include <QVariantAnimation>
#include <algorithm>
#include <cmath>

#include "document.h"
#include "editcommands.h"

namespace {
constexpr int kTransitionMs = 800;
constexpr double kFontScale = 1.5;
} // namespace

Presentation::Presentation(QMainWindow* window, Document* doc)
    : QObject(window)
    , m_window(window)
    , m_doc(doc)
    , m_toggle(new QAction(tr("&Presentation Mode"), this))
    , m_next(new QAction(tr("&Next Bookmark"), this))
    , m_previous(new QAction(tr("&Previous Bookmark"), this))
    , m_addBookmark(new QAction(tr("&Add Bookmark"), this))
    , m_leave(new QAction(tr("Leave Presentation"), this))
    , m_animation(new QVariantAnimation(this))
    , m_caption(new QLabel(window))
{
    // The bookmark's title, over the view, for the audience.
    m_caption->setStyleSheet(QStringLiteral("background: rgba(20, 24, 30, 200); color: white; "
                                            "padding: 10px 18px; border-radius: 6px;"));
    m_caption->hide();
    m_toggle->setCheckable(true);
    // The platform's full-screen key (F11, Ctrl+Shift+F or Ctrl+Meta+F), and F11 everywhere.
    QList<QKeySequence> fullScreen = QKeySequence::keyBindings(QKeySequence::FullScreen);
    if (!fullScreen.contains(QKeySequence(Qt::Key_F11)))
        fullScreen << QKeySequence(Qt::Key_F11);
    m_toggle->setShortcuts(fullScreen);
    m_toggle->setStatusTip(
        tr("Full screen with large type, no menus; Page Down/Up walk the bookmarks"));
    connect(m_toggle, &QAction::triggered, this, [this](bool on) { on ? enter() : leave(); });
    m_next->setShortcut(QKeySequence(Qt::Key_PageDown));
    connect(m_next, &QAction::triggered, this, [this] { goTo(m_current + 1); });
    m_previous->setShortcut(QKeySequence(Qt::Key_PageUp));
    connect(m_previous, &QAction::triggered, this, [this] { goTo(m_current - 1); });
    m_addBookmark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    m_addBookmark->setStatusTip(
        tr("Keep the current view (zoom, centre, colours, selection, time) as a bookmark"));
    connect(m_addBookmark, &QAction::triggered, this, &Presentation::addBookmark);
    // Escape must work while menus are hidden, so the action lives on the window itself.
    m_leave->setShortcut(QKeySequence(Qt::Key_Escape));
    m_leave->setEnabled(false);
    connect(m_leave, &QAction::triggered, this, &Presentation::leave);
    for (QAction* a : {m_next, m_previous, m_addBookmark, m_leave, m_toggle})
        m_window->addAction(a);

    m_animation->setDuration(kTransitionMs);
    m_animation->setEasingCurve(QEasingCurve::InOutCubic);
    m_animation->setStartValue(0.0);
    m_animation->setEndValue(1.0);
    connect(doc, &Document::modelChanged, m_animation, &QVariantAnimation::stop);
}

void Presentation::enter()
{
    if (m_active)
        return;
    m_active = true;
    m_hidden.clear();
    const auto hideVisible = [this](QWidget* w) {
        if (w && w->isVisible()) {
            m_hidden << w;
            w->hide();
        }
    };
    hideVisible(m_window->menuBar());
    hideVisible(m_window->statusBar());
    for (QToolBar* bar : m_window->findChildren<QToolBar*>(QString(), Qt::FindDirectChildrenOnly))
        hideVisible(bar);
    for (QDockWidget* dock :
         m_window->findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly))
        hideVisible(dock);
    m_savedFont = m_window->font();
    QFont large = m_savedFont;
    large.setPointSizeF(large.pointSizeF() * kFontScale);
    m_window->setFont(large);
    m_savedGeometry = m_window->saveGeometry();
    m_window->showFullScreen();
    showCaption();
    m_leave->setEnabled(true);
    m_toggle->setChecked(true);
    emit activeChanged(true);
}

void Presentation::leave()
{
    if (!m_active)
        return;
    m_active = false;
    for (const QPointer<QWidget>& w : m_hidden)
        if (w)
            w->show();
    m_hidden.clear();
    m_window->setFont(m_savedFont);
    m_window->showNormal();
    m_window->restoreGeometry(m_savedGeometry);
    m_caption->hide();
    m_leave->setEnabled(false);
    m_toggle->setChecked(false);
    emit activeChanged(false);
}

void Presentation::goTo(int index, bool animate)
{
    const auto& marks = m_doc->bookmarks();
    if (index < 0 || index >= int(marks.size()))
        return;
    m_current = index;
    showCaption();
    const cs::ViewState from = m_doc->view();
    const cs::ViewState to = marks[size_t(index)].view;
    m_animation->stop();
    m_animation->disconnect(this);
    if (!animate) {
        m_doc->setView(to);
        return;
    }
    connect(m_animation, &QVariantAnimation::valueChanged, this,
            [this, from, to](const QVariant& t) {
                m_doc->setView(interpolate(from, to, t.toDouble()));
            });
    connect(m_animation, &QVariantAnimation::finished, this, [this, to] { m_doc->setView(to); });
    m_animation->start();
}

void Presentation::showCaption()
{
    const auto& marks = m_doc->bookmarks();
    if (!m_active || m_current < 0 || m_current >= int(marks.size())) {
        m_caption->hide();
        return;
    }
    QFont font = m_window->font();
    font.setPointSizeF(font.pointSizeF() * 1.3);
    font.setBold(true);
    m_caption->setFont(font);
    m_caption->setText(QStringLiteral("%1 / %2   %3")
                           .arg(m_current + 1)
                           .arg(marks.size())
                           .arg(QString::fromStdString(marks[size_t(m_current)].title)));
    m_caption->adjustSize();
    const QRect area =
        m_window->centralWidget() ? m_window->centralWidget()->geometry() : m_window->rect();
    m_caption->move(area.left() + 24, area.bottom() - m_caption->height() - 24);
    m_caption->raise();
    m_caption->show();
}

void Presentation::addBookmark()
{
    std::vector<cs::Bookmark> marks = m_doc->bookmarks();
    cs::Bookmark mark;
    mark.title = tr("Bookmark %1").arg(marks.size() + 1).toStdString();
    mark.view = m_doc->view();
    marks.push_back(mark);
    m_doc->undoStack()->push(new SetBookmarksCommand(m_doc, std::move(marks), tr("Add Bookmark")));
    m_current = int(m_doc->bookmarks().size()) - 1;
}

cs::ViewState Presentation::interpolate(const cs::ViewState& a, const cs::ViewState& b, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    cs::ViewState v = b;
    const double za = std::max(a.zoom, 1e-6), zb = std::max(b.zoom, 1e-6);
    v.zoom = za * std::pow(zb / za, t);
    for (size_t i = 0; i < 2; ++i)
        v.center[i] = a.center[i] + (b.center[i] - a.center[i]) * t;
    v.timeS = a.timeS + (b.timeS - a.timeS) * t;
    v.playing = t >= 1.0 ? b.playing : false;
    return v;
}
