#pragma once
// Undo and redo of the document from anywhere in the window. A text field, a spin box or a
// combo box with the focus takes Ctrl+Z for its own typing, so the document's undo would do
// nothing while a Properties field has the focus; here the window's shortcuts win, and the
// value typed in the field is committed first (so that Ctrl+Z right after typing takes that
// value back, as one undo step).

#include <functional>

class QAction;
class QMainWindow;
class QUndoStack;

struct DocumentUndoActions {
    QAction* undo = nullptr;
    QAction* redo = nullptr;
};

// Undo and redo actions of `stack` for `window` (their text follows the stack's next step;
// iconText stays "Undo" and "Redo", the name the shortcut list shows). Each first calls
// `commitPending`, and does nothing when that returns false (the user kept a refused value).
DocumentUndoActions addDocumentUndo(QMainWindow* window, QUndoStack* stack,
                                    std::function<bool()> commitPending);
