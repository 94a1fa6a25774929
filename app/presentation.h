#pragma once
// Presentation mode: full screen, no menus or docks, large type, the legend over the view and
// each bookmark's caption at the top; Space plays and pauses, Page Down / Page Up walk the
// session's bookmarks with a smooth transition, Escape leaves and puts back the view, the
// selection and the docks as they were. Speaker notes show in a window of their own, on a
// second screen when there is one.

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
class SpeakerNotes;

class Presentation : public QObject {
    Q_OBJECT
public:
    Presentation(QMainWindow* window, Document* doc);

    QAction* toggleAction() const { return m_toggle; }
    QAction* nextAction() const { return m_next; }
    QAction* previousAction() const { return m_previous; }
    QAction* addBookmarkAction() const { return m_addBookmark; }
    QAction* notesAction() const { return m_notes; }

    bool isActive() const { return m_active; }
    void enter();
    void leave();
    // Moves the view to bookmark i; animated transitions interpolate zoom, centre and time.
    void goTo(int index, bool animate = true);
    int currentBookmark() const { return m_current; }
    // Ctrl+B: asks for a caption and notes, then keeps the current view (zoom, centre,
    // colours, selection, time) under them. Quiet: no question, a numbered caption.
    void addBookmark();
    void addBookmark(const QString& caption, const QString& notes);
    void setQuiet(bool quiet) { m_quiet = quiet; }
    SpeakerNotes* speakerNotes() const { return m_speakerNotes; }
    // Type sizes in pixels for a screen of this height: readable from the back of a room.
    static double captionPx(int screenHeight);
    static double legendPx(int screenHeight);

    // The view a fraction t (0..1) of the way from a to b: zoom geometric, the rest linear;
    // discrete settings switch at the start.
    static cs::ViewState interpolate(const cs::ViewState& a, const cs::ViewState& b, double t);

signals:
    void activeChanged(bool active);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showCaption();
    void placeCaption();
    void showNotes();

    QMainWindow* m_window;
    Document* m_doc;
    QAction* m_toggle;
    QAction* m_next;
    QAction* m_previous;
    QAction* m_addBookmark;
    QAction* m_notes;
    QAction* m_leave;
    QVariantAnimation* m_animation;
    bool m_active = false;
    bool m_quiet = false;
    int m_current = -1;
    QLabel* m_caption;
    SpeakerNotes* m_speakerNotes;
    // What presenting changes, to put back on leaving.
    QFont m_savedFont;
    QByteArray m_savedGeometry;
    QByteArray m_savedDocks;
    cs::ViewState m_savedView;
    QList<QPointer<QWidget>> m_hidden;
};
