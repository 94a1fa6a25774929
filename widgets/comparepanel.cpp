#include "comparepanel.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QBoxLayout>
#include <QButtonGroup>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegend>
#include <QPainter>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QValueAxis>
#include <cmath>
#include <tuple>

#include "activitycolors.h"
#include "cachedchartview.h"
#include "text.h"

namespace {

constexpr int kWideFrom = 860;    // px: explanation and chart beside the tables
constexpr int kChartHeight = 230; // the bars, their axes and title, never squeezed

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QTableWidgetItem* cell(const QString& text, bool number)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(number ? Qt::AlignRight | Qt::AlignVCenter
                                  : Qt::AlignLeft | Qt::AlignVCenter);
    return item;
}

QString signedText(double v, const QString& text)
{
    return v > 0 ? QLatin1Char('+') + text : text;
}

QString inStep(double s)
{
    return qs(cs::inStepTimeText(s));
}

QString gpuMs(double s)
{
    // Three decimals, and no sign on what rounds to nothing.
    return std::abs(s * 1e3) < 5e-4 ? QStringLiteral("0.000") : QString::number(s * 1e3, 'f', 3);
}

QIcon swatch(const QColor& color)
{
    QPixmap pixmap(12, 12);
    pixmap.fill(color);
    return QIcon(pixmap);
}

QTableWidget* makeTable(const QStringList& headers, QWidget* parent)
{
    auto* table = new QTableWidget(0, int(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setFocusPolicy(Qt::NoFocus);
    table->setWordWrap(false);
    table->horizontalHeader()->setStretchLastSection(false);
    table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    return table;
}

// Every row shown: the panel scrolls as a whole, a table never inside it.
void fitRows(QTableWidget* table)
{
    table->resizeColumnsToContents();
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    int height = table->horizontalHeader()->height() + 2 * table->frameWidth() + 2;
    for (int r = 0; r < table->rowCount(); ++r)
        height += table->rowHeight(r);
    if (table->horizontalScrollBar()->isVisible())
        height += table->horizontalScrollBar()->height();
    table->setFixedHeight(height);
}

QLabel* wrappedLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setMargin(4);
    return label;
}

QLabel* sectionTitle(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped()), parent);
    label->setContentsMargins(4, 8, 4, 0);
    return label;
}

} // namespace

ComparePanel::ComparePanel(QWidget* parent)
    : QWidget(parent)
{
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_content = new QWidget;
    scroll->setWidget(m_content);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    m_left = new QWidget(m_content);
    m_right = new QWidget(m_content);
    m_message = wrappedLabel(m_left);
    m_findings = wrappedLabel(m_left);
    m_findings->setObjectName(QStringLiteral("compareFindings"));

    m_unitChoice = new QWidget(m_left);
    auto* perStep = new QRadioButton(tr("seconds per step"), m_unitChoice);
    auto* perToken = new QRadioButton(tr("GPU time per token"), m_unitChoice);
    perToken->setToolTip(tr("Seconds x GPUs / tokens per step: comparable across GPU counts"));
    m_units = new QButtonGroup(this);
    m_units->addButton(perStep, 0);
    m_units->addButton(perToken, 1);
    auto* units = new QHBoxLayout(m_unitChoice);
    units->setContentsMargins(4, 0, 4, 0);
    units->addWidget(new QLabel(tr("Bars:"), m_unitChoice));
    units->addWidget(perStep);
    units->addWidget(perToken);
    units->addStretch();
    connect(m_units, &QButtonGroup::idClicked, this, [this](int id) {
        m_perTokenChosen = true;
        setPerToken(id == 1);
    });

    m_view = new CachedChartView(m_left);
    m_view->setLeastSize({240, kChartHeight});
    // The breakdown table below is the legend: its rows carry the colours.
    m_view->chart()->legend()->hide();

    m_figures = makeTable({tr("figure"), tr("A"), tr("B"), tr("B / A")}, m_right);
    m_inputs = makeTable({tr("input"), tr("A"), tr("B")}, m_right);
    // Per step and per token in two tables of four columns: one of seven is wider than the dock
    // at 1280x720 and squeezed the parts' names out of sight.
    m_breakdown = makeTable({tr("critical path"), tr("A"), tr("B"), tr("B - A")}, m_right);
    m_breakdownPerToken = makeTable({tr("critical path"), tr("A"), tr("B"), tr("B - A")}, m_right);
    m_notes = wrappedLabel(m_right);
    m_notes->setObjectName(QStringLiteral("compareNotes"));

    auto* left = new QVBoxLayout(m_left);
    left->setContentsMargins(0, 0, 0, 0);
    left->addWidget(m_message);
    left->addWidget(m_findings);
    left->addWidget(m_unitChoice);
    left->addWidget(m_view);
    left->addStretch();
    auto* right = new QVBoxLayout(m_right);
    right->setContentsMargins(0, 0, 0, 0);
    right->addWidget(sectionTitle(tr("Figures, raw and per GPU"), m_right));
    right->addWidget(m_figures);
    right->addWidget(sectionTitle(tr("Inputs that differ"), m_right));
    right->addWidget(m_inputs);
    right->addWidget(sectionTitle(tr("Breakdown: ms per step"), m_right));
    right->addWidget(m_breakdown);
    right->addWidget(sectionTitle(tr("Breakdown: GPU-ms per token"), m_right));
    right->addWidget(m_breakdownPerToken);
    right->addWidget(sectionTitle(tr("Notes"), m_right));
    right->addWidget(m_notes);
    right->addStretch();
    m_columns = new QBoxLayout(QBoxLayout::TopToBottom, m_content);
    m_columns->setContentsMargins(4, 4, 4, 4);
    m_columns->addWidget(m_left);
    m_columns->addWidget(m_right);
    clear(tr("The session has no run to compare with (File > Compare With...)."));
}

