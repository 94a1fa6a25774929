#pragma once
// Presentation mode: full screen, large type, no menus or docks; Page Down / Page Up walk the
// session's bookmarks with a smooth transition; Escape leaves.

#include <QByteArray>
#include <QFont>
#include <QList>
#include <QObject>
#include <QPointer>

#include "description.h"

class Document;
class QAction;
class QLabel;
class QMainWindow;
class QVariantAnimation;
class QWidget;

class Presentation : public QObject {
    Q_OBJECT
public:
    Presentation(QMainWindow* window, Document* doc);

    QAction* toggleAction() const { return m_toggle; }
    QAction* nextAction() const { return m_next; }
    QAction* previousAction() const { return m_previous; }
    QAction* addBookmarkAction() const { return m_addBookmark; }

    bool isActive() const { return m_active; }
    void enter();
    void leave();
    // Moves the view to bookmark i; animated transitions interpolate zoom, centre and time.
    void goTo(int index, bool animate = true);
    int currentBookmark() const { return m_current; }
    void addBookmark();

    // The view a fraction t (0..1) of the way from a to b: zoom geometric, the rest linear;
    // discrete settings switch at the start.
    static cs::ViewState interpolate(const cs::ViewState& a, const cs::ViewState& b, double t);

signals:
    void activeChanged(bool active);

private:
    QMainWindow* m_window;
    Document* m_doc;
    QAction* m_toggle;
    QAction* m_next;
    QAction* m_previous;
    QAction* m_addBookmark;
    QAction* m_leave;
    QVariantAnimation* m_animation;
    bool m_active = false;
    int m_current = -1;
    void showCaption();

    QLabel* m_caption;
    QFont m_savedFont;
    QByteArray m_savedGeometry;
    QList<QPointer<QWidget>> m_hidden;
};
