#include "speakernotes.h"

#include <QLabel>
#include <QTextBrowser>
#include <QVBoxLayout>

SpeakerNotes::SpeakerNotes(QWidget* parent)
    : QWidget(parent, Qt::Window)
    , m_title(new QLabel(this))
    , m_notes(new QTextBrowser(this))
    , m_next(new QLabel(this))
{
    setWindowTitle(tr("Speaker Notes - ClusterScope"));
    QFont big = font();
    big.setPixelSize(26);
    big.setBold(true);
    m_title->setFont(big);
    m_title->setWordWrap(true);
    QFont text = font();
    text.setPixelSize(22);
    m_notes->setFont(text);
    QFont small = font();
    small.setPixelSize(18);
    m_next->setFont(small);
    m_next->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_notes, 1);
    layout->addWidget(m_next);
    resize(720, 480);
}

void SpeakerNotes::show(const std::vector<cs::Bookmark>& bookmarks, int current)
{
    if (current < 0 || current >= int(bookmarks.size())) {
        m_title->setText(tr("No bookmark yet: Page Down goes to the first."));
        m_notes->clear();
    } else {
        const cs::Bookmark& b = bookmarks[size_t(current)];
        m_title->setText(tr("%1 / %2  %3")
                             .arg(current + 1)
                             .arg(bookmarks.size())
                             .arg(QString::fromStdString(b.title)));
        m_notes->setPlainText(b.notes.empty() ? tr("(no notes)") : QString::fromStdString(b.notes));
    }
    const int next = current + 1;
    m_next->setText(next < int(bookmarks.size())
                        ? tr("Next: %1").arg(QString::fromStdString(bookmarks[size_t(next)].title))
                        : tr("Next: the end"));
    QWidget::show();
}

QString SpeakerNotes::notesText() const
{
    return m_notes->toPlainText();
}