QChart* ComparePanel::chart() const
{
    return m_view->chart();
}

void ComparePanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    arrange(width() >= kWideFrom);
}

void ComparePanel::arrange(bool wide)
{
    if (wide == m_wide)
        return;
    m_wide = wide;
    m_columns->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
    m_columns->setStretch(0, wide ? 2 : 0);
    m_columns->setStretch(1, wide ? 3 : 0);
}

void ComparePanel::clear(const QString& reason)
{
    m_comparison.reset();
    m_message->setText(reason.toHtmlEscaped());
    clearChart(m_view->chart());
    for (QWidget* w : std::initializer_list<QWidget*>{m_findings, m_unitChoice, m_view, m_right})
        w->hide();
}

void ComparePanel::setComparison(const cs::Comparison& comparison)
{
    m_comparison = comparison;
    const cs::Comparison& c = *m_comparison;
    const auto side = [](const char* letter, const cs::ClusterRun& cr) {
        return QStringLiteral("<b>%1</b> %2<br>&nbsp;&nbsp;&nbsp;on %3")
            .arg(QLatin1String(letter), qs(cr.run.name).toHtmlEscaped(),
                 qs(cr.cluster.name).toHtmlEscaped());
    };
    m_message->setText(side("A", c.a) + QStringLiteral("<br>") + side("B", c.b));
    QString findings = QStringLiteral("<b>%1</b><ul style='margin-left:-18px'>")
                           .arg(tr("Where the difference comes from").toHtmlEscaped());
    for (const std::string& f : c.findings)
        findings += QStringLiteral("<li>%1</li>").arg(qs(f).toHtmlEscaped());
    m_findings->setText(findings + QStringLiteral("</ul>"));

    QString notes;
    for (const auto& [letter, cr] : {std::pair{"A", &c.a}, std::pair{"B", &c.b}})
        for (const std::string& n : {cs::notesOf(cr->run), cs::notesOf(cr->cluster)})
            if (!n.empty())
                notes += QStringLiteral("<p><b>%1</b> %2</p>")
                             .arg(QLatin1String(letter), qs(n).toHtmlEscaped());
    m_notes->setText(notes.isEmpty() ? tr("Neither run has notes.") : notes);

    // Runs on different GPU counts compare per token unless the user chose otherwise.
    if (!m_perTokenChosen)
        m_perToken = c.evalA.gpusUsed != c.evalB.gpusUsed;
    m_units->button(m_perToken ? 1 : 0)->setChecked(true);
    fillChart();
    fillFigures();
    fillInputs();
    fillBreakdown();
    for (QWidget* w : std::initializer_list<QWidget*>{m_findings, m_unitChoice, m_view, m_right})
        w->show();
}

