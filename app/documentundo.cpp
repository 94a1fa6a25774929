#include "documentundo.h"

#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QMainWindow>
#include <QPlainTextEdit>
#include <QTextEdit>
#include <QUndoStack>

namespace {

// Keeps Ctrl+Z and Ctrl+Shift+Z from the window's single-line fields, which would take them
// as their own; multi-line notes keep their own undo of typing.
class UndoShortcutsFirst : public QObject {
public:
    UndoShortcutsFirst(QMainWindow* window, std::function<bool()> commitPending)
        : QObject(window)
        , m_window(window)
        , m_commitPending(std::move(commitPending))
    {
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() != QEvent::ShortcutOverride)
            return false;
        auto* widget = qobject_cast<QWidget*>(watched);
        if (!widget || widget->window() != m_window || qobject_cast<QTextEdit*>(widget) ||
            qobject_cast<QPlainTextEdit*>(widget))
            return false;
        const auto* key = static_cast<QKeyEvent*>(event);
        if (!key->matches(QKeySequence::Undo) && !key->matches(QKeySequence::Redo))
            return false;
        // The typed value first: the action it enables (the first edit) then takes the key.
        m_commitPending();
        return true; // not accepted: the shortcut goes to the window's action, not the field
    }

private:
    QMainWindow* m_window;
    std::function<bool()> m_commitPending;
};

QAction* documentAction(QAction* action, const QString& name, QUndoStack* stack,
                        const std::function<bool()>& commitPending, void (QUndoStack::*step)())
{
    action->setIconText(name);
    QObject::disconnect(action, &QAction::triggered, stack, nullptr);
    QObject::connect(action, &QAction::triggered, stack, [stack, commitPending, step] {
        if (commitPending())
            (stack->*step)();
    });
    return action;
}

} // namespace

DocumentUndoActions addDocumentUndo(QMainWindow* window, QUndoStack* stack,
                                    std::function<bool()> commitPending)
{
    DocumentUndoActions out;
    out.undo = documentAction(stack->createUndoAction(window, QObject::tr("&Undo")),
                              QObject::tr("Undo"), stack, commitPending, &QUndoStack::undo);
    out.undo->setShortcuts(QKeySequence::Undo);
    out.redo = documentAction(stack->createRedoAction(window, QObject::tr("&Redo")),
                              QObject::tr("Redo"), stack, commitPending, &QUndoStack::redo);
    out.redo->setShortcuts(QKeySequence::Redo); // Ctrl+Y and Ctrl+Shift+Z
    for (QAction* a : {out.undo, out.redo})
        a->setShortcutContext(Qt::WindowShortcut);
    qApp->installEventFilter(new UndoShortcutsFirst(window, std::move(commitPending)));
    return out;
}
