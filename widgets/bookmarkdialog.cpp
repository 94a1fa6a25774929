#include "bookmarkdialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>

#include "dialogsize.h"

BookmarkDialog::BookmarkDialog(const QString& windowTitle, const QString& caption,
                               const QString& notes, QWidget* parent)
    : QDialog(parent)
    , m_caption(new QLineEdit(caption, this))
    , m_notes(new QPlainTextEdit(notes, this))
{
    setWindowTitle(windowTitle);
    m_caption->setPlaceholderText(tr("What the audience should see here"));
    m_caption->selectAll();
    m_notes->setPlaceholderText(tr("Speaker notes: shown in the notes window while presenting"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_caption, &QLineEdit::textChanged, this, [buttons](const QString& text) {
        buttons->button(QDialogButtonBox::Ok)->setEnabled(!text.trimmed().isEmpty());
    });
    auto* form = new QFormLayout(this);
    form->addRow(tr("Caption"), m_caption);
    form->addRow(tr("Notes"), m_notes);
    form->addRow(buttons);
    resizeWithinScreen(this, {520, 300});
}

QString BookmarkDialog::caption() const
{
    return m_caption->text().trimmed();
}

QString BookmarkDialog::notes() const
{
    return m_notes->toPlainText();
}