void ComparePanel::setPerToken(bool perToken)
{
    m_perToken = perToken;
    m_units->button(perToken ? 1 : 0)->setChecked(true);
    if (m_comparison)
        fillChart();
}

void ComparePanel::fillChart()
{
    const cs::Comparison& c = *m_comparison;
    QChart* chart = m_view->chart();
    clearChart(chart);
    auto* series = new QHorizontalStackedBarSeries;
    series->setBarWidth(0.6);
    const double scale = m_perToken ? 1e3 : 1.0; // GPU-ms per token, or seconds
    for (const cs::BreakdownRow& r : c.breakdown) {
        const double a = m_perToken ? r.aPerToken : r.a, b = m_perToken ? r.bPerToken : r.b;
        if (a <= 0 && b <= 0)
            continue;
        auto* set = new QBarSet(qs(r.label));
        const QColor color = breakdownColor({r.key, r.label, 0, r.dim});
        set->setColor(color);
        set->setBorderColor(color);
        // The category axis lists bottom to top: B first puts A on top.
        *set << b * scale << a * scale;
        series->append(set);
    }
    chart->addSeries(series);
    auto* categories = new QBarCategoryAxis;
    categories->append({tr("B"), tr("A")});
    chart->addAxis(categories, Qt::AlignLeft);
    series->attachAxis(categories);
    const cs::Figure& total = *c.figure(m_perToken ? "gpu_s_per_token" : "step_time_s");
    auto* values = new QValueAxis;
    values->setTitleText(m_perToken ? tr("GPU-ms per token") : tr("seconds per step"));
    values->setRange(0, std::max(total.a, total.b) * scale * 1.05);
    values->applyNiceNumbers();
    values->setLabelFormat(QStringLiteral("%.2f"));
    chart->addAxis(values, Qt::AlignBottom);
    series->attachAxis(values);
    const double change = total.a > 0 ? (total.b / total.a - 1) * 100 : 0;
    chart->setTitle(tr("%1: A %2, B %3 (%4 %)")
                        .arg(m_perToken ? tr("Per token") : tr("Per step"),
                             qs(cs::figureText(total.unit, total.a)),
                             qs(cs::figureText(total.unit, total.b)),
                             signedText(change, QString::number(change, 'f', 1))));
}

void ComparePanel::fillFigures()
{
    const cs::Comparison& c = *m_comparison;
    m_figures->setRowCount(0);
    for (bool normalized : {false, true}) {
        const int header = m_figures->rowCount();
        m_figures->insertRow(header);
        auto* title = cell(normalized ? tr("per GPU and per token") : tr("per step"), false);
        QFont bold = m_figures->font();
        bold.setBold(true);
        title->setFont(bold);
        m_figures->setItem(header, 0, title);
        m_figures->setSpan(header, 0, 1, 4);
        for (const cs::Figure& f : c.figures) {
            if (f.normalized != normalized)
                continue;
            const int r = m_figures->rowCount();
            m_figures->insertRow(r);
            m_figures->setItem(r, 0, cell(qs(f.label), false));
            m_figures->setItem(r, 1, cell(qs(cs::figureText(f.unit, f.a)), true));
            m_figures->setItem(r, 2, cell(qs(cs::figureText(f.unit, f.b)), true));
            const std::optional<double> ratio = f.ratio();
            auto* ratioCell =
                cell(ratio ? QString::number(*ratio, 'f', 3) : QStringLiteral("-"), true);
            // Better for B in green, worse in red, where "better" has a direction.
            if (ratio && std::abs(*ratio - 1) > 1e-3 && f.key != "gpus_used" &&
                f.key != "tokens_per_step") {
                const bool better = (*ratio > 1) == f.higherIsBetter;
                ratioCell->setForeground(better ? QColor(0x2e, 0x9d, 0x4a)
                                                : QColor(0xd0, 0x3a, 0x3a));
            }
            m_figures->setItem(r, 3, ratioCell);
        }
        if (!normalized)
            addMeasuredRows();
    }
    fitRows(m_figures);
}

