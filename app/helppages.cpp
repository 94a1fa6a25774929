#include "helppages.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QKeySequence>
#include <QMap>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QWidget>

namespace {

QString row(const QString& keys, const QString& what)
{
    return QStringLiteral("<tr><td style='padding:2px 14px 2px 0'><b>%1</b></td><td>%2</td></tr>")
        .arg(keys.toHtmlEscaped(), what.toHtmlEscaped());
}

QString table(const QString& title, const QString& rows)
{
    return QStringLiteral("<h3>%1</h3><table>%2</table>").arg(title.toHtmlEscaped(), rows);
}

} // namespace

QString shortcutsHtml(const QWidget* window)
{
    // By name, so that an action added to a menu and to the window is listed once. The name
    // is the icon text: the text of Undo and Redo says the next step ("Redo Set TP to 8"), their
    // icon text stays "Undo" and "Redo" (documentundo.h).
    QMap<QString, QString> actions;
    for (const QAction* a : window->findChildren<QAction*>()) {
        if (a->shortcuts().isEmpty() || a->iconText().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        QString text = a->iconText();
        text.remove(QLatin1Char('&'));
        text.remove(QStringLiteral("..."));
        actions.insert(text, keys.join(QStringLiteral(", ")));
    }
    QString rows;
    for (auto it = actions.begin(); it != actions.end(); ++it)
        rows += row(it.value(), it.key());

    QString topology;
    topology += row(QObject::tr("Wheel"), QObject::tr("Zoom under the pointer"));
    topology += row(QObject::tr("Drag, arrow keys"), QObject::tr("Pan"));
    topology +=
        row(QObject::tr("Click a GPU"), QObject::tr("Select its rank: its groups light up"));
    topology += row(QObject::tr("Escape"), QObject::tr("Clear the selection"));
    topology += row(QObject::tr("Hover"), QObject::tr("What it is, its groups, its links"));
    QString timeline;
    timeline += row(QObject::tr("Wheel"), QObject::tr("Zoom in time"));
    timeline += row(QObject::tr("Shift+wheel, drag the ruler, middle drag"), QObject::tr("Pan"));
    timeline += row(QObject::tr("Drag over the rows"), QObject::tr("Measure a range"));
    timeline += row(QObject::tr("Click"),
                    QObject::tr("Select an event, show its dependencies, move the time there"));
    timeline += row(QObject::tr("Ctrl+wheel"), QObject::tr("Scroll the stages"));
    timeline += row(QObject::tr("Escape"), QObject::tr("Clear the measurement and selection"));
    QString properties;
    properties += row(QObject::tr("Click a field, then wheel or arrows"),
                      QObject::tr("Change its value (the wheel edits a field only once it has "
                                  "the focus; over the panel it scrolls)"));
    properties += row(QObject::tr("Enter, Tab"), QObject::tr("Confirm a typed value"));
    return table(QObject::tr("Commands"), rows) + table(QObject::tr("Topology"), topology) +
           table(QObject::tr("Step timeline"), timeline) +
           table(QObject::tr("Properties"), properties);
}

QString firstStepsHtml()
{
    return QObject::tr(
        "<h2>First steps</h2>"
        "<ol>"
        "<li><b>Look at the hall.</b> The middle shows every rack, tray and GPU and the switches "
        "above them. Colour by a parallel dimension (toolbar) to see where its groups land; the "
        "Legend says whether each stays inside an NVLink domain or crosses the fabric.</li>"
        "<li><b>Pick a GPU.</b> Click one: its tensor, context, pipeline, data-parallel and, "
        "in a mixture-of-experts run, expert-parallel groups light up with the links they use; "
        "the Inspector lists them and the experts the GPU holds.</li>"
        "<li><b>Watch a step.</b> Press Space. The GPUs show what they do; the Step Timeline "
        "below has one row per pipeline stage. Hover any box or gap to see what it is and what "
        "it waits for; drag over the rows to measure.</li>"
        "<li><b>Read the breakdown.</b> The Step Breakdown dock splits the step's critical path "
        "into compute, exposed communication per dimension, bubble and optimizer.</li>"
        "<li><b>Change something.</b> Edit a field in Properties (click it first): every view "
        "follows, and Ctrl+Z undoes. Tools &gt; Search Parallelism ranks every layout that "
        "fits.</li>"
        "<li><b>Compare.</b> File &gt; Compare With... puts another run beside this one: raw and "
        "per-GPU figures, every input that differs, and where the difference comes from.</li>"
        "<li><b>Break something.</b> Right-click a switch, link, rack or GPU to take it out of "
        "service: the run moves to the healthy GPUs if it must, and the Goodput dock gives what "
        "failures, checkpoints and stragglers cost the whole training run.</li>"
        "<li><b>Hold it against measurements.</b> Open a measured-runs file "
        "(<code>*.jsonl</code>, such as the published runs the model is checked on): each row's "
        "measured step beside the prediction, and the mean error.</li>"
        "<li><b>Present.</b> Ctrl+B keeps the view as a bookmark with a caption and speaker "
        "notes; F11 presents them, Page Down walks them, Escape comes back.</li>"
        "</ol>"
        "<p>The same model answers on the command line: <code>clusterscope-cli evaluate</code>, "
        "<code>compare</code>, <code>search</code>.</p>");
}

QDialog* helpDialog(HelpPage page, QWidget* window)
{
    auto* dialog = new QDialog(window);
    dialog->setWindowTitle(page == HelpPage::Shortcuts ? QObject::tr("Keyboard Shortcuts")
                                                       : QObject::tr("First Steps"));
    auto* text = new QTextBrowser(dialog);
    text->setOpenExternalLinks(true);
    text->setHtml(page == HelpPage::Shortcuts ? shortcutsHtml(window) : firstStepsHtml());
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(text);
    layout->addWidget(buttons);
    dialog->resize(page == HelpPage::Shortcuts ? QSize(560, 640) : QSize(620, 520));
    return dialog;
}
