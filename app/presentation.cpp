#include "presentation.h"

#include <QAction>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QMainWindow>
#include <QMenuBar>
#include <QScreen>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>
#include <QVariantAnimation>
#include <algorithm>
#include <cmath>

#include "bookmarkdialog.h"
#include "document.h"
#include "editcommands.h"
#include "speakernotes.h"
#include "topologyview.h"

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
    , m_notes(new QAction(tr("Speaker &Notes"), this))
    , m_leave(new QAction(tr("Leave Presentation"), this))
    , m_animation(new QVariantAnimation(this))
    , m_caption(new QLabel(window))
    , m_speakerNotes(new SpeakerNotes(window))
{
    // The bookmark's caption, over the view, for the audience. Its colours are its own: it
    // sits on the topology's dark hall in either theme.
    m_caption->setStyleSheet(QStringLiteral("background: rgba(20, 24, 30, 215); color: white; "
                                            "padding: 10px 18px; border-radius: 6px;"));
    m_caption->setWordWrap(true);
    m_caption->hide();
    m_notes->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
    m_notes->setStatusTip(tr("The current bookmark's speaker notes in a window of their own"));
    connect(m_notes, &QAction::triggered, this, &Presentation::showNotes);
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
    m_addBookmark->setStatusTip(tr("Keep the current view (zoom, centre, colours, selection, "
                                   "time) as a bookmark, with a caption and speaker notes"));
    connect(m_addBookmark, &QAction::triggered, this, qOverload<>(&Presentation::addBookmark));
    // Escape must work while menus are hidden, so the action lives on the window itself.
    m_leave->setShortcut(QKeySequence(Qt::Key_Escape));
    m_leave->setEnabled(false);
    connect(m_leave, &QAction::triggered, this, &Presentation::leave);
    for (QAction* a : {m_next, m_previous, m_addBookmark, m_leave, m_toggle, m_notes})
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
    m_savedView = m_doc->view();
    m_savedDocks = m_window->saveState();
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
    // Without a window manager to honour the request, the screen's size is set directly.
    if (m_window->screen())
        m_window->setGeometry(m_window->screen()->geometry());
    const int screenHeight =
        m_window->screen() ? m_window->screen()->geometry().height() : m_window->height();
    if (auto* view = qobject_cast<TopologyView*>(m_window->centralWidget())) {
        view->setOverlayLegend(legendPx(screenHeight));
        view->installEventFilter(this);
    }
    showCaption();
    // A second screen is the presenter's: the notes go there.
    const QList<QScreen*> screens = QGuiApplication::screens();
    if (screens.size() > 1) {
        for (QScreen* s : screens) {
            if (s != m_window->screen()) {
                m_speakerNotes->move(s->availableGeometry().topLeft() + QPoint(40, 40));
                showNotes();
                break;
            }
        }
    }
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
    m_window->restoreState(m_savedDocks);
    if (auto* view = qobject_cast<TopologyView*>(m_window->centralWidget())) {
        view->setOverlayLegend(0);
        view->setReservedTop(0);
        view->removeEventFilter(this);
    }
    m_animation->stop();
    m_doc->setView(m_savedView); // the view and selection as they were before presenting
    m_caption->hide();
    m_speakerNotes->hide();
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
    if (m_speakerNotes->isVisible())
        showNotes();
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

double Presentation::captionPx(int screenHeight)
{
    return std::max(24.0, screenHeight / 36.0);
}

double Presentation::legendPx(int screenHeight)
{
    return std::max(18.0, screenHeight / 56.0);
}

void Presentation::showCaption()
{
    const auto& marks = m_doc->bookmarks();
    if (!m_active || m_current < 0 || m_current >= int(marks.size())) {
        m_caption->hide();
        if (auto* view = qobject_cast<TopologyView*>(m_window->centralWidget()))
            view->setReservedTop(0);
        return;
    }
    const int screenHeight =
        m_window->screen() ? m_window->screen()->geometry().height() : m_window->height();
    QFont font = m_window->font();
    font.setPixelSize(int(captionPx(screenHeight)));
    font.setBold(true);
    m_caption->setFont(font);
    m_caption->setText(QStringLiteral("%1 / %2   %3")
                           .arg(m_current + 1)
                           .arg(marks.size())
                           .arg(QString::fromStdString(marks[size_t(m_current)].title)));
    m_caption->raise();
    m_caption->show();
    placeCaption();
}

// Always the same place: the top left of the view, the legend keeping the bottom.
void Presentation::placeCaption()
{
    const QRect area =
        m_window->centralWidget() ? m_window->centralWidget()->geometry() : m_window->rect();
    const int margin = std::max(16, area.height() / 45);
    // One line where it fits, wrapped at the view's width where it does not.
    const int oneLine =
        QFontMetrics(m_caption->font()).horizontalAdvance(m_caption->text()) + 2 * 18 + 24;
    m_caption->setFixedWidth(std::min(oneLine, area.width() - 2 * margin));
    m_caption->setFixedHeight(m_caption->heightForWidth(m_caption->width()));
    m_caption->move(area.left() + margin, area.top() + margin);
    // The hall keeps clear of the caption: the names of the top tier and the first racks
    // would be under it.
    if (auto* view = qobject_cast<TopologyView*>(m_window->centralWidget()))
        view->setReservedTop(m_caption->isHidden() ? 0 : m_caption->height() + margin * 3 / 2);
}

bool Presentation::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Resize || event->type() == QEvent::Move)
        placeCaption();
    return QObject::eventFilter(watched, event);
}

void Presentation::showNotes()
{
    m_speakerNotes->show(m_doc->bookmarks(), m_current);
}

void Presentation::addBookmark()
{
    QString caption = tr("Bookmark %1").arg(m_doc->bookmarks().size() + 1);
    QString notes;
    if (!m_quiet) {
        BookmarkDialog ask(tr("Add Bookmark"), caption, notes, m_window);
        if (ask.exec() != QDialog::Accepted)
            return;
        caption = ask.caption();
        notes = ask.notes();
    }
    addBookmark(caption, notes);
}

void Presentation::addBookmark(const QString& caption, const QString& notes)
{
    std::vector<cs::Bookmark> marks = m_doc->bookmarks();
    cs::Bookmark mark;
    mark.title = caption.toStdString();
    mark.notes = notes.toStdString();
    mark.view = m_doc->view();
    mark.view.playing = false; // a bookmark is a still: Space plays from it
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
