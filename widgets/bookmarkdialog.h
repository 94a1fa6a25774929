#pragma once
// Asks for a bookmark's caption and its speaker notes (Ctrl+B, and editing a bookmark).

#include <QDialog>

class QLineEdit;
class QPlainTextEdit;

class BookmarkDialog : public QDialog {
    Q_OBJECT
public:
    BookmarkDialog(const QString& windowTitle, const QString& caption, const QString& notes,
                   QWidget* parent = nullptr);
    QString caption() const;
    QString notes() const;

private:
    QLineEdit* m_caption = nullptr;
    QPlainTextEdit* m_notes = nullptr;
};