void ComparePanel::addMeasuredRows()
{
    const cs::Comparison& c = *m_comparison;
    const auto& a = c.a.run.measured;
    const auto& b = c.b.run.measured;
    if (!a && !b)
        return;
    auto measured = [](const std::optional<cs::Measured>& m) {
        return m ? qs(cs::stepTimeText(m->stepTimeS)) : QStringLiteral("-");
    };
    auto error = [](const std::optional<cs::Measured>& m, double predicted) {
        if (!m || m->stepTimeS <= 0)
            return QStringLiteral("-");
        return QString::fromStdString(cs::signedPercentText(predicted / m->stepTimeS - 1));
    };
    for (const auto& [label, textA, textB] :
         {std::tuple{tr("measured step time"), measured(a), measured(b)},
          std::tuple{tr("predicted vs measured"), error(a, c.evalA.stepTimeS),
                     error(b, c.evalB.stepTimeS)}}) {
        const int r = m_figures->rowCount();
        m_figures->insertRow(r);
        m_figures->setItem(r, 0, cell(label, false));
        m_figures->setItem(r, 1, cell(textA, true));
        m_figures->setItem(r, 2, cell(textB, true));
        m_figures->setItem(r, 3, cell(QStringLiteral("-"), true));
    }
}

void ComparePanel::fillInputs()
{
    const cs::Comparison& c = *m_comparison;
    m_inputs->setRowCount(int(c.differences.size()));
    for (int r = 0; r < int(c.differences.size()); ++r) {
        const cs::InputDifference& d = c.differences[size_t(r)];
        auto* name = cell(qs(d.label), false);
        name->setToolTip(qs(d.path));
        m_inputs->setItem(r, 0, name);
        m_inputs->setItem(r, 1, cell(qs(cs::inputText(d.a)), true));
        m_inputs->setItem(r, 2, cell(qs(cs::inputText(d.b)), true));
    }
    if (c.differences.empty()) {
        m_inputs->setRowCount(1);
        m_inputs->setItem(0, 0, cell(tr("none: the same cluster and run"), false));
        m_inputs->setSpan(0, 0, 1, 3);
    }
    fitRows(m_inputs);
}

void ComparePanel::fillBreakdown()
{
    const cs::Comparison& c = *m_comparison;
    for (QTableWidget* table : {m_breakdown, m_breakdownPerToken})
        table->setRowCount(0);
    // A row of a table: the part's name, A, B and B - A (`delta`, its sign shown unless zero).
    const auto addRow = [](QTableWidget* table, const QString& label, const QIcon& icon,
                           const QString& a, const QString& b, double delta,
                           const QString& deltaText) {
        const int r = table->rowCount();
        table->insertRow(r);
        auto* name = cell(label, false);
        name->setIcon(icon);
        table->setItem(r, 0, name);
        table->setItem(r, 1, cell(a, true));
        table->setItem(r, 2, cell(b, true));
        table->setItem(
            r, 3,
            cell(deltaText == QLatin1String("0.000") ? deltaText : signedText(delta, deltaText),
                 true));
    };
    const auto addPart = [&](const QString& label, const QIcon& icon, double a, double b,
                             double aTok, double bTok) {
        addRow(m_breakdown, label, icon, inStep(a), inStep(b), b - a, inStep(b - a));
        addRow(m_breakdownPerToken, label, icon, gpuMs(aTok), gpuMs(bTok), bTok - aTok,
               gpuMs(bTok - aTok));
    };
    for (const cs::BreakdownRow& r : c.breakdown)
        addPart(qs(r.label), swatch(breakdownColor({r.key, r.label, 0, r.dim})), r.a, r.b,
                r.aPerToken, r.bPerToken);
    const cs::Figure& perToken = *c.figure("gpu_s_per_token");
    addPart(tr("step"), QIcon(), c.evalA.stepTimeS, c.evalB.stepTimeS, perToken.a, perToken.b);
    QFont bold = m_breakdown->font();
    bold.setBold(true);
    for (QTableWidget* table : {m_breakdown, m_breakdownPerToken}) {
        const int total = table->rowCount() - 1;
        for (int col = 0; col < table->columnCount(); ++col)
            table->item(total, col)->setFont(bold);
        fitRows(table);
    }
}
